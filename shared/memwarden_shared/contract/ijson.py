"""I-JSON (RFC 7493): the one parser for JSON that comes from outside. Pure.

Every door (HTTP bodies, ``memwarden submit``/``ingest``/``replay`` input, Celery payloads
into the gate) accepts only the interoperable subset of JSON, so that what the gate hashes
(RFC 8785 needs it) and stores is what every other JSON reader would see:

- UTF-8 only, no lone surrogates (escaped or not) in strings or keys;
- no duplicate keys in an object;
- numbers that an IEEE 754 double holds: integers within ±(2**53 - 1), no NaN, no Infinity,
  no float that overflows;
- nesting depth at most ``MAX_DEPTH``.

Errors carry a code and a position at most, never a piece of the input: a refused body may
hold a secret, and an error message travels to logs, terminals and HTTP responses.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Any

MAX_DEPTH = 32
MAX_SAFE_INTEGER = 2**53 - 1  # RFC 7493 §2.2: the integers a double holds exactly
_MAX_INTEGER_DIGITS = len(str(MAX_SAFE_INTEGER))
_SURROGATE = re.compile("[\ud800-\udfff]")


class IJsonCode(StrEnum):
    """Why a document is refused; safe as a reason or problem code."""

    NOT_UTF8 = "not_utf8"
    NOT_JSON = "not_json"
    DUPLICATE_KEY = "duplicate_key"
    INTEGER_OUT_OF_RANGE = "integer_out_of_range"
    NUMBER_OUT_OF_RANGE = "number_out_of_range"
    NON_FINITE_NUMBER = "non_finite_number"
    LONE_SURROGATE = "lone_surrogate"
    TOO_DEEP = "too_deep"
    NON_STRING_KEY = "non_string_key"


_MESSAGES = {
    IJsonCode.NOT_UTF8: "the document is not UTF-8",
    IJsonCode.NOT_JSON: "the document is not JSON",
    IJsonCode.DUPLICATE_KEY: "an object has the same key twice",
    IJsonCode.INTEGER_OUT_OF_RANGE: f"an integer is beyond ±{MAX_SAFE_INTEGER} (2^53 - 1)",
    IJsonCode.NUMBER_OUT_OF_RANGE: "a number is too large for a double",
    IJsonCode.NON_FINITE_NUMBER: "NaN and Infinity are not JSON numbers",
    IJsonCode.LONE_SURROGATE: "a string holds a lone UTF-16 surrogate",
    IJsonCode.TOO_DEEP: f"objects and arrays nest deeper than {MAX_DEPTH} levels",
    IJsonCode.NON_STRING_KEY: "an object key is not a string",
}


class IJsonError(ValueError):
    """A document that is not I-JSON. ``str()`` holds the code's explanation and, for syntax
    errors, a line and column; never any part of the document."""

    def __init__(self, code: IJsonCode, where: str = "") -> None:
        self.code = code
        self.where = where
        super().__init__(_MESSAGES[code] + (f" ({where})" if where else ""))


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise IJsonError(IJsonCode.DUPLICATE_KEY)
    return obj


def _integer(digits: str) -> int:
    # Checked on the digit count first: int() of a 100,000-digit literal is slow, and past
    # 4,300 digits Python refuses it with a ValueError of its own.
    if len(digits.lstrip("-")) > _MAX_INTEGER_DIGITS:
        raise IJsonError(IJsonCode.INTEGER_OUT_OF_RANGE)
    number = int(digits)
    if abs(number) > MAX_SAFE_INTEGER:
        raise IJsonError(IJsonCode.INTEGER_OUT_OF_RANGE)
    return number


def _float(literal: str) -> float:
    number = float(literal)
    if math.isinf(number):  # 1e400: beyond a double
        raise IJsonError(IJsonCode.NUMBER_OUT_OF_RANGE)
    return number


def _constant(_name: str) -> Any:
    raise IJsonError(IJsonCode.NON_FINITE_NUMBER)


def loads_strict(document: bytes | bytearray | str) -> Any:
    """Parse ``document`` as I-JSON; raises :class:`IJsonError` (a ``ValueError``) otherwise.

    Bytes must be UTF-8 (no byte-order mark, no UTF-16 guessing as ``json.loads`` does).
    """
    if isinstance(document, bytes | bytearray):
        try:
            text = bytes(document).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise IJsonError(IJsonCode.NOT_UTF8, f"byte {exc.start}") from None
    else:
        text = document
    try:
        value = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_int=_integer,
            parse_float=_float,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as exc:
        # exc.msg is the parser's fixed wording ("Expecting value"); exc.doc is not used.
        raise IJsonError(
            IJsonCode.NOT_JSON, f"{exc.msg}: line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise IJsonError(IJsonCode.TOO_DEEP) from None
    check_value(value)
    return value


def check_value(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`IJsonError` unless ``value`` (already decoded, e.g. by a broker's JSON
    serializer or a Python caller) stays inside I-JSON.

    Duplicate keys cannot be seen once decoded; everything else is checked. Values of
    non-JSON types (a ``datetime`` passed by a Python caller) are left to the caller's schema.
    Iterative, so no input depth can exhaust the stack.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth > max_depth:
                raise IJsonError(IJsonCode.TOO_DEEP)
            stack.extend((child, depth + 1) for child in _children(item))
        else:
            _check_scalar(item)


def _check_scalar(item: Any) -> None:
    if isinstance(item, str):
        if _SURROGATE.search(item):
            raise IJsonError(IJsonCode.LONE_SURROGATE)
    elif isinstance(item, bool) or item is None:
        return
    elif isinstance(item, int):
        if abs(item) > MAX_SAFE_INTEGER:
            raise IJsonError(IJsonCode.INTEGER_OUT_OF_RANGE)
    elif isinstance(item, float) and not math.isfinite(item):
        raise IJsonError(IJsonCode.NON_FINITE_NUMBER)


def _children(item: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> Iterable[Any]:
    """The values of an array or of an object whose keys are strings without surrogates."""
    if not isinstance(item, dict):
        return item
    for key in item:
        if not isinstance(key, str):
            raise IJsonError(IJsonCode.NON_STRING_KEY)
        if _SURROGATE.search(key):
            raise IJsonError(IJsonCode.LONE_SURROGATE)
    return item.values()
