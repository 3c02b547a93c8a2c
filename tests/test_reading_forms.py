"""How the rules read what people write (issue 25, round 8), each over a generated family:

- a week named before its weekday ("next week Thursday") is that day, as the weekday named
  first ("Thursday next week") is (``reltime``);
- a dated event asked to be remembered in traditional characters gets the date the
  simplified sentence gets (``events._day_phrases`` and the gate's grounding read the
  simplified copy; 記著 is 记着);
- a chat spelling of "please" or "you" ("pls", "plz", "u") asks what the spelled-out word
  asks (``code_switch.reading_form``).
"""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st
from opencc import OpenCC

from memwarden_shared.text.reltime import EN_WEEKDAYS, find_relative_times
from memwarden_usecases.explain import explain
from tests.extract_helpers import proposals

_ANCHORS = st.datetimes(
    min_value=dt.datetime(2020, 1, 1),
    max_value=dt.datetime(2035, 12, 31),
    timezones=st.just(dt.UTC),
)
_WEEKDAYS = sorted(EN_WEEKDAYS)


def _days(text: str, anchor: dt.datetime) -> list[dt.date]:
    return [r.date for r in find_relative_times(text, anchor)]


@settings(max_examples=80, deadline=None)
@given(_ANCHORS, st.sampled_from(["this", "next", "last"]), st.sampled_from(_WEEKDAYS))
def test_a_week_named_before_its_weekday_is_that_day(
    anchor: dt.datetime, shift: str, weekday: str
) -> None:
    expected = _days(f"it is on {weekday} {shift} week", anchor)
    assert len(expected) == 1
    for text in (f"it is {shift} week {weekday}", f"it is {shift} week's {weekday}"):
        assert _days(text, anchor) == expected, text


_ZH_WHEN = ["明天", "后天", "下周二", "下周五", "这周四", "下个星期一"]
_ZH_WHAT = ["要交期末报告", "要发版", "是项目评审", "要去体检", "开季度会"]
_ZH_CUE = ["请记住，", "帮我记着，", "记一下，", "记住："]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_ZH_CUE), st.sampled_from(_ZH_WHEN), st.sampled_from(_ZH_WHAT))
def test_a_dated_event_in_traditional_characters_gets_the_same_date(
    cue: str, when: str, what: str
) -> None:
    simplified = f"{cue}{when}{what}。"
    events = [p.value.split(" ")[0] for p in proposals(simplified)]
    assert events, simplified  # the simplified sentence is a dated event
    for table in ("s2t", "s2tw", "s2hk"):
        traditional = OpenCC(table).convert(simplified)
        got = [p.value.split(" ")[0] for p in proposals(traditional)]
        assert got == events, (simplified, traditional, events, got)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["pls", "plz", "Pls", "PLZ"]),
    st.sampled_from(["remember that I use {v}", "note: I prefer {v}", "remember I always use {v}"]),
    st.sampled_from(["npm", "pnpm", "yarn", "bun"]),
)
def test_a_chat_spelling_of_please_asks_what_please_asks(
    please: str, request: str, value: str
) -> None:
    def decided(text: str) -> list[tuple[str, str, str]]:
        return [(c.key, c.value, c.decision) for s in explain(text) for c in s.candidates]

    spelled_out = f"please {request.format(v=value)}"
    chat = f"{please} {request.format(v=value)}"
    assert decided(chat) == decided(spelled_out)
    assert [p.value for p in proposals(chat)] == [p.value for p in proposals(spelled_out)]


_LANGS = ["English", "French", "German", "Spanish", "Japanese"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(
        ["Until further notice", "Until I say otherwise", "Until I tell you otherwise"]
    ),
    st.sampled_from(["answer me in {l}", "reply in {l}", "write to me in {l}"]),
    st.sampled_from(_LANGS),
)
def test_until_revoked_is_standing_and_a_date_is_not(lead: str, ask: str, language: str) -> None:
    def committed(text: str) -> list[str]:
        return [c.key for s in explain(text) for c in s.candidates if c.decision == "COMMIT"]

    request = ask.format(l=language)
    assert committed(f"{lead}, {request}.") == ["preference.language"]
    # bounded by a date, it is no standing rule
    assert committed(f"Until {_WEEKDAYS[0].capitalize()}, {request}.") == []


_ROLES = [
    ("preference.package_manager", "package manager", ["npm", "pnpm", "yarn", "bun"]),
    ("preference.editor", "editor", ["vim", "emacs", "neovim"]),
]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(_ROLES).flatmap(
        lambda r: st.tuples(st.just(r[0]), st.just(r[1]), st.sampled_from(r[2]))
    ),
    st.sampled_from(
        [
            "{v} has been my {role} since {y}.",
            "I've used {v} as my {role} for {n} years.",
            "I have used {v} since {y}.",
            "{v} is still my {role}.",
        ]
    ),
    st.integers(2005, 2025),
    st.integers(2, 20),
)
def test_a_use_that_has_lasted_is_the_owners_preference(
    role: tuple[str, str, str], template: str, year: int, years: int
) -> None:
    key, noun, value = role
    text = template.format(v=value, role=noun, y=year, n=years)
    committed = [
        (c.key, c.value) for s in explain(text) for c in s.candidates if c.decision == "COMMIT"
    ]
    assert committed == [(key, value)], text
    # a trend of late is asked, not committed
    lately = f"I've been using {value} a lot lately."
    assert not [c for s in explain(lately) for c in s.candidates if c.decision == "COMMIT"]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["Note", "Memo", "Reminder"]),
    st.sampled_from(["to self", "for later", "for the future", "to you", "for next time"]),
    st.sampled_from(["", " (and you)", " (important)"]),
    st.sampled_from(["metric units", "imperial units", "24-hour time", "short meetings"]),
)
def test_a_note_label_addressed_or_timed_asks_to_remember_the_claim(
    label: str, to: str, aside: str, thing: str
) -> None:
    # a free-text note keeps the claim as its value: the label and its aside are stripped
    text = f"{label} {to}{aside}: I prefer {thing}."
    assert [(p.normalized_key, p.value) for p in proposals(text)] == [
        ("preference.note", f"I prefer {thing}")
    ], text


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["", "编辑器"]),
    st.sampled_from(["现在改用", "已经换成", "现在切到"]),
    st.sampled_from(["vim", "emacs", "neovim"]),
)
def test_a_switch_with_its_subject_dropped_is_the_owners(noun: str, switch: str, tool: str) -> None:
    def committed(text: str) -> list[tuple[str, str]]:
        return [
            (c.key, c.value) for s in explain(text) for c in s.candidates if c.decision == "COMMIT"
        ]

    assert committed(f"{noun}{switch} {tool} 了。") == [("preference.editor", tool)]
    # another subject before it makes it another's
    assert committed(f"他{noun}{switch} {tool} 了。") == []
