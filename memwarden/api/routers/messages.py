"""Taking memory back: revoke a source message, store an edit (supersede), forget.

Revoke and forget need ``memory:review`` (the owner's or a reviewer's call); a revision needs
``memory:propose`` (the backend that sent the turn reports its edit). ``memory:admin``
implies both.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from memwarden.api import problems
from memwarden.api.problems import Problem
from memwarden.api.schemas import RevisionIn, RevisionOut
from memwarden.api.security import Proposer, Reviewer
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden.types import Forgotten, Revoked
from memwarden_shared.contract.models import ID_PATTERN
from memwarden_usecases import retract

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1/messages",
    tags=["messages"],
    responses=problems.responses(401, 403, 404, 422),
)

MessageId = Annotated[str, Path(pattern=ID_PATTERN)]


def _unknown() -> Problem:
    return Problem(404, "no such message", code="unknown_message")


@router.post("/{message_id}/revoke", response_model=Revoked, summary="Revoke a source message")
def post_revoke(message_id: MessageId, state: StateDep, principal: Reviewer) -> Revoked:
    """From this commit on, recall returns nothing that depends on the message."""
    try:
        changed = retract.revoke(state.engine, principal.tenant_id, message_id)
    except retract.UnknownMessage:
        raise _unknown() from None
    if changed:
        state.after_write()
    return Revoked(message_id=message_id, revoked=changed)


@router.post(
    "/{message_id}/revisions",
    response_model=RevisionOut,
    summary="Store an edited message as a new revision (supersede)",
    responses=problems.responses(409, 413),
)
def post_revision(
    message_id: MessageId, body: RevisionIn, state: StateDep, principal: Proposer
) -> RevisionOut:
    """Memories the old wording supported stop being recalled; they return only where the
    new text still states the same sentence. The same text again is a no-op."""
    limit = state.settings.max_text_chars
    if len(body.text) > limit:
        raise Problem(
            413,
            f"text has {len(body.text)} characters; the limit is {limit}",
            code="text_too_long",
        )
    if not body.text.strip():
        raise Problem(422, "a revision needs text", code="empty_text")
    try:
        revision = retract.supersede(
            state.engine, principal.tenant_id, message_id, body.text, max_text_chars=limit
        )
    except retract.UnknownMessage:
        raise _unknown() from None
    except retract.Refused:
        raise Problem(409, "a revoked message is not edited", code="message_revoked") from None
    state.after_write()
    return RevisionOut(message_id=message_id, revision=revision)


@router.post(
    "/{message_id}/forget",
    response_model=Forgotten,
    summary="Forget what a message taught (right to be forgotten)",
)
def post_forget(message_id: MessageId, state: StateDep, principal: Reviewer) -> Forgotten:
    """Dependent memories are forgotten and erased, the message is revoked, and only a
    normalised content hash is kept so re-extraction is rejected (paraphrases are not)."""
    try:
        forgotten = retract.forget(state.engine, principal.tenant_id, message_id)
    except retract.UnknownMessage:
        raise _unknown() from None
    state.after_write()
    return Forgotten(message_id=message_id, memory_versions_forgotten=forgotten)
