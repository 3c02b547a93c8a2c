"""The default rules extractor (SPEC §11): one turn -> MemoryProposals. Pure.

It proposes only what the gate could accept: the owner's own user turns, one whole
sentence as evidence, values grounded in that sentence (checked with the gate's own
:func:`~shared.grounding.ungrounded_reason`), relative dates normalised from the message
time, no secrets, nothing one-time, hypothetical, questioned, reported, uncertain, planned,
sarcastic, transient or negated. An inferred but plausible preference ("I've been using bun
a lot lately") is still proposed, at confidence 0.5, so the gate asks the owner.

Identity is deterministic: ``stable_candidate_ordinal = sentence_index * 16 +
KEY_ORDER.index(key)`` (see :mod:`services.extractor.routes`), so the same turn always
yields the same proposal ids, whatever order the rules run in.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from memwarden_extractor.events import event_value
from memwarden_extractor.routes import (
    GROUP_SPEAKER,
    KEY_ORDER,
    ORDINAL_STRIDE,
    has_speaker,
    is_habit_of_speaker,
    make_sentence,
    route,
)
from memwarden_shared.contract.models import (
    Evidence,
    MemoryKind,
    ProposalBody,
    Role,
    Scope,
    ScopeKind,
    Source,
    Turn,
)
from memwarden_shared.contract.registry import KeySpec, Registry
from memwarden_shared.detect.grounding import ungrounded_reason
from memwarden_shared.detect.secrets import contains_secret
from memwarden_shared.text.classifier import (
    DATED_EVENT_TOLERATED,
    NOT_DURABLE,
    Feature,
    SentenceFeatures,
    claim_offset,
    classify_span,
    note_may_stand,
)
from memwarden_shared.text.reltime import normalise_relative_times
from memwarden_shared.text.segmenter import Sentence, split_sentences

EXTRACTOR_VERSION = "rules-1.2"  # issue 15 round 2: choice-over notes, standing imperatives

CONFIDENCE_EXPLICIT = 0.9  # "remember that …", "请记住"
CONFIDENCE_FIRST_PERSON = 0.8  # "I prefer …", "我一直用 …"
CONFIDENCE_INFERRED = 0.5  # only orders the owner's review queue (SPEC §5)
SESSION_FACT_TTL = dt.timedelta(days=1)

_TRAILING = "。．.!！?？;；…~～\"'”’)）]】」』》,，:： \t"
# A remember-cue may also close the sentence: "我有高血压，请记住。", "I work remotely, remember."
_TRAILING_CUE = re.compile(
    r"(?:[,，;；:：\s—-]+(?:please\s+)?(?:remember|note|keep in mind)(?:\s+(?:that|this|it))?"
    r"|[,，;；:：\s]+(?:请|帮我|麻烦你?)?(?:记住|记一下|记下|记着)(?:了|哦|啊|吧)?)$",
    re.I,
)
_EVENT_KEY = "task_fact.event"  # dated events the owner asked to remember
_DIET_KEY = "profile.diet"
_HOUSEHOLD_KEY = "profile.note"
_SESSION_KEY = "task_fact.note"  # only ever from a sentence that is one-time and nothing else
_NOTE_KEY = "preference.note"  # explicit remember-instructions that fit nothing narrower
# How to reply is always about the owner, so an instruction needs no "I" to be theirs.
_REPLY_KEYS = frozenset({"preference.language", "preference.communication_style"})


def raw_claim(sentence: str) -> str:
    """The claim clause of ``sentence`` as written: remember-cue and end punctuation stripped."""
    claim = sentence[claim_offset(sentence) :].strip().rstrip(_TRAILING).strip()
    return _TRAILING_CUE.sub("", claim).rstrip(_TRAILING).strip()


def claim_text(sentence: str, anchor: dt.datetime) -> str:
    """The claim clause of ``sentence``: remember-cue and end punctuation stripped, dates absolute.

    ``"Remember that I started leading the platform team yesterday."`` (2026-03-10) ->
    ``"I started leading the platform team on 2026-03-09"``.
    """
    return normalise_relative_times(raw_claim(sentence), anchor).strip()


def _confidence(features: SentenceFeatures) -> float:
    if features.has(Feature.EXPLICIT_INSTRUCTION):
        return CONFIDENCE_EXPLICIT
    if features.has(Feature.FIRST_PERSON_DURABLE):
        return CONFIDENCE_FIRST_PERSON
    return CONFIDENCE_INFERRED


def _remembered_event(sentence: str, features: SentenceFeatures, anchor: dt.datetime) -> str | None:
    """The ``task_fact.event`` value of a dated event the owner asked to remember, or None.

    Only an explicit request makes an event durable ("记一下，我们下周五上线"); one merely
    mentioned ("The design review is tomorrow") is not, nor one that is also hypothetical,
    questioned, reported, uncertain, one-time or sarcastic. A plan or a passing state is
    what an event is, so those two do not count against it (the gate agrees).
    """
    if not features.has(Feature.EXPLICIT_INSTRUCTION):
        return None
    if features.features & NOT_DURABLE - DATED_EVENT_TOLERATED:
        return None
    found = event_value(raw_claim(sentence), anchor)
    return found[0] if found else None


def _candidates(
    sentence: str,
    claim: str,
    features: SentenceFeatures,
    registry: Registry,
    session_task_facts: bool,
    anchor: dt.datetime,
) -> dict[str, str]:
    """key -> value this sentence may propose; empty when it states nothing durable."""
    if features.has(Feature.QUESTION):
        return {}
    event = _remembered_event(sentence, features, anchor)
    if event is not None and (features.not_durable or features.has(Feature.NEGATED)):
        return {_EVENT_KEY: event}  # the event is all a plan or a negation may give
    if features.has(Feature.NEGATED):
        return _negated_candidates(sentence, claim, features, registry)
    if features.not_durable:
        only_one_time = features.features & NOT_DURABLE == {Feature.ONE_TIME}
        return {_SESSION_KEY: claim} if session_task_facts and only_one_time and claim else {}
    return _durable_candidates(sentence, claim, features, registry, event)


def _negated_candidates(
    sentence: str, claim: str, features: SentenceFeatures, registry: Registry
) -> dict[str, str]:
    """A negated sentence proposes its whole claim, negation kept, or nothing."""
    # "I don't eat pork", "请记住，我不吃辣": a diet is the whole claim, negation kept
    s = make_sentence(sentence, claim)
    owners = not features.not_durable and has_speaker(s.folded) and claim
    if owners and route(s, registry).get(_DIET_KEY) == claim:
        return {_DIET_KEY: claim}
    # "Remember that I never take calls on Fridays": only the whole claim, negation kept,
    # as a note; a narrow key would turn "I don't use npm" into npm
    negated_note = (
        features.has(Feature.EXPLICIT_INSTRUCTION)
        and not features.not_durable
        and not features.has(Feature.GENERAL_FACT)
        and claim
    )
    return {_NOTE_KEY: claim} if negated_note else {}


def _durable_candidates(
    sentence: str,
    claim: str,
    features: SentenceFeatures,
    registry: Registry,
    event: str | None,
) -> dict[str, str]:
    """The keys a durable, unnegated sentence routes to that its owner may hold; else the
    remembered event, else the claim as a note where one may stand."""
    s = make_sentence(sentence, claim)
    habit = is_habit_of_speaker(s.folded)
    if not features.explicit and not habit:
        return {}  # an inferred claim must at least be a habit of the speaker
    holds = _owner_may_hold(s.folded, features, habit)
    routed = {key: value for key, value in route(s, registry).items() if holds(key)}
    if event is not None and not routed:
        return {_EVENT_KEY: event}  # "remember that I submitted the grant application yesterday"
    # "remember that …" about the owner, a choice made over a named other ("I use Podman, not
    # Docker") or a standing rule for their own work, fitting nothing narrower
    general = features.has(Feature.GENERAL_FACT)
    if not routed and claim and not general and note_may_stand(features, sentence):
        routed[_NOTE_KEY] = claim
    return routed


def _owner_may_hold(folded: str, features: SentenceFeatures, habit: bool) -> Callable[[str], bool]:
    """Whether a routed key is the owner's to hold. Preference keys need the owner as the one
    who prefers ("Remember that our CI uses yarn" is a note, not the owner's package
    manager); profile keys need the owner mentioned; reply keys an instruction."""
    owner_prefers = features.has(Feature.FIRST_PERSON_DURABLE) or habit
    instructed = features.has(Feature.EXPLICIT_INSTRUCTION)
    speaker = has_speaker(folded)
    household = bool(re.search(GROUP_SPEAKER, folded))  # "our dog is …"

    def holds(key: str) -> bool:
        return (
            owner_prefers
            or key == "decision.note"
            or (key in _REPLY_KEYS and instructed)
            or (key.startswith("profile.") and speaker)
            or (key == _HOUSEHOLD_KEY and household)
        )

    return holds


def _proposal(
    turn: Turn,
    sent: Sentence,
    index: int,
    key: str,
    value: str,
    spec: KeySpec,
    features: SentenceFeatures,
    extractor_version: str,
) -> ProposalBody:
    session = key == _SESSION_KEY
    scope = (
        Scope(kind=ScopeKind.SESSION, key=turn.session_id)
        if session
        else Scope(kind=ScopeKind.USER, key=turn.subject_id)
    )
    return ProposalBody(
        tenant_id=turn.tenant_id,
        subject_id=turn.subject_id,
        scope=scope,
        kind=MemoryKind(spec.kind),
        normalized_key=key,
        stable_candidate_ordinal=index * ORDINAL_STRIDE + KEY_ORDER.index(key),
        value=value,
        evidence=Evidence.of_span(turn.message_id, turn.text, sent.start, sent.end),
        extractor_version=extractor_version,
        confidence=_confidence(features),
        expires_at=turn.created_at + SESSION_FACT_TTL if session else None,
    )


def is_owner_turn(turn: Turn) -> bool:
    """Only the subject's own user messages are evidence for user facts (SPEC §5.2, §5.7)."""
    return (
        turn.role == Role.USER
        and turn.source == Source.USER_MESSAGE
        and turn.author == turn.subject_id
    )


def extract(
    turn: Turn,
    registry: Registry,
    *,
    extractor_version: str = EXTRACTOR_VERSION,
    session_task_facts: bool = False,
) -> list[ProposalBody]:
    """Propose memories from one turn; deterministic, at most one proposal per (sentence, key).

    ``session_task_facts`` (off by default, as seed 004 says one-time requests are not to be
    recorded) proposes a sentence that is *only* one-time ("Use npm this time") as a
    ``task_fact.note`` in session scope expiring one day after the message.
    """
    if not is_owner_turn(turn):
        return []
    proposals: list[ProposalBody] = []
    previous_secret_end: int | None = None
    for index, sent in enumerate(split_sentences(turn.text)):
        if contains_secret(sent.text) or previous_secret_end == sent.start:
            # the second test: a sentence glued to a secret-bearing one ("密码是 ab!cd。")
            # may hold the secret's tail, cut off by the segmenter
            previous_secret_end = sent.end
            continue
        previous_secret_end = None
        features = classify_span(turn.text, sent.start, sent.end)  # frames on earlier lines too
        claim = claim_text(sent.text, turn.created_at)
        candidates = _candidates(
            sent.text, claim, features, registry, session_task_facts, turn.created_at
        )
        for key in sorted(candidates, key=KEY_ORDER.index):
            spec = registry.get(key.split(".", 1)[0], key)
            value = candidates[key]
            if spec is None or spec.validate(value) is not None:
                continue
            if spec.explicit_only and not note_may_stand(features, sent.text):
                continue
            if ungrounded_reason(value, sent.text, spec, turn.created_at) is not None:
                continue  # never send what the gate would refuse as ungrounded
            proposals.append(
                _proposal(turn, sent, index, key, value, spec, features, extractor_version)
            )
    return proposals
