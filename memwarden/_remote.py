"""The remote backend: the memwarden HTTP API (docs/api.md) over httpx.

The tenant is the API key's; problem documents (RFC 9457) become the client's errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import httpx

from memwarden.errors import (
    InvalidInput,
    MemwardenError,
    NotFound,
    Refused,
    Unauthorized,
    Unavailable,
)
from memwarden.types import (
    ActionReceipt,
    AddResult,
    Forgotten,
    MemoryVersion,
    Pending,
    Provenance,
    Recalled,
    Receipt,
    Reviewed,
    Revoked,
    TurnInput,
)


def _segment(value: str) -> str:
    return quote(value, safe="")


class RemoteBackend:
    embedded = False

    def __init__(self, api_url: str, api_key: str, *, timeout: float) -> None:
        if not api_key:
            raise Unauthorized("a remote client needs an API key", "unauthenticated")
        self._http = httpx.Client(
            base_url=api_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
        )
        try:
            self.tenant = str(self._call("GET", "/v1/whoami")["tenant_id"])
        except BaseException:
            self._http.close()  # a refused key must not leave a connection behind
            raise

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise Unavailable(f"API unreachable ({type(exc).__name__})", "unavailable") from None
        if response.is_success:
            return response.json()
        raise _error(response)

    def add(self, turns: Sequence[TurnInput], *, extract: bool) -> AddResult:
        body = {"turns": [t.model_dump(mode="json") for t in turns], "extract": extract}
        out = self._call("POST", "/v1/turns", json=body)
        return AddResult(
            message_ids=[t.message_id for t in turns],
            stored=out["stored"],
            duplicates=out["duplicates"],
        )

    def propose(self, proposals: list[dict[str, Any]]) -> list[Receipt]:
        out = self._call("POST", "/v1/proposals", json={"proposals": proposals})
        return [Receipt.model_validate(r) for r in out["receipts"]]

    def revoke(self, message_id: str) -> Revoked:
        out = self._call("POST", f"/v1/messages/{_segment(message_id)}/revoke")
        return Revoked.model_validate(out)

    def forget(self, message_id: str) -> Forgotten:
        out = self._call("POST", f"/v1/messages/{_segment(message_id)}/forget")
        return Forgotten.model_validate(out)

    def approve(self, proposal_id: str, payload_hash: str) -> Reviewed:
        out = self._call(
            "POST",
            f"/v1/review/{_segment(proposal_id)}/approve",
            json={"payload_hash": payload_hash},
        )
        return Reviewed.model_validate(out)

    def reject(self, proposal_id: str) -> Reviewed:
        out = self._call("POST", f"/v1/review/{_segment(proposal_id)}/reject")
        return Reviewed.model_validate(out)

    def reject_memory(self, memory_id: str) -> int:
        out = self._call("POST", f"/v1/memories/{_segment(memory_id)}/reject")
        return int(out["version"])

    def versions(self, memory_id: str) -> list[dict[str, Any]]:
        out = self._call("GET", f"/v1/memories/{_segment(memory_id)}/versions")
        return list(out["versions"])

    def receipt(self, proposal_id: str) -> Receipt | None:
        try:
            out = self._call("GET", f"/v1/proposals/{_segment(proposal_id)}/receipt")
        except NotFound:
            return None
        return Receipt.model_validate(out)

    def recall(self, subject: str, query: str | None, k: int) -> list[Recalled]:
        params: dict[str, Any] = {"k": k}
        if query:
            params["query"] = query
        out = self._call("GET", f"/v1/subjects/{_segment(subject)}/recall", params=params)
        return [Recalled.model_validate(m) for m in out["memories"]]

    def memories(self, subject: str) -> list[MemoryVersion]:
        out = self._call("GET", f"/v1/subjects/{_segment(subject)}/memories")
        return [MemoryVersion.model_validate(m) for m in out["memories"]]

    def why(self, memory_id: str) -> Provenance:
        out = self._call("GET", f"/v1/memories/{_segment(memory_id)}/provenance")
        return Provenance.model_validate(out)

    def pending(self, limit: int) -> list[Pending]:
        out = self._call("GET", "/v1/review/pending", params={"limit": limit})
        return [Pending.model_validate(item) for item in out["pending"]]

    def act(self, request: dict[str, Any]) -> ActionReceipt:
        body = {k: v for k, v in request.items() if v is not None}
        return ActionReceipt.model_validate(self._call("POST", "/v1/actions", json=body))

    def close(self) -> None:
        self._http.close()


# the API's codes for a request that did not validate (422, or 400 from a proxy); the
# action gate's own refusals (unknown_intent, invalid) stay Refused, as in-process
INVALID_INPUT_CODES = frozenset({"validation_failed", "400"})


def _error(response: httpx.Response) -> MemwardenError:
    try:
        problem = response.json()
    except ValueError:
        problem = {}
    if not isinstance(problem, dict):
        problem = {}
    code = str(problem.get("code") or response.status_code)
    detail = str(problem.get("detail") or problem.get("title") or response.reason_phrase)
    status = response.status_code
    if status in (401, 403):
        return Unauthorized(detail, code)
    if status == 404:
        return NotFound(detail, code)
    if code in INVALID_INPUT_CODES:
        return InvalidInput(detail, code)
    if status in (409, 413):
        return Refused(detail, code)
    if status >= 500 or status == 429:
        return Unavailable(detail, code)
    return Refused(detail, code)
