"""Recall and false-positive rate of shared.secrets.find_secrets on a generated corpus.

Generates (seeded, so every run is the same) sentences in English and Chinese that plant
one synthetic secret each, plus harmless look-alikes that must not fire, and prints recall
per class, the false-positive rate and the time taken. A planted secret counts as found
when one finding covers its whole span in the original text. Not a test: run

    .venv/bin/python bench/secret_corpus.py [--show]

``--show`` lists the misses and false positives (all values here are synthetic).
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memwarden_shared.detect.secret_checksums import (
    IBAN_LENGTHS,
    cn_resident_id_check_char,
    luhn_valid,
)
from memwarden_shared.detect.secrets import find_secrets

SEED = 20240615
ALNUM = string.ascii_letters + string.digits
STRUCTURED = (
    "github_token",
    "gitlab_token",
    "slack_token",
    "stripe_key",
    "openai_key",
    "npm_token",
    "aws_access_key",
    "aws_secret_key",
    "jwt",
    "private_key",
    "iban",
    "cn_resident_id",
)
NATURAL = ("password", "pin", "generic_api_key")
# Classes added with the gitleaks catalogue, spoken secrets and folding: any kind counts.
CATALOGUE = ("vendor_catalogue",)
SPOKEN = ("spoken_en", "spoken_zh", "split_sentence", "evasion")
ANY_KIND = frozenset(CATALOGUE + SPOKEN)


@dataclass(frozen=True)
class Case:
    cls: str
    text: str
    start: int = 0
    end: int = 0


def _s(r: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def _mixed(r: random.Random, n: int) -> str:
    """A random token that has upper, lower and digits, as real keys do."""
    while True:
        tok = _s(r, n)
        if (
            any(c.isupper() for c in tok)
            and any(c.islower() for c in tok)
            and any(c.isdigit() for c in tok)
        ):
            return tok


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _luhn_complete(partial: str) -> str:
    return next(partial + d for d in string.digits if luhn_valid(partial + d))


def _card(r: random.Random) -> str:
    prefix, length = r.choice(
        [
            ("4", 16),
            ("4", 13),
            ("51", 16),
            ("55", 16),
            ("2221", 16),
            ("34", 15),
            ("37", 15),
            ("6011", 16),
            ("62", 16),
            ("62", 19),
            ("3528", 16),
        ]
    )
    number = _luhn_complete(prefix + _s(r, length - len(prefix) - 1, string.digits))
    style = r.choice(["space", "dash", "none"])
    if style == "none" or length not in (15, 16):
        return number
    groups = (
        [number[:4], number[4:10], number[10:]]
        if length == 15
        else [number[i : i + 4] for i in range(0, 16, 4)]
    )
    return (" " if style == "space" else "-").join(groups)


_IBAN_BBAN = {
    "DE": "n18",
    "GB": "a4n14",
    "FR": "n10c11n2",
    "NL": "a4n10",
    "ES": "n20",
    "IT": "a1n10c12",
    "CH": "n5c12",
    "BE": "n12",
    "PL": "n24",
    "AT": "n16",
}


def _iban(r: random.Random) -> str:
    country = r.choice(sorted(_IBAN_BBAN))
    alphabets = {"n": string.digits, "a": string.ascii_uppercase, "c": ALNUM.upper()}
    bban = "".join(_s(r, count, alphabets[kind]) for kind, count in _pairs(_IBAN_BBAN[country]))
    assert len(bban) + 4 == IBAN_LENGTHS[country]
    numeric = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    iban = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    return " ".join(iban[i : i + 4] for i in range(0, len(iban), 4)) if r.random() < 0.6 else iban


def _pairs(shape: str) -> list[tuple[str, int]]:
    out, i = [], 0
    while i < len(shape):
        j = i + 1
        while j < len(shape) and shape[j].isdigit():
            j += 1
        out.append((shape[i], int(shape[i + 1 : j])))
        i = j
    return out


def _cn_id(r: random.Random) -> str:
    region = r.choice(["110105", "310104", "440305", "510107", "330106", "420111", "610113"])
    born = f"{r.randint(1950, 2008)}{r.randint(1, 12):02d}{r.randint(1, 28):02d}"
    first17 = region + born + _s(r, 3, string.digits)
    return first17 + cn_resident_id_check_char(first17)


def _jwt(r: random.Random) -> str:
    alg = r.choice(["HS256", "RS256", "ES256"])
    head = _b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    claims = {"sub": _s(r, 10), "iat": r.randint(1_600_000_000, 1_800_000_000)}
    body = _b64url(json.dumps(claims).encode())
    return f"{head}.{body}.{_s(r, 43, ALNUM + '-_')}"


def _pem(r: random.Random) -> str:
    label = r.choice(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"])
    body = "\n".join(_s(r, 64, ALNUM + "+/") for _ in range(r.randint(2, 5)))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


TOKENS: dict[str, Callable[[random.Random], str]] = {
    "github_token": lambda r: r.choice(
        [
            f"{r.choice(['ghp', 'gho', 'ghu', 'ghs', 'ghr'])}_{_mixed(r, 36)}",
            f"github_pat_{_mixed(r, 22)}_{_mixed(r, 59)}",
        ]
    ),
    "gitlab_token": lambda r: f"glpat-{_mixed(r, 20)}",
    "slack_token": lambda r: (
        f"xox{r.choice('bpars')}-{_s(r, 11, string.digits)}-"
        f"{_s(r, 12, string.digits)}-{_mixed(r, 24)}"
    ),
    "stripe_key": lambda r: f"{r.choice(['sk_live', 'rk_live', 'sk_test'])}_{_mixed(r, 24)}",
    "openai_key": lambda r: r.choice(["sk-", "sk-proj-"]) + _mixed(r, 48),
    "npm_token": lambda r: f"npm_{_mixed(r, 36)}",
    "aws_access_key": lambda r: r.choice(["AKIA", "ASIA"]) + _s(r, 16, ALNUM.upper()),
    "jwt": _jwt,
    "private_key": _pem,
    "payment_card": _card,
    "iban": _iban,
    "cn_resident_id": _cn_id,
}

TOKEN_TEMPLATES = [
    "Remember my {label}: {v}",
    "here is the {label} {v} thanks",
    "{v}",
    "use {v} for the deploy",
    "My {label} is {v}.",
    "请记住我的 {label}：{v}",
    "这是测试环境的 {label} {v}，别外传。",
    "帮我保存一下 {v}",
    "{label} 是 {v}",
    "记住 {v} 这个 {label}",
    "`{v}`",
    "({v})",
    "{label}:{v}",
]
LABELS = {
    "github_token": "GitHub token",
    "gitlab_token": "GitLab token",
    "slack_token": "Slack bot token",
    "stripe_key": "Stripe key",
    "openai_key": "OpenAI key",
    "npm_token": "npm token",
    "aws_access_key": "AWS key id",
    "jwt": "session JWT",
    "private_key": "deploy key",
    "payment_card": "card number",
    "iban": "IBAN",
    "cn_resident_id": "身份证号",
}
AWS_SECRET_TEMPLATES = [
    "aws_secret_access_key = {v}",
    "my AWS secret key is {v}",
    "AWS secret: {v}",
    "AWS 的 secret key 是 {v}",
    "export AWS_SECRET_ACCESS_KEY={v}",
]

PASSWORD_TEMPLATES = [
    "my password is {v}",
    "My password is {v}.",
    "password: {v}",
    "Password: {v}",
    "pw={v}",
    "pwd: {v}",
    "the db password is {v}",
    "the wifi password is {v}",
    "our staging database password is {v}",
    "the password for the prod db is {v}",
    "login: admin / password: {v}",
    "set my password to {v}",
    "I changed my password to {v}",
    "{v} is my password",
    'my new password is "{v}"',
    "remember my email password: {v}",
    "the root passwd is {v}",
    "My laptop password's {v}",
    "password = '{v}'",
    "the admin password was changed to {v}",
    "The VPN password for alice is {v}",
    "我的密码是{v}",
    "我的密码是 {v}",
    "密码：{v}",
    "数据库密码是 {v}。",
    "记住我的邮箱密码是 {v}",
    "WiFi 密码是 {v}",
    "登录密码为 {v}",
    "口令是 {v}",
    "我把密码改成了 {v}",
    "服务器 root 密码：{v}",
    "密码设置为 {v}，别忘了",
    "{v} 是我的密码",
    "帮我记一下，密码是“{v}”",
    "路由器的管理密码是{v}。",
    "my gmail password is {v}",
    "Password for wifi: {v}",
    "the password to my laptop is {v}",
    "here's my password: {v}",
    "user: admin, pass: {v}",
    "the passphrase is {v}",
    "I use {v} as my password everywhere",
    "my password is still {v}",
    "My Netflix password = {v}",
    "DB_PASSWORD={v}",
    "MYSQL_ROOT_PASSWORD: {v}",
    "my password is {v} btw",
    "我的QQ密码是{v}",
    "密码就是{v}",
    "我的密码：{v}",
    "密码是：{v}",
    "帐号 admin 密码 {v}",
    "我的密码一直是 {v}",
    "新密码设成 {v}",
    "密码我设的是 {v}",
    "WiFi的密码是{v}",
    "用户名是 admin，密码也是 {v}",
]
PIN_TEMPLATES = [
    "my PIN is {d4}",
    "PIN: {d4}",
    "the card PIN is {d4}",
    "my bank pin code is {d6}",
    "CVV {d3}",
    "the CVV is {d3}",
    "OTP: {d6}",
    "the verification code is {d6}",
    "my 2FA code is {d6}",
    "我的银行卡密码是 {d6}",
    "支付密码：{d6}",
    "验证码是 {d6}",
    "验证码：{d6}",
    "取款密码是{d6}",
    "PIN码是 {d4}",
    "我的支付密码是{d6}，记住",
    "my ATM pin is {d4}",
    "the PIN for my card is {d4}",
    "PIN number: {d4}",
    "the passcode to my phone is {d6}",
    "Your verification code is {d6}",
    "短信验证码 {d6}",
    "动态码为{d6}",
    "支付宝支付密码是{d6}",
    "exp 12/27 cvv {d3}",
    "银行卡密码 {d6}",
]
KEY_TEMPLATES = [
    "my API key is {v}",
    "api_key={v}",
    "the access token is {v}",
    "client secret: {v}",
    "API key 是 {v}",
    "我的 API 密钥是 {v}",
    "访问令牌：{v}",
    "secret key = {v}",
    "token: {v}",
    "The webhook secret is {v}.",
    "Authorization: Bearer {v}",
    "x-api-key: {v}",
    "the secret for the webhook is {v}",
    "here's the token {v}",
    "令牌是 {v}",
    "密钥：{v}",
    "app secret 是 {v}",
    "OPENAI_API_KEY={v}",
    "GITHUB_TOKEN={v}",
]
PASSWORD_WORDS = ["sunshine", "monkey", "letmein", "trustno1", "dragon", "correcthorse", "p@ssw0rd"]


def _password(r: random.Random) -> str:
    pick = r.random()
    if pick < 0.5:
        return _mixed(r, r.randint(8, 14))[:-2] + r.choice("#$%&*@^~") + _s(r, 1, string.digits)
    if pick < 0.7:
        return r.choice(PASSWORD_WORDS) + _s(r, r.randint(2, 4), string.digits)
    if pick < 0.85:
        return r.choice(PASSWORD_WORDS)
    return _s(r, r.randint(6, 10), string.digits)


def _evade(r: random.Random, value: str) -> str:
    """Hide a value the way a user pasting around a filter might."""
    if r.random() < 0.5:
        i = r.randint(1, len(value) - 1)
        return value[:i] + r.choice("\u200b\u200c\u200d\u2060\ufeff") + value[i:]
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value)


def _plant(cls: str, template: str, value: str, **extra: str) -> Case:
    slot = next(k for k in ("{v}", "{d3}", "{d4}", "{d6}") if k in template)
    head, tail = template.split(slot, 1)
    head = head.format(**extra)
    tail = tail.format(**extra)
    return Case(cls, head + value + tail, len(head), len(head) + len(value))


def positives(r: random.Random) -> list[Case]:
    cases: list[Case] = []
    for cls, make in TOKENS.items():
        for i in range(40):
            value = make(r)
            if cls not in ("private_key",) and i % 8 == 7:
                value = _evade(r, value)
            template = TOKEN_TEMPLATES[i % len(TOKEN_TEMPLATES)]
            cases.append(_plant(cls, template, value, label=LABELS[cls]))
    for i in range(25):
        cases.append(_plant("aws_secret_key", AWS_SECRET_TEMPLATES[i % 5], _mixed(r, 40)))
    for i in range(3 * len(PASSWORD_TEMPLATES)):
        value = _password(r)
        if i % 10 == 9:
            value = _evade(r, value)
        cases.append(_plant("password", PASSWORD_TEMPLATES[i % len(PASSWORD_TEMPLATES)], value))
    for i in range(4 * len(PIN_TEMPLATES)):
        template = PIN_TEMPLATES[i % len(PIN_TEMPLATES)]
        width = int(template.split("{d")[1][0])
        cases.append(_plant("pin", template, _s(r, width, string.digits)))
    for i in range(4 * len(KEY_TEMPLATES)):
        value = _s(r, 32, "0123456789abcdef") if i % 2 else _mixed(r, r.randint(24, 40))
        cases.append(_plant("generic_api_key", KEY_TEMPLATES[i % len(KEY_TEMPLATES)], value))
    return cases


HEX = "0123456789abcdef"
LOWER_ALNUM = string.ascii_lowercase + string.digits
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
VENDOR_TOKENS: list[tuple[str, Callable[[random.Random], str]]] = [
    ("age key {v}", lambda r: "AGE-SECRET-KEY-1" + _s(r, 58, BECH32.upper())),
    ("shopify token {v} for the store", lambda r: "shpat_" + _s(r, 32, HEX)),
    ("databricks: {v}", lambda r: "dapi" + _s(r, 32, HEX)),
    ("doppler {v}", lambda r: "dp.pt." + _s(r, 43, LOWER_ALNUM)),
    ("grafana {v} ok", lambda r: "glsa_" + _s(r, 32) + "_" + _s(r, 8, HEX)),
    ("linear {v}", lambda r: "lin_api_" + _s(r, 40, LOWER_ALNUM)),
    ("postman {v}", lambda r: "PMAK-" + _s(r, 24, HEX) + "-" + _s(r, 34, HEX)),
    ("sentry {v}", lambda r: "sntryu_" + _s(r, 64, HEX)),
    ("newrelic_key = {v}", lambda r: "NRAK-" + _s(r, 27, string.ascii_uppercase + string.digits)),
    ("DATADOG_API_KEY={v}", lambda r: _s(r, 40, LOWER_ALNUM)),
    ("datadog api key {v}", lambda r: _s(r, 32, HEX)),
    ("TOTP seed: {v}", lambda r: _s(r, 32, string.ascii_uppercase + "234567")),
]
SPOKEN_EN = [
    "The wifi key is {v}, remember it.",
    "log in to the NAS with admin / {v}",
    "our wi-fi password is {v}",
    "my app password is {v}.",
    "the router admin password: {v}",
    "My laptop password is {v} btw",
]
SPOKEN_ZH = [
    "开门密码是 {v}，记住。",
    "家里wifi密码是{v}",
    "NAS 登录密码：{v}",
    "手机锁屏密码是 {v}",
    "保险柜密码为 {v}。",
]
ZH_DIGITS = "零一二三四五六七八九"
SPOKEN_CODES: list[tuple[str, Callable[[random.Random], str]]] = [
    ("the front door code is {v}.", lambda r: _s(r, 5, string.digits)),
    ("gate code: {v}", lambda r: _s(r, 4, string.digits)),
    ("我的支付密码是{v}", lambda r: _s(r, 6, ZH_DIGITS)),
    ("门禁密码是{v}。", lambda r: _s(r, 6, ZH_DIGITS)),
    ("密保答案是{v}。", lambda r: "".join(r.choice(c) for c in ("王李张", "翠小秀", "花明兰"))),
    ("my PIN is {v}", lambda r: " ".join(r.choice(["one", "two", "three", "four", "five",
                                                    "six", "seven", "eight", "nine"])
                                          for _ in range(4))),
]  # fmt: skip
SPLIT = [
    "My bank password is. {v}",
    "the wifi password is…\n{v}",
    "Here is my password. It's {v}.",
    "我的登录密码是：\n{v}",
]
EVASION = [
    ("my p\u0430ssword is {v}", _password),  # Cyrillic а
    ("my pass\u200bword: {v}", _password),
    ("密碼是 {v}", _password),  # traditional 碼
    ("card {v}", lambda r: _card(r).replace(" ", ".").replace("-", ".")),
    ("card: {v}", lambda r: _card(r).replace(" ", "  ").replace("-", "  ")),
]


def new_positives(r: random.Random) -> list[Case]:
    """The classes the catalogue, the spoken-secret detector and folding added."""
    cases: list[Case] = []
    for i in range(120):
        template, make = VENDOR_TOKENS[i % len(VENDOR_TOKENS)]
        cases.append(_plant("vendor_catalogue", template, make(r)))
    for i in range(60):
        cases.append(_plant("spoken_en", SPOKEN_EN[i % len(SPOKEN_EN)], _password(r)))
        cases.append(_plant("spoken_zh", SPOKEN_ZH[i % len(SPOKEN_ZH)], _password(r)))
    for i in range(60):
        template, make = SPOKEN_CODES[i % len(SPOKEN_CODES)]
        cls = "spoken_zh" if any("\u4e00" <= c <= "\u9fff" for c in template) else "spoken_en"
        cases.append(_plant(cls, template, make(r)))
    for i in range(40):
        cases.append(_plant("split_sentence", SPLIT[i % len(SPLIT)], _password(r)))
    for i in range(50):
        template, make = EVASION[i % len(EVASION)]
        cases.append(_plant("evasion", template, make(r)))
    return cases


def _luhn_invalid(r: random.Random) -> str:
    number = _card(r).replace(" ", "").replace("-", "")
    return number[:-1] + str((int(number[-1]) + r.randint(1, 9)) % 10)


def _bad_cn_id(r: random.Random) -> str:
    rid = _cn_id(r)
    return rid[:-1] + r.choice([c for c in "0123456789X" if c != rid[-1]])


LOOKALIKES: list[tuple[str, Callable[[random.Random], str]]] = [
    ("request id {}", lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4))),
    ("trace {} failed", lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4)).upper()),
    ("请求 ID 是 {}", lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4))),
    ("fixed in commit {}", lambda r: _s(r, 40, "0123456789abcdef")),
    ("回滚到 {} 这个提交", lambda r: _s(r, 40, "0123456789abcdef")),
    ("see {} on main", lambda r: _s(r, 7, "0123456789abcdef")),
    ("sha256 digest {}", lambda r: _s(r, 64, "0123456789abcdef")),
    ("image sha256:{}", lambda r: _s(r, 64, "0123456789abcdef")),
    ("order #{} shipped", lambda r: _s(r, 16, string.digits)),
    ("my order number is {}", lambda r: _s(r, r.randint(12, 18), string.digits)),
    ("订单号 {} 已发货", lambda r: _s(r, 18, string.digits)),
    ("order ORD-{}", lambda r: f"{r.randint(2019, 2026)}-{_s(r, 6, string.digits)}"),
    ("tracking number 1Z{}", lambda r: _s(r, 16, string.ascii_uppercase + string.digits)),
    (
        "the run started at {}",
        lambda r: (
            f"2024-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T"
            f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z"
        ),
    ),
    (
        "日志时间 {}",
        lambda r: (
            f"2025-0{r.randint(1, 9)}-1{r.randint(0, 9)} 0{r.randint(0, 9)}:"
            f"{r.randint(10, 59)}:{r.randint(10, 59)}.{r.randint(100, 999)}+08:00"
        ),
    ),
    ("epoch {} ms", lambda r: str(r.randint(1_600_000_000_000, 1_800_000_000_000))),
    ("upgrade to v{}", lambda r: f"{r.randint(0, 20)}.{r.randint(0, 40)}.{r.randint(0, 99)}"),
    ("pin the version to {}", lambda r: f"{r.randint(1, 9)}.{r.randint(0, 30)}.0-rc.1"),
    ("we run Python {}", lambda r: f"3.{r.randint(8, 13)}.{r.randint(0, 12)} and node 20.11.1"),
    ("the support line is {}", lambda r: f"+1 {r.randint(200, 999)} 555 {r.randint(1000, 9999)}"),
    ("客服电话 {}", lambda r: f"400-{r.randint(100, 999)}-{r.randint(1000, 9999)}"),
    ("the office fax is {}", lambda r: f"+86 10 {r.randint(6000, 8999)} {r.randint(1000, 9999)}"),
    ("benchmark took {} ns", lambda r: _s(r, 13, string.digits)),
    ("invoice {} is paid", lambda r: _luhn_invalid(r)),
    ("the number {} is not a card", lambda r: _luhn_invalid(r)),
    ("my card number is {}", lambda r: _luhn_invalid(r)),
    ("reference {}", lambda r: _luhn_invalid(r)),
    ("编号 {}", lambda r: _bad_cn_id(r)),
    ("IBAN-like {}", lambda r: "DE00" + _s(r, 18, string.digits)),
    ("ISBN {}", lambda r: f"978-{r.randint(0, 9)}-{r.randint(10, 99)}-{_s(r, 6, string.digits)}-0"),
    ("pi is {}", lambda r: "3.14159265358979" + _s(r, 4, string.digits)),
    ("the pod {} restarted", lambda r: f"web-{_s(r, 10, 'bcdf0123456789')}-{_s(r, 5, 'bcdfghjk')}"),
    (
        "class {} handles it",
        lambda r: r.choice(
            [
                "HttpRequestHandlerV2",
                "UserAccountSettings2024",
                "XmlParserFactoryImpl3",
                "OAuth2TokenRefresher",
            ]
        ),
    ),
    ("open https://github.com/org/repo/pull/{}", lambda r: str(r.randint(1, 99999))),
    ("server {} is down", lambda r: ".".join(str(r.randint(0, 255)) for _ in range(4))),
    ("mac {}", lambda r: ":".join(_s(r, 2, "0123456789abcdef") for _ in range(6))),
    ("total ${}", lambda r: f"{r.randint(1, 999)},{r.randint(100, 999)},{r.randint(100, 999)}.99"),
    ("we shipped {} units", lambda r: str(r.randint(1000, 10**9))),
    ("doc https://docs.google.com/document/d/{}/edit", lambda r: _mixed(r, 44)),
    ("watch https://www.youtube.com/watch?v={}", lambda r: _mixed(r, 11)),
    ("snowflake id {}", lambda r: "1" + _s(r, 18, string.digits)),
    (
        "compact timestamp {}",
        lambda r: (
            f"2024{r.randint(1, 12):02d}{r.randint(1, 28):02d}"
            f"{r.randint(0, 23):02d}{r.randint(0, 59):02d}{r.randint(0, 59):02d}"
        ),
    ),
    ("device id {}", lambda r: _s(r, 20, "0123456789abcdef")),
    ("手机 {}", lambda r: f"1{r.choice('3456789')}{_s(r, 9, string.digits)}"),
    ("account ending {}", lambda r: _s(r, 4, string.digits)),
    ("test card? no: {}", lambda r: _luhn_invalid(r)),
]
PLAIN = [
    "I forgot my password",
    "reset your password",
    "Please reset your password before Friday.",
    "密码强度要求至少8位",
    "请输入验证码",
    "验证码已发送到你的手机",
    "my password is too weak",
    "the PIN pad is broken",
    "use a password manager",
    "密码是多少？",
    "the token limit is 4096",
    "the API key is stored in Vault",
    "your password must be at least 12 characters",
    "I prefer pnpm",
    "我更喜欢深色主题",
    "I live in the terminal",
    "Password: ********",
    "password: ${DB_PASSWORD}",
    "忘记密码了怎么办",
    "the secret is to practice daily",
    "KeePass is the password manager I use",
    "my password expired yesterday",
    "the OTP expires in 5 minutes",
    "验证码是 6 位数字",
    "密码是我生日",
    "pin: see the docs",
    "The access token is refreshed every hour.",
    "Two-factor auth is enabled.",
    "我把密码存在 1Password 里了",
    "password is required",
    "令牌已过期",
    "password: <your password here>",
    "I set my password to expire every 90 days",
    "my password is my dog's name",
    "My password is 8 characters",
    "Your password is incorrect",
    "The password was accepted",
    "password: none",
    "token = get_token(user_id=42)",
    "api_key=os.getenv('API_KEY')",
    "密码规则：至少8位",
    "密码：见邮件",
    "我忘了密码是什么",
    "密码是不是太简单了",
    "我的手机号是 13800138000",
    "call 4155552671",
    "sk-learn is a typo for scikit-learn",
    "the door code changed",
    "pin the dependency to 2.31.0",
    "PIN reset requested",
    "my password manager is Bitwarden",
    "the password field is empty",
    "what is the wifi password?",
    "WiFi 密码是多少",
    "请把验证码发给我",
    "密码错误次数过多",
    # cues of the spoken-secret detector with no secret after them
    "the wifi password is on the fridge",
    "the door code is the same as before",
    "I keep my seed phrase offline",
    "backup codes are printed in my drawer",
    "the NAS login page is slow today",
    "log in to the server with SSH keys",
    "I need to log in to the server with my laptop",
    "my PIN is four digits long",
    "the key is to stay calm",
    "key: value pairs are fine in YAML",
    "开门密码忘了",
    "支付密码输错了三次",
    "密保问题是什么来着",
    "助记词要抄在纸上",
    "门禁密码是多少？",
    "我有三个孩子",
    "第一二三章讲的是索引",
    "密码是六位数",
    "wifi 密码在路由器背面",
    "My wifi password is.",
    "here is my password policy document",
    "the gate code changed last week",
    "commit key changes in 3f786850e387550fdab836ed7e6dc881de23001b",
    "the sha256 of the key file is 9f86d081884c7d659a2feaa0c55ad015"
    "a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "api key rotation is every 90 days",
    "The answer to life is 42.",
    "我的手机密码和电脑密码一样",
]


def lookalikes(r: random.Random) -> list[Case]:
    cases: list[Case] = []
    for i in range(2100):
        template, make = LOOKALIKES[i % len(LOOKALIKES)]
        cases.append(Case("lookalike", template.format(make(r))))
    cases.extend(Case("lookalike", text) for text in PLAIN * 4)
    return cases


@dataclass
class Tally:
    found: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    kind_ok: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    misses: list[Case] = field(default_factory=list)
    false_pos: list[Case] = field(default_factory=list)
    negatives: int = 0
    seconds: float = 0.0

    def recall(self, classes: tuple[str, ...]) -> float:
        flags = [flag for cls in classes for flag in self.found[cls]]
        return 100 * sum(flags) / len(flags)


def measure(pos: list[Case], neg: list[Case]) -> Tally:
    tally = Tally(negatives=len(neg))
    t0 = time.perf_counter()
    for case in pos:
        hits = [f for f in find_secrets(case.text) if f.start <= case.start and case.end <= f.end]
        tally.found[case.cls].append(bool(hits))
        kinds_ok = case.cls in ANY_KIND or any(f.kind == case.cls for f in hits)
        tally.kind_ok[case.cls].append(bool(hits) and kinds_ok)
        if not hits:
            tally.misses.append(case)
    tally.false_pos = [case for case in neg if find_secrets(case.text)]
    tally.seconds = time.perf_counter() - t0
    return tally


def report(tally: Tally, show: bool) -> None:
    positives = sum(len(flags) for flags in tally.found.values())
    print(f"secret corpus (seed {SEED}): {positives} positives, {tally.negatives} look-alikes")
    print(f"{'class':<18}{'n':>5}{'recall':>9}{'kind ok':>9}")
    for cls in sorted(tally.found):
        flags, kinds = tally.found[cls], tally.kind_ok[cls]
        print(
            f"{cls:<18}{len(flags):>5}{100 * sum(flags) / len(flags):>8.1f}%"
            f"{100 * sum(kinds) / len(kinds):>8.1f}%"
        )
    structured, cards = tally.recall(STRUCTURED), tally.recall(("payment_card",))
    natural = tally.recall(NATURAL)
    catalogue, spoken = tally.recall(CATALOGUE), tally.recall(SPOKEN)
    fp = 100 * len(tally.false_pos) / tally.negatives
    print(f"structured formats recall: {structured:.1f}%   (target 100%)")
    print(f"Luhn-valid cards recall:   {cards:.1f}%   (target 100%)")
    print(f"natural-language recall:   {natural:.1f}%   (target >= 95%)")
    print(f"gitleaks catalogue recall: {catalogue:.1f}%   (target 100%)")
    print(f"spoken/split/evasion:      {spoken:.1f}%   (target >= 95%)")
    print(f"false positives: {len(tally.false_pos)}/{tally.negatives} = {fp:.2f}%   (target <= 1%)")
    n = positives + tally.negatives
    print(f"time: {tally.seconds:.2f} s for {n} texts, {1e6 * tally.seconds / n:.0f} us per text")
    met = (
        structured == 100
        and cards == 100
        and natural >= 95
        and catalogue == 100
        and spoken >= 95
        and fp <= 1
    )
    print("targets met" if met else "TARGETS NOT MET")
    if show:
        for case in tally.misses:
            print("MISS", case.cls, repr(case.text))
        for case in tally.false_pos:
            print("FP  ", [f.kind.value for f in find_secrets(case.text)], repr(case.text))


def main() -> None:
    r = random.Random(SEED)
    cases = positives(r) + new_positives(r)
    report(measure(cases, lookalikes(r)), show="--show" in sys.argv)


if __name__ == "__main__":
    main()
