"""Passwords, PINs, keys and id numbers stated in natural language, English and Chinese.

A secret is the value that follows a cue and a connector: ``my password is X``,
``pw=X``, ``the db password for prod is X``, ``PIN: 1234``, ``密码是X``, ``验证码 123456``,
``API key 是 X``; or precedes a reversed one: ``X is my password``, ``X 是我的密码``. A cue
with no value (``I forgot my password``, ``reset your password``, ``密码强度要求``) or a value
that is prose (``my password is too weak``, ``密码是多少``) does not fire. Id numbers named
as such (``passport number``, ``护照号``) fire even where no checksum exists to confirm them.

Works on text already folded by :mod:`memwarden_shared.text.fold` (``SCRIPT``); returns folded
offsets. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memwarden_shared.text.cue_words import CueWords

PASSWORD = "password"
PIN = "pin"
GENERIC_KEY = "generic_api_key"
NATIONAL_ID = "national_id"

_PW_EN = r"pass(?:word|wd|code|phrase)s?|pass[ -]phrase|pwd|pw"
_PIN_EN = (
    r"pin(?:[ -]?(?:code|number|no\.?))?|cvv2?|cvc2?|csc|security[ -]code"
    r"|(?:verification|confirmation|one[- ]time|otp|2fa|mfa|sms|auth(?:entication)?|access"
    r"|unlock|login)[ -]code|otp"
)
_KEY_EN = (
    r"(?:api|access|secret|app|client|auth|bearer|refresh|session|private|webhook|signing"
    r"|encryption|license|master|deploy|service)[ _-]?(?:access[ _-]?)?(?:key|token|secret)"
    r"|api[ _-]?key|apikey|personal access token|bearer|token|secret"
)
# An id number stated after its name is a secret even when no checksum can confirm it.
_ID_EN = (
    r"ssn|social security(?: number| no\.?)?|passport(?: number| no\.?)?"
    r"|national id(?: number| no\.?)?|id card(?: number| no\.?)?"
    r"|driver'?s licen[cs]e(?: number| no\.?)?"
)
_ID_ZH = r"身份证号码|身份证号|身份证|护照号码|护照号|社保号|社会保障号|驾驶证号|驾照号"
_PIN_ZH = (
    r"支付密码|交易密码|取款密码|银行卡密码|卡密码|PIN码|验证码|校验码|动态码|动态口令|短信码"
    r"|安全码|提取码"
)
_PW_ZH = r"登录密码|登陆密码|开机密码|锁屏密码|密码|口令|暗号"
_KEY_ZH = r"API\s*密钥|密钥|秘钥|私钥|访问令牌|令牌"

# "password for the prod db is X": up to three words qualifying the cue.
_QUAL_EN = r"(?:\s+(?:for|of|on|at|to|in)\s+[\w.@'/-]+(?:\s+[\w.@'/-]+){0,2}?)"
_CONN_EN = (
    r"\s*(?::=|=>|->|[:=])(?!//)\s*(?:it'?s\s+|it is\s+)?|\?\s+it(?:'s| is)\s+"
    r"|\s+(?:(?:was|has been|is|has)\s+(?:changed|set|updated|reset)\s+to|changed to|set to"
    r"|is|was|are|will be|has been|reads|equals)"
    r"(?:\s+(?:now|still|just|actually|currently|simply))?\s*[:=]?\s*"
    r"|['’]s\s+"
)
_CONN_ZH = (
    r"\s*(?:现在|目前|已经|还|也|都|仍然|依然|一直|还是)?\s*(?:就是|是|为|叫|改成了?|改为了?|设成了?|设为"
    r"|我?(?:设|用|改|换)(?:置)?的是"
    r"|设置为|设置成|设定为|换成了?|变成了?)\s*:?\s*|\s*[:=](?!//)\s*"
)

_CUE = re.compile(
    # "_" may precede a cue: DB_PASSWORD=…, GITHUB_TOKEN=… are how people paste env files.
    rf"(?<![A-Za-z0-9])(?:(?P<id>{_ID_EN})|(?P<pin>{_PIN_EN})|(?P<key>{_KEY_EN})|(?P<pw>{_PW_EN})"
    r"|(?P<pass>pass))"
    rf"(?![A-Za-z])(?:{_QUAL_EN}?(?P<conn>{_CONN_EN}|{_CONN_ZH})|(?P<bare>[ \t]+))"
    rf"|(?:(?P<zid>{_ID_ZH})|(?P<zpin>{_PIN_ZH})|(?P<zkey>{_KEY_ZH})|(?P<zpw>{_PW_ZH}))"
    rf"(?:(?P<zconn>{_CONN_ZH}|{_CONN_EN})|(?P<zbare>[ \t]+))",
    re.IGNORECASE,
)
_SET_TO = re.compile(
    r"(?<![A-Za-z])(?:set|change|changed|update|updated|reset)\s+(?:(?:my|the|our|your)\s+)?"
    rf"(?:[\w-]+\s+)?(?P<pw>{_PW_EN})\s+(?:to|as)\s+",
    re.IGNORECASE,
)
_REVERSED = re.compile(
    r"(?:(?<=\s)|^|(?<=use\s))(?P<val>[!-~]{3,64}?)\s+(?:is|as)\s+(?:my|the|our)\s+"
    rf"(?:new\s+|old\s+|current\s+)?(?:[\w-]+\s+)?(?P<pw>{_PW_EN}|pin)"
    # "KeePass is the password manager" names a tool, not a password.
    r"(?!\s*(?:manager|policy|policies|reset|field|box|hint|strength|rules?|requirements?"
    r"|generator|prompt|hash|vault|protection|change|expiry|length|app|tool|pad)\b)"
    r"|(?P<zval>[!-~]{3,64}?)\s*(?:就是|是|作为|当作)(?:我的|我们的|我|的)?"
    rf"[\u4e00-\u9fff]{{0,6}}?(?P<zpw>{_PW_ZH})",
    re.IGNORECASE,
)

# Every match of the three patterns above holds one of these (each cue alternative
# contains one: "passport" holds "pass", "cvv2" "cv", "登录密码" "码", "访问令牌" "令"). One
# short scan that finds none rules all three out, and most sentences name no secret.
_ANY_CUE = CueWords(
    "pass|pw|pin|ssn|social|national|id card|licen|cv|csc|code|otp|key|token|secret|bearer"
    "|证|照|社|码|令|钥|号"
)

_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "『": "』", "«": "»"}
_TRAILING = ".,;:!?)]}>\"'`…"
_ID_VALUE = re.compile(r"[A-Za-z0-9-]{6,20}")
_KEY_CHARS = re.compile(r"[A-Za-z0-9_\-.+/=~]+")
# Words after a bare dictionary-word value that still leave it the whole password.
_CLAUSE_END = re.compile(
    r"\s*(?:$|[^\sA-Za-z0-9]|(?:and|but|so|btw|lol|now|please|thanks|for|on|at|in|from|since"
    r"|too|again|though|then|ok|okay|everywhere)\b)",
    re.IGNORECASE,
)
_CVV = re.compile(r"cvv2?|cvc2?|csc|security[ -]code|安全码", re.IGNORECASE)
PLACEHOLDER = re.compile(
    r"[*•·x#.\-]+|<[^>]*>|\[[^\]]*\]|\{\{?[^}]*\}?\}|\$\{?[A-Z_]+\}?|%[A-Z_]+%"
)
# Words that follow "password is" in prose about a password rather than stating one
# (shared with shared.secret_spoken).
PROSE_WORDS = """a an the my your our his her their its this that these those it it's is was
    not no yes none null nil empty blank required optional mandatory needed incorrect wrong invalid
    valid correct right expired weak strong too very so same different changed reset set stored
    saved encrypted hashed hidden secret private protected safe secure insecure long short
    missing lost forgotten unknown known case case-sensitive sensitive complex simple easy
    hard good bad fine ok okay here there below above attached what which who where how why
    something anything nothing in on at of for to from with by as about still also only just
    now always never usually currently being been be and or but if then unchanged updated new
    old default similar shared leaked compromised sent written managed generated rotated
    revoked provided given used locked blocked disabled enabled active inactive mine yours
    ours please thanks whatever somewhere unique random temporary personal important
    confidential useless useful complicated needs must should can will would could may might
    redacted placeholder unset n/a na tbd todo same-as-before see check ask"""
_PROSE = frozenset(PROSE_WORDS.split())
# One unquoted value: no space, no CJK (the sentence goes on in Chinese right after a value,
# "密码是abc123别忘了"). The cap, longer than any password, keeps "pw=pw=pw=…" linear.
_VALUE_RUN = re.compile(r"[^\s\u2e80-\U0010ffff]{1,256}")


def _take_value(text: str, pos: int) -> tuple[int, int, bool] | None:
    """``(start, end, quoted)`` of the value at ``pos``: a quoted string or one bare token."""
    if pos >= len(text):
        return None
    closer = _QUOTES.get(text[pos])
    if closer is not None:
        end = text.find(closer, pos + 1, pos + 130)
        if end > pos + 1 and "\n" not in text[pos + 1 : end]:
            return pos + 1, end, True
        pos += 1
    run = _VALUE_RUN.match(text, pos)
    end = run.end() if run else pos
    while end > pos and text[end - 1] in _TRAILING:
        end -= 1
    return (pos, end, False) if end > pos else None


_DIGIT = re.compile(r"\d")
_ALPHA = re.compile(r"[^\W\d_]")


def _plausible(kind: str, value: str, bare: bool, cue: str) -> bool:
    """Whether ``value`` reads as a literal secret rather than words about one."""
    if PLACEHOLDER.fullmatch(value) or value.lower() in _PROSE or value[0] in "<{[":
        return False
    # regex searches, not per-character loops: "pw=pw=pw=…" tries a long value at every cue
    has_digit = _DIGIT.search(value) is not None
    has_alpha = _ALPHA.search(value) is not None
    if kind == PIN:
        if value.isdigit():
            return len(value) >= (3 if _CVV.fullmatch(cue) else 4) and len(value) <= 12
        return value.isalnum() and 4 <= len(value) <= 10 and has_digit and has_alpha
    if kind == NATIONAL_ID:
        return bool(_ID_VALUE.fullmatch(value)) and sum(c.isdigit() for c in value) >= 5
    if kind == GENERIC_KEY:
        return (
            len(value) >= (16 if bare else 12)
            and has_digit
            and has_alpha
            and bool(_KEY_CHARS.fullmatch(value))
        )
    if bare:
        return len(value) >= 8 and has_digit and (has_alpha or not value.isalnum())
    if len(value) < 4 or not value.isprintable():
        return False
    # Lower-case dictionary-shaped words ending like verbs/adverbs are prose ("is expiring").
    return not (value.isalpha() and value.islower() and value.endswith(("ing", "ed", "ly")))


def _forward_value(text: str, pos: int, kind: str, bare: bool, cue: str) -> tuple[int, int] | None:
    """The value after a cue and connector, if it reads as a literal secret."""
    taken = _take_value(text, pos)
    if taken is None:
        return None
    start, end, quoted = taken
    value = text[start:end]
    if not _plausible(kind, value, bare, cue):
        return None
    # A bare word that the sentence carries on from is prose: "set my password to expire
    # every 90 days"; a word that ends the clause is the password: "my password is dragon."
    if not quoted and value.isalpha() and not _CLAUSE_END.match(text, end):
        return None
    return start, end


def _cue_kind(m: re.Match[str]) -> str:
    if m.group("id") or m.group("zid"):
        return NATIONAL_ID
    if m.group("pin") or m.group("zpin"):
        return PIN
    if m.group("key") or m.group("zkey"):
        return GENERIC_KEY
    return PASSWORD


def find_phrase_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(kind, start, end)`` for each stated password, PIN, key or id in ``text``."""
    if not _ANY_CUE.may_occur(text):
        return
    reach = -1  # end of the last value: a cue inside it ("pw=pw=pw=…") is part of it
    for m in _CUE.finditer(text):
        if m.start() < reach:
            continue
        kind = _cue_kind(m)
        # Only English needs a strong shape after a bare space ("password manager"); a
        # Chinese cue followed by ASCII ("密码 sunshine") is already a stated value. "pass"
        # is a common word ("bus pass is valid"): strong shape unless "pass: X" / "pass=X".
        bare = bool(m.group("bare")) or bool(
            m.group("pass") and not any(c in (m.group("conn") or "") for c in ":=")
        )
        cue = m.group("pin") or m.group("zpin") or ""
        span = _forward_value(text, m.end(), kind, bare, cue)
        if span:
            reach = span[1]
            yield kind, *span
    for m in _SET_TO.finditer(text):
        span = _forward_value(text, m.end(), PASSWORD, False, "")
        if span:
            yield PASSWORD, *span
    for m in _REVERSED.finditer(text):
        start, end = m.span("val" if m.group("val") else "zval")
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        kind = PIN if (m.group("pw") or "").lower() == "pin" else PASSWORD
        if end > start and _plausible(kind, text[start:end], False, "pin" if kind == PIN else ""):
            yield kind, start, end
