"""Deny by default on values (SPEC §5.6 v3, issue 21 item 1). Pure.

A free-text value auto-commits only when every token in it is recognised:

* a word of its language (:mod:`memwarden_gate.lexicon`, wordfreq + jieba);
* an entry of the registry's catalogues: every key's canonical values and aliases, plus the
  ``catalogue`` of text keys (tool names no frequency list holds, such as ``kubectl``);
* a typed harmless form the key allows (:data:`FORMS`): a date, a clock time, a small
  count, a version number.

Anything else (a random-looking string, a long digit run, letters dictated one by one, a
run of Chinese digit words) is unrecognised and the gate sends the proposal to the owner
(NEEDS_CONFIRMATION ``unrecognised_token``). The check is the mechanism, not a list of
what secrets look like: whatever the detectors miss is still not committed on its own.
Closed value types (enum, language, time zone) are recognised by their own validation.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator

from memwarden_gate.lexicon import known_compound, known_english_token, known_word
from memwarden_shared.contract.registry import KeySpec, Registry
from memwarden_shared.text.fold import Level, fold_text

UNRECOGNISED_TOKEN = "unrecognised_token"
FREE_TEXT_TYPES = frozenset({"text", "dated_text"})
DATE, CLOCK_TIME, SMALL_COUNT, VERSION = "date", "clock_time", "small_count", "version"
FORMS = frozenset({DATE, CLOCK_TIME, SMALL_COUNT, VERSION})

# One token: a run of Han characters (a run of Chinese digit words inside it is a code), a
# number group (digits joined by - / . : and by single spaces, so "123 456" is one
# six-digit run, not two counts), or a word of letters and digits with inner punctuation
# ("node.js", "x86_64", "don't").
_ZH_DIGITS = "零〇一二三四五六七八九两壹贰叁肆伍陆柒捌玖"
ZH_DIGIT_RUN_MAX = 4  # "二零二四" is a year; five or more digit words in a row is a code
_ZH_DIGIT_RUN = re.compile(rf"[{_ZH_DIGITS}]{{{ZH_DIGIT_RUN_MAX + 1},}}")
_TOKEN = re.compile(
    r"(?P<han>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)"
    # a number ends at a letter ("16gb" is a word) but not at a Han character: a date the
    # extractor wrote into Chinese text ("从2026-12-02开始") is a date
    r"|(?P<num>\d+(?:(?:[-/.:,]| (?=\d))\d+)*)"
    r"(?!(?![\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])[^\W\d_])"
    r"|(?P<word>[^\W_]+(?:['’.\-_+#][^\W_]+)*[+#]*)"
)
# Letters dictated one by one ("x k 7 q"): each alone is a word, together a code.
_SPELLED = re.compile(r"(?:(?<![A-Za-z0-9])[A-Za-z0-9](?![A-Za-z0-9])[\s,.\-]*){4,}")
SMALL_COUNT_MAX_DIGITS = 3
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")
_ISO_DATE = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")
_SHORT_DATE = re.compile(r"^(\d{1,2})[-/.](\d{1,2})(?:[-/.](\d{2}|\d{4}))?$")
_YEAR = re.compile(r"^(?:19|20)\d{2}$")
# a month of a year, as the extractor writes "last month" / "上个月" ("2026-11")
_YEAR_MONTH = re.compile(r"^(?:19|20)\d{2}[-/.](?:0?[1-9]|1[0-2])$")
_VERSION = re.compile(r"^\d{1,3}(?:\.\d{1,3}){1,2}$")
# two small counts joined: a range, a ratio, a score ("9-5", "1:1", "24/7", "16:9")
_PAIR = re.compile(r"^\d{1,2}[-/:]\d{1,2}$")
# a word with a short number ("python3", "es6") or a number with a short unit ("16gb")
_WORD_NUMBER = re.compile(r"^([^\W\d_]{2,})(\d{1,4})$")
_NUMBER_UNIT = re.compile(r"^(\d{1,4})([^\W\d_]{1,3})$")
# An abbreviation: two to five capitals ("ORD", "PLAT"); too short to hold a secret.
_ACRONYM = re.compile(r"^[A-Z]{2,5}$")
# A labelled reference, as tickets and orders are numbered: a recognised label, a hyphen and
# a number of at most four digits ("PLAT-1234"). A bare four-digit number stays a code.
_REFERENCE = re.compile(r"^([^\W\d_]+)-\d{1,4}$")
_INNER = re.compile(r"['’.\-_+#]+")


def _valid_date(year: int, month: int, day: int) -> bool:
    try:
        dt.date(year, month, day)
    except ValueError:
        return False
    return True


def number_form(group: str) -> str | None:
    """The harmless form a number group has, or None (a code, an id, a long run).

    Bare digit groups split by spaces are one number, read out as an OTP is ("123 456"),
    so they have a form only when all of them together are a small count."""
    pieces = group.split(" ")
    if len(pieces) > 1 and all(p.isdigit() for p in pieces):
        joined = "".join(pieces)
        return SMALL_COUNT if len(joined) <= SMALL_COUNT_MAX_DIGITS else None
    return _piece_form(group)


def _piece_form(group: str) -> str | None:
    if group.isdigit() and len(group) <= SMALL_COUNT_MAX_DIGITS:
        return SMALL_COUNT
    if _YEAR.match(group) or _YEAR_MONTH.match(group):
        return DATE
    clock = _CLOCK.match(group)
    if clock and int(clock[1]) <= 24 and int(clock[2]) < 60:
        return CLOCK_TIME
    iso = _ISO_DATE.match(group)
    if iso:
        return DATE if _valid_date(int(iso[1]), int(iso[2]), int(iso[3])) else None
    short = _SHORT_DATE.match(group)
    if short and (
        _valid_date(2000, int(short[1]), int(short[2]))
        or _valid_date(2000, int(short[2]), int(short[1]))
    ):
        return DATE
    if _VERSION.match(group):
        return VERSION
    if _PAIR.match(group):
        return SMALL_COUNT
    return None


def _word_recognised(word: str, catalogue: frozenset[str]) -> bool:
    if fold_text(word, Level.SPACE) in catalogue or _ACRONYM.match(word):
        return True
    reference = _REFERENCE.match(word)
    if reference and _word_recognised(reference[1], catalogue):
        return True
    if not any(ch.isdigit() for ch in word):
        if known_word(word) or known_compound(word):
            return True
    else:
        if _mixed_recognised(word):
            return True
    # "node.js", "x86_64", "e-mail": every part recognised on its own
    parts = [p for p in _INNER.split(word) if p]
    return len(parts) > 1 and all(_word_recognised(p, catalogue) for p in parts)


def _han_recognised(han: str, catalogue: frozenset[str]) -> bool:
    """Chinese: every jieba piece a word, and no run of digit words ("五八三九二一")."""
    if _ZH_DIGIT_RUN.search(han):
        return False
    return known_word(han) or fold_text(han, Level.SPACE) in catalogue


def _mixed_recognised(token: str) -> bool:
    """Letters and digits together: a word with a short number, a number with a unit, or a
    token English uses as a word ("k8s") with no run of three digits in it."""
    word_number = _WORD_NUMBER.match(token)
    if word_number and known_word(word_number[1]) and _piece_form(word_number[2]):
        return True
    unit = _NUMBER_UNIT.match(token)
    if unit and known_word(unit[2]):
        return True
    return not re.search(r"\d{3}", token) and known_english_token(token)


def _number_allowed(group: str, allowed: frozenset[str]) -> bool:
    """A date then a time ("2026-03-14 14:00") is two numbers, each with its own form."""
    pieces = group.split(" ")
    if len(pieces) > 1 and not all(p.isdigit() for p in pieces):
        return all(_piece_form(p) in allowed for p in pieces)
    return number_form(group) in allowed


def unrecognised_tokens(
    value: str, allowed: frozenset[str], catalogue: frozenset[str]
) -> Iterator[str]:
    """Every token of ``value`` that is not recognised (the caller only counts them: a
    token is never written anywhere, it may be a secret)."""
    if _SPELLED.search(value):
        yield "spelled"
    for m in _TOKEN.finditer(value):
        if m["han"] is not None:
            if not _han_recognised(m["han"], catalogue):
                yield m["han"]
        elif m["num"] is not None:
            if not _number_allowed(m["num"], allowed):
                yield m["num"]
        elif not _word_recognised(m["word"], catalogue):
            yield m["word"]


def value_unrecognised(value: object, spec: KeySpec, registry: Registry) -> bool:
    """True when a free-text value holds a token the gate does not recognise."""
    if not isinstance(value, str) or spec.value.get("type") not in FREE_TEXT_TYPES:
        return False
    allowed = frozenset(spec.value.get("forms", FORMS))
    return next(unrecognised_tokens(value, allowed, registry_catalogue(registry)), None) is not None


_CATALOGUES: dict[str, frozenset[str]] = {}
CATALOGUE_MEMO_SIZE = 64


def registry_catalogue(registry: Registry) -> frozenset[str]:
    """Every name the registry knows, folded: the catalogue entries of all keys, and each
    word of a several-word name. Memoised by the registry's version, which names its file."""
    known = _CATALOGUES.get(registry.version)
    if known is None:
        known = _catalogue_of(registry)
        if len(_CATALOGUES) < CATALOGUE_MEMO_SIZE:
            _CATALOGUES[registry.version] = known
    return known


def _catalogue_of(registry: Registry) -> frozenset[str]:
    names: set[str] = set()
    for spec in registry.keys.values():
        names.update(spec.aliases)
        for forms in spec.aliases.values():
            names.update(forms)
        names.update(spec.value.get("values", ()))
        names.update(spec.value.get("catalogue", ()))
    folded = {fold_text(n, Level.SPACE) for n in names}
    return frozenset(folded | {w for n in folded for w in n.split()})
