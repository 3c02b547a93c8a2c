"""One value per fact within one message (issue 25 item 2, mechanism:
``rules.one_value_per_fact``): when two sentences of one message state a single-valued key,
the later one refines the earlier and only it is proposed, so the gate never parks the
owner's own message as a pending replacement. Generated over the registry's catalogue of
package managers and themes, sentence templates in English and Chinese, and filler
sentences between; multi-valued notes keep every claim."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.extract_helpers import REGISTRY, proposed

_MANAGERS = REGISTRY.get("preference", "preference.package_manager").value["values"]  # type: ignore[union-attr]
_FIRST = ["I use {v}.", "我用 {v}。", "I prefer {v} for my projects."]
_LATER = ["Actually, I use {v} for all my projects.", "其实所有项目我都用 {v}。"]
_FILLER = ["", "Thanks a lot! ", "好的。"]


@settings(max_examples=60, deadline=None)
@given(
    first=st.sampled_from(_MANAGERS),
    later=st.sampled_from(_MANAGERS),
    a=st.sampled_from(_FIRST),
    b=st.sampled_from(_LATER),
    filler=st.sampled_from(_FILLER),
)
def test_the_later_sentence_of_a_message_refines_a_single_valued_key(
    first: str, later: str, a: str, b: str, filler: str
) -> None:
    text = a.format(v=first) + " " + filler + b.format(v=later)
    assert proposed(text) == [("preference.package_manager", later)]


@settings(max_examples=30, deadline=None)
@given(
    words=st.lists(
        st.text(alphabet="bcdfghjkmnpqrstvwxz", min_size=4, max_size=8),
        min_size=2,
        max_size=2,
        unique=True,
    )
)
def test_notes_of_one_message_are_all_kept(words: list[str]) -> None:
    one, two = (f"I review {w} pull requests only after lunch" for w in words)
    text = f"Remember that {one}. Also remember that {two}."
    assert proposed(text) == [("preference.note", one), ("preference.note", two)]
