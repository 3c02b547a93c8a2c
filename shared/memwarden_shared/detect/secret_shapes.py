"""Credential shapes: what to mask when no detector names the secret (SPEC §5.6 v3). Pure.

Each finder takes text folded by :mod:`memwarden_shared.text.fold` and yields
``(kind, start, end)`` in folded offsets. The rules, exactly:

**Digit runs** (:func:`find_digit_runs`). A run is digits joined by at most one separator
between two digits: a space, ``.``, ``-``, ``·`` or ``/`` (``123.45.6789``, ``4829 17``,
``8 7 4 7 7 1``). A run of six digits or more is masked unless it is harmless:

- a date (day, month and year in any order, ``/ . -`` or space between them, or eight
  digits ``YYYYMMDD``; a timestamp ``YYYYMMDDhhmm[ss]``), a run of years (``2019-2024``);
- a decimal number (one ``.`` and no other separator: ``3.14159265``, ``123456.78``);
- a version (``v``, ``version``, ``release``, ``build`` or ``版本`` just before) or an IPv4
  address (four dotted groups of 0-255);
- a quantity: a currency sign or code before it, a unit after it (``ms``, ``users``,
  ``元``, ``人``…), or a round number (three trailing zeros or more, at most three
  significant digits);
- an order, ticket, tracking or issue number (``order``, ``ticket``, ``#``, ``订单``,
  ``单号``… within the 24 characters before);
- a phone number: the ``phonenumbers`` catalogue (Google's libphonenumber) calls it valid,
  written with ``+`` and its country code, or in the national form of a region when a
  phone word (``phone``, ``call``, ``电话``, ``手机``…) stands before it, or as an
  11-digit mainland Chinese mobile number (whole or 3-4-4) in Chinese text.

Clock times never join (``:`` is no separator) and years have four digits, so neither
reaches six. A credential cue overrides every exemption (:mod:`secret_cue_window`).

**Token shapes** (:func:`find_token_shapes`). A token is a run of non-space characters
that are not CJK, its edge punctuation trimmed. Masked:

- a part of six characters or more (parts split at ``. _ - /``) that mixes letters and
  digits inside itself (``Sunfl0wer``, ``abc123def``: letter, digit, letter), or that mixes
  a password symbol (``! @ # $ % ^ & * + = ? ~ |``) with two other classes
  (``P@ssw0rd``, ``Qz7!harbor``); a word with a trailing number (``iPhone15``) is not mixed;
  an inline assignment to a lower-case name that names no credential (``title=1``,
  ``onerror="f()"``) is judged by its value alone, masked when the value mixes upper case,
  lower case and digits;
- a hex run of 16 or more with a digit and a letter (``0x`` allowed), unless a hash word
  (``commit``, ``sha256``, ``checksum``, ``digest``…) stands in the 24 characters before;
- a base64 or base62 run of 24 or more holding upper case, lower case and a digit, outside
  a URL;
- a URL's userinfo: the password of ``scheme://user:password@host`` for any scheme (DSNs
  included), or the user part when it is the only part (``https://TOKEN@host``);
- the value of an assignment whose name holds a credential word (``DB_PASSWORD=…``,
  ``export API_TOKEN=…``), as pasted from ``.env`` files;
- a PEM or OpenSSH block, ``-----BEGIN …-----`` to its ``-----END …-----`` (or to the end
  of the text), whatever its label and body.

- a token of groups (split at ``. _ - /``) of which two or more mix letters and digits,
  eight characters or more without the joiners (``1R29-UR9-MA89``).

Emails, URLs (but their userinfo), ``#hashtags``, ISO 8601 timestamps, MAC and IP addresses
are not tokens of this kind.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from datetime import date, datetime
from functools import lru_cache

from memwarden_shared.detect.secret_cues import find_cues

DIGIT_RUN = "digit_run"
CREDENTIAL_SHAPE = "credential_shape"
HEX_RUN = "hex_run"
BASE64_RUN = "base64_run"
URL_CREDENTIALS = "url_credentials"
ENV_ASSIGNMENT = "env_assignment"
KEY_BLOCK = "private_key"

MIN_DIGITS = 6

DIGIT_RUN_PATTERN = _DIGIT_RUN = re.compile(r"(?<![0-9])[0-9](?:[ .\-\u00b7/]?[0-9])*(?![0-9])")
_SEPARATOR = re.compile(r"[ .\-\u00b7/]")
_ORDER_CUE = re.compile(
    r"(?:(?<![A-Za-z])(?:order|ticket|tracking|invoice|booking|reservation|confirmation"
    r"|shipment|parcel|issue|bug|case|pr|pull request|ref|reference|no|nr|room|flight|train"
    r"|seat|gate|isbn|issn|doi|ean|upc|sku|serial|model|part)(?![A-Za-z])"
    r"|#|订单|单号|运单|快递|物流|工单|发票|编号|航班|车次|房间)"
    r"[^0-9\n]{0,24}$",
    re.IGNORECASE,
)
_VERSION_CUE = re.compile(
    r"(?:(?<![A-Za-z])v|version|ver\.?|release|build|版本)\s*$", re.IGNORECASE
)
_CURRENCY_BEFORE = re.compile(
    r"(?:[$€£¥₹₩₽]|usd|eur|gbp|cny|rmb|jpy|inr|chf|hkd|人民币|美元|欧元)\s*$", re.IGNORECASE
)
UNIT_AFTER = re.compile(
    r"\s*(?:%|‰|ms|µs|us|ns|s|sec|secs|seconds|minutes|min|hours|h|days|bytes|b|[kmgtp]i?b"
    r"|kbps|mbps|km|m|cm|mm|kg|g|mg|lb|lbs|miles|mi|ft|rows|records|items|users|people"
    r"|views|visits|downloads|stars|times|lines|words|steps|points|pts|dollars|euros|yuan"
    r"|units|pieces|copies|orders|tickets|messages|requests|events|files|pages|calls|hits"
    r"|characters|chars|digits|letters|symbols|attempts|tries|months|weeks|years"
    r"|位数?|字符|个字|分钟|小时|秒|周|个月|次数"
    r"|rmb|usd|eur|cny|次|个|元|块|人|条|字|行|名|位|篇|份|天|年|公里|米|克|斤|万|亿|美元|欧元)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_PHONE_CUE = re.compile(
    r"(?:(?<![A-Za-z])(?:phone|tel|telephone|mobile|cell|call|text me|whatsapp|wechat|fax"
    r"|contact)(?![A-Za-z])|电话|手机|联系|致电|拨打|热线|微信)[^0-9\n]{0,16}$",
    re.IGNORECASE,
)
_CN_MOBILE = re.compile(r"1[3-9][0-9]{9}")
_CN_MOBILE_GROUPS = re.compile(r"[0-9]{11}|[0-9]{3}([ -])[0-9]{4}\1[0-9]{4}")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_PHONE_REGIONS = ("US", "GB", "CN", "HK", "TW", "DE", "FR", "IN", "JP", "AU", "CA", "SG")


def _valid_date(y: int, m: int, d: int) -> bool:
    if not 1900 <= y <= 2100:
        return False
    try:
        date(y, m, d)
    except ValueError:
        return False
    return True


def _is_date(groups: list[str]) -> bool:
    """Day, month and year in any common order, or ``YYYYMMDD`` (with a time after it)."""
    if len(groups) == 1:
        g = groups[0]
        if len(g) == 4:
            return 1900 <= int(g) <= 2100  # a year
        if len(g) in (8, 12, 14):
            try:
                datetime.strptime(g, {8: "%Y%m%d", 12: "%Y%m%d%H%M", 14: "%Y%m%d%H%M%S"}[len(g)])
            except ValueError:
                return False
            return 1900 <= int(g[:4]) <= 2100
        return False
    if all(len(g) == 4 and 1900 <= int(g) <= 2100 for g in groups):
        return True  # years: "2019-2024", "1998 2004 2011"
    if len(groups) == 2:  # month and year: "05.2026", "2026/05"
        a, b = groups
        return (len(a) == 4 and 1900 <= int(a) <= 2100 and 1 <= int(b) <= 12) or (
            len(b) == 4 and 1900 <= int(b) <= 2100 and 1 <= int(a) <= 12
        )
    if len(groups) != 3:
        return False
    a, b, c = groups
    if len(a) == 4:
        return _valid_date(int(a), int(b), int(c))
    year = int(c) + (2000 if len(c) == 2 else 0)
    return len(c) in (2, 4) and (
        _valid_date(year, int(b), int(a)) or _valid_date(year, int(a), int(b))
    )


def _is_ipv4(run: str, groups: list[str]) -> bool:
    return run.count(".") == 3 and len(groups) == 4 and all(int(g) <= 255 for g in groups)


def _is_round(digits: str) -> bool:
    stripped = digits.rstrip("0")
    return len(digits) - len(stripped) >= 3 and 0 < len(stripped) <= 3 and stripped[0] != "0"


@lru_cache(maxsize=2048)
def _is_phone(run: str, plus: bool, cued: bool, chinese: bool) -> bool:
    """libphonenumber's verdict on ``run``: in international form after ``+``, else in
    the national form of a region when a phone word names it, or a Chinese mobile number
    (whole or grouped 3-4-4) in Chinese text."""
    import phonenumbers  # noqa: PLC0415 - its import costs a worker's start; only runs of digits need it

    digits = re.sub(r"\D", "", run)
    if plus:
        regions: tuple[str | None, ...] = (None,)
        run = "+" + run
    elif cued:
        regions = _PHONE_REGIONS
    elif chinese and _CN_MOBILE.fullmatch(digits) and _CN_MOBILE_GROUPS.fullmatch(run):
        regions = ("CN",)
    else:
        return False
    for region in regions:
        try:
            number = phonenumbers.parse(run, region)
        except phonenumbers.NumberParseException:
            continue
        # With "+" and a country code, or a phone word before it, the writer says it is a
        # phone number: a possible one will do (new or fictional ranges are not "valid").
        if phonenumbers.is_valid_number(number) or (
            (plus or cued) and phonenumbers.is_possible_number(number)
        ):
            return True
    return False


def harmless_digit_run(text: str, start: int, end: int) -> bool:
    """Whether the digit run at ``[start, end)`` is a date, a quantity, a version, an
    address, an order or a phone number (module docstring), judged with what precedes it."""
    run = text[start:end]
    if text.startswith(":", end) and " " in run:
        # "2026-05-01 17:00": the last group is the hour of a clock time, not the run's
        hour = run.rindex(" ")
        return harmless_digit_run(text, start, start + hour) or hour < MIN_DIGITS
    groups = _SEPARATOR.split(run)
    digits = "".join(groups)
    separators = set(_SEPARATOR.findall(run))
    before = text[max(0, start - 40) : start]
    if _is_date(groups) or _is_ipv4(run, groups) or ("." in run and _ip(run)):
        return True  # an address, with its prefix length or not ("10.0.0.0/8")
    if separators == {"."} and run.count(".") == 1:
        return True  # a decimal number
    if _VERSION_CUE.search(before) or _CURRENCY_BEFORE.search(before):
        return True
    if UNIT_AFTER.match(text, end) or _is_round(digits):
        return True
    if _ORDER_CUE.search(before) and not _identity_cued(before):
        return True  # an order's number; never when an identity or credential cue is near
    plus = before.rstrip(" (").endswith("+")
    chinese = bool(_HAN.search(text, max(0, start - 20), min(len(text), end + 20)))
    return _is_phone(run, plus, bool(_PHONE_CUE.search(before)), chinese)


def _identity_cued(before: str) -> bool:
    """A cue of the credential lexicon (an id, an account, a PIN…) stands in ``before``: "编号"
    or "no." after it numbers a person, not an order ("个人编号", "my ID no.")."""
    return bool(find_cues(before))


def _token_around(text: str, start: int, end: int) -> str:
    def inside(c: str) -> bool:
        return not c.isspace() and not "\u2e80" <= c <= "\u9fff"

    while start > 0 and inside(text[start - 1]):
        start -= 1
    while end < len(text) and inside(text[end]):
        end += 1
    return text[start:end].strip(_EDGE)


def _in_colour(text: str, start: int, end: int) -> bool:
    """The digits are a hex colour's, "#" before them ("style=#0A000000", "#1a2b3c")."""
    hexdigits = "0123456789abcdefABCDEF"
    while start > 0 and text[start - 1] in hexdigits:
        start -= 1
    while end < len(text) and text[end] in hexdigits:
        end += 1
    after = text[end] if end < len(text) else " "
    colour = start > 0 and text[start - 1] == "#" and end - start in (3, 4, 6, 8)
    return colour and not after.isalnum()


def _in_named_token(text: str, start: int, end: int) -> bool:
    """Whether the digits at ``[start, end)`` are part of a URL, a UUID, a timestamp, a
    named digest or a hex token with letters (a hash or a hex run)."""
    token = _token_around(text, start, end)
    if "://" in token or _NAMED_SHAPE.fullmatch(token) or _in_colour(text, start, end):
        return True
    return len(token) >= 7 and _hash_like(token)


def _hash_like(token: str) -> bool:
    """Hex in one case with letters among the digits, not only before them: a hash
    ("3f78e1", "49f145f"); "DE661626808" and "A123456789" are ids with a letter prefix."""
    if not _SHORT_HASH.fullmatch(token):
        return False
    first_digit = next((i for i, c in enumerate(token) if c.isdigit()), len(token))
    letters = sum(c.isalpha() for c in token)
    return letters >= 2 and any(c.isalpha() for c in token[first_digit:])


def _glued(c: str) -> bool:
    return c.isascii() and c.isalpha()


def find_digit_runs(text: str, min_digits: int = MIN_DIGITS) -> Iterator[tuple[str, int, int]]:
    """Runs of six digits or more that are not dates, numbers of things, versions,
    addresses, order numbers or phone numbers (see the module docstring). A run glued to
    letters on one side (``E12345678``) counts too; one with letters on both sides is part
    of a token (``AB123456C``, a hash), which the token rules judge."""
    for m in _DIGIT_RUN.finditer(text):
        start, end = m.span()
        if start > 0 and end < len(text) and _glued(text[start - 1]) and _glued(text[end]):
            continue  # inside a word of letters and digits ("3f78685e…"): a token rule's call
        if _in_named_token(text, start, end):
            continue  # a UUID's, a hash's, a URL's digits: the token rules judge the token
        digits = sum(c.isdigit() for c in text[start:end])
        if digits < min_digits:
            continue
        lo, hi = _with_decoration(text, start, end)
        # Letters on both sides make it an id ("SB 22 07 31 C"), whatever its digits spell,
        # and so does a letter glued before it ("C20690313" is no date).
        lettered = _has_letter(text[lo:start]) and _has_letter(text[end:hi])
        version = _VERSION_CUE.search(text, max(0, start - 12), start) is not None
        lettered = lettered or (start > 0 and _glued(text[start - 1]) and not version)
        if lettered or not harmless_digit_run(text, start, end):
            yield DIGIT_RUN, lo, hi


# An id's letters around its digits: the rest of its token ("A123456(7)", "131052-308T"), a
# check character standing alone after it ("… 56 C"), a country or series prefix of one or
# two capitals before it ("AB 12 34 56 C", "HR 3339…").
_TOKEN_TAIL = re.compile(r"[^\s\u2000-\u206f\u2e80-\u9fff,;:!?。，；：！？]*")
_CHECK_AFTER = re.compile(r" (?:[A-Z0-9]|\([A-Z0-9]\))(?=[\s.,;:!?。，；：！？]|$)")
_PREFIX_BEFORE = re.compile(r"(?<![A-Za-z])[A-Z]{1,2} ?$")


def _has_letter(piece: str) -> bool:
    return any(c.isascii() and c.isalpha() for c in piece)


def _with_decoration(text: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and (text[start - 1].isascii() and text[start - 1].isalnum()):
        start -= 1
    end = _TOKEN_TAIL.match(text, end).end()  # type: ignore[union-attr]
    while end > start and text[end - 1] in ".)]}\"'":
        if text[end - 1] == ")" and "(" in text[start:end]:
            break
        end -= 1
    check = _CHECK_AFTER.match(text, end)
    if check:
        end = check.end()
    prefix = _PREFIX_BEFORE.search(text, max(0, start - 3), start)
    if prefix:
        start = prefix.start()
    return start, end


# ------------------------------------------------------------------------------ tokens

# A token ends at white space, at a CJK, Hangul or full-width character, and at a mark of
# Unicode's General Punctuation block (dashes, ellipses, curly quotes, bullets: U+2000-U+206F):
# writers put those between words, and no credential alphabet holds them, so "X—" or "X…"
# is the word X, not a token mixing classes.
_TOKEN = re.compile(r"[^\s\u2000-\u206f\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+")
_EDGE = "\"'`.,;:!?()[]{}<>«»“”‘’"
_PART = re.compile(r"[._/-]")
_PASSWORD_SYMBOLS = frozenset("!@#$%^&*+=?~|")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_WORD_AND_NUMBER = re.compile(r"[A-Za-z][a-z]*(?:[A-Z][a-z]+)*[0-9]{1,4}|[0-9]{1,4}[A-Za-z][a-z]+")
# CamelCase words around a number of one or two digits: a name in code ("OAuth2Client",
# "Base64Encoder"); a password breaks a word ("Sunfl0wer") or starts lower case.
_CAMEL_IDENTIFIER = re.compile(r"(?:[A-Z]{1,5}[a-z]{2,}|[0-9]{1,2}(?=[A-Z]|$))+")
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]{16,}")
_SHORT_HASH = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_HASH_WORDS = (
    r"(?:(?<![A-Za-z])(?:commit|sha(?:1|256|512)?|hash|checksum|digest|md5|rev|revision"
    r"|fingerprint|etag|git|build)(?![A-Za-z])|提交|哈希|校验和|摘要|指纹|版本号)"
)
_HASH_CUE = re.compile(_HASH_WORDS + r"[^\n]{0,24}$", re.IGNORECASE)
_HASH_CUE_AFTER = re.compile(r"[^\n]{0,12}?" + _HASH_WORDS, re.IGNORECASE)
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")


def hash_cued(text: str, start: int) -> bool:
    """Whether a hash word (``commit``, ``sha256``, ``提交``…) stands shortly before the token
    at ``start``, or right after it (``回滚到 <sha> 这个提交``)."""
    if _HASH_CUE.search(text, max(0, start - 40), start) is not None:
        return True
    end = start
    while end < len(text) and not text[end].isspace() and not "\u2e80" <= text[end] <= "\u9fff":
        end += 1
    return _HASH_CUE_AFTER.match(text, end, min(len(text), end + 24)) is not None


# Shapes with letters and digits that name a time, a device, a request or content, not a
# secret: ISO 8601 timestamps, MAC addresses, UUIDs, named digests.
# A time zone's offset from UTC says what it is: "UTC+08:00", "GMT-5", "utc+0530".
UTC_OFFSET = r"(?:UTC|GMT)[+\-\u2212](?:1[0-4]|0?\d)(?::?[0-5]\d)?"
_NAMED_SHAPE = re.compile(
    UTC_OFFSET + r"|#(?:[0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})"  # a colour
    r"|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}"
    r"|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}"  # a UUID: request and trace ids
    r"|(?:sha(?:1|256|384|512)?|md5|blake2[bs]?|git):[0-9a-f]{7,}",  # a digest, named
    re.IGNORECASE,
)


def _ip(token: str) -> bool:
    if ":" not in token and "." not in token:
        return False
    try:
        ipaddress.ip_network(token, strict=False)
    except ValueError:
        return False
    return True


def _class_runs(part: str) -> int:
    """How many times ``part`` switches between letters and digits, plus one."""
    runs = 0
    last = None
    for c in part:
        cls = "d" if c.isdigit() else "a" if c.isalpha() else None
        if cls and cls != last:
            runs += 1
            last = cls
    return runs


def _classes(token: str) -> int:
    return sum(
        (
            any(c.isupper() for c in token),
            any(c.islower() for c in token),
            any(c.isdigit() for c in token),
            any(c in _PASSWORD_SYMBOLS for c in token),
        )
    )


# An attribute or option set inside one token ("title=1", 'onerror="f()"'): its name is a
# lower-case identifier, so the value alone is judged; "=" is then no password symbol.
_INLINE_ASSIGNMENT = re.compile(
    r"(?P<name>[a-z_][a-z0-9_]*(?:[.-][a-z_][a-z0-9_]*)*)=(?P<value>.*)"
)


def _assigned_value(token: str) -> str | None:
    """What an inline assignment to a plain name sets, a quoted nested one peeled
    ('onerror="document.title=1"' sets "1"); None when ``token`` is no such assignment."""
    assignment = _INLINE_ASSIGNMENT.fullmatch(token)
    if assignment is None or _CREDENTIAL_NAME.search(assignment["name"]):
        return None
    value = assignment["value"]
    if value[:1] not in ("'", '"'):
        return value  # unquoted, "=" inside it is the value's own ("a0=aaaAaa")
    value = value.strip(_EDGE)
    return _assigned_value(value) if _INLINE_ASSIGNMENT.fullmatch(value) else value


def _letter_digit_classes(token: str) -> int:
    """:func:`_classes` without the symbol class."""
    return _classes(token) - any(c in _PASSWORD_SYMBOLS for c in token)


_HEX_COLOUR = re.compile(r"#(?:[0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})")


def credential_shaped(token: str) -> bool:
    """Whether one token (no spaces) has a credential's shape (module docstring)."""
    if len(token) < 6 or token.isalpha():
        return False  # most words
    value = _assigned_value(token)
    if value is not None and _HEX_COLOUR.fullmatch(value):
        return False  # "color=#0Aa": a colour, whatever its case
    if value is not None:
        # a value mixing upper case, lower case and digits is a password whatever precedes
        # it ("a=aaaaaAa0"); a number, a word or a colour is what an attribute holds
        return _letter_digit_classes(value) >= 3 or credential_shaped(value)
    if len(token) < 16 and _hash_like(token):
        return False  # a short commit id ("49f145f"); 16 hex or more is a hex run
    if ("@" in token and _EMAIL.fullmatch(token)) or token.startswith(("#", "@")):
        return False
    if "://" in token or _NAMED_SHAPE.fullmatch(token) or _ip(token):
        return False  # a timestamp, a MAC or an IP address says what it is
    # A symbol inside the token, or beside a digit; "Notepad++" and "Hello!" end in theirs.
    inner = token.strip("".join(_PASSWORD_SYMBOLS))
    symbols = any(c in _PASSWORD_SYMBOLS for c in inner) or (
        any(c in _PASSWORD_SYMBOLS for c in token) and any(c.isdigit() for c in token)
    )
    if symbols and len(token) >= 6 and _classes(token) >= 3:
        return True
    parts = _PART.split(token)
    for part in parts:
        if len(part) < 6 or _WORD_AND_NUMBER.fullmatch(part) or _CAMEL_IDENTIFIER.fullmatch(part):
            continue
        if _class_runs(part) >= 3:
            return True
    # Groups that each mix letters and digits ("1R29-UR9-MA89", "Zx81-qpL7-wr2M").
    mixed = [p for p in parts if _class_runs(p) >= 2 and not _WORD_AND_NUMBER.fullmatch(p)]
    return len(mixed) >= 2 and sum(map(len, parts)) >= 8


def _long_run(token: str) -> str | None:
    body = token[2:] if token[:2].lower() == "0x" else token
    if _HEX.fullmatch(token) and any(c.isdigit() for c in body) and any(c.isalpha() for c in body):
        return HEX_RUN
    if _BASE64.fullmatch(token) and _classes(token.rstrip("=")) >= 3:
        return BASE64_RUN
    return None


def tokens(text: str) -> Iterator[tuple[int, int]]:
    """Spans of the non-space, non-CJK tokens of ``text``, edge punctuation trimmed."""
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        while start < end and text[start] in _EDGE:
            start += 1
        while end > start and text[end - 1] in _EDGE:
            end -= 1
        if end > start:
            yield start, end


def find_token_shapes(text: str) -> Iterator[tuple[str, int, int]]:
    """Credential-shaped tokens, long hex and base64 runs (module docstring)."""
    for start, end in tokens(text):
        token = text[start:end]
        if "://" in token:
            continue  # URLs: only their userinfo (find_url_credentials)
        kind = _long_run(token)
        if kind == HEX_RUN and hash_cued(text, start):
            continue  # "see commit 3f78…": a hash names content, it opens nothing
        if kind is None and _ORDER_CUE.search(text, max(0, start - 40), start):
            continue  # "tracking number 1ZAJ…": what it is, it says
        if kind is None and credential_shaped(token):
            kind = CREDENTIAL_SHAPE
        if kind is not None:
            while end < len(text) and text[end] in _PASSWORD_SYMBOLS:
                end += 1  # "P@ssw0rd!": the edge trim took a symbol of the password
            yield kind, start, end


_USERINFO = re.compile(
    r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://(?P<user>[^\s/@:?#]*)"
    # people paste a password as typed: "#" and "?" in it, before the "@", are the password's
    r"(?::(?P<password>[^\s/@]*))?@(?=[^\s@]*)"
)
_CREDENTIAL_NAME = re.compile(
    r"(?:pass|pwd|secret|token|key|auth|credential|cred|private|salt|dsn|database_url"
    r"|conn(?:ection)?_?str)",
    re.IGNORECASE,
)
_ASSIGNMENT = re.compile(
    r"(?m)^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.]*)[ \t]*[=:][ \t]*"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s#]+)"
)
# A value that is code or a placeholder, not a secret: a call, a variable, ${…}, <…>, ***.
_CODE_VALUE = re.compile(
    r"[\w.]+\(.*\)?|\$\{?[A-Za-z_][\w.]*\}?|%[A-Z_]+%|<[^>]*>|\{\{[^}]*\}\}|[*•x]+|\"\"|''"
)
_BLOCK_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]+-----|---- BEGIN SSH2[^\n]*----")
_BLOCK_END = re.compile(r"-----END [A-Z0-9 ]+-----|---- END SSH2[^\n]*----")


def find_url_credentials(text: str) -> Iterator[tuple[str, int, int]]:
    """The password in a URL's userinfo (any scheme), or the user part standing alone."""
    if "://" not in text:
        return
    for m in _USERINFO.finditer(text):
        if m.group("password"):
            yield URL_CREDENTIALS, *m.span("password")
        elif m.group("password") is None and m.group("user"):
            yield URL_CREDENTIALS, *m.span("user")


def find_assignments(text: str) -> Iterator[tuple[str, int, int]]:
    """Values of ``NAME=value`` lines whose name holds a credential word."""
    if "=" not in text and ":" not in text:
        return
    for m in _ASSIGNMENT.finditer(text):
        if _CREDENTIAL_NAME.search(m.group("name")) and not _CODE_VALUE.fullmatch(m.group("value")):
            start, end = m.span("value")
            if text[start] in "\"'" and end - start > 2:
                start, end = start + 1, end - 1
            yield ENV_ASSIGNMENT, start, end


def find_key_blocks(text: str) -> Iterator[tuple[str, int, int]]:
    """PEM and OpenSSH blocks, whatever they hold: markers, body and all."""
    if "-----" not in text and "----" not in text:
        return
    pos = 0
    while m := _BLOCK_BEGIN.search(text, pos):
        end = _BLOCK_END.search(text, m.end())
        stop = end.end() if end else len(text)
        yield KEY_BLOCK, m.start(), stop
        pos = stop


def find_shapes(text: str) -> Iterator[tuple[str, int, int]]:
    """Every finding of this module over ``text`` (folded)."""
    yield from find_key_blocks(text)
    yield from find_url_credentials(text)
    yield from find_assignments(text)
    yield from find_token_shapes(text)
    yield from find_digit_runs(text)
