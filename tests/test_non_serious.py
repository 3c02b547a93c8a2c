"""A claim said in jest never commits (text.non_serious), en and zh, through the extractor
and the gate's pure path (``explain``).

Mechanism: a declared joke ("jk", "(not)", "才怪", or a next sentence that only says so)
makes the sentence SARCASM, not durable; laughter (laughter words drawn from their
patterns, any laughing emoji of the Unicode database) makes it LAUGHTER, not durable
either (two blind sets labelled such claims as jokes to drop, not to ask about). Generated
family: remember-cue x verb x a word from wordfreq's top list, x a marker and a placement;
each claim is shown to commit without the marker first, so the family can fail.
"""

from __future__ import annotations

import unicodedata

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_shared.text.classifier import Feature, classify, classify_span
from memwarden_shared.text.non_serious import laughing_emoji
from memwarden_usecases.explain import explain

EN_WORDS = [w for w in top_n_list("en", 800) if w.isalpha() and w.isascii() and len(w) > 3]
ZH_WORDS = [w for w in top_n_list("zh", 800) if len(w) >= 2 and w.isalpha()]

EN_CLAIM = st.builds(
    lambda v, o: f"Remember that I {v} {o}",
    st.sampled_from(["like", "collect", "prefer", "always order"]),
    st.sampled_from(EN_WORDS),
)
ZH_CLAIM = st.builds(
    lambda v, o: f"记住，我{v}{o}",
    st.sampled_from(["喜欢", "收藏", "常买", "一直用"]),
    st.sampled_from(ZH_WORDS),
)

EN_DECLARED = [", jk", " (not)", " lol jk", ", just kidding", " /s"]
ZH_DECLARED = ["（才怪）", "，开玩笑的", "，逗你的", "，骗你的"]
EN_AFTER = ["Just kidding.", "jk!", "Only joking."]
ZH_AFTER = ["开玩笑的。", "逗你的。", "才怪。"]


def _laugh_word() -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda o: "l" + "o" * o + "l", st.integers(1, 4)),
        st.builds(lambda n: "ha" * n, st.integers(2, 5)),
        st.builds(lambda n: "哈" * n, st.integers(2, 6)),
        st.sampled_from(["lmao", "rofl", "xD", ":P"]),
        st.sampled_from(sorted(laughing_emoji())),
    )


def _commits(text: str) -> bool:
    return any(c.decision == "COMMIT" for s in explain(text) for c in s.candidates)


def _decisions(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.decision, c.reasons) for s in explain(text) for c in s.candidates]


FAMILY = settings(max_examples=60, deadline=None)


@FAMILY
@given(st.data())
def test_a_declared_joke_never_commits(data: st.DataObject) -> None:
    english = data.draw(st.booleans())
    claim = data.draw(EN_CLAIM if english else ZH_CLAIM)
    end = "." if english else "。"
    assume(_commits(claim + end))
    inline = data.draw(st.sampled_from(EN_DECLARED if english else ZH_DECLARED)) + end
    after = (" " if english else "") + data.draw(st.sampled_from(EN_AFTER if english else ZH_AFTER))
    for text in (claim + inline, claim + end + after):
        assert not _commits(text), (text, _decisions(text))


@FAMILY
@given(st.data())
def test_a_claim_said_laughing_is_not_kept(data: st.DataObject) -> None:
    english = data.draw(st.booleans())
    claim = data.draw(EN_CLAIM if english else ZH_CLAIM)
    assume(_commits(claim + ("." if english else "。")))
    laugh = data.draw(_laugh_word())
    # leading the sentence or after the claim: either way it is said in jest
    text = f"{laugh} {claim}" if data.draw(st.booleans()) else f"{claim} {laugh}"
    assert classify(text).has(Feature.LAUGHTER), text
    # declined by the extractor, or refused by the gate: never committed, never pending
    decisions = _decisions(text)
    assert all(d == "REJECT" for d, _ in decisions), (text, decisions)


@given(st.sampled_from(EN_WORDS), st.sampled_from(["No kidding", "I'm not joking", "不是开玩笑"]))
def test_saying_it_is_no_joke_is_no_joke(word: str, serious: str) -> None:
    assert not classify(f"{serious}, I like {word}.").has(Feature.SARCASM)


def _other_emoji() -> list[str]:
    faces = (chr(cp) for cp in range(0x1F600, 0x1F650))
    return [c for c in faces if unicodedata.name(c, "") and c not in laughing_emoji()]


@given(st.sampled_from(_other_emoji()), st.sampled_from(EN_WORDS))
def test_other_emoji_are_no_laughter(emoji: str, word: str) -> None:
    assert not classify(f"I like {word} {emoji}").has(Feature.LAUGHTER)


def test_the_catalogue_is_the_unicode_database() -> None:
    # names, not a hand list: the laughing face and the winking face are found by name
    assert {"\N{FACE WITH TEARS OF JOY}", "\N{WINKING FACE}"} <= laughing_emoji()
    assert "\N{THUMBS UP SIGN}" not in laughing_emoji()


def test_a_joke_declared_in_the_next_sentence_takes_back_only_the_one_before() -> None:
    text = "I like tea. I use vim. Just kidding."
    second = text.index("I use")
    assert classify_span(text, second, text.index(" Just")).has(Feature.SARCASM)
    assert not classify_span(text, 0, text.index(" I use")).has(Feature.SARCASM)
