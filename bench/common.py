"""Helpers shared by the benchmarks: a scratch PostgreSQL database and percentile maths."""

from __future__ import annotations

import os
import statistics
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from memwarden_shared.config import get_settings
from memwarden_shared.store.db import engine_for, migrate

PG_URL = os.environ.get(
    "MEMWARDEN_BENCH_PG_URL", "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres"
)


@contextmanager
def scratch_database(keep: bool = False) -> Iterator[Engine]:
    """A fresh, migrated PostgreSQL database, dropped afterwards unless ``keep``.

    A benchmark's synthetic traffic is a burst by design: the anomaly detector would send it
    to review and the figures would measure another path, so a bench's database comes with
    the detector off (counting still runs: its cost is real). Set here, when a bench runs,
    not when its module is imported: a test that imports a bench's harness keeps its own
    settings."""
    os.environ.setdefault("MEMWARDEN_ANOMALY_ENABLED", "false")
    get_settings.cache_clear()
    name = "mw_bench_" + uuid.uuid4().hex[:8]
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    engine = engine_for(url)
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()
        if not keep:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def summary_ms(samples_s: list[float]) -> str:
    ms = [s * 1000 for s in samples_s]
    return (
        f"n={len(ms)} p50={percentile(ms, 50):.2f} ms p90={percentile(ms, 90):.2f} ms "
        f"p99={percentile(ms, 99):.2f} ms mean={statistics.fmean(ms):.2f} ms"
    )
