"""Dated events whose day is written out as a month and a day ("April 9", "9 April",
"4月9日", "5月12号", "2026/4/9"), not only as a relative word or an ISO date (issue 25
item 1, mechanism: ``events._day_phrases`` reads ``text.event_dates.written_dates``, the
parser the gate grounds dates with). Generated over months, days, clock times, event words
and remember-cues in English and Chinese, a note-style prefix among them ("Note to self:",
"备忘：", ``classifier_cues.NOTE_PREFIX``); without a cue nothing becomes an event, and a
note prefix does not lift a hedge."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.extract_helpers import proposals

ANCHOR = dt.datetime(2026, 1, 5, 9, 30, tzinfo=dt.UTC)
_MONTHS = [dt.date(2026, m, 1).strftime("%B") for m in range(1, 13)]
# Errands of our own, written for these tests (no evaluation text): what an event may be.
_ZH_ERRANDS = ["交年度预算", "带狗体检", "续签租房合同", "去银行开户", "给车做保养", "参加婚礼"]
_EN_CUES = [
    "Remember: {what} {when}.",
    "Please remember {what} {when}.",
    "Note to self: {what} {when}.",
]
_ZH_CUES = ["记住：{when}{what}。", "帮我记一下，{when}{what}。", "备忘：{when}{what}。"]

_days = st.dates(min_value=dt.date(2026, 1, 6), max_value=dt.date(2026, 12, 31))
_token = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=4, max_size=8)


def _events(text: str) -> list[str]:
    return [p.value for p in proposals(text, ANCHOR) if p.normalized_key == "task_fact.event"]


def _en_when(day: dt.date, form: int) -> str:
    month = _MONTHS[day.month - 1]
    return (f"on {month} {day.day}", f"on {day.day} {month}", f"on {day:%Y/%m/%d}")[form]


@settings(max_examples=40, deadline=None)
@given(
    day=_days,
    form=st.integers(0, 2),
    words=st.lists(_token, min_size=2, max_size=3),
    cue=st.sampled_from(_EN_CUES),
    hour=st.one_of(st.none(), st.integers(1, 11)),
)
def test_english_month_day_in_a_remember_sentence_is_a_dated_event(
    day: dt.date, form: int, words: list[str], cue: str, hour: int | None
) -> None:
    what = "the " + " ".join(words) + " review"
    when = _en_when(day, form) + (f" at {hour}pm" if hour else "")
    values = _events(cue.format(what=what, when=when))
    stamp = day.isoformat() + (f" {hour + 12:02d}:00" if hour else "")
    assert values == [f"{stamp} {what}"]


@settings(max_examples=40, deadline=None)
@given(
    day=_days,
    errand=st.sampled_from(_ZH_ERRANDS),
    cue=st.sampled_from(_ZH_CUES),
    suffix=st.sampled_from(["日", "号"]),
)
def test_chinese_month_day_in_a_remember_sentence_is_a_dated_event(
    day: dt.date, errand: str, cue: str, suffix: str
) -> None:
    values = _events(cue.format(what=errand, when=f"{day.month}月{day.day}{suffix}"))
    assert values == [f"{day.isoformat()} {errand}"]


@settings(max_examples=30, deadline=None)
@given(
    day=_days,
    words=st.lists(_token, min_size=2, max_size=3),
    zh=st.booleans(),
    errand=st.sampled_from(_ZH_ERRANDS),
)
def test_a_written_date_without_a_remember_cue_is_no_event(
    day: dt.date, words: list[str], zh: bool, errand: str
) -> None:
    text = (
        f"{day.month}月{day.day}日{errand}。"
        if zh
        else f"The {' '.join(words)} review is on {_MONTHS[day.month - 1]} {day.day}."
    )
    assert _events(text) == []


@settings(max_examples=30, deadline=None)
@given(
    prefix=st.sampled_from(["Note to self:", "Memo:", "备忘："]),
    hedge=st.sampled_from(["maybe I should try", "I might switch to", "someone told me to use"]),
    tool=_token,
)
def test_a_note_prefix_does_not_lift_a_hedge(prefix: str, hedge: str, tool: str) -> None:
    assert proposals(f"{prefix} {hedge} {tool}.", ANCHOR) == []


@settings(max_examples=30, deadline=None)
@given(
    day=_days,
    occasion=st.sampled_from(["birthday", "wedding anniversary", "name day", "生日", "结婚纪念日"]),
    owner=st.sampled_from(["my", "my sister's", "our"]),
)
def test_a_yearless_date_of_an_annual_occasion_is_no_event(
    day: dt.date, occasion: str, owner: str
) -> None:
    """A birthday comes back every year: a note without expiry, not an event that lapses."""
    if occasion.isascii():
        text = f"Remember that {owner} {occasion} is on {_MONTHS[day.month - 1]} {day.day}."
    else:
        text = (
            f"请记住：{'我' if owner == 'my' else '我们'}的{occasion}是{day.month}月{day.day}日。"
        )
    assert _events(text) == []
