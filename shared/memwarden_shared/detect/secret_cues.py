"""The credential-cue lexicon: one list of concepts, expanded mechanically. Pure.

A cue is a word that announces a credential or an identity number: ``password``, ``PIN``,
``OTP``, ``验证码``, ``支付密码``… Every value near a cue is masked at ingest
(:mod:`memwarden_shared.detect.secret_shapes`), and a cue opens a window over the next
turns of the session (:mod:`memwarden_shared.detect.secret_window`).

The lexicon is written once, as concepts: English words and abbreviations, and Chinese
words in simplified characters. Everything else is generated, never typed by hand:

- traditional characters: OpenCC's ``s2t``, ``s2tw`` and ``s2hk`` tables (``密碼``, ``驗證碼``);
- pinyin: ``pypinyin`` in three spellings, toneless (``mima``, ``mi ma``), with tone marks
  (``mìmǎ``) and with tone numbers (``mi4ma3``);
- pinyin initials (``yzm`` for 验证码, ``zfmm`` for 支付密码) for concepts of three
  characters or more; two-letter initials (``mm``) collide with English (millimetres).

Matching runs on text folded by :mod:`memwarden_shared.text.fold`, ASCII letters in
either case; a Latin cue must stand as a whole word (``pin`` is not in ``spinach``), and its
words may be joined by a space, ``-`` or ``_``, or written solid (``pin-code``, ``pincode``,
``DB_PASSWORD``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache, lru_cache

from memwarden_shared.detect.secret_catalogue import trie_pattern

PASSWORD = "password"
PIN = "pin"
KEY = "generic_api_key"
ACCOUNT = "account_number"
NATIONAL_ID = "national_id"
SEED = "seed_phrase"

# English words and abbreviations, by what they announce. Everyday words among them
# ("pass", "key", "code", "pin", "tan": "bus pass", "key points") are cues only in capitals
# or right before a value (AMBIGUOUS below). A bare "id" is one only when it announces a
# value ("my id is …", "ID: …"): request, trace and user ids are talked about everywhere;
# "id number", "id card" always are.
ENGLISH: dict[str, tuple[str, ...]] = {
    PASSWORD: (
        "password", "passwords", "passwd", "pswd", "psw", "pwd", "pw", "passcode", "passphrase",
        "pass phrase", "pass code", "login", "log in", "credentials", "creds", "wifi key",
        "wi-fi key", "network key", "combination", "combo", "door code", "gate code",
        "alarm code", "entry code", "access code", "unlock code", "lock code", "keypad code",
        "security answer", "security question", "secret answer", "maiden name", "pass",
        "code",
        # announcing a spelling: what follows is dictated unit by unit, as secrets are
        "spelling it out", "spell it out", "spelled out", "spelt out", "letter by letter",
        "character by character", "one letter at a time", "one character at a time",
    ),
    PIN: (
        "pin", "pin code", "pin number", "pins", "otp", "one-time code", "one time code",
        "one-time password", "one time password", "2fa", "2fa code", "mfa", "mfa code", "tan",
        "mtan", "cvv", "cvv2", "cvc", "cvc2", "csc", "security code", "verification code",
        "confirmation code", "auth code", "authentication code", "login code", "sms code",
        "totp", "backup code", "backup codes", "recovery code", "recovery codes",
    ),
    KEY: (
        "api key", "apikey", "api token", "secret key", "access key", "private key",
        "license key", "licence key", "product key", "activation key", "token",
        "access token", "auth token", "bearer", "secret", "client secret", "signing key",
        "encryption key", "master key", "ssh key", "deploy key", "key",
    ),
    ACCOUNT: (
        "account number", "account no", "acct", "acct no", "bank account", "routing number",
        "sort code", "iban", "swift", "card number", "card no", "credit card", "debit card",
        "bank card",
    ),
    NATIONAL_ID: (
        "id", "ssn", "social security", "social security number", "sin", "nino",
        "national insurance", "national insurance number", "national id", "id number",
        "id no", "id card", "identity card", "identity number", "passport",
        "passport number", "passport no", "driver's license", "drivers license",
        "driving licence", "license number", "licence number", "tax id", "tax number", "tin",
        "taxpayer id", "aadhaar", "aadhar", "pan card", "pan number", "cpf", "nir",
        "steuer-id", "steuer id", "steuernummer", "my number", "hkid", "nric", "medicare number",
        "health card", "residence permit", "travel permit",
    ),
    SEED: (
        "seed phrase", "seed words", "recovery phrase", "mnemonic", "mnemonic phrase",
        "secret phrase", "wallet phrase", "private key phrase", "bip39", "bip-39",
    ),
}  # fmt: skip

# Chinese concepts, simplified; the traditional and pinyin forms are generated from them.
CHINESE: dict[str, tuple[str, ...]] = {
    PASSWORD: (
        "密码", "口令", "暗号", "登录密码", "开门密码", "门禁密码", "门锁密码", "锁屏密码",
        "开机密码", "解锁密码", "管理员密码", "无线密码", "密保", "密保答案", "密保问题",
        "动态密码", "独立密码", "账号密码", "账户密码",
        "逐个字母", "一个字母一个字母", "逐字母", "逐个字符", "一位一位",
    ),
    PIN: (
        "验证码", "校验码", "动态码", "动态口令", "短信码", "短信验证码", "安全码", "提取码",
        "授权码", "激活码", "支付密码", "交易密码", "取款密码", "银行卡密码", "卡密码", "卡密",
        "两步验证", "二次验证", "个人识别码", "备用码", "恢复码", "门禁码",
    ),
    KEY: ("密钥", "秘钥", "私钥", "公钥", "令牌", "访问令牌", "凭证", "凭据", "许可证密钥"),
    ACCOUNT: ("银行卡号", "卡号", "银行账号", "账号", "账户号", "开户行", "信用卡号", "储蓄卡号"),
    NATIONAL_ID: (
        "身份证", "身份证号", "身份证号码", "护照", "护照号", "护照号码", "社保号", "社保卡号",
        "社会保障号", "驾驶证号", "驾照号", "通行证", "港澳通行证", "台胞证", "回乡证",
        "居住证", "医保卡号", "税号", "纳税人识别号", "证件号", "证件号码", "个人编号", "个人号码",
        "身份号码", "居民号码",
    ),
    SEED: ("助记词", "恢复短语", "种子短语", "钱包短语", "私钥短语"),
}  # fmt: skip

_TRADITIONAL = ("s2t", "s2tw", "s2hk")


@dataclass(frozen=True, slots=True)
class Cue:
    """A cue of ``kind`` at ``[start, end)`` of the folded text."""

    kind: str
    start: int
    end: int


def _pinyin_forms(word: str) -> set[str]:
    # pypinyin loads its dictionaries on import (about a second): only when the lexicon is
    # built, in the processes that mask, not in every process that imports this module.
    from pypinyin import Style, lazy_pinyin  # noqa: PLC0415

    syllables = lazy_pinyin(word)
    marked = lazy_pinyin(word, style=Style.TONE)
    numbered = lazy_pinyin(word, style=Style.TONE3, neutral_tone_with_five=True)
    forms = {"".join(marked), "".join(numbered)}
    # toneless, spaced any way: by syllable, by word ("yinhangka mima"), or solid
    for gaps in itertools.product(("", " "), repeat=len(syllables) - 1):
        forms.add(syllables[0] + "".join(g + s for g, s in zip(gaps, syllables[1:], strict=True)))
    if len(word) >= 3:
        forms.add("".join(s[0] for s in syllables))
    return forms


@cache
def lexicon() -> dict[str, frozenset[str]]:
    """Every cue form by kind: the English list, the Chinese list in simplified and
    traditional characters, and its pinyin spellings."""
    from opencc import OpenCC  # noqa: PLC0415 - as pypinyin above

    out: dict[str, set[str]] = {kind: set(words) for kind, words in ENGLISH.items()}
    converters = [OpenCC(table) for table in _TRADITIONAL]
    for kind, words in CHINESE.items():
        for word in words:
            out[kind].add(word)
            out[kind].update(c.convert(word) for c in converters)
            out[kind].update(_pinyin_forms(word))
    return {kind: frozenset(forms) for kind, forms in out.items()}


# Cues are matched in a copy of the text with ASCII capitals lowered and "_" and "-" read
# as spaces: the same length, so offsets hold, and one case-sensitive trie search (much
# faster than a case-insensitive alternation of hundreds of forms) finds them all.
_NORMALISE = str.maketrans({**{chr(c): chr(c + 32) for c in range(65, 91)}, "_": " ", "-": " "})


def _normal(form: str) -> str:
    return form.translate(_NORMALISE)


@cache
def _pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    """The trie of every cue form (and every multi-word form written solid, ``pincode``),
    normalised, and each normalised form's kind."""
    kind_of: dict[str, str] = {}
    for kind, forms in lexicon().items():
        for form in sorted(forms):
            for variant in (_normal(form), _normal(form).replace(" ", "")):
                kind_of.setdefault(variant, kind)
    return re.compile(trie_pattern(set(kind_of))), kind_of


def _has_han(form: str) -> bool:
    return any("\u3400" <= c <= "\u9fff" for c in form)


def _latin_bounded(text: str, start: int, end: int) -> bool:
    """A Latin cue stands as a word: no ASCII letter or digit touches it (``_`` and CJK
    may: ``DB_PASSWORD``, ``account no是…``)."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum())


# Abbreviations that are also everyday words ("pin the tab", "a tan coat", "bowling pins"):
# a cue only in capitals or when a value is announced right after them.
AMBIGUOUS = frozenset(
    {"pin", "pins", "tan", "combo", "combination", "login", "log in", "pass", "code", "key", "id"}
)
# Nouns after a cue that make it talk about credentials in general.
_ABOUT_CREDENTIALS = re.compile(
    r"[ _-]?(?:limits?|length|policy|policies|manager|strength|rules?|requirements?|expiry"
    r"|rotation|reset|field|hint|count|size|budget|usage|generator|complexity|prompt)\b"
    r"|强度|规则|要求|长度|管理器|策略|提示|重置",
    re.IGNORECASE,
)
_ANNOUNCING = re.compile(r"\s*(?:[:=：]|is\b|was\b|code\b|number\b|no\b|码|是)", re.IGNORECASE)


@lru_cache(maxsize=4096)  # the same turn is asked again by the cue window and session window
def _find(folded: str) -> tuple[Cue, ...]:
    pattern, kind_of = _pattern()
    normal = folded.translate(_NORMALISE)
    out = []
    for m in pattern.finditer(normal):
        form = m.group()
        if not _has_han(form) and not _latin_bounded(folded, m.start(), m.end()):
            continue
        everyday = form in AMBIGUOUS and not folded[m.start() : m.end()].isupper()
        if everyday and not _ANNOUNCING.match(folded, m.end()):
            continue
        if _ABOUT_CREDENTIALS.match(folded, m.end()):
            continue  # "password policy", "token limit", "密码强度": about them, not one
        out.append(Cue(kind_of[form], m.start(), m.end()))
    return tuple(out)


def find_cues(folded: str) -> list[Cue]:
    """Every cue in ``folded`` (text from :func:`~memwarden_shared.text.fold.fold`),
    the longest form at each position, ordered by start."""
    return list(_find(folded))
