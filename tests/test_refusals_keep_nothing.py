"""Nothing kept from refusals (SPEC §5.6 v3, issue 21 item 5), on real PostgreSQL.

Mechanism: a proposal REJECTed for ``secret`` or a forbidden sensitive value is recorded
with its payload hash and reasons only (``records.keeps_no_value``). After each generated
case every row of every table is dumped as text, with the log, and the planted value must
be absent. A forbidden sensitive value is the owner's own message text, which stays in
``messages`` (governed by forget); everywhere else it must be absent too.
"""

from __future__ import annotations

import logging
import string
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from tests.conftest import turn_dict
from tests.test_hostile_input import dump

DB_EXAMPLES = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def password(draw: st.DrawFn) -> str:
    """A generated password: letters and digits in both cases, never a word."""
    body = draw(st.text(string.ascii_letters + string.digits, min_size=10, max_size=24))
    return "Q" + body + "7z"


# a made-up medicine name: lower-case letters, marked so it is not an ordinary word
MEDICINE = st.text(string.ascii_lowercase, min_size=6, max_size=10).map(lambda s: "zq" + s)


def _decide(
    engine: Engine,
    make_proposal: Callable[..., dict[str, Any]],
    text: str,
    key: str,
    value: str,
) -> tuple[str, Any]:
    tenant = "t-" + uuid.uuid4().hex[:10]
    message_id = "m-" + uuid.uuid4().hex[:8]
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=engine,
        extract=False,
    )
    proposal = make_proposal(
        tenant, message_id, text, kind=key.split(".")[0], normalized_key=key, value=value
    )
    return tenant, decide_batch([proposal], engine=engine)[0]


@given(secret=password())
@DB_EXAMPLES
def test_refusal__a_secret_leaves_no_trace(
    pg_engine: Engine,
    make_proposal: Callable[..., dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
    secret: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    tenant, receipt = _decide(
        pg_engine,
        make_proposal,
        f"Remember that my password is {secret}.",
        "preference.note",
        f"my password is {secret}",
    )
    assert receipt.decision == "REJECT" and "secret" in receipt.reasons
    assert secret not in dump(pg_engine, tenant)
    assert secret not in caplog.text
    assert secret not in receipt.model_dump_json()


@given(medicine=MEDICINE, key=st.sampled_from(["preference.note", "profile.health"]))
@DB_EXAMPLES
def test_refusal__a_forbidden_sensitive_value_is_not_kept(
    pg_engine: Engine,
    make_proposal: Callable[..., dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
    medicine: str,
    key: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    tenant, receipt = _decide(
        pg_engine,
        make_proposal,
        f"Please remember that I have diabetes and take {medicine} daily.",
        key,
        f"I have diabetes and take {medicine} daily",
    )
    # a letter run may also read as a credential shape and be masked: refused either way
    assert receipt.decision == "REJECT"
    assert {"sensitive_forbidden", "secret"} & set(receipt.reasons)
    outside_messages = [
        line for line in dump(pg_engine, tenant).splitlines() if not line.startswith("messages ")
    ]
    assert [line for line in outside_messages if medicine in line] == []
    assert medicine not in caplog.text
    assert medicine not in receipt.model_dump_json()
