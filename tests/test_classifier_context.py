"""Issue 10's classification classes, English and Chinese (simplified, traditional, Cantonese).

Pure: :func:`classify` on one sentence, :func:`classify_span` on a sentence inside its message,
:func:`named_project`. Each class has hostile sentences and harmless look-alikes.
"""

from __future__ import annotations

import pytest

from memwarden_shared.text.classifier import Feature, classify, classify_span, named_project
from memwarden_shared.text.fold import Level, fold_text

F = Feature


def _last_line(text: str) -> tuple[int, int]:
    """Offsets of the last sentence: after the last line break or full-width semicolon."""
    cut = max(text.rfind("\n"), text.rfind("；"), text.rfind(";"))
    return cut + 1, len(text)


def features_of_last(text: str) -> set[Feature]:
    start, end = _last_line(text)
    return set(classify_span(text, start, end).features)


# --------------------------------------------------------------------------- folding


def test_fold_script__folds_traditional_and_leaves_the_rest() -> None:
    # SCRIPT includes WIDTH: the full-width comma is NFKC-folded too
    folded = fold_text("我討厭深色模式，並非 vim 用戶", Level.SCRIPT)
    assert folded == "我讨厌深色模式,并非 vim 用户"
    assert fold_text("I prefer pnpm.", Level.SCRIPT) == "I prefer pnpm."


# --------------------------------------------------------------------------- negation / dislike

NEGATED = [
    "我討厭深色模式。",
    "我沒在用 yarn。",
    "我並非 vim 用戶。",
    "我冇用 pnpm。",
    "我唔鍾意用 npm。",
    "我嫌弃 yarn 太慢。",
    "我嫌棄淺色主題。",
    "我不鍾意深色模式。",
    "我好憎用 npm。",
    "我厌恶浅色模式。",
    "我已經戒咗 vim。",
    "I loathe dark mode.",
    "I detest yarn.",
    "I despise npm.",
    "I'm sick of yarn.",
    "I'm fed up with pnpm.",
    "I steer clear of emacs.",
    "I used to use vim.",
    "I ditched pnpm.",
    "Yarn drives me crazy.",
    "I\u200b don't use yarn.",  # a zero-width space does not hide the negation
]


@pytest.mark.parametrize("sentence", NEGATED)
def test_classify__dislike_and_negation_in_every_variety(sentence: str) -> None:
    assert classify(sentence).has(F.NEGATED)


@pytest.mark.parametrize(
    "sentence",
    [
        "我喜歡深色模式。",
        "我非常喜欢 pnpm。",
        "唔该你用中文回复我。",  # 唔该 is "please", not "not"
        "无论什么项目我都用 pnpm。",
        "I'm used to vim.",
        "I use light mode.",
        "我一直用深色主题，从来不换。",  # refusing to change reinforces the claim
        "I use vim and never switch.",
    ],
)
def test_classify__look_alikes_are_not_negated(sentence: str) -> None:
    assert not classify(sentence).has(F.NEGATED)


# --------------------------------------------------------------------------- frames across a cut


@pytest.mark.parametrize(
    ("text", "carried"),
    [
        ("When I'm on the train,\nI use light mode.", F.HYPOTHETICAL),
        ("When I'm at work\nI use npm.", F.HYPOTHETICAL),
        ("On weekdays:\nI use light mode.", F.HYPOTHETICAL),
        ("Not that I like it;\nI use yarn.", F.NEGATED),
        ("My manager said:\nI prefer pnpm.", F.REPORTED),
        ("如果在公司，\n我用浅色模式。", F.HYPOTHETICAL),
        ("在火车上的时候，\n我用浅色模式。", F.HYPOTHETICAL),
        ("喺公司嘅時候，\n我用淺色模式。", F.HYPOTHETICAL),
        ("并不是说我喜欢它；我用 yarn。", F.NEGATED),
        ("老板说：\n我喜欢用 yarn。", F.REPORTED),
        ("我同事講：\n我鍾意用 pnpm。", F.REPORTED),
        # a bare condition governs the next sentence even when closed by a full stop
        ("When on the train.\nI use light mode.", F.HYPOTHETICAL),
        ("在公司的时候。\n我用浅色模式。", F.HYPOTHETICAL),
        # a verb of saying at the end of the line, with or without a colon
        ("Alice said\nI prefer pnpm.", F.REPORTED),
        ("On Mon, Bob wrote:\nI prefer pnpm.", F.REPORTED),
        # a chain of open frames, and an open frame across a blank line
        ("When I'm on the train,\nor on the bus,\nI use light mode.", F.HYPOTHETICAL),
        ("When I'm on the train,\n\nI use light mode.", F.HYPOTHETICAL),
        # a quotation after a colon runs on past blank lines; a chat header starts one
        ("My manager wrote:\n\nI prefer pnpm.", F.REPORTED),
        ("Bob Smith 10:42 AM\nI prefer pnpm.", F.REPORTED),
        ("张三 10:42\n我喜欢深色模式。", F.REPORTED),
    ],
)
def test_classify_span__an_open_frame_carries_over_the_cut(text: str, carried: Feature) -> None:
    assert carried in features_of_last(text)


@pytest.mark.parametrize(
    "text",
    [
        "I switched editors last year.\nI use light mode.",  # a closed sentence governs nothing
        "Hi there,\nI use light mode.",
        "Quick note:\nI prefer pnpm.",
        "你好，\n我喜欢深色模式。",
        "补充一下：\n我一直用 pnpm。",
        "When I'm on the train I read.\n\nI use light mode.",  # a paragraph break closes it
        "When I'm at work I use npm.\nI use light mode.",  # that condition had its consequent
    ],
)
def test_classify_span__a_closed_or_empty_frame_carries_nothing(text: str) -> None:
    found = features_of_last(text)
    assert F.FIRST_PERSON_DURABLE in found
    assert not found & {F.HYPOTHETICAL, F.NEGATED, F.REPORTED}


def test_classify__a_leading_condition_is_marked_conditional() -> None:
    assert classify("When I'm at the office, I use light mode.").has(F.CONDITIONAL)
    assert classify("在公司的时候我用浅色模式。").has(F.CONDITIONAL)
    assert not classify("I use light mode.").has(F.CONDITIONAL)


# --------------------------------------------------------------------------- pasted speech


@pytest.mark.parametrize(
    "text",
    [
        "Bob: I prefer dark mode.",
        "[10:42] dave: I use emacs for everything.",
        "<mike> i prefer npm",
        "Bob (Slack): I use vim.",
        'Alice wrote: "I always use yarn."',
        '"I always use yarn," Alice wrote.',
        "> I use vim for everything.",
        "---------- Forwarded message ---------\nFrom: Carol\nSubject: setup\nI prefer pnpm.",
        "Here's the doc I pasted:\nRemember that I prefer tabs.",
        "```\nremember that I prefer npm\n```",
        "张三：我喜欢用 yarn。",
        "陈经理写道：请记住，我偏好 npm。",
        "转发自李四：\n我一直用 vim。",
        "王五說：「我習慣用深色模式。」",
        "「我一直用 vim」，小王说。",
        "小李觉得我喜欢深色模式。",
        "Per my lead: I prefer tabs.",
        "Copy-pasting from the doc: remember that I prefer tabs.",
        "以下是聊天记录：\n小明：我用 pnpm。",
        "> 我一直用浅色主题。",
    ],
)
def test_classify_span__pasted_or_forwarded_text_is_reported(text: str) -> None:
    if text.endswith("```"):
        start = text.index("remember")
        end = text.index("\n```", start)
    else:
        start, end = _last_line(text)
    assert classify_span(text, start, end).has(F.REPORTED)


@pytest.mark.parametrize(
    "sentence",
    [
        "Note: I prefer yarn.",
        "Update: I use vim now.",
        "Two things: I use vim.",
        "记住：我喜欢深色模式。",
        "更正：我一直用 pnpm。",
        "背景交代一下：我一直用 npm 装依赖。",
        "https://example.com is where I keep my notes.",
        "并不是说我喜欢它；",  # "并不是说" is no name before a verb of saying
        "From Monday, I use pnpm.",
    ],
)
def test_classify__the_owners_own_headings_are_not_reported(sentence: str) -> None:
    assert not classify(sentence).has(F.REPORTED)


# --------------------------------------------------------------------------- excluded when asked


@pytest.mark.parametrize(
    ("sentence", "feature"),
    [
        ("请记住，现在支付服务挂了。", F.TRANSIENT),
        ("记一下，测试环境现在连不上。", F.TRANSIENT),
        ("幫我記住，資料庫掛咗。", F.TRANSIENT),
        ("记一下，我现在在开会。", F.TRANSIENT),
        ("Please remember the staging cluster is down right now.", F.TRANSIENT),
        ("Note that the API gateway is returning 502s.", F.TRANSIENT),
        ("Remember that the root cause of the outage is a bad DNS record.", F.ROOT_CAUSE),
        ("Remember that the outage was caused by a bad deploy.", F.ROOT_CAUSE),
        ("记住：这次事故的根因是数据库连接池耗尽。", F.ROOT_CAUSE),
        ("帮我记一下，故障原因是配置写错了。", F.ROOT_CAUSE),
        ("Please note: the build server is out of disk space.", F.TRANSIENT),
        ("Remember the deploy failed because the cert expired.", F.ROOT_CAUSE),
        ("记下来：今天部署失败是因为证书过期。", F.ROOT_CAUSE),
        ("记一下：这个 bug 是内存泄漏引起的。", F.ROOT_CAUSE),
        ("Remember this deploy key for prod:", F.OPEN_FRAME),
        ("Keep in mind the API is rate-limited today.", F.TRANSIENT),
        ("The outage happened because of a bad config, remember that.", F.ROOT_CAUSE),
        ("记住，锅在 DNS。", F.ROOT_CAUSE),
    ],
)
def test_classify__incidents_causes_and_open_notes_are_not_durable(
    sentence: str, feature: Feature
) -> None:
    features = classify(sentence)
    assert features.has(feature)
    assert features.not_durable


@pytest.mark.parametrize(
    "sentence",
    [
        "Remember that water boils at 100 °C.",
        "Remember that Paris is the capital of France.",
        "记住，地球绕着太阳转。",
        "请记住：一年有 365 天。",
        "Remember that light travels faster than sound.",
        "请记住，太阳从东边升起。",
    ],
)
def test_classify__a_note_about_the_world_is_general_knowledge(sentence: str) -> None:
    assert classify(sentence).has(F.GENERAL_FACT)


@pytest.mark.parametrize(
    "sentence",
    [
        "Remember that I prefer concise answers.",
        "Remember that our deploys go out on Tuesdays.",
        "Remember: always reply in English.",
        "请记住，我习惯先看结论再看细节。",
        "记住：回复用中文。",
        "I'm on call every other Friday.",
        "Remember that the staging database is read-only on Fridays.",  # the owner's systems
        "Remember: tabs, not spaces.",  # states no fact: a telegraphic preference
        "Remember that starting today I use pnpm.",
        "记住，测试环境每周五重置。",
        "My phone number is 13912345678.",  # digits are not an HTTP 5xx
        "Remember that my team sync is on floor 3.",  # the team's meeting, not its words
        "My team standup is at 9:30.",
        "Remember that my locker for project 72 is number 507.",  # a number, no HTTP 5xx
    ],
)
def test_classify__notes_about_the_owner_stay_durable(sentence: str) -> None:
    features = classify(sentence)
    assert not features.has(F.GENERAL_FACT)
    assert not features.not_durable


# --------------------------------------------------------------------------- named project


@pytest.mark.parametrize(
    ("sentence", "project"),
    [
        ("For the atlas project I prefer yarn.", "atlas"),
        ("I prefer yarn for the atlas project.", "atlas"),
        ("In the atlas repo I use yarn.", "atlas"),
        ("在 atlas 项目里我用 yarn。", "atlas"),
        ("atlas 项目里，我一直用 yarn。", "atlas"),
        ("I prefer yarn for all my projects.", None),
        ("我所有项目里都用 pnpm。", None),
        # a pronoun is no project name: the team's own project, like "our project"
        ("我们项目决定统一用 Go 写后端。", None),
        ("咱们项目以后都用 pnpm。", None),
        ("Remember that my tickets live in the PLAT Jira project.", None),  # a place
        ("我写代码一直用 Neovim，配置都放在 dotfiles 仓库里。", None),
    ],
)
def test_named_project__only_a_project_that_scopes_the_claim(
    sentence: str, project: str | None
) -> None:
    assert named_project(sentence) == project


@pytest.mark.parametrize(
    ("text", "transient"),
    [
        ("Remember that my locker for project 72 is number 507.", False),
        ("记住我的工位是 507 号。", False),
        ("记一下，网关现在一直 502 了。", True),
        ("记住，线上返回 503 错误。", True),
        ("Remember that the API is returning 503s right now.", True),
    ],
)
def test_classify__a_5xx_number_is_an_incident_only_as_an_error(text: str, transient: bool) -> None:
    # a room, locker or ticket number in the 500s is a durable fact; "502 了" is an outage
    features = classify_span(text, 0, len(text))
    assert features.has(Feature.TRANSIENT) is transient


# --------------------------------------------------------------------------- frames without a colon


@pytest.mark.parametrize(
    "text",
    [
        # a denial or distancing frame cut from what it denies
        "I never said\nI prefer tabs.",
        "It's not true that\nI use emacs.",
        "People think\nI like light mode.",
        "我从来没说过\n我喜欢浅色主题。",
        "别以为\n我用 emacs。",
        # a past-time frame
        "Back in my first job;\nI used svn for everything.",
        "Years ago,\nI preferred tabs.",
        "读研那会儿；\n我天天用 vim。",
        "刚工作的时候\n我用 Windows。",
        # a restriction frame
        "On my work laptop only,\nI use zsh.",
        "During demos;\nI switch to light mode.",
        "只有在客户现场；\n我用浅色主题。",
        "出差期间，\n我用 nano。",
        # a closed fragment with no subject of its own
        "Only during code review.\nI use split view.",
    ],
)
def test_classify_span__an_incomplete_opening_line_governs_the_next(text: str) -> None:
    assert classify_span(text, *_last_line(text)).not_durable


@pytest.mark.parametrize(
    "text",
    [
        "Hi!\nI use dark mode.",
        "Hi\nI use dark mode.",
        "Hello;\nI prefer pnpm.",
        "你好！\n我用 vim。",
        "Note:\nI prefer yarn.",
        "请记住：\n我喜欢深色模式。",
        "I use vim;\nI prefer dark mode.",  # two claims, each standing on its own
        "我用 vim；\n我喜欢深色模式。",
        "I moved to Berlin in 2020.\nI use vim.",
        # chat lines without a full stop stand on their own
        "Hi there,\nI use light mode.",
        "Quick note:\nI prefer pnpm.",
        "nice, CI is green now ✅\nI prefer pnpm for all my monorepos.",
        "收到～\n我一直用 pnpm 管理 monorepo。",
        "会议刚开完，结论如下👇\n我一直用深色主题。",
    ],
)
def test_classify_span__a_complete_or_empty_opening_line_governs_nothing(text: str) -> None:
    features = classify_span(text, *_last_line(text))
    assert features.explicit and not features.not_durable


def test_classify__a_claim_before_a_semicolon_is_not_open() -> None:
    assert not classify("I prefer bun for scripts;").not_durable
    assert not classify("我一直用 pnpm；").not_durable
    assert classify("Remember this deploy key —").has(F.OPEN_FRAME)


# --------------------------------------------------------------------------- pasted without quotes


@pytest.mark.parametrize(
    "text",
    [
        # a labelled block: a form or profile paste
        "Name: Lee Chen\nTeam: Platform\nI use emacs for everything.",
        "姓名：王芳\n部门：运维\n我喜欢用 yarn。",
        # a transcript
        "Interview transcript\nSpeaker 1: I always use tabs.",
        "PERSON 3: I prefer light mode.",
        # an announcement of someone else's words, closed by a full stop or a dash
        "Here is what my colleague wrote in the ticket. I prefer npm.",
        "Quoting the customer's email word for word. I use light mode.",
        "Pasting Tom's reply —\nI'd like answers in French.",
        "以下是他的原话。我喜欢用 emacs。",
        "会议记录：\n我一直用 pnpm。",
        "采访记录——受访者：我偏好深色模式。",
    ],
)
def test_classify_span__pasted_speech_without_quote_marks_is_reported(text: str) -> None:
    start, end = _last_line(text)
    if "。我" in text[start:] or ". I" in text[start:]:
        start = max(text.rfind("。", 0, end - 1), text.rfind(". ", 0, end - 1)) + 1
    assert classify_span(text, start, end).has(F.REPORTED)


@pytest.mark.parametrize(
    "sentence",
    [
        "Remember that I take the 7:45 train.",  # a time, not a speaker's number
        "I prefer Python 3: it reads well.",
        "我写周报用 Markdown。",
    ],
)
def test_classify__numbers_and_times_are_no_speaker_labels(sentence: str) -> None:
    assert not classify(sentence).has(F.REPORTED)


# --------------------------------------------------------------------------- passing states


@pytest.mark.parametrize(
    "sentence",
    [
        "Remember the queue is paused until the backfill completes.",
        "Note that prod is currently read-only.",
        "Remember that CPU on the API nodes spiked to 98%.",
        "记一下，构建目前是红的。",
        "记住，测试库现在只读。",
        "帮我记着，网关现在延迟 3 秒，错误率 12%。",
        "记一下：直到迁移完成为止，写入都关闭。",
    ],
)
def test_classify__a_passing_system_state_is_excluded_when_asked(sentence: str) -> None:
    features = classify(sentence)
    assert features.has(F.TRANSIENT) and features.not_durable


@pytest.mark.parametrize(
    "sentence",
    [
        "Remember that Go 1.22 was released in February 2024.",
        "Remember that Rust 1.0 shipped in May 2015.",
        "记住，Python 3.12 是 2023 年发布的。",
    ],
)
def test_classify__a_release_fact_is_general_knowledge(sentence: str) -> None:
    assert classify(sentence).has(F.GENERAL_FACT)


@pytest.mark.parametrize(
    "sentence",
    [
        "我现在用 vim。",
        "我目前用 pnpm。",
        "I prefer vim until I find something better.",
        "Remember that I use Python 3.13.",
    ],
)
def test_classify__the_owners_current_habit_is_no_passing_state(sentence: str) -> None:
    assert not classify(sentence).not_durable


@pytest.mark.parametrize(
    ("sentence", "project"),
    [
        ("In the billing service we use pnpm.", "billing"),
        ("In the checkout app I prefer yarn.", "checkout"),
        ("在计费服务里我们定了 pnpm。", "计费"),
        ("我喜欢用手机应用记账。", None),
        ("We decided to use PostgreSQL for the billing service.", None),  # what it is about
    ],
)
def test_named_project__a_service_opening_the_sentence_scopes_it(
    sentence: str, project: str | None
) -> None:
    assert named_project(sentence) == project
