"""The default rules extractor (SPEC §11): only what the gate could accept, deterministically."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_extractor.routes import KEY_ORDER, ORDINAL_STRIDE
from memwarden_extractor.rules import EXTRACTOR_VERSION, claim_text, extract
from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.contract.models import ProposalBody, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.detect.grounding import ungrounded_reason
from memwarden_shared.text.segmenter import is_complete_utterance, split_sentences

REGISTRY = default_registry()
EN_TIME = "2026-03-10T14:00:00Z"
ZH_TIME = "2026-05-20T10:00:00+08:00"


def make_turn(text: str, **overrides: Any) -> Turn:
    fields: dict[str, Any] = {
        "tenant_id": "t1",
        "subject_id": "u1",
        "session_id": "s1",
        "message_id": "m1",
        "role": "user",
        "source": "user_message",
        "text": text,
        "created_at": EN_TIME,
    }
    fields.update(overrides)
    return Turn(**fields)


def found(text: str, **overrides: Any) -> list[tuple[str, str]]:
    return [(p.normalized_key, p.value) for p in extract(make_turn(text, **overrides), REGISTRY)]


PROPOSED = [
    # explicit remember-instructions that fit nothing narrower -> preference.note
    (
        "Remember that I review pull requests only in the afternoon.",
        [("preference.note", "I review pull requests only in the afternoon")],
    ),
    (
        "帮我记一下，我写周报习惯用 Markdown 格式。",
        [("preference.note", "我写周报习惯用 Markdown 格式")],
    ),
    ("请记住，我每周二上午十点开周会。", [("preference.note", "我每周二上午十点开周会")]),
    (
        "Remember that my favourite test runner is pytest.",
        [("preference.note", "my favourite test runner is pytest")],
    ),
    # direct durable statements -> the narrowest key, canonical enum values
    ("I prefer pnpm for all my JavaScript projects.", [("preference.package_manager", "pnpm")]),
    ("我一直用 pnpm。", [("preference.package_manager", "pnpm")]),
    ("我更喜欢深色主题。", [("preference.ui_theme", "dark")]),
    ("我改主意了，我更喜欢浅色主题。", [("preference.ui_theme", "light")]),
    ("Actually, I prefer yarn.", [("preference.package_manager", "yarn")]),
    ("I prefer pnpm over npm.", [("preference.package_manager", "pnpm")]),
    ("我写代码一直用 Vim。", [("preference.editor", "vim")]),
    ("Actually, my editor is Emacs.", [("preference.editor", "emacs")]),
    ("Vim is my editor of choice.", [("preference.editor", "vim")]),
    ("以后都用中文回复我。", [("preference.language", "zh Chinese 中文")]),
    ("Always reply in English.", [("preference.language", "en English 英语")]),
    (
        "请记住，我喜欢简洁直接的回答。",
        [("preference.communication_style", "我喜欢简洁直接的回答")],
    ),
    (
        "请记住，我偏好先给结论再给细节的回答方式。",
        [("preference.communication_style", "我偏好先给结论再给细节的回答方式")],
    ),
    ("请记住，我的时区是 Asia/Shanghai。", [("profile.timezone", "Asia/Shanghai")]),
    ("我的时区是东八区。", [("profile.timezone", "Asia/Shanghai")]),
    ("My name is Alice Chen.", [("profile.name", "Alice Chen")]),
    ("我叫张伟。", [("profile.name", "张伟")]),
    ("I live at 42 Wallaby Way, Sydney.", [("profile.location", "42 Wallaby Way, Sydney")]),
    ("我住在杭州西湖区。", [("profile.location", "杭州西湖区")]),
    ("请记住我的手机号是 13800138000。", [("profile.contact", "13800138000")]),
    ("Remember that my email is alice@example.com.", [("profile.contact", "alice@example.com")]),
    (
        "Please remember that I have type 1 diabetes.",
        [("profile.health", "I have type 1 diabetes")],
    ),
    (
        "We decided to deploy only on weekdays.",
        [("decision.note", "We decided to deploy only on weekdays")],
    ),
    ("我们决定用 Postgres 做事件存储。", [("decision.note", "我们决定用 Postgres 做事件存储")]),
    ("I switched from npm to pnpm.", [("preference.package_manager", "pnpm")]),
    ("我从 npm 换成了 pnpm。", [("preference.package_manager", "pnpm")]),
    ("请记住，回答时先给结论。", [("preference.communication_style", "回答时先给结论")]),
    # a remembered fact that is not the owner's preference stays a note
    ("Remember that our CI uses yarn.", [("preference.note", "our CI uses yarn")]),
    ("请帮我记住：我的生日是 3 月 5 日。", [("preference.note", "我的生日是 3 月 5 日")]),
    # mixed turns: only the durable sentence
    ("我平时用 Vim 写代码。我同事住在上海。", [("preference.editor", "vim")]),
    (
        "我不喜欢深色模式。请记住，我的时区是 Asia/Shanghai。",
        [("profile.timezone", "Asia/Shanghai")],
    ),
    ("I prefer pnpm. My colleague prefers yarn.", [("preference.package_manager", "pnpm")]),
]

NOTHING = [
    "I do not prefer dark mode.",
    "我不住北京。",
    "我不喜欢深色模式。",
    "I never use tabs.",
    "Use npm this time, just for this hotfix.",
    "这次先用 npm。",
    "本次测试先用新加坡的主体。",
    "My colleague lives in Beijing.",
    "My manager prefers yarn for every repo.",
    "同事住北京。",
    "My team standardised on yarn. I prefer it too.",
    "If I ever switch to Windows, I'd want light mode there.",
    "要是我以后搬到上海，就把时区改成东八区。",
    "Should I switch from yarn to pnpm?",
    "我是不是应该改用深色主题？",
    "I'm thinking about switching to Emacs at some point.",
    "下个月我可能会改用 bun。",
    "Remember that the outage was probably caused by the Redis failover.",
    "记住：昨晚的故障估计是 DNS 缓存没刷新导致的。",
    "Oh great, I just love it when npm install takes ten minutes.",
    "呵呵，我可太喜欢用 Windows 自带的记事本写代码了。",
    "Look up the pnpm docs for workspaces.",
    "I used npm yesterday.",
    "我用 npm 装了一个包。",
    "Any good lunch spots near me?",
    "谢谢你刚才的帮助。",
    "我们继续吧。",
    # an obligation, a question in disguise, a problem report: no preference stated
    "I need to use npm for the legacy repo.",
    "我需要用 npm。",
    "I want to know how to use pnpm.",
    "I need help with yarn workspaces.",
    "My problem is that npm is slow.",
    "My wife's editor is VS Code.",
    "我妈住在成都。",
    "等我换了新电脑再用 pnpm。",
]


@pytest.mark.parametrize(("text", "expected"), PROPOSED)
def test_extract__proposes_the_narrowest_key(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize("text", NOTHING)
def test_extract__proposes_nothing_durable(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "created_at", "value"),
    [
        (
            "Remember that I started leading the platform team yesterday.",
            EN_TIME,
            "2026-03-09 I started leading the platform team",
        ),
        ("请记住，我昨天开始负责支付服务的值班。", ZH_TIME, "2026-05-19 我 开始负责支付服务的值班"),
        (
            "Remember that I joined the company last Monday.",
            EN_TIME,
            "2026-03-02 I joined the company",
        ),
    ],
)
def test_extract__stores_absolute_dates_not_relative_words(
    text: str, created_at: str, value: str
) -> None:
    # a dated event the owner asked to remember (issue 15): the date leads the value
    assert found(text, created_at=created_at) == [("task_fact.event", value)]


@pytest.mark.parametrize(
    "overrides",
    [
        {"role": "assistant", "source": "assistant_message", "author_id": "assistant"},
        {"role": "tool", "source": "tool_result", "author_id": "tool:fs.read"},
        {"source": "web_content"},
        {"author_id": "u1-colleague"},
    ],
)
def test_extract__only_reads_the_owners_own_user_messages(overrides: dict[str, Any]) -> None:
    assert found("Remember that I prefer yarn.", **overrides) == []


@pytest.mark.parametrize(
    "text",
    [
        "Remember my GitHub token: ghp_4bYxpFcoYiNBytnUH9ACzAHI9IpyVdUkJjQ9",
        "Please remember my IBAN for refunds: DE89 3704 0044 0532 0130 00.",
        "记住我的数据库密码是 Hq7#pLx2!vRz。",
        "Remember that my card number is 4111 1111 1111 1111.",
    ],
)
def test_extract__never_proposes_a_sentence_holding_a_secret(text: str) -> None:
    assert found(text) == []


def test_extract__keeps_the_durable_sentence_beside_a_secret() -> None:
    text = "I prefer pnpm. My npm token is npm_hmwzjnjDRwWpz0swq4Odp5JJHmsbDYOavpdF."
    proposals = extract(make_turn(text), REGISTRY)
    assert [(p.normalized_key, p.value) for p in proposals] == [
        ("preference.package_manager", "pnpm")
    ]
    assert "npm_" not in proposals[0].model_dump_json()


@pytest.mark.parametrize(
    ("text", "confidence"),
    [
        ("Remember that I deploy only on Tuesdays.", 0.9),
        ("I prefer bun.", 0.8),
        ("I've been using bun a lot lately.", 0.5),
    ],
)
def test_extract__confidence_follows_how_the_claim_was_made(text: str, confidence: float) -> None:
    [proposal] = extract(make_turn(text), REGISTRY)
    assert proposal.confidence == confidence


def test_extract__fills_identity_scope_and_evidence_deterministically() -> None:
    text = "谢谢你刚才的帮助。我写代码更喜欢用 Vim。我们继续吧。"
    [p] = extract(make_turn(text), REGISTRY)
    assert p.scope.kind == "user" and p.scope.key == "u1"
    assert p.kind == "preference" and p.extractor_version == EXTRACTOR_VERSION
    assert (p.evidence.start, p.evidence.end) == (9, 22)
    assert p.evidence.sha256 == sha256_hex("我写代码更喜欢用 Vim。")
    assert p.stable_candidate_ordinal == 1 * ORDINAL_STRIDE + KEY_ORDER.index("preference.editor")
    assert p.expires_at is None


def test_extract__session_task_facts_are_opt_in_and_expire_within_a_day() -> None:
    turn = make_turn("Use npm this time, just for this hotfix.")
    assert extract(turn, REGISTRY) == []
    [p] = extract(turn, REGISTRY, session_task_facts=True)
    assert p.normalized_key == "task_fact.note"
    assert p.value == "Use npm this time, just for this hotfix"
    assert p.scope.kind == "session" and p.scope.key == "s1"
    assert p.expires_at == turn.created_at + dt.timedelta(days=1)


def test_claim_text__strips_cues_at_either_end() -> None:
    anchor = dt.datetime(2026, 3, 10, tzinfo=dt.UTC)
    assert claim_text("我有高血压，请记住。", anchor) == "我有高血压"
    assert claim_text("Please remember: I work remotely.", anchor) == "I work remotely"
    assert claim_text("I work remotely, remember.", anchor) == "I work remotely"
    assert claim_text("Remember that I take a note daily.", anchor) == "I take a note daily"


def _assert_gate_acceptable(turn: Turn, proposals: list[ProposalBody]) -> None:
    seen = set()
    for p in proposals:
        ev = p.evidence
        assert is_complete_utterance(turn.text, ev.start, ev.end)
        assert ev.sha256 == sha256_hex(turn.text[ev.start : ev.end])
        spec = REGISTRY.get(p.kind.value, p.normalized_key)
        assert spec is not None and spec.validate(p.value) is None
        span = turn.text[ev.start : ev.end]
        assert ungrounded_reason(p.value, span, spec, turn.created_at) is None
        assert (ev.start, p.normalized_key) not in seen  # one proposal per (sentence, key)
        seen.add((ev.start, p.normalized_key))
    ordinals = [p.stable_candidate_ordinal for p in proposals]
    assert len(set(ordinals)) == len(ordinals)


_SENTENCES = st.sampled_from(
    [text for text, _ in PROPOSED]
    + NOTHING
    + [
        "Remember that I started leading the platform team yesterday.",
        "I prefer pnpm.",
        "My npm token is npm_hmwzjnjDRwWpz0swq4Odp5JJHmsbDYOavpdF.",
        "记住我的数据库密码是 Hq7#pLx2!vRz。",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_SENTENCES, min_size=1, max_size=5),
    st.sampled_from([" ", "\n", ""]),
    st.sampled_from([EN_TIME, ZH_TIME]),
)
def test_extract__every_proposal_is_one_the_gate_could_accept(
    sentences: list[str], joiner: str, created_at: str
) -> None:
    turn = make_turn(joiner.join(sentences), created_at=created_at)
    proposals = extract(turn, REGISTRY)
    _assert_gate_acceptable(turn, proposals)
    assert extract(turn, REGISTRY) == proposals  # deterministic
    assert all(
        p.stable_candidate_ordinal // ORDINAL_STRIDE < len(split_sentences(turn.text))
        for p in proposals
    )
