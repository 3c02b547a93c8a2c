"""``memwarden replay --distributed``: the coordinator and the ``replay`` workers as separate OS
processes on PostgreSQL + Redis. The run must equal the in-process replay, survive a worker
SIGKILLed mid-chunk and a coordinator killed and restarted, and change nothing in shadow."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import Engine, func, select

from memwarden_replay.chunks import BadInputLine, plan_chunks
from memwarden_replay.io import ReplayOptions, ReplayRefused
from memwarden_shared.store.db import engine_for
from memwarden_shared.store.schema import replay_chunks, shadow_decisions
from tests.conftest import REDIS_URL
from tests.test_replay import changed, counts, replay, state

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# Each subject changes its mind across sessions, so a subject decided out of order would
# leave another current value (and other decisions) than the in-process replay.
PICKS = [
    "I prefer pnpm for all my projects.",
    "我更喜欢深色主题。",
    "I prefer yarn for all my projects.",
    "我更喜欢浅色主题。",
    "Remember that I review pull requests only on Fridays.",
    "I prefer bun for all my projects.",
]
CHATTER = ["How do I configure eslint?", "Thanks, that helped.", "好的，谢谢。"]


def write_history(path: Path, *, subjects: int, sessions: int, turns: int) -> Path:
    """Sessions of every subject interleaved in time order, as a log export would be."""
    lines = []
    minute = 0
    for round_no in range(sessions):
        for turn_no in range(turns):
            for u in range(subjects):
                minute += 1
                durable = turn_no % 3 == 2
                pick = PICKS[(u + round_no + turn_no) % len(PICKS)]
                lines.append(
                    {
                        "subject_id": f"u{u}",
                        "session_id": f"u{u}-s{round_no}",
                        "message_id": f"m{round_no}-{turn_no}-{u}",
                        "role": "user",
                        "source": "user_message",
                        "text": pick if durable else CHATTER[minute % len(CHATTER)],
                        "created_at": (START + timedelta(minutes=minute)).isoformat(),
                    }
                )
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    return path


class Cluster:
    """Replay workers and coordinators as processes against one database and Redis."""

    def __init__(self, url: str, tmp: Path) -> None:
        self.url, self.tmp = url, tmp
        self.env = {
            **os.environ,
            "MEMWARDEN_DATABASE_URL": url,
            "MEMWARDEN_BROKER_URL": REDIS_URL,
            "MEMWARDEN_REDELIVER_SECONDS": "1",
            "MEMWARDEN_REPLAY_LEASE_SECONDS": "2",
            "MEMWARDEN_LOG_LEVEL": "INFO",
        }
        self.procs: list[tuple[subprocess.Popen[bytes], Any]] = []

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        log = (self.tmp / f"proc-{len(self.procs)}-{args[0]}.log").open("w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "memwarden.cli", *args],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.procs.append((proc, log))
        return proc

    def worker(self) -> subprocess.Popen[bytes]:
        return self.start("worker", "replay")

    def replay(self, *args: str, timeout: float = 240) -> tuple[int, str]:
        done = subprocess.run(
            [sys.executable, "-m", "memwarden.cli", "replay", "--distributed", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return done.returncode, done.stdout + done.stderr

    def stop(self) -> None:
        for proc, _ in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc, log in self.procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()


@pytest.fixture
def cluster(fresh_pg_url: str, tmp_path: Path) -> Iterator[Cluster]:
    redis.Redis.from_url(REDIS_URL).flushdb()
    running = Cluster(fresh_pg_url, tmp_path)
    try:
        yield running
    finally:
        running.stop()
        for path in sorted(tmp_path.glob("proc-*.log")):
            sys.stderr.write(f"--- {path.name}\n{path.read_text()[-2500:]}\n")


@pytest.fixture
def engine(cluster: Cluster) -> Iterator[Engine]:
    db = engine_for(cluster.url)
    yield db
    db.dispose()


def in_process(engine: Engine, path: Path, tenant: str, **options: Any) -> dict[str, Any]:
    run = ReplayOptions(run_id="inproc-" + tenant, default_tenant=tenant, **options)
    return replay([path], run, engine=engine)


def wait_for(condition: Callable[[], bool], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """The counts of a report. Examples are left out: chunks finish in another order than
    in-process batches, so other messages come first as examples."""
    keys = ("turns", "stored", "duplicates", "proposals", "decisions")
    commits = {key: row["count"] for key, row in report["commits"].items()}
    return {**{k: report[k] for k in keys}, "commits": commits}


def decided(engine: Engine, tenant: str) -> dict[str, Any]:
    """Proposals, decisions and current memories. The vector index is left out: in-process
    (embedded) replay drains it in-process; distributed, the relay and the vector-sink
    workers index what the chunks committed, and they are not the subject here."""
    left = state(engine, tenant)
    del left["indexed"]
    return left


def report_of(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text("utf-8"))  # type: ignore[no-any-return]


def chunk_rows(engine: Engine, run_id: str) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(replay_chunks).where(replay_chunks.c.run_id == run_id)))


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_replay_distributed__two_workers_leave_what_the_in_process_replay_leaves(
    cluster: Cluster, engine: Engine, tmp_path: Path
) -> None:
    path = write_history(tmp_path / "history.jsonl", subjects=12, sessions=4, turns=9)
    expected = in_process(engine, path, "t-inproc")
    cluster.worker()
    cluster.worker()
    out = tmp_path / "report.json"
    code, text = cluster.replay(
        str(path), "--tenant", "t-dist", "--batch", "40", "--lanes", "5", "--report", str(out)
    )
    assert code == 0, text
    body = report_of(out)
    assert summary(body) == summary(expected)
    assert body["turns"] == 12 * 4 * 9 and body["duplicates"] == 0
    assert decided(engine, "t-dist") == decided(engine, "t-inproc")
    rows = chunk_rows(engine, body["run_id"])
    assert len(rows) > 5 and all(r.done_at for r in rows)  # several chunks per lane, all done
    assert len({r.claimed_by for r in rows}) == 2  # both workers took part


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_replay_distributed__a_worker_killed_mid_chunk_costs_only_that_chunk(
    cluster: Cluster, engine: Engine, tmp_path: Path
) -> None:
    path = write_history(tmp_path / "history.jsonl", subjects=8, sessions=5, turns=15)
    expected = in_process(engine, path, "t-inproc")
    victim = cluster.worker()
    out = tmp_path / "report.json"
    coordinator = cluster.start(
        "replay",
        "--distributed",
        str(path),
        "--tenant",
        "t-dist",
        "--batch",
        "150",
        "--lanes",
        "2",
        "--run-id",
        "kill-worker",
        "--report",
        str(out),
    )

    def victim_holds_a_chunk() -> bool:
        return any(
            r.claimed_by
            and r.claimed_by.endswith(f":{victim.pid}")
            and r.done_at is None
            and r.claimed_until is not None
            for r in chunk_rows(engine, "kill-worker")
        )

    wait_for(victim_holds_a_chunk)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    held = [
        r.chunk_no
        for r in chunk_rows(engine, "kill-worker")
        if r.done_at is None and r.claimed_by and r.claimed_by.endswith(f":{victim.pid}")
    ]
    cluster.worker()
    assert coordinator.wait(240) == 0
    body = report_of(out)
    assert body["duplicates"] == 0 and body["stored"] == body["turns"] == 8 * 5 * 15
    assert summary(body) == summary(expected)
    assert decided(engine, "t-dist") == decided(engine, "t-inproc")
    rows = {r.chunk_no: r for r in chunk_rows(engine, "kill-worker")}
    assert held and all(rows[no].attempts >= 2 and rows[no].done_at for no in held)


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_replay_distributed__a_coordinator_killed_and_restarted_resumes_the_run(
    cluster: Cluster, engine: Engine, tmp_path: Path
) -> None:
    path = write_history(tmp_path / "history.jsonl", subjects=6, sessions=4, turns=12)
    expected = in_process(engine, path, "t-inproc")
    args = [str(path), "--tenant", "t-dist", "--batch", "30", "--lanes", "2"]
    first = cluster.start("replay", "--distributed", *args, "--run-id", "restart")
    wait_for(lambda: len(chunk_rows(engine, "restart")) > 0)
    planned = len(chunk_rows(engine, "restart"))
    first.send_signal(signal.SIGKILL)  # before any worker runs: nothing was processed yet
    first.wait()
    assert all(r.done_at is None for r in chunk_rows(engine, "restart"))
    cluster.worker()
    out = tmp_path / "report.json"
    code, text = cluster.replay(*args, "--run-id", "restart", "--report", str(out))
    assert code == 0, text
    body = report_of(out)
    assert body["duplicates"] == 0 and body["stored"] == body["turns"] == 6 * 4 * 12
    assert summary(body) == summary(expected)
    assert decided(engine, "t-dist") == decided(engine, "t-inproc")
    assert len(chunk_rows(engine, "restart")) == planned  # planned once, not again
    # once more: the run is done, nothing is replayed twice, the report stands
    code, text = cluster.replay(*args, "--run-id", "restart", "--report", str(out))
    assert code == 0, text
    assert summary(report_of(out)) == summary(body) and report_of(out)["duplicates"] == 0


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_replay_distributed__shadow_writes_nothing_live_and_predicts_in_process_shadow(
    cluster: Cluster, engine: Engine, tmp_path: Path
) -> None:
    path = write_history(tmp_path / "history.jsonl", subjects=5, sessions=3, turns=6)
    expected = in_process(engine, path, "t-inproc", shadow=True)
    before = counts(engine)
    cluster.worker()
    out = tmp_path / "report.json"
    code, text = cluster.replay(
        str(path), "--shadow", "--tenant", "t-dist", "--run-id", "shadow", "--report", str(out)
    )
    assert code == 0, text
    assert changed(before, counts(engine)) <= {
        "replay_runs",
        "replay_plans",
        "replay_chunks",
        "shadow_decisions",
    }
    body = report_of(out)
    assert body["shadow"] and summary(body) == summary(expected)

    def shadow_rows(run_id: str) -> list[tuple[str, str, str]]:
        with engine.connect() as conn:
            rows = conn.execute(
                select(
                    shadow_decisions.c.message_id,
                    shadow_decisions.c.normalized_key,
                    shadow_decisions.c.decision,
                ).where(shadow_decisions.c.run_id == run_id)
            ).all()
        return sorted(map(tuple, rows))

    assert shadow_rows("shadow") == shadow_rows("inproc-t-inproc") != []


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_replay_distributed__a_bad_line_refuses_before_any_chunk_unless_skipped(
    cluster: Cluster, engine: Engine, tmp_path: Path
) -> None:
    path = write_history(tmp_path / "history.jsonl", subjects=3, sessions=2, turns=3)
    with path.open("a", encoding="utf-8") as out:
        # (a turn needs only a subject and a text, ids are derived: this one's text is no text)
        out.write('{"subject_id": "u1", "text": 3}\n')
    code, text = cluster.replay(str(path), "--tenant", "t-bad", "--run-id", "bad")
    assert code == 2 and "byte" in text and "--skip-bad" in text and "Traceback" not in text
    assert chunk_rows(engine, "bad") == []
    cluster.worker()
    report = tmp_path / "report.json"
    code, text = cluster.replay(
        str(path), "--tenant", "t-bad", "--run-id", "bad", "--skip-bad", "--report", str(report)
    )
    assert code == 1, text
    body = report_of(report)
    assert body["bad_lines"] == 1 and body["turns"] == 18 and body["problems"][0]["byte_offset"]


@pytest.mark.slow
def test_replay_distributed__without_a_broker_it_refuses_in_one_line(tmp_path: Path) -> None:
    path = write_history(tmp_path / "history.jsonl", subjects=1, sessions=1, turns=1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memwarden.cli",
            "replay",
            "--distributed",
            str(path),
            "--tenant",
            "t",
        ],
        env={**env, "MEMWARDEN_DATA_DIR": str(tmp_path / "data")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "MEMWARDEN_BROKER_URL" in done.stderr
    assert "Traceback" not in done.stderr


def test_plan_chunks__sessions_and_subjects_stay_in_one_lane_in_input_order(
    tmp_path: Path,
) -> None:
    rows = [
        # s1 has two subjects (u1, u2): u2's other session s3 must share their lane
        ("s1", "u1"),
        ("s2", "u9"),
        ("s1", "u2"),
        ("s3", "u2"),
        ("s2", "u9"),
        ("s3", "u2"),
        ("s4", "u5"),
    ]
    path = tmp_path / "in.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "subject_id": u,
                    "session_id": s,
                    "message_id": f"m{i}",
                    "role": "user",
                    "source": "user_message",
                    "text": "hi",
                    "created_at": START.isoformat(),
                }
            )
            + "\n"
            for i, (s, u) in enumerate(rows)
        ),
        "utf-8",
    )
    plan = plan_chunks(
        [path], chunk_turns=2, lanes_per_tenant=8, default_tenant="t", skip_bad=False
    )
    offsets = [o for _, o, _ in (line for c in plan.chunks for line in c.lines)]
    starts: dict[int, int] = {}
    pos = 0
    for line in path.read_bytes().splitlines(keepends=True):
        starts[pos] = len(starts)
        pos += len(line)
    lanes: dict[int, list[tuple[int, int]]] = {}
    for chunk in plan.chunks:
        lanes.setdefault(chunk.lane, []).extend((chunk.seq, starts[o]) for _, o, _ in chunk.lines)
    as_lines = sorted(sorted(i for _, i in lane) for lane in lanes.values())
    assert as_lines == [[0, 2, 3, 5], [1, 4], [6]]
    for lane in lanes.values():  # seq order is input order within a lane
        assert [i for _, i in sorted(lane)] == sorted(i for _, i in lane)
    assert plan.turns == 7 and sorted(offsets) == sorted(starts)
    assert max(len(c.lines) for c in plan.chunks) == 2
    path.write_text(path.read_text() + "not json\n", "utf-8")
    with pytest.raises(BadInputLine, match="byte"):
        plan_chunks([path], chunk_turns=2, lanes_per_tenant=8, default_tenant="t", skip_bad=False)


def test_replay_distributed__chunk_counts_in_the_store(engine: Engine) -> None:
    """The count query the progress bar uses works on an empty run."""
    from memwarden_replay.distributed import progress

    empty = progress(engine, "no-such-run-" + uuid.uuid4().hex)
    assert (empty.chunks, empty.done, empty.turns_done) == (0, 0, 0) and empty.settled
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(replay_chunks)).scalar_one() == 0


@pytest.mark.postgres
def test_replay_distributed__a_file_changed_after_the_plan_fails_its_chunk_not_other_bytes(
    fresh_pg_url: str, tmp_path: Path
) -> None:
    """In-process, no broker: the worker's code path called directly."""
    from memwarden_replay.chunk_worker import run_chunk
    from memwarden_replay.distributed import failures, open_distributed, progress

    db = engine_for(fresh_pg_url)
    path = write_history(tmp_path / "history.jsonl", subjects=2, sessions=1, turns=3)
    options = ReplayOptions(run_id="changed", default_tenant="t-changed")
    plan = open_distributed([path], options, engine=db, chunk_turns=100, lanes=1)
    assert plan["chunks"] == 1
    path.write_text(path.read_text("utf-8").replace("eslint", "ESLINT"), "utf-8")
    sent: list[int] = []
    assert run_chunk(db, "changed", 0, lambda _run, no: sent.append(no)) == "failed"
    state_now = progress(db, "changed")
    assert state_now.settled and not state_now.finished and sent == []
    assert "ChunkInputChanged" in failures(db, "changed")[0]["error"]
    with pytest.raises(ReplayRefused, match="changed since it was planned"):
        open_distributed([path], options, engine=db, chunk_turns=100, lanes=1)
    db.dispose()
