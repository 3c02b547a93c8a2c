#!/usr/bin/env python3
"""Build recall_queries.jsonl: labelled recall-by-meaning queries (issue 15, item 3).

Each line: {"id", "lang", "subject_id", "memories": [{kind, normalized_key, value}...],
"query", "relevant": [indexes into memories]}. Queries are written by meaning and avoid
sharing words with the relevant memory's value or key where possible; many are
cross-language (a Chinese query on an English-valued memory and vice versa).
"""

from __future__ import annotations
import json
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent / "recall_queries.jsonl"


def m(key, value):
    return {"kind": key.split(".")[0], "normalized_key": key, "value": value}


SUBJECTS = {
    "rq-alex": [
        m("preference.package_manager", "yarn"),
        m("preference.language", "English"),
        m("preference.ui_theme", "dark"),
        m("preference.editor", "vim"),
        m("preference.communication_style", "short answers with bullet points"),
        m("profile.name", "Alex Chen"),
        m("profile.timezone", "Europe/Berlin"),
        m("profile.location", "Berlin"),
        m("profile.contact", "alex.chen@example.com"),
        m("preference.note", "reviews pull requests only in the afternoon"),
        m("decision.note", "the team uses Redis for caching"),
    ],
    "rq-wang": [
        m("preference.package_manager", "pnpm"),
        m("preference.language", "中文"),
        m("preference.ui_theme", "light"),
        m("preference.editor", "VS Code"),
        m("preference.communication_style", "先给结论再给细节"),
        m("profile.name", "王小明"),
        m("profile.timezone", "Asia/Shanghai"),
        m("profile.location", "上海"),
        m("preference.note", "周报用 Markdown 格式写"),
        m("decision.note", "我们组决定用 PostgreSQL 做主库"),
        m("task_fact.note", "2026-03-13 上线支付服务"),
    ],
    "rq-maria": [
        m("preference.package_manager", "npm"),
        m("preference.language", "Portuguese (Brazil)"),
        m("preference.ui_theme", "system"),
        m("preference.editor", "IntelliJ IDEA"),
        m("profile.name", "Maria Souza"),
        m("profile.timezone", "America/Sao_Paulo"),
        m("profile.location", "São Paulo"),
        m("profile.contact", "+55 11 91234-5678"),
        m("decision.note", "we deploy every Tuesday"),
        m("task_fact.note", "design review on 2026-04-17 at 10:00"),
    ],
    "rq-li": [
        m("preference.package_manager", "bun"),
        m("preference.language", "English"),
        m("preference.ui_theme", "dark"),
        m("preference.editor", "Neovim"),
        m("preference.communication_style", "回答要简短，不要客套话"),
        m("profile.name", "李娜"),
        m("profile.timezone", "UTC+08:00"),
        m("profile.location", "深圳"),
        m("profile.contact", "lina@example.cn"),
        m("preference.note", "提交信息用英文写"),
    ],
    "rq-sam": [
        m("preference.package_manager", "pnpm"),
        m("preference.language", "中文"),
        m("preference.ui_theme", "light"),
        m("preference.editor", "Emacs"),
        m("preference.communication_style", "detailed explanations with code examples"),
        m("profile.name", "Sam Taylor"),
        m("profile.timezone", "America/New_York"),
        m("profile.location", "Brooklyn, New York"),
        m("decision.note", "the team chose Kafka for the event bus"),
        m("task_fact.note", "code freeze starts 2026-10-06 18:00"),
    ],
    "rq-zhao": [
        m("preference.package_manager", "yarn"),
        m("preference.language", "繁體中文"),
        m("preference.ui_theme", "dark"),
        m("preference.editor", "Sublime Text"),
        m("profile.name", "赵敏"),
        m("profile.timezone", "Asia/Taipei"),
        m("profile.location", "台北"),
        m("profile.contact", "zhaomin@example.tw"),
        m("preference.note", "每天上午不安排会议"),
        m("decision.note", "团队决定消息队列用 RabbitMQ"),
    ],
    "rq-priya": [
        m("preference.package_manager", "npm"),
        m("preference.language", "English (UK)"),
        m("preference.ui_theme", "system"),
        m("preference.editor", "VS Code"),
        m("preference.communication_style", "formal tone, no emoji"),
        m("profile.name", "Priya Nair"),
        m("profile.timezone", "Asia/Kolkata"),
        m("profile.location", "Bengaluru"),
        m("preference.note", "uses tabs, not spaces, for indentation"),
        m("task_fact.note", "quarterly report due 2026-05-22"),
    ],
    "rq-chen": [
        m("preference.package_manager", "pnpm"),
        m("preference.language", "中文"),
        m("preference.ui_theme", "dark"),
        m("preference.editor", "Vim"),
        m("preference.communication_style", "用表格总结对比"),
        m("profile.name", "陈立"),
        m("profile.timezone", "UTC+08:00"),
        m("profile.location", "北京"),
        m("profile.contact", "chenli@example.com"),
        m("decision.note", "后端统一用 Kotlin"),
        m("task_fact.note", "2026-12-07 开始休年假"),
    ],
    "rq-kenji": [
        m("preference.package_manager", "bun"),
        m("preference.language", "Japanese"),
        m("preference.ui_theme", "light"),
        m("preference.editor", "Zed"),
        m("profile.name", "Kenji Sato"),
        m("profile.timezone", "Asia/Tokyo"),
        m("profile.location", "Osaka"),
        m("preference.note", "dog is called Biscuit"),
    ],
    "rq-lucia": [
        m("preference.package_manager", "yarn"),
        m("preference.language", "Spanish (Mexico)"),
        m("preference.ui_theme", "dark"),
        m("preference.editor", "WebStorm"),
        m("preference.communication_style", "casual, friendly tone"),
        m("profile.name", "Lucía Hernández"),
        m("profile.timezone", "America/Mexico_City"),
        m("profile.location", "Guadalajara"),
        m("profile.contact", "lucia@example.mx"),
        m("decision.note", "we settled on GitHub Actions for CI"),
        m("task_fact.note", "contract renewal deadline 2026-06-11"),
    ],
}

# key -> list of (lang, query)
Q = {
    "preference.package_manager": [
        ("en", "JS tooling"),
        ("en", "which tool do I install node dependencies with"),
        ("en", "how should you add a library to my frontend project"),
        ("en", "my JavaScript dependency manager"),
        ("en", "lockfile tool for web projects"),
        ("zh", "装依赖用什么"),
        ("zh", "前端包管理工具"),
        ("zh", "node 项目用哪个工具安装包"),
        ("zh", "我习惯的包管理器"),
        ("zh", "JS 依赖怎么装"),
        ("mixed", "装 dependencies 用哪个"),
        ("mixed", "JS 的 package 工具"),
        ("en", "how do I install packages for React apps"),
        ("zh", "前端项目用哪个装包"),
    ],
    "preference.language": [
        ("en", "what language should you answer in"),
        ("en", "which language do I want replies in"),
        ("en", "reply language"),
        ("en", "preferred language for responses"),
        ("en", "in what tongue should you write to me"),
        ("zh", "回复用什么语言"),
        ("zh", "用哪种语言跟我说话"),
        ("zh", "我希望你用什么语言回答"),
        ("zh", "语言偏好"),
        ("zh", "跟我交流时该讲哪国话"),
        ("mixed", "reply 用什么语言"),
        ("en", "which locale for your answers"),
        ("zh", "回答的语种"),
    ],
    "preference.ui_theme": [
        ("en", "bright or dim look of the app"),
        ("en", "color scheme of the interface"),
        ("en", "how should the UI look"),
        ("en", "night mode setting"),
        ("en", "appearance preference"),
        ("zh", "界面颜色"),
        ("zh", "深色还是浅色"),
        ("zh", "主题设置"),
        ("zh", "夜间模式"),
        ("zh", "界面外观偏好"),
        ("mixed", "UI 配色"),
        ("en", "should the background be bright or dim"),
        ("zh", "暗黑模式还是亮色"),
    ],
    "preference.editor": [
        ("en", "what do I write code in"),
        ("en", "my text editor"),
        ("en", "which IDE do I use"),
        ("en", "what app do I edit files with"),
        ("en", "coding environment"),
        ("zh", "我用什么编辑器"),
        ("zh", "写代码用的软件"),
        ("zh", "IDE 偏好"),
        ("zh", "平时改代码用什么工具"),
        ("mixed", "写 code 用的 editor"),
        ("en", "which program do I open source files in"),
        ("zh", "我的代码编辑软件"),
        ("mixed", "我的 IDE 是什么"),
    ],
    "preference.communication_style": [
        ("en", "how do I like answers formatted"),
        ("en", "should you be brief or detailed"),
        ("en", "tone of responses"),
        ("en", "how verbose should you be"),
        ("zh", "回答风格"),
        ("zh", "我喜欢什么样的回答"),
        ("zh", "说话要简洁还是详细"),
        ("zh", "回复的格式偏好"),
        ("mixed", "answer 的风格"),
        ("en", "answer length preference"),
        ("zh", "回答要不要啰嗦"),
    ],
    "profile.name": [
        ("en", "what should I call you"),
        ("en", "what should I call the user"),
        ("en", "the user's name"),
        ("en", "how do I address them"),
        ("en", "who am I talking to"),
        ("zh", "怎么称呼我"),
        ("zh", "我叫什么"),
        ("zh", "用户的名字"),
        ("zh", "该怎么称呼用户"),
        ("zh", "姓名"),
        ("mixed", "user 叫什么名字"),
        ("en", "how do I greet this person"),
        ("zh", "这位用户怎么称呼"),
    ],
    "profile.timezone": [
        ("en", "what time is it for me right now"),
        ("en", "when is it morning for me"),
        ("en", "my offset from UTC"),
        ("en", "local time zone"),
        ("en", "when should meetings be scheduled for me"),
        ("zh", "时区"),
        ("zh", "我这边现在几点"),
        ("zh", "我的本地时间"),
        ("zh", "几点给我安排会议合适"),
        ("zh", "和格林尼治时间差几个小时"),
        ("mixed", "我的 timezone"),
        ("en", "is it the middle of the night for me"),
        ("zh", "我现在是白天还是晚上"),
    ],
    "profile.location": [
        ("en", "where do I live"),
        ("en", "which city am I based in"),
        ("en", "my home town"),
        ("en", "where am I located"),
        ("zh", "我住在哪里"),
        ("zh", "我在哪个城市"),
        ("zh", "我的所在地"),
        ("zh", "我家在哪"),
        ("mixed", "我 based 在哪个城市"),
        ("en", "which city do I call home"),
        ("zh", "常驻城市"),
        ("mixed", "which 城市 do I live in"),
    ],
    "profile.contact": [
        ("en", "how can someone reach me"),
        ("en", "my email address"),
        ("en", "contact details"),
        ("en", "where to send messages to me"),
        ("zh", "怎么联系我"),
        ("zh", "我的邮箱"),
        ("zh", "联系方式"),
        ("zh", "联系邮箱或电话"),
        ("mixed", "我的 email"),
        ("en", "how to get in touch with me"),
        ("zh", "怎么给我发邮件"),
    ],
}

# subject-specific note queries: (subject, key, lang, query)
NOTES = [
    ("rq-alex", "preference.note", "en", "when do I do code reviews"),
    ("rq-alex", "preference.note", "zh", "我什么时候看合并请求"),
    ("rq-alex", "decision.note", "en", "what did we pick for the cache layer"),
    ("rq-alex", "decision.note", "zh", "缓存用的是什么"),
    ("rq-wang", "preference.note", "zh", "周报格式"),
    ("rq-wang", "preference.note", "en", "how should weekly status reports be formatted"),
    ("rq-wang", "decision.note", "zh", "主数据库选了哪个"),
    ("rq-wang", "decision.note", "en", "which database did the team choose"),
    ("rq-wang", "task_fact.note", "zh", "什么时候发布"),
    ("rq-wang", "task_fact.note", "en", "when is the launch"),
    ("rq-maria", "decision.note", "en", "which weekday do we ship"),
    ("rq-maria", "decision.note", "zh", "我们哪天发版"),
    ("rq-maria", "task_fact.note", "en", "when is the design meeting"),
    ("rq-maria", "task_fact.note", "zh", "设计评审是哪天"),
    ("rq-li", "preference.note", "zh", "commit message 用什么语言"),
    ("rq-li", "preference.note", "en", "language for git commit messages"),
    ("rq-sam", "decision.note", "en", "what did the team choose for messaging between services"),
    ("rq-sam", "decision.note", "zh", "事件总线用什么"),
    ("rq-sam", "task_fact.note", "en", "when do merges stop before the release"),
    ("rq-sam", "task_fact.note", "zh", "代码冻结时间"),
    ("rq-zhao", "preference.note", "zh", "上午能不能约会议"),
    ("rq-zhao", "preference.note", "en", "am I free for meetings before noon"),
    ("rq-zhao", "decision.note", "en", "which message queue did we go with"),
    ("rq-zhao", "decision.note", "zh", "MQ 选型"),
    ("rq-priya", "preference.note", "en", "indentation style"),
    ("rq-priya", "preference.note", "zh", "代码缩进用什么"),
    ("rq-priya", "task_fact.note", "en", "when is the quarterly report due"),
    ("rq-priya", "task_fact.note", "zh", "季度报告截止日期"),
    ("rq-chen", "decision.note", "zh", "后端用什么语言写"),
    ("rq-chen", "decision.note", "en", "server-side programming language we agreed on"),
    ("rq-chen", "task_fact.note", "zh", "什么时候放假"),
    ("rq-chen", "task_fact.note", "en", "when does my vacation start"),
    ("rq-kenji", "preference.note", "en", "what's my pet's name"),
    ("rq-kenji", "preference.note", "zh", "我家狗叫什么"),
    ("rq-lucia", "decision.note", "en", "continuous integration system"),
    ("rq-lucia", "decision.note", "zh", "CI 用的什么"),
    ("rq-lucia", "task_fact.note", "en", "when does the agreement have to be renewed"),
    ("rq-lucia", "task_fact.note", "zh", "合同什么时候续签"),
]

# multi-relevant queries: (subject, [keys], lang, query)
MULTI = [
    (
        "rq-alex",
        ["profile.location", "profile.timezone"],
        "en",
        "where am I and what time is it there",
    ),
    ("rq-wang", ["profile.location", "profile.timezone"], "zh", "我在哪个城市、几点了"),
    ("rq-sam", ["preference.editor", "preference.package_manager"], "en", "my dev tools"),
    ("rq-chen", ["preference.editor", "preference.package_manager"], "zh", "我的开发工具"),
    (
        "rq-lucia",
        ["preference.language", "preference.communication_style"],
        "en",
        "how should you talk to me",
    ),
    ("rq-li", ["preference.language", "preference.communication_style"], "zh", "你该怎么跟我说话"),
]


def idx(subj, key):
    keys = [x["normalized_key"] for x in SUBJECTS[subj]]
    return keys.index(key)


def build():
    rows = []
    names = list(SUBJECTS)
    rot = 0
    for key, qs in Q.items():
        holders = [s for s in names if key in [x["normalized_key"] for x in SUBJECTS[s]]]
        for lang, q in qs:
            subj = holders[rot % len(holders)]
            rot += 1
            rows.append((lang, subj, q, [idx(subj, key)]))
    for subj, key, lang, q in NOTES:
        rows.append((lang, subj, q, [idx(subj, key)]))
    for subj, keys, lang, q in MULTI:
        rows.append((lang, subj, q, sorted(idx(subj, k) for k in keys)))
    out = []
    for n, (lang, subj, q, rel) in enumerate(rows, 1):
        mem = SUBJECTS[subj]
        assert 5 <= len(mem) <= 12 and all(0 <= r < len(mem) for r in rel)
        out.append(
            {
                "id": f"rq-{lang}-{n:03d}",
                "lang": lang,
                "subject_id": subj,
                "memories": mem,
                "query": q,
                "relevant": rel,
            }
        )
    return out


if __name__ == "__main__":
    rows = build()
    assert len({r["id"] for r in rows}) == len(rows)
    with OUT.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(len(rows), Counter(r["lang"] for r in rows))
    print(Counter(r["memories"][r["relevant"][0]]["normalized_key"] for r in rows))
