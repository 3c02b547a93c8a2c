"""The ``staged`` and ``local`` policy profiles (seed 000 staged auto-commit per key risk;
seed 001 sealed single-owner auto-apply): properties of the pure decision over generated
facts, and the gate on an embedded store."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden_gate.decide import Verdict
from memwarden_gate.io import decide_batch
from memwarden_gate.profiles import (
    Profile,
    ProfileFacts,
    StagedPolicy,
    apply_profile,
    in_share,
    local_reasons,
)
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Decision, MemoryKind, ScopeKind, Turn
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import unit_of_work
from memwarden_usecases.review import set_policy
from tests.conftest import turn_dict

NOW = datetime(2026, 6, 1, tzinfo=UTC)
POLICY = StagedPolicy(share=0.3, review_period=timedelta(days=7))

facts = st.builds(
    ProfileFacts,
    memory_id=st.text("0123456789abcdef", min_size=8, max_size=40),
    kind=st.sampled_from([k.value for k in MemoryKind]),
    scope_kind=st.sampled_from([s.value for s in ScopeKind]),
    expires=st.booleans(),
    has_current=st.booleans(),
    low_risk=st.booleans(),
    sealed_single_owner=st.booleans(),
    profile_since=st.one_of(
        st.none(),
        st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=30)).map(lambda d: NOW - d),
    ),
    now=st.just(NOW),
)
verdicts = st.builds(
    Verdict, st.sampled_from(list(Decision)), st.lists(st.sampled_from(["a", "b"])).map(tuple)
)


@settings(deadline=None)  # timings on a shared machine are not the subject
@given(st.sampled_from(list(Profile)), verdicts, facts)
def test_profiles__only_ever_hold_a_commit_back_never_let_one_through(
    profile: Profile, verdict: Verdict, f: ProfileFacts
) -> None:
    out = apply_profile(profile, verdict, f, POLICY)
    if verdict.decision != Decision.COMMIT or profile in (Profile.AUTO, Profile.REVIEW_ALL):
        assert out == verdict
    else:
        assert out.decision in (Decision.COMMIT, Decision.NEEDS_CONFIRMATION)


@settings(deadline=None)  # timings on a shared machine are not the subject
@given(facts)
def test_staged__nothing_auto_commits_inside_the_review_period_or_off_the_low_risk_keys(
    f: ProfileFacts,
) -> None:
    out = apply_profile(Profile.STAGED, Verdict(Decision.COMMIT, ()), f, POLICY)
    young = f.profile_since is None or NOW - f.profile_since < POLICY.review_period
    if young or not f.low_risk or not in_share(f.memory_id, POLICY.share):
        assert out.decision == Decision.NEEDS_CONFIRMATION
        assert out.reasons[0] == "policy_staged"
    else:
        assert out.decision == Decision.COMMIT


@settings(max_examples=20, deadline=None)
@given(st.text(min_size=1, max_size=12), st.floats(min_value=0.05, max_value=0.95))
def test_staged__the_share_of_keys_is_stable_per_key_and_close_to_the_setting(
    prefix: str, share: float
) -> None:
    keys = [f"{prefix}:{i}" for i in range(4000)]  # a family of distinct fact-key ids
    inside = [k for k in keys if in_share(k, share)]
    assert all(in_share(k, share) for k in inside)  # a key's draw never changes
    assert abs(len(inside) / len(keys) - share) < 0.04  # sha256 spreads keys evenly
    assert not any(in_share(k, 0.0) for k in keys) and all(in_share(k, 1.0) for k in keys)


@settings(deadline=None)  # timings on a shared machine are not the subject
@given(facts)
def test_local__auto_applies_exactly_when_every_sealed_single_owner_predicate_holds(
    f: ProfileFacts,
) -> None:
    out = apply_profile(Profile.LOCAL, Verdict(Decision.COMMIT, ()), f, POLICY)
    holds = (
        f.sealed_single_owner
        and f.kind == MemoryKind.PREFERENCE.value
        and not f.has_current
        and f.scope_kind == ScopeKind.USER.value
        and not f.expires
    )
    assert (out.decision == Decision.COMMIT) == holds
    assert (out.decision == Decision.COMMIT) == (local_reasons(f) == [])


def _decide(engine: Engine, tenant: str, make: Callable[..., dict[str, Any]], value: str) -> Any:
    message_id = "m-" + uuid.uuid4().hex[:8]
    text = f"I prefer {value}."
    turn = Turn.model_validate(turn_dict(tenant, text, message_id=message_id))
    ingest_turns([turn], engine=engine, extract=False)
    [receipt] = decide_batch([make(tenant, message_id, text, value=value)], engine=engine)
    return receipt


def test_local__an_embedded_store_with_one_owner_applies_and_a_second_principal_stops_it(
    sqlite_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    set_policy(sqlite_engine, tenant, "local")
    first = _decide(sqlite_engine, tenant, make_proposal, "pnpm")
    assert (first.decision, first.authority) == ("COMMIT", "policy:local")
    with unit_of_work(sqlite_engine) as uow:
        create_principal(uow.conn, "owner", tenant, [Scope.ADMIN])
        create_principal(uow.conn, "helper", tenant, [Scope.PROPOSE])
        uow.commit()
    replacement = _decide(sqlite_engine, tenant, make_proposal, "yarn")
    assert replacement.decision == "CONFIRM_REPLACE"  # a replacement is never "new"
    receipt = _decide_other_key(sqlite_engine, tenant, make_proposal)
    assert receipt.decision == "NEEDS_CONFIRMATION"
    assert "local_not_sealed_single_owner" in receipt.reasons


def _decide_other_key(engine: Engine, tenant: str, make: Callable[..., dict[str, Any]]) -> Any:
    message_id = "m-" + uuid.uuid4().hex[:8]
    text = "I prefer dark mode."
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=engine,
        extract=False,
    )
    [receipt] = decide_batch(
        [make(tenant, message_id, text, normalized_key="preference.ui_theme", value="dark")],
        engine=engine,
    )
    return receipt


def test_local__a_shared_database_is_never_sealed(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    set_policy(pg_engine, tenant, "local")
    receipt = _decide(pg_engine, tenant, make_proposal, "bun")
    assert receipt.decision == "NEEDS_CONFIRMATION"
    assert receipt.reasons[:2] == ["policy_local", "local_not_sealed_single_owner"]
