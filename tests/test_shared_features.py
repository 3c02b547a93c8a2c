"""``embedding.shared_features`` (recall's value overlap) equals the intersection of the two
feature sets it avoids building, on any text: words with ``.``, ``-``, ``#``, digits, CJK."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_shared.text.embedding import features, shared_features

ALPHABET = "ab c#.-_+9 Zé中文编辑器用喜欢我,，。\u3400\uf900"
texts = st.text(alphabet=ALPHABET, max_size=40)


@settings(max_examples=600, deadline=None)
@given(texts, texts)
def test_shared_features__equals_the_set_intersection(query: str, value: str) -> None:
    q = frozenset(features(query))
    assert shared_features(q, value) == len(q & set(features(value)))


def test_shared_features__on_real_values() -> None:
    pairs = [
        ("which editor do I use", '"vim"'),
        ("what language should replies be in", '"en-GB British English 英式英语"'),
        ("我用什么编辑器", '"Vim 编辑器"'),
        ("c# or f#", '"C# .NET"'),
        ("node.js version", '"node.js-18"'),
    ]
    for query, value in pairs:
        q = frozenset(features(query))
        assert shared_features(q, value) == len(q & set(features(value)))
