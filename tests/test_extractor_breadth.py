"""Issue 15 item 2: what users ordinarily say, in English, Chinese and mixed, is proposed.

Dated events the owner asked to remember, tool preferences, "X, not Y", team decisions,
household names, diet and allergies, language variants; and what must still not be
remembered. The sentences are written for these tests (none is from tests/breadth).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import pytest
from sqlalchemy import Engine

from memwarden.eval.runner import run_cases
from memwarden_extractor.events import event_value
from memwarden_extractor.languages import is_language_variant, language_phrase
from memwarden_extractor.routes import make_sentence, route
from memwarden_extractor.rules import extract
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import Registry, default_registry
from memwarden_shared.detect.grounding import ungrounded_reason
from memwarden_shared.text.clocktime import find_clock_times
from memwarden_shared.text.reltime import normalise_relative_times

REGISTRY = default_registry()
SATURDAY = "2026-03-07T09:00:00+08:00"
MONDAY = "2026-03-09T09:00:00+00:00"


def found(text: str, created_at: str = MONDAY) -> list[tuple[str, str]]:
    turn = Turn.model_validate(
        {
            "tenant_id": "t1",
            "subject_id": "u1",
            "session_id": "s1",
            "message_id": "m1",
            "role": "user",
            "source": "user_message",
            "text": text,
            "created_at": created_at,
        }
    )
    return [(p.normalized_key, p.value) for p in extract(turn, REGISTRY)]


# --------------------------------------------------------------------------- dated events


@pytest.mark.parametrize(
    ("text", "created_at", "value"),
    [
        (
            "Please remember the dentist appointment is the day after tomorrow at 3pm.",
            MONDAY,
            "2026-03-11 15:00 the dentist appointment",
        ),
        (
            "Don't forget: the tax filing is due this Friday.",
            MONDAY,
            "2026-03-13 the tax filing is due",
        ),
        ("Note that the hackathon starts in 5 days.", MONDAY, "2026-03-14 the hackathon starts"),
        ("Remember the retro moved to Thursday next week.", MONDAY, "2026-03-19 the retro moved"),
        (
            "Keep in mind that the audit is on the 3rd of next month.",
            MONDAY,
            "2026-04-03 the audit",
        ),
        ("记一下，下周二交预算表。", SATURDAY, "2026-03-10 交预算表"),
        ("帮我记住，大后天上午九点半体检。", SATURDAY, "2026-03-10 09:30 体检"),
        ("请记一下，下个月12号是房东收租的日子。", SATURDAY, "2026-04-12 房东收租的日子"),
        ("记住下下周三晚上七点聚会。", SATURDAY, "2026-03-18 19:00 聚会"),
        ("别让我忘了，这周日上午还车。", SATURDAY, "2026-03-08 上午还车"),
        ("记住我 the day after tomorrow 要交报告。", SATURDAY, "2026-03-09 我 要交报告"),
        (
            "Remember that the offsite dinner is 后天 at 7pm.",
            SATURDAY,
            "2026-03-09 19:00 the offsite dinner",
        ),
        ("请记住，我前天续签了护照。", SATURDAY, "2026-03-05 我 续签了护照"),
    ],
)
def test_extract__a_remembered_dated_event_gets_an_absolute_date(
    text: str, created_at: str, value: str
) -> None:
    assert found(text, created_at) == [("task_fact.event", value)]


def test_extract__the_date_is_the_writers_own_calendar_day_not_utc() -> None:
    # 22:45 at -05:00 is already the next day in UTC; "tomorrow" is still the local one
    late = "2026-09-30T22:45:00-05:00"
    assert found("Remember the vendor demo is tomorrow.", late) == [
        ("task_fact.event", "2026-10-01 the vendor demo")
    ]
    # 00:15 at +09:00 is still the previous day in UTC; "明天" counts from the local day
    early = "2026-10-02T00:15:00+09:00"
    assert found("记一下，明天交电费。", early) == [("task_fact.event", "2026-10-03 交电费")]


@pytest.mark.parametrize(
    "text",
    [
        "The quarterly review is on Thursday next week.",  # mentioned, not asked to keep
        "明天下午三点开会。",
        "Remember, is the launch next Friday?",  # a question
        "If the demo slips to next Monday, remember to tell Ana.",  # hypothetical
        "Remember that maybe the party is tomorrow.",  # uncertain
        "记住，如果下周五下雨就改期。",
        "Remember that Alex said the release is tomorrow.",  # someone else's words
        "Remember the sync moved from tomorrow to Wednesday next week.",  # two dates
    ],
)
def test_extract__an_event_not_asked_for_or_not_certain_is_not_proposed(text: str) -> None:
    assert [key for key, _ in found(text)] in ([], ["preference.note"])
    assert all(key != "task_fact.event" for key, _ in found(text))


def test_event_value__drops_only_the_date_and_time_and_keeps_the_words_in_order() -> None:
    anchor = dt.datetime(2026, 3, 9, 9, tzinfo=dt.UTC)
    value, day = event_value("the board call is tomorrow at 10:30", anchor) or ("", None)
    assert (value, day) == ("2026-03-10 10:30 the board call", dt.date(2026, 3, 10))
    assert event_value("the board call is next week", anchor) is None  # no single day
    assert event_value("tomorrow", anchor) is None  # no content


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("at 9am", ["09:00"]),
        ("by 12pm", ["12:00"]),
        ("12am sharp", ["00:00"]),
        ("around 17:45", ["17:45"]),
        ("下午三点一刻", ["15:15"]),
        ("晚上10点半", ["22:30"]),
        ("凌晨两点", ["02:00"]),
        ("my 1:1 with Kim", []),
        ("我有一点累", []),
        ("it costs 30 dollars", []),
    ],
)
def test_find_clock_times(text: str, times: list[str]) -> None:
    assert [c.hhmm for c in find_clock_times(text)] == times


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("下下周一", "2026-03-16"),  # anchor is Saturday 2026-03-07
        ("这个月20号", "2026-03-20"),
        ("下个月31号", "2026-04-30"),  # clamped to the month's last day
        ("on the 2nd of next month", "on 2026-04-02"),
        ("It ends Friday this week", "It ends on 2026-03-06"),
        ("It ends 3 weeks from today", "It ends on 2026-03-28"),
    ],
)
def test_normalise__day_phrases_of_issue_15(text: str, normalised: str) -> None:
    anchor = dt.datetime.fromisoformat(SATURDAY)
    assert normalise_relative_times(text, anchor) == normalised


def test_grounding__an_event_time_must_be_one_the_sentence_says() -> None:
    spec = REGISTRY.get("task_fact", "task_fact.event")
    assert spec is not None
    anchor = dt.datetime.fromisoformat(MONDAY)
    span = "Remember the vet visit is tomorrow at 4pm."
    assert ungrounded_reason("2026-03-10 16:00 the vet visit", span, spec, anchor) is None
    assert ungrounded_reason("2026-03-10 15:00 the vet visit", span, spec, anchor) is not None
    assert ungrounded_reason("2026-03-11 16:00 the vet visit", span, spec, anchor) is not None


# --------------------------------------------------------------------------- tools, X not Y


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # no verb of preference the tool router knows: only the owner's words, as a stance note
        ("I keep all my data in MariaDB.", [("preference.note", "I keep all my data in MariaDB")]),
        ("I build every API with NestJS.", [("preference.framework", "NestJS")]),
        ("My daily driver is Fedora, it's the OS I code on.", [("preference.os", "Fedora")]),
        ("I use nushell as my shell.", [("preference.shell", "nushell")]),
        ("I host everything on Hetzner.", [("preference.cloud", "Hetzner")]),
        ("我一直用 ClickHouse 做分析数据库。", [("preference.database", "ClickHouse")]),
        ("我写前端习惯用 React。", [("preference.framework", "React")]),
        ("我的网站都部署在华为云上。", [("preference.cloud", "华为云")]),
        ("我平时用 Debian 做开发。", [("preference.os", "Debian")]),
        ("我一般用 bash 写运维脚本。", [("preference.shell", "bash")]),
        # a word that is also a tool needs the key's noun (the stance is still a note)
        ("I like fish.", [("preference.note", "I like fish")]),
        ("I love spring in Kyoto.", [("preference.note", "I love spring in Kyoto")]),
        # two tools of one key: ambiguous for the key, kept whole as a note
        (
            "I use MySQL and SQLite for my databases.",
            [("preference.note", "I use MySQL and SQLite for my databases")],
        ),
    ],
)
def test_extract__tool_preferences(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I use yarn, not pnpm.", [("preference.package_manager", "yarn")]),
        ("I run Fedora, not Ubuntu.", [("preference.os", "Fedora")]),
        ("It's SQLite for me, not Postgres.", [("preference.database", "SQLite")]),
        ("我的 shell 用 fish，不用 zsh。", [("preference.shell", "fish")]),
        ("我用 Vue 而不是 React 写前端。", [("preference.framework", "Vue")]),
        ("我用 vim，别给我用 emacs。", [("preference.editor", "vim")]),
        # "not" that is no contrast still negates
        ("I use zsh, not really.", []),
        ("I don't use bash.", []),
    ],
)
def test_extract__x_not_y_keeps_only_the_x(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I run Podman instead of Docker.",
        "I format with two spaces, not tabs.",
        "I'm on Thunderbird, not Outlook.",
        "I always draw diagrams in Excalidraw, not Visio.",
        "我用 Bitbucket，不用 GitHub。",
        "我的笔记都记在 Obsidian 里，而不是 Notion。",
        "Stick with Mercurial in all my repos, not git.",
        "我写注释用英文，不用中文。",  # a Chinese name for the turned-down one
        "我用单引号而不是双引号。",
        "Prefer Conventional Commits for my repos.",  # a standing rule for the owner's work
    ],
)
def test_extract__a_choice_over_a_named_other_without_a_key_is_a_note(text: str) -> None:
    [(key, value)] = found(text)
    assert key == "preference.note"
    assert value == text.rstrip("。.")  # the owner's words, the turned-down one kept


@pytest.mark.parametrize(
    "text",
    [
        "I drove to work, not the bus.",  # a past event
        "I bought a Kindle, not a Kobo.",
        "I'm on the ferry, not the plane.",  # a passing state
        "Use Bitbucket this time, not GitHub.",  # one time
        "这次用 Bitbucket，不用 GitHub。",
        "Use Bitbucket, not GitHub.",  # an imperative with no mark that it holds from now on
        "Use Bitbucket for my projects this time.",
        "Use Bitbucket for the demo.",
        "Run the linter in my repos, not the formatter.",  # a task, not a choice
        "Maybe I use Podman, not Docker?",
        "My brother uses Podman, not Docker.",
        "我用 Emacs，不是很习惯 Vim。",  # a degree word: a plain negation
        "我用 Podman，不是因为公司要求。",  # a reason, not an alternative
    ],
)
def test_extract__a_contrast_that_is_no_standing_choice_gives_no_note(text: str) -> None:
    assert "preference.note" not in {key for key, _ in found(text)}


# --------------------------------------------------------------------------- people, diet


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("My husband is called Tomas.", "profile.note"),
        ("Our cat is named Pixel.", "profile.note"),
        ("I've got a rabbit called Clover.", "profile.note"),
        ("我家的兔子叫雪球。", "profile.note"),
        ("我儿子的名字是乐乐。", "profile.note"),
        ("我们家养了一只猫，叫咪咪。", "profile.note"),
        ("We decided to move the nightly build to 2am.", "decision.note"),
        ("Our team agreed on Renovate for dependency updates.", "decision.note"),
        ("我们小组决定代码统一用 Black 格式化。", "decision.note"),
        ("We're sticking with Helm charts going forward.", "decision.note"),
        ("We've landed on weekly releases.", "decision.note"),
        ("The team went with Datadog for tracing.", "decision.note"),
        ("团队敲定了用 Rust 写解析器。", "decision.note"),
        ("我们组最后定下来用语雀写周报。", "decision.note"),
        ("I'm a pescatarian.", "profile.diet"),
        ("我不吃香菜。", "profile.diet"),
        ("我是素食主义者。", "profile.diet"),
        ("I'm allergic to shellfish and latex.", "profile.allergy"),
        ("我对芒果过敏。", "profile.allergy"),
    ],
)
def test_extract__household_decisions_diet_and_allergies(text: str, key: str) -> None:
    [(found_key, value)] = found(text)
    assert found_key == key
    assert value in text  # the owner's own clause, negation kept


@pytest.mark.parametrize(
    "text",
    [
        "My boss's dog is called Rex.",
        "我同事家的猫叫花花。",
        "My neighbour is allergic to cats.",
        "我室友对花生过敏。",
        "The other team decided to use Bazel.",
        "If I get a dog, I'll call it Pepper.",
        "Should we decide on Redis?",
        "Maybe I'll go vegan next year.",
        "Jo said our team decided to drop Jira.",
        "We're going with tacos tonight.",  # a plan, not a standing decision
        "Maybe the team went with Datadog?",
    ],
)
def test_extract__someone_elses_or_uncertain_facts_are_not_the_owners(text: str) -> None:
    assert found(text) == []


# --------------------------------------------------------------------------- language variants


@pytest.mark.parametrize(
    ("text", "phrase", "variant"),
    [
        ("Please reply in Australian English from now on.", "Australian English", True),
        ("Always answer in European Portuguese.", "European Portuguese", True),
        ("Use Simplified Chinese in your replies.", "Simplified Chinese", True),
        ("以后请用台湾繁体中文回复。", "台湾繁体中文", True),
        ("以后用美式英语回答我。", "美式英语", True),
        ("以后请用泰语回复我。", "泰语", False),
        ("Always reply in Swedish.", "Swedish", False),
        ("Translate this from English to French.", None, False),  # two languages: neither
    ],
)
def test_language_phrase__keeps_the_variant_as_written(
    text: str, phrase: str | None, variant: bool
) -> None:
    assert language_phrase(text) == phrase
    assert phrase is None or is_language_variant(phrase) == variant


def _open_language_registry() -> Registry:
    """The registry with preference.language as free text, as a BCP 47 registry accepts
    any language: what the extractor hands over once the registry knows every variant."""
    spec = REGISTRY.get("preference", "preference.language")
    assert spec is not None
    open_spec = dataclasses.replace(spec, value={"type": "text", "max_length": 80})
    keys = dict(REGISTRY.keys)
    keys[("preference", "preference.language")] = open_spec
    return Registry(version=REGISTRY.version, keys=keys)


@pytest.mark.parametrize(
    ("text", "open_value", "enum_value"),
    [
        ("Always reply to me in British English.", "British English", "British English"),
        ("以后都用繁體中文回复我。", "繁體中文", "繁體中文"),
        # a plain language: the registry's canonical form (BCP 47 tag and both names)
        ("以后请用英文回复我。", "en English 英语", "en English 英语"),
    ],
)
def test_route__a_language_variant_is_not_collapsed_where_the_registry_takes_it(
    text: str, open_value: str, enum_value: str
) -> None:
    sentence = make_sentence(text, text.rstrip("。."))
    assert route(sentence, _open_language_registry())["preference.language"] == open_value
    # the BCP 47 registry keeps the variant too (a plain-only registry would get the plain one)
    assert route(sentence, REGISTRY)["preference.language"] == enum_value


# --------------------------------------------------------------------------- through the gate


def _case(case_id: str, text: str, created_at: str, expect: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": case_id,
        "category": "breadth_classes",
        "lang": "en",
        "tenant_id": "tb",
        "subject_id": f"u-{case_id}",
        "steps": [
            {
                "turn": {
                    "message_id": "m1",
                    "session_id": "s1",
                    "role": "user",
                    "source": "user_message",
                    "text": text,
                    "created_at": created_at,
                }
            }
        ],
        "expect": [{"message_id": "m1", **expect}],
    }


GATE_CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    ("ev-en", "Remember that the CAB meeting is next Wednesday at 11am.", MONDAY,
     {"outcome": "commit", "value_has": ["2026-03-18 11:00", "cab"]}),
    ("ev-zh", "记一下，下周三下午两点开评审会。", SATURDAY,
     {"outcome": "commit", "value_has": ["2026-03-11 14:00", "评审会"]}),
    ("ev-mixed", "记住我 next Tuesday 要去签合同。", SATURDAY,
     {"outcome": "commit", "value_has": ["2026-03-10", "签合同"]}),
    ("ev-unasked", "The CAB meeting is next Wednesday at 11am.", MONDAY, {"outcome": "no_durable"}),
    ("tool", "I do all my scripting in zsh.", MONDAY, {"outcome": "commit", "value_has": ["zsh"]}),
    ("xnoty", "我用 Fedora，不用 Ubuntu。", SATURDAY,
     {"outcome": "commit", "value_has": ["fedora"]}),
    ("pet", "Our dog is called Nacho.", MONDAY, {"outcome": "commit", "value_has": ["nacho"]}),
    ("decision", "Our team decided on Grafana for dashboards.", MONDAY,
     {"outcome": "commit", "value_has": ["grafana"]}),
    ("diet", "记住我不吃香菜。", SATURDAY, {"outcome": "not_auto"}),
    ("allergy", "I'm allergic to bee stings.", MONDAY, {"outcome": "not_auto"}),
    ("other-pet", "My colleague's parrot is called Rio.", MONDAY, {"outcome": "no_commit"}),
    # (a name the lexicon knows: an unknown product name goes to the owner, deny by default)
    ("choice-note", "I draft everything in Obsidian, not Word.", MONDAY,
     {"outcome": "commit", "value_has": ["obsidian"]}),
    ("choice-note-zh", "我用 Bitbucket，不用 GitHub。", SATURDAY,
     {"outcome": "commit", "value_has": ["bitbucket"]}),
    ("standing-imperative", "Prefer Vitest for my projects, not Jest.", MONDAY,
     {"outcome": "commit", "value_has": ["vitest"]}),
    ("one-time-choice", "这次用 Bitbucket，不用 GitHub。", SATURDAY, {"outcome": "no_durable"}),
    ("our-project", "我们项目决定用 Kotlin 重写安卓端。", SATURDAY,
     {"outcome": "commit", "value_has": ["kotlin"]}),
]  # fmt: skip


def test_eval__issue_15_classes_pass_the_gate(sqlite_engine: Engine) -> None:
    cases = [_case(*c) for c in GATE_CASES]
    results = run_cases(cases, engine=sqlite_engine)
    failing = {
        r.case_id: [v.detail for v in r.verdicts if not v.passed] for r in results if not r.passed
    }
    assert failing == {}
