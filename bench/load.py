"""The machine's load average while a figure was measured (figures move 2-5x with load)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class LoadSamples:
    """One-minute load averages sampled once a second while a measurement ran."""

    samples: list[float] = field(default_factory=list)

    def text(self) -> str:
        if not self.samples:
            return "load n/a"
        low, high = min(self.samples), max(self.samples)
        mean = sum(self.samples) / len(self.samples)
        return f"load avg {mean:.1f} (min {low:.1f}, max {high:.1f}, {len(self.samples)} samples)"


@contextmanager
def watch_load(interval_s: float = 1.0) -> Iterator[LoadSamples]:
    """Sample ``os.getloadavg()`` in a daemon thread for as long as the block runs."""
    found = LoadSamples([os.getloadavg()[0]])
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(interval_s):
            found.samples.append(os.getloadavg()[0])

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        stop.set()
        thread.join()
        found.samples.append(os.getloadavg()[0])
