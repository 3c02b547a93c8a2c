"""The review console: a static page whose script calls the API with the reviewer's key.

The page carries no data and needs no credentials; everything it shows comes from
``/v1/review/pending`` with the key the reviewer types in. A strict Content-Security-Policy
allows only this origin's script and style, no inline code, no framing.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from memwarden.api.problems import Problem
from memwarden.api.strict_json import StrictJsonRoute
from memwarden.reasons import DECISIONS, WORDS

STATIC = Path(__file__).resolve().parent.parent / "console"
ASSETS = {
    "console.js": "text/javascript; charset=utf-8",
    "bulk.js": "text/javascript; charset=utf-8",
    "curate.js": "text/javascript; charset=utf-8",
    "console.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

router = APIRouter(route_class=StrictJsonRoute, include_in_schema=False)


def _file(name: str, media_type: str) -> Response:
    return Response((STATIC / name).read_bytes(), media_type=media_type, headers=SECURITY_HEADERS)


@router.get("/console")
def console_page() -> Response:
    return _file("index.html", "text/html; charset=utf-8")


@router.get("/console/curate")
def curate_page() -> Response:
    """Curate runs: the catalogue, a sampling helper, approve and attest (SPEC §15)."""
    return _file("curate.html", "text/html; charset=utf-8")


@router.get("/console/reasons.json")
def console_reasons() -> JSONResponse:
    """Reason codes and decisions in words, English and Chinese (``memwarden.reasons``): the
    console shows the words and keeps the code as the tooltip. No data, no credentials."""
    words = {code: {"en": en, "zh": zh} for code, (en, zh) in {**WORDS, **DECISIONS}.items()}
    return JSONResponse(words, headers=SECURITY_HEADERS)


@router.get("/console/assets/{name}")
def console_asset(name: str) -> Response:
    media_type = ASSETS.get(name)
    if media_type is None:  # only the named files, never a path into the package
        raise Problem(404, "no such asset")
    return _file(name, media_type)
