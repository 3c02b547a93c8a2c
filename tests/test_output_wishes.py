"""A wish about how the assistant's output looks is the owner's communication style, by its
structure, not by a list of style words (routes._shapes_output): the assistant's output named
or one of its acts as the condition, and a wish or an imperative about it. Generated over
presentation words none of which is in the style-word list; the negative twins name an act
that is no output, or ask for one answer only."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_usecases.explain import explain

# Things an answer may hold, none of them in the router's style-word list; an invented word
# would be an unrecognised token, asked for by design (deny by default)
_WORD = st.sampled_from(
    ["chart", "diagram", "headline", "checklist", "timeline", "glossary", "quote", "link",
     "footnote", "heading", "caption", "sketch", "outline", "recap", "rating", "table"]
)  # fmt: skip
_ZH_FORM = st.sampled_from(["表格", "列表", "条列式", "分点", "图示", "小标题"])


def _decided(text: str) -> list[tuple[str, str]]:
    return [(c.key, c.decision) for s in explain(text) for c in s.candidates]


@settings(max_examples=60, deadline=None)
@given(
    _WORD,
    st.sampled_from(
        [
            "Always put a {w} at the top of your answers.",
            "I like a {w} whenever you compare options.",
            "I prefer a {w} every time you explain something.",
            "Please always include a {w} in your replies.",
            "跟我说话随意一点，我喜欢{z}的语气。",
            "比较方案的时候请用{z}。",
            "回答的时候请用{z}。",
            "解释代码时都给{z}。",
        ]
    ),
    _ZH_FORM,
)
def test_a_standing_wish_about_the_output_is_the_communication_style(
    word: str, template: str, form: str
) -> None:
    text = template.format(w=word, z=form)
    assert ("preference.communication_style", "COMMIT") in _decided(text), text


@settings(max_examples=40, deadline=None)
@given(
    _WORD,
    st.sampled_from(
        [
            "I like a {w} whenever you mention Italy.",
            "Put the {w} at the top of this answer.",
            "I like a {w} when my sister visits.",
            "妹妹来的时候我喜欢{z}。",
        ]
    ),
    _ZH_FORM,
)
def test_no_output_act_or_one_answer_only_is_no_style(word: str, template: str, form: str) -> None:
    text = template.format(w=word, z=form)
    assert ("preference.communication_style", "COMMIT") not in _decided(text), text


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["深色模式", "浅色主题", "大字体"]),
    st.sampled_from(["写代码", "写程序", "看文档", "比较方案"]),
)
def test_the_owners_own_act_as_condition_is_no_style(thing: str, act: str) -> None:
    # no subject before the act, and no imperative to the assistant: the act is the owner's
    text = f"我比较喜欢{thing}，尤其是晚上{act}的时候。"
    assert ("preference.communication_style", "COMMIT") not in _decided(text), text
