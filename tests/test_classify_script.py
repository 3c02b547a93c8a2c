"""The sentence classifier reads traditional and simplified Chinese as one language: every
rule sees a simplified copy, one character for one (text.fold.simplified), so a sentence
respelled in traditional characters gets exactly the features of its simplified form, and
offsets into it (``claim_offset``) stay the same.

Two families: the Chinese sentences of the classifier's own regression corpus, and a
generated family (cue × subject × verb × object, third parties among the subjects).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from opencc import OpenCC

from memwarden_shared.text.classifier import claim_offset, classify, context_features
from tests.fold_strategies import traditional as _traditional

_T2S = OpenCC("t2s")
_CORPUS = Path(__file__).parent / "classify" / "classify_cases.jsonl"


@st.composite
def traditional_spelling(draw: st.DrawFn, text: str) -> str:
    """``text`` with any of its characters that have a traditional form respelled."""
    return "".join((_traditional(c) or c) if draw(st.booleans()) else c for c in text)


@cache
def _corpus_sentences() -> list[str]:
    out = []
    for line in _CORPUS.read_text("utf-8").splitlines():
        case = json.loads(line)
        if case["lang"] == "zh":
            out += [s["turn"]["text"] for s in case["steps"] if "turn" in s]
    return out


_CUES = ["", "记住，", "帮我记一下：", "请务必记住", "别忘了，"]
_SUBJECTS = ["我", "我同事", "我室友", "我们团队", "我老板", "我妈", "我邻居"]
_VERBS = ["喜欢", "只喝", "习惯用", "讨厌", "一直用", "不吃", "最爱"]
_OBJECTS = ["无糖的饮料", "深色模式", "绿茶", "机械键盘", "简体中文回复", "辣的菜"]


def _zh_sentence() -> st.SearchStrategy[str]:
    parts = st.tuples(*(st.sampled_from(x) for x in (_CUES, _SUBJECTS, _VERBS, _OBJECTS)))
    return parts.map(lambda p: "".join(p) + "。")


def _simplified(text: str) -> str:
    return "".join(_T2S.convert(c)[:1] or c for c in text)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_traditional_spelling_has_the_features_of_the_simplified_one(data: st.DataObject) -> None:
    sentence = data.draw(st.one_of(_zh_sentence(), st.sampled_from(_corpus_sentences())))
    simple = _simplified(sentence)
    respelled = data.draw(traditional_spelling(simple))
    assert classify(respelled).features == classify(simple).features, (simple, respelled)
    assert claim_offset(respelled) == claim_offset(simple)
    end = len(respelled)
    assert context_features(respelled + respelled, end) == context_features(simple + simple, end)


def test_the_families_hold_traditional_characters_at_all() -> None:
    # the property above proves nothing if no character had a traditional form
    respellable = [s for s in _corpus_sentences() if any(_traditional(c) for c in s)]
    assert len(respellable) >= 20
    assert any(_traditional(c) for c in "".join(_OBJECTS + _VERBS))
