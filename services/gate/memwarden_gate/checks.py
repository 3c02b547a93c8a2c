"""Everything the gate recomputes about one proposal before it takes the fact-key lock. Pure.

Nothing the proposal claims about itself is trusted: the id is recomputed, the evidence is
re-read from the stored message, and the sentence is classified here, never from flags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from memwarden_gate.recognised import UNRECOGNISED_TOKEN, value_unrecognised
from memwarden_shared.contract.canonical import claim_text, proposal_identity, sha256_hex
from memwarden_shared.contract.canonical import proposal_id as compute_proposal_id
from memwarden_shared.contract.models import (
    MemoryKind,
    MemoryProposal,
    MessageStatus,
    Role,
    ScopeKind,
    Source,
)
from memwarden_shared.contract.registry import KeySpec, Registry, Sensitivity
from memwarden_shared.detect.credential_talk import mentions_credential, names_a_credential
from memwarden_shared.detect.grounding import ungrounded_reason
from memwarden_shared.detect.secret_mask import MaskedSpan, touches
from memwarden_shared.detect.secret_shape_scan import value_secret_kinds
from memwarden_shared.detect.secrets import find_secrets
from memwarden_shared.detect.sensitive import SensitiveCategory, sensitive_categories
from memwarden_shared.text.classifier import (
    DATED_EVENT_TOLERATED,
    NOT_DURABLE,
    Feature,
    SentenceFeatures,
    classify,
    classify_span,
    named_project,
    narrowing_qualifier,
    note_may_stand,
)
from memwarden_shared.text.fold import Level, fold_text
from memwarden_shared.text.segmenter import is_complete_utterance

# A session-scoped task fact may outlive its turn by at most this much and still count as
# "expiry within the session" (SPEC §5 matrix, not-durable row).
SESSION_TASK_FACT_MAX_TTL = timedelta(hours=24)
SESSION_TOLERATED = frozenset({Feature.ONE_TIME, Feature.TRANSIENT, Feature.FUTURE_PLAN})
# A dated event is a plan by nature ("the review is on Friday"): kept when the owner asked
# to remember it (issue 15), never when merely mentioned.
FORBIDDEN_CONTENT = frozenset({SensitiveCategory.HEALTH})
# "Remember that our CI uses yarn" is not the owner's preference: a single-valued
# preference or profile fact needs the owner in the sentence. Instructions about how to talk
# to the owner (reply language, style) are about the owner by nature.
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b|我(?!们)", re.IGNORECASE)
OWNER_IMPLIED_KEYS = frozenset({"preference.language", "preference.communication_style"})
# Free-text notes the owner asks to keep: never general knowledge (seed 004: excluded even
# when asked). A task fact is about the task by nature.
OWNER_NOTE_KEYS = frozenset({"preference.note", "decision.note"})
# The catch-all notes take any sentence, so a negated one ("I don't use X at all", "我不住在…")
# goes to the owner even when the value keeps the negation, unless the owner asked to
# remember it ("Remember that I never …") (issue 21 item 6).
CATCH_ALL_NOTE_KEYS = frozenset({"preference.note", "profile.note"})


@dataclass(frozen=True)
class StoredMessage:
    tenant_id: str
    message_id: str
    revision: int
    subject_id: str
    author_id: str
    role: str
    source: str
    text: str
    status: str
    created_at: datetime
    session_id: str | None = None  # None only where a caller could not know it: fails closed
    masked_spans: tuple[MaskedSpan, ...] = ()
    secret_unlocated: bool = False


class CheckOutcome(StrEnum):
    """What one check said about a proposal, as its receipt records it (seed 002 receipts:
    pass/fail for every check, not only the reasons of a failure)."""

    PASSED = "passed"
    FAILED = "failed"
    REVIEW = "review"  # the check holds the proposal for the owner
    NOT_RUN = "not_run"  # an earlier failure stopped the checks before this one


# Every check the gate runs, in the order it runs them: a receipt names each one.
CHECKS = (
    "proposal_id",
    "evidence_found",
    "evidence_active",
    "author_is_subject",
    "evidence_hash",
    "complete_utterance",
    "secrets",
    "sensitivity",
    "registry",
    "scope",
    "value_schema",
    "grounding",
    "recognised_tokens",
    "suppression",
    "taint",
    "durability",
    "policy",
    "holds",
    "derived_from_current",
    "fact_key_locked",
    "commit_switch",
)


@dataclass
class Assessment:
    """The recomputed facts, sorted into the rows of the decision matrix they can trigger.
    ``outcomes`` maps each check that ran to its :class:`CheckOutcome`."""

    reject: list[str] = field(default_factory=list)
    tainted: bool = False
    not_durable: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    checks_passed: list[str] = field(default_factory=list)
    secret: bool = False
    span: str | None = None
    outcomes: dict[str, CheckOutcome] = field(default_factory=dict)

    def passed(self, check: str) -> None:
        self.checks_passed.append(check)
        self.outcomes.setdefault(check, CheckOutcome.PASSED)

    def fail(self, check: str, reason: str) -> None:
        """``check`` refuses the proposal for ``reason`` (a REJECT row of the matrix)."""
        self.reject.append(reason)
        self.outcomes[check] = CheckOutcome.FAILED

    def flag(self, check: str, *reasons: str) -> None:
        """``check`` sends the proposal to the owner for ``reasons`` (none: it passed)."""
        if not reasons:
            return
        self.review.extend(reasons)
        if self.outcomes.get(check) != CheckOutcome.FAILED:
            self.outcomes[check] = CheckOutcome.REVIEW

    def check_table(self) -> dict[str, str]:
        """Every check of :data:`CHECKS` with its outcome; those that never ran say so."""
        return {c: self.outcomes.get(c, CheckOutcome.NOT_RUN).value for c in CHECKS}


def recompute_proposal_id(p: MemoryProposal) -> str:
    return compute_proposal_id(
        proposal_identity(
            tenant_id=p.tenant_id,
            subject_id=p.subject_id,
            scope={"kind": p.scope.kind.value, "key": p.scope.key},
            kind=p.kind.value,
            normalized_key=p.normalized_key,
            message_id=p.evidence.message_id,
            start=p.evidence.start,
            end=p.evidence.end,
            stable_candidate_ordinal=p.stable_candidate_ordinal,
            extractor_version=p.extractor_version,
        )
    )


def _check_evidence(p: MemoryProposal, msg: StoredMessage | None, a: Assessment) -> str | None:
    """The evidence sentence, or None after recording why it cannot be used."""
    if msg is None or msg.tenant_id != p.tenant_id:
        # Read by (tenant, message id): another tenant's message is as absent as none (§13).
        a.fail("evidence_found", "message_not_found")
        return None
    a.passed("evidence_found")
    if msg.status == MessageStatus.REVOKED:
        a.fail("evidence_active", "evidence_revoked")
        return None
    a.passed("evidence_active")
    if msg.subject_id != p.subject_id or msg.author_id != p.subject_id:
        a.fail("author_is_subject", "cross_subject")
        return None
    a.passed("author_is_subject")
    ev = p.evidence
    if not (0 <= ev.start < ev.end <= len(msg.text)):
        a.fail("evidence_hash", "evidence_mismatch")
        return None
    # Before the hash: a span over a masked secret no longer hashes as the proposer saw it,
    # and the reason must say "secret", not "mismatch" (SPEC §5.6 v2).
    if msg.secret_unlocated or touches(msg.masked_spans, ev.start, ev.end):
        a.secret = True
        a.fail("secrets", "secret")
        return None
    span = msg.text[ev.start : ev.end]
    if sha256_hex(span) != ev.sha256:
        a.fail("evidence_hash", "evidence_mismatch")
        return None
    a.passed("evidence_hash")
    if not is_complete_utterance(msg.text, ev.start, ev.end):
        a.fail("complete_utterance", "evidence_not_complete")
        return None
    a.passed("complete_utterance")
    return span


def _check_value(
    p: MemoryProposal, span: str, msg: StoredMessage, registry: Registry, a: Assessment
) -> None:
    spec = registry.get(p.kind.value, p.normalized_key)
    if spec is None:
        a.fail("registry", "unknown_key")
        return
    if p.scope.kind.value not in spec.scopes:
        a.fail("registry", "scope_not_allowed")
        return
    a.passed("registry")
    mismatch = _scope_mismatch(p, msg)
    if mismatch:
        a.fail("scope", mismatch)
        return
    a.passed("scope")
    invalid = spec.validate(p.value)
    if invalid:
        a.fail("value_schema", invalid)
        return
    a.passed("value_schema")
    ungrounded = ungrounded_reason(p.value, span, spec, msg.created_at)
    if ungrounded:
        a.fail("grounding", ungrounded)
        return
    a.passed("grounding")
    if value_unrecognised(p.value, spec, registry):
        # deny by default: a token no list recognises goes to the owner, never COMMIT
        a.flag("recognised_tokens", UNRECOGNISED_TOKEN)
    else:
        a.passed("recognised_tokens")
    if spec.sensitivity == Sensitivity.FORBIDDEN:
        a.fail("sensitivity", "sensitive_forbidden")
    elif spec.sensitivity == Sensitivity.SENSITIVE:
        a.flag("sensitivity", "sensitive_key")


def _scope_mismatch(p: MemoryProposal, msg: StoredMessage) -> str | None:
    """A user scope names the subject; a session scope names the evidence's session."""
    if p.scope.kind == ScopeKind.USER and p.scope.key != p.subject_id:
        return "scope_subject_mismatch"
    if p.scope.kind == ScopeKind.SESSION and (
        msg.session_id is None or p.scope.key != msg.session_id
    ):
        return "scope_session_mismatch"
    return None


def _project_scope_review(p: MemoryProposal, span: str) -> str | None:
    """A claim scoped to a named project ("For the atlas project I prefer yarn") may only
    commit in that project's scope; anywhere else the owner decides (SPEC §5, issue 10)."""
    project = named_project(span)
    if project is None:
        return None
    if p.scope.kind != ScopeKind.PROJECT:
        return "project_scope_required"
    if fold_text(project, Level.SPACE) not in fold_text(p.scope.key, Level.SPACE):
        return "project_scope_mismatch"
    return None


def _secret_touches_span(msg: StoredMessage, p: MemoryProposal) -> bool:
    """A secret found in the whole message that overlaps the span. One scan covers the span
    itself and a span holding only part of a secret, which alone would not read as one."""
    return any(
        f.start < p.evidence.end and p.evidence.start < f.end for f in find_secrets(msg.text)
    )


def _note_on_secret(msg: StoredMessage, span: str) -> bool:
    """A sentence about a credential in a message that holds one ("Remember this deploy
    key:" with the private key on the next lines)."""
    if not mentions_credential(span):
        return False
    # ingest masked the secret itself; its record says one was there
    return bool(msg.masked_spans) or msg.secret_unlocated or bool(find_secrets(msg.text))


def _check_content(p: MemoryProposal, span: str, msg: StoredMessage, a: Assessment) -> None:
    text = span + "\n" + claim_text(p.value)
    if (
        value_secret_kinds(claim_text(p.value))
        # a value that is only a credential's name points at a secret, arrived or to come;
        # a person's name is a name ("Mima" is also the pinyin of 密码)
        or (p.normalized_key != "profile.name" and names_a_credential(claim_text(p.value)))
        or _secret_touches_span(msg, p)
        or _note_on_secret(msg, span)
    ):
        a.secret = True
        a.fail("secrets", "secret")
        return
    a.passed("secrets")
    categories = sensitive_categories(text)
    if any(c in FORBIDDEN_CONTENT for c in categories):
        a.fail("sensitivity", "sensitive_forbidden")
    elif categories:
        a.flag("sensitivity", *(f"sensitive_{c.value}" for c in categories))
    else:
        a.passed("sensitivity")


def _check_durability(
    p: MemoryProposal, span: str, msg: StoredMessage, registry: Registry, a: Assessment
) -> None:
    features = classify_span(msg.text, p.evidence.start, p.evidence.end)
    # "remember that water boils at 100 °C": general knowledge is no note (seed 004)
    general_note = p.normalized_key in OWNER_NOTE_KEYS and features.has(Feature.GENERAL_FACT)
    a.features = [r for r in features.reasons() if general_note or r != Feature.GENERAL_FACT.value]
    session_fact = _session_task_fact(p, msg)
    if not _durable_enough(p, features, registry, a, session_fact, general_note):
        return
    spec = registry.get(p.kind.value, p.normalized_key)
    if spec is not None and spec.explicit_only and not note_may_stand(features, span):
        a.fail("durability", "note_requires_explicit_instruction")
        return
    a.flag("durability", *_durability_reviews(p, span, features, spec, session_fact))
    if not a.review:
        a.passed("durability")


def _durable_enough(
    p: MemoryProposal,
    features: SentenceFeatures,
    registry: Registry,
    a: Assessment,
    session_fact: bool,
    general_note: bool,
) -> bool:
    """False, with the reasons recorded, when the sentence is not durable and neither
    exception holds: a dated event the owner asked to remember, or a session task fact that
    is only one-time or passing ("use npm this time"), never someone else's words, a
    question, a hypothesis or sarcasm."""
    if not features.not_durable and not general_note:
        return True
    if not general_note and _remembered_event(p, features, registry):
        a.passed("dated_event")
        return True
    only_passing = not (features.features & NOT_DURABLE - SESSION_TOLERATED)
    if not general_note and session_fact and only_passing:
        a.passed("session_task_fact")
        return True
    a.not_durable.append("not_durable")
    a.outcomes["durability"] = CheckOutcome.FAILED
    a.not_durable.extend(a.features)
    return False


def _durability_reviews(
    p: MemoryProposal,
    span: str,
    features: SentenceFeatures,
    spec: KeySpec | None,
    session_fact: bool,
) -> list[str]:
    """Why a durable sentence still goes to the owner, in receipt order."""
    reviews = []
    # A negated sentence is safe only when the value keeps the negation and the key is no
    # catch-all note; "I do not prefer dark mode" filed as "dark" must go to the owner.
    if features.has(Feature.NEGATED) and (
        _uncued_catch_all_note(p, features)
        or not classify(claim_text(p.value)).has(Feature.NEGATED)
    ):
        reviews.append("negated")
    if _owner_not_stated(p, span, features, spec):
        reviews.append("owner_not_stated")
    # A user's instruction for their own session is explicit for that session.
    if not features.explicit and not session_fact:
        reviews.append("inferred")
    project_review = _project_scope_review(p, span)
    if project_review:
        reviews.append(project_review)
    elif _narrowed_but_wide(p, span):
        reviews.append("scope_qualifier")
    return reviews


# Scopes a narrowing qualifier must not be dropped into: they reach past one context.
_WIDE_SCOPES = frozenset({ScopeKind.USER, ScopeKind.WORKSPACE})


def _narrowed_but_wide(p: MemoryProposal, span: str) -> bool:
    """The sentence confines its claim to a context it does not name ("for this client",
    "for billing", "在这个项目里") while the proposal files it user- or workspace-wide and its
    value leaves the qualifier out: the narrowing would be dropped, so the owner decides
    (seed 002, minimal scope). A session or project scope keeps the claim narrow."""
    if p.scope.kind not in _WIDE_SCOPES:
        return False
    qualifier = narrowing_qualifier(span)
    # a free-text value that keeps the qualifier ("we decided to use X for the billing
    # service") drops nothing: the narrowing travels with the claim
    return qualifier is not None and qualifier not in fold_text(claim_text(p.value), Level.SPACE)


def _uncued_catch_all_note(p: MemoryProposal, features: SentenceFeatures) -> bool:
    """A catch-all note the owner did not ask to keep: negated, it goes to the owner."""
    return p.normalized_key in CATCH_ALL_NOTE_KEYS and not features.has(
        Feature.EXPLICIT_INSTRUCTION
    )


def _owner_not_stated(
    p: MemoryProposal, span: str, features: SentenceFeatures, spec: KeySpec | None
) -> bool:
    """A single-valued preference or profile fact whose sentence never names the owner."""
    return (
        spec is not None
        and not spec.multi_valued
        and p.kind.value in ("preference", "profile")
        and p.normalized_key not in OWNER_IMPLIED_KEYS
        and not features.has(Feature.FIRST_PERSON_DURABLE)
        and not _FIRST_PERSON.search(span)
    )


def _remembered_event(p: MemoryProposal, features: SentenceFeatures, registry: Registry) -> bool:
    """A dated-text value the owner explicitly asked to remember, nothing else not durable."""
    spec = registry.get(p.kind.value, p.normalized_key)
    return (
        spec is not None
        and spec.value.get("type") == "dated_text"
        and features.has(Feature.EXPLICIT_INSTRUCTION)
        and not (features.features & NOT_DURABLE - DATED_EVENT_TOLERATED)
    )


def _session_task_fact(p: MemoryProposal, msg: StoredMessage) -> bool:
    return (
        p.kind == MemoryKind.TASK_FACT
        and p.scope.kind == ScopeKind.SESSION
        and p.expires_at is not None
        and p.expires_at <= msg.created_at + SESSION_TASK_FACT_MAX_TTL
    )


def assess(
    p: MemoryProposal,
    msg: StoredMessage | None,
    registry: Registry,
    *,
    review_all: bool,
    suppressed: bool,
) -> Assessment:
    """Run checks 2–8 of SPEC §5 on a proposal whose id was already verified."""
    a = Assessment()
    a.passed("proposal_id")
    span = _check_evidence(p, msg, a)
    if span is None or msg is None:
        # refused on its evidence, it is still recorded: a secret in the value must not be
        if not a.secret and value_secret_kinds(claim_text(p.value)):
            a.secret = True
            a.fail("secrets", "secret")
        return a
    a.span = span
    _check_content(p, span, msg, a)
    if a.secret:
        return a  # nothing else is evaluated on a secret, so nothing else can echo it
    _check_value(p, span, msg, registry, a)
    if suppressed:
        a.fail("suppression", "suppressed")
    else:
        a.passed("suppression")
    if msg.role != Role.USER or msg.source != Source.USER_MESSAGE:
        a.tainted = True
        a.outcomes["taint"] = CheckOutcome.FAILED
    else:
        a.passed("taint")
    _check_durability(p, span, msg, registry, a)
    if review_all:
        a.flag("policy", "policy_review_all")
    else:
        a.passed("policy")
    return a
