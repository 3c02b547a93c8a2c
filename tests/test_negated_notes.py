"""Negated sentences never auto-commit as catch-all notes (issue 21 item 6), en and zh.

Mechanism: the gate's classifier marks the sentence NEGATED; for ``preference.note`` and
``profile.note`` that sends the proposal to the owner even when the value keeps the
negation, unless the sentence is an explicit remember instruction. Generated family:
negation cue x verb x a word from wordfreq's top list, through
the real gate on PostgreSQL.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from wordfreq import top_n_list

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from tests.conftest import turn_dict

EN_OBJECTS = [w for w in top_n_list("en", 1500) if w.isalpha() and w.isascii() and len(w) > 3]
ZH_OBJECTS = [w for w in top_n_list("zh", 1500) if len(w) >= 2 and w.isalpha()]
EN_NEGATIONS = ["don't", "do not", "never", "no longer"]
EN_VERBS = ["use", "live in", "eat", "want", "work with"]
ZH_NEGATIONS = ["不", "从不", "没有", "不再"]
ZH_VERBS = ["用", "住在", "吃", "喜欢"]

EN = st.builds(
    lambda n, v, o: f"I {n} {v} {o}",
    st.sampled_from(EN_NEGATIONS),
    st.sampled_from(EN_VERBS),
    st.sampled_from(EN_OBJECTS),
)
ZH = st.builds(
    lambda n, v, o: f"我{n}{v}{o}",
    st.sampled_from(ZH_NEGATIONS),
    st.sampled_from(ZH_VERBS),
    st.sampled_from(ZH_OBJECTS),
)
# stated, not asked to be remembered: an explicit "remember" may keep a negated habit
CLAIMS = st.one_of(EN.map(lambda c: (f"{c}.", c)), ZH.map(lambda c: (f"{c}。", c)))


@given(claim=CLAIMS, key=st.sampled_from(["preference.note", "profile.note"]))
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_negated_note__never_commits(
    pg_engine: Engine,
    make_proposal: Callable[..., dict[str, Any]],
    claim: tuple[str, str],
    key: str,
) -> None:
    text, value = claim
    tenant = "t-" + uuid.uuid4().hex[:10]
    message_id = "m-" + uuid.uuid4().hex[:8]
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=pg_engine,
        extract=False,
    )
    proposal = make_proposal(
        tenant, message_id, text, kind=key.split(".")[0], normalized_key=key, value=value
    )
    receipt = decide_batch([proposal], engine=pg_engine)[0]
    assert receipt.decision != "COMMIT", (text, receipt.reasons)
