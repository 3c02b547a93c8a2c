"""Request bodies are parsed as I-JSON (shared.ijson), on every route of the API.

FastAPI parses a JSON body with ``Request.json()``; the route class below hands each route a
request whose ``json()`` is the strict parser. A refusal is a 422 ``validation_failed``
problem like any other bad body; its one error's type names the rule broken
(``integer_out_of_range``, ``lone_surrogate``, ``too_deep`` …); nothing quotes the body.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from memwarden.api.limits import route_batch_fields, route_body_bytes, too_large
from memwarden.api.problems import HttpProblem
from memwarden_shared.contract.ijson import IJsonError, loads_strict


class StrictJsonRequest(Request):
    # The route's batch arrays (api.limits.batch_fields), counted before validation.
    batch_fields: tuple[str, ...] = ()
    # The route's body limit in bytes (api.limits.route_body_bytes); 0 = none of its own.
    body_limit: int = 0

    async def body(self) -> bytes:
        """The body, refused with 413 ``too_large`` as soon as it passes the route's limit
        (declared or streamed): nothing larger is buffered."""
        if not hasattr(self, "_body"):
            limit = self.body_limit
            declared = self.headers.get("content-length", "")
            if limit and declared.isdigit() and int(declared) > limit:
                raise too_large()
            chunks, seen = [], 0
            async for chunk in self.stream():
                seen += len(chunk)
                if limit and seen > limit:
                    raise too_large()
                chunks.append(chunk)
            self._body = b"".join(chunks)
        return self._body

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                parsed = loads_strict(await self.body())
            except IJsonError as exc:
                # Starlette's HTTPException passes FastAPI's body reader untouched (anything
                # else becomes a bare 400), and HttpProblem keeps the code.
                raise HttpProblem(
                    422,
                    f"the body is not I-JSON (RFC 7493): {exc}",
                    "validation_failed",
                    errors=[{"loc": ["body"], "type": str(exc.code)}],
                ) from None
            self._refuse_oversize_batch(parsed)
            self._json = parsed
        return self._json

    def _refuse_oversize_batch(self, parsed: Any) -> None:
        """413 ``batch_too_large`` before pydantic validates any item: an oversize batch
        costs one count, not a validation of every item (and no 422 listing them)."""
        if not isinstance(parsed, dict):
            return
        limit = self.app.state.memwarden.settings.max_batch
        for name in self.batch_fields:
            items = parsed.get(name)
            if isinstance(items, list) and len(items) > limit:
                raise HttpProblem(
                    413,
                    f"{len(items)} items in one request; the limit is {limit}",
                    "batch_too_large",
                )


class StrictJsonRoute(APIRoute):
    """The route class of every router in memwarden/api/routers."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        fields = route_batch_fields(self)

        async def strict_handler(request: Request) -> Response:
            strict = StrictJsonRequest(request.scope, request.receive)
            strict.batch_fields = fields
            strict.body_limit = route_body_bytes(self, request.app.state.memwarden.settings)
            return await handler(strict)

        return strict_handler
