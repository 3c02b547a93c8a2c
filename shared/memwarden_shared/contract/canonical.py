"""Canonical hashing (SPEC §4): RFC 8785 JSON, proposal identity and payload hashes. Pure."""

from __future__ import annotations

import hashlib
import json
import math
from datetime import UTC, datetime
from json.encoder import encode_basestring as _json_string
from typing import Any

import rfc8785

from memwarden_shared.text.fold import suppression_form

IDENTITY_SCHEMA = 1


def jcs(obj: Any) -> bytes:
    """RFC 8785 canonical JSON bytes of ``obj``.

    Written straight into one list of text pieces (strings escaped by the json module's C
    encoder, which escapes exactly what RFC 8785 does); anything the fast writer does not
    take plainly (an integer out of the I-JSON range, a NaN, a surrogate, a key that is not
    text) goes to the ``rfc8785`` package, which serialises it or raises its own error.
    ``tests/test_canonical.py`` holds the two byte-identical.
    """
    out: list[str] = []
    try:
        _write(obj, out)
        return "".join(out).encode("utf-8")
    except (_NotPlain, UnicodeEncodeError):
        return rfc8785.dumps(obj)


class _NotPlain(Exception):
    """A value the fast writer leaves to the rfc8785 package."""


_INT_RANGE = 2**53 - 1  # RFC 8785 / I-JSON: integers exactly representable as doubles


def _write(obj: Any, out: list[str]) -> None:
    # the order of rfc8785's own type tests: bool before int, str before other types
    if obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, str):
        out.append(_json_string(obj))
    elif isinstance(obj, (int, float)):
        out.append(_number(obj))
    elif isinstance(obj, (list, tuple)):
        _write_array(obj, out)
    elif isinstance(obj, dict):
        _write_object(obj, out)
    else:
        raise _NotPlain


def _number(obj: float) -> str:
    if isinstance(obj, bool):
        return "true" if obj else "false"
    if isinstance(obj, int):
        if not -_INT_RANGE <= obj <= _INT_RANGE:
            raise _NotPlain
        return str(int(obj))
    return es6_number(obj)


def _write_array(items: list[Any] | tuple[Any, ...], out: list[str]) -> None:
    out.append("[")
    for i, item in enumerate(items):
        if i:
            out.append(",")
        _write(item, out)
    out.append("]")


def _write_object(obj: dict[Any, Any], out: list[str]) -> None:
    keys = list(obj)
    if not all(type(k) is str for k in keys):
        raise _NotPlain
    if all(k.isascii() for k in keys):
        keys.sort()
    else:  # RFC 8785 §3.2.3: members sorted by their UTF-16 code units
        keys.sort(key=lambda k: k.encode("utf-16-be", "surrogatepass"))
    out.append("{")
    for i, key in enumerate(keys):
        if i:
            out.append(",")
        out.append(_json_string(key))
        out.append(":")
        _write(obj[key], out)
    out.append("}")


def es6_number(f: float) -> str:
    """A double as ECMAScript's Number.prototype.toString writes it (RFC 8785 §3.2.2.3):
    the shortest round-tripping digits, plain from 1e-6 to below 1e21, else exponent form."""
    if math.isnan(f) or math.isinf(f):
        raise _NotPlain
    if f == 0:
        return "0"
    if f < 0:
        return "-" + es6_number(-f)
    digits, exponent = _shortest_digits(f)
    k, n = len(digits), exponent  # the value is 0.<digits> x 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def _shortest_digits(f: float) -> tuple[str, int]:
    """(significant digits without trailing zeros, n) with f == 0.<digits> x 10^n; Python's
    repr is the shortest string that reads back as the same double, like ECMAScript's."""
    text = repr(f)
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    raw = (whole + frac).lstrip("0")
    point = len(whole) + (int(exp) if exp else 0)  # digits before the decimal point
    point -= len(whole + frac) - len((whole + frac).lstrip("0"))
    return raw.rstrip("0"), point


def sha256_hex(data: str | bytes) -> str:
    """sha256 hex digest; text is hashed as its UTF-8 bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def rfc3339(moment: datetime | None) -> str | None:
    """The one textual form of a timestamp inside hashes: UTC with a ``Z`` suffix.

    Microseconds are kept only when non-zero, so ``2026-12-31T00:00:00Z`` hashes the same
    whether it arrived as ``+00:00`` or ``Z``.
    """
    if moment is None:
        return None
    if moment.tzinfo is None:
        raise ValueError("timestamps must carry a UTC offset")
    utc = moment.astimezone(UTC)
    spec = "microseconds" if utc.microsecond else "seconds"
    return utc.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def proposal_identity(
    *,
    tenant_id: str,
    subject_id: str,
    scope: dict[str, str],
    kind: str,
    normalized_key: str,
    message_id: str,
    start: int,
    end: int,
    stable_candidate_ordinal: int,
    extractor_version: str,
) -> dict[str, Any]:
    """The identity object of SPEC §4; the value is deliberately not part of it."""
    return {
        "schema": IDENTITY_SCHEMA,
        "tenant_id": tenant_id,
        "subject_id": subject_id,
        "scope": {"kind": scope["kind"], "key": scope["key"]},
        "kind": kind,
        "normalized_key": normalized_key,
        "message_id": message_id,
        "start": start,
        "end": end,
        "stable_candidate_ordinal": stable_candidate_ordinal,
        "extractor_version": extractor_version,
    }


def proposal_id(identity: dict[str, Any]) -> str:
    """``sha256(JCS(identity))``."""
    return sha256_hex(jcs(identity))


def payload_hash(
    *, value: Any, confidence: float, expires_at: datetime | None, evidence_hash: str
) -> str:
    """``sha256(JCS({value, confidence, expires_at, evidence_hash}))``."""
    return sha256_hex(
        jcs(
            {
                "value": value,
                "confidence": confidence,
                "expires_at": rfc3339(expires_at),
                "evidence_hash": evidence_hash,
            }
        )
    )


def normalized_content_hash(text: str) -> str:
    """Suppression hash (SPEC §8, seed 004) of :func:`memwarden_shared.text.fold.suppression_form`
    (the stored hashes stay valid: its recipe is pinned by tests/test_fold.py):
    folded (NFKC, invisible characters, homoglyphs, traditional Chinese), lower-case,
    politeness words dropped, numerals as digits, whitespace and punctuation removed.

    It matches the same words re-extracted from old sessions; it does not match paraphrases.
    """
    return sha256_hex(suppression_form(text))


def claim_text(value: Any) -> str:
    """The text of a proposed value as suppression and secret checks see it."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def claim_key(value: Any, multi_valued: bool) -> str:
    """'' for single-valued keys; otherwise the first 32 hex of the claim's content hash."""
    return normalized_content_hash(claim_text(value))[:32] if multi_valued else ""


def memory_id_for(fact_key: dict[str, str]) -> str:
    """A memory is the lineage of one fact key, so its id is derived from that key."""
    return "mem_" + sha256_hex(jcs(fact_key))[:32]
