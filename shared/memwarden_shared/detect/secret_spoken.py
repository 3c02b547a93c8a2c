"""Secrets said in plain speech, English and Chinese, and secrets split over a sentence break.

:mod:`shared.secret_phrases` reads ``password: X``-shaped statements. This module adds the
words people use for the secrets of daily life: the wifi key, the NAS login, a door or gate
code, an app password, a seed phrase, backup codes, ``开门密码``, ``支付密码``, ``密保答案``,
``助记词``, and PINs spoken as words (``four seven one one``, ``一二三四五六``).

A cue that ends its sentence without a value (``My wifi password is… hunter22``; a turn
that ends in ``the door code is``) hands the value to whatever comes next: the next
sentence here, or the next turn of the same session (:func:`ends_with_cue`,
:func:`leading_value`, used by :mod:`shared.secret_mask`).

Works on text folded by :mod:`memwarden_shared.text.fold` (``SCRIPT``); returns folded offsets.
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memwarden_shared.detect.secret_phrases import PLACEHOLDER, PROSE_WORDS
from memwarden_shared.text.cue_words import CueWords

PASSWORD = "password"
PIN = "pin"
SEED_PHRASE = "seed_phrase"
BACKUP_CODES = "backup_codes"
SECURITY_ANSWER = "security_answer"
LOGIN = "login"  # "log in to the NAS with admin / X": the rest of the sentence is credentials

_THING_EN = (
    r"wi-?fi|wlan|wireless|router|network|hotspot|nas|synology|door|front door|back door|gate"
    r"|garage|alarm|lock|locker|safe|building|entry|entrance|keypad|house|apartment|flat|phone"
    r"|laptop|computer|pc|mac|tablet|ipad|bank|atm|debit card|credit card|card|app|app-specific"
    r"|application|icloud|apple id|email|e-mail|mail|gmail|outlook|account|vpn|ssh|server"
    r"|database|db|root|admin|sudo|router admin|bike lock|padlock|voicemail|sim|puk|luggage"
)
_WHAT_EN = r"key|password|passcode|pass|pw|pwd|code|pin|combination|combo|login|passphrase"
# "alarm disarm code", "server root password": one modifier between the thing and the word.
_MODIFIER_EN = (
    r"disarm|arm|entry|access|unlock|login|log-in|admin|master|security|backup|recovery|root"
    r"|portal|account|app|guest|home|office|main"
)
_CUE_EN = (
    rf"(?:{_THING_EN})(?:'s)?(?:[ -](?:{_MODIFIER_EN}))?[ -]?(?:{_WHAT_EN})"
    r"|(?P<seed>(?:secret |wallet |bip-?39 )?(?:seed|recovery|mnemonic|backup) (?:phrase|words)"
    r"|mnemonic(?: phrase)?|seed words)"
    r"|(?P<codes>(?:backup|recovery|2fa|mfa|one-time|scratch) codes?)"
    r"|(?P<answer>security (?:question )?answer|answer to (?:my|the) security question"
    r"|(?:my )?mother'?s maiden name|first pet'?s name)"
    r"|combination|passcode|pin(?: code| number)?|password|passphrase"
)
_CONN_EN = (
    r"\s*(?:(?:for|at|of|on|in|to)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?\s*)?"
    r"(?:(?:is|are|was|were|will be|reads|equals|is set to|is still|is now|are now)\s*[:=]?"
    r"|[:=\u2013\u2014](?!//)|->|=>|\s-\s)\s*(?:(?:just|now|still|simply|actually)\s+)?(?:it'?s\s+)?"
)
_LOGIN_EN = (
    r"(?:log ?in|sign ?in|login|ssh|connect)\s+(?:to|into|on)\s+(?:the\s+|my\s+|our\s+)?"
    r"[\w.@-]+(?:\s+[\w.@-]+)?\s+(?:with|using|as)\s+"
)
_THING_ZH = (
    r"开门|门禁|门锁|大门|房门|家门|入户门|单元门|保险柜|保险箱|wifi|wi-fi|无线|网络|路由器|热点|nas"
    r"|群晖|支付|银行卡|取款|信用卡|手机|锁屏|解锁|开机|电脑|应用专用|app专用|独立|邮箱|账户|账号"
)
_CUE_ZH = (
    rf"(?:{_THING_ZH})(?:的)?(?:登录)?(?:密码|口令|密钥|码|pin码?)"
    r"|(?P<zseed>助记词|恢复短语|种子短语|钱包短语)"
    r"|(?P<zcodes>备用码|恢复码|备份码|救援码)"
    # 密保问题“小学班主任叫什么”的答案: the question itself may sit between cue and 答案.
    r"|(?P<zanswer>(?:密保|安全)(?:问题)?(?:[\"'“‘「『][^\"'”’」』\n]{1,40}[\"'”’」』])?(?:的)?答案"
    r"|密保)"
    r"|(?:取款|登录|登陆|支付|交易|管理|管理员|后台)(?:密码|口令)|密码|口令|pin码|验证码"
)
_CONN_ZH = (
    r"\s*(?:现在|目前|还|也|都)?\s*"
    r"(?:(?:就是|是|为|叫|设成了?|改成了?|设的是|用的是)\s*[:=]?|[:=])\s*"
)
_CUE = re.compile(
    rf"(?<![A-Za-z])(?:{_CUE_EN})(?![A-Za-z])(?P<conn>{_CONN_EN})|(?P<login>{_LOGIN_EN})"
    rf"|(?:{_CUE_ZH})(?P<zconn>{_CONN_ZH})",
    re.IGNORECASE,
)
# A cue with no value before the sentence ends: the value is in the next sentence or turn.
_DANGLING = re.compile(
    rf"(?<![A-Za-z])(?:{_CUE_EN})(?![A-Za-z])(?:{_CONN_EN})|(?:{_CUE_ZH})(?:{_CONN_ZH})"
    r"|(?:here(?:'s| is| are)|below is|i'll send|sending)\s+(?:my|the|our)\s+[\w -]{0,20}?"
    r"(?:password|passcode|pin|code|key|token|phrase)s?"
    r"|(?:下一条|下条消息|下面)(?:发|是)?(?:我的)?[\u4e00-\u9fff]{0,6}(?:密码|验证码|助记词)",
    re.IGNORECASE,
)
# A cue that ends its sentence bare ("Remember my VPN login.") and a next sentence that
# opens by naming the value ("It's X", "就是 X", ": X").
_CUE_ALONE = re.compile(rf"(?<![A-Za-z])(?:{_CUE_EN})(?![A-Za-z])|(?:{_CUE_ZH})", re.IGNORECASE)
_EXPLICIT_LEAD = re.compile(
    r"\s*(?:(?:it|that|this|the (?:code|password|key|pin))(?:'s| is| was)|is|are|就是|是|为"
    r"|[:=\u2013\u2014-])\s*",
    re.IGNORECASE,
)
# "I'll send the passphrase in my next message", "密码我分两条发你": the value comes later.
_ANNOUNCE = re.compile(
    r"(?:next|following|separate|another|later)\s+(?:message|msg|text|turn|line|dm)"
    r"|in\s+(?:two|2|three|3|several)\s+(?:messages|parts|pieces|halves|texts)"
    r"|下一条|下条|分(?:两|二|2|三|3|几)(?:条|次|段|部分)|分开发|单独发|稍后发|等下发|马上发",
    re.IGNORECASE,
)
_SECRET_NOUN = re.compile(
    r"pass(?:word|phrase|code)|\bpin\b|\bcodes?\b|\bkey\b|token|secret|phrase"
    r"|密码|口令|密钥|验证码|助记词|暗号",
    re.IGNORECASE,
)
# One half of a secret split over turns or sentences: "前半段 X", "second half: X".
_HALF = re.compile(
    r"(?:前半段|后半段|前半部分|后半部分|前一半|后一半|上半段|下半段|前半截|后半截"
    r"|(?:first|second|last|other)\s+half|part\s+(?:one|two|three|1|2|3))"
    r"(?:\s+(?:of\s+)?(?:the|my|it)?\s*(?:password|passphrase|pin|code|key))?"
    r"\s*(?:is|are|是|为|[:=\u2013\u2014-])?\s*",
    re.IGNORECASE,
)
_BREAK = re.compile(r"[\s.…:;!?。！？；:：,，]*(?:[.…!?。！？；;\n]|$)[\s.…]*")

# 大写 financial numerals (壹贰叁…) are how a PIN is written to dodge a digit scanner.
_ZH_NUMERALS = r"[零〇一二三四五六七八九幺两壹贰叁肆伍陆柒捌玖貳參叄陸]"
_EN_DIGIT_WORDS = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_SPOKEN_PIN = re.compile(
    rf"{_ZH_NUMERALS}(?:[，,、 ]?{_ZH_NUMERALS}){{2,15}}"
    rf"|\d(?:[ ,.-]\d){{3,11}}(?![\d])"  # "8 7 4 7 7 1": digits spaced out one by one
    rf"|{_EN_DIGIT_WORDS}(?:[\s,-]+{_EN_DIGIT_WORDS}){{2,11}}(?![A-Za-z])",
    re.IGNORECASE,
)
_LEAD_IN = re.compile(
    r"\s*(?:(?:it|that|this)(?:'s| is| was)\s+|is\s+|are\s+|就是|是|为|[:=]\s*)?\s*", re.IGNORECASE
)
_TOKEN = re.compile(r"[\"'“‘「]?([^\s\"'”’」，。；！？,;]{3,128})")
_TRAILING = ".,;:!?)]}>…"
# "." "!" "?" end the sentence only before a space or the end: "Qz7!harbor" is one word.
_TO_SENTENCE_END = re.compile(r"(?:[^\n.;。；！？!?]|[.!?](?=\S)){1,400}")
_PROSE = frozenset(PROSE_WORDS.split())
_NUMBER_WORDS = frozenset(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
)
_ZH_PROSE = re.compile(
    r"^(?:多少|什么|啥|忘了|忘记|不知道|不记得|在|写在|贴在|放在|保存在|跟|和|同|一样|不变|没变|改了"
    r"|很|太|比较|非常|挺|有|要|需要|得|必须|由|去|请|问|多长|几位)"
)


def _plausible(value: str) -> bool:
    """A value, not words about one ("the wifi password is on the fridge")."""
    word = value.lower().rstrip(_TRAILING)
    if len(word) < 3 or word in _PROSE or word in _NUMBER_WORDS or _ZH_PROSE.match(value):
        return False  # "my PIN is four digits long": a length, not the PIN
    if word.isalpha() and word.isascii() and word.endswith(("ing", "ed", "ly")):
        return False
    return not PLACEHOLDER.fullmatch(value.rstrip(_TRAILING)) and value[0] not in "<{[$%"


def _value_at(text: str, pos: int, kind: str) -> tuple[int, int] | None:
    """The secret starting at ``pos``: a run of words for phrases and code lists, else one
    token (or a PIN spoken as digit words)."""
    if kind in (SEED_PHRASE, BACKUP_CODES, LOGIN):
        m = _TO_SENTENCE_END.match(text, pos)
        if not m or len(m.group().split()) < (3 if kind == SEED_PHRASE else 1):
            return None
        if kind != SEED_PHRASE and not re.search(r"\d|[/:!#$%&*@]", m.group()):
            return None  # "log in to the server with my laptop": no credential in it
        end = m.end()
        while end > pos and text[end - 1] in " ,，":
            end -= 1
        return pos, end
    spoken = _SPOKEN_PIN.match(text, pos)
    if spoken:
        return spoken.span()
    if kind == SECURITY_ANSWER and pos < len(text) and "\u4e00" <= text[pos] <= "\u9fff":
        m = re.compile(r"[\u4e00-\u9fff]{1,12}").match(text, pos)
        if m and not _ZH_PROSE.match(m.group()):
            return m.span()
        return None
    m = _TOKEN.match(text, pos)
    if not m:
        return None
    start, end = m.span(1)
    # A Chinese sentence goes on right after an ASCII value: "密码是abc123别忘了".
    cjk = re.search(r"[\u3400-\u9fff]", text[start:end])
    if cjk and cjk.start() == 0:
        return None  # "密码是我生日": words about the password, not one
    if cjk:
        end = start + cjk.start()
    while end > start and text[end - 1] in _TRAILING:
        end -= 1
    if end - start < 3 or not _plausible(text[start:end]):
        return None
    return start, _same_width_groups(text, start, end)


_GROUP = re.compile(r" ([A-Za-z0-9]+)")


def _same_width_groups(text: str, start: int, end: int) -> int:
    """Extend a token over following groups of its width: ``abcd efgh ijkl mnop`` (an app
    password), ``1234 5678``."""
    width = end - start
    for _ in range(8):
        m = _GROUP.match(text, end)
        if not m or len(m.group(1)) != width:
            break
        end = m.end()
    return end


def _kind(m: re.Match[str]) -> str:
    g = m.groupdict()  # _CUE_ALONE has no login group
    if g.get("login"):
        return LOGIN
    if g.get("seed") or g.get("zseed"):
        return SEED_PHRASE
    if g.get("codes") or g.get("zcodes"):
        return BACKUP_CODES
    if g.get("answer") or g.get("zanswer"):
        return SECURITY_ANSWER
    return PASSWORD


# Every cue above contains one of these; a text with none of them skips the big patterns.
_TRIGGERS = CueWords(
    "key|pass|pw|code|pin|comb|log|sign|ssh|connect|seed|phrase|mnemonic|word|answer|maiden"
    "|pet|here|below|send|half|part|login|密|口令|码|助记|短语|答案|下一条|下条|下面|半"
)


def find_spoken_secrets(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(kind, start, end)`` for each spoken secret in ``text`` (folded)."""
    if not _TRIGGERS.may_occur(text):
        return
    reach = -1  # end of the last value: a cue inside it is part of it
    for m in _CUE.finditer(text):
        if m.start() < reach:
            continue
        kind = _kind(m)
        span = _value_at(text, m.end(), kind)
        if span:
            start, end = span
            reach = end
            if _SPOKEN_PIN.fullmatch(text[start:end]):
                kind = PIN
            yield (PASSWORD if kind == LOGIN else kind), start, end
    yield from _across_sentences(text)
    yield from _halves(text)
    for m in _DANGLING.finditer(text):
        brk = _BREAK.match(text, m.end())
        if not brk or brk.end() >= len(text) or brk.end() == m.end():
            continue
        span = leading_value(text[brk.end() :])
        if span:
            yield PASSWORD, brk.end() + span[0], brk.end() + span[1]


def _mixed_shape(value: str) -> bool:
    """Digits and letters or symbols: a password, not a word ("It's Tuesday")."""
    spoken = _SPOKEN_PIN.fullmatch(value) is not None
    return (not value.isalpha() and not value.isdigit()) or spoken


def _across_sentences(text: str) -> Iterator[tuple[str, int, int]]:
    for m in _CUE_ALONE.finditer(text):
        brk = _BREAK.match(text, m.end())
        if not brk or brk.end() >= len(text) or brk.end() == m.end():
            continue
        lead = _EXPLICIT_LEAD.match(text, brk.end())
        if not lead:
            continue
        kind = _kind(m)
        span = _value_at(text, lead.end(), kind)
        if not span:
            continue
        value = text[span[0] : span[1]]
        if kind in (PASSWORD, LOGIN) and not _mixed_shape(value):
            continue
        yield (PIN if _SPOKEN_PIN.fullmatch(value) else PASSWORD if kind == LOGIN else kind), *span


def _halves(text: str) -> Iterator[tuple[str, int, int]]:
    # A half marker opening the turn, or anywhere in a text that names a secret.
    named = _SECRET_NOUN.search(text) is not None
    for m in _HALF.finditer(text):
        if not named and text[: m.start()].strip():
            continue
        span = _value_at(text, m.end(), PASSWORD)
        if span and _mixed_shape(text[span[0] : span[1]]):
            start, end = span
            rest = text[end:].rstrip()
            if rest and len(rest) <= 2 and not rest.strip(_TRAILING):
                end += len(rest)  # a half that ends the turn keeps its "?" or "!"
            yield PASSWORD, start, end


def announces_value(text: str) -> bool:
    """True when ``text`` (folded) says a secret follows in a later turn."""
    return bool(_ANNOUNCE.search(text) and _SECRET_NOUN.search(text))


def ends_with_cue(text: str) -> bool:
    """True when ``text`` (folded) ends with a secret's cue and no value: the next turn of
    the session is expected to hold it."""
    if announces_value(text):
        return True
    tail = text.rstrip(" \t\n.…:：。!！,，")[-120:]
    return any(m.end() == len(tail) for m in _DANGLING.finditer(tail))


def leading_value(text: str) -> tuple[int, int] | None:
    """The secret at the start of ``text`` (folded), after a lead-in like ``It's``."""
    lead = _LEAD_IN.match(text)
    pos = lead.end() if lead else 0
    seed = len(text[pos:].split()) >= 12 and all(w.isalpha() for w in text[pos:].split()[:12])
    return _value_at(text, pos, SEED_PHRASE if seed else PASSWORD)
