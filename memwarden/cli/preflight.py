"""Settings are read before anything else the CLI imports: a bad ``MEMWARDEN_*`` value is
refused with one line naming the variable and the rule, never a traceback or the value."""

from __future__ import annotations

import sys

from pydantic import ValidationError

from memwarden_shared.config import get_settings


def settings_error_line(exc: ValidationError) -> str:
    """Each bad variable and what it must be. Our validators' messages and pydantic's
    constraint messages name the rule, never the value."""
    parts = []
    for err in exc.errors(include_input=False, include_url=False):
        name = "MEMWARDEN_" + "_".join(str(p) for p in err.get("loc", ())).upper()
        message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(message if message.startswith(name) else f"{name}: {message}")
    return "invalid configuration: " + "; ".join(parts)


def refuse_bad_settings() -> int | None:
    """Exit code 2, after :func:`settings_error_line` on stderr, when the settings do not
    validate; None when they do."""
    try:
        get_settings()
    except ValidationError as exc:
        sys.stderr.write(f"error: {settings_error_line(exc)}\n")
        return 2
    return None
