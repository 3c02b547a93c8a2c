"""Is a proposed value actually said in its evidence sentence? (SPEC §5.5) Pure.

A model may only *pick* values the owner uttered: it must not turn "npm" into "pnpm", nor
"this trial uses the Singapore entity" into "the company is in Singapore", nor keep a
"yesterday" that is wrong tomorrow. Rules:

* enum keys: the sentence contains one of the value's surface forms from the registry
  ("dark" is grounded by "深色"); Latin forms only at token boundaries, so "pnpm" never
  grounds "npm";
* timezone keys: the zone (or a registry alias such as 东八区) appears literally, sign
  included, so "UTC+8" is not grounded by "UTC-8";
* free text: every Latin content word of the value is a token of the sentence
  (case-insensitive, minus :data:`STOP_WORDS`), a registry alias counts for a word
  ("vim" ↔ "Vim", "nvim" ↔ "neovim"), every CJK bigram of the value occurs in the sentence
  (a lone CJK character must occur itself), and each ISO date in the value is either in
  the sentence literally or what one of its relative time words resolves to from the
  message time. A negation in the sentence must survive into a free-text value;
* order (issue 10): the value's content words must occur in the sentence in the same order,
  so "switch from Jenkins to GitHub Actions" never grounds "switch from GitHub Actions to
  Jenkins";
* qualifiers: a restriction the sentence puts on its claim (a weekday, a time of day, a
  place, "except", "unless", a leading condition; for free text also "only", "只", "仅" and
  frequency words) must survive into the value, or the value claims more than was said.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache

from memwarden_shared.contract.registry import KeySpec
from memwarden_shared.text.anaphora import refers_elsewhere
from memwarden_shared.text.classifier import Feature, claim_offset, classify
from memwarden_shared.text.clocktime import find_clock_times
from memwarden_shared.text.event_dates import parse_dated, when_in, without
from memwarden_shared.text.fold import Level, fold_text, simplified
from memwarden_shared.text.prefilter import Prefiltered, any_may_match, prefiltered
from memwarden_shared.text.reltime import find_relative_times, has_relative_time, rendered_dates

VALUE_NOT_GROUNDED = "value_not_grounded"
RELATIVE_TIME_UNNORMALISED = "relative_time_unnormalised"
NEGATION_DROPPED = "negation_dropped"
QUALIFIER_DROPPED = "qualifier_dropped"
# the value only points at a sentence or turn elsewhere ("those", "上面的"): text.anaphora
REFERS_ELSEWHERE = "refers_elsewhere"

# Function words a faithful rewording may add or drop. Deliberately small: a content word
# the owner did not say is exactly what this check exists to catch.
STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
        "it",
        "its",
        "that",
        "this",
        "i",
        "me",
        "my",
        "mine",
        "m",
        "s",
        "d",
        "ll",
        "ve",
        "re",
    }
)

_LATIN_TOKEN = re.compile(r"[a-z0-9]+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def _fold(text: str) -> str:
    """The level the registry's alias lookup reads too, so a form it knows is a form found."""
    return fold_text(text, Level.SPACE)


def _qualifiers(*groups: tuple[str, ...]) -> tuple[re.Pattern[str] | Prefiltered, ...]:
    return tuple(prefiltered(re.compile(p)) for group in groups for p in group)


_DAYS = ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun")
_ZH_DAYS = "一二三四五六日"
# Each pattern is one qualifier; it must match the value whenever it matches the sentence.
RESTRICTIVE = _qualifiers(
    tuple(rf"\b{d}days?\b" for d in _DAYS),
    tuple(rf"(?:周|星期|礼拜){d}" for d in _ZH_DAYS),
    (
        r"\bweekends?\b|周末",
        r"\b(?:weekdays?|workdays?|working days?)\b|工作日",
        r"\bmornings?\b|早上|上午|早晨",
        r"\bafternoons?\b|下午",
        r"\bevenings?\b|晚上|傍晚",
        r"\bnights?\b|夜里|夜间|半夜",
        r"\bat work\b|\bat the office\b|在公司|上班",
        r"\bat home\b|在家",
        r"\bon (?:the|my) (?:train|bus|plane|phone|laptop|tablet|mobile)\b"
        r"|(?:火车|地铁|飞机|手机|笔记本)上",
        r"\bexcept\b|\bother than\b|\bbesides\b|除了|除开",
        r"\bunless\b|除非",
        r"\bonly (?:when|on|at|in|during|for|if|while|after|before|with)\b|(?:只|仅)(?:在|有|于)",
    ),
)
# Qualifiers that do not restrict an enum choice ("I only use pnpm" is pnpm) but that a
# free-text value must keep, or it says something the owner did not.
FREE_TEXT_ONLY = _qualifiers(
    (
        r"\bonly\b|只|仅",
        r"\bsometimes\b|\boccasionally\b|有时|偶尔",
        r"\brarely\b|\bseldom\b|很少|极少",
        r"\busually\b|\bmostly\b|\bgenerally\b|\btypically\b|通常|一般|大多",
        r"\bbefore\b|之前|以前",
        r"\bafter\b|之后|以后(?!都|一律|请)",
        r"\buntil\b|直到",
        r"\bwhen(?:ever)?\b|\bwhile\b|的时候|时候",
        r"\bif\b|如果|要是",
    ),
)


_MAY_RESTRICT = any_may_match(RESTRICTIVE)
_MAY_RESTRICT_FREE_TEXT = any_may_match(RESTRICTIVE + FREE_TEXT_ONLY)


def _without_relative_times(span: str) -> str:
    """``span`` with relative dates blanked: "last Monday" is a date, not "on Mondays"."""
    for rel in reversed(find_relative_times(simplified(span), _ANY_ANCHOR)):
        span = span[: rel.start] + " " * (rel.end - rel.start) + span[rel.end :]
    return span


_ANY_ANCHOR = dt.datetime(2000, 1, 5, 12, tzinfo=dt.UTC)  # where a relative date is, not when


_HHMM = re.compile(r"(?<![\d:])([01]\d|2[0-3]):[0-5]\d(?![\d:])")


def _without_kept_clock_times(span: str, value: str) -> str:
    """``span`` with the clock times the value keeps as ``HH:MM`` blanked: "下午两点" kept as
    14:00 is a time, not a dropped "afternoon" restriction."""
    kept = {m.group(0) for m in _HHMM.finditer(value)}
    for clock in reversed(find_clock_times(span)):
        if clock.hhmm in kept:
            span = span[: clock.start] + " " * (clock.end - clock.start) + span[clock.end :]
    return span


def dropped_qualifier(value: str, span: str, *, free_text: bool) -> bool:
    """True when the sentence restricts its claim in a way the value no longer does."""
    # leading filler and greetings restrict nothing ("Good morning, I use vim")
    span = span[claim_offset(span) :]
    span = _without_kept_clock_times(span, value)
    folded_span, folded_value = _fold(_without_relative_times(span)), _fold(value)
    patterns = RESTRICTIVE + (FREE_TEXT_ONLY if free_text else ())
    may_restrict = _MAY_RESTRICT_FREE_TEXT if free_text else _MAY_RESTRICT
    if may_restrict(folded_span) and any(
        p.search(folded_span) and not p.search(folded_value) for p in patterns
    ):
        return True
    # a leading condition ("When I'm on the train, …") cannot survive into an enum value
    return not free_text and classify(span).has(Feature.CONDITIONAL)


@lru_cache(maxsize=4096)  # forms are mostly catalogue names, asked for every sentence
def form_pattern(form: str) -> re.Pattern[str]:
    """``form`` as a regex; Latin ends get token boundaries ("npm" is not inside "pnpm")."""
    body = r"\s+".join(re.escape(part) for part in form.split())
    left = r"(?<![a-z0-9_])" if form[:1].isascii() and form[:1].isalnum() else ""
    right = r"(?![a-z0-9_])" if form[-1:].isascii() and form[-1:].isalnum() else ""
    return re.compile(left + body + right)


def mentions(folded_text: str, form: str) -> bool:
    """True when the folded ``form`` occurs in ``folded_text`` as a whole token sequence."""
    form = _fold(form)
    return bool(form) and bool(form_pattern(form).search(folded_text))


def _any_form(forms: list[str], folded_span: str) -> bool:
    return any(mentions(folded_span, form) for form in forms)


# What stands right before the alternative a sentence turns down: "from **npm** to pnpm",
# "pnpm over **npm**", "而不是 **npm**", "从 **npm** 换成".
_REJECTED_BEFORE = re.compile(
    r"(?:\b(?:from|over|instead of|rather than|than|not|away from|replacing|replace|ditched"
    r"|dropped|off)\s+(?:the\s+|using\s+|of\s+)?"
    r"|(?:而不是|不是|不用|不要|别(?:给我)?用?|而非|代替|取代|替换掉?|从|比起)\s*(?:用\s*)?)$"
)


# "prefer vim to **emacs**": after a verb of preferring, "to" introduces the loser (unlike
# "switch from X to Y"); looked for over the whole span before the mention.
_PREFERRED_TO = re.compile(
    r"\b(?:prefer(?:s|red|ring)?|favou?r(?:s|ed)?|rank(?:s|ed)?)\s+(?:\S+\s+){1,4}to\s+$"
)


def _rejected_at(folded_span: str, at: int) -> bool:
    return bool(
        _REJECTED_BEFORE.search(folded_span[max(0, at - 24) : at])
        or _PREFERRED_TO.search(folded_span[max(0, at - 80) : at])
    )


def _only_rejected(forms: list[str], folded_span: str) -> bool:
    """Every mention of the value is the alternative the sentence turns down."""
    starts = [
        m.start()
        for form in forms
        if _fold(form)
        for m in form_pattern(_fold(form)).finditer(folded_span)
    ]
    return bool(starts) and all(_rejected_at(folded_span, at) for at in starts)


def _alias_grounded(word: str, spec: KeySpec, folded_span: str) -> bool:
    canonical = spec.canonical(word)
    return canonical is not None and _any_form(spec.surface_forms(canonical), folded_span)


def _timezone_grounded(value: str, spec: KeySpec, folded_span: str) -> bool:
    """The zone or an alias, with its sign: "UTC" is not grounded by "UTC+8"."""
    canonical = spec.canonical(value) or value
    forms = {re.sub(r"\s+", "", _fold(value).replace("−", "-"))}
    forms.update(spec.surface_forms(canonical))
    tight = re.sub(r"\s*([+\-:/])\s*", r"\1", folded_span.replace("−", "-"))
    for form in filter(None, forms):
        pattern = form_pattern(_fold(form)).pattern + r"(?![+\-]\d)"
        if re.search(pattern, tight):
            return True
    return False


def _dates_grounded(value: str, span: str, anchor: dt.datetime) -> tuple[bool, str]:
    """Check each ISO date of ``value`` against ``span``; return the value without them."""
    resolved = {rel.iso for rel in find_relative_times(simplified(span), anchor)}
    rest = value
    for start, end, iso in reversed(rendered_dates(value)):
        if iso not in span and iso not in resolved:
            return False, value
        rest = rest[:start] + " " + rest[end:]
    return True, rest


def _times_grounded(rest: str, span: str) -> tuple[bool, str]:
    """Check each ``HH:MM`` of ``rest`` against the clock times ``span`` says ("10am",
    "下午两点"); return ``rest`` without them."""
    said = {clock.hhmm for clock in find_clock_times(span)}
    for m in reversed(list(_HHMM.finditer(rest))):
        if m.group(0) not in said:
            return False, rest
        rest = rest[: m.start()] + " " + rest[m.end() :]
    return True, rest


def _negation_kept(value: str, span: str) -> bool:
    """The classifier's own notion of negation, so both stages agree on what "not" is."""
    # the span first: it is classified already (per-batch memo), and most spans are not
    # negated, so the value needs no classification of its own
    return not classify(span).has(Feature.NEGATED) or classify(value).has(Feature.NEGATED)


_ORDER_TOKEN = re.compile(
    r"[a-z0-9]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]"
)


def _in_order(rest: str, folded_span: str, spec: KeySpec) -> bool:
    """The value's content tokens are a subsequence of the sentence's tokens.

    A word grounded only through a registry alias ("nvim" for "neovim") has no position of
    its own in the sentence and is skipped; every other word must come after the previous.
    """
    span_tokens = _ORDER_TOKEN.findall(folded_span)
    at = 0
    for token in _ORDER_TOKEN.findall(rest):
        if token in STOP_WORDS:
            continue
        try:
            at = span_tokens.index(token, at) + 1
        except ValueError:
            if not _alias_grounded(token, spec, folded_span):
                return False
    return True


def _text_grounded(value: str, span: str, spec: KeySpec, anchor: dt.datetime) -> bool:
    folded_span = _fold(span)
    dates_ok, rest = _dates_grounded(value, span, anchor)
    if dates_ok and spec.value.get("type") == "dated_text":
        dates_ok, rest = _times_grounded(rest, span)  # "2026-03-13 10:00 …" by "at 10am"
    if not dates_ok:
        return False
    rest = _fold(rest)
    span_tokens = set(_LATIN_TOKEN.findall(folded_span))
    checked = rest != _fold(value)  # a grounded date is content too
    for token in _LATIN_TOKEN.findall(rest):
        if token in STOP_WORDS:
            continue
        checked = True
        if token not in span_tokens and not _alias_grounded(token, spec, folded_span):
            return False
    for run in _CJK_RUN.findall(rest):
        checked = True
        pieces = [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        if any(piece not in folded_span for piece in pieces):
            return False
    return checked and _in_order(rest, folded_span, spec)


def ungrounded_reason(value: str, span: str, spec: KeySpec, anchor: dt.datetime) -> str | None:
    """None when ``value`` is grounded in the evidence ``span`` for ``spec``, else a reason.

    Reasons: ``relative_time_unnormalised`` (the value still says "yesterday"/"昨天"),
    ``negation_dropped`` (a free-text value lost the sentence's negation),
    ``qualifier_dropped`` (the value lost a restriction: "only … on Fridays", "except"),
    ``value_not_grounded`` (anything else). ``anchor`` is the message's ``created_at``.
    """
    if not isinstance(value, str) or not value.strip():
        return VALUE_NOT_GROUNDED
    if has_relative_time(value):
        return RELATIVE_TIME_UNNORMALISED
    folded_span = _fold(span)
    kind = spec.value.get("type")
    if kind == "language":
        return _language_ungrounded(value, span, spec, folded_span)
    if kind == "dated_text":
        return _dated_ungrounded(value, span, spec, anchor)
    if kind == "enum":
        return _enum_ungrounded(value, span, spec, folded_span)
    if kind == "timezone":
        if not _timezone_grounded(value, spec, folded_span):
            return VALUE_NOT_GROUNDED
        return _choice_qualifier_dropped(value, span)
    return _text_ungrounded(value, span, spec, anchor, folded_span)


def _choice_qualifier_dropped(value: str, span: str) -> str | None:
    """A chosen name keeps every restriction the sentence puts on the choice."""
    return QUALIFIER_DROPPED if dropped_qualifier(value, span, free_text=False) else None


def _enum_ungrounded(value: str, span: str, spec: KeySpec, folded_span: str) -> str | None:
    """One of the value's surface forms is said, and not only as the alternative turned down."""
    forms = spec.surface_forms(value)
    if not _any_form(forms, folded_span):
        return VALUE_NOT_GROUNDED
    if _only_rejected(forms, folded_span):
        return VALUE_NOT_GROUNDED  # "from npm to pnpm" grounds pnpm, never npm
    return _choice_qualifier_dropped(value, span)


def _text_ungrounded(
    value: str, span: str, spec: KeySpec, anchor: dt.datetime, folded_span: str
) -> str | None:
    """Free text: a registry name said as such, or content words said in order with the
    sentence's negation and qualifiers kept."""
    canonical = spec.canonical(value)
    if canonical is not None and _only_rejected(spec.surface_forms(canonical), folded_span):
        return VALUE_NOT_GROUNDED  # "I moved from Vim to Emacs" grounds emacs, never vim
    if _alias_grounded(value, spec, folded_span):
        # "vim" by "Vim", "neovim" by "nvim": a name, restricted like an enum choice
        return _choice_qualifier_dropped(value, span)
    if not _name_like(value, spec) and refers_elsewhere(value, span):
        return REFERS_ELSEWHERE  # a name ("Safe", "Will") is no pointer; a claim may be
    if not _text_grounded(value, span, spec, anchor):
        return VALUE_NOT_GROUNDED
    if not _negation_kept(value, span):
        return NEGATION_DROPPED
    if dropped_qualifier(value, span, free_text=not _name_like(value, spec)):
        return QUALIFIER_DROPPED
    return None


def _language_ungrounded(value: str, span: str, spec: KeySpec, folded_span: str) -> str | None:
    """The value's BCP 47 tag is what the sentence names, in any surface form; the longest
    name wins, so "British English" grounds en-GB and never en, and "English" never en-GB."""
    table = spec.languages
    tag = table.resolve(value) if table is not None else None
    if table is None or tag is None:
        return VALUE_NOT_GROUNDED
    starts = table.tags_mentioned(folded_span, extra_tag=tag).get(tag)
    if not starts or all(_rejected_at(folded_span, at) for at in starts):
        return VALUE_NOT_GROUNDED  # "in English, not French" grounds en, never fr
    return QUALIFIER_DROPPED if dropped_qualifier(value, span, free_text=False) else None


def _dated_ungrounded(value: str, span: str, spec: KeySpec, anchor: dt.datetime) -> str | None:
    """A dated value: its date and time are stated in the sentence (literally, as a resolved
    relative word, or written out), and what happens is grounded like free text in the
    sentence without those date and time words."""
    parsed = parse_dated(value)
    if parsed is None:
        return VALUE_NOT_GROUNDED
    when = when_in(span, anchor)
    if parsed.date not in when.dates or (parsed.time is not None and parsed.time not in when.times):
        return VALUE_NOT_GROUNDED
    rest = without(span, when.intervals)
    if refers_elsewhere(parsed.what, rest):
        return REFERS_ELSEWHERE  # "remember those for tomorrow": what happens is elsewhere
    if not _text_grounded(parsed.what, rest, spec, anchor):
        return VALUE_NOT_GROUNDED
    if not _negation_kept(parsed.what, span):
        return NEGATION_DROPPED
    if dropped_qualifier(parsed.what, rest, free_text=True):
        return QUALIFIER_DROPPED
    return None


def _name_like(value: str, spec: KeySpec) -> bool:
    """A short text key holding a name ("PostgreSQL", "Arch Linux", "阿里云") is a choice,
    restricted like an enum: "I only use Vue" / "我的服务器一般用腾讯云" is still Vue / 腾讯云.
    A claim ("I only drink decaf") keeps "only", "usually" and the like."""
    if spec.value.get("type") != "text" or int(spec.value.get("max_length", 500)) > 100:
        return False
    value = value.strip()
    if _CJK_RUN.search(value):
        return len(value) <= 6  # "阿里云", "腾讯云"; a Chinese clause is longer
    return len(value.split()) <= 3
