"""The use cases the doors (client, CLI, API, eval, demo) call: docs/architecture.md."""
