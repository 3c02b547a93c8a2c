"""The literal prefilter answers exactly as the pattern behind it."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_shared.detect import grounding, sensitive
from memwarden_shared.text import classifier, reltime
from memwarden_shared.text.prefilter import (
    MEETS_ASCII,
    Prefiltered,
    any_may_match,
    prefiltered,
    required_literals,
)


def _all_prefiltered() -> list[Prefiltered]:
    found: list[Prefiltered] = []

    def walk(value: object) -> None:
        if isinstance(value, Prefiltered):
            found.append(value)
        elif isinstance(value, tuple):
            for item in value:
                walk(item)

    for module in (classifier, grounding, reltime, sensitive):
        for value in vars(module).values():
            walk(value)
    return found


PATTERNS = _all_prefiltered()
# words the cues are made of, in any case, with the characters case folding is tricky for
WORDS = [
    *("for now", "I", "prefer", "not", "这次", "先", "吗", "we'll", "Kelvin", "next week"),
    *("下周三", "yesterday", "my manager", "手机号", "İ", "ı", "ſ", "\u212a", " ", ", ", "。"),
]
TEXTS = st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=4)), max_size=12).map("".join)


def test_prefilter__meets_ascii_is_every_character_re_matches_to_ascii() -> None:
    codes = (c for c in range(0x80, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    everything = "".join(map(chr, codes))
    found = {
        m.group()
        for a in map(chr, range(128))
        for m in re.finditer(re.escape(a), everything, re.IGNORECASE)
    }
    assert found == MEETS_ASCII


def test_prefilter__the_cue_lists_are_prefiltered() -> None:
    assert len(PATTERNS) > 50
    assert isinstance(classifier._ONE_TIME, Prefiltered)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_prefilter__answers_as_the_pattern(text: str) -> None:
    for p in PATTERNS:
        full = p._full
        assert _spans(p.search(text)) == _spans(full.search(text))
        assert [m.span() for m in p.finditer(text)] == [m.span() for m in full.finditer(text)]
        assert p.sub(" ", text) == full.sub(" ", text)
        assert _spans(p.match(text)) == _spans(full.match(text))


def _spans(m: re.Match[str] | None) -> object:
    return None if m is None else (m.span(), m.groups())


def test_prefilter__a_pattern_without_literals_is_left_as_it_is() -> None:
    pattern = re.compile(r"\d+\s*\w")
    assert prefiltered(pattern) is pattern
    assert required_literals(re.compile(r"\b(?:a|an)\b")) is None  # one letter filters nothing


def test_prefilter__literals_keep_their_case_rule() -> None:
    literals = required_literals(re.compile(r"(?i:\bfor now\b)|这次"))
    assert literals == frozenset({("for now", True), ("这次", False)})
    p = prefiltered(re.compile(r"(?i:\bfor now\b)|这次"))
    assert p.search("FOR NOW, use npm") is not None
    assert p.search("this time") is None


def test_prefilter__case_folding_characters_reach_the_pattern() -> None:
    # the Kelvin sign matches "k" when case is ignored; the prefilter must let it through
    p = prefiltered(re.compile(r"\bkeep\b", re.IGNORECASE))
    assert isinstance(p, Prefiltered)
    assert p.search("\u212aeep it") is not None
    assert p.search("KEEP it") is not None


def test_prefilter__any_may_match_is_false_only_when_none_can() -> None:
    test = any_may_match([prefiltered(re.compile(r"\bfor now\b")), prefiltered(re.compile("这次"))])
    assert test("just for now")
    assert test("这次用 npm")
    assert not test("always use npm")
    assert any_may_match([re.compile(r"\d+")])("anything")
