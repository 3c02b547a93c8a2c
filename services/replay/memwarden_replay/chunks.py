"""Split replay input into lanes and chunks for a distributed replay. Reads the input files
once; never touches the store.

Why lanes: the extractor reads a session's turns in order (debounce, a secret announced one
turn earlier) and the gate decides a subject's fact keys in the order it receives them. So
every session, and every subject across its sessions, must be processed in input order.
Sessions and subjects are joined into groups (a session with two subjects joins them, as a
subject with two sessions does); groups are packed into lanes of about equal size, per
tenant; each lane's lines, in input order, are cut into chunks that run one after another.
Two lanes share no session and no subject, so their chunks may run at the same time.

A chunk holds line references (file, byte offset, length), never line content: the store and
the broker then hold no text the input had, secrets included, before ingest masks them.
"""

from __future__ import annotations

import heapq
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memwarden_shared.contract.turn_lines import read_turn_lines


@dataclass(frozen=True)
class InputFile:
    path: str
    size: int
    mtime_ns: int  # with the size, how a worker notices a file changed since the plan

    @classmethod
    def of(cls, path: Path) -> InputFile:
        stat = path.stat()
        return cls(str(path), stat.st_size, stat.st_mtime_ns)

    def to_json(self) -> list[Any]:
        return [self.path, self.size, self.mtime_ns]


@dataclass(frozen=True)
class PlannedChunk:
    lane: int
    seq: int  # position in its lane: chunk seq runs after seq - 1 is done
    tenant_id: str
    lines: list[tuple[int, int, int]]  # (file number, byte offset, length), input order


@dataclass
class ChunkPlan:
    files: list[InputFile]
    chunks: list[PlannedChunk]
    turns: int
    bad_lines: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)  # the first bad lines


class BadInputLine(ValueError):
    """A line that is not a turn, when bad lines refuse the run."""


class _Groups:
    """Union-find over (tenant, "session"|"subject", id) nodes."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, str, str], int] = {}
        self.parent: list[int] = []
        self.tenant: list[str] = []

    def node(self, tenant: str, kind: str, name: str) -> int:
        key = (tenant, kind, name)
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.parent)
            self.parent.append(found)
            self.tenant.append(tenant)
        return found

    def root(self, n: int) -> int:
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]  # path halving
            n = self.parent[n]
        return n

    def join(self, a: int, b: int) -> None:
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def plan_chunks(
    paths: list[Path],
    *,
    chunk_turns: int,
    lanes_per_tenant: int,
    default_tenant: str | None,
    skip_bad: bool,
    problems_kept: int = 20,
) -> ChunkPlan:
    """Read every file once and cut it into chunks. Without ``skip_bad`` the first bad line
    raises :class:`BadInputLine` (nothing is planned, so nothing is replayed)."""
    groups = _Groups()
    # one entry per turn, in input order; arrays keep a year of history in a few bytes a line
    file_nos, offsets, lengths, nodes = array("i"), array("q"), array("i"), array("i")
    files = [InputFile.of(path) for path in paths]
    plan = ChunkPlan(files, [], 0)
    for file_no, path in enumerate(paths):
        for line in read_turn_lines(path, default_tenant=default_tenant):
            if line.error is not None:
                where = {"path": str(path), "byte_offset": line.offset, "error": line.error}
                if not skip_bad:
                    raise BadInputLine(f"{path}: byte {line.offset}: {line.error}")
                plan.bad_lines += 1
                if len(plan.problems) < problems_kept:
                    plan.problems.append(where)
                continue
            if line.turn is None:
                continue  # blank
            turn = line.turn
            session = groups.node(turn.tenant_id, "session", turn.session_id)
            groups.join(session, groups.node(turn.tenant_id, "subject", turn.subject_id))
            file_nos.append(file_no)
            offsets.append(line.offset)
            lengths.append(line.end - line.offset)
            nodes.append(session)
    plan.turns = len(nodes)
    lane_of = _pack(groups, nodes, lanes_per_tenant)
    plan.chunks = _cut(groups, lane_of, nodes, file_nos, offsets, lengths, chunk_turns)
    return plan


def _pack(groups: _Groups, nodes: array[int], lanes_per_tenant: int) -> dict[int, int]:
    """Group root -> lane number: the largest groups first, each to the lightest lane of its
    tenant (lanes never mix tenants, so a chunk belongs to one tenant)."""
    size: dict[int, int] = {}
    for n in nodes:
        root = groups.root(n)
        size[root] = size.get(root, 0) + 1
    per_tenant: dict[str, list[int]] = {}
    for root in size:
        per_tenant.setdefault(groups.tenant[root], []).append(root)
    lane_of: dict[int, int] = {}
    next_lane = 0
    for tenant in per_tenant:  # first-seen tenant order: a stable numbering
        roots = sorted(per_tenant[tenant], key=lambda r: (-size[r], r))
        count = min(lanes_per_tenant, len(roots))
        heap = [(0, next_lane + i) for i in range(count)]
        for root in roots:
            load, lane = heapq.heappop(heap)
            lane_of[root] = lane
            heapq.heappush(heap, (load + size[root], lane))
        next_lane += count
    return lane_of


def _cut(
    groups: _Groups,
    lane_of: dict[int, int],
    nodes: array[int],
    file_nos: array[int],
    offsets: array[int],
    lengths: array[int],
    chunk_turns: int,
) -> list[PlannedChunk]:
    """Each lane's lines in input order, cut every ``chunk_turns`` turns."""
    open_lines: dict[int, list[tuple[int, int, int]]] = {}
    seqs: dict[int, int] = {}
    tenants: dict[int, str] = {}
    chunks: list[PlannedChunk] = []

    def close(lane: int) -> None:
        seq = seqs.get(lane, 0)
        chunks.append(PlannedChunk(lane, seq, tenants[lane], open_lines.pop(lane)))
        seqs[lane] = seq + 1

    for i, n in enumerate(nodes):
        root = groups.root(n)
        lane = lane_of[root]
        tenants[lane] = groups.tenant[root]
        open_lines.setdefault(lane, []).append((file_nos[i], offsets[i], lengths[i]))
        if len(open_lines[lane]) >= chunk_turns:
            close(lane)
    for lane in sorted(open_lines):
        close(lane)
    return chunks
