"""Errors :class:`memwarden.Memory` raises, the same on every backend."""

from __future__ import annotations


class MemwardenError(Exception):
    """Base class; ``code`` is the machine-readable reason (the API's problem code)."""

    def __init__(self, message: str, code: str = "error") -> None:
        super().__init__(message)
        self.code = code


class NotFound(MemwardenError):
    """The message, proposal or memory does not exist in this tenant."""


class Refused(MemwardenError):
    """The store refused the request (a review refusal, a conflicting message id, …)."""


class Unauthorized(MemwardenError):
    """Missing or unknown credentials, or a scope the principal does not hold."""


class Unavailable(MemwardenError):
    """The store, the schema or the API cannot serve the request now."""


class InvalidInput(MemwardenError, ValueError):
    """The call's arguments are not valid (a malformed turn, a limit out of range). The
    message names the fields and the rules broken, never the values (a turn may hold a
    secret). Also a ``ValueError``, so code that caught one keeps working."""
