"""Deterministic classification of one evidence sentence, English and Chinese. Pure.

The extractor and the gate both call :func:`classify` on the exact evidence sentence; the
gate never trusts flags a model reports about itself (SPEC §5.4). Each :class:`Feature`
value is a reason code written into receipts. The cue lists live in
:mod:`shared.classifier_cues`; this module holds the few decisions that are not a plain
list lookup (what "先" means, where a sentence's subject starts, when a relative date is a
plan). When in doubt a cue errs towards *not durable*: a missed memory is a question to
the owner later, a false one is a wrong fact recalled for months.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from enum import StrEnum

from shared import classifier_cues as cues
from shared.reltime import Granularity, find_relative_times
from shared.textfold import folded_text


class Feature(StrEnum):
    """What a sentence is; each value is a reason code written into gate receipts."""

    EXPLICIT_INSTRUCTION = "explicit_instruction"
    FIRST_PERSON_DURABLE = "first_person_durable"
    INFERRED = "inferred"
    NEGATED = "negated"
    ONE_TIME = "one_time"
    HYPOTHETICAL = "hypothetical"
    QUESTION = "question"
    REPORTED = "reported_speech"
    UNCERTAIN = "uncertain"
    FUTURE_PLAN = "future_plan"
    SARCASM = "sarcasm"
    TRANSIENT = "transient"
    RELATIVE_TIME = "relative_time"


NOT_DURABLE = frozenset(
    {
        Feature.ONE_TIME,
        Feature.HYPOTHETICAL,
        Feature.QUESTION,
        Feature.REPORTED,
        Feature.UNCERTAIN,
        Feature.FUTURE_PLAN,
        Feature.SARCASM,
        Feature.TRANSIENT,
    }
)


@dataclass(frozen=True)
class SentenceFeatures:
    features: frozenset[Feature]
    relative_time_words: tuple[str, ...]

    def has(self, feature: Feature) -> bool:
        return feature in self.features

    @property
    def not_durable(self) -> bool:
        """One-time, hypothetical, question, reported, uncertain, plan, sarcasm or transient."""
        return bool(self.features & NOT_DURABLE)

    @property
    def explicit(self) -> bool:
        """An explicit remember-instruction or a direct first-person durable statement."""
        return (
            Feature.EXPLICIT_INSTRUCTION in self.features
            or Feature.FIRST_PERSON_DURABLE in self.features
        ) and Feature.INFERRED not in self.features

    def reasons(self) -> list[str]:
        """The feature values, sorted: the reason codes for a receipt."""
        return sorted(f.value for f in self.features)


def _rx(*groups: tuple[str, ...], flags: int = 0) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for group in groups for p in group), flags)


_EXPLICIT = _rx(cues.EN_EXPLICIT, cues.ZH_EXPLICIT)
_REQUEST = _rx(cues.EN_REQUEST, cues.ZH_REQUEST)
_FPD = _rx(cues.EN_FIRST_PERSON_DURABLE, cues.ZH_FIRST_PERSON_DURABLE)
_FPD_WEAK = _rx(cues.ZH_FIRST_PERSON_WEAK)
_ASPECT_EVENT = re.compile(cues.ZH_ASPECT_EVENT)
_CLAUSE_END = re.compile(r"[,.!?;。、]")
DECISION = _rx(cues.EN_DECISION, cues.ZH_DECISION)
_LATELY = _rx(cues.EN_LATELY, cues.ZH_LATELY)
_SITUATIONAL = _rx(cues.EN_SITUATIONAL, cues.ZH_SITUATIONAL)
_FROM_NOW = _rx(cues.EN_DURABLE_FROM_NOW, cues.ZH_DURABLE_FROM_NOW)
_NEGATION_EXEMPT = _rx(cues.EN_NEGATION_EXEMPT, cues.ZH_NEGATION_EXEMPT)
_NEGATED = _rx(cues.EN_NEGATED, cues.ZH_NEGATED)
_ONE_TIME = _rx(cues.EN_ONE_TIME, cues.ZH_ONE_TIME)
_XIAN_COMPOUND = _rx(cues.ZH_XIAN_COMPOUNDS)
_HABIT_BEFORE_XIAN = re.compile(cues.ZH_HABIT_BEFORE_XIAN)
_SEQUENCE_AFTER_XIAN = re.compile(cues.ZH_SEQUENCE_AFTER_XIAN)
_HYPOTHETICAL_EXEMPT = _rx(cues.EN_HYPOTHETICAL_EXEMPT, cues.ZH_HYPOTHETICAL_EXEMPT)
_HYPOTHETICAL = _rx(cues.EN_HYPOTHETICAL, cues.ZH_HYPOTHETICAL)
_QUESTION = _rx(cues.EN_QUESTION, cues.ZH_QUESTION)
_REPORTED = _rx(cues.EN_REPORTED, cues.ZH_REPORTED)
_REPORTED_NAME = _rx(cues.EN_REPORTED_NAME)
_REPORTED_EXEMPT = _rx(cues.EN_GROUP_ARTIFACT)
_UNCERTAIN_EXEMPT = _rx(cues.ZH_UNCERTAIN_EXEMPT)
_UNCERTAIN = _rx(cues.EN_UNCERTAIN, cues.ZH_UNCERTAIN)
_FUTURE = _rx(cues.EN_FUTURE_PLAN, cues.ZH_FUTURE_PLAN)
_SARCASM = _rx(cues.EN_SARCASM, cues.ZH_SARCASM)
_TRANSIENT = _rx(cues.EN_TRANSIENT, cues.ZH_TRANSIENT)
_ROOT_CAUSE = _rx(cues.EN_ROOT_CAUSE, cues.ZH_ROOT_CAUSE)

# Leading filler and remember-cues, matched on the raw sentence (any case, ASCII or
# full-width punctuation) so that offsets stay those of the original text.
_P = r"[,，:：;；!！.。、\-—]"
_DISCOURSE_LEAD = re.compile(
    r"^(?:\s*(?:(?:" + cues.EN_LEAD + r")\b\s*" + _P + r"+\s*"
    r"|(?:actually|also|and|but|so|oh|ok|okay|well|hey|btw|anyway)\s+"
    r"|(?:" + cues.ZH_LEAD + r")\s*" + _P + r"*\s*))+",
    re.I,
)
_EXPLICIT_LEAD = re.compile(
    r"^(?:\s*(?:(?:please\s+)?(?:(?:always|do|permanently)\s+)?(?:remember|memori[sz]e"
    r"|keep in mind|make a note|take note|note|don't forget|do not forget|never forget"
    r"|for (?:future )?reference)\b(?:\s+that\b)?\s*" + _P + r"?\s*"
    r"|(?:请|麻烦你?)?(?:帮我|帮忙|你)?(?:务必|一定要?|永久|长期)?(?:记住|记下|记一下|记着|记得|牢记"
    r"|备注一下|记录一下)(?:一下)?\s*" + _P + r"*\s*|(?:别|不要)忘(?:了|记)\s*" + _P + r"*\s*))+",
    re.I,
)
_CLOSERS = "\"'”’)]}）】」』》 \t"
_FUTURE_PROBE = dt.datetime(2000, 1, 5, 12, tzinfo=dt.UTC)  # a Wednesday; see _points_ahead


def fold_text(text: str) -> str:
    """:func:`shared.textfold.folded_text` (NFKC, invisible and bidi characters, homoglyphs,
    traditional Chinese), case-folded, straight apostrophes, single spaces: the form cues are
    written for."""
    folded = folded_text(text).casefold()
    folded = folded.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(folded.split())


def strip_discourse(text: str) -> int:
    """Length of the leading filler of ``text`` ("Actually, ", "No, ", "对了" + comma)."""
    m = _DISCOURSE_LEAD.match(text)
    return m.end() if m else 0


def claim_offset(sentence: str) -> int:
    """Where the claim itself starts in ``sentence``: after filler and remember-cues.

    ``"Remember that I prefer yarn."`` -> offset of ``"I"``; for ``请记住`` + comma + ``我偏好…``
    the offset of ``我``. Works on the raw sentence, so the offset indexes the original text.
    """
    offset = 0
    while True:
        before = offset
        offset += strip_discourse(sentence[offset:])
        m = _EXPLICIT_LEAD.match(sentence[offset:])
        if m:
            offset += m.end()
        if offset == before:
            return offset


def _zh_for_now(text: str) -> bool:
    """True when some "先" means "for now" rather than "first" (then …)."""
    masked = _XIAN_COMPOUND.sub(lambda m: "_" * len(m.group(0)), text)
    for i, ch in enumerate(masked):
        if ch != "先":
            continue
        if _HABIT_BEFORE_XIAN.search(masked[:i]):
            continue  # "我习惯先写测试": an order of steps someone always follows
        if _SEQUENCE_AFTER_XIAN.search(masked[i + 1 :]):
            continue  # "先给结论再给细节": first … then …
        return True
    return False


def _weak_first_person(body: str) -> bool:
    for m in _FPD_WEAK.finditer(body):
        end = _CLAUSE_END.search(body, m.end())
        clause = body[m.start() : end.start() if end else len(body)]
        if not _ASPECT_EVENT.search(clause):
            return True
    return False


def _ends_with_question_mark(folded: str) -> bool:
    return folded.rstrip(_CLOSERS).endswith("?")


def _points_ahead(sentence: str) -> bool:
    """A relative time after the message day ("tomorrow", "下个月") makes the claim a plan.

    Direction does not depend on the anchor except for "this <weekday>", which is probed
    from a Wednesday: Thursday to Sunday of "this week" count as ahead.
    """
    probe = _FUTURE_PROBE.date()
    for rel in find_relative_times(sentence, _FUTURE_PROBE):
        if rel.granularity is Granularity.WEEK:
            ahead = rel.date > probe - dt.timedelta(days=probe.weekday())
        elif rel.granularity is Granularity.MONTH:
            ahead = (rel.date.year, rel.date.month) > (probe.year, probe.month)
        elif rel.granularity is Granularity.YEAR:
            ahead = rel.date.year > probe.year
        else:
            ahead = rel.date > probe
        if ahead:
            return True
    return False


def _durability_features(folded: str, body: str, raw_body: str) -> set[Feature]:
    found: set[Feature] = set()
    if _NEGATED.search(_NEGATION_EXEMPT.sub(" ", folded)):
        found.add(Feature.NEGATED)
    if _ONE_TIME.search(folded) or _zh_for_now(folded):
        found.add(Feature.ONE_TIME)
    if _HYPOTHETICAL.search(_HYPOTHETICAL_EXEMPT.sub(" ", folded)):
        found.add(Feature.HYPOTHETICAL)
    if _REPORTED.search(_REPORTED_EXEMPT.sub(" ", body)) or _REPORTED_NAME.search(raw_body.strip()):
        found.add(Feature.REPORTED)
    uncertain = bool(_UNCERTAIN.search(_UNCERTAIN_EXEMPT.sub(" ", folded)))
    if uncertain:
        found.add(Feature.UNCERTAIN)
    if not _FROM_NOW.search(folded) and (_FUTURE.search(folded) or _points_ahead(folded)):
        found.add(Feature.FUTURE_PLAN)
    if _SARCASM.search(folded):
        found.add(Feature.SARCASM)
    if _TRANSIENT.search(folded) or (uncertain and _ROOT_CAUSE.search(folded)):
        found.add(Feature.TRANSIENT)  # an unverified root-cause guess is not a fact
    return found


def classify(sentence: str) -> SentenceFeatures:
    """Classify one evidence sentence (SPEC §5.4). Deterministic; no anchor is needed.

    ``RELATIVE_TIME`` only reports that a relative date is present; it does not make the
    sentence non-durable (the extractor normalises it, the gate checks the value).
    """
    folded = fold_text(sentence)
    discourse_free = folded[strip_discourse(folded) :]
    raw_body = sentence[claim_offset(sentence) :]
    body = fold_text(raw_body)
    found = _durability_features(folded, body, raw_body)

    request = bool(_REQUEST.search(folded))
    if request or _EXPLICIT.search(discourse_free):
        found.add(Feature.EXPLICIT_INSTRUCTION)
    hedged = _LATELY.search(folded) or _SITUATIONAL.search(folded)
    if (_FPD.search(body) or _weak_first_person(body)) and not hedged:
        found.add(Feature.FIRST_PERSON_DURABLE)
    if not found & {Feature.EXPLICIT_INSTRUCTION, Feature.FIRST_PERSON_DURABLE}:
        found.add(Feature.INFERRED)
    if not request and (_ends_with_question_mark(folded) or _QUESTION.search(discourse_free)):
        found.add(Feature.QUESTION)

    words = tuple(r.word for r in find_relative_times(sentence, _FUTURE_PROBE))
    if words:
        found.add(Feature.RELATIVE_TIME)
    return SentenceFeatures(frozenset(found), words)
