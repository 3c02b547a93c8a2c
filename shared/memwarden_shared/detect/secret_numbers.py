"""Checksummed identity and payment numbers in folded text: cards, IBANs, national ids. Pure.

Each finder yields ``(kind, start, end)`` over text already folded by
:mod:`memwarden_shared.text.fold` (``SCRIPT``). A shape alone never fires: the checksum
(or, for US SSNs, the issuing rules) must hold too, which is what keeps order numbers and
timestamps out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memwarden_shared.detect.secret_checksums import (
    IBAN_LENGTHS,
    card_number_valid,
    cn_resident_id_valid,
    iban_valid,
)

PAYMENT_CARD = "payment_card"
IBAN = "iban"
CN_RESIDENT_ID = "cn_resident_id"
US_SSN = "us_ssn"

# Separators people put between the groups of a card, IBAN or id number to dodge a
# scanner: one or two spaces, dots, slashes, middle dots, hyphens, en/em dashes, a dash
# with spaces around it ("4012 - 8888 - …"). One number uses one separator throughout.
_SEP = r"(?: ?[-\u2010-\u2015/\u00b7\u30fb] ?|  |[ .])"
# Not glued to more digits or letters by a separator either: a UUID's digit groups.
_CARD = re.compile(
    rf"(?<![\dA-Za-z.,+/·-])\d(?:{_SEP}?\d){{11,18}}"
    r"(?![\dA-Za-z]|[-\u2010-\u2015.,/·\u30fb][\dA-Za-z])"
)
_CARD_SEP = re.compile(r"\D+")
# Every pattern here needs a digit (\d, as they spell it): most sentences have none.
_ANY_DIGIT = re.compile(r"\d")
_CARD_CUE = re.compile(r"card|visa|master|amex|credit|debit|\bcc\b|卡", re.IGNORECASE)
_NOT_CARD_CUE = re.compile(
    r"order|tracking|invoice|\bref|ticket|booking|confirmation|transaction|serial|phone|\btel"
    r"|mobile|fax|#|订单|单号|运单|快递|物流|流水|编号|工单|发票|电话|手机|序列号",
    re.IGNORECASE,
)
_UNIT_AFTER = re.compile(
    r"\s*(?:ns|us|µs|ms|s|sec|seconds|bytes|[kmgt]i?b|units|rows|times|次|个|元|条|字节)(?![A-Za-z])",
    re.IGNORECASE,
)
_IBAN_SEP = re.compile(_SEP)
_IBAN_HEAD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}")
# 6-8-4 groups; the empty alternative lets the back-reference demand the same separator twice.
_CN_ID = re.compile(
    rf"(?<![A-Za-z0-9])(\d{{6}})((?:{_SEP})?)(\d{{8}})\2(\d{{3}}[\dXx])(?![A-Za-z0-9])"
)
# SSA rules: area not 000/666/9xx, group not 00, serial not 0000. The dashed form is
# distinctive enough alone; nine bare digits need the words SSN / social security nearby.
_SSN_DASHED = re.compile(r"(?<![\d-])(?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_SSN_BARE = re.compile(
    r"(?i:\bssn\b|social security)[^\d]{0,24}(?<!\d)"
    r"((?!000|666|9)\d{3}(?!00)\d{2}(?!0000)\d{4})(?!\d)"
)


def find_cards(text: str) -> Iterator[tuple[str, int, int]]:
    """Card numbers: 12-19 digits, one kind of separator between groups, network prefix
    and Luhn."""
    if not _ANY_DIGIT.search(text):
        return
    for m in _CARD.finditer(text):
        groups = _CARD_SEP.split(m.group())
        if len(set(_CARD_SEP.findall(m.group()))) > 1:
            continue  # mixed separators: a list or a date-and-number, not one number
        before = text[max(0, m.start() - 24) : m.start()]
        wider = text[max(0, m.start() - 48) : m.start()]
        cued = bool(_CARD_CUE.search(wider))
        # Short groups are a list of small numbers unless the sentence names a card.
        if min(map(len, groups)) < (2 if cued else 3):
            continue
        if not card_number_valid("".join(groups)):
            continue
        if _UNIT_AFTER.match(text, m.end()):
            continue  # "took 5953121612456 ns": a measurement
        if _NOT_CARD_CUE.search(before) and not cued:
            continue  # "order #4111…": a Luhn-valid order or tracking number
        yield PAYMENT_CARD, m.start(), m.end()


def find_ibans(text: str) -> Iterator[tuple[str, int, int]]:
    """IBANs, compact or in groups of four (the last may be shorter) split by one kind of
    separator, with the country's length and mod 97."""
    if not _ANY_DIGIT.search(text):
        return
    for m in _IBAN_HEAD.finditer(text):
        length = IBAN_LENGTHS.get(m.group()[:2].upper())
        if length is None:
            continue
        chars, end = list(m.group()), m.end()
        cuts = []  # how many characters came before each separator
        seps: set[str] = set()
        while len(chars) < length and end < len(text):
            if text[end].isascii() and text[end].isalnum():
                chars.append(text[end])
                end += 1
                continue
            sep = _IBAN_SEP.match(text, end)
            if not (sep and sep.end() < len(text) and text[sep.end()].isalnum()):
                break
            cuts.append(len(chars))
            seps.add(sep.group())
            end = sep.end()
        if end < len(text) and text[end].isascii() and text[end].isalnum():
            continue  # the run goes on: longer than this country's IBAN
        if cuts and (
            len(seps) > 1
            or cuts != list(range(4, 4 * len(cuts) + 1, 4))
            or len(chars) - cuts[-1] > 4
        ):
            continue  # written in groups, but not of four: a UUID or a list, not an IBAN
        if len(chars) == length and iban_valid("".join(chars)):
            yield IBAN, m.start(), end


def find_national_ids(text: str) -> Iterator[tuple[str, int, int]]:
    """Chinese resident ids (GB 11643) and US social security numbers."""
    if not _ANY_DIGIT.search(text):
        return
    for m in _CN_ID.finditer(text):
        if cn_resident_id_valid(m.group(1) + m.group(3) + m.group(4)):
            yield CN_RESIDENT_ID, m.start(), m.end()
    for m in _SSN_DASHED.finditer(text):
        yield US_SSN, m.start(), m.end()
    for m in _SSN_BARE.finditer(text):
        yield US_SSN, *m.span(1)
