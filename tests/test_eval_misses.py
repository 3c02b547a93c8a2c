"""``memwarden eval --misses`` (issue 25 item 4): failed commit expectations grouped by verb
class and language. The verb classes over generated statements (templates of each class in
English and Chinese x random tokens), the grouping over generated results, and the real
pipeline on a generated case that nothing can be proposed from."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden.eval.judge import CaseResult, Verdict
from memwarden.eval.misses import misses
from memwarden.eval.runner import run_cases
from memwarden_shared.text.verb_class import VERB_CLASSES, statement_language, verb_class

# {x} is a random token standing for a tool, a name, a place or a thing.
TEMPLATES = {
    "call_me": ["Please call me {x}.", "My name is {x}.", "以后叫我{x}。", "我叫{x}。"],
    "decide": [
        "We decided to move to {x}.",
        "The official build tool is {x}.",
        "Going forward the team ships with {x}.",
        "我们决定用{x}。",
        "团队统一用{x}。",
    ],
    "prefer": ["I prefer {x} for everything.", "{x} is my favourite.", "我喜欢{x}。"],
    "use": ["I use {x} every day.", "I switched to {x}.", "我一直用{x}。"],
    "am": ["I'm a {x} engineer.", "I live in {x}.", "我是{x}工程师。", "我住在{x}。"],
    "remember": ["Remember: {x} on Fridays.", "记住：{x}周五。"],
}
_CONSONANTS = "bcdfghjkmnpqrstvwxz"
_token = st.text(alphabet=_CONSONANTS, min_size=4, max_size=8)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), x=_token)
def test_verb_class__each_template_of_a_class_reads_as_that_class(
    data: st.DataObject, x: str
) -> None:
    name = data.draw(st.sampled_from(sorted(TEMPLATES)))
    template = data.draw(st.sampled_from(TEMPLATES[name]))
    assert verb_class(template.format(x=x)) == name


@given(x=_token)
def test_statement_language__by_script(x: str) -> None:
    assert statement_language(f"the {x} runs") == "en"
    assert statement_language("我喜欢深色主题") == "zh"
    assert statement_language(f"我喜欢 {x} 主题") == "mixed"


def _result(lang: str, message: str, text: str, passed: bool, proposed: int) -> CaseResult:
    exp = {"message_id": message, "outcome": "commit"}
    return CaseResult(
        case_id=message,
        category="c",
        lang=lang,
        verdicts=[
            Verdict(exp, passed),
            Verdict({"message_id": message, "outcome": "pending"}, False),
        ],
        texts={message: text},
        proposed={message: proposed} if proposed else {},
    )


@settings(max_examples=50, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(sorted(TEMPLATES)),
            st.sampled_from(["en", "zh"]),
            st.booleans(),
            st.integers(0, 2),
            _token,
        ),
        max_size=12,
    )
)
def test_misses__count_every_failed_commit_once_in_its_group_class_and_language(
    rows: list[tuple[str, str, bool, int, str]],
) -> None:
    results = [
        _result(lang, f"m{i}", TEMPLATES[name][0].format(x=x), passed, proposed)
        for i, (name, lang, passed, proposed, x) in enumerate(rows)
    ]
    found = misses(results)
    for i, (name, lang, passed, proposed, _) in enumerate(rows):
        group = "proposed_not_committed" if proposed else "unproposed"
        listed = found[group].get(name, {}).get(lang, {}).get("messages", [])
        assert (f"m{i}" in listed) == (not passed)
    failed = [r for r in rows if not r[2]]
    assert found["unproposed_total"] == sum(1 for r in failed if not r[3])
    assert found["proposed_not_committed_total"] == sum(1 for r in failed if r[3])
    assert set(found["unproposed"]) <= set(VERB_CLASSES)


@pytest.mark.parametrize(
    "x", ["".join(random.Random(seed).sample(_CONSONANTS, 6)) for seed in (1, 2)]
)
def test_misses__a_statement_nothing_is_proposed_from_is_unproposed(
    sqlite_engine: Engine, x: str
) -> None:
    message = f"miss-{x}"
    case = {
        "id": f"miss-case-{x}",
        "category": "generated",
        "lang": "en",
        "tenant_id": "t-miss",
        "subject_id": f"s-{x}",
        "steps": [
            {
                "turn": {
                    "message_id": message,
                    "session_id": "sess",
                    "role": "user",
                    "source": "user_message",
                    "text": f"The {x} is blue.",  # about nobody: nothing to propose
                    "created_at": "2026-02-02T10:00:00Z",
                }
            }
        ],
        "expect": [{"message_id": message, "outcome": "commit", "value_has": [x]}],
    }
    found = misses(run_cases([case], engine=sqlite_engine))
    assert found["unproposed"] == {"other": {"en": {"count": 1, "messages": [message]}}}
    assert found["proposed_not_committed_total"] == 0
