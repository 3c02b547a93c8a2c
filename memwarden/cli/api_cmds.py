"""``memwarden api``: serve the HTTP API and the review console."""

from __future__ import annotations

import argparse

from memwarden.cli.common import console, get_settings, open_engine


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


def cmd_mcp(args: argparse.Namespace) -> int:
    """The MCP server on stdin/stdout over the configured store: embedded (SQLite in the
    data directory) unless MEMWARDEN_DATABASE_URL (and MEMWARDEN_BROKER_URL) name a
    distributed one. Logs go to stderr; stdout is the protocol's."""
    import logging

    from memwarden.client import Memory
    from memwarden.integrations.mcp_server import serve_stdio

    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    settings = get_settings()
    with Memory(
        database_url=settings.resolved_database_url,
        broker_url=settings.broker_url or None,
        tenant=args.tenant,
    ) as memory:
        serve_stdio(memory)
    return 0
