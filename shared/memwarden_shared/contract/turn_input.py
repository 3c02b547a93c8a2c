"""The one turn format every door accepts: the Python client, ``memwarden ingest`` (one per
JSONL line) and ``POST /v1/turns``. docs/api.md ("Turns") documents it once.

Only the subject and the text are required, under either name: ``subject_id`` or ``user_id``
(mem0's name), ``text`` or ``content`` (an OpenAI-style ``{"role", "content"}`` message;
a list of ``{"type": "text", "text": …}`` parts is joined with blank lines). Every other
field has the same default on every door:

- ``message_id``: a fresh ``msg-<uuid>`` (keep the one returned to revoke or forget it);
- ``session_id``: ``"default"``;
- ``role``: ``user``; ``source``: what the role implies (:data:`SOURCE_OF_ROLE`);
- ``created_at``: now (UTC);
- ``tenant_id``: the caller's (the client's tenant, the API key's, ``ingest --tenant``).

Unknown keys are refused, as everywhere else: a misspelt field never passes silently.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from memwarden_shared.contract.models import Id, Role, Source, Text, Turn, _ijson_or_error

# Who wrote a turn decides how far its claims are trusted (SPEC §4 tainted sources); a
# system prompt is not the user's word, so it is treated as the assistant's.
SOURCE_OF_ROLE = {
    Role.USER: Source.USER_MESSAGE,
    Role.ASSISTANT: Source.ASSISTANT_MESSAGE,
    Role.TOOL: Source.TOOL_RESULT,
    Role.SYSTEM: Source.ASSISTANT_MESSAGE,
}

# other names a field arrives under -> memwarden's name
ALIASES = {"user_id": "subject_id", "content": "text", "name": "author_id"}


_ROLES = frozenset(r.value for r in Role)


def new_message_id() -> str:
    return "msg-" + uuid.uuid4().hex


def _now() -> datetime:
    return datetime.now(UTC)


class TurnInput(BaseModel):
    """One conversation turn as a caller hands it over (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    subject_id: Id
    text: Text = Field(min_length=1)
    message_id: Id = Field(default_factory=new_message_id)
    session_id: Id = "default"
    role: Role = Role.USER
    source: Source = Field(description="default: implied by the role (SOURCE_OF_ROLE)")
    created_at: AwareDatetime = Field(default_factory=_now)
    author_id: Id | None = None
    tenant_id: Id | None = Field(default=None, description="default: the caller's tenant")

    @model_validator(mode="before")
    @classmethod
    def other_names(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        _ijson_or_error(data)
        out = dict(data)
        for alias, name in ALIASES.items():
            if alias not in out:
                continue
            value = out.pop(alias)
            if name in out and out[name] != value:
                raise PydanticCustomError(
                    "alias_conflict", f"{alias} and {name} name the same field with two values"
                )
            out[name] = value
        if isinstance(out.get("text"), list):
            out["text"] = _joined_parts(out["text"])
        role = out.setdefault("role", Role.USER.value)
        if "source" not in out and role in _ROLES:
            out["source"] = SOURCE_OF_ROLE[Role(role)]
        return out

    def to_turn(self, tenant_id: str) -> Turn:
        """The stored turn, in ``tenant_id`` (the caller decides whether a differing
        ``self.tenant_id`` is allowed; it never is silently replaced)."""
        fields = self.model_dump(exclude={"tenant_id"})
        return Turn.model_validate({**fields, "tenant_id": tenant_id})


def _joined_parts(parts: list[Any]) -> str:
    """OpenAI content parts: the text ones, joined. Any other part (an image, audio) is
    refused rather than dropped: a turn is stored whole or not at all."""
    texts: list[str] = []
    for part in parts:
        if not isinstance(part, Mapping) or part.get("type") != "text":
            raise PydanticCustomError("content_part", "only text content parts are accepted")
        text = part.get("text")
        if not isinstance(text, str):
            raise PydanticCustomError("content_part", "a text part needs a text string")
        texts.append(text)
    return "\n\n".join(texts)
