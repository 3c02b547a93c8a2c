"""Authentication and scopes. Fails closed.

Authentication happens in an ASGI middleware, before the request body is even parsed, so a
caller without a valid key learns nothing (not even whether its body would validate): every
``/v1`` request without one is 401. Scopes are checked per route (403). Objects of other
tenants are never looked up: every query is keyed by the principal's own tenant, so they
answer 404 like objects that do not exist.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from memwarden.api.problems import Problem, problem_response, unauthenticated
from memwarden_shared.state.auth import Principal, Unauthenticated, authenticate_with
from memwarden_shared.state.auth import Scope as AuthScope
from memwarden_shared.store.tenant_scope import tenant_scope

log = logging.getLogger("memwarden.api")

PROTECTED_PREFIX = "/v1/"

# Declares the scheme in OpenAPI; the middleware below does the checking.
bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="ApiKey",
    description="Authorization: Bearer mwk_… (a principal's API key)",
)


def _bearer_token(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = bytes(value).decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return None
    return None


class AuthenticationMiddleware:
    """Attach the authenticated principal to ``request.state`` or answer 401."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(PROTECTED_PREFIX):
            await self.app(scope, receive, send)
            return
        token = _bearer_token(scope)
        if token is None:
            response = unauthenticated("send Authorization: Bearer <API key>")
            await response(scope, receive, send)
            return
        state = scope["app"].state.memwarden
        try:
            principal = await run_in_threadpool(_authenticate, state.engine, token)
        except Unauthenticated:
            await unauthenticated("unknown, disabled or malformed API key")(scope, receive, send)
            return
        except Exception as exc:  # the store is down: refuse rather than guess
            log.error("credential check failed: %s", type(exc).__name__)
            await problem_response(503, "cannot check credentials now", code="unavailable")(
                scope, receive, send
            )
            return
        scope.setdefault("state", {})["principal"] = principal
        # Row-level security: every transaction of this request sees the principal's tenant
        # only (the context is copied into the thread that runs a sync route).
        with tenant_scope(principal.tenant_id):
            await self.app(scope, receive, send)


def _authenticate(engine: Any, token: str) -> Principal:
    return authenticate_with(engine, token)


def current_principal(
    request: Request,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Principal:
    principal = getattr(request.state, "principal", None)
    if not isinstance(principal, Principal):  # a route outside the middleware's prefix
        raise Problem(
            401,
            "authentication required",
            code="unauthenticated",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return principal


def require(*scopes: AuthScope) -> Any:
    """A dependency returning the principal when it holds any of ``scopes``, else 403."""
    names = " or ".join(s.value for s in scopes)

    def dependency(
        principal: Annotated[Principal, Depends(current_principal)],
    ) -> Principal:
        if not any(principal.allows(s) for s in scopes):
            raise Problem(403, f"this call needs {names}", code="missing_scope")
        return principal

    return Depends(dependency)


Authenticated = Annotated[Principal, Depends(current_principal)]
Proposer = Annotated[Principal, require(AuthScope.PROPOSE)]
Reviewer = Annotated[Principal, require(AuthScope.REVIEW)]
Reader = Annotated[Principal, require(AuthScope.READ)]
# Work a reviewer closes (open repairs) is listed to reviewers as well as readers.
ReaderOrReviewer = Annotated[Principal, require(AuthScope.READ, AuthScope.REVIEW)]
# Receipts hold ids, decisions and reasons, never values: any scope of the tenant may read them.
AnyScope = Annotated[Principal, require(AuthScope.PROPOSE, AuthScope.REVIEW, AuthScope.READ)]
