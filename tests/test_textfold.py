"""memwarden_shared.text.textfold: one fold for every check, mapped back to the original offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.text.textfold import FoldFlag, fold, suppression_form, zh_numeral_value


@pytest.mark.parametrize(
    ("text", "folded", "flags"),
    [
        ("p\u0430ssword", "password", {FoldFlag.CONFUSABLE}),  # Cyrillic а
        ("ｐａｓｓ１２", "pass12", set()),  # full width: NFKC
        ("pass\u200bword", "password", {FoldFlag.INVISIBLE}),
        ("abc\u202edef\u202c", "abcdef", {FoldFlag.BIDI}),
        ("討厭深色模式", "讨厌深色模式", {FoldFlag.TRADITIONAL}),
        ("〇一二三", "〇一二三", set()),  # a Chinese zero is not the letter O
        ("café Zürich", "café Zürich", set()),
        ("I prefer pnpm", "I prefer pnpm", set()),
    ],
)
def test_fold__undoes_lookalike_spellings(text: str, folded: str, flags: set[FoldFlag]) -> None:
    result = fold(text)
    assert result.text == folded
    assert result.flags == flags


def test_fold__a_span_in_folded_text_maps_to_the_original_characters() -> None:
    text = "key: s\u200be\u0441ret-ＶＡＬＵＥ end"
    f = fold(text)
    start = f.text.index("secret")
    end = start + len("secret-VALUE")
    o_start, o_end = f.span(start, end)
    assert text[o_start:o_end] == "s\u200be\u0441ret-ＶＡＬＵＥ"
    assert f.to_original_offset(len(f.text)) == len(text)


@given(st.text(max_size=60))
def test_fold__origin_is_monotonic_and_in_range(text: str) -> None:
    f = fold(text)
    assert len(f.origin) == len(f.text)
    assert list(f.origin) == sorted(f.origin)
    assert all(0 <= i < len(text) for i in f.origin)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I have 3 monitors", "I have three monitors, please"),
        ("我有三台显示器", "我有3台显示器。谢谢"),
        ("我最喜歡的編輯器是 vim", "我最喜欢的编辑器是vim"),
        ("my test runner is pytest", "My test runner is pyt\u0435st!"),
        ("十三楼", "13楼"),
    ],
)
def test_suppression_form__same_claim_other_spelling(a: str, b: str) -> None:
    assert suppression_form(a) == suppression_form(b)


def test_suppression_form__keeps_what_changes_the_claim() -> None:
    assert suppression_form("I prefer pnpm") != suppression_form("I prefer npm")
    assert suppression_form("我有三台显示器") != suppression_form("我有两台显示器")
    assert suppression_form("申请表") != suppression_form("表")  # 请 inside a word stays


@pytest.mark.parametrize(
    ("numeral", "value"),
    [("三", 3), ("十三", 13), ("二十", 20), ("一二三", 123), ("两万零五", 20005)],
)
def test_zh_numeral_value(numeral: str, value: int) -> None:
    assert zh_numeral_value(numeral) == value
