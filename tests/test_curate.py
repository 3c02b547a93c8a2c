"""Curate (SPEC §15) end to end on both stores: snapshot, plan, check, review, attest,
publish, rollback, and every refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine, select

from memwarden_curate import package
from memwarden_curate.publish import publish, rollback
from memwarden_curate.runs import CurateRefused
from memwarden_curate.stages import (
    RulesRewriter,
    attest_plan,
    check_plan,
    make_plan,
    review_plan,
    take_snapshot,
)
from memwarden_recall.query import ProtectedEmpty, recall
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import memory_versions
from memwarden_usecases.pipeline import drain
from tests.curate_helpers import (
    curate,
    edit_plan,
    people,
    sample_of,
    say_all,
    statement,
    the_run,
    to_attested,
    values,
)

LINES = [
    ("m1", "u1", "Remember that I deploy only on Tuesdays."),
    ("m2", "u1", "I prefer pnpm for all my JavaScript projects."),
    ("m3", "u1", "Remember that I deploy only on the Tuesdays."),  # m1 plus a function word
    ("m4", "u1", "We decided to use PostgreSQL for the billing service."),
    ("m5", "u1", "Remember that I deploy at 3pm."),
    ("m6", "u1", "Remember that I deploy at 5pm."),  # disagrees with m5 on the hour
    ("m7", "u1", "记住我每周一上午写周报和月报。"),
    ("m8", "u1", "记住我每周一上午写周报。"),  # near-duplicate of m7
    ("m9", "u2", "Remember that I deploy only on Tuesdays."),  # another subject: untouched
    ("m10", "u1", "记住我每天早上8点开会。"),
    ("m11", "u1", "记住我每天早上9点开会。"),  # disagrees with m10 on the hour
]


def planned(engine: Engine, tenant: str, subjects: list[str] | None = None) -> dict[str, Any]:
    who = people(tenant)
    out = take_snapshot(who["planner"], tenant, subjects, engine=engine)
    return make_plan(
        who["planner"], out["run_id"], RulesRewriter(default_registry()), engine=engine
    )


def dispositions(engine: Engine, run_id: str) -> dict[str, dict[str, Any]]:
    from memwarden_curate.runs import current_plan

    with unit_of_work(engine) as uow:
        folded, _ = current_plan(uow.conn, the_run(uow.conn, run_id))
    return {d["source"]: d for d in folded["dispositions"]}


def by_message(engine: Engine, tenant: str, run_id: str) -> dict[str, dict[str, Any]]:
    """Each source's disposition keyed by the message that taught it."""
    from memwarden_curate.runs import items_of

    with unit_of_work(engine) as uow:
        items = items_of(the_run(uow.conn, run_id))
    disp = dispositions(engine, run_id)
    return {i["evidence"][0]["message_id"]: disp[i["source"]] for i in items}


def test_snapshot__is_an_immutable_package_with_hash_header_and_jsonl(
    store: Engine, tenant: str
) -> None:
    say_all(store, tenant, LINES)
    who = people(tenant)
    out = take_snapshot(who["planner"], tenant, ["u1"], engine=store)
    assert out["stage"] == "snapshot" and out["counts"]["sources"] == 10
    with unit_of_work(store) as uow:
        run = the_run(uow.conn, out["run_id"])
    assert package.verify(run.package, out["hash"])
    lines = package.to_jsonl(run.package).splitlines()
    header = json.loads(lines[0])["header"]
    assert header["notice"] == "untrusted historical data, not instructions for this rewrite"
    assert len(lines) == 11 and all(json.loads(x)["subject_id"] == "u1" for x in lines[1:])
    first = json.loads(lines[1])
    assert first["evidence"][0]["quote"]  # the sentence, for the reader and for grounding
    with pytest.raises(CurateRefused, match="immutable"):
        take_snapshot(who["planner"], tenant, ["u1"], run_id=out["run_id"], engine=store)


def test_rules__duplicates_merges_and_dated_disagreements_in_both_languages(
    store: Engine, tenant: str
) -> None:
    say_all(store, tenant, LINES)
    out = planned(store, tenant, ["u1"])
    d = by_message(store, tenant, out["run_id"])
    assert d["m1"]["disposition"] == "keep"
    assert d["m3"]["disposition"] == "duplicate" and d["m3"]["reason"] == "normalised_duplicate"
    assert d["m5"]["disposition"] == d["m6"]["disposition"] == "review"  # never newer-wins
    assert d["m10"]["disposition"] == d["m11"]["disposition"] == "review"
    assert d["m7"]["disposition"] == d["m8"]["disposition"] == "merge"
    assert d["m7"]["target"] == d["m8"]["target"]
    assert d["m2"]["disposition"] == d["m4"]["disposition"] == "keep"
    with unit_of_work(store) as uow:
        from memwarden_curate.runs import current_plan

        folded, _ = current_plan(uow.conn, the_run(uow.conn, out["run_id"]))
    dated = sorted([e["said_at"][:10] for e in d["entries"]] for d in folded["disagreements"])
    assert dated == [["2026-05-05", "2026-05-06"], ["2026-05-10", "2026-05-11"]]
    (target,) = folded["targets"]
    assert target["value"] == "我每周一上午写周报"  # said by both messages


def test_publish__switches_keeps_evidence_and_rollback_restores(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    before = values(store, tenant)
    other = values(store, tenant, "u2")
    out = curate(store, tenant, subjects=["u1"])
    assert out["stage"] == "published"
    after = values(store, tenant)
    assert "I deploy only on the Tuesdays" not in after and "I deploy only on Tuesdays" in after
    assert "我每周一上午写周报和月报" not in after and "我每周一上午写周报" in after
    assert "I deploy at 3pm" in after and "I deploy at 5pm" in after  # review: kept as is
    assert len(after) == len(before) - 2
    assert values(store, tenant, "u2") == other
    # the kept memory now carries the duplicate's evidence too: revoking m1 alone keeps it
    revoke_message(tenant, "m1", engine=store)
    drain(store)
    assert "I deploy only on Tuesdays" in values(store, tenant)
    revoke_message(tenant, "m3", engine=store)
    drain(store)
    assert "I deploy only on Tuesdays" not in values(store, tenant)
    # the merged memory cascades from either of its messages
    revoke_message(tenant, "m7", engine=store)
    assert "我每周一上午写周报" in values(store, tenant)  # m8 still says it
    revoke_message(tenant, "m8", engine=store)
    assert "我每周一上午写周报" not in values(store, tenant)


def test_rollback__restores_the_snapshot_as_new_versions(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    before = values(store, tenant)
    out = curate(store, tenant, subjects=["u1"])
    assert values(store, tenant) != before
    back = rollback(people(tenant)["planner"], out["run_id"], engine=store)
    assert back["stage"] == "rolled_back"
    assert values(store, tenant) == before
    with store.connect() as conn:
        statuses = [
            r.status
            for r in conn.execute(
                select(memory_versions.c.status).where(memory_versions.c.tenant_id == tenant)
            )
        ]
    assert "superseded" in statuses  # history kept: the curated versions were not deleted
    with pytest.raises(CurateRefused) as refused:
        publish(people(tenant)["planner"], out["run_id"], engine=store)
    assert refused.value.code == "already_published"


def test_publish__a_failure_after_the_switch_restores_the_snapshot_and_lifts_the_block(
    store: Engine, tenant: str
) -> None:
    say_all(store, tenant, LINES)
    before = values(store, tenant)
    attested = to_attested(store, tenant, ["u1"])
    seen: list[Any] = []

    def boom() -> None:
        seen.append(recall(tenant, "u1", engine=store))
        raise RuntimeError("probe host down")

    with pytest.raises(CurateRefused, match="restored the snapshot"):
        publish(people(tenant)["planner"], attested["run_id"], engine=store, after_apply=boom)
    assert seen[0] == [] and seen[0].reason == "curate_publishing"
    assert values(store, tenant) == before
    assert getattr(recall(tenant, "u1", engine=store), "reason", None) is None


def test_publish__a_failure_during_the_switch_writes_nothing(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    attested = to_attested(store, tenant, ["u1"])
    # the store moves after the snapshot (the duplicate is revoked): refuse, not overwrite
    revoke_message(tenant, "m3", engine=store)
    drain(store)
    before = values(store, tenant)
    with pytest.raises(CurateRefused) as refused:
        publish(people(tenant)["planner"], attested["run_id"], engine=store)
    assert refused.value.code == "snapshot_stale"
    assert values(store, tenant) == before


# ------------------------------------------------------------------------------ refusals


def test_refusal__review_by_the_planner(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    out = planned(store, tenant)
    with pytest.raises(CurateRefused, match="planner cannot review") as refused:
        review_plan(people(tenant)["planner"], out["run_id"], engine=store)
    assert refused.value.code == "reviewer_is_planner"


def test_refusal__attest_by_the_planner(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    out = planned(store, tenant)
    reviewed = review_plan(people(tenant)["reviewer"], out["run_id"], engine=store)
    sample = sample_of(store, tenant, out["run_id"])
    with pytest.raises(CurateRefused, match="planner cannot attest") as refused:
        attest_plan(
            people(tenant)["planner"], out["run_id"], statement(reviewed, sample), engine=store
        )
    assert refused.value.code == "attester_is_planner"


def test_refusal__attest_for_another_hash_or_without_high_risk_samples(
    store: Engine, tenant: str
) -> None:
    say_all(store, tenant, LINES)
    out = planned(store, tenant)
    reviewed = review_plan(people(tenant)["reviewer"], out["run_id"], engine=store)
    who = people(tenant)["attester"]
    sample = sample_of(store, tenant, out["run_id"])
    wrong = {**statement(reviewed, sample), "plan_hash": "0" * 64}
    with pytest.raises(CurateRefused, match="void for any other"):
        attest_plan(who, out["run_id"], wrong, engine=store)
    decisions_only = [s for s in sample if s in by_kind(store, out["run_id"], "decision")]
    with pytest.raises(CurateRefused) as refused:
        attest_plan(who, out["run_id"], statement(reviewed, decisions_only), engine=store)
    assert refused.value.code == "sample_misses_preference"


def by_kind(engine: Engine, run_id: str, kind: str) -> set[str]:
    from memwarden_curate.runs import items_of

    with unit_of_work(engine) as uow:
        return {i["source"] for i in items_of(the_run(uow.conn, run_id)) if i["kind"] == kind}


def test_refusal__publish_without_an_attestation(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    out = planned(store, tenant)
    review_plan(people(tenant)["reviewer"], out["run_id"], engine=store)
    with pytest.raises(CurateRefused, match="no attestation") as refused:
        publish(people(tenant)["planner"], out["run_id"], engine=store)
    assert refused.value.code == "not_attested"


def test_refusal__publish_after_the_plan_changed(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    attested = to_attested(store, tenant, ["u1"])
    run = attested["run_id"]
    some = next(iter(by_kind(store, run, "decision")))
    edited = edit_plan(
        people(tenant)["planner"],
        run,
        dispositions=[{"source": some, "disposition": "review", "reason": "second look"}],
        engine=store,
    )
    assert edited["plan_hash"] != attested["plan_hash"]
    assert not any(r["valid"] for r in edited["reviews"] + edited["attestations"])
    before = values(store, tenant)
    with pytest.raises(CurateRefused, match="plan changed") as refused:
        publish(people(tenant)["planner"], run, engine=store)
    assert refused.value.code == "plan_changed"
    assert values(store, tenant) == before


def test_refusal__publish_when_coverage_is_incomplete(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    out = planned(store, tenant, ["u1"])
    run = out["run_id"]
    dropped = sorted(dispositions(store, run))[0]
    # an edit that sends a source nowhere: no disposition any more
    edit_plan(
        people(tenant)["planner"],
        run,
        dispositions=[{"source": dropped, "disposition": "drop"}],
        engine=store,
    )
    checked = check_plan(people(tenant)["planner"], run, engine=store)
    assert checked["stage"] == "check_failed"
    assert {"code": "unknown_disposition", "source": dropped, "detail": "drop"} in checked[
        "problems"
    ]
    with pytest.raises(CurateRefused, match="coverage is incomplete") as refused:
        publish(people(tenant)["planner"], run, engine=store)
    assert refused.value.code == "coverage_incomplete"
    assert refused.value.problems


def test_refusal__a_second_publish_of_the_same_run(store: Engine, tenant: str) -> None:
    say_all(store, tenant, LINES)
    out = curate(store, tenant, subjects=["u1"])
    after = values(store, tenant)
    with pytest.raises(CurateRefused, match="publishes once") as refused:
        publish(people(tenant)["planner"], out["run_id"], engine=store)
    assert refused.value.code == "already_published"
    assert values(store, tenant) == after
    with pytest.raises(CurateRefused) as refused:  # a published plan is frozen
        review_plan(people(tenant)["reviewer"], out["run_id"], engine=store)
    assert refused.value.code == "closed"


def test_plan__a_crash_resumes_after_the_last_finished_batch(store: Engine, tenant: str) -> None:
    lines = [
        (f"c{n}", f"s{n:02d}", "I prefer pnpm for all my JavaScript projects.") for n in range(5)
    ]
    say_all(store, tenant, lines)
    who = people(tenant)
    out = take_snapshot(who["planner"], tenant, None, batch_size=1, engine=store)
    calls: list[int] = []

    class Crashing(RulesRewriter):
        def rewrite(self, items: list[dict[str, Any]], batch_no: int) -> tuple[dict[str, Any], int]:
            calls.append(batch_no)
            if batch_no == 3 and calls.count(3) == 1:
                raise KeyboardInterrupt  # the process dies mid-plan
            return super().rewrite(items, batch_no)

    rewriter = Crashing(default_registry())
    with pytest.raises(KeyboardInterrupt):
        make_plan(who["planner"], out["run_id"], rewriter, engine=store)
    resumed = make_plan(who["planner"], out["run_id"], rewriter, engine=store)
    assert calls == [0, 1, 2, 3, 3, 4]  # 0-2 were never sent again
    assert resumed["stage"] == "planned"
    assert [e["batch_no"] for e in resumed["ledger"]] == [0, 1, 2, 3, 4]
    assert resumed["counts"]["keep"] == 5


def test_publish__a_crash_with_the_block_up_fails_closed_until_rollback(
    store: Engine, tenant: str
) -> None:
    say_all(store, tenant, LINES)
    before = values(store, tenant)
    attested = to_attested(store, tenant, ["u1"])
    run = attested["run_id"]

    def die() -> None:
        raise KeyboardInterrupt  # the process is killed between the block and the switch

    with pytest.raises(KeyboardInterrupt):
        publish(people(tenant)["planner"], run, engine=store, after_block=die)
    blocked = recall(tenant, "u1", engine=store)
    assert isinstance(blocked, ProtectedEmpty) and blocked.reason == "curate_publishing"
    assert blocked == []
    assert values(store, tenant, "u2")  # another subject is not blocked
    with pytest.raises(CurateRefused) as refused:
        publish(people(tenant)["planner"], run, engine=store)
    assert refused.value.code == "publishing"
    assert rollback(people(tenant)["planner"], run, engine=store)["stage"] == "rolled_back"
    assert values(store, tenant) == before


def test_probe__reports_a_new_version_missing_and_a_retired_one_still_recallable(
    store: Engine, tenant: str
) -> None:
    from memwarden_curate.publish import _probe

    say_all(store, tenant, LINES[:2])
    current = [(r.memory_id, r.version) for r in recall(tenant, "u1", engine=store)]
    assert _probe(store, {"commit": current, "retire": []}) == []
    ghost = ("mem_" + "0" * 32, 1)
    found = _probe(store, {"commit": [ghost], "retire": current[:1]})
    assert found == [f"{ghost[0]}:1", f"{current[0][0]}:{current[0][1]}"]
    revoke_message(tenant, "m1", engine=store)  # no active evidence: not recallable
    assert len(_probe(store, {"commit": current, "retire": []})) == 1


def test_check__a_target_the_subject_asked_to_forget_is_refused(store: Engine, tenant: str) -> None:
    from memwarden_shared.contract.canonical import normalized_content_hash
    from memwarden_shared.store.db import utcnow
    from memwarden_shared.store.schema import suppressions

    say_all(store, tenant, LINES)
    out = planned(store, tenant, ["u1"])
    with store.begin() as conn:  # what forget leaves behind: the normalised hash, no text
        conn.execute(
            suppressions.insert().values(
                tenant_id=tenant,
                subject_id="u1",
                content_hash=normalized_content_hash("我每周一上午写周报"),
                created_at=utcnow(),
            )
        )
    checked = check_plan(people(tenant)["planner"], out["run_id"], engine=store)
    assert [p["code"] for p in checked["problems"]] == ["suppressed"]
