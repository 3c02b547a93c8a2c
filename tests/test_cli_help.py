"""Every command and every flag of ``memwarden`` says what it does (issue 13, item 2)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from memwarden.cli import build_parser

SILENT = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


def _parsers(
    parser: argparse.ArgumentParser, name: str = "memwarden"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child_name, child in action.choices.items():
                yield from _parsers(child, f"{name} {child_name}")


def test_cli_help__every_command_and_flag_has_a_description() -> None:
    missing = []
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 30  # the walk reached the nested commands (principal list, …)
    for name, parser in parsers:
        if not (parser.description or "").strip():
            missing.append(f"{name}: no description")
        for action in parser._actions:
            if isinstance(action, SILENT):
                continue
            if not (action.help or "").strip():
                missing.append(f"{name} {action.option_strings or action.dest}")
    assert missing == []


def test_cli_help__defaults_are_shown() -> None:
    parsers = dict(_parsers(build_parser()))
    assert "(default: 10)" in parsers["memwarden recall"].format_help()
    assert "(default: 8080)" in parsers["memwarden api"].format_help()
    assert "exit codes" in parsers["memwarden"].format_help()
