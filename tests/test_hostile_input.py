"""Hostile input on every door gets a 4xx or a REJECT: never a 500, a traceback, or a value
echoed back (issue 10, item 5). Doors: HTTP bodies, ``memwarden submit``/``ingest``, the
gate's task payloads; and the engine itself (``hide_parameters``)."""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select, text
from sqlalchemy.exc import DBAPIError

from memwarden.api.app import create_app
from memwarden.api.strict_json import StrictJsonRoute
from memwarden_gate.io import decide_batch
from memwarden_gate.tasks import decide_proposals
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_scope
from memwarden_shared.store.schema import metadata
from tests.conftest import turn_dict
from tests.test_api import api_client, assert_problem, auth, make_keys

CARD = "4111 1111 1111 1111"
TOKEN = "ghp_Zq8Lm2Vx9Kp4Rt6Wy1Bn3Cd5Fg7Hj0Ks2Ln4"
TEXT = "I prefer pnpm for all my JavaScript projects."
HOLE = "@@HOSTILE@@"
# the card in both spellings; a bare "4111" would match random hex in hashes
NEVER_ECHOED = (CARD, CARD.replace(" ", ""), "9007199254740993", "ud800", TOKEN)

# name -> (how the hole is filled, the error type the API names); {key} is the hole's key.
FILLINGS: dict[str, tuple[str, str | None]] = {
    "integer_2^53+1": ('["' + CARD + '", 9007199254740993]', "integer_out_of_range"),
    "lone_surrogate": ('"\\ud800 ' + CARD + '"', "lone_surrogate"),
    "depth_400": ("[" * 400 + '"' + CARD + '"' + "]" * 400, "too_deep"),
    "nan": ('["' + CARD + '", NaN]', "non_finite_number"),
    "duplicate_keys": ('"' + CARD + '", "{key}": "' + CARD + '"', "duplicate_key"),
    "broken_json": ('"' + CARD + '"', "not_json"),  # and the document stops there
    "nul": ('"' + CARD + ' \\u0000"', None),  # valid I-JSON; PostgreSQL text cannot hold it
}


def hostile(document: dict[str, Any], key: str, filling: str, *, broken: bool = False) -> str:
    """``document`` as JSON text with the value of ``key`` (set to HOLE) replaced."""
    raw = json.dumps(document)
    hole = f'"{HOLE}"'
    if broken:
        return raw[: raw.index(hole)] + filling
    return raw.replace(hole, filling.replace("{key}", key))


def assert_nothing_echoed(*outputs: str) -> None:
    for output in outputs:
        for value in NEVER_ECHOED:
            assert value not in output
        assert "Traceback" not in output


# --- HTTP -------------------------------------------------------------------------------------


ROUTERS = Path(__file__).resolve().parent.parent / "services" / "api" / "routers"


def test_api__every_route_parses_bodies_as_i_json(sqlite_engine: Engine) -> None:
    routers = [
        r.original_router for r in create_app(sqlite_engine).routes if hasattr(r, "original_router")
    ]
    routes = [route for router in routers for route in router.routes]
    from memwarden.api.routers import __name__ as package

    modules = {route.endpoint.__module__ for route in routes}
    assert modules and routes
    # every router module of the package is mounted, and each parses bodies strictly
    assert {f"{package}.{p.stem}" for p in ROUTERS.glob("[!_]*.py")} <= modules
    assert all(isinstance(route, StrictJsonRoute) for route in routes)


@pytest.mark.parametrize("door", ["/v1/proposals", "/v1/turns"])
@pytest.mark.parametrize("case", sorted(FILLINGS))
def test_api__hostile_json_is_422_without_echo(
    store: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
    door: str,
    case: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    keys = make_keys(store, tenant)
    document: dict[str, Any]
    if door == "/v1/proposals":
        document = {"proposals": [make_proposal(tenant, "m1", TEXT, value=HOLE)]}
        key = "value"
    else:
        document = {"turns": [turn_dict(tenant, HOLE, message_id="m1")], "extract": False}
        key = "text"
    filling, error_type = FILLINGS[case]
    body = hostile(document, key, filling, broken=case == "broken_json")
    with api_client(store) as client:
        r = client.post(
            door,
            headers={**auth(keys.proposer), "Content-Type": "application/json"},
            content=body.encode("utf-8"),
        )
    problem = assert_problem(r, 422, "validation_failed")
    if error_type is not None:
        assert problem["errors"] == [{"loc": ["body"], "type": error_type}]
    assert_nothing_echoed(r.text, caplog.text)


# Values an attacker puts where a JSON value goes: every one, in every value position of a
# valid proposal, must be answered with a 2xx receipt or a 4xx problem.
ODD_VALUES = [
    b"9007199254740993",
    b"18446744073709551616",
    b"-1e999",
    b"1e-400",
    b"NaN",
    b"-Infinity",
    b'"\\ud800"',
    b'"\\udfff\\ud800"',
    b"[" * 40 + b"]" * 40,
    b"{}",
    b"[]",
    b"null",
    b"true",
    b'"\\u0000"',
    b'"\x1b[2J"',
    b"-0",
    b'"' + b"x" * 300 + b'"',
    b'"2026-13-45T99:99:99Z"',
    b'"0001-01-01T00:00:00-23:59"',
    b'"9999-12-31T23:59:59+14:00"',
    b"1e308",
    b'{"a": 1, "a": 2}',
    b'"' + CARD.encode() + b'"',
]


def value_positions(document: bytes) -> list[tuple[int, int]]:
    """(start, end) of each scalar value after a colon in compact-enough JSON."""
    spans = []
    for colon in (i for i, c in enumerate(document) if c == ord(":")):
        start = end = colon + 1
        while end < len(document) and document[end] not in b",}]":
            end += 1
        spans.append((start, end))
    return spans


def test_api__no_odd_value_in_any_position_is_a_500(
    sqlite_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    keys = make_keys(sqlite_engine, tenant)
    document = json.dumps({"proposals": [make_proposal(tenant, "m1", TEXT)]}).encode()
    headers = {**auth(keys.proposer), "Content-Type": "application/json"}
    statuses = set()
    with api_client(sqlite_engine) as client:
        for start, end in value_positions(document):
            for odd in ODD_VALUES:
                r = client.post(
                    "/v1/proposals",
                    headers=headers,
                    content=document[:start] + odd + document[end:],
                )
                assert r.status_code < 500, (start, odd)
                assert CARD not in r.text
                statuses.add(r.status_code)
    assert statuses == {200, 403, 422}  # 403: a tenant id that parses but is not the caller's


def test_api__a_token_as_scope_key_or_extractor_version_is_422_and_never_stored(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    keys = make_keys(store, tenant)
    proposals = [
        make_proposal(tenant, "m1", TEXT, scope={"kind": "project", "key": TOKEN}),
        make_proposal(tenant, "m1", TEXT, extractor_version=TOKEN),
    ]
    with api_client(store) as client:
        r = client.post("/v1/proposals", headers=auth(keys.proposer), json={"proposals": proposals})
    problem = assert_problem(r, 422, "validation_failed")
    assert {(tuple(e["loc"]), e["type"]) for e in problem["errors"]} == {
        (("body", "proposals", 0, "scope", "key"), "secret"),
        (("body", "proposals", 1, "extractor_version"), "secret"),
    }
    assert_nothing_echoed(r.text)
    assert TOKEN not in dump(store, tenant)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/v1/subjects/u1%20x/recall", 422),
        ("/v1/subjects/u1/recall?scope_key=a%1Bb", 422),
        ("/v1/messages/m1%0A/revoke", 422),
    ],
)
def test_api__ids_in_paths_and_queries_follow_the_id_pattern(
    sqlite_engine: Engine, tenant: str, path: str, status: int
) -> None:
    keys = make_keys(sqlite_engine, tenant)
    with api_client(sqlite_engine) as client:
        method = client.post if path.endswith("/revoke") else client.get
        assert_problem(method(path, headers=auth(keys.admin)), status, "validation_failed")


# --- the gate's own door (Celery payloads, Python callers) ------------------------------------


def deep(levels: int) -> Any:
    value: Any = CARD
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.spans_tenants  # the gate stage's door: a batch may name any (hostile) tenant
def test_gate__hostile_payloads_are_rejected_and_nothing_of_them_is_stored(
    pg_engine: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """What kombu's JSON decoder hands the gate: decoded values, checked again (the model
    validates every proposal, whichever door it came through)."""
    caplog.set_level(logging.DEBUG)

    def bad(**overrides: Any) -> dict[str, Any]:
        # applied after hashing: some of these values cannot be hashed at all
        return {**make_proposal(tenant, "m1", TEXT), **overrides}

    raws = [
        bad(value=[CARD, 2**53 + 1]),
        bad(value=[CARD, math.nan]),
        bad(value="\ud800" + CARD),
        bad(value=deep(400)),
        bad(value="pnpm\x00"),  # valid I-JSON: kept as JSON text ("\u0000"), which PG holds
        bad(tenant_id="\ud800" + CARD),
        bad(tenant_id=CARD + "\x00"),
        bad(stable_candidate_ordinal=2**53 + 1),
        bad(scope={"kind": "user", "key": TOKEN}),
        bad(extractor_version="v1-" + TOKEN),
        bad(evidence={"message_id": "m1\x00" + CARD, "start": 0, "end": 1, "sha256": "0" * 64}),
    ]
    receipts = decide_batch(raws, engine=pg_engine)
    assert [r.decision.value for r in receipts] == ["REJECT"] * len(raws)
    assert receipts[8].reasons == receipts[9].reasons == ["secret", "schema_invalid"]
    assert {r.tenant_id for r in receipts[5:7]} == {"unknown"}
    with engine_scope(pg_engine):  # the Celery task itself, as a worker runs it
        assert decide_proposals([{"topic": "proposal.submitted", "payload": raws[0]}, raws[8]]) == 2
    assert_nothing_echoed(caplog.text, *(r.model_dump_json() for r in receipts))
    stored = dump(pg_engine, tenant)
    assert TOKEN not in stored and "\ud800" not in stored
    assert CARD not in stored and CARD.replace(" ", "") not in stored


# --- the command line -------------------------------------------------------------------------


def run_cli(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, str, str]:
    from memwarden import cli

    monkeypatch.setattr(cli, "configure_logging", lambda *_a, **_k: None)  # keep pytest's
    with engine_scope(engine):
        code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("case", sorted(FILLINGS))
def test_cli_ingest__hostile_lines_exit_2_with_one_line_and_no_value(
    pg_engine: Engine,
    tenant: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    case: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    filling, error_type = FILLINGS[case]
    line = hostile(turn_dict(tenant, HOLE), "text", filling, broken=case == "broken_json")
    path = tmp_path / "turns.jsonl"
    path.write_text(json.dumps(turn_dict(tenant, TEXT)) + "\n" + line + "\n", encoding="utf-8")
    code, out, err = run_cli(pg_engine, monkeypatch, capsys, "ingest", str(path), "--no-drain")
    assert code == 2
    message = one_line(err)
    assert f"{path}:2" in message or "turn 2" in message
    assert (error_type or "control_character") in message
    assert out == ""
    assert_nothing_echoed(out, err, caplog.text)


@pytest.mark.parametrize("control", ["\x00", "\x1b[31m", "\x07", "\x7f\x00"])
def test_cli_ingest__control_characters_are_refused_before_the_database(
    pg_engine: Engine,
    tenant: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    control: str,
) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text(json.dumps(turn_dict(tenant, f"My card is {CARD}{control}.")) + "\n")
    code, out, err = run_cli(pg_engine, monkeypatch, capsys, "ingest", str(path), "--no-drain")
    assert code == 2 and "text: control_character" in one_line(err)
    assert_nothing_echoed(out, err)


def test_cli_ingest__tab_and_line_breaks_are_text(
    pg_engine: Engine,
    tenant: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text(json.dumps(turn_dict(tenant, "I prefer\tpnpm.\r\nReally.\f")) + "\n")
    code, out, _ = run_cli(pg_engine, monkeypatch, capsys, "ingest", str(path), "--no-drain")
    assert code == 0 and json.loads(out)["stored"] == 1


@pytest.mark.parametrize("case", sorted(FILLINGS))
def test_cli_submit__hostile_lines_never_print_a_value(
    pg_engine: Engine,
    tenant: str,
    tmp_path: Path,
    make_proposal: Callable[..., dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    case: str,
) -> None:
    """Lines that are not I-JSON refuse the file (exit 2); a NUL is valid JSON, so the gate
    judges it: a REJECT receipt, which holds no value."""
    caplog.set_level(logging.DEBUG)
    with pg_engine.begin() as conn:
        key = create_principal(conn, f"submitter-{tenant}", tenant, [Scope.PROPOSE])
    filling, error_type = FILLINGS[case]
    proposal = make_proposal(tenant, "m1", TEXT, value=HOLE)
    path = tmp_path / "proposals.jsonl"
    path.write_text(hostile(proposal, "value", filling, broken=case == "broken_json") + "\n")
    code, out, err = run_cli(pg_engine, monkeypatch, capsys, "submit", str(path), "--api-key", key)
    if error_type is None:
        assert code == 0 and [r["decision"] for r in json.loads(out)] == ["REJECT"]
    else:
        assert code == 2 and out == ""
        assert f"{path}:1: {error_type}" in one_line(err)
    assert_nothing_echoed(out, err, caplog.text)


def test_cli_supersede__control_characters_and_bad_utf8_exit_2(
    pg_engine: Engine,
    tenant: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ("supersede", "--tenant", tenant, "--message", "m1")
    code, out, err = run_cli(pg_engine, monkeypatch, capsys, *base, "--text", f"{CARD}\x00")
    assert code == 2 and "control_character" in one_line(err)
    assert_nothing_echoed(out, err)
    path = tmp_path / "text.txt"
    path.write_bytes(CARD.encode() + b"\xff")
    code, out, err = run_cli(pg_engine, monkeypatch, capsys, *base, "--file", str(path))
    assert code == 2 and "not UTF-8" in one_line(err)
    assert_nothing_echoed(out, err)


def test_cli__an_unexpected_error_is_one_line_without_its_message(
    sqlite_engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def explode(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError(f"card {CARD}")

    # cmd_ingest imports late
    monkeypatch.setattr("memwarden_ingest.io.ingest_turns", explode)
    path = tmp_path / "turns.jsonl"
    path.write_text(json.dumps(turn_dict("t1", TEXT)) + "\n")
    code, out, err = run_cli(sqlite_engine, monkeypatch, capsys, "ingest", str(path))
    assert code == 1 and "internal error (RuntimeError)" in one_line(err)
    assert_nothing_echoed(out, err)


@pytest.mark.slow
def test_cli_ingest__a_nul_on_postgresql_in_a_real_process(
    pg_engine: Engine, tenant: str, tmp_path: Path
) -> None:
    """The reported failure, end to end: no traceback, no SQL parameters, exit 2."""
    path = tmp_path / "turns.jsonl"
    path.write_text(json.dumps(turn_dict(tenant, f"My card is {CARD}\x00.")) + "\n")
    url = pg_engine.url.render_as_string(hide_password=False)
    env = {**os.environ, "MEMWARDEN_DATABASE_URL": url, "MEMWARDEN_LOG_LEVEL": "DEBUG"}
    env.pop("MEMWARDEN_BROKER_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "ingest", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "control_character" in done.stderr
    assert_nothing_echoed(done.stdout, done.stderr)


# --- the engine -------------------------------------------------------------------------------


def test_engine__a_database_error_never_quotes_its_parameters(pg_engine: Engine) -> None:
    with pytest.raises(DBAPIError) as caught, pg_engine.connect() as conn:
        conn.execute(text("SELECT CAST(:v AS text)"), {"v": f"card {CARD} \x00"})
    assert CARD not in str(caught.value)
    assert "parameters hidden" in str(caught.value)


def dump(engine: Engine, tenant: str | None = None) -> str:
    """Every row of every table as text; with ``tenant``, only the rows naming it (or the
    ``unknown`` tenant refused submissions are filed under) in tables with a tenant id."""
    lines = []
    with engine.connect() as conn:
        for table in metadata.sorted_tables:
            stmt = select(table)
            if tenant is not None and "tenant_id" in table.c:
                stmt = stmt.where(table.c.tenant_id.in_([tenant, "unknown"]))
            lines += [f"{table.name} {tuple(row)!r}" for row in conn.execute(stmt)]
    return "\n".join(lines)


# --- the LLM extractor's answer ---------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        '{"candidates": [], "candidates": [{"value": "x"}]}',
        '{"candidates": [{"sentence_index": 9007199254740993}]}',
        '{"candidates": [{"value": "\\ud800"}]}',
        '{"candidates": [{"confidence": NaN}]}',
    ],
)
def test_llm_answer__must_be_i_json(content: str) -> None:
    from memwarden_extractor.llm import parse_candidates
    from memwarden_extractor.llm_client import Failure, LlmError

    with pytest.raises(LlmError) as caught:
        parse_candidates(content)
    assert caught.value.failure == Failure.MALFORMED_JSON
