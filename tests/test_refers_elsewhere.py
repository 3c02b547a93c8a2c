"""A remembered value that only points elsewhere ("those", "上面的", a cue's leftover)
never commits (text.anaphora, grounding ``refers_elsewhere``), en and zh.

What it points at may be a secret masked in the sentence before, so the family puts a
random account number there. Generated: remember-cue x pronoun x tail (a word from
wordfreq's top list), through the extractor and the gate's pure path (``explain``); and
the converse: a demonstrative before its noun still names its thing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_shared.text.anaphora import FUNCTION_WORDS, NOT_THINGS, refers_elsewhere
from memwarden_usecases.explain import explain

EN_NOUNS = [
    w
    for w in top_n_list("en", 1500)
    if w.isalpha()
    and w.isascii()
    and len(w) > 3
    and w not in FUNCTION_WORDS
    # dummy nouns point elsewhere themselves ("this stuff", "that one")
    and w not in {"stuff", "thing", "things", "ones", "bunch", "combo", "pair"}
]
ZH_WORDS = [w for w in top_n_list("zh", 1500) if len(w) >= 2 and w.isalpha()]

EN_CUES = ["Remember", "Please remember", "Don't forget", "Keep in mind", "Note", "Remember:"]
EN_POINTERS = ["those", "these", "that", "this", "it", "them", "the above", "all of that"]
EN_TAILS = ["", " for later", " for the {w} form", " please", " down", " for next time"]
ZH_CUES = ["记住", "你记下来", "帮我记一下", "记着", "别忘了"]
# a pronoun standing as the object or the subject, the remember-cue at the end
EN_AT_END = ["Use {p} from now on, remember that", "{p} is my {w} login, keep it in mind"]
ZH_AT_END = ["以后都用{p}，记好", "上面{p}是我{w}的密码，记着吧"]
EN_DUMMIES = ["that one", "this one", "these ones", "that stuff", "this set", "the one above"]
ZH_DUMMIES = ["这套", "那个", "这些", "那几个", "这组"]
ZH_POINTERS = ["这些", "那些", "上面的", "它", "这个", "刚才的"]
ZH_TAILS = ["", "，下次{w}直接填", "，以后用", "，{w}的时候要用"]

EN = st.builds(
    lambda c, p, t, w: f"{c} {p}{t.format(w=w)}.",
    st.sampled_from(EN_CUES),
    st.sampled_from(EN_POINTERS),
    st.sampled_from(EN_TAILS),
    st.sampled_from(EN_NOUNS),
)
ZH = st.builds(
    lambda c, p, t, w: f"{c}{p}{t.format(w=w)}。",
    st.sampled_from(ZH_CUES),
    st.sampled_from(ZH_POINTERS),
    st.sampled_from(ZH_TAILS),
    st.sampled_from(ZH_WORDS),
)
EN_END = st.builds(
    lambda t, p, w: t.format(p=p, w=w) + ".",
    st.sampled_from(EN_AT_END),
    st.sampled_from(EN_DUMMIES),
    st.sampled_from(EN_NOUNS),
)
ZH_END = st.builds(
    lambda t, p, w: t.format(p=p, w=w) + "。",
    st.sampled_from(ZH_AT_END),
    st.sampled_from(ZH_DUMMIES),
    st.sampled_from(ZH_WORDS),
)
ACCOUNT = st.text("0123456789", min_size=10, max_size=17)


@settings(max_examples=80, deadline=None)
@given(
    st.one_of(
        st.one_of(EN, EN_END).map(lambda s: ("en", s)),
        st.one_of(ZH, ZH_END).map(lambda s: ("zh", s)),
    ),
    ACCOUNT,
)
def test_a_value_that_points_elsewhere_never_commits(case: tuple[str, str], account: str) -> None:
    lang, pointer = case
    before = f"Account number {account}. " if lang == "en" else f"收款账号：{account}。"
    text = before + pointer
    decided = [(c.key, c.value, c.decision) for s in explain(text) for c in s.candidates]
    assert all(d != "COMMIT" for _, _, d in decided), (text, decided)
    assert all(account not in str(v) for _, v, _ in decided)


@given(
    st.sampled_from(["this", "that", "these", "those"]),
    st.sampled_from(EN_NOUNS),
    st.sampled_from(["is my favourite", "works best for me", "matters to me"]),
)
def test_a_demonstrative_before_its_noun_names_its_thing(det: str, noun: str, rest: str) -> None:
    assert not refers_elsewhere(f"{det} {noun} {rest}")


@given(
    st.sampled_from(["the", "a", "my", "our"]),
    st.sampled_from(EN_NOUNS),
    st.sampled_from(["", " on weekends", " for work"]),
)
def test_a_noun_phrase_or_a_clause_is_no_pointer(det: str, noun: str, rest: str) -> None:
    assert not refers_elsewhere(f"{det} {noun}{rest}")
    assert not refers_elsewhere(f"on weekends I {noun}{rest}")


@given(st.sampled_from(["这个", "那些", "这两个"]), st.sampled_from(ZH_WORDS))
def test_a_chinese_demonstrative_before_its_noun_names_its_thing(det: str, word: str) -> None:
    # "这个项目用 pnpm": the noun follows at once
    if word[0] not in "都也下一吧啊哦呢是就了这那":
        assert not refers_elsewhere(f"{det}{word}我一直用")


TIME_WORDS = ["days", "time", "week", "year", "morning", "weekend"]


@given(
    st.sampled_from(["Remember", "perfect, remember", "Please keep", "ok save"]),
    st.sampled_from(["that", "this", "those", "these"]),
    st.sampled_from([n for n in EN_NOUNS if n not in NOT_THINGS]),
)
def test_a_value_ending_on_a_demonstrated_thing_points_at_it(cue: str, det: str, noun: str) -> None:
    assert refers_elsewhere(f"{cue} {det} {noun}")


@given(
    st.sampled_from(["那个", "这份", "那张", "这几个"]),
    st.sampled_from(
        [
            w
            for w in ZH_WORDS
            if all("\u4e00" <= c <= "\u9fff" for c in w) and not {"天", "时", "阵", "年"} & set(w)
        ]
    ),
)
def test_a_chinese_value_ending_on_a_demonstrated_thing_points_at_it(det: str, word: str) -> None:
    assert refers_elsewhere(f"我上次发给你的{det}{word[:4]}")


@given(st.sampled_from(["these", "this", "that"]), st.sampled_from(TIME_WORDS))
def test_time_words_are_no_pointers(det: str, when: str) -> None:
    assert not refers_elsewhere(f"I mostly use neovim {det} {when}")


@given(st.sampled_from(["this session", "this hotfix", "this project", "this repo"]))
def test_a_demonstrated_scope_is_no_pointer(scope: str) -> None:
    assert not refers_elsewhere(f"Use npm for {scope}")
    assert not refers_elsewhere(f"这次用 npm，只在这个{scope[5:]}里")
