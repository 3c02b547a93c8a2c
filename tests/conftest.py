"""Fixtures: real SQLite files, a real PostgreSQL server (migrated once into a template
database; each test module, and each test that asks for ``fresh_pg_url``, gets a clone of
its own), and Redis. Nothing here fakes a store or a broker."""

from __future__ import annotations

import contextvars
import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url

from memwarden_shared.contract.canonical import proposal_id, proposal_identity, sha256_hex
from memwarden_shared.store.db import engine_for, migrate

PG_URL = os.environ.get(
    "MEMWARDEN_TEST_PG_URL", "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/memwarden_test"
)
REDIS_URL = os.environ.get("MEMWARDEN_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
# The suite pins the hashed fallback: the ranking tests reason about its deterministic
# features, and each process would otherwise load the 30 MB multilingual model. The model
# and the `auto` default have their own tests (test_embedding_model.py) and figures
# (`memwarden eval-recall`, docs/recall.md).
os.environ.setdefault("MEMWARDEN_EMBEDDER", "hashed")
# Per-session names: two test runs on one server (a developer and CI, or parallel
# sessions) must never drop each other's databases.
SESSION = uuid.uuid4().hex[:8]
TEMPLATE_DB = f"mw_template_{SESSION}"
# The processes' login in tests, as in a deployment: not the tables' owner, not a superuser
# (a superuser bypasses row-level security, so a test connected as one would prove nothing).
# Migrations run as PG_URL's role (the owner); every PostgreSQL fixture below hands out a URL
# or engine of this role. A role is cluster-wide, so its name is shared by all sessions.
APP_ROLE = os.environ.get("MEMWARDEN_TEST_APP_ROLE", "memwarden_test_app")
APP_PASSWORD = "memwarden-test-app"
# The system processes' login (relay, consumers, audit), a member of memwarden_system: work
# in ``all_tenants`` connects as it (shared.db routes it). Set in the environment before any
# setting is read, so processes the tests start inherit it, as a deployment configures it.
SYSTEM_LOGIN = os.environ.setdefault("MEMWARDEN_SYSTEM_DB_USER", "memwarden_test_system")
SYSTEM_PASSWORD = os.environ.setdefault("MEMWARDEN_SYSTEM_DB_PASSWORD", "memwarden-test-system")


@contextmanager
def admin() -> Iterator[Connection]:
    """An autocommit connection to the maintenance database, for CREATE/DROP DATABASE."""
    engine = create_engine(make_url(PG_URL).set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()


def app_url(owner_url: str) -> str:
    """``owner_url`` with the application role's credentials instead."""
    return (
        make_url(owner_url)
        .set(username=APP_ROLE, password=APP_PASSWORD)
        .render_as_string(hide_password=False)
    )


def _ensure_app_role(conn: Connection) -> None:
    # Idempotent and race-free across concurrent sessions (CREATE ROLE has no IF NOT EXISTS).
    for role, password in ((APP_ROLE, APP_PASSWORD), (SYSTEM_LOGIN, SYSTEM_PASSWORD)):
        conn.execute(
            text(
                "DO $$ BEGIN "
                f"CREATE ROLE {role} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD '{password}'; "
                "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
            )
        )


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """A migrated template database (owner URL); fresh databases are cloned from it. The
    application role's grants are part of the template, so every clone carries them."""
    try:
        with admin() as conn:
            _ensure_app_role(conn)
            conn.execute(text(f'DROP DATABASE IF EXISTS "{TEMPLATE_DB}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{TEMPLATE_DB}"'))
    except Exception as exc:  # pragma: no cover - the message is the point
        pytest.fail(
            f"PostgreSQL at {make_url(PG_URL).host} is not reachable ({exc}); "
            "run scripts/test.sh, which starts it"
        )
    url = make_url(PG_URL).set(database=TEMPLATE_DB).render_as_string(hide_password=False)
    template = create_engine(url)
    migrate(template, app_role=APP_ROLE, system_login=SYSTEM_LOGIN)
    template.dispose()
    yield url
    with admin() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{TEMPLATE_DB}" WITH (FORCE)'))


@contextmanager
def cloned_database() -> Iterator[str]:
    """A new database cloned from the migrated template (a file copy, no migration run),
    as its owner's URL; dropped on exit, whoever is still connected."""
    name = "mw_" + uuid.uuid4().hex[:12]
    with admin() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE_DB}"'))
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def fresh_pg_owner_url(pg_template: str) -> Iterator[str]:
    """A database of its own, cloned from the template, as its owner (migrations, DDL)."""
    with cloned_database() as url:
        yield url


@pytest.fixture
def fresh_pg_url(fresh_pg_owner_url: str) -> str:
    """A database of its own (for cross-process tests), as the application role."""
    return app_url(fresh_pg_owner_url)


@pytest.fixture(scope="module")
def pg_owner_url(pg_template: str) -> Iterator[str]:
    """The test module's own database, cloned from the template, as its owner; dropped when
    the module ends. Its tests share it and isolate themselves by tenant id; no module sees
    another's rows (nor a worker or relay another module left running), so a count over a
    whole table is a count of this module's own writes."""
    with cloned_database() as url:
        yield url


@pytest.fixture(scope="module")
def pg_engine(pg_owner_url: str) -> Iterator[Engine]:
    """The module's database as the application role: row-level security applies."""
    engine = engine_for(app_url(pg_owner_url))
    yield engine
    engine.dispose()


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    engine = engine_for(f"sqlite:///{tmp_path / 'memwarden.db'}")
    migrate(engine)
    yield engine
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest) -> Engine:
    """The same store test on both backends."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_engine")  # type: ignore[no-any-return]
    return request.getfixturevalue("pg_engine")  # type: ignore[no-any-return]


@pytest.fixture
def tenant() -> str:
    return "t-" + uuid.uuid4().hex[:10]


@pytest.fixture(autouse=True)
def processes_only_in_slow_tests(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """A test that starts a process (a worker, a relay, the CLI, a browser) carries the
    ``slow`` marker, so ``scripts/test.sh --quick`` (``-m "not slow and not faults"``) leaves
    out exactly those. Checked, not remembered: an unmarked test that starts one fails, naming
    the marker (the process still runs, so the library that started it sees no surprise)."""
    if "slow" in request.keywords:
        yield
        return
    started: list[str] = []
    real_init = subprocess.Popen.__init__

    def noting(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        started.append(str(args)[:120])
        real_init(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", noting)
    yield
    if started:
        pytest.fail(f"started a process ({started[0]}): mark it @pytest.mark.slow", False)


@pytest.fixture(autouse=True)
def test_tenant_scope(request: pytest.FixtureRequest) -> Iterator[None]:
    """The test is the entry point of the service functions it calls directly, so it picks
    their row-level security scope, as the API, the CLI and the client do in production: its
    ``tenant`` when it uses that fixture, else every tenant. The API (its middleware), the
    client, consumers and relays set their own scope inside, so the tests through them
    exercise the production scoping; subprocesses start with none. ``spans_tenants`` picks
    every tenant (the test plays a system process); ``no_test_scope`` opts out. No effect
    on SQLite."""
    from memwarden_shared.store.tenant_scope import all_tenants, tenant_scope

    if "no_test_scope" in request.keywords:
        yield
    elif "tenant" in request.fixturenames and "spans_tenants" not in request.keywords:
        with tenant_scope(request.getfixturevalue("tenant")):
            yield
    else:
        with all_tenants("a test's own setup and checks"):
            yield


def in_this_context(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` for another thread, run in a copy of the caller's context (its row-level
    security scope): a new thread starts with an empty one, as in production, where every
    entry point sets its own scope."""
    context = contextvars.copy_context()

    def run(*args: Any, **kwargs: Any) -> Any:
        return context.copy().run(fn, *args, **kwargs)

    return run


def user_fact_key(tenant: str, normalized_key: str, claim_key: str = "") -> dict[str, str]:
    """The fact key of subject u1's user-scoped ``normalized_key`` (its memory id's source)."""
    return {
        "tenant_id": tenant,
        "subject_id": "u1",
        "scope_kind": "user",
        "scope_key": "u1",
        "kind": normalized_key.split(".", 1)[0],
        "normalized_key": normalized_key,
        "claim_key": claim_key,
    }


def turn_dict(
    tenant: str,
    text: str,
    *,
    message_id: str | None = None,
    subject: str = "u1",
    session: str = "s1",
    role: str = "user",
    source: str = "user_message",
    created_at: str = "2026-05-01T09:00:00Z",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "tenant_id": tenant,
        "subject_id": subject,
        "session_id": session,
        "message_id": message_id or "m-" + uuid.uuid4().hex[:8],
        "role": role,
        "source": source,
        "text": text,
        "created_at": created_at,
        **extra,
    }


@pytest.fixture
def make_proposal() -> Callable[..., dict[str, Any]]:
    """A correct proposal for ``sentence`` inside ``text``, with overrides applied last."""

    def make(
        tenant: str, message_id: str, text: str, sentence: str | None = None, **overrides: Any
    ) -> dict[str, Any]:
        sentence = sentence or text
        start = text.index(sentence)
        body: dict[str, Any] = {
            "tenant_id": tenant,
            "subject_id": "u1",
            "scope": {"kind": "user", "key": "u1"},
            "kind": "preference",
            "normalized_key": "preference.package_manager",
            "stable_candidate_ordinal": 0,
            "value": "pnpm",
            "evidence": {
                "message_id": message_id,
                "start": start,
                "end": start + len(sentence),
                "sha256": sha256_hex(sentence),
            },
            "extractor_version": "test-1",
            "confidence": 0.9,
            "expires_at": None,
        }
        body.update(overrides)
        ev = body["evidence"]
        body.setdefault(
            "proposal_id",
            proposal_id(
                proposal_identity(
                    tenant_id=body["tenant_id"],
                    subject_id=body["subject_id"],
                    scope=body["scope"],
                    kind=body["kind"],
                    normalized_key=body["normalized_key"],
                    message_id=ev["message_id"],
                    start=ev["start"],
                    end=ev["end"],
                    stable_candidate_ordinal=body["stable_candidate_ordinal"],
                    extractor_version=body["extractor_version"],
                )
            ),
        )
        return body

    return make


def at(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC)
