#!/usr/bin/env python3
"""Build breadth.jsonl: blind set for issue 15 (ordinary durable statements), SPEC §13 v1.

Turn steps only (the built-in extractor runs). Every case: tenant "b15", its own
subject, one user turn. Dated-event dates are computed here from the turn's
created_at in its OWN UTC offset (the writer's local calendar day).
"""

from __future__ import annotations
import json
from datetime import date, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "breadth.jsonl"
TENANT = "b15"


# ---------------------------------------------------------------- date helpers
def local_day(created_at: str) -> date:
    return datetime.fromisoformat(created_at.replace("Z", "+00:00")).date()


def resolve(created_at: str, spec) -> str:
    d = local_day(created_at)
    kind, n = spec
    monday = d - timedelta(days=d.weekday())
    if kind == "d":  # today + n days
        r = d + timedelta(days=n)
    elif kind == "next_wk":  # weekday n of next Monday-start week
        r = monday + timedelta(days=7 + n)
    elif kind == "next_next_wk":
        r = monday + timedelta(days=14 + n)
    elif kind == "this_wk":  # weekday n of this week, must lie ahead
        r = monday + timedelta(days=n)
        assert r > d, (created_at, spec)
    elif kind == "coming":  # next weekday n strictly after today
        r = d + timedelta(days=((n - d.weekday() - 1) % 7) + 1)
    elif kind == "mday_next":
        y, m = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
        r = date(y, m, n)
    elif kind == "mday_this":
        r = date(d.year, d.month, n)
        assert r > d, (created_at, spec)
    else:
        raise ValueError(kind)
    return r.isoformat()


def at(day: str, time: str, off: str, weekday=None) -> str:
    """Local timestamp; if weekday (0=Mon) is given, move forward to that weekday."""
    d = date.fromisoformat(day)
    if weekday is not None:
        while d.weekday() != weekday:
            d += timedelta(days=1)
    return f"{d.isoformat()}T{time}{'Z' if off == 'Z' else off}"


MON, TUE, WED, THU, FRI, SAT, SUN = range(7)

# ---------------------------------------------------------------- dated events (commit, absolute date)
# (lang, text, created_at, spec, content token)
DATED = [
    (
        "en",
        "Remember that the design review is the day after tomorrow at 10am.",
        at("2026-03-11", "16:00:00", "-05:00"),
        ("d", 2),
        "review",
    ),
    (
        "en",
        "Remember I have a flight to Lisbon tomorrow morning.",
        at("2026-04-02", "21:30:00", "+01:00"),
        ("d", 1),
        "lisbon",
    ),
    (
        "en",
        "Don't let me forget: the quarterly report is due next Friday.",
        at("2026-05-14", "10:00:00", "-07:00", SAT),
        ("coming", FRI),
        "report",
    ),
    (
        "en",
        "Remember that our sprint demo is this Thursday.",
        at("2026-02-09", "09:00:00", "Z", MON),
        ("this_wk", THU),
        "demo",
    ),
    (
        "en",
        "Please remember the contract renewal deadline is in 10 days.",
        at("2026-06-01", "08:00:00", "+09:00"),
        ("d", 10),
        "contract",
    ),
    (
        "en",
        "Remember that I'm giving a talk at the meetup tomorrow evening.",
        at("2026-07-14", "23:30:00", "-04:00"),
        ("d", 1),
        "talk",
    ),
    (
        "en",
        "Note that the office move happens next Monday, please remember it.",
        at("2026-08-06", "12:00:00", "+02:00", SAT),
        ("coming", MON),
        "office",
    ),
    (
        "en",
        "Remember that the kickoff with Acme is in 3 days.",
        at("2026-09-02", "15:00:00", "+05:30"),
        ("d", 3),
        "acme",
    ),
    (
        "en",
        "Remember: my passport renewal appointment is next Wednesday.",
        at("2026-10-08", "11:00:00", "-03:00", SAT),
        ("coming", WED),
        "passport",
    ),
    (
        "en",
        "Please remember that I submitted the grant application yesterday.",
        at("2026-11-03", "09:45:00", "Z"),
        ("d", -1),
        "grant",
    ),
    (
        "en",
        "Remember the team offsite starts the day after tomorrow.",
        at("2026-01-27", "18:00:00", "+00:00"),
        ("d", 2),
        "offsite",
    ),
    (
        "en",
        "Remember that the code freeze is tomorrow at 6pm.",
        at("2026-10-05", "20:00:00", "-08:00"),
        ("d", 1),
        "freeze",
    ),
    (
        "en",
        "Keep in mind that my sister's wedding is two weeks from today.",
        at("2026-05-03", "07:15:00", "+10:00"),
        ("d", 14),
        "wedding",
    ),
    (
        "en",
        "Remember that the invoice for Globex is due this Friday.",
        at("2026-03-23", "14:00:00", "+01:00", TUE),
        ("this_wk", FRI),
        "globex",
    ),
    (
        "en",
        "Remember that the launch party is 明天 evening.",
        at("2026-06-18", "10:00:00", "+08:00"),
        ("d", 1),
        "launch",
    ),
    (
        "en",
        "Remember that I moved my 1:1 with Dana to tomorrow.",
        at("2026-02-17", "22:10:00", "-06:00"),
        ("d", 1),
        "dana",
    ),
    (
        "en",
        "Remember that the lease on my apartment ends in 30 days.",
        at("2026-04-20", "13:00:00", "-04:00"),
        ("d", 30),
        "lease",
    ),
    (
        "en",
        "Remember that I have a job interview with Stripe the day after tomorrow.",
        at("2026-07-29", "01:30:00", "+09:00"),
        ("d", 2),
        "stripe",
    ),
    (
        "en",
        "Remember the vendor call got moved to Monday next week.",
        at("2026-08-20", "16:40:00", "Z", THU),
        ("next_wk", MON),
        "vendor",
    ),
    (
        "en",
        "Remember that the board meeting is on the 15th of next month.",
        at("2026-11-12", "10:00:00", "-05:00"),
        ("mday_next", 15),
        "board",
    ),
    (
        "zh",
        "记一下，我们下周五上线。",
        at("2026-03-04", "10:00:00", "+08:00", WED),
        ("next_wk", FRI),
        "上线",
    ),
    (
        "zh",
        "记住我 next Friday 要去面试。",
        at("2026-04-09", "20:00:00", "+08:00", SAT),
        ("coming", FRI),
        "面试",
    ),
    (
        "zh",
        "帮我记一下，后天下午两点和客户开会。",
        at("2026-05-12", "09:20:00", "+08:00"),
        ("d", 2),
        "客户",
    ),
    (
        "zh",
        "请记住，明天上午十点做设计评审。",
        at("2026-01-20", "00:30:00", "+08:00"),
        ("d", 1),
        "评审",
    ),
    (
        "zh",
        "记住，大后天是我妈妈的生日。",
        at("2026-06-09", "19:00:00", "+08:00"),
        ("d", 3),
        "生日",
    ),
    (
        "zh",
        "帮我记着，下周三交季度报告。",
        at("2026-07-01", "11:00:00", "+08:00", THU),
        ("next_wk", WED),
        "报告",
    ),
    (
        "zh",
        "记一下，这周六搬家。",
        at("2026-08-04", "08:00:00", "+08:00", TUE),
        ("this_wk", SAT),
        "搬家",
    ),
    ("zh", "请记住，3天后合同到期。", at("2026-09-15", "16:00:00", "+08:00"), ("d", 3), "合同"),
    (
        "zh",
        "记住下个月5号要续签租房合同。",
        at("2026-10-21", "21:00:00", "+08:00"),
        ("mday_next", 5),
        "续签",
    ),
    (
        "zh",
        "记一下，这周日晚上八点有团队聚餐。",
        at("2026-11-04", "12:00:00", "+08:00", WED),
        ("this_wk", SUN),
        "聚餐",
    ),
    (
        "zh",
        "帮我记住，下周一开始休年假。",
        at("2026-12-02", "17:30:00", "+08:00", THU),
        ("next_wk", MON),
        "年假",
    ),
    (
        "zh",
        "请记一下，我昨天提交了签证申请。",
        at("2026-02-25", "07:00:00", "+08:00"),
        ("d", -1),
        "签证",
    ),
    (
        "zh",
        "记一下，前天服务器迁移已经完成了。",
        at("2026-03-19", "15:00:00", "+08:00"),
        ("d", -2),
        "迁移",
    ),
    (
        "zh",
        "记住 tomorrow 的 standup 改到下午4点。",
        at("2026-04-27", "23:50:00", "+08:00"),
        ("d", 1),
        "standup",
    ),
    (
        "zh",
        "帮我记一下，下下周二是产品发布会。",
        at("2026-05-20", "10:30:00", "+08:00", WED),
        ("next_next_wk", TUE),
        "发布会",
    ),
    ("zh", "记住，两周后要交论文初稿。", at("2026-06-23", "14:00:00", "+08:00"), ("d", 14), "论文"),
    (
        "zh",
        "请帮我记住：后天是我们的结婚纪念日。",
        at("2026-07-21", "06:30:00", "+08:00"),
        ("d", 2),
        "纪念日",
    ),
    (
        "zh",
        "记一下，下周四飞深圳出差。",
        at("2026-08-25", "13:00:00", "+09:00", TUE),
        ("next_wk", THU),
        "深圳",
    ),
    (
        "zh",
        "记住我们这周五发版本。",
        at("2026-09-22", "10:00:00", "+08:00", TUE),
        ("this_wk", FRI),
        "发版",
    ),
    (
        "zh",
        "帮我记一下，本月28号交房租。",
        at("2026-10-13", "01:00:00", "+08:00"),
        ("mday_this", 28),
        "房租",
    ),
]

# ---------------------------------------------------------------- plain durable facts (commit)
COMMIT = {
    "tool_preference": [
        ("en", "I use PostgreSQL for all my databases.", ["postgres"]),
        ("en", "My default shell is zsh.", ["zsh"]),
        ("en", "I develop on Arch Linux.", ["arch"]),
        ("en", "I run all my side projects on AWS.", ["aws"]),
        ("en", "For web apps I always use Django.", ["django"]),
        ("en", "I prefer SQLite for small tools.", ["sqlite"]),
        ("en", "I use fish as my shell.", ["fish"]),
        ("en", "My laptop runs macOS and that's what I code on.", ["macos"]),
        ("en", "All my infrastructure is on Google Cloud.", ["google cloud"]),
        ("en", "FastAPI is my go-to Python web framework.", ["fastapi"]),
        ("en", "I use MongoDB for most of my projects.", ["mongodb"]),
        ("en", "Please remember that I deploy to Azure.", ["azure"]),
        ("en", "My frontend framework of choice is Svelte.", ["svelte"]),
        ("en", "I write all my scripts for PowerShell.", ["powershell"]),
        ("en", "I work on Windows 11.", ["windows"]),
        ("zh", "我喜欢用 PostgreSQL 做数据库。", ["postgresql"]),
        ("zh", "我平时用 zsh。", ["zsh"]),
        ("zh", "我的开发机是 Ubuntu。", ["ubuntu"]),
        ("zh", "我的项目都部署在阿里云上。", ["阿里云"]),
        ("zh", "我写后端一直用 Spring Boot。", ["spring"]),
        ("zh", "我常用的数据库是 MySQL。", ["mysql"]),
        ("zh", "我习惯用 bash 写脚本。", ["bash"]),
        ("zh", "请记住，我用的是 macOS。", ["macos"]),
        ("zh", "我前端框架只用 Vue。", ["vue"]),
        ("zh", "我的服务器一般用腾讯云。", ["腾讯云"]),
        ("zh", "帮我记一下，我的数据库首选 MongoDB。", ["mongodb"]),
        ("zh", "我用 Windows 做开发。", ["windows"]),
        ("zh", "我习惯用 Flask 写小服务。", ["flask"]),
        ("zh", "我的 shell 是 fish。", ["fish"]),
        ("zh", "我所有的个人项目都跑在 AWS 上。", ["aws"]),
    ],
    "pet_household": [
        ("en", "Remember that my dog is called Biscuit.", ["biscuit"]),
        ("en", "My cat's name is Miso.", ["miso"]),
        ("en", "My wife is named Priya.", ["priya"]),
        ("en", "Remember that my son's name is Leo.", ["leo"]),
        ("en", "We have a parrot named Kiwi.", ["kiwi"]),
        ("en", "My partner's name is Sam.", ["sam"]),
        ("en", "Remember that our golden retriever is Maple.", ["maple"]),
        ("en", "My daughter is called Ines.", ["ines"]),
        ("zh", "记住我家的狗叫豆豆。", ["豆豆"]),
        ("zh", "我家的猫叫年糕。", ["年糕"]),
        ("zh", "我老婆叫林晓。", ["林晓"]),
        ("zh", "请记住，我儿子叫小宇。", ["小宇"]),
        ("zh", "我养了一只仓鼠，叫团子。", ["团子"]),
        ("zh", "我女儿的名字是朵朵。", ["朵朵"]),
        ("zh", "记一下，我家狗狗叫旺财。", ["旺财"]),
        ("zh", "我先生叫陈立。", ["陈立"]),
    ],
    "team_decision": [
        ("en", "Remember that our team decided to use Redis for caching.", ["redis"]),
        ("en", "We decided to go with Kafka for the event bus.", ["kafka"]),
        ("en", "Our team agreed to adopt trunk-based development.", ["trunk"]),
        ("en", "We've decided to use Terraform for all infrastructure.", ["terraform"]),
        ("en", "Note that the team decided on Postgres as our primary database.", ["postgres"]),
        ("en", "We decided to deploy every Tuesday.", ["tuesday"]),
        ("en", "Our team decided that all new services are written in Rust.", ["rust"]),
        ("en", "We settled on GitHub Actions for CI.", ["github actions"]),
        ("en", "The team decided to drop Jenkins and use GitLab CI.", ["gitlab"]),
        ("zh", "记一下，我们组决定用 Redis 做缓存。", ["redis"]),
        ("zh", "我们团队决定后端统一用 Kotlin。", ["kotlin"]),
        ("zh", "我们定了，日志统一用 ELK。", ["elk"]),
        ("zh", "我们组决定每周三发版。", ["周三"]),
        ("zh", "记住，我们决定用 Kubernetes 部署所有服务。", ["kubernetes"]),
        ("zh", "团队已经决定采用 monorepo。", ["monorepo"]),
        ("zh", "我们决定消息队列用 RabbitMQ。", ["rabbitmq"]),
        ("zh", "我们组商量好了，代码评审至少两人通过才能合并。", ["两人"]),
        ("zh", "我们项目决定用 TypeScript 重写前端。", ["typescript"]),
    ],
    "x_not_y": [
        ("en", "I use pnpm, not npm.", ["pnpm"]),
        ("en", "I indent with tabs, not spaces.", ["tab"]),
        ("en", "I use Podman, not Docker.", ["podman"]),
        ("en", "It's Postgres for me, not MySQL.", ["postgres"]),
        ("en", "Use yarn for my projects, not npm.", ["yarn"]),
        ("en", "I write TypeScript, not plain JavaScript.", ["typescript"]),
        ("en", "I'm on Firefox, not Chrome.", ["firefox"]),
        ("en", "I use Emacs, not Vim.", ["emacs"]),
        ("zh", "我用 pnpm，不用 npm。", ["pnpm"]),
        ("zh", "我用 yarn，别给我用 npm。", ["yarn"]),
        ("zh", "我习惯用空格缩进，不是 tab。", ["空格"]),
        ("zh", "我用的是 GitLab，不是 GitHub。", ["gitlab"]),
        ("zh", "数据库我用 MySQL，不用 Oracle。", ["mysql"]),
        ("zh", "我用 Podman 而不是 Docker。", ["podman"]),
        ("zh", "我是用 bun 的，不是 npm。", ["bun"]),
        ("zh", "浏览器我用 Chrome，不用 Safari。", ["chrome"]),
    ],
    "language_variant": [
        ("en", "Please reply in British English.", ["brit", "english"]),
        ("en", "Reply to me in Brazilian Portuguese.", ["portuguese", "brazil"]),
        ("en", "Please answer in Portuguese from now on.", ["portuguese"]),
        ("en", "I'd like your responses in Canadian French.", ["french", "canad"]),
        ("en", "Use Mexican Spanish when you reply to me.", ["spanish", "mexic"]),
        ("en", "Please always respond in Traditional Chinese.", ["chinese", "tradition"]),
        ("en", "Always answer me in Vietnamese.", ["vietnam"]),
        ("en", "Please write to me in Dutch.", ["dutch"]),
        ("zh", "以后请用繁體中文回复我。", ["繁"]),
        ("zh", "请用巴西葡萄牙语回复我。", ["葡萄牙", "巴西"]),
        ("zh", "回复我的时候请用粤语。", ["粤"]),
        ("zh", "以后用英式英语回答我。", ["英式"]),
        ("zh", "请用葡萄牙语跟我交流。", ["葡萄牙"]),
        ("zh", "以后请用越南语回复。", ["越南"]),
        ("zh", "以后都用简体中文回复我。", ["简体"]),
        ("zh", "请一直用德语回答我。", ["德语"]),
    ],
}

# ---------------------------------------------------------------- sensitive diet/allergy (not_auto)
DIET = [
    ("en", "I'm allergic to peanuts."),
    ("en", "Please remember I'm vegetarian."),
    ("en", "I don't eat pork."),
    ("en", "Remember that I'm lactose intolerant."),
    ("en", "I have a shellfish allergy."),
    ("en", "I'm vegan, remember that."),
    ("en", "I keep kosher."),
    ("zh", "请记住，我不吃辣。"),
    ("zh", "我对花生过敏。"),
    ("zh", "我吃素。"),
    ("zh", "记住我乳糖不耐受。"),
    ("zh", "我对海鲜过敏。"),
    ("zh", "我不吃牛肉。"),
    ("zh", "帮我记一下，我对青霉素过敏。"),
]

# ---------------------------------------------------------------- controls (must not commit durably)
# (lang, text, outcome, recall_excludes tokens, subtype)
CONTROLS = [
    ("en", "Just for this script, use bash instead.", "no_durable", [], "one_time"),
    ("en", "For this one task, reply in Spanish.", "no_durable", [], "one_time"),
    ("en", "Use npm this time, only for the hotfix.", "no_durable", [], "one_time"),
    ("en", "Today only, let's use MySQL for the demo.", "no_durable", [], "one_time"),
    ("en", "If I ever adopt a dog, I'd call it Rex.", "no_commit", ["rex"], "hypothetical"),
    ("en", "If we moved to Kafka, it would take months.", "no_commit", ["kafka"], "hypothetical"),
    (
        "en",
        "Suppose the launch slipped to next Friday, would we be ready?",
        "no_commit",
        ["launch"],
        "hypothetical",
    ),
    (
        "en",
        "If I moved to Lisbon, I'd want replies in Portuguese.",
        "no_commit",
        ["portuguese", "lisbon"],
        "hypothetical",
    ),
    ("en", "Should I switch my shell to fish?", "no_commit", ["fish"], "question"),
    (
        "en",
        "Is PostgreSQL better than MySQL for analytics?",
        "no_commit",
        ["postgres", "mysql"],
        "question",
    ),
    (
        "en",
        "Do you think our team should use Redis for caching?",
        "no_commit",
        ["redis"],
        "question",
    ),
    ("en", "Is the design review tomorrow?", "no_commit", ["review"], "question"),
    ("en", "What's a good name for a cat?", "no_commit", [], "question"),
    ("en", "My colleague uses pnpm, not npm.", "no_commit", ["pnpm"], "reported"),
    ("en", "My manager's dog is called Rocky.", "no_commit", ["rocky"], "reported"),
    ("en", "My friend is allergic to peanuts.", "no_commit", ["peanut"], "reported"),
    (
        "en",
        "Dana said the other team decided to use MongoDB.",
        "no_commit",
        ["mongodb"],
        "reported",
    ),
    ("en", "My brother has his interview next Friday.", "no_commit", ["interview"], "reported"),
    ("en", "The design review is tomorrow at 10am.", "no_durable", [], "dated_no_request"),
    ("en", "I have a call with the bank on Thursday.", "no_durable", [], "dated_no_request"),
    ("en", "Maybe we'll use Terraform at some point.", "no_commit", ["terraform"], "uncertain"),
    ("en", "I might try Arch Linux one day.", "no_commit", ["arch"], "uncertain"),
    ("en", "I'm thinking about learning Rust.", "no_commit", ["rust"], "uncertain"),
    ("en", "Oh sure, I just love debugging YAML all day.", "no_commit", ["yaml"], "sarcasm"),
    ("en", "What if we used Svelte instead?", "no_commit", ["svelte"], "question"),
    ("zh", "这次先用 yarn。", "no_durable", [], "one_time"),
    ("zh", "就这一次，用英文回复我。", "no_durable", [], "one_time"),
    ("zh", "今天临时用一下 MySQL。", "no_durable", [], "one_time"),
    ("zh", "本次演示先部署到 AWS。", "no_durable", [], "one_time"),
    ("zh", "如果我以后养狗，就叫它大黄。", "no_commit", ["大黄"], "hypothetical"),
    ("zh", "要是我们改用 Kafka，得重写很多代码。", "no_commit", ["kafka"], "hypothetical"),
    ("zh", "假如下周五上线，来得及吗？", "no_commit", ["上线"], "hypothetical"),
    ("zh", "如果我搬到巴西，可能会学葡萄牙语。", "no_commit", ["葡萄牙", "巴西"], "hypothetical"),
    ("zh", "我是不是应该把 shell 换成 fish？", "no_commit", ["fish"], "question"),
    (
        "zh",
        "PostgreSQL 和 MySQL 哪个更适合做分析？",
        "no_commit",
        ["postgres", "mysql"],
        "question",
    ),
    ("zh", "我们组要不要用 Redis 做缓存？", "no_commit", ["redis"], "question"),
    ("zh", "设计评审是明天吗？", "no_commit", ["评审"], "question"),
    ("zh", "给猫取什么名字好？", "no_commit", [], "question"),
    ("zh", "我同事用 pnpm，不用 npm。", "no_commit", ["pnpm"], "reported"),
    ("zh", "我领导家的狗叫旺旺。", "no_commit", ["旺旺"], "reported"),
    ("zh", "我朋友对花生过敏。", "no_commit", ["花生"], "reported"),
    ("zh", "小李说隔壁组决定用 MongoDB。", "no_commit", ["mongodb"], "reported"),
    ("zh", "我哥下周五要去面试。", "no_commit", ["面试"], "reported"),
    ("zh", "明天上午十点设计评审。", "no_durable", [], "dated_no_request"),
    ("zh", "周四我要和银行通个电话。", "no_durable", [], "dated_no_request"),
    ("zh", "我们以后可能会用 Terraform。", "no_commit", ["terraform"], "uncertain"),
    ("zh", "我也许哪天会试试 Arch Linux。", "no_commit", ["arch"], "uncertain"),
    ("zh", "我在考虑要不要学 Rust。", "no_commit", ["rust"], "uncertain"),
    ("zh", "呵呵，我可太喜欢天天调 YAML 了。", "no_commit", ["yaml"], "sarcasm"),
    ("zh", "要不我们试试 Svelte？", "no_commit", ["svelte"], "question"),
]

EN_OFFSETS = [
    "Z",
    "-05:00",
    "+01:00",
    "-08:00",
    "+05:30",
    "+09:00",
    "+02:00",
    "-03:00",
    "+00:00",
    "-07:00",
]
ZH_OFFSETS = ["+08:00"] * 5 + ["+09:00"]


class Stamp:
    """Increasing 2026 timestamps for undated cases, offsets cycling per language."""

    def __init__(self):
        self.t = datetime(2026, 1, 6, 9, 0)
        self.n = {"en": 0, "zh": 0}

    def next(self, lang):
        self.t += timedelta(hours=37, minutes=13)
        offs = EN_OFFSETS if lang == "en" else ZH_OFFSETS
        off = offs[self.n[lang] % len(offs)]
        self.n[lang] += 1
        return self.t.strftime("%Y-%m-%dT%H:%M:%S") + off


def case(cat, lang, num, text, created_at, expect_fn):
    cid = f"b15-{cat}-{lang}-{num:03d}"
    mid = f"{cid}-m1"
    return {
        "id": cid,
        "category": cat,
        "lang": lang,
        "tenant_id": TENANT,
        "subject_id": f"subj-{cid}",
        "steps": [
            {
                "turn": {
                    "message_id": mid,
                    "session_id": f"{cid}-s1",
                    "role": "user",
                    "source": "user_message",
                    "text": text,
                    "created_at": created_at,
                }
            }
        ],
        "expect": expect_fn(mid),
    }


def build():
    cases = []
    counters = {}

    def num(cat, lang):
        counters[(cat, lang)] = counters.get((cat, lang), 0) + 1
        return counters[(cat, lang)]

    for lang, text, ts, spec, tok in DATED:
        iso = resolve(ts, spec)
        cases.append(
            case(
                "dated_event",
                lang,
                num("dated_event", lang),
                text,
                ts,
                lambda m, iso=iso, tok=tok: [
                    {"message_id": m, "outcome": "commit", "value_has": [iso, tok]}
                ],
            )
        )
    st = Stamp()
    for cat, rows in COMMIT.items():
        for lang, text, toks in rows:
            cases.append(
                case(
                    cat,
                    lang,
                    num(cat, lang),
                    text,
                    st.next(lang),
                    lambda m, toks=toks: [
                        {"message_id": m, "outcome": "commit", "value_has": toks}
                    ],
                )
            )
    for lang, text in DIET:
        cases.append(
            case(
                "diet_allergy",
                lang,
                num("diet_allergy", lang),
                text,
                st.next(lang),
                lambda m: [{"message_id": m, "outcome": "not_auto"}],
            )
        )
    for lang, text, outcome, excl, _sub in CONTROLS:

        def exp(m, outcome=outcome, excl=excl):
            e = [{"message_id": m, "outcome": outcome}]
            if excl:
                e.append({"recall_excludes": excl})
            return e

        cases.append(
            case(
                "control_not_durable",
                lang,
                num("control_not_durable", lang),
                text,
                st.next(lang),
                exp,
            )
        )
    return cases


if __name__ == "__main__":
    cases = build()
    with OUT.open("w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    from collections import Counter

    cnt = Counter((c["category"], c["lang"]) for c in cases)
    for k in sorted(cnt):
        print(k, cnt[k])
    print("total", len(cases), Counter(c["lang"] for c in cases))
