"""``memwarden registry show|validate``: exit 0 when usable, 2 with one line otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memwarden.cli import main

GOOD: dict[str, Any] = {
    "tenant_id": "acme",
    "registry_version": "acme-1",
    "keys": [
        {
            "kind": "preference",
            "normalized_key": "preference.x_ticket_system",
            "value": {"type": "text", "max_length": 80},
            "sensitivity": "normal",
            "scopes": ["user"],
            "retrieval_purposes": ["coding_assistance"],
            "prohibited_actions": [],
            "description": {"en": "The issue tracker the user works in."},
            "key_aliases": {"en": ["issue tracker"], "zh": ["工单系统"]},
        }
    ],
}


def test_cli_registry__validate_a_good_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "acme.json"
    path.write_text(json.dumps(GOOD))
    assert main(["registry", "validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: ") and "1 tenant keys" in out and "+acme-1#" in out


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({**GOOD, "colour": "blue"}, "colour"),
        ({**GOOD, "keys": [{**GOOD["keys"][0], "normalized_key": "preference.editor"}]}, "x_"),
        (None, "not JSON"),
    ],
)
def test_cli_registry__an_invalid_file_is_one_line_and_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: dict[str, Any] | None, says: str
) -> None:
    path = tmp_path / "acme.json"
    path.write_text(json.dumps(body) if body is not None else "{oops")
    assert main(["registry", "validate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_cli_registry__a_missing_file_is_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["registry", "validate", str(tmp_path / "nope.json")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_cli_registry__show_lists_built_in_and_tenant_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden_shared.config import get_settings

    (tmp_path / "acme.json").write_text(json.dumps(GOOD))
    monkeypatch.setenv("MEMWARDEN_TENANT_REGISTRY", str(tmp_path))
    get_settings.cache_clear()
    try:
        assert main(["registry", "show", "--tenant", "acme", "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        keys = {k["key"] for k in shown["keys"]}
        assert {"task_fact.event", "preference.x_ticket_system"} <= keys
        assert main(["registry", "show", "--tenant", "globex"]) == 0
        out = capsys.readouterr().out
        assert "profile.diet" in out and "x_ticket_system" not in out
    finally:
        monkeypatch.delenv("MEMWARDEN_TENANT_REGISTRY")
        get_settings.cache_clear()
