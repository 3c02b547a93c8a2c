""" "I'm a <Tool> user" / "我是 <Tool> 用户" names the tool's catalogue key (issue 25, round 7).

Mechanism (already in place before round 7; this file pins it): ``routes.ROLE_AFTER`` reads
"<name> user / fan / 用户 / 党" as the owner's role for that name, and the routers look the
name up in the tool catalogue (``text.tool_catalogue.TOOLS``) and the registry's editors and
package managers, so the value is the tool's key (``preference.editor``,
``preference.package_manager``, ``preference.shell`` …) and a later different tool is a
replacement the gate can see. Generated family: every unambiguous tool name, random
qualifiers and punctuation, English and Chinese. Negative twin: a noun from wordfreq's top
list that no catalogue holds ("I'm a teacher") never becomes a tool key.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_shared.contract.registry import default_registry
from memwarden_shared.detect.sensitive import sensitive_categories
from memwarden_shared.text.stance import tool_names
from memwarden_shared.text.tool_catalogue import AMBIGUOUS_FORMS, ORDINARY_WORD_NAMES, TOOLS
from memwarden_usecases.explain import explain

_PLAIN = AMBIGUOUS_FORMS | ORDINARY_WORD_NAMES
_TOOL_KEYS = {key for key in TOOLS} | {"preference.editor", "preference.package_manager"}


def _one_or_two_words(form: str) -> bool:
    """A name of one or two plain words ("vim", "sublime text")."""
    parts = form.split()
    return form.isascii() and 1 <= len(parts) <= 2 and all(p.isalnum() for p in parts)


def _tool_keys() -> list[tuple[str, str]]:
    found = {
        (form, key)
        for key, tools in TOOLS.items()
        for forms in tools.values()
        for form in forms
        if _one_or_two_words(form) and form not in _PLAIN
    }
    registry = default_registry()
    for key in ("preference.editor", "preference.package_manager"):
        spec = registry.get("preference", key)
        assert spec is not None
        for canonical in list(spec.value.get("values", ())) or list(spec.aliases):
            found |= {
                (form, key)
                for form in spec.surface_forms(canonical)
                if _one_or_two_words(form) and form not in _PLAIN
            }
    return sorted(found)


EN_FORMS = st.sampled_from(
    ["I'm a {} user", "I am a {} user", "I'm a longtime {} user", "Honestly, I'm a {} user"]
)
ZH_FORMS = st.sampled_from(["我是 {} 用户", "我是{}的用户", "我是 {} 重度用户", "我是{}老用户"])
_NOUNS = [
    w
    for w in top_n_list("en", 3000)[300:]
    if w.isalpha() and w.isascii() and len(w) > 3 and w not in tool_names()
    and not sensitive_categories(w)
]  # fmt: skip


def _kept_keys(text: str) -> list[str]:
    return [
        c.key
        for s in explain(text)
        for c in s.candidates
        if c.decision == "COMMIT" or "unrecognised_token" in c.reasons
    ]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(_tool_keys()), st.booleans(), EN_FORMS, ZH_FORMS, st.sampled_from(".!。"))
def test_tool_user__names_the_tool_key(
    tool_key: tuple[str, str], english: bool, en: str, zh: str, end: str
) -> None:
    tool, key = tool_key
    text = (en if english else zh).format(tool) + end
    assert key in _kept_keys(text), text


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_NOUNS), EN_FORMS)
def test_tool_user__a_word_no_catalogue_holds_is_no_tool(noun: str, form: str) -> None:
    text = form.replace(" user", "").format(noun) + "."  # "I'm a teacher."
    assert not set(_kept_keys(text)) & _TOOL_KEYS, text
