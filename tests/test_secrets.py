"""shared.secrets: what must be found, what must not, and that offsets point at the original."""

from __future__ import annotations

import logging
import time
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.detect.secret_checksums import (
    card_number_valid,
    cn_resident_id_check_char,
    cn_resident_id_valid,
    iban_valid,
    luhn_valid,
)
from memwarden_shared.detect.secrets import (
    SecretFinding,
    contains_secret,
    find_secrets,
    secret_kinds,
)
from memwarden_shared.text.fold import Level, fold

# Tokens are assembled from pieces so that this file itself never trips a secret scanner.
BODY36 = "4bYxpFcoYiNBytnUH9ACzAHI9IpyVdUkJjQ9"
GITHUB = "gh" + "p_" + BODY36
GITHUB_PAT = "github" + "_pat_" + "11ABCDEFG0" + "a1B2c3D4e5F6g7H8i9J0kL_" + "Zz9" * 19 + "Yx"
GITLAB = "gl" + "pat-" + "xY7kQ2mN9pR4sT6vW8zA"
SLACK = "xo" + "xb-" + "12345678901-123456789012-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7"
STRIPE = "sk" + "_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_TEST = "sk" + "_test_" + "51H8pQ2eZvKYlo2C0aBcDeFg"
OPENAI = "sk-" + "u15tmTTiodhIz4m0am6V3dUM6qaMUbMAlb7DpEzQ"
OPENAI_PROJ = "sk-" + "proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0UvWx"
NPM = "np" + "m_" + "hmwzjnjDRwWpz0swq4Odp5JJHmsbDYOavpdF"
AWS_ID = "AK" + "IA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN " + "RSA PRIVATE KEY-----\n"
    "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n"
    "-----END RSA PRIVATE KEY-----"
)


def _covering(text: str, secret: str) -> list[SecretFinding]:
    start = text.index(secret)
    end = start + len(secret)
    return [f for f in find_secrets(text) if f.start <= start and end <= f.end]


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"Remember my GitHub token: {GITHUB}", GITHUB, "github_token"),
        (f"fine-grained token {GITHUB_PAT} for CI", GITHUB_PAT, "github_token"),
        (f"请记住我的 GitLab token：{GITLAB}", GITLAB, "gitlab_token"),
        (f"bot token {SLACK}", SLACK, "slack_token"),
        (f"Stripe live key {STRIPE}.", STRIPE, "stripe_key"),
        (f"测试用的 {STRIPE_TEST}", STRIPE_TEST, "stripe_key"),
        (f"请记住，测试环境的 API key 是 {OPENAI}。", OPENAI, "openai_key"),
        (f"key: {OPENAI_PROJ}", OPENAI_PROJ, "openai_key"),
        (f"I prefer pnpm. My npm token is {NPM}.", NPM, "npm_token"),
        (f"AWS key id {AWS_ID}", AWS_ID, "aws_access_key"),
        (f"my AWS secret key is {AWS_SECRET}", AWS_SECRET, "aws_secret_key"),
        (f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET, "aws_secret_key"),
        (f"session: {JWT}", JWT, "jwt"),
        (f"here is the deploy key\n{PEM}\nthanks", PEM, "private_key"),
        ("Remember that my card is 4111 1111 1111 1111.", "4111 1111 1111 1111", "payment_card"),
        ("我的信用卡号 5555-5555-5555-4444，别记错", "5555-5555-5555-4444", "payment_card"),
        ("amex 378282246310005", "378282246310005", "payment_card"),
        ("Remember my IBAN: DE89 3704 0044 0532 0130 00.", "DE89 3704 0044 0532 0130 00", "iban"),
        ("退款账户 GB82WEST12345698765432", "GB82WEST12345698765432", "iban"),
        ("IBAN FR14 2004 1010 0505 0001 3M02 606", "FR14 2004 1010 0505 0001 3M02 606", "iban"),
        ("请记住我的身份证号是 11010519491231002X。", "11010519491231002X", "cn_resident_id"),
        ("身份证 110105 19491231 002X", "110105 19491231 002X", "cn_resident_id"),
        ("my SSN is 078-05-1120", "078-05-1120", "us_ssn"),
        ("我的护照号是 E12345678", "E12345678", "national_id"),
        ("use key a8Fk2LmQ9zXp4RtY7wBn3VcJ for now", "a8Fk2LmQ9zXp4RtY7wBn3VcJ", "high_entropy"),
    ],
)
def test_find_secrets__finds_formats_and_checksummed_numbers(
    text: str, secret: str, kind: str
) -> None:
    hits = _covering(text, secret)
    assert [f.kind for f in hits] == [kind]


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        ("my password is hunter2.", "hunter2", "password"),
        ("password: Tr0ub4dor&3", "Tr0ub4dor&3", "password"),
        ("pw=abc123", "abc123", "password"),
        ("the db password is s3cr3t#Pw", "s3cr3t#Pw", "password"),
        ("the password for the prod db is Xy9$kk2", "Xy9$kk2", "password"),
        ("DB_PASSWORD=Sup3rS3cret", "Sup3rS3cret", "password"),
        ("set my password to Tr0ub4dor", "Tr0ub4dor", "password"),
        ("hunter2 is my password", "hunter2", "password"),
        ('my password is "correct horse battery"', "correct horse battery", "password"),
        ("my password is sunshine", "sunshine", "password"),
        ("My password? It's dragon42.", "dragon42", "password"),
        ("PIN is 1234", "1234", "pin"),
        ("the CVV is 123", "123", "pin"),
        ("my API key is 9f86d081884c7d659a2feaa0", "9f86d081884c7d659a2feaa0", "generic_api_key"),
        ("记住我的数据库密码是 Hq7#pLx2!vRz。", "Hq7#pLx2!vRz", "password"),
        ("密码：abc12345", "abc12345", "password"),
        ("口令是 opensesame9", "opensesame9", "password"),
        ("我把密码改成了 Qwe!2024", "Qwe!2024", "password"),
        ("Qwe!2024 是我的密码", "Qwe!2024", "password"),
        ("支付密码是 654321", "654321", "pin"),
        ("验证码：123456", "123456", "pin"),
        ("API key 是 abcd1234efgh5678", "abcd1234efgh5678", "generic_api_key"),
    ],
)
def test_find_secrets__finds_the_value_after_a_stated_secret(
    text: str, secret: str, kind: str
) -> None:
    findings = find_secrets(text)
    assert [(f.kind, text[f.start : f.end]) for f in findings] == [(kind, secret)]


@pytest.mark.parametrize(
    "text",
    [
        "request id 550e8400-e29b-41d4-a716-446655440000",
        "trace 550E8400-E29B-41D4-A716-446655440000 failed",
        "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "回滚到 9fceb02 这个提交",
        "order #4111111111111111 shipped",
        "订单号 202406151234567890 已发货",
        "order ORD-2024-000123",
        "the run started at 2024-06-15T12:30:45Z",
        "日志时间 2025-03-14 09:26:53.589+08:00",
        "upgrade to v1.2.3, or 2.0.0-rc.1+build.20240615",
        "call me at 13800138000 or +1 415 555 2671",
        "客服电话 400-820-8820",
        "the number 4111111111111112 is not a card",
        "benchmark took 5953121612456 ns",
        "编号 110105194912310021",
        "IBAN-like DE00370400440532013000",
        "ISBN 978-0-306-40615-7",
        "class UserAccountSettings2024 handles it",
        "https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
        "I prefer pnpm",
        "我更喜欢深色主题",
    ],
)
def test_find_secrets__ignores_harmless_lookalikes(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I forgot my password",
        "reset your password",
        "Reset your password at https://example.com/reset",
        "密码强度要求至少8位",
        "忘记密码了怎么办",
        "密码是多少？",
        "验证码已发送到你的手机",
        "my password is too weak",
        "your password must be at least 12 characters",
        "Password: ********",
        "password: ${DB_PASSWORD}",
        "password: <your password here>",
        "I set my password to expire every 90 days",
        "KeePass is the password manager I use",
        "the API key is stored in Vault",
        "the token limit is 4096",
        "my bus pass is valid",
        "PIN reset requested",
        "api_key=os.getenv('API_KEY')",
    ],
)
def test_find_secrets__ignores_talk_about_secrets_without_a_value(text: str) -> None:
    assert find_secrets(text) == []


def test_find_secrets__sees_through_zero_width_characters() -> None:
    hidden = GITHUB[:3] + "\u200b" + GITHUB[3:10] + "\ufeff" + GITHUB[10:]
    text = f"token {hidden} ok"
    [finding] = find_secrets(text)
    assert finding.kind == "github_token"
    assert text[finding.start : finding.end] == hidden


def test_find_secrets__sees_through_full_width_forms() -> None:
    card = "４１１１　１１１１　１１１１　１１１１"
    text = f"我的卡号是{card}。"
    [finding] = find_secrets(text)
    assert (finding.kind, text[finding.start : finding.end]) == ("payment_card", card)


def test_find_secrets__offsets_index_the_original_text_after_expanding_characters() -> None:
    # "㎏" folds to two characters and "\u200b" to none: later offsets must still line up.
    text = "5㎏\u200b, password: ｈｕｎｔｅｒ２"
    [finding] = find_secrets(text)
    assert text[finding.start : finding.end] == "ｈｕｎｔｅｒ２"


def test_find_secrets__reports_every_secret_in_order() -> None:
    text = f"pw=abc123 and token {GITHUB} and card 4111111111111111"
    assert [f.kind for f in find_secrets(text)] == ["password", "github_token", "payment_card"]


@pytest.mark.parametrize("secret", [GITHUB, "hunter2", "4111 1111 1111 1111", "11010519491231002X"])
def test_secret_finding__repr_and_str_never_hold_the_secret(secret: str) -> None:
    text = f"my password is {secret}" if secret == "hunter2" else f"remember {secret}"
    [finding] = find_secrets(text)
    assert secret not in repr(finding)
    assert secret not in str(finding)


def test_find_secrets__logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        find_secrets(f"my password is hunter2 and {GITHUB}")
    assert caplog.records == []


@pytest.mark.parametrize("text", ["", "\u200b\ufeff", "密码是", "password:", "4" * 5000, "é" * 3])
def test_find_secrets__never_raises_on_odd_input(text: str) -> None:
    find_secrets(text)


@pytest.mark.parametrize(
    "unit", ["4", "aB3", "pw=", "sk-", "eyJ", "密码是", "password: '", "a=", "1 ", "DE89 "]
)
def test_find_secrets__stays_linear_on_long_repetitive_input(unit: str) -> None:
    # Guards against regexes that backtrack quadratically; 100k chars take ~0.3 s when linear.
    text = unit * (100_000 // len(unit))
    started = time.perf_counter()
    find_secrets(text)
    assert time.perf_counter() - started < 5


def test_secret_kinds__are_sorted_and_unique() -> None:
    text = f"{GITHUB} {GITHUB} pw=abc123 card 4111111111111111"
    assert secret_kinds(text) == ["github_token", "password", "payment_card"]


def test_contains_secret__is_false_for_plain_preferences() -> None:
    assert contains_secret("I prefer dark mode") is False
    assert contains_secret("pw=abc123") is True


@given(st.lists(st.integers(0, 9), min_size=14, max_size=14), st.sampled_from(["4", "51", "55"]))
def test_find_secrets__finds_any_luhn_valid_card_in_a_sentence(
    digits: list[int], prefix: str
) -> None:
    partial = (prefix + "".join(map(str, digits)))[:15]
    number = next(partial + d for d in "0123456789" if luhn_valid(partial + d))
    text = f"my card is {number}"
    assert [(f.kind, text[f.start : f.end]) for f in find_secrets(text)] == [
        ("payment_card", number)
    ]


@given(st.uuids())
def test_find_secrets__never_fires_on_a_uuid(value: uuid.UUID) -> None:
    assert find_secrets(f"request {value} failed") == []
    assert find_secrets(f"请求 {str(value).upper()} 失败") == []


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("4111111111111111", True),
        ("4111111111111112", False),
        ("378282246310005", True),
        ("6011111111111117", True),
        ("1234567812345670", False),
        ("4111-1111", False),
    ],
)
def test_card_number_valid__needs_luhn_and_a_network_prefix(number: str, valid: bool) -> None:
    assert card_number_valid(number) is valid


@pytest.mark.parametrize(
    ("iban", "valid"),
    [
        ("DE89370400440532013000", True),
        ("GB82WEST12345698765432", True),
        ("NL91ABNA0417164300", True),
        ("CH9300762011623852957", True),
        ("DE89370400440532013001", False),
        ("DE8937040044053201300", False),
        ("XX00123", False),
    ],
)
def test_iban_valid__checks_country_length_and_mod_97(iban: str, valid: bool) -> None:
    assert iban_valid(iban) is valid


@pytest.mark.parametrize(
    ("rid", "valid"),
    [
        ("11010519491231002X", True),
        ("11010519491231002x", True),
        ("110105194912310021", False),
        ("110105194902310028", False),
        ("990105194912310021", False),
        ("440524188001010014", False),
    ],
)
def test_cn_resident_id_valid__checks_region_birth_date_and_check_digit(
    rid: str, valid: bool
) -> None:
    assert cn_resident_id_valid(rid) is valid
    assert cn_resident_id_check_char("11010519491231002") == "X"


def test_fold__maps_each_folded_character_back_to_its_origin() -> None:
    folded = fold("a\u200bＢ㎏", Level.SCRIPT)
    assert folded.text == "aBkg"
    assert tuple(folded.origin) == (0, 2, 3, 3)
    assert folded.span(1, 4) == (2, 4)
