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

from memwarden.api.problems import HttpProblem
from memwarden_shared.contract.ijson import IJsonError, loads_strict


class StrictJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = loads_strict(await self.body())
            except IJsonError as exc:
                # Starlette's HTTPException passes FastAPI's body reader untouched (anything
                # else becomes a bare 400), and HttpProblem keeps the code.
                raise HttpProblem(
                    422,
                    f"the body is not I-JSON (RFC 7493): {exc}",
                    "validation_failed",
                    errors=[{"loc": ["body"], "type": str(exc.code)}],
                ) from None
        return self._json


class StrictJsonRoute(APIRoute):
    """The route class of every router in memwarden/api/routers."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict_handler
