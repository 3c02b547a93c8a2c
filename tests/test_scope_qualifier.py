"""Minimal scope (seed 002): a qualifier that narrows a claim to one context it does not name
("for this client", "for billing", "在这个项目里") never lands in a user-wide memory. The
family of sentences is generated from determiners, context and domain nouns, prepositions
and values; universal qualifiers ("for all my projects") are the counter-family."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.text.classifier import narrowing_qualifier
from tests.conftest import turn_dict

VALUES = ("pnpm", "yarn", "npm", "bun")
PREPS = ("for", "in", "on", "within", "at", "with")
DETERMINERS = ("this", "that", "the current", "our current", "my current")
CONTEXTS = (
    "client",
    "customer",
    "account",
    "repo",
    "codebase",
    "team",
    "job",
    "workspace",
    "engagement",
    "contract",
    "deployment",
    "environment",
    "product",
    "branch",
)
DOMAINS = (
    "billing",
    "invoices",
    "payments",
    "payroll",
    "taxes",
    "accounting",
    "work",
    "shipping",
    "support",
)
ZH_DETERMINERS = ("这个", "当前", "该", "本", "那个")
ZH_CONTEXTS = ("项目", "客户", "账户", "团队", "仓库", "任务", "公司", "产品", "环境")
ZH_SUFFIXES = ("里", "中", "上", "里面", "方面")
ZH_DOMAINS = ("计费", "账单", "付款", "报销", "财务", "工作", "业务")
UNIVERSAL = (
    "for all my projects",
    "for everything",
    "in general",
    "everywhere",
    "for every project",
    "across all my work",
)

words = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)

en_deictic = st.builds(
    lambda p, d, adj, n: f"{p} {d} {adj + ' ' if adj else ''}{n}",
    st.sampled_from(PREPS),
    st.sampled_from(DETERMINERS),
    st.one_of(st.just(""), words),
    st.sampled_from(CONTEXTS),
)
en_domain = st.builds(
    lambda own, d: f"for {own}{d}",
    st.sampled_from(("", "my ", "our ", "the ")),
    st.sampled_from(DOMAINS),
)
en_named_client = st.builds(lambda w: f"for client {w}", words)
zh_deictic = st.builds(
    lambda at, d, n, s: f"{at}{d}{n}{s}",
    st.sampled_from(("在", "对于", "")),
    st.sampled_from(ZH_DETERMINERS),
    st.sampled_from(ZH_CONTEXTS),
    st.sampled_from(ZH_SUFFIXES),
)
zh_domain = st.builds(
    lambda at, d, s: f"{at}{d}{s}",
    st.sampled_from(("在", "对于", "")),
    st.sampled_from(ZH_DOMAINS),
    st.sampled_from(("方面", "上", "的时候")),
)


def _en(value: str, qualifier: str, front: bool) -> str:
    return (
        f"{qualifier.capitalize()}, I prefer {value}."
        if front
        else f"I prefer {value} {qualifier}."
    )


@settings(deadline=None)  # timings on a shared machine are not the subject
@given(st.one_of(en_deictic, en_domain, en_named_client), st.sampled_from(VALUES), st.booleans())
def test_qualifier__every_narrowing_english_qualifier_is_found(
    qualifier: str, value: str, front: bool
) -> None:
    assert narrowing_qualifier(_en(value, qualifier, front)) is not None


@settings(deadline=None)  # timings on a shared machine are not the subject
@given(st.one_of(zh_deictic, zh_domain), st.sampled_from(VALUES))
def test_qualifier__every_narrowing_chinese_qualifier_is_found(qualifier: str, value: str) -> None:
    assert narrowing_qualifier(f"{qualifier}我用{value}。") is not None


@settings(deadline=None)  # timings on a shared machine are not the subject
@given(st.sampled_from(UNIVERSAL), st.sampled_from(VALUES), st.booleans())
def test_qualifier__universal_qualifiers_do_not_narrow(
    qualifier: str, value: str, front: bool
) -> None:
    assert narrowing_qualifier(_en(value, qualifier, front)) is None
    assert narrowing_qualifier(f"I prefer {value}.") is None


def _decide(
    engine: Engine, tenant: str, make: Callable[..., dict[str, Any]], text: str, value: str
) -> Any:
    message_id = "m-" + uuid.uuid4().hex[:8]
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=engine,
        extract=False,
    )
    [receipt] = decide_batch([make(tenant, message_id, text, value=value)], engine=engine)
    return receipt


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.one_of(en_deictic, en_domain, en_named_client),
    st.sampled_from(VALUES),
    st.booleans(),
)
def test_gate__a_narrowed_claim_filed_user_wide_goes_to_the_owner(
    sqlite_engine: Engine,
    make_proposal: Callable[..., dict[str, Any]],
    qualifier: str,
    value: str,
    front: bool,
) -> None:
    tenant = "t-" + uuid.uuid4().hex[:8]
    receipt = _decide(sqlite_engine, tenant, make_proposal, _en(value, qualifier, front), value)
    # never a user-wide memory: the owner decides, or the sentence was not durable at all
    # ("for this client" also reads as one-time)
    assert receipt.decision in ("NEEDS_CONFIRMATION", "REJECT")
    if receipt.decision == "NEEDS_CONFIRMATION":
        assert {"scope_qualifier", "project_scope_required"} & set(receipt.reasons)
    else:  # not durable, or refused because the value would drop the qualifier
        assert receipt.reasons[0] in ("not_durable", "qualifier_dropped")


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(UNIVERSAL), st.sampled_from(VALUES))
def test_gate__a_universal_claim_still_commits_user_wide(
    sqlite_engine: Engine, make_proposal: Callable[..., dict[str, Any]], qualifier: str, value: str
) -> None:
    tenant = "t-" + uuid.uuid4().hex[:8]
    receipt = _decide(sqlite_engine, tenant, make_proposal, f"I prefer {value} {qualifier}.", value)
    assert "scope_qualifier" not in receipt.reasons


def test_gate__a_project_scoped_claim_keeps_its_qualifier_narrow_and_commits(
    sqlite_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    text = "For billing, I prefer yarn."
    message_id = "m-project"
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=sqlite_engine,
        extract=False,
    )
    narrow = make_proposal(
        tenant, message_id, text, value="yarn", scope={"kind": "project", "key": "billing"}
    )
    wide = make_proposal(tenant, message_id, text, value="yarn", stable_candidate_ordinal=1)
    project, user = decide_batch([narrow, wide], engine=sqlite_engine)
    assert project.decision == "COMMIT"
    assert (user.decision, user.reasons[0]) == ("NEEDS_CONFIRMATION", "scope_qualifier")


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(DOMAINS), st.sampled_from(("PostgreSQL", "Kafka", "Redis")))
def test_gate__a_free_text_value_that_keeps_its_qualifier_drops_nothing(
    sqlite_engine: Engine, make_proposal: Callable[..., dict[str, Any]], domain: str, tool: str
) -> None:
    tenant, message_id = "t-" + uuid.uuid4().hex[:8], "m-" + uuid.uuid4().hex[:8]
    text = f"We decided to use {tool} for {domain}."
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=sqlite_engine,
        extract=False,
    )
    value = f"use {tool} for {domain}"
    body = make_proposal(
        tenant, message_id, text, kind="decision", normalized_key="decision.note", value=value
    )
    [receipt] = decide_batch([body], engine=sqlite_engine)
    assert "scope_qualifier" not in receipt.reasons
    short = make_proposal(
        tenant,
        message_id,
        text,
        kind="decision",
        normalized_key="decision.note",
        value=f"use {tool}",
        stable_candidate_ordinal=1,
    )
    [dropped] = decide_batch([short], engine=sqlite_engine)
    assert dropped.decision != "COMMIT" and "scope_qualifier" in dropped.reasons
