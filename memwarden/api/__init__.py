"""The HTTP API (FastAPI) and the review console. ``create_app(engine)`` builds the app."""

from memwarden.api.app import create_app

__all__ = ["create_app"]
