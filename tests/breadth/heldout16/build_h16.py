#!/usr/bin/env python3
"""Generate /work/blind2/h16.jsonl: a blind SPEC §13 v1 set for issue 15 (tenant h16).

Written without reading memwarden's code. Edit the tables below, rerun, then run
validate.py.  Absolute dates of dated events are computed here from each turn's own
created_at offset (the writer's local calendar day, never UTC).

Relative-time conventions (see README.md):
  days N            created local date + N (tomorrow = 1, day after tomorrow/后天 = 2,
                    大后天/in three days = 3, a week from tomorrow = 8, two weeks = 14,
                    today/今天 = 0, yesterday/昨天 = -1, the day before yesterday/前天 = -2)
  this WD / 这周X    weekday WD of the current Monday-start week; only used when WD is
                    strictly after the writing day
  next WD (English) only used on a Saturday, where "the coming WD" and "WD of next
                    week" are the same day
  下周X             weekday X of the next Monday-start week; never written on a Sunday
  下下周X           the week after that
  next-month day D  day D of the following calendar month
  this-month day D  day D of the current month, only when D is after today
"""

import datetime as dt
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "h16.jsonl")
META = os.path.join(HERE, "h16_meta.json")
TENANT = "h16"
WD = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}


def local_date(created_at):
    return dt.datetime.fromisoformat(created_at.replace("Z", "+00:00")).date()


def resolve(created_at, rel):
    d = local_date(created_at)
    kind = rel[0]
    if kind == "days":
        return d + dt.timedelta(days=rel[1])
    if kind in ("this", "zhezhou"):
        wd = WD[rel[1]]
        assert wd > d.weekday(), (created_at, rel, "this-week weekday must be ahead")
        return d + dt.timedelta(days=wd - d.weekday())
    if kind == "next":  # English "next <weekday>": only on Saturdays
        assert d.weekday() == 5, (created_at, rel, "English next <wd> only on Saturday")
        return d + dt.timedelta(days=2 + WD[rel[1]])
    if kind in ("xiazhou", "xiaxiazhou"):
        assert d.weekday() != 6, (created_at, rel, "下周X never on a Sunday")
        monday = d - dt.timedelta(days=d.weekday()) + dt.timedelta(days=7)
        if kind == "xiaxiazhou":
            monday += dt.timedelta(days=7)
        return monday + dt.timedelta(days=WD[rel[1]])
    if kind == "next_month_day":
        y, m = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
        return dt.date(y, m, rel[1])
    if kind == "this_month_day":
        assert rel[1] > d.day, (created_at, rel)
        return dt.date(d.year, d.month, rel[1])
    raise ValueError(rel)


# ---------------------------------------------------------------- dated events
# (text, created_at, rel, content token, mixed)
DATED = {
    "en": [
        (
            "Heads up: the plumber is coming tomorrow at 9am, please remember that.",
            "2026-01-07T22:15:00-06:00",
            ("days", 1),
            "plumber",
            False,
        ),
        (
            "Make a note that my passport renewal appointment is the day after tomorrow.",
            "2026-02-03T08:00:00+05:30",
            ("days", 2),
            "passport",
            False,
        ),
        (
            "Keep in mind that the board meeting got pushed to this Wednesday.",
            "2026-03-09T18:00:00Z",
            ("this", "wed"),
            "board",
            False,
        ),
        (
            "Remember: I'm giving a talk at the Python meetup next Thursday.",
            "2026-01-17T11:00:00-08:00",
            ("next", "thu"),
            "meetup",
            False,
        ),
        (
            "Please remember that our lease inspection is in 5 days.",
            "2026-04-20T07:30:00+02:00",
            ("days", 5),
            "inspection",
            False,
        ),
        (
            "Don't forget that the team dinner is two weeks from today.",
            "2026-05-04T19:00:00+01:00",
            ("days", 14),
            "dinner",
            False,
        ),
        (
            "Note this down for me: the API freeze starts a week from tomorrow.",
            "2026-06-10T09:45:00-04:00",
            ("days", 8),
            "freeze",
            False,
        ),
        (
            "Remember that I started the new job today.",
            "2026-06-30T23:50:00-07:00",
            ("days", 0),
            "job",
            False,
        ),
        (
            "Remember that I submitted the visa application yesterday.",
            "2026-03-01T00:20:00+09:00",
            ("days", -1),
            "visa",
            False,
        ),
        (
            "Quick one before I log off. Please keep track of this: the invoice for Acme is due this Friday.",
            "2026-07-14T14:00:00+00:00",
            ("this", "fri"),
            "invoice",
            False,
        ),
        (
            "Remember the hackathon kicks off in three days.",
            "2026-08-29T21:00:00-05:00",
            ("days", 3),
            "hackathon",
            False,
        ),
        (
            "I need you to remember that the conference in Porto starts on the 14th of next month.",
            "2026-09-23T10:00:00+01:00",
            ("next_month_day", 14),
            "porto",
            False,
        ),
        (
            "Don't let me forget that the car service is booked for tomorrow morning.",
            "2026-10-26T06:30:00+11:00",
            ("days", 1),
            "car",
            False,
        ),
        (
            "Remember that the quarterly planning offsite is the day after tomorrow.",
            "2026-10-31T23:00:00+10:00",
            ("days", 2),
            "offsite",
            False,
        ),
        (
            "Save this for later: my library books are due back in 9 days.",
            "2026-11-25T16:20:00-03:00",
            ("days", 9),
            "library",
            False,
        ),
        (
            "Please remember that the kitchen renovation starts next Monday.",
            "2026-08-22T09:00:00+03:00",
            ("next", "mon"),
            "kitchen",
            False,
        ),
        (
            "Remember I paid the electricity bill the day before yesterday.",
            "2026-02-02T01:15:00+08:00",
            ("days", -2),
            "electricity",
            False,
        ),
        (
            "So the security audit is this Thursday, remember that for me.",
            "2026-11-16T08:00:00-06:00",
            ("this", "thu"),
            "audit",
            False,
        ),
        (
            "Please remember my Chinese class is 后天 at 7pm.",
            "2026-04-09T20:00:00-07:00",
            ("days", 2),
            "chinese",
            True,
        ),
        (
            "Keep a note that the release candidate goes out tomorrow evening.",
            "2026-12-31T20:00:00-03:00",
            ("days", 1),
            "release",
            False,
        ),
    ],
    "zh": [
        (
            "帮我记着，明天下午三点要去银行办卡。",
            "2026-01-15T06:30:00+08:00",
            ("days", 1),
            "银行",
            False,
        ),
        (
            "记一下，后天上午十点开季度复盘会。",
            "2026-03-18T20:00:00+08:00",
            ("days", 2),
            "复盘",
            False,
        ),
        ("别忘了，大后天要交物业费。", "2026-04-29T09:00:00+08:00", ("days", 3), "物业费", False),
        (
            "请记住：下周三是公司年会。",
            "2026-01-22T15:00:00+08:00",
            ("xiazhou", "wed"),
            "年会",
            False,
        ),
        (
            "记住，这周五晚上团队聚餐。",
            "2026-06-15T10:00:00+08:00",
            ("zhezhou", "fri"),
            "聚餐",
            False,
        ),
        (
            "帮我记一下，三天后考驾照科目二。",
            "2026-07-30T22:00:00+08:00",
            ("days", 3),
            "驾照",
            False,
        ),
        ("记着点，两周后房贷要还款。", "2026-02-20T08:00:00+09:00", ("days", 14), "房贷", False),
        (
            "帮我记住，下个月10号是交稿的截止日。",
            "2026-11-27T07:30:00+08:00",
            ("next_month_day", 10),
            "交稿",
            False,
        ),
        (
            "记一下，昨天已经把报销单交上去了。",
            "2026-04-01T07:10:00+08:00",
            ("days", -1),
            "报销",
            False,
        ),
        (
            "哎，差点忘了。请记住，前天我换了新的门禁卡。",
            "2026-05-12T19:00:00+08:00",
            ("days", -2),
            "门禁卡",
            False,
        ),
        ("记住今天是我入职的第一天。", "2026-09-01T01:30:00+08:00", ("days", 0), "入职", False),
        (
            "帮我记下来，下下周一要交年度预算。",
            "2026-10-14T11:00:00+08:00",
            ("xiaxiazhou", "mon"),
            "预算",
            False,
        ),
        (
            "别忘了，这周日上午要去机场接人。",
            "2026-12-09T21:00:00+08:00",
            ("zhezhou", "sun"),
            "机场",
            False,
        ),
        (
            "记一下，demo day 是 next Wednesday。",
            "2026-10-10T16:00:00+08:00",
            ("next", "wed"),
            "demo",
            True,
        ),
        (
            "帮我记住，the offsite 定在后天。",
            "2026-02-26T23:30:00-05:00",
            ("days", 2),
            "offsite",
            True,
        ),
        (
            "别忘了 tomorrow 早上九点跟客户开 sync 会。",
            "2026-08-05T08:00:00+08:00",
            ("days", 1),
            "客户",
            True,
        ),
        (
            "记着，我们的 v2.3 release 在 5 天后。",
            "2026-06-28T12:00:00+08:00",
            ("days", 5),
            "release",
            True,
        ),
        (
            "请记一下，下周一 code freeze。",
            "2026-09-16T14:00:00+08:00",
            ("xiazhou", "mon"),
            "freeze",
            True,
        ),
        (
            "记住，本月20号要续签租房合同。",
            "2026-03-05T09:30:00+08:00",
            ("this_month_day", 20),
            "合同",
            False,
        ),
        (
            "帮我记着：一周后要去车管所年检。",
            "2026-12-28T10:00:00+08:00",
            ("days", 7),
            "年检",
            False,
        ),
    ],
}

# ------------------------------------------------- plain commit categories
# (text, value_has tokens, mixed)
COMMIT = {
    "tool_preference": {
        "en": [
            ("For anything relational I reach for PostgreSQL.", ["postgresql"]),
            ("My go-to database is MariaDB.", ["mariadb"]),
            ("I always use SQLite for my side projects, remember that.", ["sqlite"]),
            ("I build all my web backends with FastAPI.", ["fastapi"]),
            ("On the frontend I'm a Svelte person.", ["svelte"]),
            ("Remember that my framework of choice is Ruby on Rails.", ["rails"]),
            ("My daily driver is Fedora.", ["fedora"]),
            ("I work on macOS exclusively.", ["macos"]),
            ("Long story short, I settled on Arch Linux as my main OS.", ["arch"]),
            ("I spend all day in the fish shell.", ["fish"]),
            ("My shell is zsh with oh-my-zsh, keep that in mind.", ["zsh"]),
            ("Thanks for the help earlier! I do all my scripting in PowerShell.", ["powershell"]),
            ("I host all my stuff on Google Cloud.", ["google"]),
            ("My cloud provider is Azure.", ["azure"]),
            ("Please remember that I deploy to AWS.", ["aws"]),
        ],
        "zh": [
            ("我平时数据库都用 MySQL。", ["mysql"]),
            ("记住，我做项目首选 MongoDB。", ["mongodb"]),
            ("我一直用 ClickHouse 做分析型数据库。", ["clickhouse"]),
            ("后端框架我习惯用 Spring Boot。", ["spring"]),
            ("我写前端一般用 React。", ["react"]),
            ("帮我记一下，我的 Python Web 框架是 Django。", ["django"]),
            ("我的电脑系统是 Ubuntu。", ["ubuntu"]),
            ("我日常用 Windows 11 办公。", ["windows"]),
            ("记住我用的操作系统是 Linux Mint。", ["mint"]),
            ("我习惯用 bash 写脚本。", ["bash"]),
            ("命令行我一直用 Nushell。", ["nushell"]),
            ("记着，我的默认 shell 是 fish。", ["fish"]),
            ("我的服务都部署在阿里云上。", ["阿里云"]),
            ("说真的，腾讯云我用了好几年了，一直很顺手。我的云平台就是腾讯云。", ["腾讯云"]),
            ("记住，我个人项目都放在 Cloudflare 上。", ["cloudflare"]),
        ],
    },
    "pet_household": {
        "en": [
            ("My cat's name is Biscuit.", ["biscuit"]),
            ("We have a golden retriever called Maple, please remember.", ["maple"]),
            ("Remember that my parrot is named Kiwi.", ["kiwi"]),
            ("Our hamster goes by Peanut.", ["peanut"]),
            ("My partner's name is Daniel, by the way.", ["daniel"]),
            ("Remember that my daughter is called Iris.", ["iris"]),
            ("The two goldfish on my desk are Salt and Pepper.", ["salt", "pepper"]),
            ("My roommate is Priya, remember that.", ["priya"]),
        ],
        "zh": [
            ("我家猫叫年糕。", ["年糕"]),
            ("记住，我养的那只柯基叫土豆。", ["土豆"]),
            ("帮我记一下，我家鹦鹉名字叫阿福。", ["阿福"]),
            ("我们家的兔子叫雪球。", ["雪球"]),
            ("我老婆叫林晓，记一下。", ["林晓"]),
            ("记住我儿子的小名叫乐乐。", ["乐乐"]),
            ("我家两只狗，一只叫可乐一只叫雪碧。", ["可乐", "雪碧"]),
            ("我的猫叫 Luna，记住哦。", ["luna"], True),
        ],
    },
    "team_decision": {
        "en": [
            ("We agreed in standup to move the CI to GitHub Actions.", ["github"]),
            ("The team decided to freeze the public API until v3.", ["freeze"]),
            ("Our team has decided that all services will log in JSON.", ["json"]),
            (
                "Final call from the architecture meeting: we're going with gRPC between services.",
                ["grpc"],
            ),
            ("We settled on trunk-based development for this repo.", ["trunk"]),
            ("Decision made: code reviews need two approvals from now on.", ["approvals"]),
            ("Please remember we decided to use Terraform for infrastructure.", ["terraform"]),
            ("After a long debate we chose Kotlin for the new Android app.", ["kotlin"]),
            ("We've decided to drop support for Python 3.8.", ["3.8"]),
        ],
        "zh": [
            ("我们团队决定统一用 Go 写微服务。", ["go", "微服务"]),
            ("组里定下来了，以后每周四下午发版。", ["发版"]),
            ("记一下，我们决定把日志系统迁到 Loki。", ["loki"]),
            ("开会讨论后，我们选了 Kafka 做消息队列。", ["kafka"]),
            ("团队已经决定，前端统一用 TypeScript。", ["typescript"]),
            ("我们部门决定下季度起实行双周迭代。", ["双周"]),
            ("帮我记住，我们定了用 Jira 管需求。", ["jira"]),
            ("我们组决定以后代码评审至少两人通过才能合并。", ["评审"]),
            ("我们 team 决定 API 文档都用 OpenAPI 写。", ["openapi"], True),
        ],
    },
    "x_not_y": {
        "en": [
            ("I'm a yarn person, not npm.", ["yarn"]),
            ("Vim, not Emacs, is my editor.", ["vim"]),
            ("I prefer light mode, not dark.", ["light"]),
            ("I code in VS Code rather than IntelliJ.", ["vs code"]),
            ("For databases I use Postgres, not MySQL.", ["postgres"]),
            ("Please remember: bun, not pnpm, for my projects.", ["bun"]),
            ("I deploy on Azure instead of AWS.", ["azure"]),
            ("My shell is zsh and not bash.", ["zsh"]),
        ],
        "zh": [
            ("我装包用 yarn，不用 npm。", ["yarn"]),
            ("编辑器我用 Neovim，不是 VS Code。", ["neovim"]),
            ("我喜欢浅色主题，不要深色的。", ["light"]),
            ("数据库我选 PostgreSQL 而不是 Oracle。", ["postgresql"]),
            ("我用 Linux，不用 Windows。", ["linux"]),
            ("云服务我用 AWS，不是阿里云。", ["aws"]),
            ("前端框架我用 Vue，而不是 React。", ["vue"]),
            ("记住我用 fish 而不是 zsh。", ["fish"]),
        ],
    },
    "language_variant": {
        "en": [
            ("Please reply in Australian English from now on.", ["english", "austral"]),
            ("Please answer me in Argentinian Spanish from here on.", ["spanish", "argentin"]),
            ("My preferred language is Swiss German.", ["german", "swi"]),
            ("Respond in Korean going forward.", ["korean"]),
            ("I'd rather you talk to me in Polish.", ["polish"]),
            ("Please use Ukrainian when you answer me.", ["ukrain"]),
            ("Please always reply in Belgian French.", ["french", "belgi"]),
            ("From now on, answer in Swahili.", ["swahili"]),
        ],
        "zh": [
            ("以后请用韩语回复我。", ["韩"]),
            ("我希望你一直用美式英语回答。", ["英", "美"]),
            ("以后跟我交流都用日语。", ["日"]),
            ("记住，我的语言偏好是瑞士德语。", ["德", "瑞士"]),
            ("请一直用意大利语回复我。", ["意大利"]),
            ("我的首选语言是阿拉伯语。", ["阿拉伯"]),
            ("以后都用泰语和我交流。", ["泰"]),
            ("我平时说简体中文，请用简体中文回复。", ["简体"]),
        ],
    },
}

# diet / allergy: sensitive, must not auto-commit
DIET = {
    "en": [
        "I'm allergic to shellfish.",
        "Please remember I don't eat pork.",
        "I keep kosher.",
        "I'm pescatarian, remember that.",
        "Tree nuts give me a bad reaction, so I avoid them completely.",
        "I don't drink alcohol at all.",
        "Heads up for any recipe suggestions: I'm gluten-intolerant.",
    ],
    "zh": [
        "我对芒果过敏。",
        "记住，我不吃牛肉。",
        "我是素食者，蛋奶也不吃。",
        "我只吃清真食品。",
        "帮我记一下，我花生过敏。",
        "我不能喝牛奶，一喝就拉肚子。",
        "我不吃香菜，记一下。",
    ],
}

# controls: (subtype, text, exclude-token or None, mixed)
# subtypes one_time / dated_no_request -> no_durable; others -> no_commit + recall_excludes
CONTROLS = {
    "en": [
        ("one_time", "Just for this reply, answer in German.", None),
        ("one_time", "For now, use npm so we can debug the lockfile.", None),
        ("one_time", "This time only, skip the summary at the end.", None),
        ("one_time", "Use dark mode screenshots for this doc, just this once.", None),
        ("one_time", "Let's use MySQL for today's prototype only.", None),
        ("hypothetical", "If I ever got a dog, I'd call him Waffles.", "waffles"),
        (
            "hypothetical",
            "Suppose we moved everything to Oracle Cloud; the bill would probably double.",
            "oracle",
        ),
        ("hypothetical", "If I were a Windows user I'd probably love Chocolatey.", "chocolatey"),
        ("hypothetical", "In a world where I had free time, I'd learn Haskell.", "haskell"),
        ("question", "Should I switch my laptop to NixOS?", "nixos"),
        ("question", "Do you think Redis is a good fit for our session store?", "redis"),
        ("question", "What's the difference between tcsh and ksh?", "tcsh"),
        ("question", "Is it worth learning SolidJS this year?", "solidjs"),
        ("reported", "My manager uses Emacs for everything.", "emacs"),
        ("reported", "Tom said his cat is called Pixel.", "pixel"),
        ("reported", "My sister only reads novels in Portuguese.", "portuguese"),
        ("reported", "A colleague of mine swears by DynamoDB.", "dynamodb"),
        ("uncertain", "I might move to DigitalOcean next year, not sure yet.", "digitalocean"),
        ("uncertain", "Maybe I'll try Gentoo at some point.", "gentoo"),
        ("uncertain", "I'm thinking about getting a rabbit, possibly named Clover.", "clover"),
        ("sarcasm", "Oh great, another Jenkins outage, I just love Jenkins so much.", "jenkins"),
        ("sarcasm", "Yeah right, because everyone enjoys writing XML configs by hand.", "xml"),
        ("dated_no_request", "The fire drill is tomorrow at 11.", None),
        ("dated_no_request", "I had a long call with the vendor yesterday.", None),
        ("dated_no_request", "Our sprint ends next Friday.", None),
    ],
    "zh": [
        ("one_time", "这次先用英文回答我。", None),
        ("one_time", "本次部署暂时用 Docker Compose。", None),
        ("one_time", "先用 npm 跑一下看看。", None),
        ("one_time", "暂时切到浅色主题截个图。", None),
        ("one_time", "这次 reply in English 就行。", None, True),
        ("hypothetical", "如果我养猫的话，我会叫它馒头。", "馒头"),
        ("hypothetical", "假如公司换成 Azure，我们的成本会翻倍。", "azure"),
        ("hypothetical", "要是我会写 Rust 就好了。", "rust"),
        ("hypothetical", "万一以后要用 Oracle，我得重新学 SQL 方言。", "oracle"),
        ("question", "我应该用 CouchDB 还是 Cassandra？", "couchdb"),
        ("question", "你觉得 Deno 值得学吗？", "deno"),
        ("question", "fish 和 zsh 哪个更适合新手？", "fish"),
        ("question", "下周二我们要不要开个会？", "开个会"),
        ("reported", "我同事说他家狗叫旺财。", "旺财"),
        ("reported", "我老板一直用 Windows。", "windows"),
        ("reported", "听说隔壁组决定用 Rust 重写网关。", "网关"),
        ("reported", "我朋友只吃素。", "素"),
        ("uncertain", "我可能明年会换 Mac 吧。", "mac"),
        ("uncertain", "说不定以后会改用 Angular。", "angular"),
        ("uncertain", "我在考虑要不要养只仓鼠。", "仓鼠"),
        ("sarcasm", "呵呵，我可太喜欢周末加班修 bug 了。", "加班"),
        ("sarcasm", "真棒，又是一个要手动部署的项目，我爱死了。", "手动部署"),
        ("dated_no_request", "明天下午有个技术分享。", None),
        ("dated_no_request", "我昨天把 VPN 配好了。", None),
        ("dated_no_request", "下周四季度述职。", None),
    ],
}

# pet_household cases that name a person (partner, child, roommate) rather than a pet:
# labelled commit per issue 15 ("pets and household names as profile.note"), but SPEC
# §5.6 lists "facts about a third person" as sensitive content, so they are tagged in
# h16_meta.json to be reported separately.
HOUSEHOLD_PERSON = {
    "h16-pet_household-en-005",
    "h16-pet_household-en-006",
    "h16-pet_household-en-008",
    "h16-pet_household-zh-005",
    "h16-pet_household-zh-006",
}

EN_OFFSETS = [
    "Z",
    "+00:00",
    "-08:00",
    "-05:00",
    "+01:00",
    "+02:00",
    "+05:30",
    "+09:00",
    "+10:00",
    "-03:00",
    "-07:00",
    "+12:00",
]
ZH_OFFSETS = ["+08:00"] * 5 + ["+09:00", "-07:00", "+08:00", "+01:00"]
# a few non-dated turns are also placed across the local/UTC midnight
EN_TIMES = ["09:30:00", "14:05:00", "23:40:00", "07:15:00", "18:20:00", "00:25:00", "11:00:00"]
ZH_TIMES = ["10:10:00", "21:30:00", "06:45:00", "15:00:00", "00:40:00", "19:05:00", "08:20:00"]


def created_for(lang, n):
    """Deterministic created_at for non-dated cases (n = running index)."""
    day = dt.date(2026, 1, 2) + dt.timedelta(days=(n * 37) % 360)
    offs, times = (EN_OFFSETS, EN_TIMES) if lang == "en" else (ZH_OFFSETS, ZH_TIMES)
    off = offs[n % len(offs)]
    return f"{day.isoformat()}T{times[n % len(times)]}{off}"


def case(cid, category, lang, text, created_at, expect):
    mid = f"{cid}-m1"
    return {
        "id": cid,
        "category": category,
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
        "expect": [dict(message_id=mid, **e) for e in expect],
    }


def build():
    cases, meta = [], {}
    run = {"en": 0, "zh": 0}
    for lang in ("en", "zh"):
        for i, (text, created, rel, word, mixed) in enumerate(DATED[lang], 1):
            cid = f"h16-dated_event-{lang}-{i:03d}"
            date = resolve(created, rel).isoformat()
            cases.append(
                case(
                    cid,
                    "dated_event",
                    lang,
                    text,
                    created,
                    [{"outcome": "commit", "value_has": [date, word]}],
                )
            )
            meta[cid] = {"subtype": rel[0], "rel": list(rel), "date": date, "mixed": mixed}
        for cat, per_lang in COMMIT.items():
            for i, row in enumerate(per_lang[lang], 1):
                text, toks = row[0], row[1]
                mixed = row[2] if len(row) > 2 else False
                cid = f"h16-{cat}-{lang}-{i:03d}"
                run[lang] += 1
                cases.append(
                    case(
                        cid,
                        cat,
                        lang,
                        text,
                        created_for(lang, run[lang]),
                        [{"outcome": "commit", "value_has": toks}],
                    )
                )
                sub = "household_person" if cid in HOUSEHOLD_PERSON else cat
                meta[cid] = {"subtype": sub, "mixed": mixed}
        for i, text in enumerate(DIET[lang], 1):
            cid = f"h16-diet_allergy-{lang}-{i:03d}"
            run[lang] += 1
            cases.append(
                case(
                    cid,
                    "diet_allergy",
                    lang,
                    text,
                    created_for(lang, run[lang]),
                    [{"outcome": "not_auto"}],
                )
            )
            meta[cid] = {"subtype": "diet_allergy", "mixed": False}
        for i, row in enumerate(CONTROLS[lang], 1):
            sub, text, excl = row[0], row[1], row[2]
            mixed = row[3] if len(row) > 3 else False
            cid = f"h16-control_not_durable-{lang}-{i:03d}"
            run[lang] += 1
            created = created_for(lang, run[lang])
            if sub == "dated_no_request" and "next Friday" in text:
                created = "2026-06-20T10:00:00-04:00"  # a Saturday (English next <wd> rule)
            if sub in ("one_time", "dated_no_request"):
                exp = [{"outcome": "no_durable"}]
            else:
                exp = [{"outcome": "no_commit"}, {"recall_excludes": [excl]}]
            c = case(cid, "control_not_durable", lang, text, created, exp)
            # recall_excludes is not tied to a message
            c["expect"] = [
                e if "outcome" in e else {"recall_excludes": e["recall_excludes"]}
                for e in c["expect"]
            ]
            cases.append(c)
            meta[cid] = {"subtype": sub, "mixed": mixed}
    with open(OUT, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    with open(META, "w", encoding="utf-8") as f:
        json.dump(meta, f, ensure_ascii=False, indent=1, sort_keys=True)
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    build()
