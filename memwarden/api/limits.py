"""Bounded work per request (issue 22 item 4): a body limit on every route, the batch limit
checked before validation, and a deadline per request.

- **Body size, per route.** A route whose body holds a batch (an array field with no
  declared ``max_length``: ``turns``, ``proposals``) may carry a full batch of maximal
  items; every other route gets :data:`SMALL_BODY_BYTES`. Checked on the declared length
  and again while the body streams in (the route's reader, api.strict_json, after an outer
  bound here), so nothing larger is ever buffered.
- **Batch size, before validation.** The strict JSON reader (api.strict_json) counts the
  batch arrays of the parsed body and answers 413 ``batch_too_large`` before pydantic
  validates a single item: validation work is bounded by ``max_batch`` items.
- **Error lists** are capped in the problem document (api.problems.MAX_ERRORS).
- **A deadline per request.** Past ``request_timeout_seconds`` the client gets 503
  ``request_timeout``; a route already running in a worker thread finishes there (a thread
  cannot be stopped) but its response is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, get_origin

from annotated_types import MaxLen
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memwarden.api import problems
from memwarden.api.security import PROTECTED_PREFIX
from memwarden_shared.config import Settings

# Every route without a batch: the largest of them (a curate attestation sampling 10,000
# sources) fits with room to spare.
SMALL_BODY_BYTES = 4 * 1024 * 1024


def batch_body_bytes(settings: Settings) -> int:
    """Room for a full batch of maximal turns (6 bytes per code point at worst: a \\uXXXX
    escape) plus their metadata."""
    return settings.max_batch * (settings.max_text_chars * 6 + 4096) + 65536


def batch_fields(model: Any) -> tuple[str, ...]:
    """The top-level array fields of a body model without a declared ``max_length``: its
    batches, bounded by ``settings.max_batch`` before validation."""
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return ()
    return tuple(
        field.alias or name
        for name, field in model.model_fields.items()
        if get_origin(field.annotation) is list
        and not any(isinstance(m, MaxLen) for m in field.metadata)
    )


def route_batch_fields(route: APIRoute) -> tuple[str, ...]:
    field = route.body_field
    return batch_fields(field.field_info.annotation) if field is not None else ()


def route_body_bytes(route: APIRoute, settings: Settings) -> int:
    """The body limit of ``route``: a full batch for a batch route, else the small one."""
    return batch_body_bytes(settings) if route_batch_fields(route) else SMALL_BODY_BYTES


def too_large() -> problems.HttpProblem:
    return problems.HttpProblem(413, "request body too large", "too_large")


class BodyLimitMiddleware:
    """The outer bound, before authentication and routing: 413 for request bodies over
    ``max_bytes`` (the largest route limit), declared or streamed; 422 for NUL in the path
    or query; ``Cache-Control: no-store`` on /v1 responses. Each route then applies its own
    limit while it reads the body (api.strict_json)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes = self.max_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > max_bytes:
                await problems.problem_response(413, "request body too large", code="too_large")(
                    scope, receive, send
                )
                return
        if "\x00" in scope["path"] or b"%00" in scope.get("query_string", b""):
            # Same rule as for bodies (schemas.Body): PostgreSQL text cannot hold NUL.
            await problems.problem_response(
                422, "NUL characters are not accepted", code="validation_failed"
            )(scope, receive, send)
            return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > max_bytes:
                raise too_large()
            return message

        async def no_store(message: Message) -> None:
            if message["type"] == "http.response.start" and scope["path"].startswith(
                PROTECTED_PREFIX
            ):
                # Responses carry memories and conversation text: no shared cache keeps them.
                message.setdefault("headers", []).append((b"cache-control", b"no-store"))
            await send(message)

        await self.app(scope, limited_receive, no_store)


class TimeoutMiddleware:
    """503 ``request_timeout`` when a request has not answered within ``seconds``."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = timed_out = False

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if timed_out:
                return  # the client has its 503 already
            started = started or message["type"] == "http.response.start"
            await send(message)

        task = asyncio.ensure_future(self.app(scope, receive, guarded_send))
        done, _ = await asyncio.wait({task}, timeout=self.seconds)
        if done:
            task.result()  # re-raise what the app raised, for the error barrier
            return
        timed_out = True
        task.add_done_callback(_swallow)
        task.cancel()
        if not started:
            await problems.problem_response(
                503,
                f"the request took longer than {self.seconds:g} s",
                code="request_timeout",
                headers={"Retry-After": "1"},
            )(scope, receive, send)


def _swallow(task: asyncio.Task[Any]) -> None:
    with contextlib.suppress(BaseException):
        task.exception()
