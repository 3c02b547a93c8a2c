"""Where a profile fact may live is the registry's word (``KeySpec.scopes``): a normal
profile fact (a name, a timezone) may be filed under a workspace or project as well as the
user; a sensitive or forbidden one only under the user. Through the real gate and store.

Generated family: every IANA zone of this Python's zoneinfo database, filed by a gate
proposal under each scope kind the registry allows, commits; a location filed under a
workspace is refused ``scope_not_allowed`` before anything else is read.
"""

from __future__ import annotations

import uuid
import zoneinfo
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import Sensitivity, default_registry
from tests.conftest import turn_dict

_ZONES = sorted(z for z in zoneinfo.available_timezones() if "/" in z and not z.startswith("Etc"))


def _decide(
    engine: Engine, make_proposal: Callable[..., dict[str, Any]], text: str, **claim: Any
) -> Any:
    tenant, message_id = "t-" + uuid.uuid4().hex[:10], "m-" + uuid.uuid4().hex[:8]
    turn = Turn.model_validate(turn_dict(tenant, text, message_id=message_id))
    ingest_turns([turn], engine=engine, extract=False)
    return decide_batch([make_proposal(tenant, message_id, text, **claim)], engine=engine)[0]


def test_sensitive_profile_keys_live_only_under_the_user() -> None:
    for spec in default_registry().keys.values():
        if spec.kind == "profile" and spec.sensitivity != Sensitivity.NORMAL:
            assert spec.scopes == ("user",) or list(spec.scopes) == ["user"], spec.normalized_key


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(_ZONES), st.sampled_from(["workspace", "project"]))
def test_a_timezone_commits_under_any_scope_the_registry_allows(
    sqlite_engine: Engine, make_proposal: Callable[..., dict[str, Any]], zone: str, scope: str
) -> None:
    receipt = _decide(
        sqlite_engine,
        make_proposal,
        f"My timezone is {zone}.",
        normalized_key="profile.timezone",
        kind="profile",
        value=zone,
        scope={"kind": scope, "key": f"{scope}-1"},
    )
    assert receipt.decision == "COMMIT", (zone, scope, receipt.reasons)


@pytest.mark.parametrize("scope", ["workspace", "project"])
def test_a_location_under_a_workspace_is_refused(
    sqlite_engine: Engine, make_proposal: Callable[..., dict[str, Any]], scope: str
) -> None:
    receipt = _decide(
        sqlite_engine,
        make_proposal,
        "I live in Lisbon.",
        normalized_key="profile.location",
        kind="profile",
        value="Lisbon",
        scope={"kind": scope, "key": f"{scope}-1"},
    )
    assert receipt.decision == "REJECT"
    assert "scope_not_allowed" in receipt.reasons
