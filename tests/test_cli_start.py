"""The CLI starts at once (issue 26 item 6): building the parser, ``--version`` and a usage
error import no stage, no store, no pydantic model, no rich and no Celery. Asserted by which
modules a fresh interpreter loaded, never by a timing (bench/cli_start.py measures that)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import memwarden
from memwarden.cli import choices
from memwarden_shared.contract.models import Topic
from memwarden_shared.state.auth import Scope
from memwarden_usecases.operate import DEAD_LETTER_STAGES

# the heavy imports a quick answer must not pay for
HEAVY = (
    "sqlalchemy",
    "pydantic",
    "pydantic_settings",
    "rich",
    "celery",
    "kombu",
    "detect_secrets",
    "memwarden_shared.contract.models",
    "memwarden_usecases",
    "memwarden.client",
)

PROBE = """
import json, sys
from memwarden.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
sys.stdout.write("\\n" + json.dumps(sorted(sys.modules)))
"""


def _loaded_by(argv: list[str]) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [["--version"], ["recall"], ["ingest", "--no-such-flag", "x"], ["no-such-command"]],
)
def test_cli_start__a_quick_answer_imports_nothing_heavy(argv: list[str]) -> None:
    loaded = _loaded_by(argv)
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY)
    assert heavy == [], f"{argv} imported {heavy[:10]}"


def test_cli_start__the_spelt_out_choices_agree_with_their_sources() -> None:
    assert tuple(DEAD_LETTER_STAGES) == choices.DEAD_LETTER_STAGES
    assert tuple(t.value for t in Topic) == choices.TOPICS
    assert tuple(s.value for s in Scope) == choices.SCOPES


def test_cli_start__every_public_name_of_memwarden_loads() -> None:
    for name in memwarden.__all__:
        assert getattr(memwarden, name).__name__ == name
    with pytest.raises(AttributeError):
        _ = memwarden.NoSuchName
