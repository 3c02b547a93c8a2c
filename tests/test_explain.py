"""Why a message was declined, in words (issue 26 item 7): the extractor's own pass reports
the reason per sentence, ``memwarden explain`` shows extractor and gate without storing,
and the demo names the reason for every message it did not remember."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from memwarden.demo.run import demo_store, run_demo
from memwarden.reasons import WORDS, in_words
from memwarden_extractor.rules import extract, sentence_outcomes
from memwarden_shared.contract.models import Role, Source, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.text.classifier import Feature
from memwarden_usecases.explain import explain

TOOLS = ("pnpm", "yarn", "npm", "bun", "vim", "emacs")
PEOPLE = ("neighbour", "colleague", "sister", "manager")
# (template, the reason the extractor must give)
DECLINED_FAMILIES = (
    ("Just for today, use {tool}.", "one_time"),
    ("My {person} prefers {tool} for everything.", "reported_speech"),
    ("Would I like {tool}?", "question"),
)
SENTENCES = st.builds(
    lambda template, tool, person: template.format(tool=tool, person=person),
    st.sampled_from(
        [t for t, _ in DECLINED_FAMILIES] + ["I prefer {tool} for all my JavaScript projects."]
    ),
    st.sampled_from(TOOLS),
    st.sampled_from(PEOPLE),
)


def _turn(text: str, role: Role = Role.USER) -> Turn:
    return Turn(
        tenant_id="t",
        subject_id="s",
        session_id="x",
        message_id="m",
        role=role,
        source={Role.USER: Source.USER_MESSAGE, Role.TOOL: Source.TOOL_RESULT}.get(
            role, Source.ASSISTANT_MESSAGE
        ),
        text=text,
        created_at=datetime(2026, 5, 1, tzinfo=UTC),
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(SENTENCES, min_size=1, max_size=4))
def test_explain__the_sentence_pass_is_the_extractor(sentences: list[str]) -> None:
    turn, registry = _turn(" ".join(sentences)), default_registry()
    outcomes = sentence_outcomes(turn, registry)
    assert [p for o in outcomes for p in o.proposals] == extract(turn, registry)
    for outcome in outcomes:
        assert bool(outcome.proposals) != bool(outcome.declined)  # proposed, or says why


@pytest.mark.parametrize(("template", "reason"), DECLINED_FAMILIES)
def test_explain__a_declined_sentence_names_its_reason(template: str, reason: str) -> None:
    text = template.format(tool=random.choice(TOOLS), person=random.choice(PEOPLE))
    (sentence,) = explain(text)
    assert sentence.candidates == () and reason in sentence.declined
    assert in_words(reason) != reason and in_words(reason, "zh") != reason


def test_explain__other_roles_are_declined_as_not_the_users_words() -> None:
    tool = random.choice(TOOLS)
    for role in ("assistant", "tool", "system"):
        (sentence,) = explain(f"I prefer {tool} for all my JavaScript projects.", role=role)
        assert sentence.declined == (f"role_{role}",)


def test_explain__a_kept_sentence_shows_the_gates_decision() -> None:
    tool = random.choice(TOOLS[:4])
    (sentence,) = explain(f"I prefer {tool} for all my JavaScript projects.")
    (candidate,) = sentence.candidates
    assert candidate.value == tool and candidate.decision == "COMMIT"


def test_explain__every_reason_the_extractor_gives_has_words() -> None:
    codes = {f"role_{r.value}" for r in Role if r is not Role.USER}
    codes |= {f"source_{s.value}" for s in Source if s is not Source.USER_MESSAGE}
    codes |= {f.value for f in Feature}
    codes |= {"third_party_author", "secret", "not_first_person_durable", "no_known_key"}
    codes |= {"invalid_value", "not_explicit", "ungrounded"}
    assert sorted(codes - set(WORDS)) == []


def test_explain__the_demo_says_why_for_every_declined_message(tmp_path: Path) -> None:
    out = io.StringIO()
    with demo_store(tmp_path) as (engine, _directory, _kept):
        run_demo(engine, Console(file=out, width=240))
    shown = out.getvalue()
    assert "extractor declined" not in shown
    assert in_words("one_time") in shown and in_words("role_tool") in shown


@pytest.mark.slow
def test_explain__the_cli_stores_nothing_and_needs_no_database(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "explain", "Just for today, use yarn."],
        env={
            **os.environ,
            "COLUMNS": "60",  # a narrow pipe: words wrap between words
            "MEMWARDEN_DATABASE_URL": "postgresql://nobody:pw@127.0.0.1:1/x",
            "MEMWARDEN_DATA_DIR": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "one-time" in done.stdout and "request" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 60
    assert list(tmp_path.iterdir()) == []
