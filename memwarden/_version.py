"""The distribution version: its one source (pyproject.toml reads it, [tool.hatch.version]),
and what `memwarden --version` prints without importlib.metadata (issue 26 item 6)."""

__version__ = "0.2.0"
