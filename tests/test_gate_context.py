"""Issue 10's classes through the real gate and store, English and Chinese: frames on the line
before, pasted speech, dislike in traditional Chinese and Cantonese, exclusions that hold even
when asked, scope that must match, ordered grounding. Each row: the message, the evidence
sentence inside it, what the proposal claims, and the decision + a reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from tests.conftest import turn_dict

PM, THEME, NOTE = "preference.package_manager", "preference.ui_theme", "preference.note"
KEY_BLOCK = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDx9Qm2vXk7yq0T1cWlq3w8r0mZb1dQ5n2hK7pL0aFzYwAAAJgxQ2Vy\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
SESSION_FACT = {
    "kind": "task_fact",
    "expires_at": "2026-05-01T18:00:00Z",
}

# (row id, message text, evidence sentence, key, value, overrides, decision, reason)
ROWS: list[tuple[str, str, str, str, str, dict[str, Any], str, str]] = [
    # frames cut off by a line break or a semicolon
    (
        "condition on the line before en",
        "When I'm on the train,\nI use light mode.",
        "I use light mode.",
        THEME,
        "light",
        {},
        "REJECT",
        "not_durable",
    ),
    (
        "condition on the line before zh",
        "喺公司嘅時候，\n我用淺色模式。",
        "我用淺色模式。",
        THEME,
        "light",
        {},
        "REJECT",
        "not_durable",
    ),
    (
        "attribution on the line before en",
        "My manager said:\nI prefer pnpm.",
        "I prefer pnpm.",
        PM,
        "pnpm",
        {},
        "REJECT",
        "reported_speech",
    ),
    (
        "negation before a semicolon zh",
        "并不是说我喜欢它；我用 yarn。",
        "我用 yarn。",
        PM,
        "yarn",
        {},
        "NEEDS_CONFIRMATION",
        "negated",
    ),
    (
        "condition in the same sentence en",
        "When I'm at the office, I use light mode.",
        "When I'm at the office, I use light mode.",
        THEME,
        "light",
        {},
        "REJECT",
        "qualifier_dropped",
    ),
    # pasted and forwarded speech
    (
        "chat-log line en",
        "Bob: I prefer dark mode.",
        "",
        THEME,
        "dark",
        {},
        "REJECT",
        "not_durable",
    ),
    ("chat-log line zh", "张三：我喜欢用 yarn。", "", PM, "yarn", {}, "REJECT", "not_durable"),
    (
        "forwarded mail en",
        "---------- Forwarded message ---------\nFrom: Carol\nI prefer pnpm.",
        "I prefer pnpm.",
        PM,
        "pnpm",
        {},
        "REJECT",
        "reported_speech",
    ),
    (
        "forwarded zh",
        "转发自李四：\n请记住，我一直用 vim。",
        "请记住，我一直用 vim。",
        NOTE,
        "我一直用 vim",
        {},
        "REJECT",
        "reported_speech",
    ),
    # dislike in traditional Chinese and Cantonese: the opposite is never auto-committed
    (
        "dislike traditional zh",
        "我討厭深色模式。",
        "",
        THEME,
        "dark",
        {},
        "NEEDS_CONFIRMATION",
        "negated",
    ),
    (
        "dislike cantonese zh",
        "我唔鍾意用 npm。",
        "",
        PM,
        "npm",
        {},
        "NEEDS_CONFIRMATION",
        "negated",
    ),
    ("dislike en", "I loathe dark mode.", "", THEME, "dark", {}, "NEEDS_CONFIRMATION", "negated"),
    # excluded even when asked
    (
        "incident asked to remember zh",
        "请记住，现在支付服务挂了。",
        "",
        NOTE,
        "现在支付服务挂了",
        {},
        "REJECT",
        "transient",
    ),
    (
        "root cause asked to remember en",
        "Remember that the root cause of the outage is a bad DNS record.",
        "",
        NOTE,
        "the root cause of the outage is a bad DNS record",
        {},
        "REJECT",
        "root_cause",
    ),
    (
        "world fact asked to remember en",
        "Remember that water boils at 100 °C.",
        "",
        NOTE,
        "water boils at 100 °C",
        {},
        "REJECT",
        "general_knowledge",
    ),
    (
        "note on a key block en",
        "Remember the deploy key for prod.\n" + KEY_BLOCK,
        "Remember the deploy key for prod.",
        NOTE,
        "the deploy key for prod",
        {},
        "REJECT",
        "secret",
    ),
    (
        "note on a key block zh",
        "记一下生产环境的部署密钥。\n" + KEY_BLOCK,
        "记一下生产环境的部署密钥。",
        NOTE,
        "生产环境的部署密钥",
        {},
        "REJECT",
        "secret",
    ),
    # scope
    (
        "user scope of another subject",
        "I prefer pnpm.",
        "",
        PM,
        "pnpm",
        {"scope": {"kind": "user", "key": "u2"}},
        "REJECT",
        "scope_subject_mismatch",
    ),
    (
        "session scope of another session",
        "这次先用 npm。",
        "",
        "task_fact.note",
        "这次先用 npm",
        {**SESSION_FACT, "scope": {"kind": "session", "key": "s-other"}},
        "REJECT",
        "scope_session_mismatch",
    ),
    (
        "session scope of the evidence's session",
        "这次先用 npm。",
        "",
        "task_fact.note",
        "这次先用 npm",
        {**SESSION_FACT, "scope": {"kind": "session", "key": "s1"}},
        "COMMIT",
        "",
    ),
    (
        "named project at user scope en",
        "For the atlas project I prefer yarn.",
        "",
        PM,
        "yarn",
        {},
        "NEEDS_CONFIRMATION",
        "project_scope_required",
    ),
    (
        "named project at user scope zh",
        "在 atlas 项目里我一直用 yarn。",
        "",
        PM,
        "yarn",
        {},
        "NEEDS_CONFIRMATION",
        "project_scope_required",
    ),
    (
        "named project at another project's scope",
        "For the atlas project I prefer yarn.",
        "",
        PM,
        "yarn",
        {"scope": {"kind": "project", "key": "hermes"}},
        "NEEDS_CONFIRMATION",
        "project_scope_mismatch",
    ),
    (
        "named project at its own scope",
        "For the atlas project I prefer yarn.",
        "",
        PM,
        "yarn",
        {"scope": {"kind": "project", "key": "atlas"}},
        "COMMIT",
        "",
    ),
    # ordered grounding
    (
        "reversed order en",
        "We decided to switch from Jenkins to GitHub Actions.",
        "",
        "decision.note",
        "switch from GitHub Actions to Jenkins",
        {},
        "REJECT",
        "value_not_grounded",
    ),
    (
        "dropped qualifier en",
        "Remember that I only review PRs on Fridays.",
        "",
        NOTE,
        "I review PRs",
        {},
        "REJECT",
        "qualifier_dropped",
    ),
    (
        "dropped qualifier zh",
        "我只在周五用深色模式。",
        "",
        THEME,
        "dark",
        {},
        "REJECT",
        "qualifier_dropped",
    ),
    # harmless look-alikes still commit
    ("plain preference en", "I use light mode.", "", THEME, "light", {}, "COMMIT", ""),
    (
        "greeting on the line before en",
        "Hi there,\nI use light mode.",
        "I use light mode.",
        THEME,
        "light",
        {},
        "COMMIT",
        "",
    ),
    ("own heading en", "Note: I prefer yarn.", "", PM, "yarn", {}, "COMMIT", ""),
    ("traditional preference zh", "我喜歡深色模式。", "", THEME, "dark", {}, "COMMIT", ""),
    (
        "negated note kept negated zh",
        "记住：我每周五下午不开会。",
        "",
        NOTE,
        "我每周五下午不开会",
        {},
        "COMMIT",
        "",
    ),
]


@pytest.mark.parametrize(
    ("row", "text", "sentence", "key", "value", "overrides", "decision", "reason"),
    ROWS,
    ids=[r[0] for r in ROWS],
)
def test_gate_context__row(
    store: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    row: str,
    text: str,
    sentence: str,
    key: str,
    value: str,
    overrides: dict[str, Any],
    decision: str,
    reason: str,
) -> None:
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id="m1"))], engine=store, extract=False
    )
    overrides = dict(overrides)
    kind = overrides.pop("kind", key.split(".")[0])
    proposal = make_proposal(
        tenant,
        "m1",
        text,
        sentence or None,
        normalized_key=key,
        value=value,
        kind=kind,
        **overrides,
    )
    receipt = decide_batch([proposal], engine=store)[0]
    assert receipt.decision == decision, receipt.reasons
    if reason:
        assert reason in receipt.reasons
