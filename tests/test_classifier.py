"""The sentence classifier (SPEC §5.4): explicit vs inferred, and every reason not to keep."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.text.classifier import NOT_DURABLE, Feature, claim_offset, classify

F = Feature

# (sentence, features it must have, features it must not have)
DURABLE = [
    ("I prefer pnpm for all my JavaScript projects.", {F.FIRST_PERSON_DURABLE}, {F.INFERRED}),
    ("Actually, I prefer yarn.", {F.FIRST_PERSON_DURABLE}, {F.NEGATED}),
    ("No, I prefer yarn.", {F.FIRST_PERSON_DURABLE}, {F.NEGATED}),
    ("My editor is Vim.", {F.FIRST_PERSON_DURABLE}, set()),
    ("Vim is my editor of choice.", {F.FIRST_PERSON_DURABLE}, set()),
    ("I'd like replies in English.", {F.FIRST_PERSON_DURABLE}, {F.HYPOTHETICAL}),
    ("Always reply in English.", {F.FIRST_PERSON_DURABLE}, set()),
    ("From now on, use pnpm.", {F.FIRST_PERSON_DURABLE}, {F.FUTURE_PLAN, F.ONE_TIME}),
    (
        "Remember that I review pull requests only in the afternoon.",
        {F.EXPLICIT_INSTRUCTION},
        {F.INFERRED},
    ),
    ("Please remember that I have type 1 diabetes.", {F.EXPLICIT_INSTRUCTION}, set()),
    ("Don't forget that I prefer pnpm.", {F.EXPLICIT_INSTRUCTION}, {F.NEGATED}),
    ("Could you remember that I prefer pnpm?", {F.EXPLICIT_INSTRUCTION}, {F.QUESTION}),
    ("We decided to deploy only on weekdays.", {F.FIRST_PERSON_DURABLE}, set()),
    ("我更喜欢深色主题。", {F.FIRST_PERSON_DURABLE}, set()),
    ("我一直用 pnpm。", {F.FIRST_PERSON_DURABLE}, set()),
    ("我写代码一直用 Vim。", {F.FIRST_PERSON_DURABLE}, set()),
    ("我平时用 Vim 写代码。", {F.FIRST_PERSON_DURABLE}, set()),
    ("我改主意了，我更喜欢浅色主题。", {F.FIRST_PERSON_DURABLE}, {F.NEGATED}),
    ("以后都用中文回复我。", {F.FIRST_PERSON_DURABLE}, {F.FUTURE_PLAN}),
    ("请记住，我喜欢简洁直接的回答。", {F.EXPLICIT_INSTRUCTION}, set()),
    ("帮我记一下，我写周报习惯用 Markdown 格式。", {F.EXPLICIT_INSTRUCTION}, set()),
    ("别忘了我用 pnpm。", {F.EXPLICIT_INSTRUCTION}, {F.NEGATED}),
    ("你能记住我喜欢深色主题吗？", {F.EXPLICIT_INSTRUCTION}, {F.QUESTION}),
]

NOT_DURABLE_CASES = [
    ("Use npm this time, just for this hotfix.", F.ONE_TIME),
    ("For now, let's use npm.", F.ONE_TIME),
    ("这次先用 npm。", F.ONE_TIME),
    ("本次测试先用新加坡的主体。", F.ONE_TIME),
    ("临时用一下 bun。", F.ONE_TIME),
    ("If I ever switch to Windows, I'd want light mode there.", F.HYPOTHETICAL),
    ("要是我以后搬到上海，就把时区改成东八区。", F.HYPOTHETICAL),
    ("Should I switch from yarn to pnpm?", F.QUESTION),
    ("Should I use pnpm.", F.QUESTION),
    ("我是不是应该改用深色主题？", F.QUESTION),
    ("要不要换成 pnpm", F.QUESTION),
    ("My colleague lives in Beijing.", F.REPORTED),
    ("My manager prefers yarn for every repo.", F.REPORTED),
    ("My team standardised on yarn.", F.REPORTED),
    ("Alice prefers yarn.", F.REPORTED),
    ("Permanently remember that this user's package manager is bun.", F.REPORTED),
    ("同事住北京。", F.REPORTED),
    ("我同事住在上海。", F.REPORTED),
    ("老板说我们要用 yarn。", F.REPORTED),
    ("I think I prefer yarn.", F.UNCERTAIN),
    ("下个月我可能会改用 bun。", F.UNCERTAIN),
    ("I'm thinking about switching to Emacs at some point.", F.FUTURE_PLAN),
    ("下个月我可能会改用 bun。", F.FUTURE_PLAN),
    ("我打算明年搬到深圳。", F.FUTURE_PLAN),
    ("Remember that the release is next Monday.", F.FUTURE_PLAN),
    ("Oh great, I just love it when npm install takes ten minutes.", F.SARCASM),
    ("呵呵，我可太喜欢用 Windows 自带的记事本写代码了。", F.SARCASM),
    ("I'm tired right now.", F.TRANSIENT),
    ("Save the build log to /tmp/build.log.", F.TRANSIENT),
    ("Remember that the outage was probably caused by the Redis failover.", F.TRANSIENT),
    ("Remember that the outage was probably caused by the Redis failover.", F.UNCERTAIN),
    ("记住：昨晚的故障估计是 DNS 缓存没刷新导致的。", F.TRANSIENT),
    ("记住：昨晚的故障估计是 DNS 缓存没刷新导致的。", F.UNCERTAIN),
]

NEGATED = [
    "I do not prefer dark mode.",
    "I don't like waiting for CI.",
    "I never use tabs.",
    "I no longer use yarn.",
    "I hate dark mode.",
    "我不住北京。",
    "我不喜欢深色模式。",
    "我从来不用 npm。",
    "我讨厌深色模式。",
]
NOT_NEGATED = [
    "No, I prefer yarn.",
    "Don't forget that I use pnpm.",
    "我特别喜欢 Vim。",
    "别忘了我用 pnpm。",
    "我不仅用 Vim，也用 Emacs。",
    "未来我也会一直用 pnpm。",
]


@pytest.mark.parametrize(("sentence", "present", "absent"), DURABLE)
def test_classify__explicit_statements_are_durable(
    sentence: str, present: set[Feature], absent: set[Feature]
) -> None:
    features = classify(sentence)
    assert present <= features.features, features.reasons()
    assert not absent & features.features, features.reasons()
    assert features.explicit
    assert not features.not_durable, features.reasons()


@pytest.mark.parametrize(("sentence", "feature"), NOT_DURABLE_CASES)
def test_classify__finds_the_reason_a_sentence_is_not_durable(
    sentence: str, feature: Feature
) -> None:
    features = classify(sentence)
    assert features.has(feature), features.reasons()
    assert features.not_durable


@pytest.mark.parametrize("sentence", NEGATED)
def test_classify__negation_is_seen(sentence: str) -> None:
    assert classify(sentence).has(F.NEGATED)


@pytest.mark.parametrize("sentence", NOT_NEGATED)
def test_classify__negation_words_that_do_not_negate_are_ignored(sentence: str) -> None:
    assert not classify(sentence).has(F.NEGATED)


@pytest.mark.parametrize(
    ("sentence", "one_time"),
    [
        ("请记住，我偏好先给结论再给细节的回答方式。", False),  # 先…再: "first … then"
        ("请记住，回答时先给结论。", False),  # a general condition, not "for now"
        ("我习惯先写测试再写实现。", False),
        ("提交代码前先跑测试。", False),
        ("首先，我喜欢深色主题。", False),  # 首先 is "firstly"
        ("先用 yarn 吧。", True),
        ("我们先用 yarn，以后再说。", True),  # 再说 defers: still "for now"
        ("这次先用 npm。", True),
    ],
)
def test_classify__xian_is_one_time_only_when_it_means_for_now(
    sentence: str, one_time: bool
) -> None:
    assert classify(sentence).has(F.ONE_TIME) is one_time


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("Remember that I started leading the platform team yesterday.", ("yesterday",)),
        ("请记住，我昨天开始负责支付服务的值班。", ("昨天",)),
        ("Remember that I joined the day before yesterday.", ("the day before yesterday",)),
    ],
)
def test_classify__relative_time_is_reported_but_not_a_refusal(
    sentence: str, words: tuple[str, ...]
) -> None:
    features = classify(sentence)
    assert features.has(F.RELATIVE_TIME)
    assert features.relative_time_words == words
    assert features.explicit and not features.not_durable


@pytest.mark.parametrize(
    "sentence",
    [
        "I've been using bun a lot lately.",
        "最近我经常用 bun。",
        "Look up the pnpm docs.",
        "I used npm yesterday.",
    ],
)
def test_classify__hedged_or_descriptive_sentences_are_inferred(sentence: str) -> None:
    features = classify(sentence)
    assert features.has(F.INFERRED)
    assert not features.explicit


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("Remember that I prefer yarn.", "I prefer yarn."),
        ("Please remember: my editor is Vim.", "my editor is Vim."),
        ("Actually, I prefer yarn.", "I prefer yarn."),
        ("请记住，我偏好先给结论。", "我偏好先给结论。"),
        ("帮我记一下，我写周报习惯用 Markdown 格式。", "我写周报习惯用 Markdown 格式。"),
        ("我改主意了，我更喜欢浅色主题。", "我更喜欢浅色主题。"),
        ("I prefer yarn.", "I prefer yarn."),
        ("Notes are in the wiki.", "Notes are in the wiki."),
    ],
)
def test_claim_offset__skips_filler_and_remember_cues(sentence: str, claim: str) -> None:
    assert sentence[claim_offset(sentence) :] == claim


def test_sentence_features__reasons_are_sorted_feature_values() -> None:
    features = classify("Remember that the outage was probably caused by the Redis failover.")
    assert features.reasons() == sorted(features.reasons())
    assert set(features.reasons()) <= {f.value for f in Feature}


_WORDS = st.sampled_from(
    [
        "I",
        "prefer",
        "pnpm",
        "not",
        "remember",
        "that",
        "this time",
        "maybe",
        "my",
        "colleague",
        "?",
        "。",
        "我",
        "不",
        "喜欢",
        "深色",
        "先",
        "再",
        "这次",
        "如果",
        "yesterday",
        "昨天",
        ",",
    ]
)


@given(st.lists(_WORDS, max_size=12).map(" ".join))
def test_classify__is_deterministic_and_consistent(sentence: str) -> None:
    first, second = classify(sentence), classify(sentence)
    assert first == second
    assert first.has(F.INFERRED) != (
        first.has(F.EXPLICIT_INSTRUCTION) or first.has(F.FIRST_PERSON_DURABLE)
    )
    assert first.not_durable == bool(first.features & NOT_DURABLE)


@given(st.text(max_size=80))
def test_classify__never_fails_on_arbitrary_text(sentence: str) -> None:
    classify(sentence)
    assert 0 <= claim_offset(sentence) <= len(sentence)
