"""Checksums that separate real card numbers, IBANs and Chinese resident ids from look-alikes.

Pure functions over digit/letter strings with separators already removed. Each returns a
bool and never raises on malformed input, so callers can try every candidate. The checksums
for cards and IBANs are python-stdnum's (Luhn, ISO 7064 mod 97-10). Deliberately looser
than stdnum's full validators: an IBAN need not match its country's BBAN layout and a
resident id need not name a county stdnum knows, because a near-valid number typed by a
user is still a secret to keep out of the store.
"""

from __future__ import annotations

import re
from datetime import date

from stdnum import luhn as stdnum_luhn
from stdnum.iso7064 import mod_97_10

# ISO 13616 registry lengths (SWIFT IBAN registry); a wrong length fails before mod-97.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24,
    "AE": 23,
    "AL": 28,
    "AT": 20,
    "AZ": 28,
    "BA": 20,
    "BE": 16,
    "BG": 22,
    "BH": 22,
    "BR": 29,
    "BY": 28,
    "CH": 21,
    "CR": 22,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DK": 18,
    "DO": 28,
    "EE": 20,
    "EG": 29,
    "ES": 24,
    "FI": 18,
    "FO": 18,
    "FR": 27,
    "GB": 22,
    "GE": 22,
    "GI": 23,
    "GL": 18,
    "GR": 27,
    "GT": 28,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IL": 23,
    "IQ": 23,
    "IS": 26,
    "IT": 27,
    "JO": 30,
    "KW": 30,
    "KZ": 20,
    "LB": 28,
    "LC": 32,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "MC": 27,
    "MD": 24,
    "ME": 22,
    "MK": 19,
    "MR": 27,
    "MT": 31,
    "MU": 30,
    "NL": 18,
    "NO": 15,
    "PK": 24,
    "PL": 28,
    "PS": 29,
    "PT": 25,
    "QA": 29,
    "RO": 24,
    "RS": 22,
    "SA": 24,
    "SC": 31,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "ST": 25,
    "SV": 28,
    "TL": 23,
    "TN": 24,
    "TR": 26,
    "UA": 29,
    "VA": 22,
    "VG": 24,
    "XK": 20,
}

# First two digits of GB/T 2260 province-level divisions; others are not issued.
_CN_PROVINCES = frozenset(
    {
        11,
        12,
        13,
        14,
        15,
        21,
        22,
        23,
        31,
        32,
        33,
        34,
        35,
        36,
        37,
        41,
        42,
        43,
        44,
        45,
        46,
        50,
        51,
        52,
        53,
        54,
        61,
        62,
        63,
        64,
        65,
        71,
        81,
        82,
        83,
    }
)
_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_CHECK = "10X98765432"

# Issuer prefixes and lengths of the card networks; a Luhn-valid number outside these is far
# more likely an order or tracking number than a card.
_CARD_RULES: tuple[tuple[re.Pattern[str], frozenset[int]], ...] = (
    (re.compile(r"4"), frozenset({13, 16, 19})),  # Visa
    (re.compile(r"5[1-5]|2(?:22[1-9]|2[3-9]|[3-6]|7[01]|720)"), frozenset({16})),  # MC
    (re.compile(r"3[47]"), frozenset({15})),  # Amex
    (re.compile(r"3(?:0[0-5]|[689])"), frozenset(range(14, 20))),  # Diners
    (re.compile(r"35(?:2[89]|[3-8])"), frozenset(range(16, 20))),  # JCB
    (re.compile(r"6(?:011|4[4-9]|5|2)"), frozenset(range(16, 20))),  # Discover, UnionPay
    (re.compile(r"5018|5020|5038|5893|6304|67[0-9][0-9]"), frozenset(range(12, 20))),  # Maestro
)


def luhn_valid(digits: str) -> bool:
    """True when ``digits`` (ASCII digits only) passes the Luhn mod-10 check."""
    if not digits.isascii() or not digits.isdigit():
        return False
    return bool(stdnum_luhn.is_valid(digits))


def card_number_valid(digits: str) -> bool:
    """True for a Luhn-valid number whose prefix and length belong to a card network."""
    if not luhn_valid(digits):
        return False
    return any(p.match(digits) and len(digits) in lengths for p, lengths in _CARD_RULES)


def iban_valid(iban: str) -> bool:
    """True when ``iban`` (no spaces) has its country's length and passes ISO 7064 mod 97-10."""
    iban = iban.upper()
    if not iban.isascii() or not iban.isalnum() or len(iban) < 5:
        return False
    if IBAN_LENGTHS.get(iban[:2]) != len(iban) or not iban[2:4].isdigit():
        return False
    rearranged = iban[4:] + iban[:4]
    return bool(mod_97_10.is_valid("".join(str(int(ch, 36)) for ch in rearranged)))


def cn_resident_id_check_char(first17: str) -> str:
    """The GB 11643 check character for the first 17 digits of a resident id."""
    total = sum(int(ch) * w for ch, w in zip(first17, _CN_WEIGHTS, strict=True))
    return _CN_CHECK[total % 11]


def cn_resident_id_valid(rid: str) -> bool:
    """True for an 18-char resident id with a known province, a real birth date, a correct check."""
    rid = rid.upper()
    if len(rid) != 18 or not rid.isascii() or not rid[:17].isdigit():
        return False
    if int(rid[:2]) not in _CN_PROVINCES:
        return False
    try:
        born = date(int(rid[6:10]), int(rid[10:12]), int(rid[12:14]))
    except ValueError:
        return False
    # No clock in a pure module: 2100 bounds "not absurd" without knowing today.
    if not 1900 <= born.year < 2100:
        return False
    return cn_resident_id_check_char(rid[:17]) == rid[17]
