"""Whether a sentence is said in jest (SPEC §5.4 sarcasm). Pure.

Two marks, told apart because they weigh differently:

- **A joke declared**: the writer says it is not meant ("jk", "just kidding", "/s",
  "(not)", "开玩笑的", "才怪", "逗你的"), in the sentence or as the next sentence of the
  message on its own. The claim is not the owner's: not durable.
- **Laughter**: laughter words ("lol", "lmao", "haha", "哈哈", "2333") and the laughing,
  winking or teasing emoji. A claim said laughing may be meant or not, so the owner is
  asked; it is never committed alone.

The emoji come from the Unicode character database (their names), not a hand list: every
emoji whose name says it laughs, winks, sticks its tongue out, smirks or clowns.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# Words in a Unicode emoji name that make it laughter or teasing.
_LAUGHING_NAME_WORDS = (
    "TEARS OF JOY",
    "LAUGHING",
    "WINK",
    "STUCK-OUT TONGUE",
    "UPSIDE-DOWN FACE",
    "SMIRK",
    "CLOWN",
    "ZANY",
    "TIGHTLY-CLOSED EYES",
    "HAND COVERING MOUTH",
)
# The emoji blocks (Miscellaneous Symbols and Pictographs … Symbols and Pictographs
# Extended-A) and Miscellaneous Symbols / Dingbats.
_EMOJI_BLOCKS = (range(0x1F300, 0x1FB00), range(0x2600, 0x27C0))

# A negation before the word turns it around: "no kidding", "not joking", "不是开玩笑".
_DECLARED = re.compile(
    r"(?<![\w'])(?:jk|j/k)(?![\w'])"
    r"|(?<!\bno )(?<!\bnot )(?<!n't )\b(?:just |only )?(?:kidding|joking)\b(?! aside)"
    r"|(?:^|\s)/[sj](?=[\s.!?。！？]*$)"
    r"|\((?:not|jk|kidding|joking)\)"
    r"|(?<!不是)(?<!没)(?<!没有)(?<!别)(?:开(?:个|了个)?玩笑|说笑|逗你|骗你的|才怪|说反话|瞎说的)",
    re.IGNORECASE,
)
_LAUGHTER_WORDS = re.compile(
    r"(?<![\w'])(?:l+o+l+[sz]?|lmf?a+o+|rofl(?:mao)?|a?(?:ha){2,}h?|(?:he){2,}h?|xd+|kekw?)"
    r"(?![\w'])"
    r"|[:;]-?[pP](?![\w])|;-?\)"
    r"|哈{2,}|呵{2,}|嘿{2,}|嘻{2,}|(?<!\d)2333+(?!\d)",
    re.IGNORECASE,
)
# A sentence that is only the declaration ("jk", "Just kidding!", "开玩笑的哈哈").
_DECLARATION_ALONE_CHARS = 24


@cache
def laughing_emoji() -> frozenset[str]:
    """The laughing and teasing emoji of this Python's Unicode database."""
    return frozenset(
        chr(cp)
        for block in _EMOJI_BLOCKS
        for cp in block
        if any(w in unicodedata.name(chr(cp), "") for w in _LAUGHING_NAME_WORDS)
    )


def declared_joke(sentence: str) -> bool:
    """The writer says the sentence is not meant."""
    return bool(_DECLARED.search(sentence.strip()))


def declaration_alone(sentence: str) -> bool:
    """The sentence is a joke declaration and little else: it takes back the one before."""
    stripped = sentence.strip()
    return len(stripped) <= _DECLARATION_ALONE_CHARS and declared_joke(stripped)


def laughing(sentence: str) -> bool:
    """The sentence laughs: a laughter word or a laughing emoji."""
    if _LAUGHTER_WORDS.search(sentence):
        return True
    if sentence.isascii():
        return False
    emoji = laughing_emoji()
    return any(c in emoji for c in sentence)


__all__ = ["declaration_alone", "declared_joke", "laughing", "laughing_emoji"]
