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
from dataclasses import dataclass

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
from memwarden_shared.text import classifier_cues as cues
from memwarden_shared.text.classifier import (
    DATED_EVENT_TOLERATED,
    NOT_DURABLE,
    Feature,
    SentenceFeatures,
    claim_offset,
    classify_span,
    note_may_stand,
)
from memwarden_shared.text.fold import Level, fold_text
from memwarden_shared.text.reltime import normalise_relative_times
from memwarden_shared.text.segmenter import Sentence, split_sentences
from memwarden_shared.text.stance import Stance, StanceClaim, Subject, stance

EXTRACTOR_VERSION = "rules-1.5"  # issue 25 round 3: plain statements (see docs/decisions.md)

CONFIDENCE_EXPLICIT = 0.9  # "remember that …", "请记住"
CONFIDENCE_FIRST_PERSON = 0.8  # "I prefer …", "我一直用 …"
CONFIDENCE_INFERRED = 0.5  # only orders the owner's review queue (SPEC §5)
SESSION_FACT_TTL = dt.timedelta(days=1)

_TRAILING = "。．.!！?？;；…~～\"'”’)）]】」』》,，:： \t"
# A remember-cue may also close the sentence: "我有高血压，请记住。", "I work remotely, remember."
_TRAILING_CUE = re.compile(
    r"(?:[,，;；:：\s—-]+(?:please\s+)?(?:remember|note|keep in mind)(?:\s+(?:that|this|it))?"
    r"|[,，;；:：\s]+(?:请|帮我|麻烦你?)?(?:记住|记一下|记下|记[着著])(?:了|哦|啊|吧)?)$"
    rf"|{cues.EN_TRAILING_CUE}|{cues.ZH_TRAILING_CUE}",
    re.I,
)
_EVENT_KEY = "task_fact.event"  # dated events the owner asked to remember
_DIET_KEY = "profile.diet"
_HOUSEHOLD_KEY = "profile.note"
_SESSION_KEY = "task_fact.note"  # only ever from a sentence that is one-time and nothing else
_NOTE_KEY = "preference.note"  # explicit remember-instructions that fit nothing narrower
_DECISION_KEY = "decision.note"  # also the owner's group's standing practice ("we use Jira")
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
    said = stance(sentence[claim_offset(sentence) :])
    group = said is not None and said.subject is Subject.GROUP
    holds = _owner_may_hold(s.folded, features, habit and not group, group)
    routed = {key: value for key, value in route(s, registry).items() if holds(key)}
    if event is not None and not routed:
        return {_EVENT_KEY: event}  # "remember that I submitted the grant application yesterday"
    # "remember that …" about the owner, a choice made over a named other ("I use Podman, not
    # Docker") or a standing rule for their own work, fitting nothing narrower
    general = features.has(Feature.GENERAL_FACT)
    if not routed and claim and not general and note_may_stand(features, sentence):
        routed[_stance_key(said)] = claim
    return routed


def _stance_key(said: StanceClaim | None) -> str:
    """Where a first-person stance fitting no narrower key is filed: the owner's group's
    practice ("we use Jira") is a decision of the group's, a self-description ("I'm a night
    owl") a profile note, a preference or habit a preference note."""
    if said is not None and said.subject is Subject.GROUP:
        return _DECISION_KEY
    if said is not None and said.stance is Stance.AM:
        return _HOUSEHOLD_KEY
    return _NOTE_KEY


def _owner_may_hold(
    folded: str, features: SentenceFeatures, habit: bool, group: bool = False
) -> Callable[[str], bool]:
    """Whether a routed key is the owner's to hold. Preference keys need the owner as the one
    who prefers ("Remember that our CI uses yarn" is a note, not the owner's package
    manager; nor is "we use yarn", a practice of the group); profile keys need the owner
    mentioned; reply keys an instruction."""
    owner_prefers = (features.has(Feature.FIRST_PERSON_DURABLE) and not group) or habit
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


@dataclass(frozen=True)
class SentenceOutcome:
    """What the extractor made of one sentence: its proposals, or why it proposed none
    (``declined``: reason codes, the words are ``memwarden/reasons.py``'s)."""

    start: int
    end: int
    proposals: tuple[ProposalBody, ...]
    declined: tuple[str, ...]


def owner_turn_refusal(turn: Turn) -> str | None:
    """Why a turn is not the subject's own words (None when it is): the reason code."""
    if turn.role != Role.USER:
        return f"role_{turn.role.value}"
    if turn.source != Source.USER_MESSAGE:
        return f"source_{turn.source.value}"
    if turn.author != turn.subject_id:
        return "third_party_author"
    return None


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
    outcomes = sentence_outcomes(
        turn, registry, extractor_version=extractor_version, session_task_facts=session_task_facts
    )
    return [p for outcome in outcomes for p in outcome.proposals]


def sentence_outcomes(
    turn: Turn,
    registry: Registry,
    *,
    extractor_version: str = EXTRACTOR_VERSION,
    session_task_facts: bool = False,
) -> list[SentenceOutcome]:
    """:func:`extract`, sentence by sentence, with the reason each declined sentence was
    declined: one pass serves both, so the explanation is the extractor's own logic."""
    refusal = owner_turn_refusal(turn)
    if refusal is not None:
        return [SentenceOutcome(0, len(turn.text), (), (refusal,))]
    outcomes: list[SentenceOutcome] = []
    previous_secret_end: int | None = None
    stated: set[str] = set()  # single-valued keys an earlier sentence of the message gave
    for index, sent in enumerate(split_sentences(turn.text)):
        glued = previous_secret_end is not None and _GLUE.fullmatch(
            turn.text[previous_secret_end : sent.start]
        )
        if contains_secret(sent.text) or glued:
            # the second test: a sentence glued to a secret-bearing one ("密码是 ab!cd。")
            # may hold the secret's tail, cut off by the segmenter
            previous_secret_end = sent.end
            outcomes.append(SentenceOutcome(sent.start, sent.end, (), ("secret",)))
            continue
        previous_secret_end = None
        features = classify_span(turn.text, sent.start, sent.end)  # frames on earlier lines too
        claim = claim_text(sent.text, turn.created_at)
        candidates = _candidates(
            sent.text, claim, features, registry, session_task_facts, turn.created_at
        )
        candidates = _beside_earlier(sent.text, claim, features, candidates, stated, registry)
        stated |= {k for k in candidates if not _multi_valued(k, registry)}

        args = (turn, sent, index, features, registry, extractor_version)
        proposals, declined = _checked_proposals(candidates, *args)
        if not proposals and "ungrounded" in declined:
            # a narrow value that would drop a qualifier ("I use duckdb at work"): the
            # stance is still kept whole, in the owner's words
            fallback = _stance_note(sent.text, claim, features, candidates)
            if fallback:
                proposals, more = _checked_proposals(fallback, *args)
                declined += more
        if not candidates:
            declined = _why_no_candidate(features)
        outcomes.append(
            SentenceOutcome(
                sent.start, sent.end, tuple(proposals), () if proposals else tuple(declined)
            )
        )
    return _refined(outcomes, registry)


# Between a secret-bearing sentence and the next: nothing, or an inline list's marker.
_GLUE = re.compile(r"[\s\d.)）(（①-⑩]*")
# A sentence that adds to what the message said before ("I also use X", "X too", "有时也用
# X") neither refines nor replaces it (issue 25).
_ADDITIVE = re.compile(
    r"\b(?:also|too|as well|sometimes|occasionally|now and then|every now and then|on the side"
    r"|besides|in addition|at times)\b|也|另外|此外|偶尔|有时|有时候|还会"
)


def _multi_valued(key: str, registry: Registry) -> bool:
    spec = registry.get(key.split(".", 1)[0], key)
    return spec is None or spec.multi_valued


def _beside_earlier(
    sentence: str,
    claim: str,
    features: SentenceFeatures,
    candidates: dict[str, str],
    stated: set[str],
    registry: Registry,
) -> dict[str, str]:
    """An additive sentence's values for single-valued keys an earlier sentence of the same
    message already gave ("I use vim. I also use VS Code sometimes."): the earlier value
    stands, so the two sentences never conflict, and the addition is kept as the owner's
    stance note where one may stand."""
    clash = {k for k in candidates if k in stated}
    if not clash or not _ADDITIVE.search(fold_text(sentence, Level.SPACE)):
        return candidates
    kept = {k: v for k, v in candidates.items() if k not in clash}
    return kept or _stance_note(sentence, claim, features, candidates)


def _checked_proposals(
    candidates: dict[str, str],
    turn: Turn,
    sent: Sentence,
    index: int,
    features: SentenceFeatures,
    registry: Registry,
    extractor_version: str,
) -> tuple[list[ProposalBody], list[str]]:
    """The candidates the gate could accept, as proposals, and why the others were dropped."""
    proposals: list[ProposalBody] = []
    declined: list[str] = []
    for key in sorted(candidates, key=KEY_ORDER.index):
        spec = registry.get(key.split(".", 1)[0], key)
        value = candidates[key]
        if spec is None or spec.validate(value) is not None:
            declined.append("invalid_value")
            continue
        if spec.explicit_only and not note_may_stand(features, sent.text):
            declined.append("not_explicit")
            continue
        if ungrounded_reason(value, sent.text, spec, turn.created_at) is not None:
            declined.append("ungrounded")  # never send what the gate would refuse
            continue
        proposals.append(
            _proposal(turn, sent, index, key, value, spec, features, extractor_version)
        )
    return proposals, declined


def _stance_note(
    sentence: str, claim: str, features: SentenceFeatures, tried: dict[str, str]
) -> dict[str, str]:
    """The stance note of a durable sentence whose narrow value could not stand."""
    said = stance(sentence[claim_offset(sentence) :])
    if said is None or not claim or features.has(Feature.GENERAL_FACT):
        return {}
    if features.not_durable or features.has(Feature.NEGATED):
        return {}
    key = _stance_key(said)
    return {key: claim} if key not in tried and note_may_stand(features, sentence) else {}


def _why_no_candidate(features: SentenceFeatures) -> list[str]:
    """The classifier's reading of a sentence no rule matched: what kept it from being a
    lasting first-person fact, else that it names no key the registry knows."""
    not_durable = sorted(f.value for f in features.features & NOT_DURABLE)
    if not_durable:
        return not_durable
    if features.has(Feature.NEGATED):
        return [Feature.NEGATED.value]
    if not features.explicit:
        return ["not_first_person_durable"]
    return ["no_known_key"]


def _refined(outcomes: list[SentenceOutcome], registry: Registry) -> list[SentenceOutcome]:
    """:func:`one_value_per_fact` over a message's sentences: a proposal a later sentence
    refines leaves its sentence's outcome, which then says so (``refined_later``)."""
    kept = {id(p) for p in one_value_per_fact([p for o in outcomes for p in o.proposals], registry)}
    out: list[SentenceOutcome] = []
    for o in outcomes:
        proposals = tuple(p for p in o.proposals if id(p) in kept)
        if proposals == o.proposals:
            out.append(o)
        else:
            declined = o.declined if proposals else (*o.declined, "refined_later")
            out.append(SentenceOutcome(o.start, o.end, proposals, declined))
    return out


def one_value_per_fact(proposals: list[ProposalBody], registry: Registry) -> list[ProposalBody]:
    """Within one message, a later sentence about a single-valued key refines the earlier
    one ("I use npm. Actually, pnpm for everything."): only the last sentence's proposal for
    that key is kept, so the gate never sees the owner's own message as a conflict and
    parks it as a pending replacement. Multi-valued keys (notes, events) keep every claim."""
    last: dict[str, int] = {}
    for i, proposal in enumerate(proposals):
        spec = registry.get(proposal.kind.value, proposal.normalized_key)
        if spec is not None and not spec.multi_valued:
            last[proposal.normalized_key] = i
    return [p for i, p in enumerate(proposals) if last.get(p.normalized_key, i) == i]
