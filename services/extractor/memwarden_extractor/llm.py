"""The optional LLM extractor (SPEC §11): an OpenAI-compatible chat model fills values only.

The turn is cut by the shared segmenter and sent as numbered sentences; the model answers,
under a strict JSON schema, ``{"sentence_index", "normalized_key", "value"}`` per candidate.
Everything else is built here, deterministically: the evidence is that whole sentence (span
and sha256), ``stable_candidate_ordinal = sentence_index * ORDINAL_STRIDE +
KEY_ORDER.index(key)``, kind and scope from the key and the turn, a fixed confidence.
Whatever else the model returns (offsets, ``explicit`` flags, ids, confidence) is never
read. The proposals then go through the same gate as the rules extractor's, which is what
catches a wrong or malicious value.

Only the subject's own user turns are sent, and never a sentence holding a secret (it is
replaced by :data:`WITHHELD`). An :class:`LlmExtractionRun` enforces budgets of turns,
seconds and tokens and stops gracefully. Nothing here logs message text or model output.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any

from memwarden_extractor.llm_client import Failure, LlmClient, LlmError
from memwarden_extractor.routes import KEY_ORDER, ORDINAL_STRIDE
from memwarden_extractor.rules import is_owner_turn
from memwarden_shared.config import Settings
from memwarden_shared.contract.ijson import loads_strict
from memwarden_shared.contract.models import (
    Evidence,
    MemoryKind,
    ProposalBody,
    Scope,
    ScopeKind,
    Turn,
)
from memwarden_shared.contract.registry import KeySpec, Registry, Sensitivity
from memwarden_shared.detect.secrets import contains_secret
from memwarden_shared.state.forgotten import ForgottenTopics
from memwarden_shared.text.segmenter import Sentence, split_sentences

log = logging.getLogger("memwarden.extractor.llm")

CONFIDENCE = 0.5  # fixed: a model's own confidence claims are never read (SPEC §5)
WITHHELD = "[withheld]"

SYSTEM_PROMPT = """\
You help a memory system find durable facts a user states about themselves.
The user's message is given as numbered sentences. For each sentence in which the user
directly states a lasting preference, profile fact or decision of their own that fits one of
the keys below, return one candidate: the sentence number, the key, and the value as the
user said it (for keys with allowed values, one of those values).
Return no candidate for questions, hypotheticals, one-time requests, negated statements,
plans, sarcasm, or things said about other people, and none for sentences shown as
[withheld]. Return {"candidates": []} when nothing fits.
Keys:
"""

# Forgetting reaches the model (seed 004): the categories and content hashes of what the user
# asked to forget, never the text. Suppression in the gate stays the backstop.
FORGOTTEN_PROMPT = """
The user asked to forget facts. Do not propose them again. They are given only as the key
they were filed under and the sha256 of their normalised content, never as text:
"""


class BudgetName(StrEnum):
    TURNS = "turns"
    SECONDS = "seconds"
    TOKENS = "tokens"


class Dropped(StrEnum):
    """Why one candidate of an otherwise usable answer was dropped."""

    NOT_AN_OBJECT = "not_an_object"
    SENTENCE_INDEX_INVALID = "sentence_index_invalid"
    SENTENCE_WITHHELD = "sentence_withheld"
    UNKNOWN_KEY = "unknown_key"
    VALUE_NOT_STRING = "value_not_string"
    VALUE_INVALID = "value_invalid"
    SECRET_IN_VALUE = "secret_in_value"
    DUPLICATE = "duplicate"


# --------------------------------------------------------------------------- pure parts


def offered_keys(registry: Registry) -> dict[str, KeySpec]:
    """The keys the model may name, in KEY_ORDER: registered, user-scoped, not forbidden."""
    offered: dict[str, KeySpec] = {}
    for key in KEY_ORDER:
        spec = registry.get(key.split(".", 1)[0], key)
        if spec is None or ScopeKind.USER.value not in spec.scopes:
            continue  # task_fact.note is session-scoped: this extractor proposes user scope
        if spec.sensitivity == Sensitivity.FORBIDDEN:
            continue  # never ask a model for what the gate refuses under any policy
        offered[key] = spec
    return offered


def withheld_sentences(sentences: list[Sentence]) -> set[int]:
    """Indexes of sentences that must not leave the process: a secret, or glued to one.

    A sentence starting exactly where a secret-bearing one ends may hold the secret's tail
    cut off by the segmenter (the rules extractor's test, reused).
    """
    withheld: set[int] = set()
    previous_end: int | None = None
    for index, sent in enumerate(sentences):
        if contains_secret(sent.text) or previous_end == sent.start:
            withheld.add(index)
            previous_end = sent.end
        else:
            previous_end = None
    return withheld


def response_schema(keys: Iterable[str]) -> dict[str, Any]:
    """The strict JSON schema of the model's answer; the keys are enumerated."""
    candidate = {
        "type": "object",
        "properties": {
            "sentence_index": {"type": "integer"},
            "normalized_key": {"type": "string", "enum": list(keys)},
            "value": {"type": "string"},
        },
        "required": ["sentence_index", "normalized_key", "value"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"candidates": {"type": "array", "items": candidate}},
        "required": ["candidates"],
        "additionalProperties": False,
    }


def _key_line(key: str, spec: KeySpec) -> str:
    allowed = spec.value.get("values")
    if allowed:
        return f"- {key}: one of {', '.join(allowed)}"
    if spec.explicit_only:
        return f"- {key}: free text, only when the user explicitly asks to remember it"
    return f"- {key}: free text"


def forgotten_lines(forgotten: ForgottenTopics) -> str:
    """The prompt's forgotten section: one line per category, one per hash; "" for none."""
    if not forgotten:
        return ""
    lines = [f"- forgotten key: {c}" for c in forgotten.categories]
    lines += [f"- forgotten content sha256: {h}" for h in forgotten.hashes]
    return FORGOTTEN_PROMPT + "\n".join(lines)


def chat_messages(
    sentences: list[Sentence],
    withheld: set[int],
    keys: dict[str, KeySpec],
    forgotten: ForgottenTopics | None = None,
) -> list[dict[str, str]]:
    """System prompt and the numbered sentences; withheld ones are shown as a placeholder.
    ``forgotten``: what the subject asked to forget, as keys and hashes (never text)."""
    system = SYSTEM_PROMPT + "\n".join(_key_line(k, s) for k, s in keys.items())
    system += forgotten_lines(forgotten or ForgottenTopics())
    numbered = "\n".join(
        f"[{i}] {WITHHELD if i in withheld else s.text}" for i, s in enumerate(sentences)
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": numbered}]


def parse_candidates(content: str) -> list[Any]:
    """The ``candidates`` list of the model's answer; :class:`LlmError` when unusable."""
    try:
        answer = loads_strict(content)  # the model's words enter the pipeline: I-JSON only
    except ValueError:  # IJsonError; nesting of any depth is refused, never a RecursionError
        raise LlmError(Failure.MALFORMED_JSON) from None
    if not isinstance(answer, dict) or not isinstance(answer.get("candidates"), list):
        raise LlmError(Failure.MALFORMED_OUTPUT)
    return list(answer["candidates"])


def resolve(
    turn: Turn,
    sentences: list[Sentence],
    withheld: set[int],
    candidates: list[Any],
    keys: dict[str, KeySpec],
    extractor_version: str,
) -> tuple[list[ProposalBody], Counter[Dropped]]:
    """Proposal bodies for the model's candidates, ordered by ordinal; plus what was dropped.

    Only ``sentence_index``, ``normalized_key`` and ``value`` are read from a candidate.
    """
    dropped: Counter[Dropped] = Counter()
    chosen: dict[tuple[int, str], str] = {}
    for raw in candidates:
        reason, picked = _pick(raw, sentences, withheld, keys)
        if reason is not None or picked is None:
            dropped[reason or Dropped.NOT_AN_OBJECT] += 1
        elif picked[:2] in chosen:
            dropped[Dropped.DUPLICATE] += 1  # same id twice would be a payload conflict
        else:
            chosen[picked[:2]] = picked[2]
    bodies = [
        _body(turn, sentences[index], index, key, value, keys[key], extractor_version)
        for (index, key), value in sorted(
            chosen.items(), key=lambda kv: kv[0][0] * ORDINAL_STRIDE + KEY_ORDER.index(kv[0][1])
        )
    ]
    return bodies, dropped


def _pick(
    raw: Any, sentences: list[Sentence], withheld: set[int], keys: dict[str, KeySpec]
) -> tuple[Dropped | None, tuple[int, str, str] | None]:
    if not isinstance(raw, dict):
        return Dropped.NOT_AN_OBJECT, None
    index, key, value = raw.get("sentence_index"), raw.get("normalized_key"), raw.get("value")
    if isinstance(index, bool) or not isinstance(index, int):
        return Dropped.SENTENCE_INDEX_INVALID, None
    if not 0 <= index < len(sentences):
        return Dropped.SENTENCE_INDEX_INVALID, None
    if index in withheld:
        return Dropped.SENTENCE_WITHHELD, None
    if not isinstance(key, str) or key not in keys:
        return Dropped.UNKNOWN_KEY, None
    if not isinstance(value, str):
        return Dropped.VALUE_NOT_STRING, None
    spec = keys[key]
    value = spec.canonical(value) or value.strip()  # "Dark" -> "dark", "Vim" -> "vim"
    if spec.validate(value) is not None:
        return Dropped.VALUE_INVALID, None
    if contains_secret(value):
        return Dropped.SECRET_IN_VALUE, None
    return None, (index, key, value)


def _body(
    turn: Turn,
    sent: Sentence,
    index: int,
    key: str,
    value: str,
    spec: KeySpec,
    extractor_version: str,
) -> ProposalBody:
    return ProposalBody(
        tenant_id=turn.tenant_id,
        subject_id=turn.subject_id,
        scope=Scope(kind=ScopeKind.USER, key=turn.subject_id),
        kind=MemoryKind(spec.kind),
        normalized_key=key,
        stable_candidate_ordinal=index * ORDINAL_STRIDE + KEY_ORDER.index(key),
        value=value,
        evidence=Evidence.of_span(turn.message_id, turn.text, sent.start, sent.end),
        extractor_version=extractor_version,
        confidence=CONFIDENCE,
        expires_at=None,
    )


# --------------------------------------------------------------------------- runs and budgets


@dataclass(frozen=True)
class LlmBudget:
    """Limits of one run; None means unlimited."""

    max_turns: int | None = None
    max_seconds: float | None = None
    max_tokens: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> LlmBudget:
        return cls(
            max_turns=settings.llm_budget_turns,
            max_seconds=settings.llm_budget_seconds,
            max_tokens=settings.llm_budget_tokens,
        )


@dataclass
class LlmExtractionRun:
    """Budgets and counters of one extraction run (a replay, a batch job).

    The run takes turns one at a time. Before each it checks the budgets; once one is spent
    it stops: that turn and every later one are counted unprocessed and yield nothing. The
    turns budget counts turns taken, the tokens budget the ``usage`` the server reports (one
    call may overshoot it: a call's cost is known only after it), the seconds budget wall
    time from the first turn (a call's timeout is cut to the time left).
    """

    budget: LlmBudget = field(default_factory=LlmBudget)
    clock: Callable[[], float] = time.monotonic
    turns_taken: int = 0
    turns_sent: int = 0
    turns_failed: int = 0
    turns_unprocessed: int = 0
    tokens_used: int = 0
    tokens_estimated: bool = False
    stopped_by: BudgetName | None = None
    failures: Counter[Failure] = field(default_factory=Counter)
    dropped: Counter[Dropped] = field(default_factory=Counter)
    failed_message_ids: list[str] = field(default_factory=list)
    started_at: float | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> LlmExtractionRun:
        return cls(budget=LlmBudget.from_settings(settings))

    def elapsed(self) -> float:
        return 0.0 if self.started_at is None else self.clock() - self.started_at

    def _spent(self) -> BudgetName | None:
        b = self.budget
        if b.max_turns is not None and self.turns_taken >= b.max_turns:
            return BudgetName.TURNS
        if b.max_tokens is not None and self.tokens_used >= b.max_tokens:
            return BudgetName.TOKENS
        if b.max_seconds is not None and self.elapsed() >= b.max_seconds:
            return BudgetName.SECONDS
        return None

    def _stop(self, budget: BudgetName) -> list[ProposalBody]:
        if self.stopped_by is None:
            self.stopped_by = budget
            log.warning("llm extraction run stopped: budget=%s", budget.value)
        self.turns_unprocessed += 1
        return []

    def extract(
        self,
        turn: Turn,
        registry: Registry,
        *,
        client: LlmClient,
        forgotten: ForgottenTopics | None = None,
    ) -> list[ProposalBody]:
        """Proposals for one turn; [] when the turn is not the owner's, failed, or the run
        has stopped (see :attr:`stopped_by`, :attr:`turns_unprocessed`). ``forgotten`` goes
        into the prompt as keys and hashes."""
        if self.started_at is None:
            self.started_at = self.clock()
        spent = self.stopped_by or self._spent()
        if spent is not None:
            return self._stop(spent)
        if not is_owner_turn(turn):
            self.turns_taken += 1
            return []
        sentences = split_sentences(turn.text)
        withheld = withheld_sentences(sentences)
        keys = offered_keys(registry)
        if len(withheld) == len(sentences) or not keys:
            self.turns_taken += 1
            return []
        timeout = client.timeout_seconds
        if self.budget.max_seconds is not None:
            timeout = min(timeout, self.budget.max_seconds - self.elapsed())
        self.turns_sent += 1
        try:
            completion = client.complete(
                chat_messages(sentences, withheld, keys, forgotten),
                response_schema(keys),
                timeout=timeout,
            )
            candidates = parse_candidates(completion.content)
        except LlmError as exc:
            if exc.failure == Failure.TIMEOUT and timeout < client.timeout_seconds:
                return self._stop(BudgetName.SECONDS)  # cut short by the run, not the server
            self.turns_taken += 1
            self.turns_failed += 1
            self.failures[exc.failure] += 1
            self.failed_message_ids.append(turn.message_id)
            log.warning(
                "llm extraction failed: message=%s reason=%s", turn.message_id, exc.failure.value
            )
            return []
        self.turns_taken += 1
        self.tokens_used += completion.tokens
        self.tokens_estimated |= completion.tokens_estimated
        bodies, dropped = resolve(
            turn, sentences, withheld, candidates, keys, client.extractor_version
        )
        self.dropped.update(dropped)
        if dropped:
            log.info(
                "llm candidates dropped: message=%s %s",
                turn.message_id,
                ",".join(f"{k.value}={n}" for k, n in sorted(dropped.items())),
            )
        return bodies

    def extract_turns(
        self, turns: Iterable[Turn], registry: Registry, *, client: LlmClient
    ) -> list[ProposalBody]:
        """Proposals for every turn the budgets allow, in turn order."""
        return [body for turn in turns for body in self.extract(turn, registry, client=client)]

    def summary(self) -> dict[str, Any]:
        """Counters for a report; holds no message text."""
        return {
            "turns_taken": self.turns_taken,
            "turns_sent": self.turns_sent,
            "turns_failed": self.turns_failed,
            "turns_unprocessed": self.turns_unprocessed,
            "tokens_used": self.tokens_used,
            "tokens_estimated": self.tokens_estimated,
            "seconds": round(self.elapsed(), 3),
            "stopped_by": self.stopped_by.value if self.stopped_by else None,
            "failures": {k.value: n for k, n in sorted(self.failures.items())},
            "dropped": {k.value: n for k, n in sorted(self.dropped.items())},
            "failed_message_ids": list(self.failed_message_ids),
        }


def extract(
    turn: Turn,
    registry: Registry,
    *,
    client: LlmClient,
    run: LlmExtractionRun | None = None,
    forgotten: ForgottenTopics | None = None,
) -> list[ProposalBody]:
    """Propose memories from one turn with the model behind ``client``; ``forgotten`` (the
    subject's forgotten keys and content hashes) tells the model what not to propose.

    Same shape as :func:`services.extractor.rules.extract`. Never raises for a bad answer,
    an HTTP error or a timeout: the turn yields [] and ``run`` (unbudgeted when omitted)
    records why.
    """
    return (run or LlmExtractionRun()).extract(turn, registry, client=client, forgotten=forgotten)


def extractor_from_settings(settings: Settings) -> Callable[[Turn, Registry], list[ProposalBody]]:
    """``extract`` bound to the configured endpoint; unbudgeted (budgets belong to runs)."""
    return partial(extract, client=LlmClient.from_settings(settings))
