"""``/docs``: Swagger UI served from the ``swagger-ui-bundle`` package, so the page works on a
machine with no internet access (FastAPI's default loads it from a CDN)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from swagger_ui_bundle import swagger_ui_path

from memwarden.api.problems import Problem
from memwarden.api.strict_json import StrictJsonRoute

ASSETS_PREFIX = "/docs/assets"
ASSET_DIR = Path(swagger_ui_path)
# Only the files the page loads: never a path into the package.
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
}

router = APIRouter(route_class=StrictJsonRoute, include_in_schema=False)


@router.get("/docs")
def swagger_ui() -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="memwarden API",
        swagger_js_url=f"{ASSETS_PREFIX}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS_PREFIX}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS_PREFIX}/favicon-32x32.png",
    )


@router.get(ASSETS_PREFIX + "/{name}")
def swagger_asset(name: str) -> FileResponse:
    media_type = ASSETS.get(name)
    if media_type is None:
        raise Problem(404, "no such asset")
    return FileResponse(ASSET_DIR / name, media_type=media_type)
