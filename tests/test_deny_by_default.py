"""Deny by default on values (SPEC §5.6 v3, issue 21 item 1).

Mechanism: a free-text value commits only when every token is a word of a frequency list
(wordfreq, jieba for Chinese), a registry catalogue entry, or a typed harmless form (date,
clock time, small count, version). Generated families: random-case alphanumeric codes, hex
runs, long digit runs, digits read out in groups, letters dictated one by one and Chinese
digit-word runs never commit, through the real gate and PostgreSQL; words drawn from
wordfreq's own top lists are always recognised.
"""

from __future__ import annotations

import string
import uuid
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from wordfreq import top_n_list

from memwarden_gate.io import decide_batch
from memwarden_gate.recognised import (
    FORMS,
    number_form,
    registry_catalogue,
    unrecognised_tokens,
    value_unrecognised,
)
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import default_registry
from tests.conftest import turn_dict

REGISTRY = default_registry()
NOTE = REGISTRY.get("preference", "preference.note")
CATALOGUE = registry_catalogue(REGISTRY)
assert NOTE is not None

# wordfreq's own most frequent words: letters only, so the family is words, not numbers
EN_WORDS = [w for w in top_n_list("en", 3000) if w.isalpha() and w.isascii() and len(w) > 2]
ZH_WORDS = [w for w in top_n_list("zh", 3000) if all("\u4e00" <= c <= "\u9fff" for c in w)]
_ZH_DIGIT_WORDS = "零一二三四五六七八九"


@st.composite
def mixed_code(draw: st.DrawFn) -> str:
    """Random-case letters and digits, with at least one of each: a password or a key."""
    body = draw(st.text(string.ascii_letters + string.digits, min_size=8, max_size=32))
    return draw(st.sampled_from(string.ascii_letters)) + body + str(draw(st.integers(0, 9)))


HEX = st.text("0123456789abcdef", min_size=16, max_size=64).filter(
    lambda s: any(c.isdigit() for c in s)
)
LONG_DIGITS = st.text(string.digits, min_size=5, max_size=20)
GROUPED_DIGITS = st.lists(st.text(string.digits, min_size=2, max_size=3), min_size=2, max_size=4)
SPELLED = st.lists(st.sampled_from(string.ascii_letters + string.digits), min_size=4, max_size=8)
ZH_DIGIT_RUN = st.text(_ZH_DIGIT_WORDS, min_size=5, max_size=12)

CODES = st.one_of(
    mixed_code(),
    HEX,
    LONG_DIGITS,
    GROUPED_DIGITS.map(" ".join),
    SPELLED.map(" ".join),
    ZH_DIGIT_RUN,
)
# sentences that would commit as a note with an ordinary word in the slot
EN_FRAMES = [
    "Remember that I keep my backups labelled {}",
    "Please remember I always tag releases with {}",
    "Remember that my usual workspace is named {}",
]
ZH_FRAMES = ["请记住，我的备份一直标记为{}", "记住我常用的工作区叫{}"]


def test_deny_by_default__ordinary_words_are_recognised() -> None:
    """The whole family, not a sample: every top-list word is known by itself."""
    assert EN_WORDS and ZH_WORDS
    allowed = frozenset(FORMS)
    assert [w for w in EN_WORDS if list(unrecognised_tokens(w, allowed, CATALOGUE))] == []
    assert [w for w in ZH_WORDS if list(unrecognised_tokens(w, allowed, CATALOGUE))] == []


@given(code=CODES, frame=st.sampled_from(EN_FRAMES + ZH_FRAMES))
@settings(max_examples=300, deadline=None)
def test_deny_by_default__codes_are_unrecognised(code: str, frame: str) -> None:
    assert NOTE is not None
    assert value_unrecognised(frame.format(code), NOTE, REGISTRY)


@given(
    words=st.lists(st.sampled_from(EN_WORDS), min_size=1, max_size=4),
    count=st.integers(0, 999),
    year=st.integers(1900, 2099),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
)
@settings(max_examples=200, deadline=None)
def test_deny_by_default__words_with_harmless_forms_pass(
    words: list[str], count: int, year: int, hour: int, minute: int
) -> None:
    assert NOTE is not None
    value = f"{' '.join(words)} {count} times since {year} at {hour}:{minute:02d}"
    assert not value_unrecognised(value, NOTE, REGISTRY)


@given(
    first=st.sampled_from(EN_WORDS[:800]),
    second=st.sampled_from(EN_WORDS[:800]),
    a=st.integers(0, 99),
    b=st.integers(0, 99),
)
@settings(max_examples=200, deadline=None)
def test_deny_by_default__compounds_and_pairs_of_counts_pass(
    first: str, second: str, a: int, b: int
) -> None:
    """Two common words closed up ("runbook") and two small counts joined ("24/7")."""
    assert NOTE is not None
    assert not value_unrecognised(f"{first}{second} {a}:{b} {a}-{b}", NOTE, REGISTRY)


@given(
    label=st.text(string.ascii_uppercase, min_size=2, max_size=5),
    number=st.integers(0, 9999),
    word=st.sampled_from(EN_WORDS),
)
@settings(max_examples=200, deadline=None)
def test_deny_by_default__abbreviations_and_labelled_references_pass(
    label: str, number: int, word: str
) -> None:
    """A ticket or order reference ("ABC-123"), never a bare number of four digits."""
    assert NOTE is not None
    assert not value_unrecognised(f"{word} {label} {label}-{number}", NOTE, REGISTRY)
    assert value_unrecognised(f"{word} {number + 10000}", NOTE, REGISTRY)


@given(digits=st.text(string.digits, min_size=5, max_size=16))
@settings(max_examples=200, deadline=None)
def test_deny_by_default__a_long_digit_run_has_no_harmless_form(digits: str) -> None:
    assert number_form(digits) is None


def test_deny_by_default__forms_a_key_does_not_allow_are_refused() -> None:
    assert list(unrecognised_tokens("backups at 7:30", frozenset({"date"}), CATALOGUE))
    assert not list(unrecognised_tokens("backups at 7:30", frozenset(FORMS), CATALOGUE))


def _decide_note(engine: Engine, make_proposal: Callable[..., dict[str, Any]], text: str) -> Any:
    tenant = "t-" + uuid.uuid4().hex[:10]
    message_id = "m-" + uuid.uuid4().hex[:8]
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=engine,
        extract=False,
    )
    value = text.removeprefix("Remember that ").removeprefix("Please remember ")
    value = value.removeprefix("请记住，").removeprefix("记住")
    proposal = make_proposal(
        tenant, message_id, text, kind="preference", normalized_key="preference.note", value=value
    )
    return decide_batch([proposal], engine=engine)[0]


@given(code=CODES, frame=st.sampled_from(EN_FRAMES + ZH_FRAMES))
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_deny_by_default__a_code_in_a_note_never_commits(
    pg_engine: Engine, make_proposal: Callable[..., dict[str, Any]], code: str, frame: str
) -> None:
    """Ingest may mask the code first (REJECT secret); if not, the gate asks the owner."""
    receipt = _decide_note(pg_engine, make_proposal, frame.format(code) + ".")
    assert receipt.decision != "COMMIT", receipt.reasons
    if receipt.decision == "NEEDS_CONFIRMATION":
        assert "unrecognised_token" in receipt.reasons


@given(word=st.sampled_from(EN_WORDS), frame=st.sampled_from(EN_FRAMES))
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_deny_by_default__an_ordinary_word_is_not_refused_as_unrecognised(
    pg_engine: Engine, make_proposal: Callable[..., dict[str, Any]], word: str, frame: str
) -> None:
    """Other checks may still hold a word back (a cue, a sensitive topic); this one not."""
    receipt = _decide_note(pg_engine, make_proposal, frame.format(word) + ".")
    assert "unrecognised_token" not in receipt.reasons


def test_deny_by_default__an_ordinary_note_commits(
    pg_engine: Engine, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    for text in (
        "Remember that I keep my backups labelled weekly.",
        "请记住，我的备份一直标记为每周。",
    ):
        receipt = _decide_note(pg_engine, make_proposal, text)
        assert receipt.decision == "COMMIT", (text, receipt.reasons)
