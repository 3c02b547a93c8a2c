"""Stored embeddings kept in the process, keyed by what makes them immutable.

A vector index row is written for one ``memory_id:version`` by one embedder and never
changes after (a new version or a reindex writes a new key), so recall fetches the bytes of
a key once and then reads only the key (issue 23: about 100 KB of embeddings were shipped on
every call). Bounded LRU: the least recently recalled keys go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

# (memory_id, version, embedder name)
Key = tuple[str, int, str]

# 256 float32 = 1 KiB per entry with the default embedder: about 50 MiB at the bound.
MAX_ENTRIES = 50_000


class VectorCache:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Key, bytes] = OrderedDict()
        # the API serves recalls from a thread pool: OrderedDict moves are not atomic
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[Key]) -> dict[Key, bytes]:
        found: dict[Key, bytes] = {}
        with self._lock:
            for key in keys:
                blob = self._entries.get(key)
                if blob is not None:
                    self._entries.move_to_end(key)
                    found[key] = blob
        return found

    def put_many(self, items: dict[Key, bytes]) -> None:
        with self._lock:
            for key, blob in items.items():
                self._entries[key] = blob
                self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


_process_cache = VectorCache()


def process_cache() -> VectorCache:
    return _process_cache
