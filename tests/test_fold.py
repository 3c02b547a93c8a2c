"""memwarden_shared.text.fold: one fold with named levels, mapped back to the original offsets."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.contract.canonical import normalized_content_hash
from memwarden_shared.text.fold import (
    FoldFlag,
    Level,
    fold,
    fold_text,
    suppression_form,
    zh_numeral_value,
)
from tests.fold_strategies import respelled


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
    result = fold(text, Level.SCRIPT)
    assert result.text == folded
    assert result.flags == flags


@pytest.mark.parametrize(
    ("text", "level", "folded"),
    [
        ("Ｖim\u200b’s  Dark", Level.EXACT, "Ｖim\u200b’s  Dark"),
        ("Ｖim\u200b’s  Dark", Level.WIDTH, "Vim’s  Dark"),
        ("V\u0456m 編輯器", Level.WIDTH, "V\u0456m 編輯器"),  # Ukrainian і: a SCRIPT matter
        ("V\u0456m 編輯器", Level.SCRIPT, "Vim 编辑器"),
        ("Ｖim\u200b’s  Dark", Level.CASE, "vim's  dark"),
        (" Ｖim\u200b’s \t Dark\n", Level.SPACE, "vim's dark"),
        (" Ｖim\u200b’s \t Dark\n", Level.KEY, "vimsdark"),
        ("UTC+8 / 东八区", Level.KEY, "utc8东八区"),
    ],
)
def test_fold_text__each_level_folds_what_it_names(text: str, level: Level, folded: str) -> None:
    assert fold_text(text, level) == folded


def test_fold__a_span_in_folded_text_maps_to_the_original_characters() -> None:
    text = "key: s\u200be\u0441ret-ＶＡＬＵＥ end"
    f = fold(text, Level.SCRIPT)
    start = f.text.index("secret")
    end = start + len("secret-VALUE")
    o_start, o_end = f.span(start, end)
    assert text[o_start:o_end] == "s\u200be\u0441ret-ＶＡＬＵＥ"


@given(st.text(max_size=60), st.sampled_from(list(Level)))
def test_fold__origin_is_monotonic_in_range_and_matches_the_fast_path(
    text: str, level: Level
) -> None:
    f = fold(text, level)
    assert f.text == fold_text(text, level)
    assert len(f.origin) == len(f.text)
    assert list(f.origin) == sorted(f.origin)
    assert all(0 <= i < len(text) for i in f.origin)


_WORDS = st.sampled_from(
    ["I", "prefer", "dark", "mode", "Vim", "UTC+8", "don't", "深色", "编辑器", "东八区", "后来"]
)
_PHRASES = st.lists(_WORDS, min_size=1, max_size=5).map(" ".join)


@given(st.data(), _PHRASES, st.sampled_from(list(Level)[1:]))
def test_fold__each_level_also_equates_what_every_lower_level_equates(
    data: st.DataObject, phrase: str, level: Level
) -> None:
    """A respelling that ``level`` undoes is undone by every level above it too: the levels
    are nested, so a check at a higher level never tells apart what a lower one equates."""
    other = data.draw(respelled(phrase, level))
    for higher in Level:
        if higher >= level:
            assert fold_text(other, higher) == fold_text(phrase, higher), higher


# ------------------------------------------------------------- suppression (forget) hash


def _suppression_form_before_issue_20(text: str) -> str:
    """The recipe every stored suppression hash (and multi-valued claim key) was taken with,
    as it stood before issue 20 (commit d283273): SCRIPT, case-folded, politeness words
    dropped, numerals as digits, punctuation and space removed. Kept here as the reference
    that pins the hash."""
    polite = re.compile(
        r"\b(?:please|pls|plz|kindly|thanks|thank you|thx|cheers)\b"
        r"|谢谢(?:你|您)?|多谢|感谢|麻烦(?:你|您)?|拜托(?:你|您)?|劳驾|烦请"
        r"|请(?=记|帮|把|你|您|务必|一定|注意|留意|别|不要|以后|今后|将来|[，,、\s])|^请",
        re.IGNORECASE,
    )
    en = "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    en += "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
    en_numbers = {w: str(n) for n, w in enumerate(en.split(" "))}
    s = polite.sub(" ", fold_text(text, Level.SCRIPT).casefold())
    s = re.sub(r"[零〇一二两三四五六七八九十百千万]+", lambda m: str(zh_numeral_value(m[0])), s)
    s = re.sub(r"\b(?:" + "|".join(en_numbers) + r")\b", lambda m: en_numbers[m[0]], s)
    return re.sub(r"[\s\W_]+", "", s)


_CLAIM_PIECES = st.sampled_from(
    ["thank", "you", "please", "请", "记住", "three", "三", "十三", "楼", "’", "‘", "“", "”",
     "'", '"', " ", "  ", "\t", "\n", "Vim", "喜歡", ",", "。", "\u200b", "ｐ", "e\u0301"]
)  # fmt: skip


@given(st.one_of(st.text(max_size=40), st.lists(_CLAIM_PIECES, max_size=12).map("".join)))
def test_suppression_form__is_the_recipe_stored_hashes_were_taken_with(text: str) -> None:
    assert suppression_form(text) == _suppression_form_before_issue_20(text)


@pytest.mark.parametrize(
    ("text", "digest"),
    [  # sha256 values computed with the code of commit d283273
        (
            "I prefer dark mode, please.",
            "84b3c6c9d68157240c4877b7c15b1681666b5e28a77c0004bf08bb96bedae1a9",
        ),
        (
            "我最喜歡的編輯器是 vim",
            "70a2eb4994e53281b78cc39714d3bce4c2e2c2e07b8e08b5136282ca645646d8",
        ),
        (
            "Thank  you: my desk has THREE monitors",
            "4d090fb1263d114e214fea1c0b15f109d75b5385015847b6ff10df09a891f24b",
        ),
        (
            "  请记住我住在十三楼",
            "aead4402364406fe2c660a64212bc9388a812f289724bdd092fd818928357ded",
        ),
        (
            "ｐｎｐｍ ‘quoted’ “text”",
            "21eaaa59893886a50d7e33c1cc1a35073a71f015f39b6eccd70cef23a6937eb5",
        ),
    ],
)
def test_normalized_content_hash__unchanged_for_hashes_already_stored(
    text: str, digest: str
) -> None:
    assert normalized_content_hash(text) == digest
    assert hashlib.sha256(suppression_form(text).encode()).hexdigest() == digest


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
