"""``memwarden replay``: historical sessions streamed through an extractor version and the
real gate, resumable, idempotent, and in shadow mode without changing the store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

import memwarden_replay.io as replay_io
from memwarden_gate.io import decide_many
from memwarden_recall.query import recall
from memwarden_replay.io import BatchDone, ReplayOptions
from memwarden_replay.source import read_batches
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.config import get_settings
from memwarden_shared.store.schema import (
    current_memories,
    metadata,
    proposals,
    replay_checkpoints,
    shadow_decisions,
    vector_index,
)
from memwarden_usecases import replay as replay_use_case
from memwarden_usecases.pipeline import drain

# `memwarden replay` is a system process (it spans tenants): as the system login.
pytestmark = pytest.mark.spans_tenants

REPO = Path(__file__).resolve().parent.parent


def replay(
    paths: list[Path],
    options: ReplayOptions,
    *,
    engine: Engine,
    on_batch: Any = None,
) -> dict[str, Any]:
    """The replay use case with the configured settings (embedded in tests: each batch's
    events run in process, as ``memwarden replay`` runs them)."""
    return replay_use_case.replay(engine, paths, options, get_settings(), on_batch=on_batch)


RUN_TABLES = {"replay_runs", "replay_checkpoints"}
SMALL_TALK = [
    "How do I configure eslint?",
    "今天天气不错。",
    "Thanks, that helped.",
    "好的，谢谢。",
]
DURABLE = [
    "I prefer pnpm for all my JavaScript projects.",
    "我更喜欢深色主题。",
    "以后都用中文回复我。",
    "Remember that I review pull requests only in the afternoon.",
]
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Interrupted(Exception):
    """Stands in for Ctrl-C or a kill."""


def write_sessions(
    path: Path, turns: int, *, every: int = 10, texts: list[str] | None = None, prefix: str = ""
) -> Path:
    """``turns`` lines without tenant ids (``--tenant`` supplies it), one session per 8 turns
    over 20 subjects; every ``every``-th turn a durable statement, in English or Chinese."""
    texts = texts or DURABLE
    with path.open("w", encoding="utf-8") as out:
        for i in range(turns):
            session = i // 8
            durable = i % every == every - 1
            text = texts[(i // every) % len(texts)] if durable else SMALL_TALK[i % len(SMALL_TALK)]
            row = {
                "subject_id": f"u{session % 20}",
                "session_id": f"s{session}",
                "message_id": f"{prefix}m{i}",
                "role": "user",
                "source": "user_message",
                "text": text,
                "created_at": (START + timedelta(minutes=i)).isoformat(),
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            t.name: conn.execute(select(func.count()).select_from(t)).scalar_one()
            for t in metadata.sorted_tables
        }


def changed(before: dict[str, int], after: dict[str, int]) -> set[str]:
    return {name for name in after if after[name] != before.get(name)}


def state(engine: Engine, tenant: str) -> dict[str, Any]:
    """What a run left, in terms that do not depend on the tenant id."""
    with engine.connect() as conn:
        props = conn.execute(
            select(
                proposals.c.message_id,
                proposals.c.normalized_key,
                proposals.c.decision,
                proposals.c.state,
            ).where(proposals.c.tenant_id == tenant)
        ).all()
        memories = conn.execute(
            select(
                current_memories.c.subject_id,
                current_memories.c.normalized_key,
                current_memories.c.version,
                current_memories.c.value_json,
            ).where(current_memories.c.tenant_id == tenant)
        ).all()
        indexed = conn.execute(
            select(func.count()).select_from(vector_index).where(vector_index.c.tenant_id == tenant)
        ).scalar_one()
    return {
        "proposals": sorted(map(tuple, props)),
        "memories": sorted(map(tuple, memories)),
        "indexed": indexed,
    }


def summary(report: dict[str, Any]) -> dict[str, Any]:
    keys = ("turns", "stored", "duplicates", "proposals", "decisions", "commits")
    return {k: report[k] for k in keys}


def test_read_batches__streams_in_bounded_memory_and_reports_bad_lines(tmp_path: Path) -> None:
    path = write_sessions(tmp_path / "big.jsonl", 30_000)
    with path.open("a", encoding="utf-8") as out:
        out.write('{"text": "my password is hunter2"\n')  # broken JSON holding a secret
        out.write("\n")
    size = path.stat().st_size
    next(read_batches(path, start=0, size=50, default_tenant="t1"))  # imports, caches
    tracemalloc.start()
    ends, turns, bad = [0], 0, []
    for batch in read_batches(path, start=0, size=50, default_tenant="t1"):
        assert batch.start == ends[-1]  # batches tile the file: a checkpoint is exact
        ends.append(batch.end)
        turns += len(batch.turns)
        bad += batch.bad_lines
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert ends[-1] == size and turns == 30_000
    # one batch at a time: the peak stays near one batch's worth (140–290 kB measured for
    # 10,000 and 20,000 lines alike, whatever the file size), far below the file (~6.6 MB)
    assert peak < size / 8, f"peak {peak} bytes for a {size}-byte file"
    assert [b["error"] for b in bad] == ["not I-JSON: not_json"]
    assert "hunter2" not in json.dumps(bad)
    resumed = list(read_batches(path, start=ends[30], size=50, default_tenant="t1"))
    assert sum(len(b.turns) for b in resumed) == 30_000 - 30 * 50


def test_replay__a_few_thousand_turns_in_two_languages(
    store: Engine, tenant: str, tmp_path: Path
) -> None:
    path = write_sessions(tmp_path / "history.jsonl", 3000, every=10)
    seen: list[BatchDone] = []
    report = replay(
        [path],
        ReplayOptions(run_id=f"run-{tenant}", default_tenant=tenant),
        engine=store,
        on_batch=seen.append,
    )
    assert len(seen) == 6 and sum(b.bytes for b in seen) == path.stat().st_size
    assert (report["turns"], report["stored"], report["bad_lines"]) == (3000, 3000, 0)
    assert report["proposals"] == 300 and report["replayed"] == 0
    assert report["turns_per_second"] > 0 and report["proposals_per_second"] > 0
    assert set(report["commits"]) == {
        "preference.package_manager",
        "preference.ui_theme",
        "preference.language",
        "preference.note",
    }
    assert report["decisions"]["COMMIT"]["count"] == sum(
        c["count"] for c in report["commits"].values()
    )
    after = state(store, tenant)
    assert {json.loads(m[3]) for m in after["memories"]} >= {"pnpm", "dark", "zh Chinese 中文"}
    assert after["indexed"] == len(after["memories"])  # embedded: the vector sink ran


@pytest.mark.spans_tenants  # two runs into two tenants, as `memwarden replay` (all tenants)
def test_replay__resumes_after_an_interruption_to_the_same_state(
    store: Engine, tenant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [*DURABLE, "Actually, I prefer yarn.", "我一直用 pnpm。"]
    path = write_sessions(tmp_path / "history.jsonl", 600, every=3, texts=texts)
    interrupted, straight = f"{tenant}-a", f"{tenant}-b"

    batches = 0

    def stop_after_two(done: BatchDone) -> None:
        nonlocal batches
        batches += 1
        if batches == 2:
            raise Interrupted  # batch 2 has committed: "killed between batches"

    options = ReplayOptions(run_id=f"run-{interrupted}", default_tenant=interrupted, batch_size=100)
    with pytest.raises(Interrupted):
        replay([path], options, engine=store, on_batch=stop_after_two)
    with store.connect() as conn:
        offset = conn.execute(
            select(replay_checkpoints.c.byte_offset).where(
                replay_checkpoints.c.run_id == options.run_id
            )
        ).scalar_one()
    assert 0 < offset < path.stat().st_size

    calls = 0
    real_decide = decide_many  # the name replay_io calls, patched below

    def crash_on_second(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise Interrupted  # inside batch 4's transaction: "killed mid-batch"
        return real_decide(*args, **kwargs)

    monkeypatch.setattr(replay_io, "decide_many", crash_on_second)
    with pytest.raises(Interrupted):
        replay([path], options, engine=store)
    monkeypatch.setattr(replay_io, "decide_many", real_decide)
    resumed = replay([path], options, engine=store)

    uninterrupted = replay(
        [path],
        ReplayOptions(run_id=f"run-{straight}", default_tenant=straight, batch_size=100),
        engine=store,
    )
    assert state(store, interrupted) == state(store, straight)
    assert summary(resumed) == summary(uninterrupted)
    assert resumed["turns"] == 600 and resumed["replayed"] == 0


def test_replay__running_the_same_files_again_writes_nothing(
    store: Engine, tenant: str, tmp_path: Path
) -> None:
    path = write_sessions(tmp_path / "history.jsonl", 400, every=4)
    first = replay(
        [path], ReplayOptions(run_id=f"one-{tenant}", default_tenant=tenant), engine=store
    )
    assert first["decisions"]["COMMIT"]["count"] > 0
    before = counts(store)
    again = replay(
        [path], ReplayOptions(run_id=f"two-{tenant}", default_tenant=tenant), engine=store
    )
    assert changed(before, counts(store)) == RUN_TABLES  # only the new run's own rows
    assert (again["stored"], again["duplicates"]) == (0, 400)
    assert again["replayed"] == again["proposals"] == first["proposals"]
    assert again["commits"] == {}
    before = counts(store)
    done = replay(
        [path], ReplayOptions(run_id=f"one-{tenant}", default_tenant=tenant), engine=store
    )
    assert counts(store) == before  # a finished run has nothing left to do
    assert summary(done) == summary(first)


def test_replay__shadow_changes_nothing_and_predicts_the_real_run(
    store: Engine, tenant: str, tmp_path: Path
) -> None:
    seed = write_sessions(tmp_path / "seed.jsonl", 40, every=2, texts=["I prefer npm."])
    replay([seed], ReplayOptions(run_id=f"seed-{tenant}", default_tenant=tenant), engine=store)
    texts = [*DURABLE, "Actually, I prefer yarn.", "Should I switch to bun?"]
    path = write_sessions(tmp_path / "history.jsonl", 160, every=2, texts=texts, prefix="h")
    recalled = sorted(str(m.value) for m in recall(tenant, "u1", engine=store))
    before = counts(store)

    shadow = replay(
        [path],
        ReplayOptions(run_id=f"shadow-{tenant}", default_tenant=tenant, shadow=True),
        engine=store,
    )
    assert changed(before, counts(store)) == RUN_TABLES | {"shadow_decisions"}
    assert sorted(str(m.value) for m in recall(tenant, "u1", engine=store)) == recalled
    # against the real current state: the seeded npm makes pnpm and yarn a replacement
    assert shadow["decisions"]["CONFIRM_REPLACE"]["count"] > 0
    assert shadow["stored"] == 160 and shadow["commits"]

    real = replay(
        [path], ReplayOptions(run_id=f"real-{tenant}", default_tenant=tenant), engine=store
    )
    with store.connect() as conn:
        predicted = {
            r.proposal_id: (r.decision, json.loads(r.reasons))
            for r in conn.execute(
                select(shadow_decisions).where(shadow_decisions.c.run_id == f"shadow-{tenant}")
            )
        }
        decided = {
            r.proposal_id: (r.decision, json.loads(r.reasons))
            for r in conn.execute(
                select(proposals).where(
                    proposals.c.tenant_id == tenant, proposals.c.message_id.like("hm%")
                )
            )
        }
    assert predicted == decided and len(predicted) == shadow["proposals"]
    assert summary(real) == summary(shadow)


def test_replay__a_new_extractor_version_proposes_anew_and_noops(
    store: Engine, tenant: str, tmp_path: Path
) -> None:
    path = write_sessions(tmp_path / "history.jsonl", 160, every=4)
    replay([path], ReplayOptions(run_id=f"v1-{tenant}", default_tenant=tenant), engine=store)
    revoke_message(tenant, "m3", engine=store)  # revoked since: nothing may come of it again
    drain(store)
    with store.connect() as conn:
        v1 = set(
            conn.execute(
                select(proposals.c.proposal_id).where(proposals.c.tenant_id == tenant)
            ).scalars()
        )
    versions = counts(store)["memory_versions"]
    v2 = replay(
        [path],
        ReplayOptions(run_id=f"v2-{tenant}", default_tenant=tenant, extractor_version="rules-2.0"),
        engine=store,
    )
    with store.connect() as conn:
        rows = conn.execute(
            select(
                proposals.c.proposal_id, proposals.c.decision, proposals.c.extractor_version
            ).where(proposals.c.tenant_id == tenant, proposals.c.proposal_id.not_in(v1))
        ).all()
    assert len(rows) == len(v1) - 1 == v2["proposals"] and v2["replayed"] == 0
    assert {(r.decision, r.extractor_version) for r in rows} == {("NOOP", "rules-2.0")}
    assert counts(store)["memory_versions"] == versions


def test_replay__a_run_resumes_only_with_its_own_options(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    path = write_sessions(tmp_path / "history.jsonl", 20)
    replay([path], ReplayOptions(run_id="r", default_tenant="t"), engine=sqlite_engine)
    with pytest.raises(replay_io.ReplayRefused, match="resume it with the same options"):
        replay(
            [path], ReplayOptions(run_id="r", default_tenant="t", shadow=True), engine=sqlite_engine
        )


def test_replay__a_conflicting_turn_is_skipped_and_reported(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    path = write_sessions(tmp_path / "history.jsonl", 20, every=2)
    with path.open("a", encoding="utf-8") as out:
        clash = {
            "subject_id": "u0",
            "session_id": "s0",
            "message_id": "m1",
            "role": "user",
            "source": "user_message",
            "text": "I prefer bun.",
            "created_at": START.isoformat(),
        }
        out.write(json.dumps(clash) + "\n")
    report = replay([path], ReplayOptions(run_id="r", default_tenant="t"), engine=sqlite_engine)
    assert (report["turns"], report["stored"], report["refused"]) == (21, 20, 1)
    assert report["problems"][0]["message_id"] == "m1"
    assert "bun" not in json.dumps(report)


@pytest.fixture
def cli_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = {
        **os.environ,
        "MEMWARDEN_DATA_DIR": str(tmp_path / "data"),
        "MEMWARDEN_LOG_LEVEL": "WARNING",
    }
    env.pop("MEMWARDEN_DATABASE_URL", None)
    env.pop("MEMWARDEN_BROKER_URL", None)
    yield env


@pytest.mark.slow
def test_replay_cli__shadow_report_then_nothing_left(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    folder = tmp_path / "sessions"
    (folder / "2026").mkdir(parents=True)
    write_sessions(folder / "2026" / "a.jsonl", 40, every=4)
    (folder / "notes.txt").write_text("not a session file")
    out = tmp_path / "report.json"
    args = [
        sys.executable,
        "-m",
        "memwarden.cli",
        "replay",
        str(folder),
        "--tenant",
        "acme",
    ]
    done = subprocess.run(
        [*args, "--shadow", "--batch", "16", "--report", str(out)],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    body = json.loads(out.read_text(encoding="utf-8"))
    assert body["shadow"] and body["turns"] == 40 and body["proposals"] == 10
    assert "would be committed" in done.stdout
    example = body["commits"]["preference.package_manager"]["examples"][0]
    assert example["value"] == "pnpm" and "pnpm" not in done.stdout  # values stay in the file
    again = subprocess.run(
        [*args, "--shadow"], env=cli_env, capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert again.returncode == 0 and "nothing left to replay" in again.stdout


def test_extractor_for__a_version_only_for_the_rules_extractor() -> None:
    with pytest.raises(replay_io.ReplayRefused, match="applies to the rules extractor"):
        replay_io.extractor_for("llm", "llm-x-9")
    with pytest.raises(replay_io.ReplayRefused, match="unknown extractor"):
        replay_io.extractor_for("magic", None)


@pytest.mark.slow
def test_replay_cli__bad_lines_refuse_by_default_and_skipping_them_exits_1(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """Replay's bad-line policy is ingest's: refused before anything is replayed; with
    --skip-bad, a non-zero exit even when every line is bad (it used to exit 0)."""
    path = tmp_path / "all-bad.jsonl"
    path.write_text('not json\n[1]\n{"text": 3}\n', encoding="utf-8")
    base = [sys.executable, "-m", "memwarden.cli", "replay", str(path), "--tenant", "t"]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *extra], env=cli_env, capture_output=True, text=True, timeout=120, cwd=REPO
        )

    refused = run()
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert "byte 0: not I-JSON: not_json" in refused.stderr and "--skip-bad" in refused.stderr
    assert "Traceback" not in refused.stderr
    skipped = run("--skip-bad", "--run-id", "skip-all")
    assert skipped.returncode == 1, skipped.stderr[-2000:]
    assert "3 line(s) skipped" in skipped.stderr


def test_replay__a_bad_line_refuses_the_run_before_any_batch(
    store: Engine, tenant: str, tmp_path: Path
) -> None:
    path = write_sessions(tmp_path / "history.jsonl", 100, every=10)
    with path.open("a", encoding="utf-8") as out:
        out.write('{"broken": \n')
    before = counts(store)
    with pytest.raises(replay_io.ReplayRefused, match="nothing was replayed"):
        replay([path], ReplayOptions(run_id=f"bad-{tenant}", default_tenant=tenant), engine=store)
    assert changed(before, counts(store)) <= RUN_TABLES
