"""Write ``cases.jsonl``: labelled action-gate cases (SPEC §13 v1.1 action steps, §14) in
English and Chinese, one per scenario and language, covering every decision and state.

Run ``python tests/actions/generate.py`` after changing a scenario; the suite runs the file
(tests/test_action_eval.py) and checks that it is what this script writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
OUT = HERE / "cases.jsonl"
AT = "2026-07-01T08:00:00Z"
LATER = "2026-07-01T09:00:00Z"

# The sentences each language uses; the rules extractor commits every one of them.
TEXT = {
    "en": {
        "npm": "I use npm for every project",
        "pnpm": "I use pnpm for every project",
        "lang": "Please always answer me in German",
        "theme": "I prefer light mode in every app",
        "decision": "We decided to bill Acme through the Singapore entity.",
        "derived": "We decided to install every dependency with npm.",
        "derived_value": "We decided to install every dependency with npm",
        "vague": "Maybe I will try yarn some day?",
        "tool": "Billing lookup timed out; the default entity is probably Singapore.",
    },
    "zh": {
        "npm": "我所有项目都用 npm",
        "pnpm": "我所有项目都用 pnpm",
        "lang": "以后回复我都用英文",
        "theme": "我所有的应用都用浅色模式",
        "decision": "我们决定通过新加坡主体给 Acme 开票。",
        "derived": "我们决定用 npm 安装所有依赖。",
        "derived_value": "我们决定用 npm 安装所有依赖",
        "vague": "也许哪天我会试试 yarn？",
        "tool": "计费查询超时，默认主体可能是新加坡。",
    },
}


def turn(mid: str, text: str, *, at: str = AT, source: str = "user_message") -> dict[str, Any]:
    role = {"user_message": "user", "tool_result": "tool"}[source]
    return {
        "turn": {
            "message_id": mid,
            "session_id": "s1",
            "role": role,
            "source": source,
            "text": text,
            "created_at": at,
        }
    }


def act(intent: str, uses: list[str], key: str, **extra: Any) -> dict[str, Any]:
    params = extra.pop("params", {"ref": key})
    return {
        "op": "act",
        "intent": intent,
        "params": params,
        "uses_from": uses,
        "idempotency_key": key,
        **extra,
    }


def outcome(n: int, status: str, ref: str | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"op": "outcome", "action": n, "status": status}
    if ref:
        step["external_ref"] = ref
    return step


def dec(n: int, decision: str, reason: str | None = None) -> dict[str, Any]:
    exp: dict[str, Any] = {"action": n, "decision": decision}
    if reason:
        exp["reason"] = reason  # extension of SPEC §13: the reason code must be among them
    return exp


def state(n: int, value: str) -> dict[str, Any]:
    return {"action": n, "state": value}


def proposal(
    t: dict[str, str], mid: str, key: str, value: str, quote: str, **extra: Any
) -> dict[str, Any]:
    kind = key.split(".")[0]
    return {
        "proposal": {
            "tenant_id": "act",
            "subject_id": "SUBJECT",
            "scope": {"kind": "user", "key": "SUBJECT"},
            "kind": kind,
            "normalized_key": key,
            "stable_candidate_ordinal": 0,
            "value": value,
            "evidence": {"message_id": mid, "quote": quote},
            "extractor_version": "ext-summariser-1",
            "confidence": 0.9,
            "expires_at": None,
            **extra,
        }
    }


Scenario = Callable[[dict[str, str]], tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]
SCENARIOS: dict[str, Scenario] = {}


def scenario(name: str) -> Callable[[Scenario], Scenario]:
    def register(fn: Scenario) -> Scenario:
        SCENARIOS[name] = fn
        return fn

    return register


@scenario("allow-package-install")
def _(t: dict[str, str]) -> Any:
    return (
        "ALLOW",
        [turn("m1", t["npm"]), act("package.install", ["m1"], "k1")],
        [
            dec(0, "ALLOW"),
            state(0, "allowed"),
        ],
    )


@scenario("allow-message-send")
def _(t: dict[str, str]) -> Any:
    return "ALLOW", [turn("m1", t["lang"]), act("message.send", ["m1"], "k1")], [dec(0, "ALLOW")]


@scenario("allow-settings-update-with-purpose")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["theme"]), act("settings.update", ["m1"], "k1", purpose="ui")]
    return "ALLOW", steps, [dec(0, "ALLOW")]


@scenario("executed")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["npm"]), act("package.install", ["m1"], "k1"), outcome(0, "executed")]
    return "ALLOW", steps, [state(0, "executed")]


@scenario("failed-stays-failed-after-revocation")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["npm"]),
        act("package.install", ["m1"], "k1"),
        outcome(0, "failed"),
        {"op": "revoke_message", "message_id": "m1"},
    ]
    return "ALLOW", steps, [state(0, "failed")]


@scenario("needs-approval-payment")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["decision"]), act("payment.create", ["m1"], "k1")]
    return "NEEDS_APPROVAL", steps, [dec(0, "NEEDS_APPROVAL"), state(0, "awaiting_approval")]


@scenario("approved-by-another-principal")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["decision"]),
        act("payment.create", ["m1"], "k1"),
        {"op": "approve_action", "action": 0},
        outcome(0, "executed", "pay-1"),
    ]
    return "NEEDS_APPROVAL", steps, [dec(0, "NEEDS_APPROVAL"), state(0, "executed")]


@scenario("approval-void-after-revocation")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["decision"]),
        act("record.delete", ["m1"], "k1"),
        {"op": "revoke_message", "message_id": "m1"},
        {"op": "approve_action", "action": 0},
    ]
    return "NEEDS_APPROVAL", steps, [state(0, "cancelled")]


@scenario("deploy-needs-approval-without-memories")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["npm"]), act("deploy.production", [], "k1")]
    return "NEEDS_APPROVAL", steps, [dec(0, "NEEDS_APPROVAL")]


@scenario("preference-is-no-authority-for-payment")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["theme"]), act("payment.create", ["m1"], "k1")]
    return "DENY", steps, [dec(0, "DENY", "prohibited_action"), state(0, "denied")]


@scenario("preference-is-no-authority-for-delete")
def _(t: dict[str, str]) -> Any:
    return (
        "DENY",
        [turn("m1", t["lang"]), act("record.delete", ["m1"], "k1")],
        [dec(0, "DENY", "prohibited_action")],
    )


@scenario("scope-laundering-preference-for-deploy")
def _(t: dict[str, str]) -> Any:
    # a remembered preference offered as authority for a production deploy
    steps = [turn("m1", t["npm"]), act("deploy.production", ["m1"], "k1")]
    return "DENY", steps, [dec(0, "DENY", "prohibited_action")]


@scenario("revoked-before-acting")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["npm"]),
        {"op": "revoke_message", "message_id": "m1"},
        act("package.install", ["m1"], "k1"),
    ]
    return "DENY", steps, [dec(0, "DENY", "evidence_revoked")]


@scenario("forgotten-before-acting")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["lang"]),
        {"op": "forget", "message_id": "m1"},
        act("message.send", ["m1"], "k1"),
    ]
    return "DENY", steps, [dec(0, "DENY", "memory_revoked")]


@scenario("not-authorised")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["npm"]), act("package.install", ["m1"], "k1", scopes=["memory:read"])]
    return "DENY", steps, [dec(0, "DENY", "not_authorised")]


@scenario("purpose-not-allowed")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["npm"]), act("package.install", ["m1"], "k1", purpose="marketing")]
    return "DENY", steps, [dec(0, "DENY", "purpose_not_allowed")]


@scenario("no-memory-behind-the-message")
def _(t: dict[str, str]) -> Any:
    steps = [turn("m1", t["vague"]), act("package.install", ["m1"], "k1")]
    return "DENY", steps, [dec(0, "DENY", "memory_not_found")]


@scenario("checkpoint-resume-keeps-tentative")
def _(t: dict[str, str]) -> Any:
    # a failed tool's guess is quarantined; resuming (replay) must not promote it
    steps = [
        turn("m1", t["tool"], source="tool_result"),
        {"op": "replay"},
        act("email.send", ["m1"], "k1"),
    ]
    return "DENY", steps, [dec(0, "DENY", "memory_not_found")]


@scenario("expired-authority")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["decision"]),
        proposal(
            t,
            "m1",
            "decision.note",
            t["decision"].rstrip("。."),
            t["decision"],
            expires_at="2026-07-02T00:00:00Z",
        ),
        act("calendar.book", ["m1"], "k1"),
    ]
    return "DENY", steps, [dec(0, "DENY", "memory_expired")]


@scenario("stale-version")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["npm"]),
        turn("m2", t["pnpm"], at=LATER),
        {"op": "approve", "message_id": "m2"},
        act("package.install", ["m1"], "k1", stale=True),
        act("package.install", ["m1"], "k2"),
    ]
    return "STALE", steps, [dec(0, "STALE", "stale_version"), dec(1, "ALLOW")]


@scenario("duplicate-retry")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["npm"]),
        act("package.install", ["m1"], "k1", params={"package": "chalk"}),
        outcome(0, "executed", "job-1"),
        act("package.install", ["m1"], "k1", params={"package": "chalk"}),
    ]
    return "DUPLICATE", steps, [dec(1, "DUPLICATE"), state(1, "executed")]


@scenario("key-conflict-other-params")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["npm"]),
        act("package.install", ["m1"], "k1", params={"package": "chalk"}),
        act("package.install", ["m1"], "k1", params={"package": "lodash"}),
    ]
    return "KEY_CONFLICT", steps, [dec(1, "KEY_CONFLICT"), state(0, "allowed")]


@scenario("key-conflict-other-intent")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["lang"]),
        act("message.send", ["m1"], "k1", params={"to": "team"}),
        act("email.send", ["m1"], "k1", params={"to": "team"}),
    ]
    return "KEY_CONFLICT", steps, [dec(1, "KEY_CONFLICT")]


@scenario("retraction-cancels-pending")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["lang"]),
        act("email.send", ["m1"], "k1"),
        {"op": "revoke_message", "message_id": "m1"},
    ]
    return "ALLOW", steps, [dec(0, "ALLOW"), state(0, "cancelled")]


@scenario("retraction-marks-executed-for-repair")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["npm"]),
        act("package.install", ["m1"], "k1"),
        outcome(0, "executed", "job-9"),
        {"op": "revoke_message", "message_id": "m1"},
    ]
    return "ALLOW", steps, [state(0, "needs_repair")]


@scenario("retraction-cascades-through-derived-memory")
def _(t: dict[str, str]) -> Any:
    # a summary derived from m1 backs a draft email and an executed install; revoking m1
    # takes the summary out of recall, cancels the draft and flags the install for repair
    steps = [
        turn("m1", t["npm"]),
        turn("m2", t["derived"], at=LATER),
        proposal(t, "m1", "preference.package_manager", "npm", t["npm"]),
        {
            **proposal(t, "m2", "decision.note", t["derived_value"], t["derived"]),
            "derived_from_messages": ["m1"],
        },
        act("email.send", ["m2"], "k1"),
        act("package.install", ["m2"], "k2"),
        outcome(1, "executed", "job-3"),
        {"op": "revoke_message", "message_id": "m1"},
    ]
    expect = [state(0, "cancelled"), state(1, "needs_repair"), {"recall_excludes": ["npm"]}]
    return "ALLOW", steps, expect


@scenario("supersede-cancels-allowed")
def _(t: dict[str, str]) -> Any:
    steps = [
        turn("m1", t["npm"]),
        act("package.install", ["m1"], "k1"),
        turn("m2", t["pnpm"], at=LATER),
        {"op": "approve", "message_id": "m2"},
    ]
    return "ALLOW", steps, [state(0, "cancelled")]


def cases() -> list[dict[str, Any]]:
    out = []
    for lang, texts in TEXT.items():
        for name, build in SCENARIOS.items():
            category, steps, expect = build(texts)
            subject = f"u-act-{lang}-{name}"
            body = json.dumps(steps, ensure_ascii=False).replace("SUBJECT", subject)
            for step in (fixed := json.loads(body)):
                if "derived_from_messages" in step:  # belongs inside the proposal
                    step["proposal"]["derived_from_messages"] = step.pop("derived_from_messages")
            out.append(
                {
                    "id": f"act-{lang}-{name}",
                    "category": f"action_{category.lower()}",
                    "lang": lang,
                    "tenant_id": "act",
                    "subject_id": subject,
                    "steps": fixed,
                    "expect": expect,
                }
            )
    return out


def render() -> str:
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases())


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {len(cases())} cases to {OUT}")
