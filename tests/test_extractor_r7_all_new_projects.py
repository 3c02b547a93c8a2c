"""A decision about all new projects is user-wide, not one project's (issue 25, round 7).

Mechanism: ``classifier.named_project`` reads "新项目" followed by a distributive quantifier
(都, 全都, 一律, 统统 …) as the class of the owner's new projects, each of them, so the gate's
``_project_scope_review`` asks for no project scope; "所有/每个新项目", "all my new projects"
and "every new project" were already general (``PROJECT_GENERIC``). Generated family: a
random lead in time, a random quantified form and a random tool of the tool catalogue, in
Chinese and English. Negative twin: the same decision about "新项目" with no quantifier (the
one new project) still needs a project scope, and a named project keeps its name.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_shared.text.classifier import named_project
from memwarden_shared.text.tool_catalogue import AMBIGUOUS_FORMS, ORDINARY_WORD_NAMES, TOOLS
from memwarden_usecases.explain import explain

TOOL_KEYS = sorted(
    (form, key)
    for key, tools in TOOLS.items()
    for forms in tools.values()
    for form in forms
    if form.isascii() and form.isalnum() and form not in AMBIGUOUS_FORMS | ORDINARY_WORD_NAMES
)
tool_keys = st.sampled_from(TOOL_KEYS)
ZH_LEAD = st.sampled_from(["我决定以后", "我以后", "以后我", "今后我", "我决定今后", "从现在起我"])
ZH_EVERY = st.sampled_from(["新项目都", "新项目全都", "新项目一律", "的新项目都"])
ZH_VERB = st.sampled_from(["用", "改用", "只用"])
ZH_END = st.sampled_from(["。", "！", ""])
EN_LEAD = st.sampled_from(
    ["From now on", "Going forward", "I decided that from now on", "From now"]
)
EN_EVERY = st.sampled_from(["all my new projects", "every new project of mine", "all new projects"])
EN_END = st.sampled_from([".", "!", ""])


def _outcomes(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(c.key, c.decision, c.reasons) for s in explain(text) for c in s.candidates]


@settings(max_examples=60, deadline=None)
@given(tool_keys, ZH_LEAD, ZH_EVERY, ZH_VERB, ZH_END, st.booleans())
def test_all_new_projects__zh_quantified_decision_is_user_wide(
    tool_key: tuple[str, str], lead: str, every: str, verb: str, end: str, space: bool
) -> None:
    tool, key = tool_key
    text = f"{lead}{every}{verb}{' ' if space else ''}{tool}{end}"
    assert named_project(text) is None, text
    outcomes = _outcomes(text)
    assert (key, "COMMIT") in [(k, d) for k, d, r in outcomes] or any(
        k == key and "unrecognised_token" in r for k, _, r in outcomes
    ), (text, outcomes)
    assert not any("project_scope_required" in r for _, _, r in outcomes), (text, outcomes)


@settings(max_examples=40, deadline=None)
@given(tool_keys, EN_LEAD, EN_EVERY, EN_END)
def test_all_new_projects__en_quantified_decision_is_user_wide(
    tool_key: tuple[str, str], lead: str, every: str, end: str
) -> None:
    tool, _ = tool_key
    text = f"{lead} {every} use {tool}{end}"
    assert named_project(text) is None, text
    assert not any("project_scope_required" in r for _, _, r in _outcomes(text)), text


@settings(max_examples=40, deadline=None)
@given(tool_keys, st.sampled_from(["我决定", "我决定以后", "以后我"]), ZH_VERB, ZH_END)
def test_all_new_projects__one_new_project_still_needs_its_scope(
    tool_key: tuple[str, str], lead: str, verb: str, end: str
) -> None:
    tool, _ = tool_key
    text = f"{lead}新项目{verb} {tool}{end}"  # no quantifier: the one new project
    outcomes = _outcomes(text)
    assert all(d != "COMMIT" for _, d, _ in outcomes), (text, outcomes)


@given(st.sampled_from(["atlas", "billing", "orion", "kestrel"]), ZH_VERB)
@settings(max_examples=20, deadline=None)
def test_all_new_projects__a_named_project_keeps_its_name(name: str, verb: str) -> None:
    assert named_project(f"在 {name} 项目里都{verb} pnpm。") == name
