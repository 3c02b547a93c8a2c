"""A concessive clause does not make a reply-language rule conditional (issue 25, round 7).

Mechanism: the language router (``routes.language``) blanks each concessive clause ("even
when / even if / even though / no matter if …", "即使 / 哪怕 / 就算 / 无论 …", up to its
clause's end) before it reads the language: the clause names the situation the rule
overrides, so the language it names is not the one asked for, and the rule still holds
always. Generated family: two different plain languages of the registry's
``preference.language`` catalogue, random instruction and concessive wordings, placements
and punctuation, English and Chinese. Negative twin: the same two languages joined by "when"
or "if" (a real condition) commit nothing.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memwarden_shared.contract.registry import default_registry
from memwarden_usecases.explain import explain

_FOUND = default_registry().get("preference", "preference.language")
assert _FOUND is not None
_SPEC = _FOUND
# "fr French 法语" -> ("French", "法语"): plain languages only, variants have a region tag
_LANGUAGES = sorted(
    (c.split()[1], c.split()[-1])
    for c in _SPEC.aliases
    if "-" not in c.split()[0] and len(c.split()) == 3
)
pairs = st.tuples(st.sampled_from(_LANGUAGES), st.sampled_from(_LANGUAGES)).filter(
    lambda p: p[0] != p[1]
)
EN_RULE = st.sampled_from(
    ["Always answer in", "Please always reply in", "From now on reply in", "Always respond in"]
)
EN_CONCESSIVE = st.sampled_from(
    ["even when I write in", "even if I ask in", "even though I type in", "no matter if I write in"]
)
EN_JOIN = st.sampled_from([", ", " ", " — ", "; "])
EN_END = st.sampled_from([".", "!", ""])
ZH_RULE = st.sampled_from(["请一直用{}回答", "以后都用{}回复我", "请始终用{}回答我"])
ZH_CONCESSIVE = st.sampled_from(["即使我用{}提问", "哪怕我用{}问", "就算我用{}写", "无论我用{}问"])
ZH_END = st.sampled_from(["。", "！", ""])


def _languages(text: str) -> list[tuple[str, str]]:
    return [
        (c.decision, str(c.value))
        for s in explain(text)
        for c in s.candidates
        if c.key == "preference.language"
    ]


@settings(max_examples=60, deadline=None)
@given(pairs, EN_RULE, EN_CONCESSIVE, EN_JOIN, EN_END)
def test_concessive__en_rule_keeps_the_first_language(
    pair: tuple[tuple[str, str], tuple[str, str]], rule: str, concession: str, join: str, end: str
) -> None:
    (asked, _), (other, _) = pair
    text = f"{rule} {asked}{join}{concession} {other}{end}"
    assert _languages(text) == [("COMMIT", _SPEC.canonical(asked))], text


@settings(max_examples=60, deadline=None)
@given(pairs, ZH_RULE, ZH_CONCESSIVE, st.booleans(), ZH_END)
def test_concessive__zh_rule_keeps_the_asked_language(
    pair: tuple[tuple[str, str], tuple[str, str]],
    rule: str,
    concession: str,
    concession_first: bool,
    end: str,
) -> None:
    (_, asked), (_, other) = pair
    ask, despite = rule.format(asked), concession.format(other)
    text = f"{despite}，也{ask}{end}" if concession_first else f"{ask}，{despite}{end}"
    assert _languages(text) == [("COMMIT", _SPEC.canonical(asked))], text


@settings(max_examples=40, deadline=None)
@given(pairs, EN_RULE, st.sampled_from(["when I write in", "if I write in", "if I ask in"]))
def test_concessive__a_real_condition_commits_nothing(
    pair: tuple[tuple[str, str], tuple[str, str]], rule: str, condition: str
) -> None:
    (asked, _), (other, _) = pair
    text = f"{rule} {asked} {condition} {other}."
    assume(_SPEC.canonical(asked) is not None)
    assert all(d != "COMMIT" for d, _ in _languages(text)), text
