"""The shared segmenter (SPEC §5.3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.text.segmenter import is_complete_utterance, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I prefer pnpm. My npm token is secret.", ["I prefer pnpm.", "My npm token is secret."]),
        (
            "谢谢你刚才的帮助。我写代码更喜欢用 Vim。我们继续吧。",
            ["谢谢你刚才的帮助。", "我写代码更喜欢用 Vim。", "我们继续吧。"],
        ),
        ("Use v1.2 today, e.g. now. Done?! Yes.", ["Use v1.2 today, e.g. now.", "Done?!", "Yes."]),
        (
            "Pi is 3.14 and the site is example.com. Next.",
            ["Pi is 3.14 and the site is example.com.", "Next."],
        ),
        ("line one\nline two", ["line one", "line two"]),
        ("a; b", ["a;", "b"]),
        (
            "我不喜欢深色模式。请记住，我的时区是 Asia/Shanghai。",
            ["我不喜欢深色模式。", "请记住，我的时区是 Asia/Shanghai。"],
        ),
        ('He said "hi." Then left.', ['He said "hi."', "Then left."]),
        ("   padded.   ", ["padded."]),
    ],
)
def test_split_sentences__cuts_where_the_spec_says(text: str, expected: list[str]) -> None:
    assert [s.text for s in split_sentences(text)] == expected


def test_is_complete_utterance__refuses_fragments_and_splices() -> None:
    text = "I do not prefer dark mode."
    assert is_complete_utterance(text, 0, len(text))
    start = text.index("prefer dark mode")
    assert not is_complete_utterance(text, start, len(text))
    two = "My team standardised on yarn. I prefer it too."
    assert not is_complete_utterance(two, 0, len(two))


@given(st.text(alphabet=st.sampled_from(list("ab 。.!?,\n我好")), max_size=40))
def test_split_sentences__offsets_slice_back_to_the_text(text: str) -> None:
    for s in split_sentences(text):
        assert text[s.start : s.end] == s.text
        assert s.text == s.text.strip()
        assert s.text
