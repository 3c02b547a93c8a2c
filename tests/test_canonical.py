"""RFC 8785 vectors and the identity/payload hashing properties of SPEC §4."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.contract.canonical import (
    jcs,
    normalized_content_hash,
    payload_hash,
    proposal_id,
    proposal_identity,
    rfc3339,
    sha256_hex,
)


def test_jcs__rfc8785_section_3_2_2_sample() -> None:
    data = json.loads(
        '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],'
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
        ' "literals": [null, true, false]}'
    )
    assert (
        jcs(data)
        == (
            '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
            '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
        ).encode()
    )


def test_jcs__sorts_keys_by_utf16_code_units() -> None:
    data = {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Dalet",
        "1": "One",
        "\U0001f600": "Emoji",
        "\u0080": "Control",
        "\u00f6": "o-umlaut",
    }
    values = list(json.loads(jcs(data)).values())
    assert values == [
        "Carriage Return",
        "One",
        "Control",
        "o-umlaut",
        "Euro Sign",
        "Emoji",
        "Dalet",
    ]


IDENTITY: dict[str, Any] = dict(
    tenant_id="t1",
    subject_id="u1",
    scope={"kind": "user", "key": "u1"},
    kind="preference",
    normalized_key="preference.ui_theme",
    message_id="m1",
    start=0,
    end=19,
    stable_candidate_ordinal=0,
    extractor_version="x-1",
)


def test_proposal_id__is_sha256_of_jcs_identity() -> None:
    expected = sha256_hex(
        json.dumps(
            {"schema": 1, **IDENTITY}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
    )
    assert proposal_id(proposal_identity(**IDENTITY)) == expected


@given(st.permutations(list(IDENTITY)))
def test_proposal_id__key_order_never_changes_it(order: list[str]) -> None:
    shuffled = {k: IDENTITY[k] for k in order}
    assert proposal_id(proposal_identity(**shuffled)) == proposal_id(proposal_identity(**IDENTITY))


@given(st.sampled_from(sorted(IDENTITY)), st.text(min_size=1, max_size=8))
def test_proposal_id__any_identity_change_changes_it(field: str, suffix: str) -> None:
    changed = dict(IDENTITY)
    if isinstance(changed[field], int):
        changed[field] = changed[field] + 1 + len(suffix)
    elif isinstance(changed[field], dict):
        changed[field] = {**changed[field], "key": changed[field]["key"] + suffix}
    else:
        changed[field] = changed[field] + suffix
    assert proposal_id(proposal_identity(**changed)) != proposal_id(proposal_identity(**IDENTITY))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(json_values, json_values)
def test_payload_hash__any_value_change_changes_it(a: object, b: object) -> None:
    base: dict[str, Any] = dict(confidence=0.9, expires_at=None, evidence_hash="0" * 64)
    same = jcs(a) == jcs(b)
    assert (payload_hash(value=a, **base) == payload_hash(value=b, **base)) == same


def test_payload_hash__expiry_and_confidence_are_part_of_it() -> None:
    base: dict[str, Any] = dict(
        value="pnpm", confidence=0.9, expires_at=None, evidence_hash="0" * 64
    )
    assert payload_hash(**base) != payload_hash(**{**base, "confidence": 0.35})
    later = datetime(2026, 12, 31, tzinfo=UTC)
    assert payload_hash(**base) != payload_hash(**{**base, "expires_at": later})


def test_rfc3339__same_instant_in_any_offset_hashes_alike() -> None:
    utc = datetime(2026, 12, 31, 0, 0, tzinfo=UTC)
    shanghai = utc.astimezone(timezone(timedelta(hours=8)))
    assert rfc3339(utc) == rfc3339(shanghai) == "2026-12-31T00:00:00Z"


def test_normalized_content_hash__ignores_case_space_and_punctuation_only() -> None:
    assert normalized_content_hash("I prefer  PNPM!") == normalized_content_hash("i prefer pnpm")
    assert normalized_content_hash("请记住，我喜欢简洁。") == normalized_content_hash(
        "请记住我喜欢简洁"
    )
    assert normalized_content_hash("I prefer pnpm") != normalized_content_hash("I like pnpm")


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)  # past 2**53 both must refuse alike
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(_JSON_VALUES)
def test_jcs__fast_writer_is_byte_identical_to_the_rfc8785_package(value: Any) -> None:
    import rfc8785

    try:
        expected: object = rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as exc:
        expected = type(exc)
    try:
        got: object = jcs(value)
    except rfc8785.CanonicalizationError as exc:
        got = type(exc)
    assert got == expected


def test_jcs__numbers_at_the_ecmascript_format_boundaries() -> None:
    import rfc8785

    for f in (1e21, 1e20, 1e-6, 1e-7, 5e-324, 1.7976931348623157e308, 100.0, -0.0, 0.1 + 0.2):
        assert jcs(f) == rfc8785.dumps(f)
    assert jcs([1.0, 2**53 - 1]) == b"[1,9007199254740991]"
