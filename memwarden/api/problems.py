"""RFC 9457 problem details: every error the API returns is ``application/problem+json``.

Validation errors carry field locations and error types only, never the submitted values
(a rejected body may hold a secret) and never pydantic's messages (they quote the input).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("memwarden.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"
# Domain problems get a stable URN naming their code; plain HTTP statuses use about:blank,
# whose title is the status phrase (RFC 9457 §4.2.1).
URN_PREFIX = "urn:memwarden:problem:"
# A problem document lists at most this many field errors, then their count: its size is
# bounded whatever the request (issue 22: 80 KB of empty turns once listed 140,000 errors).
MAX_ERRORS = 20
MAX_LOC_CHARS = 100


class FieldError(BaseModel):
    loc: list[str | int] = Field(description="where in the request the problem is")
    type: str = Field(description="pydantic error type, e.g. missing, string_too_short")


class ProblemDetail(BaseModel):
    """The body of every error response."""

    type: str = Field(description="about:blank, or urn:memwarden:problem:<code>")
    title: str
    status: int
    detail: str | None = None
    code: str | None = Field(default=None, description="machine-readable refusal code")
    errors: list[FieldError] | None = Field(
        default=None, description=f"validation errors (422): the first {MAX_ERRORS}"
    )
    error_count: int | None = Field(
        default=None, description="how many validation errors there were in all"
    )


class Problem(Exception):
    """Raise from a route to answer with a problem document."""

    def __init__(
        self,
        status: int,
        detail: str | None = None,
        *,
        code: str | None = None,
        title: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail or code or str(status))
        self.status = status
        self.detail = detail
        self.code = code
        self.title = title
        self.headers = headers


class HttpProblem(StarletteHTTPException):
    """A problem raised where only HTTPException passes through (e.g. while FastAPI reads
    the body), with its code kept."""

    def __init__(
        self, status: int, detail: str, code: str, errors: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(status, detail)
        self.problem_code = code
        self.problem_errors = errors


def problem_response(
    status: int,
    detail: str | None = None,
    *,
    code: str | None = None,
    title: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    error_count: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": URN_PREFIX + code if code else "about:blank",
        "title": title or HTTPStatus(status).phrase,
        "status": status,
    }
    if detail:
        body["detail"] = detail
    if code:
        body["code"] = code
    if errors is not None:
        body["errors"] = errors[:MAX_ERRORS]
        body["error_count"] = len(errors) if error_count is None else error_count
    return JSONResponse(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def unauthenticated(detail: str) -> JSONResponse:
    return problem_response(
        401, detail, code="unauthenticated", headers={"WWW-Authenticate": "Bearer"}
    )


def _field_errors(exc: RequestValidationError) -> tuple[list[dict[str, Any]], int]:
    """The first :data:`MAX_ERRORS` errors, shaped, and how many there were."""
    errors = exc.errors()
    out = []
    for err in errors[:MAX_ERRORS]:
        # A loc part may be a key the client sent (a metadata key): cut, so 20 errors stay small.
        loc = [
            part if isinstance(part, int) else str(part)[:MAX_LOC_CHARS]
            for part in err.get("loc", ())
        ]
        if err.get("type") == "extra_forbidden" and loc:
            loc[-1] = "(unknown field)"  # the unknown key itself is submitted text
        out.append({"loc": loc, "type": str(err.get("type", "invalid"))})
    return out, len(errors)


async def _on_problem(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Problem)
    return problem_response(
        exc.status, exc.detail, code=exc.code, title=exc.title, headers=exc.headers
    )


async def _on_http(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) and exc.detail else None
    if detail == HTTPStatus(exc.status_code).phrase:
        detail = None
    code = getattr(exc, "problem_code", None)
    errors = getattr(exc, "problem_errors", None)
    return problem_response(exc.status_code, detail, code=code, errors=errors, headers=exc.headers)


async def _on_validation(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors, count = _field_errors(exc)
    return problem_response(
        422,
        f"{count} problem(s) in the request; see errors, the first {len(errors)} "
        "(values are not echoed)",
        code="validation_failed",
        title="Request validation failed",
        errors=errors,
        error_count=count,
    )


def _log_crash(exc: BaseException) -> None:
    # The traceback without the exception's message: a database error's message quotes the
    # statement's parameters, which may be conversation text (or a secret in it).
    frames = "".join(traceback.format_tb(exc.__traceback__))
    log.error("unhandled %s in request\n%s", type(exc).__name__, frames)


def _crashed() -> JSONResponse:
    return problem_response(500, "internal error; see the server log", code="internal_error")


async def _on_crash(_request: Request, exc: Exception) -> JSONResponse:
    _log_crash(exc)
    return _crashed()


class ErrorBarrierMiddleware:
    """Answer an unhandled error with a 500 problem and stop it here.

    Starlette's outermost error middleware re-raises after answering so that the server
    logs the error, and uvicorn's log line would carry the exception's message.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            _log_crash(exc)
            if not started:  # else the server closes the half-sent response
                await _crashed()(scope, receive, send)


def install(app: FastAPI) -> None:
    app.add_exception_handler(Problem, _on_problem)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(Exception, _on_crash)


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for problem documents with these statuses."""
    return {
        status: {
            "description": HTTPStatus(status).phrase,
            "content": {
                PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/ProblemDetail"}}
            },
        }
        for status in statuses
    }
