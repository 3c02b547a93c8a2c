"""What the broker holds: the stage queues' lengths in a Redis broker.

Celery's Redis transport keeps a queue as a list named after it (the list KEDA reads);
messages a worker has taken but not acknowledged are not in it. Other transports give no
lengths: the readers below are None for them, and their callers do without.
"""

from __future__ import annotations

from collections.abc import Callable

import redis
from kombu import Connection
from kombu.exceptions import OperationalError

from memwarden_shared.delivery.pipeline import queues

# -> the list lengths of the given keys
ListLengths = Callable[[list[str]], list[int]]
# -> the stage queues that hold messages now; see ``outbox.claim_batch`` (redeliver_topics)
BusyQueues = Callable[[], set[str]]


def redis_llen(broker_url: str, timeout: float = 5.0) -> ListLengths | None:
    """A list-length reader for a Redis broker, or None for any other transport."""
    if broker_url.split("://", 1)[0] not in ("redis", "rediss"):
        return None
    client = redis.Redis.from_url(
        broker_url, socket_timeout=timeout, socket_connect_timeout=timeout
    )

    def llen(keys: list[str]) -> list[int]:
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.llen(key)
        return [int(n) for n in pipe.execute()]

    return llen


def redis_busy_queues(broker_url: str, timeout: float = 5.0) -> BusyQueues | None:
    """The stage queues holding messages in a Redis broker (None for other transports)."""
    llen = redis_llen(broker_url, timeout)
    if llen is None:
        return None
    names = queues()

    def busy() -> set[str]:
        return {q for q, n in zip(names, llen(names), strict=True) if n}

    return busy


def broker_reachable(broker_url: str, timeout: int = 3) -> bool:
    """True when a connection to the broker opens within ``timeout`` (any kombu transport).
    One attempt, no retry loop: the caller decides what an unreachable broker means."""
    with Connection(broker_url, connect_timeout=timeout) as conn:
        try:
            conn.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0, timeout=timeout
            )
        except (OperationalError, OSError):
            return False
    return True
