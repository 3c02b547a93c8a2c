"""Debounce: turns that arrive together are extracted per conversation, in the order they were
said, not one by one in arrival order. Pure.

A *run* is the turns of one ``(tenant, session)`` in one batch, in ``created_at`` order. The
extractor goes through a run turn by turn, so every proposal still cites one sentence of one
message; what the run adds is order, so that "I prefer pnpm" then "Actually, yarn" reach the
gate in that order and the gate sees the change of mind.

Within a run, a proposal that only repeats the previous claim of its fact key *from the same
message* ("I use pnpm. Yes, pnpm.") is dropped: it adds no evidence (evidence is recorded per
message) and would only queue a second review of the same claim. A repeat from another
message is kept, because the gate records that message as a second source, which keeps the
memory alive if the first is revoked; dropping it would make revocation depend on how turns
happened to be batched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

from memwarden_shared.contract.models import ProposalBody, Turn

ExtractTurn = Callable[[Turn], list[ProposalBody]]
FactKey = tuple[str, str, str, str, str, str]
# where a proposal citing a message outside the batch sorts (the gate refuses it anyway)
LAST = datetime.max.replace(tzinfo=UTC)


def session_runs(turns: Iterable[Turn]) -> list[list[Turn]]:
    """The turns grouped per ``(tenant, session)``, each group in ``created_at`` order
    (arrival order on ties); groups ordered by their first turn."""
    groups: dict[tuple[str, str], list[Turn]] = {}
    for turn in turns:
        groups.setdefault((turn.tenant_id, turn.session_id), []).append(turn)
    runs = [sorted(group, key=lambda t: t.created_at) for group in groups.values()]
    return sorted(runs, key=lambda run: run[0].created_at)


def _fact_key(body: ProposalBody) -> FactKey:
    return (
        body.tenant_id,
        body.subject_id,
        body.scope.kind.value,
        body.scope.key,
        body.kind.value,
        body.normalized_key,
    )


def _repeats(earlier: ProposalBody, later: ProposalBody) -> bool:
    return (
        earlier.evidence.message_id == later.evidence.message_id
        and earlier.value == later.value
        and earlier.expires_at == later.expires_at
    )


def extract_run(turns: Sequence[Turn], extract_turn: ExtractTurn) -> list[ProposalBody]:
    """One extraction over a run's turns, in order, without same-message repeats.

    Of two repeating proposals the more confident one is kept (an explicit "remember that"
    sentence over an inferred one), at the position of the first.
    """
    kept: list[ProposalBody] = []
    latest: dict[FactKey, int] = {}  # fact key -> index in ``kept`` of its latest proposal
    for turn in turns:
        for body in extract_turn(turn):
            key = _fact_key(body)
            index = latest.get(key)
            if index is not None and _repeats(kept[index], body):
                if body.confidence > kept[index].confidence:
                    kept[index] = body
                continue
            latest[key] = len(kept)
            kept.append(body)
    return kept


def extract_debounced(turns: Sequence[Turn], extract_turn: ExtractTurn) -> list[ProposalBody]:
    """Every run of a batch, its proposals in the order their messages were said.

    Runs are merged by message time, so a subject's two sessions in one batch reach the gate
    as they happened (the gate decides each fact key in the order it receives proposals).
    """
    said: dict[tuple[str, str], datetime] = {
        (t.tenant_id, t.message_id): t.created_at for t in turns
    }
    bodies = [body for run in session_runs(turns) for body in extract_run(run, extract_turn)]
    # sorted() is stable: within one message, and on equal times, run order stands
    return sorted(bodies, key=lambda b: said.get((b.tenant_id, b.evidence.message_id), LAST))
