"""The verb class of a statement about oneself, in English or Chinese. Pure.

A first reading of a sentence's structure, for reports (``memwarden eval --misses``): what
kind of statement it is, so that a gap in extraction shows up as a class ("team decisions
without decide/决定", "call-me names") rather than as one case. Classes, first match wins:

- ``call_me``: naming oneself ("call me", "my name is", "叫我", "我叫");
- ``decide``: a decision or convention of a team ("we decided", "official", "going forward",
  "决定", "定了", "统一", "规定");
- ``prefer``: a liking or a preference ("prefer", "rather", "favourite", "喜欢", "偏好");
- ``use``: a tool or habit in use ("use", "switched to", "work in", "用", "改用", "习惯");
- ``am``: being, having, living ("I am", "I live", "my X is", "我是", "我住", "我有");
- ``remember``: only a remember-cue with none of the above;
- ``other``.

The language is ``zh`` when the sentence holds CJK characters and no Latin word of three
letters or more, ``en`` for the reverse, ``mixed`` when it holds both.
"""

from __future__ import annotations

import re

from memwarden_shared.text.fold import Level, fold_text

VERB_CLASSES = ("call_me", "decide", "prefer", "use", "am", "remember", "other")

_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "call_me",
        re.compile(
            r"\bcall me\b|\bmy name is\b|\bi(?:'m| am) called\b|\bgo by\b|\baddress me as\b"
            r"|叫我|我叫|我的名字|称呼我"
        ),
    ),
    (
        "decide",
        re.compile(
            r"\b(?:decid\w*|decision|agreed|settled on|official(?:ly)?|convention|final call"
            r"|going forward|from now on|standardi[sz]\w*|policy|rule is)\b"
            r"|决定|决议|定了|定下|拍板|约定|统一|规定|规范|惯例|以后都|今后"
        ),
    ),
    (
        "prefer",
        re.compile(
            r"\b(?:prefer\w*|rather|favou?rite|like|likes|love|loves|fan of|hate|can't stand)\b"
            r"|喜欢|偏好|偏爱|更爱|最爱|讨厌|受不了"
        ),
    ),
    (
        "use",
        re.compile(
            r"\b(?:use|uses|using|used|switch(?:ed)? to|moved to|work (?:in|with)|rely on"
            r"|daily driver|go-to|main (?:tool|editor|machine)|stick with|run|runs|running)\b"
            r"|用|使用|改用|换成|换到|习惯|主力"
        ),
    ),
    (
        "am",
        re.compile(
            r"\bi(?:'m| am)\b|\bi (?:live|work|have|own|was born)\b|\bmy \w+(?: \w+)? (?:is|are)\b"
            r"|我是|我住|我在|我有|我家|我的.{1,6}?是"
        ),
    ),
    (
        "remember",
        re.compile(
            r"\b(?:remember|keep in mind|don't forget|note to self|memo)\b"
            r"|记住|记一下|记下|记[着著]|别忘|备忘"
        ),
    ),
)
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[a-z]{3,}")


def verb_class(sentence: str) -> str:
    """The first class of :data:`VERB_CLASSES` whose cue ``sentence`` holds."""
    folded = fold_text(sentence, Level.SPACE)
    for name, pattern in _CLASSES:
        if pattern.search(folded):
            return name
    return "other"


def statement_language(sentence: str) -> str:
    """``en``, ``zh`` or ``mixed`` (see the module's note); ``en`` when it holds neither."""
    folded = fold_text(sentence, Level.SPACE)
    cjk, latin = bool(_CJK.search(folded)), bool(_LATIN_WORD.search(folded))
    if cjk and latin:
        return "mixed"
    return "zh" if cjk else "en"
