"""Identity, tax, bank and crypto numbers from maintained catalogues. Pure.

- **python-stdnum**: every module of the installed stdnum is enumerated at first use; a
  module is chosen when the first line of its docstring names something that identifies a
  person, an account or a payment instrument (personal, national, identity, social
  security, birth, resident, passport, tax, bank account, IBAN…) and not a company, a
  product, a place or an algorithm (company, business, VAT, postal, ISBN, securities…),
  unless it names a person outright (personal, individual, citizen, taxpayer).
  :func:`chosen_modules` and :func:`left_out_modules` list the result; the coverage script
  ``scripts/secret_coverage.py`` prints it by country (docs/decisions.md, issue 21).
- **Bitcoin** addresses (base58check and bech32) by stdnum's ``bitcoin`` module;
  **Ethereum** addresses by shape (``0x`` and 40 hex digits: lower-case addresses carry no
  checksum, so none is required).
- **BIP-39 seed phrases**: 12, 15, 18, 21 or 24 words in a row from the official English
  word list, or as many characters of the simplified-Chinese list, as shipped by the
  ``mnemonic`` package (Trezor's reference implementation). The checksum word is NOT
  required: a mistyped phrase is still a wallet.

Pure digit runs are not confirmed here: stdnum's modules together accept almost every
number of six to twelve digits (docs/decisions.md, issue 21), so such runs are masked by
shape (:mod:`memwarden_shared.detect.secret_shapes`); validators decide the runs that
carry letters (``ABCPD1234E``, ``X1234567L``), which no digit rule sees whole.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import warnings
from collections.abc import Iterator
from functools import cache, lru_cache
from types import ModuleType

import stdnum
from stdnum.exceptions import InvalidLength

NATIONAL_ID = "national_id"
BANK_ACCOUNT = "bank_account"
CRYPTO_ADDRESS = "crypto_address"
SEED_PHRASE = "seed_phrase"

_LEFT_OUT = re.compile(
    r"compan|business|enterprise|organi[sz]ation|corporate|legal entit|postal|postcode"
    r"|securit(?:y|ies) ident|securities|article|book|serial|music|recording|audiovisual"
    r"|librar|container|maritime|chemical|drug|meter|real estate|receipt|classification"
    r"|algorithm|energy|excise|establishment|register|routing|mobile|mac address|banknote"
    r"|creditor|reference|slip|release|name identifier|financial instrument|school|vat\b"
    r"|btw|tva\b|moms|mwst|umsatz|buyer|activity|memorandum|association|gs1",
    re.IGNORECASE,
)
_CHOSEN = re.compile(
    r"person|citizen|national|identity|social|insurance|birth|resident|individual|passport"
    r"|health|pupil|student|voter|tax|bank|account|iban|bitcoin|foreigner|c[ée]dula"
    r"|identification|id number|kimlik|aadhaar|identiteit",
    re.IGNORECASE,
)
# Words that name a person outright: chosen even where a left-out word stands too
# ("Unique Taxpayer Reference", "personal and organisation identity code").
_PERSON = re.compile(r"personal|individual|citizen|taxpayer|inland revenue", re.IGNORECASE)
_BANK = re.compile(r"bank|iban|konto", re.IGNORECASE)


def _title(module: ModuleType) -> str:
    doc = (module.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


@cache
def _all_modules() -> tuple[ModuleType, ...]:
    found = []
    for info in pkgutil.walk_packages(stdnum.__path__, "stdnum."):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                module = importlib.import_module(info.name)
            except ImportError:
                continue
        if any(issubclass(w.category, DeprecationWarning) for w in caught):
            continue  # a renamed module, kept by stdnum under its old name too
        if callable(getattr(module, "is_valid", None)) and _title(module):
            found.append(module)
    return tuple(found)


def _is_chosen(module: ModuleType) -> bool:
    title = _title(module)
    if _PERSON.search(title):
        return True
    return bool(_CHOSEN.search(title)) and not _LEFT_OUT.search(title)


@cache
def chosen_modules() -> tuple[ModuleType, ...]:
    """The stdnum modules whose numbers identify a person, an account or a payment
    instrument (see the module docstring for the rule)."""
    return tuple(m for m in _all_modules() if _is_chosen(m))


def left_out_modules() -> tuple[ModuleType, ...]:
    """The stdnum modules with a validator that the rule leaves out."""
    return tuple(m for m in _all_modules() if not _is_chosen(m))


def module_kind(module: ModuleType) -> str:
    """What a match of ``module`` is named: bank account, crypto address or national id."""
    name = module.__name__
    if name == "stdnum.bitcoin":
        return CRYPTO_ADDRESS
    return BANK_ACCOUNT if _BANK.search(_title(module)) else NATIONAL_ID


def _length_possible(module: ModuleType, length: int) -> bool:
    """False when ``module`` refuses a number of ``length`` characters for its length: a
    validator checks the length before the checksum, and either before or after the
    character set, so a probe of digits or one of letters refused as too long or too short
    tells. A validator that refuses both for something else is kept for every length."""
    for probe in ("1" * length, "A" * length):
        try:
            module.validate(probe)
        except InvalidLength:
            return False
        except Exception:
            continue
    return True


@cache
def _by_length() -> dict[int, tuple[ModuleType, ...]]:
    """The chosen modules that may accept a number of each length, probed once."""
    return {
        n: tuple(m for m in chosen_modules() if _length_possible(m, n))
        for n in range(_MIN_LENGTH, _MAX_LENGTH + 1)
    }


_MIN_LENGTH, _MAX_LENGTH = 6, 64


@lru_cache(maxsize=4096)  # a token repeats across the checks of one batch
def validated_kind(candidate: str) -> str | None:
    """The kind of the first chosen validator that accepts ``candidate`` (letters and
    digits, separators removed), else None."""
    for module in _by_length().get(len(candidate), ()):
        try:
            if module.is_valid(candidate):
                return module_kind(module)
        except Exception:
            continue
    return None


# An identity number with letters: one token of letters and digits whose groups are joined
# by dots, dashes or slashes (``X-1234567-L``), or upper-case groups joined by single spaces
# (``AB 12 34 56 C``); it needs two digits and one letter.
_ALNUM_RUN = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]+(?:[./-][A-Za-z0-9]+){0,7}|[A-Z0-9]+(?: [A-Z0-9]+){1,7})"
    r"(?![A-Za-z0-9])"
)
_ETH = re.compile(r"(?<![A-Za-z0-9])0x[0-9a-fA-F]{40}(?![0-9A-Za-z])")
_BTC = re.compile(r"(?<![A-Za-z0-9])(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|bc1[02-9ac-hj-np-z]{11,71})"
                  r"(?![A-Za-z0-9])", re.IGNORECASE)  # fmt: skip


_TWO_DIGITS = re.compile(r"\d\D{0,40}\d")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?", re.IGNORECASE)


_HEX_COLOUR = re.compile(r"[0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8}")


def _id_candidates(text: str) -> Iterator[tuple[int, int, str]]:
    """Whole tokens with letters and digits, and runs of space-separated groups (an id
    written before other words: ``AB 12 34 56 C please``); never a piece of a token (a
    UUID's first group, a URL's path)."""
    if not _TWO_DIGITS.search(text):
        return
    for m in _ALNUM_RUN.finditer(text):
        run = m.group()
        if sum(c.isdigit() for c in run) < 2 or run.isdigit() or not any(c.isalpha() for c in run):
            continue  # most words: no id can be inside
        if (m.end() < len(text) and text[m.end()] in ":/") or text[max(0, m.start() - 1)] in ":/":
            continue  # a piece of a URL, a path or a timestamp
        if _HEX_COLOUR.fullmatch(run) and m.start() > 0 and text[m.start() - 1] == "#":
            continue  # "#000a00": a colour names itself
        groups = list(re.finditer(r"[^ ]+", run))
        for first in range(len(groups)):
            for last in range(len(groups) - 1, first - 1, -1):
                start = m.start() + groups[first].start()
                end = m.start() + groups[last].end()
                compact = re.sub(r"[ ./-]", "", text[start:end])
                if not _MIN_LENGTH <= len(compact) <= 34:
                    continue
                digits = sum(c.isdigit() for c in compact)
                if 2 <= digits < len(compact) and not _VERSION.fullmatch(text[start:end]):
                    yield start, end, compact


def find_ids(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(kind, start, end)`` for identity and account numbers with letters that a
    chosen validator accepts, and for crypto addresses; longest first, no overlaps."""
    taken: list[tuple[int, int]] = []
    for m in _ETH.finditer(text):
        taken.append(m.span())
        yield CRYPTO_ADDRESS, m.start(), m.end()
    for m in _BTC.finditer(text):
        if validated_kind(m.group()) == CRYPTO_ADDRESS:
            taken.append(m.span())
            yield CRYPTO_ADDRESS, m.start(), m.end()
    for start, end, compact in _id_candidates(text):
        if any(s < end and start < e for s, e in taken):
            continue
        kind = validated_kind(compact)
        if kind is not None:
            taken.append((start, end))
            yield kind, start, end


@cache
def _wordlists() -> tuple[frozenset[str], frozenset[str]]:
    from mnemonic import Mnemonic  # noqa: PLC0415 - at first use, as the stdnum modules

    return (
        frozenset(Mnemonic("english").wordlist),
        frozenset(Mnemonic("chinese_simplified").wordlist),
    )


SEED_LENGTHS = (12, 15, 18, 21, 24)
# A word, optionally numbered ("1. abandon", "2) ability"), then commas or spaces.
_SEED_WORD = re.compile(
    r"(?<![A-Za-z])(?:\d{1,2}[.):]\s*)?([a-z]+)(?![A-Za-z])[\s,;]*", re.IGNORECASE
)
# Chinese words are single characters: each must stand apart, or any sentence would do.
_SEED_HAN = re.compile(r"(?:\d{1,2}[.):]\s*)?([\u4e00-\u9fff])(?:[\s,;，、]+|$)")


def _seed_runs(
    text: str, pattern: re.Pattern[str], words: frozenset[str], shortest: int
) -> Iterator[list[re.Match[str]]]:
    """Runs of ``shortest`` or more consecutive ``pattern`` matches whose word is in
    ``words`` with nothing but separators between them."""
    run: list[re.Match[str]] = []
    for m in pattern.finditer(text):
        adjacent = bool(run) and run[-1].end() == m.start()
        if m.group(1).lower() in words:
            if not adjacent and len(run) >= shortest:
                yield run
            run = [*run, m] if adjacent else [m]
            continue
        if len(run) >= shortest:
            yield run
        run = []
    if len(run) >= shortest:
        yield run


# A piece of a phrase: after a seed cue in the text (the window of a session included,
# "seed words part one: …" then "part two: …"), three words or more; with no cue, six or
# more of which at most one is an everyday word (wordfreq's commonest English words): an
# ordinary clause uses them ("remember that you prefer light"), a random draw rarely does.
_SEED_CUE = re.compile(
    r"\b(?:seed|mnemonic|recovery|backup|wallet|bip-?39)\s+(?:phrase|words?|sentence)\b"
    r"|\bmnemonic\b|助记词|恢复短语|种子短语|钱包短语|种子词",
    re.IGNORECASE,
)
CUED_SEED_WORDS = 3
UNCUED_SEED_WORDS = 6
_EVERYDAY_WORDS = 300


@cache
def _everyday_english() -> frozenset[str]:
    from wordfreq import top_n_list  # noqa: PLC0415 - at first use, as the word lists

    return frozenset(top_n_list("en", _EVERYDAY_WORDS))


def seed_word(word: str) -> bool:
    """A word of the English BIP-39 list."""
    return word.lower() in _wordlists()[0]


def seed_cued(text: str) -> bool:
    """The text names a seed phrase ("recovery phrase", "助记词"): its pieces may follow."""
    return _SEED_CUE.search(text) is not None


def _seed_piece(run: list[re.Match[str]], cued_from: int | None) -> bool:
    if len(run) >= SEED_LENGTHS[0]:
        return True
    if cued_from is not None and run[0].start() >= cued_from and len(run) >= CUED_SEED_WORDS:
        return True
    everyday = sum(m.group(1).lower() in _everyday_english() for m in run)
    return len(run) >= UNCUED_SEED_WORDS and everyday <= 1


def find_seed_phrases(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(kind, start, end)`` for each run of twelve or more BIP-39 words (English)
    or characters (simplified Chinese, space-separated), and each piece of one (above)."""
    english, chinese = _wordlists()
    cue = _SEED_CUE.search(text)
    cued_from = cue.end() if cue else None
    for run in _seed_runs(text, _SEED_WORD, english, CUED_SEED_WORDS):
        if _seed_piece(run, cued_from):
            yield SEED_PHRASE, run[0].start(), run[-1].end(1)
    if any("\u4e00" <= c <= "\u9fff" for c in text):
        for run in _seed_runs(text, _SEED_HAN, chinese, SEED_LENGTHS[0]):
            yield SEED_PHRASE, run[0].start(), run[-1].end(1)
