"""Principals are unique per tenant; they can be listed, disabled and rotated (SPEC §10)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sqlalchemy import Engine

from memwarden_shared.state.auth import (
    PrincipalExists,
    Scope,
    Unauthenticated,
    UnknownPrincipal,
    authenticate,
    create_principal,
    disable_principal,
    list_principals,
    rotate_key,
)
from memwarden_shared.store.tenant_scope import all_tenants, tenant_scope


def test_principals__the_same_name_in_two_tenants_is_two_principals(
    store: Engine, tenant: str
) -> None:
    other = tenant + "-other"
    # An operator's view of two tenants (`memwarden principal` runs once per tenant).
    with all_tenants("test: principals of two tenants"), store.begin() as conn:
        mine = create_principal(conn, "owner", tenant, [Scope.REVIEW])
        theirs = create_principal(conn, "owner", other, [Scope.READ])
    with all_tenants("test: the credential lookup"), store.connect() as conn:
        assert authenticate(conn, mine).tenant_id == tenant
        assert authenticate(conn, theirs).tenant_id == other


def test_principals__a_duplicate_name_in_one_tenant_is_refused_and_the_first_stands(
    store: Engine, tenant: str
) -> None:
    with store.begin() as conn:
        key = create_principal(conn, "owner", tenant, [Scope.REVIEW])
        with pytest.raises(PrincipalExists):
            create_principal(conn, "owner", tenant, [Scope.ADMIN])
        # The savepoint kept the caller's transaction usable.
        create_principal(conn, "reader", tenant, [Scope.READ])
    with store.connect() as conn:
        assert authenticate(conn, key).scopes == frozenset({Scope.REVIEW})
        assert [p["principal_id"] for p in list_principals(conn, tenant)] == ["owner", "reader"]


def test_principals__disable_and_rotate_take_effect_at_once(store: Engine, tenant: str) -> None:
    with all_tenants("test: principals of two tenants"), store.begin() as conn:
        old = create_principal(conn, "bot", tenant, [Scope.PROPOSE])
        create_principal(conn, "bot", tenant + "-other", [Scope.PROPOSE])
    with store.begin() as conn:
        new = rotate_key(conn, tenant, "bot")
    with store.connect() as conn:
        with pytest.raises(Unauthenticated):
            authenticate(conn, old)
        assert authenticate(conn, new).principal_id == "bot"
        [listed] = list_principals(conn, tenant)
        assert listed["key_rotated_at"] is not None and listed["disabled_at"] is None
        assert "key_hash" not in listed
    with store.begin() as conn:
        assert disable_principal(conn, tenant, "bot") is True
        assert disable_principal(conn, tenant, "bot") is False
    with store.connect() as conn, pytest.raises(Unauthenticated):
        authenticate(conn, new)
    with tenant_scope(tenant + "-other"), store.connect() as conn:
        # Only this tenant's "bot" was disabled.
        [theirs] = list_principals(conn, tenant + "-other")
        assert theirs["disabled_at"] is None
    with store.begin() as conn, pytest.raises(UnknownPrincipal):
        rotate_key(conn, tenant, "bot")  # a disabled principal gets no new key
    with store.begin() as conn, pytest.raises(UnknownPrincipal):
        disable_principal(conn, tenant, "nobody")


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "principal", *args],
        env={
            **os.environ,
            "COLUMNS": "300",
            "MEMWARDEN_DATABASE_URL": "",
            "MEMWARDEN_BROKER_URL": "",
            "MEMWARDEN_DATA_DIR": str(data_dir),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_principals__the_cli_creates_lists_rotates_and_disables(tmp_path: Path) -> None:
    tenant = "t-" + uuid.uuid4().hex[:8]
    created = cli(tmp_path, "--tenant", tenant, "--name", "owner", "--scope", "memory:review")
    assert created.returncode == 0, created.stderr
    first_key = json.loads(created.stdout)["api_key"]
    again = cli(tmp_path, "--tenant", tenant, "--name", "owner", "--scope", "memory:review")
    output = again.stdout + again.stderr
    assert again.returncode == 2
    assert "already has a principal named owner" in output and "Traceback" not in output
    assert (
        cli(
            tmp_path, "--tenant", "elsewhere", "--name", "owner", "--scope", "memory:read"
        ).returncode
        == 0
    )
    rotated = cli(tmp_path, "rotate", "--tenant", tenant, "--name", "owner")
    assert rotated.returncode == 0, rotated.stderr
    assert json.loads(rotated.stdout)["api_key"] != first_key
    assert json.loads(cli(tmp_path, "disable", "--tenant", tenant, "--name", "owner").stdout)[
        "disabled"
    ]
    listed = cli(tmp_path, "list", "--tenant", tenant)
    [row] = json.loads(listed.stdout)
    assert (row["principal_id"], row["scopes"]) == ("owner", ["memory:review"])
    assert row["disabled_at"] and row["key_rotated_at"]
    assert first_key not in listed.stdout and "key_hash" not in listed.stdout
    missing = cli(tmp_path, "--tenant", tenant)
    assert missing.returncode == 2 and "--name, --scope" in missing.stdout + missing.stderr


def test_principals__schema_and_migrations_agree(store: Engine) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from memwarden_shared.store.schema import metadata

    with store.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
