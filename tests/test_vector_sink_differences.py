"""The vector sink's decision (``vector_sink.io.differences``): after dropping what it calls
stale and indexing what it calls to do, the index mirrors the projection, whatever state the
two were in (a late, duplicated or reordered event, or a changed embedder)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memwarden_vector_sink.io import differences

MEMORIES = st.sampled_from([f"m{i}" for i in range(6)])
EMBEDDERS = st.sampled_from(["hashed-256", "openai:x:32"])
VERSIONS = st.integers(min_value=1, max_value=4)


def _row(memory_id: str, version: int) -> Any:
    return SimpleNamespace(memory_id=memory_id, version=version)


@given(
    ids=st.lists(MEMORIES, unique=True),
    current=st.dictionaries(MEMORIES, VERSIONS),
    indexed=st.dictionaries(MEMORIES, st.tuples(VERSIONS, EMBEDDERS)),
    embedder=EMBEDDERS,
)
def test_differences__applied_they_make_the_index_mirror_the_projection(
    ids: list[str],
    current: dict[str, int],
    indexed: dict[str, tuple[int, str]],
    embedder: str,
) -> None:
    # the sink reads only the memories its events name
    projection = {m: _row(m, v) for m, v in current.items() if m in ids}
    index = {m: row for m, row in indexed.items() if m in ids}
    stale, todo = differences(sorted(ids), projection, index, embedder)
    after = {m: row for m, row in index.items() if m not in stale}
    assert not {r.memory_id for r in todo} & set(after)  # never a second row for a memory
    after |= {r.memory_id: (r.version, embedder) for r in todo}
    assert after == {m: (r.version, embedder) for m, r in projection.items()}
    # nothing is redone that was already right
    assert all(index[m] != (projection[m].version, embedder) for m in stale if m in projection)
