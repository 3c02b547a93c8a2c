"""The layering of SPEC §2.1 as import-linter contracts (``[tool.importlinter]`` in
pyproject.toml): doors > use cases > replay > stages > shared, stages independent of each
other, shared a leaf, doors reaching stages and tables only through the use cases. The suite
runs the same check as ``lint-imports`` in CI, and checks that the contracts name every
stage there is, so a new stage cannot slip past them."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parent.parent
# services that are not stages: the use-case tier (replay orchestrates extractor and gate)
NOT_STAGES = {"memwarden_usecases", "memwarden_replay"}


def _config() -> dict[str, Any]:
    with (REPO / "pyproject.toml").open("rb") as handle:
        config: dict[str, Any] = tomllib.load(handle)["tool"]["importlinter"]
    return config


def _contract(contract_id: str) -> dict[str, Any]:
    [found] = [c for c in _config()["contracts"] if c["id"] == contract_id]
    return dict(found)


def _stages() -> set[str]:
    """Every stage distribution's import package: ``services/<stage>/memwarden_<stage>``."""
    packages = {p.name for p in REPO.glob("services/*/memwarden_*") if p.is_dir()}
    return packages - NOT_STAGES


def test_architecture__every_import_contract_holds(capsys: pytest.CaptureFixture[str]) -> None:
    code = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True)
    report = capsys.readouterr().out
    assert code == 0, report
    assert f"Contracts: {len(_config()['contracts'])} kept, 0 broken." in report


def test_architecture__the_contracts_name_every_stage_and_every_root_package() -> None:
    stages = _stages()
    assert len(stages) >= 8  # extractor, gate, revalidation, vector_sink, actions, …
    assert set(_contract("stages-independent")["modules"]) == stages
    [middle] = [layer for layer in _contract("layers")["layers"] if "|" in layer]
    assert {name.strip() for name in middle.split("|")} == stages
    assert set(_contract("doors-call-use-cases")["forbidden_modules"]) == stages | {
        "memwarden_replay"
    }
    assert set(_contract("shared-is-a-leaf")["forbidden_modules"]) == stages | NOT_STAGES | {
        "memwarden"
    }
    assert set(_config()["root_packages"]) == stages | NOT_STAGES | {
        "memwarden",
        "memwarden_shared",
    }
