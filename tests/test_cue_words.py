import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.detect.secret_phrases import _ANY_CUE
from memwarden_shared.detect.secret_spoken import _TRIGGERS
from memwarden_shared.detect.secrets import _AWS_WORDS, _KEY_CONTEXT_WORDS
from memwarden_shared.text.cue_words import _CASE_TWINS, CueWords


def test_cue_words__only_the_four_twins_match_an_ascii_letter_in_another_case() -> None:
    # The module's premise, checked against this interpreter's re over every code point.
    letter = re.compile("[a-z]", re.IGNORECASE)
    others = {
        chr(c)
        for c in range(0x80, sys.maxunicode + 1)
        if not 0xD800 <= c < 0xE000 and letter.fullmatch(chr(c))
    }
    assert others == set(_CASE_TWINS.pattern[1:-1])


def test_cue_words__the_detectors_caseless_characters_match_only_themselves() -> None:
    words = "".join(w._lower.pattern for w in (_ANY_CUE, _TRIGGERS, _KEY_CONTEXT_WORDS, _AWS_WORDS))
    caseless = sorted({c for c in words if not c.isascii()})
    pattern = re.compile("[" + "".join(caseless) + "]", re.IGNORECASE)
    matched = {
        chr(c)
        for c in range(sys.maxunicode + 1)
        if not 0xD800 <= c < 0xE000 and pattern.fullmatch(chr(c))
    }
    assert matched == set(caseless)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "My PASSWORD",
        "pasS",
        "a ſecret",
        "ﬁle KEY",
        "\u212aey",
        "\u0130d card",
        "密码是",
        "none",
    ],
)
def test_cue_words__agrees_with_a_case_insensitive_search(text: str) -> None:
    words = "pass|key|secret|id card|码"
    assert CueWords(words).may_occur(text) == bool(re.search(words, text, re.IGNORECASE))


def test_cue_words__refuses_regex_syntax_and_upper_case() -> None:
    with pytest.raises(ValueError):
        CueWords("pass(word)?")
    with pytest.raises(ValueError):
        CueWords("Pass")


_WORDS = "pass|pw|key|id card|ssn|码|令"


@given(st.text(alphabet="paswordkeyidcrsnPASWORDKEYIDCRSN 码令\u0130\u0131\u017f\u212a-_x"))
def test_cue_words__never_disagrees_with_a_case_insensitive_search(text: str) -> None:
    assert CueWords(_WORDS).may_occur(text) == bool(re.search(_WORDS, text, re.IGNORECASE))
