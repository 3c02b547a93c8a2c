"""A secret sent through the whole pipeline lands nowhere: in no table (every row of every
table read as text, the evidence store included, SPEC §5.6 v2) and in no log line."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine, select

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import forget_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.schema import messages, metadata
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict

CANARIES = [
    ("Remember my GitHub token: {s}", "ghp_Zq8Lm2Vx9Kp4Rt6Wy1Bn3Cd5Fg7Hj0Ks2Ln4"),
    ("记住我的数据库密码是 {s}。", "Qw9!zR4#mT2x"),
    ("Please remember my card: {s}.", "5555 5555 5555 4444"),
    ("I prefer pnpm. My npm token is {s}.", "npm_Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Gh5"),
]


def _rows_as_text(engine: Engine) -> dict[str, str]:
    out = {}
    with engine.connect() as conn:
        for table in metadata.sorted_tables:
            out[table.name] = "\n".join(repr(tuple(r)) for r in conn.execute(select(table)))
    return out


def test_secret_canary__appears_in_no_table_not_even_the_evidence_store(
    sqlite_engine: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    for i, (template, secret) in enumerate(CANARIES):
        text = template.format(s=secret)
        turn = Turn.model_validate(turn_dict(tenant, text, message_id=f"c{i}"))
        ingest_turns([turn], engine=sqlite_engine)
        drain(sqlite_engine)
        sentence = text if i != 3 else text[text.index("My npm") :]
        value = sentence.rstrip("。.")
        decide_batch(
            [
                make_proposal(
                    tenant,
                    f"c{i}",
                    text,
                    sentence,
                    normalized_key="preference.note",
                    value=value,
                    scope={"kind": "workspace", "key": f"w{i}"},
                )
            ],
            engine=sqlite_engine,
        )
        forget_message(tenant, f"c{i}", engine=sqlite_engine)
        drain(sqlite_engine)
    tables = _rows_as_text(sqlite_engine)
    logs = "\n".join(r.getMessage() for r in caplog.records) + caplog.text
    for _, secret in CANARIES:
        for form in {secret, secret.replace(" ", "")}:
            leaked = [name for name, text in tables.items() if form in text]
            assert leaked == [], (form, leaked)
            assert form not in logs
    with sqlite_engine.connect() as conn:  # forget erased the text and kept only its hash
        row = conn.execute(
            select(messages.c.text, messages.c.text_sha256, messages.c.erased_at).where(
                messages.c.message_id == "c0"
            )
        ).one()
    assert row.text == "" and len(row.text_sha256) == 64 and row.erased_at is not None


def _luhn_card(seed: int) -> str:
    """A Visa-shaped number that passes Luhn, unique to this test run."""
    body = [4, *(int(c) for c in f"{seed:014d}")]
    total = sum(
        (d * 2 - 9 if d * 2 > 9 else d * 2) if i % 2 == 0 else d
        for i, d in enumerate(reversed(body))
    )
    digits = "".join(map(str, [*body, (10 - total % 10) % 10]))
    return " ".join(digits[i : i + 4] for i in range(0, 16, 4))


@pytest.mark.parametrize("defect", ["message_not_found", "evidence_mismatch"])
def test_secret_canary__a_value_refused_on_its_evidence_is_not_stored(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], defect: str
) -> None:
    # A proposal refused before its content is judged is still recorded; the secret in its
    # value must not be (the hostile-input work found message_not_found kept the value).
    text = "I prefer pnpm."
    ingest_turns([Turn.model_validate(turn_dict(tenant, text, message_id="e1"))], engine=store)
    card = _luhn_card(int(uuid.uuid4().int % 10**14))
    fields: dict[str, Any] = {
        "normalized_key": "preference.note",
        "value": f"my card is {card}",
        "scope": {"kind": "workspace", "key": "w1"},
    }
    if defect == "message_not_found":
        proposal = make_proposal(tenant, "never-sent", text, **fields)
    else:
        ok = make_proposal(tenant, "e1", text, **fields)
        proposal = make_proposal(
            tenant, "e1", text, **fields, evidence={**ok["evidence"], "sha256": "0" * 64}
        )
    [receipt] = decide_batch([proposal], engine=store)
    assert receipt.decision == "REJECT"
    assert "secret" in receipt.reasons
    tables = _rows_as_text(store)
    for form in (card, card.replace(" ", "")):
        assert [name for name, t in tables.items() if form in t] == []
