"""The deployment files agree with the code: real commands, real settings, real queues.

Docker and Kubernetes do not run here, so these checks are what keeps deploy/ honest: a
renamed subcommand, setting or queue fails this test instead of a rollout.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.cli import build_parser
from shared.celery_app import Stage
from shared.config import Settings

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
ENV_NAME = re.compile(r"\bMEMWARDEN_[A-Z0-9_]+\b")
QUEUES = {stage.value for stage in Stage}


def yaml_files() -> list[Path]:
    return sorted([*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml")])


def documents() -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in yaml_files():
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc is not None:
                assert isinstance(doc, dict), f"{path}: a document is not a mapping"
                yield path, doc


def walk(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item)


def argvs(node: Any) -> Iterator[list[str]]:
    """Every command line: compose ``command``/``entrypoint``, a container's ``command`` +
    ``args``, an exec probe's ``command``, a compose healthcheck's ``test``."""
    if isinstance(node, dict):
        command = node.get("command", node.get("entrypoint"))
        if command is not None:
            argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
            args = node.get("args")
            yield argv + ([str(a) for a in args] if isinstance(args, list) else [])
        test = node.get("test")
        if isinstance(test, list) and test and test[0] in ("CMD", "CMD-SHELL"):
            yield [str(a) for a in test[1:]]
        for value in node.values():
            yield from argvs(value)
    elif isinstance(node, list):
        for item in node:
            yield from argvs(item)


def memwarden_argvs() -> list[tuple[Path, list[str]]]:
    found = []
    for path, doc in documents():
        for argv in argvs(doc):
            if argv and argv[0] == "memwarden":
                found.append((path, argv[1:]))
            else:  # a shell that runs memwarden would escape the parser check below
                assert not any(re.search(r"(^|[\s;&|])memwarden\s", a) for a in argv), (
                    f"{path}: run memwarden in exec form, not through a shell: {argv}"
                )
    return found


def test_deploy__every_yaml_file_parses() -> None:
    assert {p.name for p in yaml_files()} >= {"compose.yaml", "kustomization.yaml"}
    assert sum(1 for _ in documents()) > 10


def test_deploy__every_memwarden_command_is_a_real_subcommand() -> None:
    parser = build_parser()
    found = memwarden_argvs()
    assert found
    for path, argv in found:
        try:
            parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"{path}: `memwarden {' '.join(argv)}` is not a valid command")


def test_deploy__every_worker_is_a_celery_queue_and_every_queue_has_workers() -> None:
    per_file: dict[str, set[str]] = {}
    for path, argv in memwarden_argvs():
        if argv[0] == "worker":
            assert argv[1] in QUEUES, f"{path}: no Celery queue named {argv[1]}"
            per_file.setdefault("compose" if path.name == "compose.yaml" else "k8s", set()).add(
                argv[1]
            )
    assert per_file == {"compose": QUEUES, "k8s": QUEUES}


def test_deploy__every_memwarden_variable_is_a_setting() -> None:
    fields = {name.upper() for name in Settings.model_fields}
    texts = [json.dumps(doc) for _, doc in documents()]
    texts.append((REPO / "Dockerfile").read_text(encoding="utf-8"))
    used = {m for text in texts for m in ENV_NAME.findall(text)}
    assert {"MEMWARDEN_DATABASE_URL", "MEMWARDEN_BROKER_URL"} <= used
    unknown = {name for name in used if name.removeprefix("MEMWARDEN_") not in fields}
    assert not unknown, f"not fields of shared.config.Settings: {sorted(unknown)}"


def test_deploy__every_scaled_object_watches_its_own_stage_queue() -> None:
    docs = [doc for _, doc in documents()]
    deployments = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Deployment"}
    scaled = [d for d in docs if d.get("kind") == "ScaledObject"]
    assert len(scaled) == len(QUEUES)
    watched = set()
    for obj in scaled:
        target = deployments[obj["spec"]["scaleTargetRef"]["name"]]
        [container] = target["spec"]["template"]["spec"]["containers"]
        for trigger in obj["spec"]["triggers"]:
            assert trigger["type"] == "redis"
            queue = trigger["metadata"]["listName"]
            assert queue in QUEUES
            assert container["command"] == ["memwarden", "worker", queue]
            watched.add(queue)
    assert watched == QUEUES


def test_deploy__every_kubernetes_deployment_has_probes_resources_and_a_budget() -> None:
    docs = [doc for _, doc in documents()]
    budgets = {
        tuple(sorted(d["spec"]["selector"]["matchLabels"].items()))
        for d in docs
        if d.get("kind") == "PodDisruptionBudget"
    }
    deployments = [d for d in docs if d.get("kind") == "Deployment"]
    assert len(deployments) == 2 + len(QUEUES)  # api, relay, one per stage
    for deployment in deployments:
        name = deployment["metadata"]["name"]
        labels = tuple(sorted(deployment["spec"]["selector"]["matchLabels"].items()))
        assert labels in budgets, f"{name}: no PodDisruptionBudget"
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            assert {"requests", "limits"} <= container["resources"].keys(), name
            assert "livenessProbe" in container and "readinessProbe" in container, name
    api = next(d for d in deployments if d["metadata"]["name"] == "memwarden-api")
    [container] = api["spec"]["template"]["spec"]["containers"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_deploy__redis_keeps_an_append_only_file_and_never_evicts() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    command = compose["services"]["redis"]["command"]
    flags = dict(zip(command[1::2], command[2::2], strict=False))
    assert flags["--appendonly"] == "yes"
    assert flags["--maxmemory-policy"] == "noeviction"


def test_deploy__the_image_runs_the_console_script_as_a_non_root_user() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert "memwarden" in scripts
    lines = (REPO / "Dockerfile").read_text(encoding="utf-8").splitlines()
    final_stage = lines[max(i for i, line in enumerate(lines) if line.startswith("FROM ")) :]
    cmd = [json.loads(line.split(None, 1)[1]) for line in final_stage if line.startswith("CMD ")]
    entrypoint = [
        json.loads(line.split(None, 1)[1]) for line in final_stage if line.startswith("ENTRYPOINT ")
    ]
    argv = (entrypoint[-1] if entrypoint else []) + (cmd[-1] if cmd else [])
    assert argv[0] == "memwarden", "the image must start the console script"
    with pytest.raises(SystemExit) as done:  # `memwarden --help` prints help and exits 0
        build_parser().parse_args(argv[1:])
    assert done.value.code == 0
    users = [line.split()[1] for line in final_stage if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("root", "0")
