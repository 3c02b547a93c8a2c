"""What a subject asked to forget, as the extractor may be told it (seed 004: forgetting
reaches the extractor): the keys (categories) of forgotten memories and the normalised
content hashes of the forgotten claims. Never text: forget kept none to give."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import Connection, select

from memwarden_shared.contract.models import MemoryStatus
from memwarden_shared.store.dialect import pairs_in
from memwarden_shared.store.schema import memory_versions, suppressions


@dataclass(frozen=True)
class ForgottenTopics:
    """A subject's forgotten categories (``normalized_key``s) and claim hashes, sorted."""

    categories: tuple[str, ...] = ()
    hashes: tuple[str, ...] = field(default=())

    def __bool__(self) -> bool:
        return bool(self.categories or self.hashes)


Subject = tuple[str, str]  # (tenant_id, subject_id)


def forgotten_topics(
    conn: Connection, subjects: Iterable[Subject]
) -> dict[Subject, ForgottenTopics]:
    """Per subject, what it asked to forget: two queries for a whole batch of subjects."""
    wanted = set(subjects)
    if not wanted:
        return {}
    categories: dict[Subject, set[str]] = {}
    for r in conn.execute(
        select(
            memory_versions.c.tenant_id,
            memory_versions.c.subject_id,
            memory_versions.c.normalized_key,
        )
        .where(
            pairs_in(conn, memory_versions.c.tenant_id, memory_versions.c.subject_id, wanted),
            memory_versions.c.status == MemoryStatus.FORGOTTEN,
        )
        .distinct()
    ):
        if (r[0], r[1]) in wanted:  # pairs_in matches a superset
            categories.setdefault((r[0], r[1]), set()).add(r[2])
    hashes: dict[Subject, set[str]] = {}
    for r in conn.execute(
        select(
            suppressions.c.tenant_id, suppressions.c.subject_id, suppressions.c.content_hash
        ).where(pairs_in(conn, suppressions.c.tenant_id, suppressions.c.subject_id, wanted))
    ):
        if (r[0], r[1]) in wanted:
            hashes.setdefault((r[0], r[1]), set()).add(r[2])
    return {
        s: ForgottenTopics(tuple(sorted(categories.get(s, ()))), tuple(sorted(hashes.get(s, ()))))
        for s in wanted
        if s in categories or s in hashes
    }
