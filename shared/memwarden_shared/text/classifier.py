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

from memwarden_shared.text import classifier_cues as cues
from memwarden_shared.text.batch_memo import per_batch
from memwarden_shared.text.code_switch import chat_please_lead, reading_form
from memwarden_shared.text.fold import Level, fold_text, simplified
from memwarden_shared.text.non_serious import declaration_alone, declared_joke, laughing
from memwarden_shared.text.prefilter import Prefiltered, prefiltered
from memwarden_shared.text.reltime import Granularity, find_relative_times
from memwarden_shared.text.segmenter import Sentence, list_markers, split_sentences
from memwarden_shared.text.stance import GROUP_PRACTICE_HEAD, StanceClaim, stance


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
    # said laughing ("lol", "哈哈", 😂): in jest as far as memory goes, not durable
    LAUGHTER = "laughter"
    TRANSIENT = "transient"
    ROOT_CAUSE = "root_cause"
    OPEN_FRAME = "open_frame"
    CONDITIONAL = "conditional"
    GENERAL_FACT = "general_knowledge"
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
        Feature.LAUGHTER,
        Feature.TRANSIENT,
        Feature.ROOT_CAUSE,
        Feature.OPEN_FRAME,
    }
)
# A dated event the owner asked to remember ("Remember the review is tomorrow at 10am") is a
# plan or a passing state by nature; extractor and gate let these two through for it alone.
DATED_EVENT_TOLERATED = frozenset({Feature.FUTURE_PLAN, Feature.TRANSIENT})
# What a frame left open on the line before carries into the claim after it (issue 10):
# "When I'm on the train,⏎I use light mode." A condition there cannot survive into a value
# taken from the next sentence, so it arrives as HYPOTHETICAL.
_CARRIED = frozenset(
    {
        Feature.NEGATED,
        Feature.HYPOTHETICAL,
        Feature.REPORTED,
        Feature.ONE_TIME,
        Feature.UNCERTAIN,
        Feature.FUTURE_PLAN,
        Feature.SARCASM,
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


def _rx(*groups: tuple[str, ...], flags: int = 0) -> re.Pattern[str] | Prefiltered:
    # most sentences hold none of a list's cues: a literal prefilter answers those fast
    return prefiltered(re.compile("|".join(f"(?:{p})" for group in groups for p in group), flags))


_EXPLICIT = _rx(cues.EN_EXPLICIT, cues.ZH_EXPLICIT)
_REQUEST = _rx(cues.EN_REQUEST, cues.ZH_REQUEST)
_STANDING_REQUEST = _rx(cues.EN_STANDING_REQUEST, cues.ZH_STANDING_REQUEST)
_NOTE_PREFIX = re.compile("|".join(cues.NOTE_PREFIX))
_FPD = _rx(cues.EN_FIRST_PERSON_DURABLE, cues.ZH_FIRST_PERSON_DURABLE)
_FPD_WEAK = _rx(cues.ZH_FIRST_PERSON_WEAK)
_NAME_IN_PASSING = re.compile(cues.EN_NAME_IN_PASSING)
_ASPECT_EVENT = re.compile(cues.ZH_ASPECT_EVENT)
_CLAUSE_END = re.compile(r"[,.!?;。、]")
DECISION = _rx(cues.EN_DECISION, cues.ZH_DECISION)
# A standing rule of the owner's own group ("our convention is", "团队规定"): a decision of
# the group's even where no "we" is written.
GROUP_RULE = _rx(cues.EN_GROUP_RULE, cues.ZH_GROUP_RULE)
_DECISION_LABEL = _rx((cues.EN_DECISION_LABEL,), (cues.ZH_DECISION_LABEL,))
_LATELY = _rx(cues.EN_LATELY, cues.ZH_LATELY)
_NOWADAYS = re.compile(r"\b(?:these days|nowadays)\b")
_SITUATIONAL = _rx(cues.EN_SITUATIONAL, cues.ZH_SITUATIONAL)
_FROM_NOW = _rx(cues.EN_DURABLE_FROM_NOW, cues.ZH_DURABLE_FROM_NOW)
_NEGATION_EXEMPT = _rx(cues.EN_NEGATION_EXEMPT, cues.ZH_NEGATION_EXEMPT)
_NEGATED = _rx(cues.EN_NEGATED, cues.ZH_NEGATED)
_CHOICE_OVER = _rx((cues.EN_CONTRAST, cues.ZH_CONTRAST, cues.ZH_CONTRAST_CJK), cues.EN_INSTEAD)
_PRESENT_HABIT = _rx(cues.EN_PRESENT_HABIT)
_STANDING_CHOICE = _rx(cues.EN_STANDING_CHOICE)
_ONE_TIME = _rx(cues.EN_ONE_TIME, cues.ZH_ONE_TIME)
_XIAN_COMPOUND = _rx(cues.ZH_XIAN_COMPOUNDS)
_HABIT_BEFORE_XIAN = re.compile(cues.ZH_HABIT_BEFORE_XIAN)
_SEQUENCE_AFTER_XIAN = re.compile(cues.ZH_SEQUENCE_AFTER_XIAN)
_HYPOTHETICAL_EXEMPT = _rx(cues.EN_HYPOTHETICAL_EXEMPT, cues.ZH_HYPOTHETICAL_EXEMPT)
_HYPOTHETICAL = _rx(cues.EN_HYPOTHETICAL, cues.ZH_HYPOTHETICAL)
_QUESTION = _rx(cues.EN_QUESTION, cues.ZH_QUESTION)
_REPORTED = _rx(cues.EN_REPORTED, cues.ZH_REPORTED)
_REPORTED_NAME = _rx(cues.EN_REPORTED_NAME)
_REPORTED_EXEMPT = _rx(cues.EN_GROUP_ARTIFACT, cues.REPORTED_EXEMPT)
_UNCERTAIN_EXEMPT = _rx(cues.ZH_UNCERTAIN_EXEMPT)
_UNCERTAIN = _rx(cues.EN_UNCERTAIN, cues.ZH_UNCERTAIN)
_FUTURE = _rx(cues.EN_FUTURE_PLAN, cues.ZH_FUTURE_PLAN)
_SARCASM = _rx(cues.EN_SARCASM, cues.ZH_SARCASM)
_TRANSIENT = _rx(cues.EN_TRANSIENT, cues.ZH_TRANSIENT)
_ROOT_CAUSE = _rx(cues.EN_ROOT_CAUSE, cues.ZH_ROOT_CAUSE)
_INCIDENT = _rx(cues.EN_INCIDENT, cues.ZH_INCIDENT)
_ROOT_CAUSE_CLAIM = _rx(cues.EN_ROOT_CAUSE_CLAIM, cues.ZH_ROOT_CAUSE_CLAIM)
_ABOUT_OWNER = _rx(cues.EN_ABOUT_OWNER, cues.ZH_ABOUT_OWNER)
_WORKSPACE = _rx(cues.EN_WORKSPACE, cues.ZH_WORKSPACE)
_STATES = _rx(cues.EN_STATES, cues.ZH_STATES)
CONDITION = _rx(cues.EN_CONDITION, cues.ZH_CONDITION)
_OPEN_FRAME_END = re.compile(cues.OPEN_FRAME_END)
_SWITCH_CLAUSE = re.compile(
    f"(?:{cues.EN_SWITCH_CLAUSE})|(?:{cues.ZH_SWITCH_CLAUSE})", re.IGNORECASE
)
_OWN_CONTENT_ELSEWHERE = re.compile(cues.OWN_CONTENT_ELSEWHERE)
_SUBORDINATE_FRAME = _rx(cues.EN_SUBORDINATE_FRAME, cues.ZH_SUBORDINATE_FRAME)
_GREETING = _rx(cues.GREETING)
_FORWARD_MARKER = _rx(cues.EN_FORWARD_MARKER, cues.ZH_FORWARD_MARKER)
_PASTE_FRAME = _rx(cues.EN_PASTE_FRAME, cues.ZH_PASTE_FRAME)
_CHAT_LABEL = re.compile(cues.CHAT_LABEL)
_ANNOUNCE = _rx(cues.EN_ANNOUNCE, cues.ZH_ANNOUNCE)
_FORM_LINE = re.compile(cues.FORM_LINE)
_SELF_LABEL = _rx(cues.SELF_LABEL)
_LABEL_ATTRIBUTION = _rx(cues.LABEL_ATTRIBUTION)
_CAPITALISED_NAME = re.compile(r"[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?")
_ZH_NAME_SHAPED = re.compile(r"[\u4e00-\u9fff·]{2,3}")
_QUOTED_SPEECH = re.compile(
    # someone said "…" / 某人说「…」
    r"(?<!\bi )\b(?:wrote|writes|said|says|posted|replied|texted|messaged|commented)\s*[:,]?\s*"
    r"[\"“「『]|(?<!我)(?:说|讲|话|写道)\s*[:：]?\s*[\"“「『]"
    # "…," Alice wrote / 「…」，小王说
    r"|^[\"“「『][^\"”」』]{1,300}[\"”」』]\s*[,，.。]?\s*(?!i\b|我)[^\s,，。.]{1,24}"
    r"(?:\s+\w+){0,2}?\s*(?:wrote|writes|said|says|replied|posted|told me|说|讲|话|写道|表示)"
)
_PROJECT = tuple(re.compile(p) for p in cues.EN_PROJECT + cues.ZH_PROJECT)
_PROJECT_GENERIC = _rx(cues.PROJECT_GENERIC)
_QUALIFIER = _rx(cues.EN_QUALIFIER, cues.ZH_QUALIFIER, flags=re.IGNORECASE)

# Leading filler and remember-cues, matched on the raw sentence (any case, ASCII or
# full-width punctuation) so that offsets stay those of the original text.
_P = r"[,，:：;；!！.。、\-—～~]"
_DISCOURSE_LEAD = re.compile(
    r"^(?:\s*(?:(?:" + cues.EN_LEAD + r")\b\s*" + _P + r"+\s*"
    r"|(?:actually|also|and|but|so|oh|ok|okay|well|hey|btw|anyway|tbh|lol|haha+|lmao|imo"
    r"|imho|fwiw|um+|uh+|hmm+)\s+"
    r"|(?:" + cues.ZH_LEAD + r")\s*" + _P + r"*\s*))+",
    re.I,
)
_EXPLICIT_LEAD = re.compile(
    r"^(?:\s*(?:(?:please\s+)?(?:(?:always|do|permanently)\s+)?(?:remember|memori[sz]e"
    r"|keep in mind|make a note|take note|(?:note|memo|reminder)\s+(?:to|for)\s+(?:self"
    r"|myself|you|us|later|the future|future reference|future me|next time)"
    r"(?:\s*\([^()]{0,24}\))?(?=\s*[:\-—])|note|don't forget|do not forget|never forget"
    r"|don't let me forget|do not let me forget"
    r"|for (?:future )?reference|memo(?: to (?:self|myself))?"
    r"|(?:fyi|just so you know)\s+for (?:later|the future|future reference)|for later"
    r"|for the record|nb|n\.b)(?:\b|(?<=\)))\.?"
    r"(?:\s+that\b)?\s*" + _P + r"?\s*"
    r"|(?:请|麻烦你?)?(?:帮我|帮忙|你)?(?:务必|一定要?|永久|长期)?(?:记住|记下|记一下|记[着著]|记得|牢记"
    r"|备注一下|记录一下|备忘录|给自己的备忘|备忘|(?:备注|记录|笔记|留个底)(?=\s*[:：]))(?:一下)?\s*"
    + _P
    + r"*\s*|(?:别|不要)(?:让我)?忘(?:了|记)\s*"
    + _P
    + r"*\s*))+",
    re.I,
)
_CLOSERS = "\"'”’)]}）】」』》 \t"
_FUTURE_PROBE = dt.datetime(2000, 1, 5, 12, tzinfo=dt.UTC)  # a Wednesday; see _points_ahead


def strip_discourse(text: str) -> int:
    """Length of the leading filler of ``text`` ("Actually, ", "No, ", "对了" + comma)."""
    m = _DISCOURSE_LEAD.match(text)
    return m.end() if m else 0


def claim_offset(sentence: str) -> int:
    """Where the claim itself starts in ``sentence``: after filler and remember-cues.

    ``"Remember that I prefer yarn."`` -> offset of ``"I"``; for ``请记住`` + comma + ``我偏好…``
    the offset of ``我``. Works on the raw sentence (simplified one character for one), so
    the offset indexes the original text.
    """
    sentence = simplified(sentence)
    offset = 0
    while True:
        before = offset
        offset += strip_discourse(sentence[offset:])
        offset += chat_please_lead(sentence[offset:])  # "pls remember …"
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


# What turns a past day into the start of something lasting: "since yesterday", "从上周起",
# "last month I switched to pnpm", "我昨天决定以后都用…".
_STARTS = re.compile(
    r"\b(?:since|starting|started|starts|as of|from|began|begun|decided|agreed|chose|switched"
    r"|moved|changed|migrated|adopted|settled|joined|became|hired|promoted|married|enrolled)\b"
    r"|开始|起|以来|以后|今后|从|决定|定了|约定|商定|换成|换到|改用|改成|切换|转到|搬到|加入|入职"
    r"|成为|当上"
)


_ZH_PAST_DAY = re.compile(r"昨天|昨晚|前天|上周|上个?星期|上个?礼拜|上个?月|去年|前年|前几天")


def _looks_back(sentence: str) -> bool:
    """A relative time before the message day ("yesterday", "上周") bounds the claim to an
    episode that is over ("我昨天一直在用 duckdb"): Chinese marks no tense, so the day says it.
    The deictic past words are read directly too: the date parser reads "上周一直" as last
    Monday and drops "上个月一直"."""
    if _ZH_PAST_DAY.search(sentence):
        return True
    probe = _FUTURE_PROBE.date()
    for rel in find_relative_times(sentence, _FUTURE_PROBE):
        if rel.granularity is Granularity.WEEK:
            back = rel.date < probe - dt.timedelta(days=probe.weekday())
        elif rel.granularity is Granularity.MONTH:
            back = (rel.date.year, rel.date.month) < (probe.year, probe.month)
        elif rel.granularity is Granularity.YEAR:
            back = rel.date.year < probe.year
        else:
            back = rel.date < probe
        if back:
            return True
    return False


def _durability_features(folded: str, body: str, raw_body: str) -> set[Feature]:
    return (
        _attitude_features(folded)
        | _timing_features(folded)
        | _speaker_features(folded, body, raw_body)
        | _scope_features(body)
    )


def _attitude_features(folded: str) -> set[Feature]:
    """How the owner holds the claim: negated, hypothetical, unsure, sarcastic, a guess."""
    found: set[Feature] = set()
    if _NEGATED.search(_NEGATION_EXEMPT.sub(" ", folded)):
        found.add(Feature.NEGATED)
    if _HYPOTHETICAL.search(_HYPOTHETICAL_EXEMPT.sub(" ", folded)):
        found.add(Feature.HYPOTHETICAL)
    uncertain = bool(_UNCERTAIN.search(_UNCERTAIN_EXEMPT.sub(" ", folded)))
    if uncertain:
        found.add(Feature.UNCERTAIN)
    if _SARCASM.search(folded) or declared_joke(folded):
        found.add(Feature.SARCASM)
    if _ROOT_CAUSE_CLAIM.search(folded) or (uncertain and _ROOT_CAUSE.search(folded)):
        found.add(Feature.ROOT_CAUSE)  # an unverified root-cause claim is not a fact
    return found


def _timing_features(folded: str) -> set[Feature]:
    """How long the claim holds: this once, from some later day, for hours."""
    found: set[Feature] = set()
    if _ONE_TIME.search(folded) or _zh_for_now(folded):
        found.add(Feature.ONE_TIME)
    if not _FROM_NOW.search(folded) and (_FUTURE.search(folded) or _points_ahead(folded)):
        found.add(Feature.FUTURE_PLAN)
    if _TRANSIENT.search(folded) or _INCIDENT.search(folded):
        found.add(Feature.TRANSIENT)  # a state of the owner or of a system, true for hours
    elif not _FROM_NOW.search(folded) and not _STARTS.search(folded) and _looks_back(folded):
        found.add(Feature.TRANSIENT)  # a past episode: "我上周一直用 duckdb"
    return found


def _speaker_features(folded: str, body: str, raw_body: str) -> set[Feature]:
    """Whose words these are, and whether the content is here at all."""
    found: set[Feature] = set()
    # the owner's own group at work ("our team uses Jira", "我们团队用飞书") is no report
    exempt = GROUP_PRACTICE_HEAD.sub(" ", _REPORTED_EXEMPT.sub(" ", body))
    if _REPORTED.search(exempt) or _REPORTED_NAME.search(raw_body.strip()):
        found.add(Feature.REPORTED)
    if _reported_label(raw_body) or _QUOTED_SPEECH.search(folded) or _quoted_after_head(folded):
        found.add(Feature.REPORTED)  # "Bob: …", "张三：…", 'Alice wrote: "…"'
    if _OWN_CONTENT_ELSEWHERE.search(folded) and not _OPEN_FRAME_END.fullmatch(folded):
        found.add(Feature.OPEN_FRAME)  # "Remember this deploy key:" — its content is elsewhere
    return found


def _scope_features(body: str) -> set[Feature]:
    """What the claim is restricted to, and whether it is about the owner's world at all."""
    found: set[Feature] = set()
    if CONDITION.search(body):
        found.add(Feature.CONDITIONAL)
    if not _ABOUT_OWNER.search(body) and not _WORKSPACE.search(body) and _STATES.search(body):
        found.add(Feature.GENERAL_FACT)  # neither the owner, the assistant nor their systems
    return found


def _quoted_after_head(folded: str) -> bool:
    """A paste or attribution head before a colon: "Copy-pasting from the doc: remember …"."""
    head, colon, rest = folded.partition(":")
    return bool(colon and rest.strip() and len(head) <= 60 and _PASTE_FRAME.search(head))


def _reported_label(raw: str) -> bool:
    """A chat-log label ("Bob:", "[10:42] dave:", "<mike>", "张三：", "陈经理写道：") rather than
    the owner's own heading ("Note:", "Quick note:", "记住：", "背景交代一下：").

    A label names someone when it is a nick in angle brackets, follows a timestamp, ends with
    an attribution verb, holds a person word, or is name-shaped: one token, or capitalised
    words ("John Smith"), or two or three Chinese characters — and is no known heading.
    """
    m = _CHAT_LABEL.match(raw)
    if m is None or raw[m.end() : m.end() + 2] == "//":
        return False  # "https://…" is no label
    irc, latin, cjk = m.groups()
    written = (irc or latin or cjk).strip()
    label_raw = re.sub(r"\s*\([^()]*\)$", "", written)  # "Bob (Slack)"
    label = fold_text(label_raw, Level.SPACE)
    said = _label_words(label)
    if said is not None:
        return said
    if irc or raw.lstrip().lstrip("-—–*• ").startswith("[") or label_raw != written:
        return True  # a nick, a timestamped line, a name with its channel
    return _name_shaped(label, label_raw, latin=bool(latin), after=raw[m.end() :])


def _label_words(label: str) -> bool | None:
    """True when the label's words attribute ("Dan said", "my manager", "老板说"), False when
    they are the owner's own heading, None when they say neither."""
    if _DECISION_LABEL.match(label + ": …"):
        # "定论：…", "团队决定：…", "Final word:": the owner's group's decision, no speaker
        # (the label's words are its own: no other person's name or title passes)
        return False
    if _LABEL_ATTRIBUTION.search(label) or _REPORTED.search(label):
        return True
    if _SELF_LABEL.search(label) or _EXPLICIT_LEAD.match(label) or label.startswith("my "):
        return False
    return None


def _name_shaped(label: str, label_raw: str, *, latin: bool, after: str) -> bool:
    """A label that reads as a speaker's name: a transcript's numbered speaker, one Latin
    token or capitalised words, two or three Chinese characters."""
    if label[-1:].isdigit():
        # "SPEAKER 2:", "Person 1:": a transcript's speaker; never "I take the 7:45 train"
        return bool(re.fullmatch(r"[a-z]+ \d{1,3}", label)) and not after[:1].isdigit()
    if latin:
        return " " not in label or bool(_CAPITALISED_NAME.fullmatch(label_raw))
    return bool(_ZH_NAME_SHAPED.fullmatch(label))


def states_choice_over(sentence: str) -> bool:
    """The sentence chooses one thing over a named other: "I use Podman, not Docker",
    "我用 GitLab，不是 GitHub", "I write Go instead of Rust".

    With a first-person durable statement this is a deliberate, standing choice, so the
    owner's own words may be kept as a ``preference.note`` where no narrower key fits, even
    without a remember-instruction (extractor and gate both ask this).
    """
    return bool(_CHOICE_OVER.search(fold_text(sentence, Level.SPACE).strip()))


def note_may_stand(features: SentenceFeatures, sentence: str) -> bool:
    """An explicit-only key (``preference.note``) may be filed from this sentence: the owner
    asked to remember it, states a choice over a named other ("I use Podman, not Docker"),
    or gives a standing rule for their own work ("Use Podman for my projects")."""
    if features.has(Feature.EXPLICIT_INSTRUCTION):
        return True
    raw_body = sentence[claim_offset(sentence) :]
    body = fold_text(raw_body, Level.SPACE)
    return features.has(Feature.FIRST_PERSON_DURABLE) and (
        states_choice_over(sentence)
        or bool(_STANDING_CHOICE.search(body))
        or stance(raw_body) is not None  # "I prefer X", "我一般…", "we use X" (text.stance)
    )


def _chosen_habit(body: str) -> bool:
    """A present habit turning down an alternative: "I indent with tabs, not spaces" (never
    "I ate pizza, not pasta")."""
    return bool(_CHOICE_OVER.search(body.strip()) and _PRESENT_HABIT.search(body))


@per_batch  # the gate asks again for each check and proposal
def classify(sentence: str) -> SentenceFeatures:
    """Classify one evidence sentence (SPEC §5.4). Deterministic; no anchor is needed.

    ``RELATIVE_TIME`` only reports that a relative date is present; it does not make the
    sentence non-durable (the extractor normalises it, the gate checks the value).

    The rules read a simplified copy (one character for one): traditional and simplified
    Chinese are one language to them, whichever rule looks at the raw text.
    """
    sentence = reading_form(simplified(sentence))  # "pls", "我的 timezone 是 …"
    folded = fold_text(sentence, Level.SPACE)
    discourse_free = folded[strip_discourse(folded) :]
    offset = claim_offset(sentence)
    raw_body = sentence[offset:]
    # most claims start the sentence
    body = folded if offset == 0 else fold_text(raw_body, Level.SPACE)
    found = _durability_features(folded, body, raw_body)
    found |= _claim_features(folded, discourse_free, body, stance(raw_body))
    # laughter anywhere in the claim's sentence: leading it ("lol remember that …") or
    # commenting on it ("my name is Batman lol"), the claim may not be meant
    if laughing(folded):
        found.add(Feature.LAUGHTER)
    words = tuple(r.word for r in find_relative_times(sentence, _FUTURE_PROBE))
    if words:
        found.add(Feature.RELATIVE_TIME)
    return SentenceFeatures(frozenset(found), words)


def _claim_features(
    folded: str, discourse_free: str, body: str, said: StanceClaim | None
) -> set[Feature]:
    """How the claim is made: asked to remember, stated in the first person, or neither
    (inferred); asked as a question (a request is no question)."""
    found: set[Feature] = set()
    request = bool(_REQUEST.search(folded))
    asked = request or _STANDING_REQUEST.search(folded) or _NOTE_PREFIX.search(folded)
    if asked or _EXPLICIT.search(discourse_free):
        found.add(Feature.EXPLICIT_INSTRUCTION)
    # "these days" with a stance in the present simple is now, not a trend ("These days I
    # prefer tea"); "lately", "recently", "最近" and "I've been using" stay a trend
    trend = _LATELY.search(_NOWADAYS.sub(" ", folded) if said else folded)
    hedged = trend or _SITUATIONAL.search(folded)
    standing = _chosen_habit(body) or _STANDING_CHOICE.search(body) or said is not None
    stated = _FPD.search(body) or _NAME_IN_PASSING.search(folded) or _weak_first_person(body)
    if (stated or standing) and not hedged:
        found.add(Feature.FIRST_PERSON_DURABLE)
    if not found & {Feature.EXPLICIT_INSTRUCTION, Feature.FIRST_PERSON_DURABLE}:
        found.add(Feature.INFERRED)
    if not request and (_ends_with_question_mark(folded) or _QUESTION.search(discourse_free)):
        found.add(Feature.QUESTION)
    return found


# --------------------------------------------------------------------------- message context

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\u3000]*\n")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_QUOTE_LINE = re.compile(r"^\s*[>＞]")
# "Bob Smith 10:42 AM", "张三 10:42": a chat client's header line above a pasted message
_CHAT_HEADER = re.compile(
    r"^\s*(?:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?|[\u4e00-\u9fff·]{2,6})\s*[,，]?\s+"
    r"(?:\[?\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AaPp][Mm])?\]?|(?:上午|下午|晚上)\d{1,2}:\d{2})\s*$"
)
_TERMINAL = re.compile(r"[.!?。！？…]['\"”’)）」』】]*$")


def _line_start(text: str, offset: int) -> int:
    return max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1


def _in_pasted_block(text: str, start: int) -> bool:
    """Inside a ``` fence, on a ``>`` quote line, or after a forwarded-mail marker."""
    if _QUOTE_LINE.match(text[_line_start(text, start) :]):
        return True
    lines = text[: _line_start(text, start)].splitlines()
    if sum(1 for line in lines if _FENCE.match(line)) % 2 == 1:
        return True
    return any(_FORWARD_MARKER.search(fold_text(line, Level.SPACE)) for line in lines)


def _frame_features(frame: str, closed: bool) -> set[Feature]:
    """What the sentence just before the claim leaves open for it.

    ``closed``: the frame ended with a full stop (or the like); it governs nothing after it.
    A frame ending in ``, ; :`` is open; so is one cut by a line break that starts with a
    condition ("When I'm at work⏎I use npm") and never reached its consequent.
    """
    if closed:
        return set()
    features = classify(frame)
    open_end = bool(_OPEN_FRAME_END.search(fold_text(frame, Level.SPACE)))
    conditional = features.has(Feature.CONDITIONAL) or features.has(Feature.HYPOTHETICAL)
    if not open_end and not conditional:
        return set()
    carried = set(features.features & _CARRIED)
    if conditional:
        carried.add(Feature.HYPOTHETICAL)
    return carried


_SUBJECT_WORD = re.compile(r"\b(?:i|i'm|i've|we|we're|you|my|our)\b|我|你")
_ZH_CONDITION_TAIL = re.compile(r"(?:的时候|时候|时|的话|期间|之前|之后|以后)\s*[。.！!]?$")


def _bare_condition(frame: str) -> bool:
    """A condition that never reached its consequent, even when closed by a full stop:
    "When on the train." / "在公司的时候。" governs the next sentence."""
    folded = fold_text(frame, Level.SPACE)
    if _GREETING.search(_FRAME_PUNCT.sub("", folded).strip()):
        return False  # "早上好！" names a time of day, but as a greeting it conditions nothing
    features = classify(frame)
    if not (features.has(Feature.CONDITIONAL) or features.has(Feature.HYPOTHETICAL)):
        return False
    if _ZH_CONDITION_TAIL.search(folded):
        return True
    return "," not in folded and len(_SUBJECT_WORD.findall(folded)) < 2 and len(folded.split()) <= 8


def _attributes_what_follows(frame: str) -> bool:
    """ "My manager said:", "Here's the doc:", "以下是聊天记录：": the lines after are quoted."""
    folded = fold_text(frame, Level.SPACE).rstrip()
    if folded.endswith(":"):
        folded = folded[:-1].rstrip()
    elif _TERMINAL.search(folded) or not _LABEL_ATTRIBUTION.search(folded):
        return False  # without a colon only "Alice wrote⏎…" (a verb of saying at the end)
    return bool(_PASTE_FRAME.search(folded)) or classify(frame).has(Feature.REPORTED)


_FRAME_PUNCT = re.compile(r"[\s,:;，：；、—–.!?。！？…'\"”’)）」』】-]+$")


def _governs_next(frame: str) -> bool:
    """An opening line that does not stand as a durable statement of its own governs the
    sentence after it (issue 10): "I wouldn't say⏎…", "Back when I was a student;⏎…",
    "In client presentations only,⏎…", "上大学那会儿；⏎…", "我可没说过⏎…".

    It stands when it is a greeting, a heading or remember-cue ("Hi there,", "Quick note:",
    "记住："), a chat line ("nice, CI is green now ✅"), or a first-person durable claim that
    is no subordinate frame. Otherwise it governs when it is a subordinate, negating or
    attributing frame not closed by a full stop, when it ends in ``, ; :``, or when it is a
    subordinate fragment with no subject of its own even though closed ("Only in meetings.").
    """
    folded = fold_text(frame, Level.SPACE)
    core = _FRAME_PUNCT.sub("", folded).strip()
    if not core or claim_offset(frame) >= len(frame.rstrip(_CLOSERS + ",:;，：；.!?。！？")):
        return False  # all filler or a remember-cue: "Hi!", "Note:", "请记住："
    if _SELF_LABEL.search(core) or _GREETING.search(core) or _DISCOURSE_LEAD.fullmatch(folded):
        return False
    own = classify(frame)
    subordinate = bool(_SUBORDINATE_FRAME.search(core))
    if own.has(Feature.FIRST_PERSON_DURABLE) and not subordinate and not own.not_durable:
        return False  # "I use vim;⏎I prefer dark mode." — two claims
    if not _TERMINAL.search(folded.rstrip()):
        framing = own.features & {
            Feature.NEGATED,
            Feature.CONDITIONAL,
            Feature.HYPOTHETICAL,
            Feature.REPORTED,
        }
        return bool(subordinate or framing or _OPEN_FRAME_END.search(folded))
    return subordinate and not _SUBJECT_WORD.search(core)


def _pasted_form(text: str, start: int) -> bool:
    """Two or more "label: value" lines in the block above: a pasted form or profile."""
    block = _PARAGRAPH_BREAK.split(text[: _line_start(text, start)])[-1]
    return sum(1 for line in block.splitlines() if _FORM_LINE.match(line)) >= 2


def context_features(text: str, start: int) -> frozenset[Feature]:
    """Features the rest of the message gives the sentence starting at ``start`` (issue 10).

    The segmenter cuts at line breaks and semicolons, so a condition, negation or
    attribution can sit alone on the line before the claim it governs. Looks only backwards
    inside the same message: pasted and forwarded blocks; everything after an attribution
    or paste frame that ends in a colon ("My manager wrote:", "以下是聊天记录：") or after a
    chat header ("Bob Smith 10:42 AM"); and the frames left open just before the sentence,
    one after another while each ends in ``, ; :`` (a blank line does not close those).
    """
    text = simplified(text)
    before = [s for s in split_sentences(text) if s.end <= start]
    found = _quoted_context(text, start, before)
    cut_off = before and not _PARAGRAPH_BREAK.search(text[before[-1].end : start])
    switch = bool(before) and _switch_after_negation(text, start, before[-1].text)
    if cut_off and not switch and _governs_next(before[-1].text):
        found.add(Feature.OPEN_FRAME)  # the claim is the frame's consequent, not its own
    carried = _open_frames(text, start, before)
    if switch:
        carried.discard(Feature.NEGATED)  # the negation was about the old value
    return frozenset(found | carried)


def _quoted_context(text: str, start: int, before: list[Sentence]) -> set[Feature]:
    """REPORTED when the sentence sits in someone else's words: a pasted or forwarded block,
    a pasted profile, words announced as someone else's, or quoted text running on after an
    attribution frame or a chat header (an owner's aside after it is lost)."""
    quoted = (
        _in_pasted_block(text, start)
        or _pasted_form(text, start)
        or any(_ANNOUNCE.search(fold_text(s.text, Level.SPACE)) for s in before)
        or any(_attributes_what_follows(s.text) or _CHAT_HEADER.match(s.text) for s in before)
    )
    return {Feature.REPORTED} if quoted else set()


def _open_frames(text: str, start: int, before: list[Sentence]) -> set[Feature]:
    """What the frames left open just before the sentence carry into it, one after another
    while each ends in ``, ; :`` (a blank line does not close those)."""
    found: set[Feature] = set()
    for i in range(len(before) - 1, -1, -1):
        frame = before[i].text
        gap = text[before[i].end : start if i == len(before) - 1 else before[i + 1].start]
        closed = bool(_TERMINAL.search(frame))
        open_end = bool(_OPEN_FRAME_END.search(fold_text(frame, Level.SPACE)))
        if _PARAGRAPH_BREAK.search(gap) and not open_end:
            break
        found |= _frame_features(frame, closed)
        if closed and i == len(before) - 1 and _bare_condition(frame):
            found.add(Feature.HYPOTHETICAL)
        if closed or not open_end:
            break  # only a chain of open frames reaches further back
    return found


def _switch_after_negation(text: str, start: int, frame: str) -> bool:
    """The sentence at ``start`` opens with a switch clause ("I've switched to Y", "我改用 Y")
    and the frame before it only negates: "I don't use X anymore;" was about the old value."""
    if not _SWITCH_CLAUSE.match(fold_text(text[start:], Level.SPACE).lstrip()):
        return False
    framing = classify(frame).features & {
        Feature.CONDITIONAL,
        Feature.HYPOTHETICAL,
        Feature.REPORTED,
        Feature.QUESTION,
        Feature.SARCASM,
    }
    return not framing


@per_batch  # the gate asks again for each check and proposal
def classify_span(text: str, start: int, end: int) -> SentenceFeatures:
    """:func:`classify` of ``text[start:end]`` plus what the message around it leaves open.

    An item of an inline enumerated list ("Remember two things: 1) … 2) …") whose header
    asks to remember is itself asked to be remembered: the header's instruction, not its
    open colon, is what it carries (issue 25)."""
    own = classify(text[start:end])
    taken_back = _taken_back(text, end)
    header = _list_header(text, start)
    if header is not None:
        return SentenceFeatures(
            (own.features - {Feature.INFERRED}) | {Feature.EXPLICIT_INSTRUCTION} | taken_back,
            own.relative_time_words,
        )
    carried = context_features(text, start) | taken_back
    if not carried - own.features:
        return own
    return SentenceFeatures(own.features | carried, own.relative_time_words)


def _taken_back(text: str, end: int) -> frozenset[Feature]:
    """SARCASM when the next sentence of the message only declares a joke ("Just kidding.",
    "开玩笑的"): it takes back the sentence before it."""
    after = next((s for s in split_sentences(text) if s.start >= end), None)
    if after is not None and declaration_alone(after.text):
        return frozenset({Feature.SARCASM})
    return frozenset()


def _list_header(text: str, start: int) -> str | None:
    """The remember-instruction heading the inline list whose item starts at ``start``, or
    None: the item must follow a list marker, and the header (the sentence before the first
    marker) must have the shape of one (``classifier_cues.LIST_HEADER``: "Remember two
    things:", "记住两件事："); a header negated, supposed, asked or someone else's has not."""
    markers = list_markers(text)
    if not markers or not any(
        m_end <= start and not text[m_end:start].strip() for _, m_end in markers
    ):
        return None
    heads = split_sentences(text[: markers[0][0]])
    if not heads:
        return None
    header = fold_text(reading_form(heads[-1].text), Level.SPACE)  # "pls remember …:"
    return header if _LIST_HEADER.match(header[strip_discourse(header) :]) else None


_LIST_HEADER = re.compile(cues.LIST_HEADER)


def named_project(sentence: str) -> str | None:
    """The one project a sentence scopes its claim to ("For the atlas project …", "在 atlas
    项目里…"), or None for none or a general one ("for all my projects")."""
    folded = fold_text(sentence, Level.SPACE)
    for pattern in _PROJECT:
        for m in pattern.finditer(folded):
            name = m.group("name").strip()
            if name and not _PROJECT_GENERIC.search(name) and not _every_new(name, folded, m):
                return name
    return None


# "新项目都…": the new projects, each of them, a distributive quantifier after the noun
_ZH_EVERY_AFTER = re.compile(r"\s*(?:都|全都|全部|一律|统统|统一|一概)")


def _every_new(name: str, folded: str, m: re.Match[str]) -> bool:
    """The project noun is a quantified class of new projects ("以后新项目都用 Go"), not one
    project: its "name" ends in 新 and a distributive quantifier follows the noun."""
    return name.endswith("新") and bool(_ZH_EVERY_AFTER.match(folded, m.end()))


def narrowing_qualifier(sentence: str) -> str | None:
    """The phrase that narrows the sentence's claim to one context it does not name ("for
    this client", "for billing", "在这个项目里"), or None. A claim carrying one is not a
    user-wide fact (seed 002, minimal scope)."""
    found = _QUALIFIER.search(fold_text(sentence, Level.SPACE))
    return found.group(0).strip() if found else None
