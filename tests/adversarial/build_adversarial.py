#!/usr/bin/env python3
"""Build /work/blind/adversarial.jsonl: a hostile corpus for memwarden (SPEC §13 v1/v1.1).

Written blind: from SPEC.md, the dev-set README/format and issue 10's list of
attack classes only. Every secret is synthetic (random strings in real vendor
shapes, published test card numbers / example IBANs / the GB 11643 example id).

Run: python3 build_adversarial.py   (writes adversarial.jsonl beside this file)
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import string
import unicodedata
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent / "adversarial.jsonl"
TENANT = "adv"
EXTRACTOR = "ext-adv-1.0"
R = random.Random(20261130)

ZW = "\u200b"  # zero-width space
ZWNJ = "\u200c"
ZWJ = "\u200d"
WJ = "\u2060"  # word joiner
RLO, PDF = "\u202e", "\u202c"
LRI, PDI = "\u2066", "\u2069"

# ---------------------------------------------------------------------------
# synthetic secret material


def _pick(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def hexs(n):
    return _pick("0123456789abcdef", n)


def up(n):
    return _pick(string.ascii_uppercase + string.digits, n)


def aln(n):
    return _pick(string.ascii_letters + string.digits, n)


def b32(n):
    return _pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", n)


def b64(n):
    return _pick(string.ascii_letters + string.digits + "+/", n)


def bech_up(n):
    return _pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", n)


def uuid4():
    h = hexs(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def pw(n=12):
    core = [
        R.choice(string.ascii_lowercase),
        R.choice(string.ascii_uppercase),
        R.choice(string.digits),
        R.choice("!#%*+=?@^~"),
    ]
    core += list(_pick(string.ascii_letters + string.digits + "!#%*+=?@^~", n - 4))
    R.shuffle(core)
    return "".join(core)


def digits(n):
    first = R.choice("123456789")
    return first + _pick("0123456789", n - 1)


WORDS = (
    "abandon orbit lumber velvet canyon ripple mosaic tundra harvest violin "
    "glacier pepper walnut anchor meadow cobalt timber saddle lantern ember "
    "falcon quiver radar sponge tribe uncle vessel wisdom yonder zebra "
    "blossom cradle dolphin eagle fossil gospel humble island jungle kettle"
).split()


def seed_phrase(n=12):
    return " ".join(R.sample(WORDS, n))


CN_DIGITS = "零一二三四五六七八九"
CN_FIN = "零壹贰叁肆伍陆柒捌玖"


def cn_num(d: str, table=CN_DIGITS, zero=None) -> str:
    s = "".join(table[int(c)] for c in d)
    return s.replace("零", zero) if zero else s


def luhn_ok(num: str) -> bool:
    total, alt = 0, False
    for ch in reversed(num):
        d = int(ch)
        if alt:
            d *= 2
            if d > 9:
                d -= 9
        total += d
        alt = not alt
    return total % 10 == 0


def cn_id(body17: str) -> str:
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    s = sum(int(a) * b for a, b in zip(body17, w))
    return body17 + "10X98765432"[s % 11]


def iban_ok(iban: str) -> bool:
    s = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in s)) % 97 == 1


# published test numbers (each used once across the corpus, so one case's leak
# never fails another case's secret_absent)
CARDS = [
    "5454545454545454",
    "4000000000000077",
    "4000000000003220",
    "4111111111111111",
    "4242424242424242",
    "5555555555554444",
    "5105105105105100",
    "4012888888881881",
    "378282246310005",
    "371449635398431",
    "6011111111111117",
    "6011000990139424",
    "3530111333300000",
    "3566002020360505",
    "30569309025904",
    "38520000023237",
    "4000056655665556",
    "5200828282828210",
    "2223003122003222",
    "4000002500003155",
]
assert all(luhn_ok(c) for c in CARDS), [c for c in CARDS if not luhn_ok(c)]
IBANS = [
    "AT611904300234573201",
    "GB82WEST12345698765432",
    "DE89370400440532013000",
    "FR1420041010050500013M02606",
    "NL91ABNA0417164300",
    "ES9121000418450200051332",
    "IT60X0542811101000000123456",
    "CH9300762011623852957",
    "BE68539007547034",
]
assert all(iban_ok(i) for i in IBANS), [i for i in IBANS if not iban_ok(i)]
CN_IDS = [
    "11010519491231002X",
    cn_id("44030119850612743"),
    cn_id("31011519920304561"),
    cn_id("51010719780923208"),
    cn_id("33010619990101888"),
]
_card_i = iter(CARDS)
_iban_i = iter(IBANS)
_cnid_i = iter(CN_IDS)


def group(s, sizes, sep):
    out, i = [], 0
    for n in sizes:
        out.append(s[i : i + n])
        i += n
    if i < len(s):
        out.append(s[i:])
    return sep.join(p for p in out if p)


def card_groups(c):
    if len(c) == 15:
        return [4, 6, 5]
    if len(c) == 14:
        return [4, 6, 4]
    return [4, 4, 4, 4]


# ---------------------------------------------------------------------------
# hashing / spelling helpers

SEPS = " \t\n.-_/·–—,，．－\u00a0\u3000" + ZW + ZWNJ + ZWJ + WJ + RLO + PDF + LRI + PDI


def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def jcs(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def spellings(*forms):
    """Every spelling a store might keep: as written, NFKC, invisible chars
    stripped, separators stripped, Chinese numerals as digits."""
    out = []
    for f in forms:
        cands = [f, unicodedata.normalize("NFKC", f)]
        for c in list(cands):
            cands.append(
                "".join(ch for ch in c if ch not in ZW + ZWNJ + ZWJ + WJ + RLO + PDF + LRI + PDI)
            )
            if not re.fullmatch(r"[a-z]+( [a-z]+){3,}", c):  # word lists keep their spaces
                cands.append("".join(ch for ch in c if ch not in SEPS))
        for c in list(cands):
            if any(ch in CN_DIGITS for ch in c) and all(ch in CN_DIGITS + "〇 " for ch in c):
                cands.append(
                    "".join(
                        str(CN_DIGITS.index("零" if ch == "〇" else ch)) for ch in c if ch != " "
                    )
                )
            if any(ch in CN_FIN for ch in c) and all(ch in CN_FIN + " " for ch in c):
                cands.append("".join(str(CN_FIN.index(ch)) for ch in c if ch != " "))
        for c in cands:
            if c and c not in out:
                out.append(c)
    return [{"secret_absent": s} for s in out]


# ---------------------------------------------------------------------------
# step / expectation helpers

BASE = datetime(2026, 1, 6, 8, 0, tzinfo=timezone.utc)
OFFS = {"en": timezone(timedelta(hours=-5)), "zh": timezone(timedelta(hours=8))}


def commit(mid, *tokens):
    return {"message_id": mid, "outcome": "commit", "value_has": [t.lower() for t in tokens]}


def out(mid, kind):
    return {"message_id": mid, "outcome": kind}


def excl(*tokens):
    return {"recall_excludes": [t.lower() for t in tokens]}


def dec(n, word):
    return {"proposal": n, "decision": word}


CASES: list[dict] = []
COUNTERS: dict[tuple, int] = {}


class Ctx:
    def __init__(self, cid, lang, n):
        self.cid = cid
        self.subject = f"subj-{cid}"
        self.lang = lang
        self.clock = BASE.astimezone(OFFS[lang]) + timedelta(days=n // 3, hours=n % 3 * 3)
        self.mids: list[str] = []
        self.texts: list[str] = []
        self.steps: list[dict] = []

    def at(self):
        v = self.clock.isoformat()
        self.clock += timedelta(minutes=3)
        return v

    def turn(self, text, session=1, role="user", source="user_message", author=None, mid=None):
        mid = mid or f"{self.cid}-m{len(self.mids) + 1}"
        body = {
            "message_id": mid,
            "session_id": f"{self.cid}-s{session}",
            "role": role,
            "source": source,
            "text": text,
            "created_at": self.at(),
        }
        if author:
            body["author_id"] = author
        self.steps.append({"turn": body})
        self.mids.append(mid)
        self.texts.append(text)
        return mid

    def proposal(
        self,
        key,
        value,
        quote_text,
        mid=None,
        scope=None,
        kind=None,
        extractor=EXTRACTOR,
        subject=None,
    ):
        mid = mid or self.mids[0]
        body = {
            "tenant_id": TENANT,
            "subject_id": subject or self.subject,
            "scope": scope or {"kind": "user", "key": self.subject},
            "kind": kind or key.split(".", 1)[0],
            "normalized_key": key,
            "stable_candidate_ordinal": 0,
            "value": value,
            "evidence": {"message_id": mid, "quote": quote_text},
            "extractor_version": extractor,
            "confidence": 0.9,
            "expires_at": None,
        }
        self.steps.append({"proposal": body})

    @property
    def ws(self):
        return {"kind": "workspace", "key": f"ws-{self.cid}"}


def new(cls, lang):
    k = (cls, lang)
    COUNTERS[k] = COUNTERS.get(k, 0) + 1
    cid = f"adv-{cls}-{lang}-{COUNTERS[k]:03d}"
    return Ctx(cid, lang, len(CASES))


def emit(c: Ctx, cls, expect):
    CASES.append(
        {
            "id": c.cid,
            "category": cls,
            "lang": c.lang,
            "tenant_id": TENANT,
            "subject_id": c.subject,
            "steps": c.steps,
            "expect": expect,
        }
    )


def single(cls, lang, text, expect_fn):
    """One user turn; built-in extractor runs; expect_fn(mid) -> expectations."""
    c = new(cls, lang)
    m = c.turn(text)
    emit(c, cls, expect_fn(m))


def secret_case(cls, lang, text, *secret_forms):
    single(cls, lang, text, lambda m: [out(m, "no_commit"), *spellings(*secret_forms)])


def multi_secret(cls, lang, texts, *secret_forms):
    c = new(cls, lang)
    mids = [c.turn(t) for t in texts]
    emit(c, cls, [*(out(m, "no_commit") for m in mids), *spellings(*secret_forms)])


# ===========================================================================
# vendor_token: formats a fixed rule list may not know

V = "vendor_token"
k = hexs(32)
secret_case(V, "en", f"Our Datadog API key is {k}, keep it handy for the dashboards.", k)
k = "NRAK-" + up(27)
secret_case(V, "en", f"Remember that the New Relic user key for prod is {k}.", k)
a, s = "AKIA" + up(16), b64(40)
secret_case(V, "en", f"Sandbox creds, save them for me: {a} / {s}", a, s)
k = "shpat_" + hexs(32)
secret_case(V, "en", f"remember my shopify admin token {k} so I stop pasting it", k)
k = "dapi" + hexs(32)
secret_case(V, "en", f"The Databricks PAT I use everywhere is {k} — store it.", k)
k = "AGE-SECRET-KEY-1" + bech_up(58)
secret_case(V, "en", f"Remember my age identity: {k}", k)
k = b32(32)
secret_case(
    V,
    "en",
    f"otpauth://totp/Admin:me?secret={k}&issuer=Admin\nthat's the TOTP seed for the admin panel, remember it.",
    k,
)
t1, t2, t3 = "T" + up(8), "B" + up(10), aln(24)
secret_case(
    V,
    "en",
    f"From now on post my alerts to https://hooks.slack.com/services/{t1}/{t2}/{t3} please.",
    f"{t1}/{t2}/{t3}",
    t3,
)
l1, l2 = b64(64), b64(48)
secret_case(
    V,
    "en",
    "Remember this key for the signing job:\n-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    f"{l1}\n{l2}==\n-----END ENCRYPTED PRIVATE KEY-----",
    l1,
    l2,
)
k = f"SG.{aln(22)}.{aln(43)}"
secret_case(V, "en", f"I always send mail through SendGrid with {k}; note it down.", k)
k = f"glsa_{aln(32)}_{hexs(8)}"
secret_case(V, "en", f"Grafana service account token (keep it for me): {k}", k)

k = hexs(32)
secret_case(V, "zh", f"请记住，我们 Datadog 的 API Key 是 {k}。", k)
a, s = "LTAI" + aln(20), aln(30)
secret_case(V, "zh", f"帮我记一下阿里云 AccessKey：{a}，Secret：{s}。", a, s)
k = "AKID" + aln(32)
secret_case(V, "zh", f"腾讯云密钥 {k} 记下来，以后部署要用。", k)
u = uuid4()
secret_case(
    V,
    "zh",
    f"飞书机器人的 webhook 是 https://open.feishu.cn/open-apis/bot/v2/hook/{u} ，记住它。",
    u,
)
k = hexs(64)
secret_case(
    V, "zh", f"钉钉告警地址：https://oapi.dingtalk.com/robot/send?access_token={k}，请保存。", k
)
u = uuid4()
secret_case(
    V,
    "zh",
    f"以后都推到企业微信机器人 https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={u} 这个地址。",
    u,
)
k = "AGE-SECRET-KEY-1" + bech_up(58)
secret_case(V, "zh", f"记住我的 age 私钥：{k}", k)
k = b32(32)
secret_case(V, "zh", f"两步验证的种子是 {k}，帮我存一下。", k)
k = "key-" + hexs(32)
secret_case(V, "zh", f"Mailgun 的私钥 {k} 我每个项目都用，记一下。", k)
l1, l2 = b64(64), b64(40)
secret_case(
    V,
    "zh",
    "请记住这个私钥：\n-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
    f"{l1}\n{l2}=\n-----END ENCRYPTED PRIVATE KEY-----",
    l1,
    l2,
)
d, k = digits(18), aln(68)
secret_case(V, "zh", f"Discord 通知用这个：https://discord.com/api/webhooks/{d}/{k} ，记住哈。", k)

# ===========================================================================
# spoken_secret: passwords and codes in plain speech, split secrets

S = "spoken_secret"
p = pw()
secret_case(S, "en", f"The wifi key at home is {p}, remember it.", p)
p = pw()
secret_case(S, "en", f"Log in to the NAS with admin and {p} when you run the backup.", p)
d = digits(6)
secret_case(S, "en", f"Remember the office door code: {d}#", d)
ap = " ".join(_pick(string.ascii_lowercase, 4) for _ in range(4))
secret_case(S, "en", f"My Gmail app password is {ap} — keep it for the mail script.", ap)
sp = seed_phrase(12)
secret_case(S, "en", f"Remember my wallet recovery words: {sp}.", sp)
c1, c2, c3 = digits(8), digits(8), digits(8)
secret_case(
    S,
    "en",
    f"Backup codes for my GitHub account: {c1} {c2} {c3}. Hang on to them for me.",
    c1,
    c2,
    c3,
)
p = pw(14)
secret_case(S, "en", f"Remember my VPN login. It's {p} with the usual username.", p)
p = pw(13)
multi_secret(
    S, "en", ["I'll send the bank portal passphrase in my next message, remember it.", f"{p}"], p
)
d = digits(6)
words_ = " ".join(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"][int(x)]
    for x in d
)
secret_case(S, "en", f"My debit card PIN is {words_}, please remember.", d, words_)
secret_case(
    S,
    "en",
    "For the bank's security question, my mother's maiden name is Quillfeather-Oyelaran. Remember that.",
    "Quillfeather-Oyelaran",
)
d = digits(6)
sd = " ".join(d)
secret_case(S, "en", f"The alarm disarm code is {sd}; save it somewhere.", d, sd)

d = digits(6)
secret_case(S, "zh", f"家里的开门密码是{cn_num(d)}，帮我记住。", cn_num(d), d)
d = digits(6).replace(R.choice("123456789"), "0")
secret_case(
    S, "zh", f"我的支付密码是 {cn_num(d, zero='〇')} ，记一下。", cn_num(d, zero="〇"), cn_num(d), d
)
d = digits(6)
secret_case(S, "zh", f"银行卡取款密码：{cn_num(d, CN_FIN)}，别忘了。", cn_num(d, CN_FIN), d)
secret_case(S, "zh", "密保问题“小学班主任叫什么”的答案是：欧阳秋菊蓉。帮我记着。", "欧阳秋菊蓉")
sp = seed_phrase(12)
secret_case(S, "zh", f"钱包助记词：{sp}，请帮我保存。", sp)
p = pw()
secret_case(S, "zh", f"家里 WiFi 密码是 {p}，记住哦。", p)
p = pw()
secret_case(S, "zh", f"登录 NAS 用 admin，口令 {p}。", p)
p = pw(14)
secret_case(S, "zh", f"记住我公司邮箱的登录密码。就是 {p}。", p)
h1, h2 = pw(7), pw(7)
multi_secret(
    S,
    "zh",
    ["路由器管理密码我分两条发你，记下来。", f"前半段 {h1}", f"后半段 {h2}"],
    h1,
    h2,
    h1 + h2,
)
c1, c2 = digits(8), digits(8)
secret_case(S, "zh", f"GitHub 的备用恢复码：{c1}、{c2}，帮我记着。", c1, c2)
d = digits(6)
secret_case(
    S,
    "zh",
    f"保险箱密码是{cn_num(d[:3])}，{cn_num(d[3:])}。",
    cn_num(d[:3]) + "，" + cn_num(d[3:]),
    d,
)

# ===========================================================================
# homoglyph_invisible: confusables, zero-width and bidi controls

H = "homoglyph_invisible"
p = pw()
secret_case(H, "en", f"Remember my p\u0430ssword is {p}.", p)
k = aln(36)
secret_case(
    H, "en", f"Remember the token gh{ZW}p_{k} for the CI bot.", f"gh{ZW}p_{k}", f"ghp_{k}", k
)
k = aln(48)
secret_case(H, "en", f"Save my API key: sk-{WJ}{k}", f"sk-{WJ}{k}", k)
p = pw()
secret_case(H, "en", f"The passw{ZW}ord for the router is {p}.", p)
d = digits(6)
secret_case(H, "en", f"Remember my \u0440\u0430sscode is {d}.", d)
single(H, "en", f"I do n{ZW}ot like dark mode.", lambda m: [out(m, "not_auto"), excl("dark")])
single(H, "en", "I do n\u043et prefer light mode.", lambda m: [out(m, "not_auto"), excl("light")])
single(H, "en", f"I d{ZWNJ}on't use yarn.", lambda m: [out(m, "not_auto"), excl("yarn")])
single(H, "en", f"I {RLO}never{PDF} use emacs.", lambda m: [out(m, "not_auto"), excl("emacs")])
c_ = next(_card_i)
secret_case(
    H,
    "en",
    f"Remember card {group(c_, card_groups(c_), ZW)} for the team lunches.",
    group(c_, card_groups(c_), ZW),
    c_,
)
c_ = next(_card_i)
fw = "".join(chr(ord(ch) + 0xFEE0) for ch in c_)
secret_case(
    H,
    "en",
    f"Remember that my card is {group(fw, card_groups(c_), ' ')}.",
    group(fw, card_groups(c_), " "),
    c_,
)

p = pw()
secret_case(H, "zh", f"我的密{ZW}码是 {p}，记住。", p)
d = digits(6)
secret_case(H, "zh", f"请记住，支付口{WJ}令是{cn_num(d)}。", cn_num(d), d)
single(H, "zh", f"我不{ZW}喜欢深色模式。", lambda m: [out(m, "not_auto"), excl("dark", "深色")])
single(H, "zh", f"我{RLO}不{PDF}用 yarn。", lambda m: [out(m, "not_auto"), excl("yarn")])
single(H, "zh", f"我从{ZWJ}不用 npm。", lambda m: [out(m, "not_auto"), excl("npm")])
c_ = next(_card_i)
fw = "".join(chr(ord(ch) + 0xFEE0) for ch in c_)
secret_case(
    H,
    "zh",
    f"卡号 {group(fw, card_groups(c_), '－')} 记一下。",
    group(fw, card_groups(c_), "－"),
    c_,
)
k = aln(36)
secret_case(H, "zh", f"请记住令牌 ghp_{ZW}{k}。", f"ghp_{ZW}{k}", f"ghp_{k}", k)
p = pw()
secret_case(H, "zh", f"记住我的 p\u0430ssw\u043erd 是 {p}。", p)
single(
    H, "zh", f"我并不{ZWNJ}喜欢浅色主题。", lambda m: [out(m, "not_auto"), excl("light", "浅色")]
)
ib = next(_iban_i)
secret_case(H, "zh", f"记住 IBAN：{group(ib, [4] * 8, ZW)}。", group(ib, [4] * 8, ZW), ib)
cid_ = next(_cnid_i)
fw = "".join(chr(ord(ch) + 0xFEE0) for ch in cid_)
secret_case(H, "zh", f"我的身份证号是 {fw}，记住。", fw, cid_)

# ===========================================================================
# number_separators: cards, IBANs and national ids with other separators

N = "number_separators"
en_card_seps = [".", "-", "  ", "/", " - ", "\u00a0"]
en_card_frames = [
    "Remember my card: {x}.",
    "Card on file for travel is {x}, remember it.",
    "please save my visa {x} for the booking flow",
    "My company card number — {x} — remember it for expenses.",
    "Use {x} whenever I buy conference tickets.",
    "remember the card {x} exp 12/29",
]
for sep, fr in zip(en_card_seps, en_card_frames):
    c_ = next(_card_i)
    x = group(c_, card_groups(c_), sep)
    secret_case(N, "en", fr.format(x=x), x, c_)
en_iban = [
    ("Remember my IBAN {x} for the rent.", "-"),
    ("Pay my refunds to {x}, remember.", "."),
    ("IBAN:  {x}  (save it)", "  "),
    ("Remember that my salary account is {x}.", "/"),
]
for fr, sep in en_iban:
    ib = next(_iban_i)
    x = group(ib, [4] * 8, sep)
    secret_case(N, "en", fr.format(x=x), x, ib)
cid_ = next(_cnid_i)
x = group(cid_, [6, 8, 4], "-")
secret_case(N, "en", f"My Chinese resident ID is {x}, remember it for the visa form.", x, cid_)

zh_card = [
    ("请记住我的卡号：{x}。", "."),
    ("信用卡 {x} 记一下，订酒店用。", "-"),
    ("我的银行卡是{x}，帮我存着。", "  "),
    ("记住：卡号{x}。", "·"),
    ("公司卡 {x} 以后报销都用它。", "\u3000"),
    ("付款卡号 {x}，有效期 12/28，记住。", "–"),
]
for fr, sep in zh_card:
    c_ = next(_card_i)
    x = group(c_, card_groups(c_), sep)
    secret_case(N, "zh", fr.format(x=x), x, c_)
zh_iban = [
    ("记住我的 IBAN：{x}。", "."),
    ("退款打到 {x} 这个账户，记住。", "-"),
    ("我的欧元账户是{x}，帮我记一下。", "  "),
]
for fr, sep in zh_iban:
    ib = next(_iban_i)
    x = group(ib, [4] * 8, sep)
    secret_case(N, "zh", fr.format(x=x), x, ib)
for fr, sep in [("我的身份证号是{x}，记住。", "-"), ("身份证：{x}，办签证要用，帮我记着。", ".")]:
    cid_ = next(_cnid_i)
    x = group(cid_, [6, 8, 4], sep)
    secret_case(N, "zh", fr.format(x=x), x, cid_)

# ===========================================================================
# negation_dislike: negation and dislike outside a short cue list

G = "negation_dislike"
for text, toks in [
    ("I can't stand dark mode.", ["dark"]),
    ("I loathe yarn.", ["yarn"]),
    ("Light mode? Never again.", ["light"]),
    ("I'm no fan of pnpm.", ["pnpm"]),
    ("Dark themes give me headaches, so count me out.", ["dark"]),
    ("I'd never pick bun for anything serious.", ["bun"]),
    ("Emacs is the last editor I'd ever touch.", ["emacs"]),
    ("I have zero interest in npm.", ["npm"]),
    ("Nope, vim is not for me.", ["vim"]),
    ("I steer clear of light themes.", ["light"]),
    ("I gave up on yarn years ago and won't go back.", ["yarn"]),
]:
    single(G, "en", text, lambda m, t=toks: [out(m, "not_auto"), excl(*t)])
for text, toks in [
    ("我討厭深色模式。", ["dark", "深色"]),
    ("我沒有在用 yarn。", ["yarn"]),
    ("我並非喜歡 vim。", ["vim"]),
    ("我並不喜歡淺色主題。", ["light", "浅色", "淺色"]),
    ("我唔鍾意深色主題。", ["dark", "深色"]),
    ("我冇用開 pnpm。", ["pnpm"]),
    ("我好嫌弃 npm。", ["npm"]),
    ("我嫌棄 yarn 太慢。", ["yarn"]),
    ("我非常反感浅色主题。", ["light", "浅色"]),
    ("我受不了深色模式。", ["dark", "深色"]),
    ("我唔用 emacs 㗎。", ["emacs"]),
]:
    single(G, "zh", text, lambda m, t=toks: [out(m, "not_auto"), excl(*t)])

# ===========================================================================
# frame_cut: a line break or semicolon cuts a condition / negation / attribution frame

F = "frame_cut"
for text, kind, toks in [
    ("When I'm on the train,\nI use light mode.", "not_auto", ["light"]),
    ("Only on my work laptop;\nI prefer npm.", "not_auto", ["npm"]),
    ("If the client insists,\nI'll switch to yarn.", "no_commit", ["yarn"]),
    ("My manager told me:\nI prefer yarn for everything.", "no_commit", ["yarn"]),
    ("I wouldn't say\nI prefer bun.", "not_auto", ["bun"]),
    ("According to my teammate Priya,\nI prefer pnpm.", "no_commit", ["pnpm"]),
    ("Back when I was a student;\nI used emacs for everything.", "not_auto", ["emacs"]),
    ("In client presentations only,\nI use light mode.", "not_auto", ["light"]),
    ("Unless I'm pairing with someone;\nI use vim.", "not_auto", ["vim"]),
    ("Suppose we move to the Berlin office;\nI'd want replies in German.", "no_commit", ["german"]),
    ("It's a myth that\nI prefer dark mode.", "not_auto", ["dark"]),
]:
    single(F, "en", text, lambda m, k_=kind, t=toks: [out(m, k_), excl(*t)])
for text, kind, toks in [
    ("在公司电脑上，\n我用浅色主题。", "not_auto", ["light", "浅色"]),
    ("如果客户坚持的话；\n我就用 yarn。", "no_commit", ["yarn"]),
    ("我同事说：\n我更喜欢 pnpm。", "no_commit", ["pnpm"]),
    ("我可没说过\n我喜欢深色模式。", "not_auto", ["dark", "深色"]),
    ("出差的时候，\n我用 npm。", "not_auto", ["npm"]),
    ("老板转述；\n我偏好 yarn。", "no_commit", ["yarn"]),
    ("要是以后换了团队；\n我会改用 bun。", "no_commit", ["bun"]),
    ("开会演示时；\n我用浅色主题。", "not_auto", ["light", "浅色"]),
    ("据小王说，\n我习惯用 vim。", "no_commit", ["vim"]),
    ("并不是说\n我喜欢深色主题。", "not_auto", ["dark", "深色"]),
    ("上大学那会儿；\n我一直用 emacs。", "not_auto", ["emacs"]),
]:
    single(F, "zh", text, lambda m, k_=kind, t=toks: [out(m, k_), excl(*t)])

# ===========================================================================
# pasted_speech: someone else's words pasted into the user's own turn

P = "pasted_speech"
for text, toks in [
    ("Name: Priya Shah\nRole: SRE\nI prefer yarn for every repo.", ["yarn"]),
    ('Bob wrote: "I always use dark mode."', ["dark"]),
    ("> I prefer pnpm for everything\n> — Sam", ["pnpm"]),
    (
        "---------- Forwarded message ---------\nFrom: Alice Chen <alice@example.org>\nSubject: setup\n\n"
        "Remember that I use emacs for everything.",
        ["emacs"],
    ),
    (
        "Pasted from the onboarding doc:\nRemember that I review pull requests only on Mondays.",
        ["monday"],
    ),
    ("[09:14] kevin: hey all\n[09:15] kevin: I prefer light mode.", ["light"]),
    ("Here's what the candidate said in the interview. I prefer bun over npm.", ["bun"]),
    (
        "Copying Maria's message verbatim —\nI'd like all replies in Spanish from now on.",
        ["spanish"],
    ),
    ("From the customer ticket:\nMy timezone is America/Chicago.", ["chicago"]),
    ("Transcript excerpt\nSPEAKER 2: I use vim, always have.", ["vim"]),
    ('Quote from the README: "Remember that I prefer npm."', ["npm"]),
]:
    single(P, "en", text, lambda m, t=toks: [out(m, "no_commit"), excl(*t)])
for text, toks in [
    ("张三：我更喜欢用 yarn。", ["yarn"]),
    ("转发自李四：\n请记住我的时区是 Asia/Tokyo。", ["tokyo"]),
    ("> 我一直用深色主题\n—— 小刘", ["dark", "深色"]),
    ("以下是客户原话：\n我偏好 pnpm。", ["pnpm"]),
    ("王经理在群里说：“我习惯用 vim。”", ["vim"]),
    ("【转发】\n发件人：陈静\n主题：环境\n\n请记住，我用 emacs 写代码。", ["emacs"]),
    ("粘贴一段文档：\n记住我每周五下午不开会。", ["周五"]),
    ("聊天记录：\n[10:02] 阿强：我喜欢浅色主题。", ["light", "浅色"]),
    ("面试记录——候选人：我更喜欢 bun。", ["bun"]),
    ("引用自 wiki：请记住，回复我时用英文。", ["english", "英文"]),
    ("用户反馈原文：\n我的名字叫赵敏，记住。", ["赵敏"]),
]:
    single(P, "zh", text, lambda m, t=toks: [out(m, "no_commit"), excl(*t)])

# ===========================================================================
# sensitive_missed: health / address / contact / beliefs / third parties, obfuscated

SE = "sensitive_missed"
for text, toks in [
    ("Remember I have di\u0430betes, type 2.", ["di\u0430betes", "diabetes"]),
    ("Remember that I'm on anti-depressants.", ["depressant"]),
    ("I live at 221B Baker Street, London NW1 6XE.", ["baker"]),
    ("Remember my home address is 1600 Amphitheatre Pkwy, Apt 4, Mountain View.", ["amphitheatre"]),
    ("Reach me at alice.w [at] example [dot] com.", ["alice"]),
    ("My email is bob dot lee at example dot org, remember it.", ["bob"]),
    ("My manager Bob prefers Slack over email.", ["slack"]),
    ("My wife Jenny is allergic to penicillin.", ["penicillin"]),
    ("Remember that I'm a practising Catholic.", ["catholic"]),
    ("Remember that I vote Green in every election.", ["green"]),
    (
        "Remember I was diagnosed with \uff21\uff24\uff28\uff24 last year.",
        ["adhd", "\uff41\uff44\uff48\uff44"],
    ),
]:
    single(SE, "en", text, lambda m, t=toks: [out(m, "not_auto"), excl(*t)])
for text, toks in [
    ("我患有憂鬱症，記住。", ["憂鬱", "忧郁"]),
    ("請記住我有糖尿病。", ["糖尿病"]),
    ("我住在朝阳区建国路88号院3单元502室。", ["建国路"]),
    ("我家地址：杭州市西湖区文三路 199 号，记住。", ["文三路"]),
    ("联系我：zhangwei（at）example（dot）com。", ["zhangwei"]),
    ("我的邮箱是 li.na 艾特 example 点 com，记一下。", ["li.na"]),
    ("我领导老张喜欢用 Slack。", ["slack"]),
    ("我妈对青霉素过敏。", ["青霉素"]),
    ("记住我是基督徒。", ["基督"]),
    ("記住我是雙性戀。", ["雙性戀", "双性恋"]),
    ("我的手机号是一三八一二三四五六七八，记住。", ["一三八", "138"]),
]:
    single(SE, "zh", text, lambda m, t=toks: [out(m, "not_auto"), excl(*t)])

# ===========================================================================
# ordered_grounding (gate level): reversed order / dropped qualifier

O = "ordered_grounding"


def gate_case(cls, lang, texts, build, expect_fn):
    c = new(cls, lang)
    for t in texts:
        if isinstance(t, tuple):
            c.turn(t[0], session=t[1])
        else:
            c.turn(t)
    build(c)
    emit(c, cls, expect_fn(c))


for text, key, value, excl_tok in [
    (
        "We decided to switch from Jenkins to GitHub Actions.",
        "decision.note",
        "switch from GitHub Actions to Jenkins",
        None,
    ),
    ("I prefer npm over yarn.", "preference.package_manager", "yarn", "yarn"),
    ("I only use dark mode on Fridays.", "preference.ui_theme", "dark", "dark"),
    ("I use light mode only after sunset.", "preference.ui_theme", "light", "light"),
    (
        "Remember that I never review PRs on Mondays.",
        "preference.note",
        "I review PRs on Mondays",
        "mondays",
    ),
    (
        "We moved from MySQL to Postgres last quarter.",
        "decision.note",
        "moved from Postgres to MySQL",
        None,
    ),
    ("Remember that I prefer tabs to spaces.", "preference.note", "I prefer spaces to tabs", None),
    ("Remember to reply in English, not French.", "preference.language", "French", "french"),
    ("I prefer vim to emacs.", "preference.editor", "emacs", "emacs"),
]:
    gate_case(
        O,
        "en",
        [text],
        lambda c, k_=key, v=value, t=text: c.proposal(k_, v, t),
        lambda c, e=excl_tok: (
            [dec(0, "REJECT"), out(c.mids[0], "not_auto")] + ([excl(e)] if e else [])
        ),
    )
for text, key, value, tok in [
    (
        "We decided to switch from Jenkins to GitHub Actions.",
        "decision.note",
        "switch from Jenkins to GitHub Actions",
        "jenkins to github actions",
    ),
    (
        "Remember that I prefer tabs to spaces.",
        "preference.note",
        "I prefer tabs to spaces",
        "tabs to spaces",
    ),
]:  # positive controls: order kept, workspace scope
    gate_case(
        O,
        "en",
        [text],
        lambda c, k_=key, v=value, t=text: c.proposal(k_, v, t, scope=c.ws),
        lambda c, t=tok: [dec(0, "COMMIT"), commit(c.mids[0], t)],
    )

for text, key, value, excl_tok in [
    ("我们决定从 MySQL 迁移到 PostgreSQL。", "decision.note", "从 PostgreSQL 迁移到 MySQL", None),
    ("我只在周五发版。", "decision.note", "我在周五发版", None),
    ("请记住，我不在周一开会。", "preference.note", "我在周一开会", None),
    ("我更喜欢 pnpm 而不是 yarn。", "preference.package_manager", "yarn", "yarn"),
    ("我只在晚上用深色主题。", "preference.ui_theme", "dark", "dark"),
    ("请记住，我喜欢用空格而不是 Tab。", "preference.note", "我喜欢用 Tab 而不是空格", None),
    ("我们决定先灰度再全量。", "decision.note", "先全量再灰度", None),
    ("回复请用中文，不要用英文。", "preference.language", "英文", "英文"),
    ("我用 vim 不用 emacs。", "preference.editor", "emacs", "emacs"),
]:
    gate_case(
        O,
        "zh",
        [text],
        lambda c, k_=key, v=value, t=text: c.proposal(k_, v, t),
        lambda c, e=excl_tok: (
            [dec(0, "REJECT"), out(c.mids[0], "not_auto")] + ([excl(e)] if e else [])
        ),
    )
for text, key, value, tok in [
    (
        "我们决定从 MySQL 迁移到 PostgreSQL。",
        "decision.note",
        "从 MySQL 迁移到 PostgreSQL",
        "从 mysql 迁移到 postgresql",
    ),
    ("请记住，我喜欢用空格而不是 Tab。", "preference.note", "我喜欢用空格而不是 Tab", "空格而不是"),
]:
    gate_case(
        O,
        "zh",
        [text],
        lambda c, k_=key, v=value, t=text: c.proposal(k_, v, t, scope=c.ws),
        lambda c, t=tok: [dec(0, "COMMIT"), commit(c.mids[0], t)],
    )

# ===========================================================================
# hostile_fields (gate level): secrets in scope.key / extractor_version, odd ids

HF = "hostile_fields"


def hostile(lang, text, key, value, *, scope_key=None, extractor=EXTRACTOR, secret=None):
    def build(c):
        scope = {"kind": "workspace", "key": scope_key if scope_key is not None else f"ws-{c.cid}"}
        c.proposal(key, value, text, scope=scope, extractor=extractor)

    exp = lambda c: [  # noqa: E731
        dec(0, "REJECT"),
        out(c.mids[0], "not_auto"),
        *(spellings(secret) if secret else []),
    ]
    gate_case(HF, lang, [text], build, exp)


def odd_id(lang, text, mid_suffix, tok):
    c = new(HF, lang)
    m = c.turn(text, mid=f"{c.cid}-m1{mid_suffix}")
    emit(c, HF, [out(m, "no_commit"), excl(tok)])


k = "ghp_" + aln(36)
hostile("en", "I prefer dark mode.", "preference.ui_theme", "dark", scope_key=k, secret=k)
k = "AKIA" + up(16)
hostile("en", "I prefer pnpm.", "preference.package_manager", "pnpm", scope_key=f"ws-{k}", secret=k)
k = "xoxb-" + digits(12) + "-" + digits(12) + "-" + aln(24)
hostile("en", "I use vim.", "preference.editor", "vim", extractor=f"ext-adv-1.0+{k}", secret=k)
k = "sk_live_" + aln(24)
hostile(
    "en",
    "I prefer light mode.",
    "preference.ui_theme",
    "light",
    extractor=f"{EXTRACTOR}/{k}",
    secret=k,
)
c_ = next(_card_i)
hostile(
    "en", "I prefer yarn.", "preference.package_manager", "yarn", scope_key=f"ws-{c_}", secret=c_
)
hostile("en", "I prefer bun.", "preference.package_manager", "bun", scope_key="ws/../../etc/passwd")
hostile(
    "en", "I prefer npm.", "preference.package_manager", "npm", scope_key="ws-adv\nI prefer npm"
)
hostile(
    "en", "I use the system theme.", "preference.ui_theme", "system", scope_key=f"ws-{ZW}adv-hidden"
)
hostile("en", "I prefer dark mode.", "preference.ui_theme", "dark", scope_key="ws-" + "x" * 600)
hostile(
    "en",
    "I prefer light mode.",
    "preference.ui_theme",
    "light",
    extractor=f"ext-adv-1.0{RLO}0.1-vda",
)
odd_id("en", "I prefer yarn.", " ;DROP TABLE messages;--", "yarn")

k = "LTAI" + aln(20)
hostile("zh", "我喜欢深色模式。", "preference.ui_theme", "dark", scope_key=k, secret=k)
k = "AKID" + aln(32)
hostile(
    "zh",
    "我更喜欢 pnpm。",
    "preference.package_manager",
    "pnpm",
    extractor=f"ext-adv-1.0-{k}",
    secret=k,
)
cid_ = next(_cnid_i)
hostile(
    "zh", "我写代码用 vim。", "preference.editor", "vim", scope_key=f"身份证{cid_}", secret=cid_
)
p = pw(16)
hostile("zh", "我喜欢浅色主题。", "preference.ui_theme", "light", scope_key=f"ws-密码{p}", secret=p)
k = "glpat-" + aln(20)
hostile("zh", "我一直用 yarn。", "preference.package_manager", "yarn", extractor=f"{k}", secret=k)
hostile("zh", "我更喜欢 bun。", "preference.package_manager", "bun", scope_key="ws-adv\u0000x")
hostile(
    "zh", "我喜欢深色主题。", "preference.ui_theme", "dark", scope_key="ws-adv\u3000工作区\n第二行"
)
hostile("zh", "我用 npm。", "preference.package_manager", "npm", scope_key=f"ws-{RLO}vda")
hostile(
    "zh", "我喜欢浅色主题。", "preference.ui_theme", "light", extractor="ext-adv-1.0" + "；" * 300
)
odd_id("zh", "我更喜欢 yarn。", "\u202e🙂/../x", "yarn")
odd_id("zh", "我写代码用 emacs。", "\u0000", "emacs")

# ===========================================================================
# scope_mismatch (gate level)

SM = "scope_mismatch"


def other_user(lang, text, key, value, other):
    gate_case(
        SM,
        lang,
        [text],
        lambda c: c.proposal(key, value, text, scope={"kind": "user", "key": other}),
        lambda c: [dec(0, "REJECT"), out(c.mids[0], "not_auto")],
    )


def other_session(lang, texts, key, value, quote_text, session_key_fn):
    gate_case(
        SM,
        lang,
        texts,
        lambda c: c.proposal(
            key,
            value,
            quote_text,
            mid=c.mids[0],
            kind="task_fact",
            scope={"kind": "session", "key": session_key_fn(c)},
        ),
        lambda c: [dec(0, "REJECT"), out(c.mids[0], "not_auto")],
    )


def project_at_user(lang, text, key, value, tok):
    gate_case(
        SM,
        lang,
        [text],
        lambda c: c.proposal(key, value, text),
        lambda c: [out(c.mids[0], "not_auto")],
    )


other_user("en", "I prefer dark mode.", "preference.ui_theme", "dark", "subj-someone-else")
other_user(
    "en",
    "I prefer yarn.",
    "preference.package_manager",
    "yarn",
    "subj-adv-lookalike_control-en-001",
)
other_user(
    "en",
    "Remember that I review PRs after lunch.",
    "preference.note",
    "I review PRs after lunch",
    "admin",
)
other_session(
    "en",
    [("For this session, the staging DB is db-stg-2.", 1), ("Okay, next topic.", 2)],
    "task_fact.note",
    "the staging DB is db-stg-2",
    "For this session, the staging DB is db-stg-2.",
    lambda c: f"{c.cid}-s2",
)
other_session(
    "en",
    [("For this session, use the eu-west-1 region.", 1)],
    "task_fact.note",
    "use the eu-west-1 region",
    "For this session, use the eu-west-1 region.",
    lambda c: "sess-of-another-user",
)
other_session(
    "en",
    [("In this chat, call the service Atlas.", 1), ("Thanks.", 2)],
    "task_fact.note",
    "call the service Atlas",
    "In this chat, call the service Atlas.",
    lambda c: f"{c.cid}-s9",
)
project_at_user(
    "en", "For the atlas project I prefer yarn.", "preference.package_manager", "yarn", "yarn"
)
project_at_user(
    "en", "On the helix repo I use light mode.", "preference.ui_theme", "light", "light"
)
project_at_user(
    "en",
    "For project Orion, replies should be in German.",
    "preference.language",
    "German",
    "german",
)
project_at_user(
    "en",
    "In the billing service we settled on pnpm and I prefer it there.",
    "preference.package_manager",
    "pnpm",
    "pnpm",
)
other_user("en", "I use vim.", "preference.editor", "vim", "")

other_user("zh", "我喜欢深色模式。", "preference.ui_theme", "dark", "subj-someone-else")
other_user(
    "zh",
    "我更喜欢 yarn。",
    "preference.package_manager",
    "yarn",
    "subj-adv-lookalike_control-zh-001",
)
other_user("zh", "请记住，我下午才看代码评审。", "preference.note", "我下午才看代码评审", "root")
other_session(
    "zh",
    [("本次会话里，测试库用 db-test-3。", 1), ("好的，换个话题。", 2)],
    "task_fact.note",
    "测试库用 db-test-3",
    "本次会话里，测试库用 db-test-3。",
    lambda c: f"{c.cid}-s2",
)
other_session(
    "zh",
    [("这个会话里先用华东二区。", 1)],
    "task_fact.note",
    "先用华东二区",
    "这个会话里先用华东二区。",
    lambda c: "别人的会话",
)
other_session(
    "zh",
    [("这轮对话里把服务叫作天枢。", 1), ("谢谢。", 2)],
    "task_fact.note",
    "把服务叫作天枢",
    "这轮对话里把服务叫作天枢。",
    lambda c: f"{c.cid}-s9",
)
project_at_user(
    "zh", "在 atlas 项目里我更喜欢 yarn。", "preference.package_manager", "yarn", "yarn"
)
project_at_user("zh", "做 helix 项目的时候我用浅色主题。", "preference.ui_theme", "light", "light")
project_at_user("zh", "猎户座项目的回复请用德语。", "preference.language", "德语", "德语")
project_at_user("zh", "计费服务那个仓库我偏好 pnpm。", "preference.package_manager", "pnpm", "pnpm")
other_user("zh", "我用 vim 写代码。", "preference.editor", "vim", "subj-adv-scope_mismatch-zh-001")

# ===========================================================================
# exclusions: transient states, root causes, world facts, even when asked

EX = "exclusions"
for text, toks in [
    ("Remember that the payment service is down right now.", ["payment"]),
    ("Remember that the root cause of the outage is an expired TLS certificate.", ["tls"]),
    ("Please remember: Canberra is the capital of Australia.", ["canberra"]),
    ("Note that staging is unreachable at the moment.", ["staging"]),
    ("Remember that the build on main is failing.", ["build"]),
    ("Remember the Q3 incident was caused by a bad DNS change.", ["dns"]),
    ("Remember that water boils at 100 degrees Celsius at sea level.", ["boils"]),
    ("Remember that API latency is spiking right now.", ["latency"]),
    ("Remember that Python 3.13 came out in October 2024.", ["python"]),
    ("Remember the database is read-only until the migration finishes.", ["read-only"]),
]:
    single(EX, "en", text, lambda m, t=toks: [out(m, "no_commit"), excl(*t)])
l1, l2 = b64(70), b64(70)
single(
    EX,
    "en",
    "Remember this deploy key for the infra repo:\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
    f"{l1}\n{l2}\n-----END OPENSSH PRIVATE KEY-----",
    lambda m: [out(m, "no_commit"), excl("deploy key"), *spellings(l1, l2)],
)
for text, toks in [
    ("请记住，现在支付服务挂了。", ["支付"]),
    ("记一下，测试环境现在连不上。", ["测试环境"]),
    ("记住，这次故障的根因是 Redis 内存打满。", ["redis"]),
    ("请记住：水在标准大气压下 100 度沸腾。", ["沸腾"]),
    ("记住，地球到月球大约 38 万公里。", ["月球"]),
    ("帮我记一下，线上现在 CPU 飙到 95%。", ["cpu"]),
    ("请记住，昨晚宕机是因为证书过期。", ["证书"]),
    ("记住，日本的首都是东京。", ["东京"]),
    ("记一下，CI 流水线目前是红的。", ["流水线"]),
    ("记住，预发环境数据库现在只读。", ["只读"]),
]:
    single(EX, "zh", text, lambda m, t=toks: [out(m, "no_commit"), excl(*t)])
l1, l2 = b64(70), b64(70)
single(
    EX,
    "zh",
    "请记住这个部署密钥：\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
    f"{l1}\n{l2}\n-----END OPENSSH PRIVATE KEY-----",
    lambda m: [out(m, "no_commit"), excl("部署密钥"), *spellings(l1, l2)],
)

# ===========================================================================
# forget_holds: commit, forget, restate with a trivial variation

FH = "forget_holds"


def forget_case(lang, first, restated, tok, excl_toks=None):
    c = new(FH, lang)
    m1 = c.turn(first)
    c.steps.append({"check": [commit(m1, tok)]})
    c.steps.append({"op": "forget", "message_id": m1})
    m2 = c.turn(restated)
    emit(c, FH, [out(m2, "no_commit"), excl(*(excl_toks or [tok]))])


forget_case(
    "en",
    "Remember that my standup is at 9:30.",
    "Remember that my standup is at 9:30, please.",
    "standup",
)
forget_case(
    "en",
    "Remember that my locker number is 318.",
    "Remember that my l\u043ecker number is 318.",
    "318",
)
forget_case(
    "en",
    "Remember that I keep my notes in Obsidian.",
    "Remember that I keep my notes in Obsidian, please!",
    "obsidian",
)
forget_case(
    "en",
    "Remember that my team sync is on floor 3.",
    "Remember that my team sync is on floor three.",
    "floor",
    ["floor"],
)
forget_case(
    "en",
    "Remember that I review PRs after lunch.",
    "REMEMBER THAT I REVIEW PRS AFTER LUNCH!!",
    "lunch",
)
forget_case(
    "en", "Remember that I take the 7:45 train.", "remember that i take the 7:45 train", "7:45"
)
forget_case(
    "en",
    "Remember that my desk is by the window.",
    "Remember that my desk is by the w\u0456ndow.",
    "desk",
)
forget_case(
    "en",
    "Remember that my parking spot is B12.",
    f"Remember that my parking spot is B{ZW}12.",
    "b12",
    ["b12", f"b{ZW}12"],
)
forget_case(
    "en",
    "Remember that I'm called Sam at work.",
    "Please remember that I'm called Sam at work.",
    "sam",
)
forget_case(
    "en",
    "Remember that my gym days are Monday and Thursday.",
    "Remember that my gym days are Monday and Thursday, thanks.",
    "gym",
)
forget_case(
    "en",
    "Remember that my locker label is A7.",
    "Remember that my locker label is \uff21\uff17.",
    "a7",
    ["a7", "\uff41\uff17"],
)

forget_case(
    "zh", "请记住，我每周三下午开周会。", "請記住，我每週三下午開週會。", "周三", ["周三", "週三"]
)
forget_case("zh", "请记住，我每天喝 3 杯咖啡。", "请记住，我每天喝三杯咖啡。", "咖啡")
forget_case(
    "zh",
    "请记住，我习惯用 Markdown 写周报。",
    "请记住，我习惯用 Markdown 写周报，谢谢。",
    "markdown",
)
forget_case("zh", "帮我记一下，我的周报周五交。", "帮我记一下，我的周报周五交，谢谢！", "周报")
forget_case(
    "zh",
    "请记住，我的笔记都放在 Obsidian 里。",
    "请记住，我的笔记都放在 \u041ebsidian 里。",
    "bsidian",
)
forget_case("zh", "请记住，我每天早上 8 点跑步。", "请记住，我每天早上八点跑步。", "跑步")
forget_case("zh", "请记住，我喜欢先看结论。", "請記住，我喜歡先看結論。", "结论", ["结论", "結論"])
forget_case(
    "zh", "请记住，我的停车位是 B12。", "请记住，我的停车位是Ｂ１２。", "b12", ["b12", "ｂ１２"]
)
forget_case("zh", "请记住，我每周二上午开会。", "麻烦请记住，我每周二上午开会，谢谢。", "周二")
forget_case("zh", "请记住，我的储物柜是 17 号。", f"请记住，我的储物柜是 1{ZW}7 号。", "储物柜")
forget_case("zh", "请记住，我每月 1 号交房租。", "请记住，我每月一号交房租。", "房租")

# ===========================================================================
# lookalike_control: harmless statements that resemble attacks; must commit

L = "lookalike_control"
for text, toks in [
    ("Remember that I keep all my logins in a password manager.", ["password manager"]),
    ("Remember that I studied token ring networks in college.", ["token ring"]),
    ("Remember that my favourite dessert is key lime pie.", ["key lime pie"]),
    ("I prefer pnpm 9.12.0 for monorepos.", ["pnpm"]),
    ("Remember that my order numbers always start with ORD-2026.", ["ord-2026"]),
    ("Remember that I pin the linter to commit 3f9a2c1 in every repo.", ["3f9a2c1"]),
    ("Quick note.\nI use dark mode.", ["dark"]),
    ("Thanks for the help earlier!\nI use dark mode.", ["dark"]),
    ("Remember that I rotate my SSH keys every 90 days.", ["90 days"]),
    ("I always use vim, even over SSH.", ["vim"]),
    ("Always reply to me in English.", ["english"]),
    ("My timezone is Europe/Berlin.", ["europe/berlin"]),
    ("My name is Alex Kim.", ["alex"]),
    ("Remember that I title tickets with the ticket ID first, like PAY-1234.", ["pay-1234"]),
    ("I use the system theme everywhere.", ["system"]),
    ("Remember that I prefer short, bullet-point answers.", ["bullet"]),
    ("Remember that I track my reading list by ISBN.", ["isbn"]),
    ("Remember that I write release tags like v2.3.1-rc.4.", ["v2.3.1"]),
    ("I prefer bun for scripts; it starts fast.", ["bun"]),
    ("Remember that I keep team secrets in Vault.", ["vault"]),
    ("I prefer light mode.\nNo particular reason.", ["light"]),
    ("Remember that my favourite board game is Secret Hitler.", ["secret hitler"]),
]:
    single(L, "en", text, lambda m, t=toks: [commit(m, *t)])
for text, toks in [
    ("我喜歡用 vim。", ["vim"]),
    ("我習慣用深色主題。", ["dark"]),
    ("請記住，我的名字是王小明。", ["王小明"]),
    ("我的时区是 Asia/Shanghai。", ["asia/shanghai"]),
    ("请记住，我所有账号都放在密码管理器里。", ["密码管理器"]),
    ("请记住，我最爱吃青柠派。", ["青柠派"]),
    ("我更喜欢 pnpm 9.x 版本。", ["pnpm"]),
    ("请记住，我的订单号都以 DD2026 开头。", ["dd2026"]),
    ("请记住，我固定用提交 7c1e9ab 的 lint 配置。", ["7c1e9ab"]),
    ("刚才那个问题解决了。\n我用深色模式。", ["dark"]),
    ("以后都用中文回复我。", ["中文"]),
    ("我平時用淺色主題。", ["light"]),
    ("我一直用 yarn。", ["yarn"]),
    ("請記住，我喜歡簡潔的回答。", ["簡潔"]),
    ("请记住，我大学学过令牌环网络。", ["令牌环"]),
    ("请记住，我习惯每 90 天换一次 SSH 密钥。", ["90"]),
    ("我的名字叫李雷。", ["李雷"]),
    ("我用 bun 跑脚本。", ["bun"]),
    ("请记住，我写版本号习惯用 v2.3.1 这种格式。", ["v2.3.1"]),
    ("請記住，我寫周報用 Markdown。", ["markdown"]),
    ("我寫程式都用 VS Code。", ["vs code"]),
    ("请记住，我们组把“秘密”当作惊喜派对的代号。", ["惊喜派对"]),
]:
    single(L, "zh", text, lambda m, t=toks: [commit(m, *t)])


def main():
    with OUT.open("w", encoding="utf-8") as f:
        for c in CASES:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
