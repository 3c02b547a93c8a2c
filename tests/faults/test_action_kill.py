"""The API killed between an action's decision and its outcome (issue 22 item 5).

An agent asks the action gate (``POST /v1/actions``) and gets ALLOW; it executes and reports
the outcome (``POST /v1/actions/{id}/outcome``). The API process is SIGKILLed after the
decisions are durable and before the outcomes arrive, or in the middle of a burst of outcome
reports; meanwhile the owner revokes the evidence of some actions. After a restart the agent
asks again and reports again. Every action must end in exactly one valid state (SPEC §14):

- decisions: one row per idempotency key; asking again gives ``DUPLICATE`` with the same id;
- outcomes are idempotent: a report sent again (its first reply lost, or not) answers with
  the receipt as first recorded, never a second application (``outcome.reported_at`` stays);
- the revocation that raced the kill puts every executed action on the repair path:
  ``needs_repair`` whether the execution was recorded before the revocation (the cascade
  moves it) or reported after it (``executed_after_cancel``); an unexecuted one is cancelled.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, create_engine, func, select

from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.models import Topic
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_for
from memwarden_shared.store.schema import action_uses, actions, outbox
from memwarden_usecases.pipeline import drain
from tests.actions_helpers import memory_of, say
from tests.conftest import REDIS_URL
from tests.faults.harness import (
    PROGRESS_IDLE_SECONDS,
    Fleet,
    cpu_ticks,
    free_port,
    holds_transaction,
    lock_waiters,
    wait_progressing,
)

# the test plays the revalidation worker (the cascade, in process) over the tenant's rows
pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants, pytest.mark.slow, pytest.mark.postgres]

API = "api"
STATUSES = ("executed", "failed", "cancelled")
# Answers the agent sends again after (as after a lost reply); it gives up only when the API
# has used no CPU for PROGRESS_IDLE_SECONDS (slower under load is allowed, stuck is not).
RETRY_STATUS = {502, 503, 504}
# what the revocation cascade writes as the reason of the actions it moves
CASCADE_REASON = "evidence_revoked"


@dataclass(frozen=True)
class Planned:
    """One action of the workload: its subject, key, and what the agent will report."""

    subject: str
    key: str
    status: str

    @property
    def ref(self) -> str:
        return f"job-{self.key}"


class Agent:
    """The agent's side over HTTP: it asks, executes, reports, and asks again after errors."""

    def __init__(self, fleet: Fleet, port: int, key: str, memories: dict[str, str]) -> None:
        self.fleet = fleet
        self.http = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=PROGRESS_IDLE_SECONDS,
        )
        self.memories = memories

    def close(self) -> None:
        self.http.close()

    def decide_body(self, p: Planned) -> dict[str, Any]:
        return {
            "subject_id": p.subject,
            "intent": "package.install",
            "params": {"package": f"pkg-{p.key}"},
            "uses": [self.memories[p.subject]],
            "idempotency_key": p.key,
        }

    def decide(self, p: Planned) -> dict[str, Any]:
        return self._until_answered("POST", "/v1/actions", self.decide_body(p))

    def report(self, action_id: str, p: Planned) -> dict[str, Any]:
        body = {"status": p.status, "external_ref": p.ref}
        return self._until_answered("POST", f"/v1/actions/{action_id}/outcome", body)

    def report_once(self, action_id: str, p: Planned) -> dict[str, Any] | None:
        """One attempt; None when the reply was lost (the API died under it)."""
        try:
            r = self.http.post(
                f"/v1/actions/{action_id}/outcome", json={"status": p.status, "external_ref": p.ref}
            )
        except httpx.TransportError:
            return None
        assert r.status_code == 200, r.text
        return dict(r.json())

    def _until_answered(self, method: str, url: str, body: dict[str, Any]) -> dict[str, Any]:
        proc = self.fleet.procs[API]
        idle_since, ticks = time.monotonic(), cpu_ticks(proc.pid)
        while True:
            try:
                r = self.http.request(method, url, json=body)
                if r.status_code not in RETRY_STATUS:
                    assert r.status_code == 200, (url, r.status_code, r.text)
                    return dict(r.json())
            except httpx.TransportError:
                if proc.poll() is not None:
                    raise AssertionError(f"the API exited with {proc.returncode}") from None
            now_ticks = cpu_ticks(proc.pid)
            if now_ticks != ticks:
                idle_since, ticks = time.monotonic(), now_ticks
            elif time.monotonic() - idle_since > PROGRESS_IDLE_SECONDS:
                raise AssertionError(f"{url}: no answer and no API progress")
            time.sleep(0.2)


def start_api(fleet: Fleet, port: int) -> None:
    """Start (or restart) the API process and wait until it answers ``/healthz``."""
    if API in fleet.args:
        fleet.restart(API)
    else:
        fleet.start(API, "api", "--host", "127.0.0.1", "--port", str(port))
    proc = fleet.procs[API]

    def answers() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"the API exited with {proc.returncode}\n{fleet.log_tail()}")
        try:
            return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    wait_progressing(answers, lambda: cpu_ticks(proc.pid), "API answers /healthz", step=0.1)


@dataclass
class World:
    engine: Engine
    tenant: str
    agent: Agent
    fleet: Fleet
    port: int
    messages: dict[str, str]  # subject -> the message its memory cites
    # as the database owner: pg_stat_activity shows another role's waits only to it
    observer: Engine


@pytest.fixture
def world(fresh_pg_url: str, fresh_pg_owner_url: str, tmp_path: Path) -> Iterator[World]:
    """Subjects s0..s3, each with one committed memory ("I use npm ...") from a message of
    its own, an agent key, and the API running as a process of its own (distributed mode:
    nothing drains in it; the test runs the cascade in process)."""
    engine = engine_for(fresh_pg_url)
    # create_engine, not engine_for: that one routes all-tenants work to the system login
    observer = create_engine(fresh_pg_owner_url)
    tenant = "t-" + uuid.uuid4().hex[:8]
    messages, memories = {}, {}
    for n in range(4):
        subject = f"s{n}"
        messages[subject] = say(
            engine, tenant, "I use npm for every project", message_id=f"m{n}", subject=subject
        )
        memories[subject] = memory_of(engine, tenant, messages[subject])[0]
    with engine.begin() as conn:
        key = create_principal(conn, "agent", tenant, [Scope.ACTION_REQUEST])
    logs = tmp_path / "logs"
    logs.mkdir()
    # a long request deadline: a report must not be answered 503 while it still commits
    fleet = Fleet(fresh_pg_url, REDIS_URL, logs, {"MEMWARDEN_REQUEST_TIMEOUT_SECONDS": "600"})
    port = free_port()
    agent = Agent(fleet, port, key, memories)
    try:
        start_api(fleet, port)
        yield World(engine, tenant, agent, fleet, port, messages, observer)
    finally:
        agent.close()
        fleet.stop_all()
        print(fleet.log_tail(1500))
        engine.dispose()
        observer.dispose()


def plan(subjects: list[str], per_subject: int) -> list[Planned]:
    return [
        Planned(s, f"{s}-k{j}", STATUSES[j % len(STATUSES)])
        for s in subjects
        for j in range(per_subject)
    ]


def stored(engine: Engine, tenant: str) -> dict[str, dict[str, Any]]:
    """Action rows by idempotency key."""
    with engine.connect() as conn:
        rows = conn.execute(select(actions).where(actions.c.tenant_id == tenant)).mappings()
        return {r["idempotency_key"]: dict(r) for r in rows}


def count(engine: Engine, table: Any, tenant: str, *where: Any) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                select(func.count()).select_from(table).where(table.c.tenant_id == tenant, *where)
            ).scalar_one()
        )


def revoke(w: World, subject: str) -> None:
    """The owner revokes the subject's evidence; the cascade runs (in process) to the end."""
    assert revoke_message(w.tenant, w.messages[subject], engine=w.engine)
    drain(w.engine)


def expected_state(p: Planned, *, revoked: bool, recorded_first: bool) -> tuple[str, str | None]:
    """Where an action must end (state, state_reason): ``revoked`` when its evidence was
    revoked, ``recorded_first`` when its outcome was committed before that revocation."""
    if not revoked:
        return p.status, None  # each reported status names the state it records
    if p.status == "executed":
        return "needs_repair", CASCADE_REASON if recorded_first else "executed_after_cancel"
    if p.status == "failed" and recorded_first:
        return "failed", None
    # cancelled by the cascade (with its reason), or by the agent before it (without one)
    return "cancelled", None if recorded_first else CASCADE_REASON


def decide_all(w: World, planned: list[Planned]) -> dict[str, dict[str, Any]]:
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(w.agent.decide, planned))
    return {p.key: g for p, g in zip(planned, got, strict=True)}


def assert_decisions_once(
    w: World, planned: list[Planned], first: dict[str, dict[str, Any]]
) -> None:
    """Asking again after the restart: the same action, DUPLICATE, and one row per key."""
    again = decide_all(w, planned)
    for p in planned:
        assert again[p.key]["decision"] == "DUPLICATE", again[p.key]
        assert again[p.key]["first_decision"] == "ALLOW"
        assert again[p.key]["action_id"] == first[p.key]["action_id"]
    assert count(w.engine, actions, w.tenant) == len(planned)
    assert count(w.engine, action_uses, w.tenant) == len(planned)


def report_all_twice(
    w: World, planned: list[Planned], ids: dict[str, str]
) -> dict[str, dict[str, Any]]:
    """Every outcome reported, then reported again at once from two threads; the replies of
    one action all agree (the repeats apply nothing). Returns the first replies."""

    def three_times(p: Planned) -> dict[str, Any]:
        first = w.agent.report(ids[p.key], p)
        with ThreadPoolExecutor(2) as pool:
            repeats = list(pool.map(lambda _: w.agent.report(ids[p.key], p), range(2)))
        for r in repeats:
            assert _outcome_view(r) == _outcome_view(first), (p, first, r)
        return first

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(three_times, planned))
    return {p.key: g for p, g in zip(planned, got, strict=True)}


def _outcome_view(receipt: dict[str, Any]) -> tuple[Any, ...]:
    return receipt["state"], receipt["state_reason"], receipt["outcome"]


def assert_final(
    w: World,
    planned: list[Planned],
    *,
    revoked: set[str],
    recorded_first: set[str],
    replies: dict[str, dict[str, Any]],
) -> None:
    rows = stored(w.engine, w.tenant)
    assert set(rows) == {p.key for p in planned}
    for p in planned:
        row = rows[p.key]
        want = expected_state(
            p, revoked=p.subject in revoked, recorded_first=p.key in recorded_first
        )
        assert (row["state"], row["state_reason"]) == want, (p, row["state"], row["state_reason"])
        assert row["external_ref"] == p.ref
        # the receipt an agent holds is the stored one: nothing moved after it was answered
        reply = replies[p.key]
        assert reply["outcome"]["reported_at"] == row["outcome_at"].isoformat(), p
    # one repair event per action on the repair path, however often its outcome was sent
    repair = {p.key for p in planned if rows[p.key]["state"] == "needs_repair"}
    with w.engine.connect() as conn:
        keys = (
            conn.execute(
                select(outbox.c.event_key).where(
                    outbox.c.tenant_id == w.tenant,
                    outbox.c.topic == Topic.ACTION_NEEDS_REPAIR.value,
                )
            )
            .scalars()
            .all()
        )
    assert sorted(keys) == sorted(f"{rows[k]['action_id']}:needs_repair" for k in repair)


def test_api_killed_after_decisions__outcomes_reported_after_restart_end_once(
    world: World,
) -> None:
    w = world
    planned = plan(["s0", "s1", "s2", "s3"], per_subject=3)
    first = decide_all(w, planned)
    assert {g["decision"] for g in first.values()} == {"ALLOW"}
    # durable: every decision was answered, so committed; the API dies before any outcome
    assert count(w.engine, actions, w.tenant, actions.c.state == "allowed") == len(planned)
    w.fleet.kill(API)
    # The agent executes every allowed action while the API is down; meanwhile the owner
    # revokes s0's evidence, so its allowed actions are cancelled before any report lands.
    revoke(w, "s0")
    start_api(w.fleet, w.port)
    assert_decisions_once(w, planned, first)
    ids = {k: g["action_id"] for k, g in first.items()}
    replies = report_all_twice(w, planned, ids)
    # s1's evidence is revoked after its outcomes were recorded: its executed action is now an
    # effect on retracted authority, on the repair path; its failed one stays failed.
    revoke(w, "s1")
    s1 = [p for p in planned if p.subject == "s1"]
    assert_final(
        w, planned, revoked={"s0", "s1"}, recorded_first={p.key for p in s1}, replies=replies
    )
    # and every report sent once more, after the repair cascade, answers with that state
    for p in planned:
        again = w.agent.report(ids[p.key], p)
        assert again["outcome"] == replies[p.key]["outcome"], p


def test_api_killed_during_a_burst_of_outcome_reports__each_applies_once(
    world: World,
) -> None:
    w = world
    planned = plan(["s0", "s1", "s2", "s3"], per_subject=9)
    first = decide_all(w, planned)
    assert {g["decision"] for g in first.values()} == {"ALLOW"}
    ids = {k: g["action_id"] for k, g in first.items()}
    # Reports in flight, made certain: the test holds the row locks of six actions (every
    # status, a subject whose evidence will be revoked and one whose will not), so their
    # reports wait inside their transactions while the rest of the burst commits.
    held = {p.key for p in planned if p.subject in ("s0", "s1") and p.key[-1] in "012"}
    replies: dict[str, dict[str, Any] | None] = {}

    def burst(p: Planned) -> None:
        replies[p.key] = w.agent.report_once(ids[p.key], p)

    def recorded() -> int:
        return count(w.engine, actions, w.tenant, actions.c.outcome_at.is_not(None))

    with w.engine.connect() as locker, ThreadPoolExecutor(len(held) + 4) as pool:
        locker.execute(
            select(actions.c.id)
            .where(actions.c.action_id.in_([ids[k] for k in sorted(held)]))
            .order_by(actions.c.action_id)
            .with_for_update()
        )
        futures = [pool.submit(burst, p) for p in planned]
        wait_progressing(
            lambda: (
                recorded() == len(planned) - len(held)
                and lock_waiters(w.observer, API) == len(held)
            ),
            lambda: (recorded(), lock_waiters(w.observer, API)),
            "the burst committed but for the held reports, which wait in their transactions",
        )
        w.fleet.kill(API)
        locker.rollback()  # the killed API's backends now find their client gone
        for f in futures:
            f.result()
    # the held reports died in flight: their transactions never committed
    wait_progressing(
        lambda: lock_waiters(w.observer, API) == 0 and not holds_transaction(w.observer, API),
        lambda: lock_waiters(w.observer, API),
        "the killed API's transactions rolled back",
    )
    at_kill = {k for k, row in stored(w.engine, w.tenant).items() if row["outcome_at"]}
    answered = {k for k, r in replies.items() if r is not None}
    assert at_kill == {p.key for p in planned} - held
    assert answered <= at_kill  # a reply may be lost after its commit, never the reverse
    print(
        f"\nburst cut by SIGKILL: {len(at_kill)} of {len(planned)} outcomes recorded, "
        f"{len(held)} in flight, {len(at_kill - answered)} recorded with the reply lost"
    )
    # the owner revokes s0's evidence before the API is back: the revocation races the kill
    revoke(w, "s0")
    start_api(w.fleet, w.port)
    assert_decisions_once(w, planned, first)
    again = report_all_twice(w, planned, ids)
    for key in answered:  # an answered report, sent again, is the same record
        reply = replies[key]
        assert reply is not None
        assert again[key]["outcome"] == reply["outcome"], key
    assert_final(w, planned, revoked={"s0"}, recorded_first=at_kill, replies=again)
