"""How the rules read a sentence: chat spellings and English words inside Chinese. Pure.

:func:`reading_form` is the text the classifier and the extractor's routing match their cues
against: chat spellings of the words the cues name spelled out ("pls remember" reads as
"please remember", "u" as "you"), then :func:`code_switched`.

People who write Chinese at work switch to English for the words of their trade: "我的
timezone 是 …", "帮我 remember 一下", "I usually 用 yarn". The Chinese rules then miss the
key noun or the verb, and the English rules miss the rest. :func:`code_switched` rewrites,
for the classifier and the extractor's routing only, each English word of a small bilingual
table that stands next to a Chinese character (only spaces between), and then the words
next to those, so a run of English words inside Chinese is read whole ("I usually 用").

Values are never taken from the rewritten text: the extractor reads them from the sentence
as written and the gate grounds them there. An English word that touches no Chinese is left
alone, and so is a sentence with no Chinese grammar word (a Chinese name inside English is
a value, not a switch), so English sentences read as before.
"""

from __future__ import annotations

import re
from functools import lru_cache

# The words of the trade the rules key on: key nouns, stance verbs, frequency adverbs,
# group and decision words, the remember verb, the first person. Lower case; phrases first.
_TABLE: dict[str, str] = {
    "time zone": "时区",
    "timezone": "时区",
    "package manager": "包管理器",
    "dark mode": "深色模式",
    "light mode": "浅色模式",
    "dark theme": "深色主题",
    "light theme": "浅色主题",
    "editor": "编辑器",
    "ide": "编辑器",
    "theme": "主题",
    "remember": "记住",
    "note down": "记下",
    "always": "一直",
    "usually": "通常",
    "normally": "平时",
    "generally": "一般",
    "prefer": "偏好",
    "like": "喜欢",
    "use": "用",
    "using": "用",
    "reply": "回复",
    "replies": "回复",
    "respond": "回复",
    "answer": "回答",
    "in": "用",  # "回复 in English": the medium of a reply
    "team": "团队",
    "squad": "团队",
    "decision": "决定",
    "convention": "约定",
    "rule": "规定",
    "default": "默认",
    "name": "名字",
    "i": "我",
    "my": "我的",
    "we": "我们",
    "our": "我们的",
}
_HAN = re.compile(r"[\u4e00-\u9fff]")
# Chinese grammar: pronouns, particles, copula, the commonest verbs and adverbs. A sentence
# holding none of them is English with a Chinese name in it, not Chinese with English words.
_ZH_GRAMMAR = re.compile(
    r"[我你您咱的是了在都就也还把被给和跟请帮吗呢吧啊要会想说用很]|以后|一直|通常"
)
_WORD = re.compile(
    r"(?<![A-Za-z])(?:" + "|".join(re.escape(w) for w in _TABLE) + r")(?![A-Za-z])",
    re.IGNORECASE,
)
_SPACE_IN_CHINESE = re.compile(r"(?<=[\u4e00-\u9fff]) +(?=[\u4e00-\u9fff])")
_PASSES = 4  # a run of English words inside Chinese is read from its Chinese ends inwards


def _touches_han(text: str, start: int, end: int) -> bool:
    before = text[:start].rstrip(" ")
    after = text[end:].lstrip(" ")
    return bool(before and _HAN.match(before[-1])) or bool(after and _HAN.match(after[0]))


@lru_cache(maxsize=4096)
def code_switched(text: str) -> str:
    """``text`` with the table's English words that stand next to Chinese read in Chinese
    (see the module docstring); ``text`` itself when it holds no Chinese character."""
    if not _ZH_GRAMMAR.search(text):
        # no Chinese grammar word: an English sentence naming a Chinese thing ("I use 阿里云
        # now", "switched to 飞书") stays English
        return text
    for _ in range(_PASSES):
        changed = False
        out: list[str] = []
        last = 0
        for m in _WORD.finditer(text):
            if _touches_han(text, m.start(), m.end()):
                out += [text[last : m.start()], _TABLE[m.group().lower()]]
                last = m.end()
                changed = True
        if not changed:
            break
        text = "".join(out) + text[last:]
        # the spaces that set the English word apart now sit between Chinese words
        text = _SPACE_IN_CHINESE.sub("", text)
    return text


# Chat spellings of words the cues name, as whole words in any case: what they stand for
_CHAT_SPELLINGS = {"pls": "please", "plz": "please", "plse": "please", "u": "you", "ur": "your"}
_CHAT_SPELLING = re.compile(
    r"(?<![\w'])(?:" + "|".join(_CHAT_SPELLINGS) + r")(?![\w'])", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def reading_form(text: str) -> str:
    """``text`` as the rules read it (module docstring); values are never taken from it."""
    text = _CHAT_SPELLING.sub(lambda m: _CHAT_SPELLINGS[m.group().lower()], text)
    return code_switched(text)


_CHAT_PLEASE_LEAD = re.compile(r"(?:pls|plz|plse)\b[\s,]*", re.IGNORECASE)


def chat_please_lead(text: str) -> int:
    """The length of a chat spelling of "please" opening ``text`` (0 when none): offsets
    into the text as written skip it as they skip "please"."""
    m = _CHAT_PLEASE_LEAD.match(text)
    return m.end() if m else 0
