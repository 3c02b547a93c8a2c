"""What the fault suite runs on: a private Redis with AOF, stage processes started through the
CLI, a scratch PostgreSQL cluster when the machine allows one, and the fault primitives
(SIGKILL, SIGSTOP, kill -9 of Redis, immediate database stop).

Every process gets ``application_name=<its name>`` in its database URL, so the suite can see
in ``pg_stat_activity`` when a worker holds a transaction open and kill it right then.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import redis
from sqlalchemy import Engine, text

# Short on purpose: recovery must take at most this plus a batch (SPEC §8.1).
REDELIVER_SECONDS = 3

# A wait fails when nothing it watches has moved for this long, however long it has run:
# on a loaded machine work is slower, not stopped, and a wall-clock budget cannot tell the
# two apart (issue 22 item 5). Long enough for a relay's redelivery deadline, a consumer's
# retry budget and a batch under a load of 20 on two cores.
PROGRESS_IDLE_SECONDS = 90.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(condition: Callable[[], bool], seconds: float, what: str, step: float = 0.2) -> float:
    """Poll ``condition``; returns the seconds it took, raises naming ``what`` on timeout."""
    t0 = time.monotonic()
    while not condition():
        if time.monotonic() - t0 > seconds:
            raise AssertionError(f"{what}: not reached within {seconds:.0f}s")
        time.sleep(step)
    return time.monotonic() - t0


def wait_progressing(
    done: Callable[[], bool],
    progress: Callable[[], Hashable],
    what: str,
    idle_seconds: float = PROGRESS_IDLE_SECONDS,
    step: float = 0.5,
) -> float:
    """Poll ``done`` until it holds; fail only when ``progress()`` (a token of how far the
    work got, e.g. counts that move only towards the goal) has not changed for
    ``idle_seconds``. Returns the seconds it took."""
    t0 = last_change = time.monotonic()
    mark = progress()
    while not done():
        now = time.monotonic()
        token = progress()
        if token != mark:
            mark, last_change = token, now
        elif now - last_change > idle_seconds:
            raise AssertionError(
                f"{what}: no progress for {idle_seconds:.0f}s "
                f"(after {now - t0:.0f}s in all; stuck at {mark})"
            )
        time.sleep(step)
    return time.monotonic() - t0


def cpu_ticks(pid: int) -> int:
    """CPU time (user + system, in clock ticks) of ``pid`` and its children; 0 once gone.
    A process that is importing or working uses CPU; one that is stuck does not."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        # after the command: state ppid ... utime (12th) stime (13th), 0-based from state
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])
    return total


class RedisServer:
    """A redis-server of the suite's own on a free port, append-only file on, so a kill -9
    keeps what was fsynced (everysec: up to a second of messages may be lost, as in life)."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise AssertionError("redis-server is not installed; the fault suite needs it")
        with (self.dir / "redis.log").open("a") as log:  # the child keeps its own descriptor
            self.proc = self._spawn(binary, log)
        client = redis.Redis.from_url(self.url)
        try:
            wait_progressing(
                lambda: _pings(client),
                lambda: self.proc is not None and cpu_ticks(self.proc.pid),
                "private redis up",
                step=0.05,
            )
        finally:
            client.close()

    def _spawn(self, binary: str, log: IO[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--daemonize",
                "no",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


def memwarden_command() -> list[str]:
    """The installed console script next to this interpreter (``.venv/bin/memwarden``)."""
    script = Path(sys.executable).parent / "memwarden"
    return [str(script)] if script.exists() else [sys.executable, "-m", "memwarden.cli"]


def with_application_name(url: str, name: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}application_name={name}"


@dataclass
class Fleet:
    """The stage processes, by name; each can be killed, frozen and restarted."""

    database_url: str
    broker_url: str
    log_dir: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    args: dict[str, list[str]] = field(default_factory=dict)
    starts: dict[str, int] = field(default_factory=dict)

    def env(self, name: str) -> dict[str, str]:
        return {
            **os.environ,
            "MEMWARDEN_DATABASE_URL": with_application_name(self.database_url, name),
            "MEMWARDEN_BROKER_URL": self.broker_url,
            "MEMWARDEN_REDELIVER_SECONDS": str(REDELIVER_SECONDS),
            "MEMWARDEN_RELAY_POLL_SECONDS": "0.05",
            "MEMWARDEN_MAX_BATCH": "50",
            "MEMWARDEN_LOG_LEVEL": "INFO",
            "MEMWARDEN_METRICS_PORT": "0",
            **self.extra_env,
        }

    def start(self, name: str, *args: str) -> None:
        self.args[name] = list(args)
        self.starts[name] = self.starts.get(name, 0) + 1
        with (self.log_dir / f"{name}.log").open("a") as log:
            log.write(f"\n=== start {self.starts[name]} of {name} at {time.time():.3f}\n")
            log.flush()
            self.procs[name] = subprocess.Popen(
                [*memwarden_command(), *args],
                env=self.env(name),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def restart(self, name: str) -> None:
        self.start(name, *self.args[name])

    def signal(self, name: str, sig: signal.Signals) -> None:
        proc = self.procs[name]
        if proc.poll() is None:
            proc.send_signal(sig)

    def kill(self, name: str) -> None:
        self.signal(name, signal.SIGKILL)
        self.procs[name].wait(10)

    def alive(self) -> list[str]:
        return [n for n, p in self.procs.items() if p.poll() is None]

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    def log_tail(self, chars: int = 2500) -> str:
        """Each process's log: its error records whole (a failure's cause is rarely in the
        last lines of a busy log), then its tail."""
        parts = []
        for path in sorted(self.log_dir.glob("*.log")):
            text = path.read_text(errors="replace")
            errors = error_records(text)
            if errors:
                parts.append(f"--- {path.name}: {len(errors)} error record(s)\n" + "".join(errors))
            parts.append(f"--- {path.name}\n{text[-chars:]}")
        return "\n".join(parts)

    def wait_ready(self, names: list[str]) -> float:
        """Until every worker of ``names`` consumes. Progress: another one became ready, or
        the starting ones used CPU (importing under load is slow, not stuck)."""

        def progress() -> tuple[int, int]:
            ready = sum(self.ready([n]) for n in names)
            ticks = sum(cpu_ticks(self.procs[n].pid) for n in names)
            return ready, ticks

        return wait_progressing(lambda: self.ready(names), progress, "workers ready")

    def ready(self, names: list[str]) -> bool:
        """Celery workers print ``ready.`` once they consume; relays are ready when running."""
        for name in names:
            if self.procs[name].poll() is not None:
                raise AssertionError(f"{name} exited with {self.procs[name].returncode}")
            if self.args[name][0] == "worker":
                log = (self.log_dir / f"{name}.log").read_text(errors="replace")
                if log.count("ready.") < self.starts[name]:
                    return False
        return True


def standard_fleet(fleet: Fleet) -> list[str]:
    """Two relays, two gate workers, two vector sinks, one extractor, one revalidation."""
    layout = {
        "relay-1": ["relay"],
        "relay-2": ["relay"],
        "gate-1": ["worker", "gate"],
        "gate-2": ["worker", "gate"],
        "vector_sink-1": ["worker", "vector_sink"],
        "vector_sink-2": ["worker", "vector_sink"],
        "extractor-1": ["worker", "extractor"],
        "revalidation-1": ["worker", "revalidation"],
    }
    for name, args in layout.items():
        fleet.start(name, *args)
    return list(layout)


def holds_transaction(engine: Engine, name: str) -> bool:
    """True while the process called ``name`` has a transaction open in PostgreSQL."""
    with engine.connect() as conn:
        return bool(
            conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = :n "
                    "AND xact_start IS NOT NULL AND pid <> pg_backend_pid()"
                ),
                {"n": name},
            ).scalar_one()
        )


def lock_waiters(engine: Engine, name: str) -> int:
    """How many of the process ``name``'s connections wait for a lock in PostgreSQL."""
    with engine.connect() as conn:
        return int(
            conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = :n "
                    "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
                ),
                {"n": name},
            ).scalar_one()
        )


def kill_in_transaction(fleet: Fleet, engine: Engine, name: str, seconds: float = 20) -> bool:
    """SIGKILL ``name`` the moment it is seen inside a transaction; False if it never was
    within ``seconds`` (then it is killed anyway, mid-whatever)."""
    deadline = time.monotonic() + seconds
    caught = False
    while time.monotonic() < deadline:
        if holds_transaction(engine, name):
            caught = True
            break
        time.sleep(0.01)
    fleet.kill(name)
    return caught


# --- a scratch PostgreSQL cluster -------------------------------------------------------


class ScratchUnavailable(RuntimeError):
    """The machine cannot run a private PostgreSQL cluster (no initdb, or no way to run it
    as a non-root user); the message says which."""


@dataclass
class ScratchCluster:
    """A throwaway PostgreSQL cluster (initdb in a temp dir) the suite may stop at will.

    PostgreSQL refuses to run as root, so as root it runs as the ``postgres`` user via
    ``su``; as any other user it runs as that user."""

    root: Path
    port: int = field(default_factory=free_port)
    database: str = "postgres"

    @property
    def bindir(self) -> Path:
        candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if candidates:
            return candidates[-1].parent
        found = shutil.which("initdb")
        if found is None:
            raise ScratchUnavailable("no initdb under /usr/lib/postgresql/*/bin or on PATH")
        return Path(found).parent

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{self.database}"

    def _run(self, command: str) -> None:
        if os.geteuid() == 0:
            if shutil.which("su") is None:
                raise ScratchUnavailable("running as root and no su to become postgres")
            argv = ["su", "postgres", "-s", "/bin/sh", "-c", command]
        else:
            argv = ["/bin/sh", "-c", command]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise ScratchUnavailable(f"{command.split()[0]} failed: {done.stderr[-500:]}")

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        self._run(f"{self.bindir}/initdb -D {self.root}/data -A trust -U postgres >/dev/null")
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            f"{self.bindir}/pg_ctl -D {self.root}/data -o '{options}' -l {self.root}/log -w start"
        )

    def stop_immediate(self) -> None:
        self._run(f"{self.bindir}/pg_ctl -D {self.root}/data -m immediate stop")

    def destroy(self) -> None:
        with suppress(ScratchUnavailable):
            self._run(f"{self.bindir}/pg_ctl -D {self.root}/data -m immediate stop")
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def fleet_running(fleet: Fleet) -> Iterator[Fleet]:
    try:
        yield fleet
    finally:
        fleet.stop_all()


# a log record starts with its timestamp; the lines after it up to the next record belong to it
_RECORD_START = re.compile(r"^\d{4}-\d\d-\d\dT", re.MULTILINE)
_ERROR_LEVEL = re.compile(r"\[(?:error|critical|exception)\s*\]|Traceback \(most recent")


def error_records(text: str, limit: int = 5) -> list[str]:
    """The first ``limit`` records of a process log at error level, with their tracebacks."""
    starts = [m.start() for m in _RECORD_START.finditer(text)] or [0]
    records = [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    return [r for r in records if _ERROR_LEVEL.search(r)][:limit]
