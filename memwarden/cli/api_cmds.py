"""``memwarden api``: serve the HTTP API and the review console."""

from __future__ import annotations

import argparse

from memwarden.cli.common import console, open_engine
from memwarden_shared.config import get_settings


def cmd_api(args: argparse.Namespace) -> int:
    import uvicorn

    from memwarden.api.app import create_app

    settings = get_settings()
    app = create_app(open_engine(), settings=settings)
    mode = "embedded: writes drain in-process" if settings.embedded else "distributed"
    console.print(
        f"memwarden API on http://{args.host}:{args.port} ({mode}); "
        "console at /console, OpenAPI at /openapi.json",
        soft_wrap=True,
    )
    # uvicorn's access log off: it prints the path and query (recall text, ids); the app
    # logs its own access line with the route template only (memwarden/api/observe.py).
    # log_config=None: uvicorn's own lines go through memwarden's (JSON) handler.
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=settings.log_level.lower(),
        access_log=False,
        log_config=None,
    )
    return 0
