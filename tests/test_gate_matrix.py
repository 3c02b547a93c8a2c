"""Every row of the decision matrix (SPEC §5) through the real gate and store, in English and
Chinese. Each row: the sentence, what the proposal claims, and the decision + a reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.db import utcnow
from memwarden_shared.store.dialect import insert_ignore
from memwarden_shared.store.schema import tenant_policies
from tests.conftest import turn_dict

PM, THEME, EDITOR = "preference.package_manager", "preference.ui_theme", "preference.editor"
WS = {"kind": "workspace", "key": "ws"}

# (row id, text, key, value, proposal overrides, decision, reason)
ROWS: list[tuple[str, str, str, str, dict[str, Any], str, str]] = [
    (
        "unknown key en",
        "I prefer dark mode.",
        "preference.system_prompt",
        "dark",
        {},
        "REJECT",
        "unknown_key",
    ),
    ("ungrounded value zh", "我喜欢浅色主题。", THEME, "dark", {}, "REJECT", "value_not_grounded"),
    ("npm is not pnpm en", "I prefer npm.", PM, "pnpm", {}, "REJECT", "value_not_grounded"),
    ("value outside the enum en", "I prefer pip.", PM, "pip", {}, "REJECT", "value_not_in_enum"),
    (
        "secret en",
        "Remember that my password is Tr0ub4dor&3x.",
        "preference.note",
        "my password is Tr0ub4dor&3x",
        {},
        "REJECT",
        "secret",
    ),
    (
        "secret zh",
        "请记住，我的银行卡号是 4111 1111 1111 1111。",
        "preference.note",
        "我的银行卡号是 4111 1111 1111 1111",
        {},
        "REJECT",
        "secret",
    ),
    (
        "forbidden key en",
        "Please remember that I have type 1 diabetes.",
        "profile.health",
        "type 1 diabetes",
        {},
        "REJECT",
        "sensitive_forbidden",
    ),
    (
        "health content under another key zh",
        "请记住，我有高血压。",
        "preference.note",
        "我有高血压",
        {},
        "REJECT",
        "sensitive_forbidden",
    ),
    (
        "tainted web content en",
        "I prefer bun for all new services.",
        PM,
        "bun",
        {"_source": "web_content"},
        "QUARANTINE",
        "tainted_source",
    ),
    (
        "tainted tool output zh",
        "用户偏好的包管理器是 yarn。",
        PM,
        "yarn",
        {"_source": "tool_result"},
        "QUARANTINE",
        "tainted_source",
    ),
    ("one-time en", "Use npm this time.", PM, "npm", {}, "REJECT", "not_durable"),
    ("one-time zh", "这次先用 npm。", PM, "npm", {}, "REJECT", "not_durable"),
    (
        "hypothetical en",
        "If I ever switch to Windows, I'd want light mode there.",
        THEME,
        "light",
        {},
        "REJECT",
        "not_durable",
    ),
    (
        "hypothetical zh",
        "要是我以后换电脑，就用浅色主题。",
        THEME,
        "light",
        {},
        "REJECT",
        "not_durable",
    ),
    ("question en", "Should I switch to pnpm?", PM, "pnpm", {}, "REJECT", "not_durable"),
    ("question zh", "我是不是应该改用深色主题？", THEME, "dark", {}, "REJECT", "not_durable"),
    (
        "reported speech en",
        "My manager prefers yarn for every repo.",
        PM,
        "yarn",
        {},
        "REJECT",
        "not_durable",
    ),
    ("reported speech zh", "我同事更喜欢 yarn。", PM, "yarn", {}, "REJECT", "not_durable"),
    (
        "uncertain plan en",
        "I'm thinking about switching to emacs at some point.",
        EDITOR,
        "emacs",
        {},
        "REJECT",
        "not_durable",
    ),
    ("uncertain plan zh", "下个月我可能会改用 bun。", PM, "bun", {}, "REJECT", "not_durable"),
    (
        "sarcasm en",
        "Oh great, I just love it when npm install takes ten minutes.",
        PM,
        "npm",
        {},
        "REJECT",
        "not_durable",
    ),
    ("sarcasm zh", "呵呵，我可太喜欢用 npm 了。", PM, "npm", {}, "REJECT", "not_durable"),
    (
        "session task fact may commit en",
        "Use npm this time.",
        "task_fact.note",
        "Use npm",
        {
            "scope": {"kind": "session", "key": "s1"},
            "kind": "task_fact",
            "expires_at": "2026-05-01T18:00:00Z",
        },
        "COMMIT",
        "",
    ),
    (
        "negated en",
        "I do not prefer dark mode.",
        THEME,
        "dark",
        {},
        "NEEDS_CONFIRMATION",
        "negated",
    ),
    ("negated zh", "我不喜欢深色模式。", THEME, "dark", {}, "NEEDS_CONFIRMATION", "negated"),
    (
        "inferred en",
        "I've been using bun a lot lately.",
        PM,
        "bun",
        {},
        "NEEDS_CONFIRMATION",
        "inferred",
    ),
    (
        "sensitive key en",
        "I live at 42 Wallaby Way, Sydney.",
        "profile.location",
        "42 Wallaby Way, Sydney",
        {},
        "NEEDS_CONFIRMATION",
        "sensitive_key",
    ),
    (
        "sensitive key zh",
        "我住在杭州西湖区。",
        "profile.location",
        "杭州西湖区",
        {},
        "NEEDS_CONFIRMATION",
        "sensitive_key",
    ),
    (
        "review_all policy zh",
        "我更喜欢深色主题。",
        THEME,
        "dark",
        {"_policy": "review_all"},
        "NEEDS_CONFIRMATION",
        "policy_review_all",
    ),
    (
        "not the owner's preference en",
        "Remember that our CI uses yarn.",
        PM,
        "yarn",
        {},
        "NEEDS_CONFIRMATION",
        "owner_not_stated",
    ),
    ("explicit en", "I prefer yarn for every repository.", PM, "yarn", {}, "COMMIT", ""),
    ("explicit with normalisation zh", "我更喜欢暗色主题。", THEME, "dark", {}, "COMMIT", ""),
    (
        "explicit remember zh",
        "请记住，我每周五下午不开会。",
        "preference.note",
        "我每周五下午不开会",
        {},
        "COMMIT",
        "",
    ),
]


def _run(
    engine: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    text: str,
    key: str,
    value: str,
    overrides: dict[str, Any],
    message_id: str = "m1",
    at: str = "2026-05-01T09:00:00Z",
) -> Any:
    overrides = dict(overrides)
    source = overrides.pop("_source", "user_message")
    policy = overrides.pop("_policy", None)
    if policy:
        with engine.begin() as conn:
            insert_ignore(
                conn,
                tenant_policies,
                {"tenant_id": tenant, "profile": policy, "updated_at": utcnow()},
                ["tenant_id"],
            )
    ingest_turns(
        [
            Turn.model_validate(
                turn_dict(tenant, text, message_id=message_id, source=source, created_at=at)
            )
        ],
        engine=engine,
        extract=False,
    )
    kind = overrides.pop("kind", key.split(".")[0])
    return decide_batch(
        [
            make_proposal(
                tenant, message_id, text, normalized_key=key, value=value, kind=kind, **overrides
            )
        ],
        engine=engine,
    )[0]


@pytest.mark.parametrize(
    ("row", "text", "key", "value", "overrides", "decision", "reason"),
    ROWS,
    ids=[r[0] for r in ROWS],
)
def test_gate_matrix__row(
    store: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    row: str,
    text: str,
    key: str,
    value: str,
    overrides: dict[str, Any],
    decision: str,
    reason: str,
) -> None:
    receipt = _run(store, tenant, make_proposal, text, key, value, overrides)
    assert receipt.decision == decision, receipt.reasons
    if reason:
        assert reason in receipt.reasons


@pytest.mark.parametrize(
    ("first", "second", "key", "v1", "v2", "decision"),
    [
        ("I prefer pnpm.", "I really prefer pnpm.", PM, "pnpm", "pnpm", "NOOP"),
        ("我更喜欢深色主题。", "我还是喜欢深色主题。", THEME, "dark", "dark", "NOOP"),
        ("I prefer pnpm.", "Actually, I prefer yarn.", PM, "pnpm", "yarn", "CONFIRM_REPLACE"),
        (
            "我更喜欢深色主题。",
            "我改主意了，我更喜欢浅色主题。",
            THEME,
            "dark",
            "light",
            "CONFIRM_REPLACE",
        ),
    ],
    ids=["noop en", "noop zh", "replace en", "replace zh"],
)
def test_gate_matrix__against_the_current_value(
    store: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    first: str,
    second: str,
    key: str,
    v1: str,
    v2: str,
    decision: str,
) -> None:
    one = _run(store, tenant, make_proposal, first, key, v1, {}, "m1", "2026-05-01T09:00:00Z")
    two = _run(store, tenant, make_proposal, second, key, v2, {}, "m2", "2026-05-02T09:00:00Z")
    assert (one.decision, two.decision) == ("COMMIT", decision)
    if decision == "NOOP":
        assert (two.memory_id, two.memory_version) == (one.memory_id, 1)


def test_gate_matrix__suppressed_content_is_rejected(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    from memwarden_revalidation.commands import forget_message
    from memwarden_usecases.pipeline import drain

    text = "Remember that I deploy only on Tuesdays."
    first = _run(
        store, tenant, make_proposal, text, "preference.note", "I deploy only on Tuesdays", {}
    )
    assert first.decision == "COMMIT"
    forget_message(tenant, "m1", engine=store)
    drain(store)
    again = _run(
        store,
        tenant,
        make_proposal,
        text,
        "preference.note",
        "I deploy only on Tuesdays",
        {},
        message_id="copy-from-old-session",
    )
    assert (again.decision, again.reasons) == ("REJECT", ["suppressed"])
