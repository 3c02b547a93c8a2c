"""memwarden_shared.contract.ijson: the I-JSON (RFC 7493) parser every door uses. Pure units."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.contract.ijson import (
    MAX_DEPTH,
    MAX_SAFE_INTEGER,
    IJsonCode,
    IJsonError,
    check_value,
    loads_strict,
)

CARD = "4111 1111 1111 1111"


@pytest.mark.parametrize(
    ("document", "code"),
    [
        (b'{"n": 9007199254740992}', IJsonCode.INTEGER_OUT_OF_RANGE),  # 2^53
        (b'{"n": -9007199254740993}', IJsonCode.INTEGER_OUT_OF_RANGE),
        (b'{"n": ' + b"9" * 5000 + b"}", IJsonCode.INTEGER_OUT_OF_RANGE),  # past int()'s limit
        (b'{"n": 1e400}', IJsonCode.NUMBER_OUT_OF_RANGE),
        (b'{"n": NaN}', IJsonCode.NON_FINITE_NUMBER),
        (b'{"n": -Infinity}', IJsonCode.NON_FINITE_NUMBER),
        (b'{"s": "\\ud800"}', IJsonCode.LONE_SURROGATE),
        (b'{"s": "\\udc00x"}', IJsonCode.LONE_SURROGATE),
        (b'{"\\ud800": 1}', IJsonCode.LONE_SURROGATE),
        (b'{"a": 1, "a": 1}', IJsonCode.DUPLICATE_KEY),
        (b'{"o": {"k": 1, "k": 2}}', IJsonCode.DUPLICATE_KEY),
        (b"[" * 400 + b"]" * 400, IJsonCode.TOO_DEEP),
        (b"[" * 200_000, IJsonCode.TOO_DEEP),  # deeper than the interpreter's stack
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), IJsonCode.TOO_DEEP),
        (b'{"s": "\xff"}', IJsonCode.NOT_UTF8),
        (b"\xff\xfe{\x00}\x00", IJsonCode.NOT_UTF8),  # UTF-16 is not guessed
        (b'{"card": "' + CARD.encode() + b'"', IJsonCode.NOT_JSON),
    ],
)
def test_loads_strict__refuses_what_is_not_i_json(document: bytes, code: IJsonCode) -> None:
    with pytest.raises(IJsonError) as caught:
        loads_strict(document)
    assert caught.value.code == code
    message = str(caught.value)
    assert CARD not in message and "9999" not in message and "\\ud800" not in message


def test_loads_strict__accepts_the_edges_of_the_range() -> None:
    edge = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads_strict(f'{{"n": {MAX_SAFE_INTEGER}, "m": -{MAX_SAFE_INTEGER}}}') == {
        "n": MAX_SAFE_INTEGER,
        "m": -MAX_SAFE_INTEGER,
    }
    assert loads_strict(edge) is not None
    assert loads_strict('"\\ud83d\\ude00"') == "\U0001f600"  # a surrogate pair is one character
    assert loads_strict("1.5e300") == 1.5e300


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ({"n": 2**53 + 1}, IJsonCode.INTEGER_OUT_OF_RANGE),
        ({"f": math.nan}, IJsonCode.NON_FINITE_NUMBER),
        ([math.inf], IJsonCode.NON_FINITE_NUMBER),
        ({"s": "a\ud800"}, IJsonCode.LONE_SURROGATE),
        ({1: "x"}, IJsonCode.NON_STRING_KEY),
    ],
)
def test_check_value__refuses_decoded_values_outside_i_json(value: object, code: IJsonCode) -> None:
    with pytest.raises(IJsonError) as caught:
        check_value(value)
    assert caught.value.code == code


def test_check_value__walks_any_depth_without_recursion() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(IJsonError) as caught:
        check_value(deep)
    assert caught.value.code == IJsonCode.TOO_DEEP


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_documents = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_documents)
def test_loads_strict__any_i_json_document_round_trips(value: object) -> None:
    assert loads_strict(json.dumps(value).encode()) == value
    assert loads_strict(json.dumps(value, ensure_ascii=False)) == value
