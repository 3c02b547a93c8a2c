"""The registry's alias lookup and grounding read one fold (issue 20), so they agree.

Before issue 20 the registry folded NFKC + case only while grounding also mapped traditional
Chinese to simplified: a traditional alias resolved in one and not the other. Here every
alias and canonical value of every registry key (the language table's forms included) is
respelled the ways the fold undoes (full width, case, homoglyphs, traditional characters,
invisible and bidi characters, whitespace runs), and both must see the form as written.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.contract.registry import KeySpec, default_registry
from memwarden_shared.detect.grounding import ungrounded_reason
from memwarden_shared.text.fold import Level, fold_text
from tests.fold_strategies import respelled

_ANCHOR = dt.datetime(2026, 3, 4, 12, tzinfo=dt.UTC)
_FORMS = [
    (spec, canonical, form)
    for spec in default_registry().keys.values()
    for canonical, forms in spec.aliases.items()
    for form in [canonical, *forms]
]
_FRAMES = ["{}", "I use {}.", "我用{}。", "My choice is {} now"]


def test_forms__every_registry_key_with_aliases_is_covered() -> None:
    keys = {spec.normalized_key for spec, _, _ in _FORMS}
    assert "preference.language" in keys  # the language table's forms
    assert len(_FORMS) > 300


@given(st.data(), st.sampled_from(_FORMS), st.sampled_from(_FRAMES))
def test_alias_lookup_and_grounding__fold_a_respelled_form_to_the_same_key(
    data: st.DataObject, entry: tuple[KeySpec, str, str], frame: str
) -> None:
    spec, canonical, form = entry
    other = data.draw(respelled(form, Level.SPACE))
    # the key both read
    assert fold_text(other, Level.SPACE) == fold_text(form, Level.SPACE)
    # the registry resolves the respelling to the form's canonical value
    assert spec.canonical(form) == canonical
    assert spec.canonical(other) == canonical
    # grounding finds the canonical value in a sentence that says the respelling exactly
    # when it finds it in one that says the form
    plain, respelt = frame.format(form), frame.format(other)
    expected = ungrounded_reason(canonical, plain, spec, _ANCHOR)
    assert ungrounded_reason(canonical, respelt, spec, _ANCHOR) == expected
