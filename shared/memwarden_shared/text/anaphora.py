"""Whether a free-text value only points at something said elsewhere. Pure.

"Remember those for the form", "你记下来，下次直接填": the note's object is a pronoun or a
demonstrative standing alone ("those", "that", "it", "这些", "上面的"), so what is to be
kept is in another sentence, another turn or a pasted block, and the value holds nothing
of it. Such a value is not grounded in its evidence, whatever that other text was (a
secret masked there is the dangerous case). A demonstrative before a noun ("this project
uses pnpm") names its thing and is not matched.

A value that starts with what a remember-cue left behind ("来，…" of "记下来") or with
punctuation is the same: the cue swallowed the head, nothing grounded is left.
"""

from __future__ import annotations

import re

from memwarden_shared.text.fold import Level, fold_text

# Words that cannot start the noun of a demonstrative: after a pronoun they leave it alone
# ("those for the form", "that down"); a value of only these holds nothing ("for later").
FUNCTION_WORDS = frozenset(("for", "down", "somewhere", "please", "later", "next", "so",
    "too", "also", "from", "to", "when", "because", "case", "and", "or", "then", "ok", "okay",
    "thanks", "pls", "plz", "again", "safe", "now", "there", "here", "with", "by", "until",
    "at", "on", "in", "time", "me", "us", "the", "a", "an", "it", "that", "this", "those",
    "these", "them", "they", "same", "above", "all", "of", "everything", "as", "well"))  # fmt: skip
_POINTER = (
    r"(?:it|that|this|those|these|them|they|all (?:of )?(?:it|that|this|those|these|them)"
    r"|the above|above|everything|the same|same)"
)
_EN = re.compile(rf"^{_POINTER}(?=\s*$|\s*[.,;:!?]|\s+(?:{'|'.join(sorted(FUNCTION_WORDS))})\b)")
_PREPOSITIONS = frozenset(("for", "from", "with", "by", "until", "at", "on", "in", "down"))
_CUE_POINTER_PREPOSITION = re.compile(
    r"\b(?:remember|note|keep in mind|forget|save|store|write down|keep)\s+"
    r"(?:that|this|it|those|these|them)\s+(?:for|from|with|by|until|at|on|in|down)\b"
)
_WORD = re.compile(r"[a-z']+|[^\sa-z]")
_ZH = re.compile(
    r"^(?:这些|那些|这几个|那几个|这两个|那两个|这个|那个|这|那|它们|它|上面的?|以上的?|刚才的?"
    r"|前面的?|下面的?|这里的?|那里的?)(?=$|[，,。.！!；;：:、\s]|都|也|下来|一下|吧|啊|哦|呢)"
)
# A demonstrative with a measure word and no noun is a pronoun wherever it stands ("以后
# 都用这套", "上面那个是…的密码"); so is one with a dummy noun ("use that one", "keep these
# ones"), or a head that points back ("上面那个", "the one above").
_ZH_DUMMY = re.compile(
    r"(?:这|那)(?:几|两|一)?(?:个|套|些|种|件|条|份|组|串|段)"
    r"(?=$|[，,。.！!；;?？]|吧|了|呢|啊|哦|就|都|也|是)"
    r"|^(?:上面|上述|以上|前面|刚才|之前)(?:那|这)?(?:个|些|套|条|段)?(?:的|是)"
)
_EN_DUMMY = re.compile(
    r"\b(?:this|that|these|those)\s+(?:one|ones|stuff|thing|things|lot|set|pair|combo|bunch)"
    r"(?=\s*$|\s*[.,;:!?]|\s+(?:above|again|from|for|now|too|as well|please|is|are|was)\b)"
    r"|\bthe\s+(?:one|ones|stuff|thing|things)\s+(?:above|before|earlier)\b"
)
# A value that is a demonstrated thing to keep points at that thing ("remember that card",
# "我上次发给你的那个附件"); a scope is none ("for this session"), nor a time ("these days").
NOT_THINGS = ("day", "days", "time", "times", "week", "weeks", "month", "months", "year",
    "years", "morning", "evening", "weekend", "way", "much", "many", "often", "long", "point",
    "moment", "one", "ones")  # fmt: skip
_EN_TRAILING_THING = re.compile(
    r"\b(?:remember|keep|save|store|note|memori[sz]e|write down)\s+"
    rf"(?:that|this|those|these)\s+(?!(?:{'|'.join(NOT_THINGS)})\b)[a-z][\w-]*"
    r"(?:\s+[a-z][\w-]*)?[\s.!?]*$"
)
_ZH_TRAILING_THING = re.compile(
    r"(?:^|^[^，,。；;]*的)(?:这|那)(?:个|张|份|些|条|套|段|组|串|件|几个|两个)(?!时候|阵子|段时间|些年|几天)"
    r"[\u4e00-\u9fff]{1,4}[。！!]?$"
)
# a remember-cue's last character left at the head ("来" of "记下来"), before punctuation,
# a pointer or nothing
_ZH_CUE_REMNANT = re.compile(r"^[来住着](?=$|[，,。.！!；;\s]|这|那|它|上面|以上|刚才|前面)")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|we|we're|our|us)\b|我")
_PUNCTUATION_HEAD = re.compile(r"^[\W_]", re.UNICODE)


def refers_elsewhere(value: str, span: str | None = None) -> bool:
    """The value's head points outside its sentence and holds nothing itself; with the
    evidence ``span``, also a value left after a cue whose object was a pointer."""
    folded = fold_text(value, Level.SPACE).strip()
    if not folded:
        return True
    words = _WORD.findall(folded.strip(".,;:!? "))
    if all(w in FUNCTION_WORDS for w in words):
        return True  # "for later", "down please": only what is said around a pointer
    # "Remember that for the tax form": the pointer was read as "remember that …"; a phrase
    # that leads into a claim names its owner ("… that on Fridays I work late")
    if (
        span is not None
        and words[0] in _PREPOSITIONS
        and not _FIRST_PERSON.search(folded)
        and _CUE_POINTER_PREPOSITION.search(fold_text(span, Level.SPACE))
    ):
        return True
    remnant = _ZH_CUE_REMNANT.match(folded)
    if remnant and not _FIRST_PERSON.search(folded, remnant.end()):
        # "你记下来，下次直接填": the cue's object is what came before; "记下来，我的周报…"
        # goes on with the owner's own claim
        return True
    if _ZH_DUMMY.search(folded) or _EN_DUMMY.search(folded):
        return True
    if _EN_TRAILING_THING.search(folded) or _ZH_TRAILING_THING.search(folded):
        return True
    return bool(_EN.match(folded) or _ZH.match(folded) or _PUNCTUATION_HEAD.match(folded))
