"""Forget that holds (SPEC §9, seed 004): the same claim restated with a homoglyph, in
traditional characters, with ", please" or another numeral form stays suppressed; the
message text is erased for every revision; the audit finds forgotten content in outbox
payloads and shadow tables."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine, select

from memwarden_revalidation.commands import forget_message, supersede_message
from memwarden_shared.contract.models import Topic
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import messages, outbox, shadow_decisions
from memwarden_usecases.audit import audit
from memwarden_usecases.pipeline import drain
from tests.test_revocation import say, values

ORIGINAL = "Remember that my favourite test runner is pytest."


@pytest.mark.parametrize(
    ("original", "restated"),
    [
        (ORIGINAL, "Remember that my favourite test runner is pyt\u0435st."),  # Cyrillic е
        (ORIGINAL, "Remember that my favourite test runner is pytest, please."),
        (ORIGINAL, "Remember that my favourite\u200b test runner is pytest."),
        ("请记住，我最喜欢的编辑器是 vim。", "請記住，我最喜歡的編輯器是 vim。"),
        ("请记住，我最喜欢的编辑器是 vim。", "请记住，我最喜欢的编辑器是 vim，谢谢。"),
        ("Remember that I keep 3 monitors on my desk.",
         "Remember that I keep three monitors on my desk."),
        ("请记住，我桌上有三台显示器。", "请记住，我桌上有3台显示器。"),
    ],
)  # fmt: skip
def test_forget__a_restatement_with_another_spelling_stays_suppressed(
    store: Engine, tenant: str, original: str, restated: str
) -> None:
    say(store, tenant, "m1", original)
    assert values(store, tenant) != []  # it was committed, so forgetting has work to do
    forget_message(tenant, "m1", engine=store)
    drain(store)
    say(store, tenant, "m2", restated, session="s2")
    assert values(store, tenant) == []


def test_forget__erases_the_text_of_every_revision_and_keeps_the_hashes(
    store: Engine, tenant: str
) -> None:
    say(store, tenant, "m1", ORIGINAL)
    supersede_message(tenant, "m1", ORIGINAL + " Really.", engine=store)
    drain(store)
    forget_message(tenant, "m1", engine=store)
    with store.connect() as conn:
        rows = conn.execute(
            select(messages.c.text, messages.c.text_sha256, messages.c.erased_at).where(
                messages.c.tenant_id == tenant, messages.c.message_id == "m1"
            )
        ).all()
    assert len(rows) == 2
    assert all(r.text == "" and len(r.text_sha256) == 64 and r.erased_at for r in rows)
    drain(store)
    assert audit(tenant, engine=store).clean


def test_audit__finds_forgotten_content_in_an_outbox_payload_and_a_shadow_table(
    store: Engine, tenant: str
) -> None:
    say(store, tenant, "m1", ORIGINAL)
    forget_message(tenant, "m1", engine=store)
    drain(store)
    assert audit(tenant, engine=store).clean
    with unit_of_work(store) as uow:
        # A stage that copied the claim into its event, as the issue found: already relayed
        # (sent), so no consumer of the shared test database ever reads this made-up shape.
        uow.conn.execute(
            outbox.insert().values(
                topic=Topic.MEMORY_REVOKED.value,
                event_key=f"{tenant}:leak",
                tenant_id=tenant,
                payload=json.dumps({"message_id": "m1", "note": ORIGINAL}),
                created_at=utcnow(),
                sent_at=utcnow(),
            )
        )
        uow.conn.execute(
            shadow_decisions.insert().values(
                run_id="r1",
                tenant_id=tenant,
                proposal_id="p" * 64,
                payload_hash="h" * 64,
                decision="COMMIT",
                reasons="REMEMBER THAT my favourite test runner is pytest!",
                normalized_key="preference.note",
                message_id="m1",
                decided_at=utcnow(),
            )
        )
        uow.commit()
    where = {f["where"] for f in audit(tenant, engine=store).findings}
    assert {"outbox", "shadow_decisions"} <= where
