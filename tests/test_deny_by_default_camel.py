"""Deny by default on CamelCase product names (mechanism: ``lexicon.known_compound`` reads
exactly two CamelCase humps, each a common English word, as the compound developers coin,
"Data" + "Grip"). Generated: two common words joined in CamelCase are recognised; random
mixed-case letter and digit strings, as keys and tokens are, never are."""

from __future__ import annotations

import datetime as dt
import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list, zipf_frequency

from memwarden_gate.lexicon import COMPOUND_PART_ZIPF, known_compound
from memwarden_gate.recognised import FORMS, registry_catalogue, unrecognised_tokens
from memwarden_shared.contract.registry import default_registry

CATALOGUE = registry_catalogue(default_registry())
COMMON = [
    w
    for w in top_n_list("en", 3000)
    if w.isascii()
    and w.isalpha()
    and 3 <= len(w) <= 8
    and zipf_frequency(w, "en") >= COMPOUND_PART_ZIPF
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(COMMON), st.sampled_from(COMMON))
def test_camel__two_common_words_in_camel_case_are_a_name(a: str, b: str) -> None:
    assert known_compound(a.capitalize() + b.capitalize())
    assert (
        list(unrecognised_tokens(f"we use {a.capitalize()}{b.capitalize()}", FORMS, CATALOGUE))
        == []
    )


def test_camel__random_mixed_case_tokens_stay_unrecognised() -> None:
    rng = random.Random(25)
    alphabet = string.ascii_letters + string.digits
    for _ in range(3000):
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(10, 24)))
        if token.isalpha() and (token.islower() or token.isupper()):
            continue  # one case: the plain word rule, not this one
        assert list(unrecognised_tokens(token, FORMS, CATALOGUE)) != [], token


@settings(deadline=None)
@given(st.text(alphabet=string.ascii_letters, min_size=6, max_size=16))
def test_camel__more_than_two_humps_or_short_humps_are_no_compound(text: str) -> None:
    humps = sum(1 for i, ch in enumerate(text) if ch.isupper() and i > 0)
    if humps >= 2 or any(len(p) < 3 for p in _humps(text)):
        mixed = not (text.islower() or text.isupper() or text.istitle())
        if mixed:
            assert not known_compound(text)


def _humps(text: str) -> list[str]:
    parts, current = [], ""
    for ch in text:
        if ch.isupper() and current:
            parts.append(current)
            current = ch
        else:
            current += ch
    return [*parts, current]


# Dates the extractor writes into Chinese text (mechanism: ``recognised._TOKEN`` ends a
# number at a Latin letter, not at a Han character; ``_YEAR_MONTH`` is a date form).
_HAN = st.sampled_from(["开始", "起", "以来", "当周", "我"])


@given(
    st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2099, 12, 31)),
    _HAN,
    st.booleans(),
)
def test_forms__a_date_glued_to_chinese_is_a_date(day: dt.date, han: str, month: bool) -> None:
    written = f"{day.year}-{day.month:02d}" if month else day.isoformat()
    assert list(unrecognised_tokens(f"从{written}{han}用 pytest", FORMS, CATALOGUE)) == []


@given(st.integers(min_value=1000, max_value=99_999_999), _HAN)
def test_forms__a_digit_run_glued_to_chinese_stays_a_code(code: int, han: str) -> None:
    if 1900 <= code <= 2099:
        return  # a year
    assert list(unrecognised_tokens(f"验证码{code}{han}", FORMS, CATALOGUE)) != []
