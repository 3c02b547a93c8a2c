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

from memwarden.cli import build_parser
from memwarden_shared.config import Settings
from memwarden_shared.delivery.pipeline import Stage

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


def k8s_documents() -> list[dict[str, Any]]:
    """The Kubernetes objects (kustomization.yaml is kustomize's input, not an object)."""
    return [
        doc
        for path, doc in documents()
        if path.parent.name == "kubernetes" and path.name != "kustomization.yaml"
    ]


def containers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if doc.get("kind") not in ("Deployment", "Job"):
        return []
    return list(doc["spec"]["template"]["spec"]["containers"])


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["name"]: item for item in container.get("env", [])}


def test_deploy__kubernetes_creates_no_secret_and_no_file_holds_a_placeholder_password() -> None:
    assert not [d["metadata"]["name"] for d in k8s_documents() if d.get("kind") == "Secret"]
    for path in yaml_files():
        assert "change-me" not in path.read_text(encoding="utf-8"), path


def test_deploy__each_credential_has_one_source_an_existing_secret() -> None:
    sources = set()
    pods = [(d["metadata"]["name"], c) for d in k8s_documents() for c in containers(d)]
    assert len(pods) == 3 + len(QUEUES)  # api, relay, migrate, one worker per stage
    for name, container in pods:
        assert all("secretRef" not in item for item in container.get("envFrom", [])), name
        env = env_of(container)
        database = env["MEMWARDEN_DATABASE_URL"]["valueFrom"]["secretKeyRef"]
        sources.add((database["name"], database["key"]))
        if name == "memwarden-migrate":
            # Only the migration connects as the tables' owner (row-level security).
            assert database["key"] == "owner-url"
            assert "MEMWARDEN_BROKER_URL" not in env
            continue
        assert database["key"] == "url", name
        password = env["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
        sources.add((password["name"], password["key"]))
        # Kubernetes expands $(VAR) from variables listed earlier in the same container.
        broker = env["MEMWARDEN_BROKER_URL"]["value"]
        assert broker == "redis://:$(REDIS_PASSWORD)@$(REDIS_ADDRESS)/$(REDIS_DATABASE)", name
        names = list(env)
        assert names.index("MEMWARDEN_BROKER_URL") > max(
            names.index(v) for v in ("REDIS_PASSWORD", "REDIS_ADDRESS", "REDIS_DATABASE")
        )
    [auth] = [d for d in k8s_documents() if d.get("kind") == "TriggerAuthentication"]
    [ref] = auth["spec"]["secretTargetRef"]
    sources.add((ref["name"], ref["key"]))
    assert sources == {
        ("memwarden-database", "url"),
        ("memwarden-database", "owner-url"),
        ("memwarden-redis", "password"),
    }


def apply_replacements(docs: list[dict[str, Any]], kustomization: dict[str, Any]) -> None:
    """The subset of kustomize ``replacements`` these manifests use: a ConfigMap data field
    copied into a dotted path (list indexes as numbers) of every object of a kind."""

    def get(node: Any, path: str) -> Any:
        for part in path.split("."):
            node = node[int(part)] if part.isdigit() else node[part]
        return node

    for rule in kustomization["replacements"]:
        src = rule["source"]
        [origin] = [
            d for d in docs if (d["kind"], d["metadata"]["name"]) == (src["kind"], src["name"])
        ]
        value = get(origin, src["fieldPath"])
        for target in rule["targets"]:
            for doc in docs:
                if doc.get("kind") != target["select"]["kind"]:
                    continue
                for field_path in target["fieldPaths"]:
                    *parents, last = field_path.split(".")
                    holder = get(doc, ".".join(parents))
                    assert last in holder, f"{doc['metadata']['name']}: no {field_path}"
                    holder[last] = value


def test_deploy__scalers_watch_the_redis_database_the_workers_consume() -> None:
    docs = k8s_documents()
    kustomization = yaml.safe_load(
        (DEPLOY / "kubernetes" / "kustomization.yaml").read_text(encoding="utf-8")
    )
    scaled = [d for d in docs if d.get("kind") == "ScaledObject"]
    for obj in scaled:  # no second copy of the broker's place to keep equal by hand
        metadata = obj["spec"]["triggers"][0]["metadata"]
        assert metadata["address"] == metadata["databaseIndex"] == "from-memwarden-broker"
    apply_replacements(docs, kustomization)
    [broker] = [
        d
        for d in docs
        if d.get("kind") == "ConfigMap" and d["metadata"]["name"] == "memwarden-broker"
    ]
    for obj in scaled:
        metadata = obj["spec"]["triggers"][0]["metadata"]
        assert metadata["address"] == broker["data"]["address"]
        assert metadata["databaseIndex"] == broker["data"]["database"]
    for doc in docs:
        for container in containers(doc):
            env = env_of(container)
            if "MEMWARDEN_BROKER_URL" in env:
                for var, key in (("REDIS_ADDRESS", "address"), ("REDIS_DATABASE", "database")):
                    ref = env[var]["valueFrom"]["configMapKeyRef"]
                    assert (ref["name"], ref["key"]) == ("memwarden-broker", key)


def test_deploy__compose_runs_flower_against_the_workers_broker_on_loopback_only() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    flower = compose["services"]["flower"]
    assert flower["command"][:2] == ["celery", "flower"]
    broker = compose["services"]["gate"]["environment"]["MEMWARDEN_BROKER_URL"]
    assert flower["environment"]["CELERY_BROKER_URL"] == broker
    assert all(str(port).startswith("127.0.0.1:") for port in flower["ports"])


def test_deploy__only_the_migration_job_and_service_run_migrate() -> None:
    migrating = {
        (path.name, doc.get("metadata", {}).get("name"))
        for path, doc in documents()
        for argv in argvs(doc)
        if argv[:2] == ["memwarden", "migrate"]
    }
    assert migrating == {("migrate-job.yaml", "memwarden-migrate"), ("compose.yaml", None)}
