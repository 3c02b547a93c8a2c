"""Plain statements the owner makes without a remember-cue (issue 25, round three).

Each section names its mechanism and pins it over a generated family: subjects, verbs,
objects, fillers and intensifiers drawn from catalogues (the tool catalogue, the registry)
or random tokens, in English and Chinese; and a negative family of the same words said
of someone else, supposed, limited to once, negated, asked, reported or joked, which must
still not commit. The pipeline is the pure one ``memwarden explain`` runs (extractor,
``assess``, ``decide``) on an empty store."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_shared.detect.sensitive import sensitive_categories
from memwarden_shared.text.languages import names_a_people_or_language
from memwarden_shared.text.segmenter import list_markers
from memwarden_shared.text.stance import Subject, stance, tool_names
from memwarden_shared.text.tool_catalogue import AMBIGUOUS_FORMS, ORDINARY_WORD_NAMES, TOOLS
from memwarden_usecases.explain import explain

# single-word tool names no dictionary holds, written lower-case as people type them
TOOL_NAMES = sorted(
    form
    for forms in TOOLS.values()
    for tool in forms.values()
    for form in tool
    if form.isascii() and form.isalnum() and form not in AMBIGUOUS_FORMS | ORDINARY_WORD_NAMES
)
tools = st.sampled_from(TOOL_NAMES)
EN_END = st.sampled_from([".", "!", ""])
ZH_END = st.sampled_from(["。", "！", ""])
INTENSIFIERS = st.sampled_from(
    ["so", "really", "totally", "completely", "truly", "genuinely", "seriously", "absolutely"]
)
EN_OTHERS = st.sampled_from(["My sister", "My colleague", "My boss", "Their team", "They"])
ZH_OTHERS = st.sampled_from(["我同事", "我朋友", "他们团队", "我老板"])


def _committed(text: str) -> list[tuple[str, str]]:
    return [
        (c.key, str(c.value).lower())
        for s in explain(text)
        for c in s.candidates
        if c.decision == "COMMIT"
    ]


def _kept(text: str) -> list[tuple[str, str]]:
    """What the gate commits, or holds for the owner only because a name in it is in no word
    list or catalogue the gate reads (deny by default on values stays the gate's)."""
    return [
        (c.key, str(c.value).lower())
        for s in explain(text)
        for c in s.candidates
        if c.decision == "COMMIT"
        or (c.decision == "NEEDS_CONFIRMATION" and "unrecognised_token" in c.reasons)
    ]


def _proposed(text: str) -> list[tuple[str, str]]:
    return [(c.key, str(c.value).lower()) for s in explain(text) for c in s.candidates]


# ------------------------------------------------------------ a bare "we" and a tool name
# Mechanism: ``stance._owners_group`` takes a bare "we" as the owner's group when what it
# uses is a name in the tool catalogue or the registry (``stance.tool_names``), however it
# is cased; ``classifier_cues.EN_GROUP_RULE`` / ``ZH_GROUP_RULE`` read "our final / chosen
# / approved N is", "我们(团队)的标准/官方/统一 N 是" as the group's standing rule.

EN_WE = st.sampled_from(["we", "We", "we all", "We mostly", "we always", "ok so we"])
EN_WE_VERB = st.sampled_from(["use", "run on", "rely on", "deploy to", "build with"])
EN_RULE_ADJ = st.sampled_from(["official", "standard", "final", "chosen", "approved"])
EN_RULE_NOUN = st.sampled_from(["call", "choice", "tool", "pick", "setup"])
ZH_GROUP = st.sampled_from(["我们", "我们团队", "我们组", "我们公司"])
ZH_RULE_ADJ = st.sampled_from(["标准", "官方", "统一", "指定", "默认"])
ZH_RULE_NOUN = st.sampled_from(["工具", "编辑器", "方案", "选择"])


@st.composite
def group_tool_statement(draw: st.DrawFn) -> tuple[str, str]:
    tool = draw(tools)
    shape = draw(st.integers(0, 2))
    if shape == 0:
        return f"{draw(EN_WE)} {draw(EN_WE_VERB)} {tool}{draw(EN_END)}", tool
    if shape == 1:
        adj, noun = draw(EN_RULE_ADJ), draw(EN_RULE_NOUN)
        return f"our {adj} {noun} is {tool}{draw(EN_END)}", tool
    group, adj, noun = draw(ZH_GROUP), draw(ZH_RULE_ADJ), draw(ZH_RULE_NOUN)
    return f"{group}的{adj}{noun}是 {tool}{draw(ZH_END)}", tool


@settings(max_examples=80, deadline=None)
@given(group_tool_statement())
def test_group_tool__a_bare_we_with_a_lower_case_tool_commits_as_the_groups_decision(
    case: tuple[str, str],
) -> None:
    text, tool = case
    kept = _kept(text)
    assert any(key == "decision.note" and tool in value for key, value in kept), (text, kept)
    assert {key for key, _ in _proposed(text)} <= {"decision.note"}, text


@st.composite
def not_the_groups_tool(draw: st.DrawFn) -> str:
    tool, verb = draw(tools), draw(EN_WE_VERB)
    adj, noun = draw(EN_RULE_ADJ), draw(EN_RULE_NOUN)
    zh_adj, zh_noun = draw(ZH_RULE_ADJ), draw(ZH_RULE_NOUN)
    return draw(
        st.sampled_from(
            [
                f"{draw(EN_OTHERS)} {verb} {tool}.",  # third party
                f"their {adj} {noun} is {tool}.",
                f"{draw(ZH_OTHERS)}的{zh_adj}{zh_noun}是 {tool}。",
                f"if we {verb} {tool}, it would be faster.",  # hypothetical
                f"如果我们的{zh_adj}{zh_noun}是 {tool}就好了。",
                f"we {verb} {tool} this time.",  # one-time
                f"我们这次用 {tool}。",
                f"we don't {verb} {tool}.",  # negated
                f"我们的{zh_adj}{zh_noun}不是 {tool}。",
                f"do we {verb} {tool}?",  # question
                f"我们的{zh_adj}{zh_noun}是 {tool}吗？",
                f"My boss said we {verb} {tool}.",  # reported speech
                f"we {verb} {tool} lol, yeah right.",  # joke
                f"we used {tool} yesterday.",  # an event
                f"we {verb} cookies to improve your experience.",  # a pasted notice
            ]
        )
    )


@settings(max_examples=120, deadline=None)
@given(not_the_groups_tool())
def test_group_tool__others_hypotheses_one_offs_negations_questions_and_jokes_never_commit(
    text: str,
) -> None:
    assert _committed(text) == [], text


@given(tools)
def test_group_tool__the_catalogue_names_read_as_a_thing_of_work(tool: str) -> None:
    assert tool in tool_names()
    said = stance(f"we use {tool}")
    assert said is not None and said.subject is Subject.GROUP


@given(st.sampled_from(sorted(ORDINARY_WORD_NAMES | AMBIGUOUS_FORMS)))
def test_group_tool__a_name_that_is_an_ordinary_word_is_no_tool_after_a_bare_we(
    word: str,
) -> None:
    assert word not in tool_names()
    assert stance(f"we use {word}") is None


# ------------------------------------------------------------ an intensifier before the verb
# Mechanism: ``classifier_cues.INTENSIFIER`` may stand between the subject and the stance
# verb (``stance._EN_ADVERB``, ``stance._EN_PREFER``) and between a copula and "used to"
# (``EN_NEGATION_EXEMPT``: being used to something is a present habit, not an ended one).


@st.composite
def intensified_stance(draw: st.DrawFn) -> tuple[str, str]:
    tool, degree = draw(tools), draw(INTENSIFIERS)
    shape = draw(st.integers(0, 2))
    if shape == 0:
        copula = draw(st.sampled_from(["I'm", "I am"]))
        return f"{copula} {degree} used to {tool}{draw(EN_END)}", tool
    if shape == 1:
        verb = draw(st.sampled_from(["prefer", "like", "love", "use", "rely on"]))
        degree = "really" if degree == "so" else degree  # "so" before a verb is a copula's
        return f"I {degree} {verb} {tool}{draw(EN_END)}", tool
    return f"I'm {degree} into {tool}{draw(EN_END)}", tool


@settings(max_examples=80, deadline=None)
@given(intensified_stance())
def test_intensifier__an_intensified_stance_commits(case: tuple[str, str]) -> None:
    text, tool = case
    kept = _kept(text)
    assert any(tool in value for _, value in kept), (text, kept)


@st.composite
def intensified_but_not_standing(draw: st.DrawFn) -> str:
    tool, degree = draw(tools), draw(INTENSIFIERS)
    return draw(
        st.sampled_from(
            [
                f"I used to use {tool}.",  # an ended habit
                f"I'm not {degree} used to {tool}.",
                f"I'm {degree} used to {tool}, not!",
                f"{draw(EN_OTHERS)} is {degree} used to {tool}.",
                f"If I were {degree} used to {tool}, I'd be faster.",
                f"Am I {degree} used to {tool}?",
                f"I {degree} prefer {tool} this time.",
                f"I {degree} don't like {tool}.",
                f"She said she {degree} prefers {tool}.",
                f"I'm {degree} used to {tool} lol jk",  # joke
                f"我超习惯用 {tool}，开玩笑的。",
            ]
        )
    )


@settings(max_examples=80, deadline=None)
@given(intensified_but_not_standing())
def test_intensifier__ended_negated_reported_supposed_and_asked_never_commit(text: str) -> None:
    assert _committed(text) == [], text


# ------------------------------------------------------------ a wish about standing behaviour
# Mechanism: a recurring reminder asked of the assistant (``classifier_cues.
# EN_STANDING_REQUEST`` / ``ZH_STANDING_REQUEST``, a reminder plus ``EN_RECURRENCE`` /
# ``ZH_RECURRENCE``) is an instruction to keep, and the conditional "I'd like to be
# reminded" is exempt from the hypothetical mood as "I'd like your replies" already was; a
# wish about how to talk with the assistant ("想用 X 交流") is exempt from the wish cue, and
# "我希望你以后…" addressed to the assistant holds from now on (``ZH_FIRST_PERSON_DURABLE``).

EN_WISH = st.sampled_from(["I'd like", "I would like", "I'd really like"])
EN_DAY = st.sampled_from(
    ["every Friday", "every morning", "each Monday", "on Tuesdays", "weekly", "every evening"]
)
EN_CHORE = st.sampled_from(["to file my timesheet", "to stretch", "to water the plants", ""])
ZH_DAY = st.sampled_from(["每周五", "每天早上", "每个月", "每周一", "工作日"])
ZH_CHORE = st.sampled_from(["交周报", "喝水", "浇花", "备份数据"])
ZH_REPLY_LANGUAGE = st.sampled_from(["中文", "英文", "日语", "法语"])
ZH_VERB = st.sampled_from(["交流", "沟通", "聊天", "回复"])
ZH_STYLE = st.sampled_from(["回答简短一点", "回复详细一些", "说话直接一点", "回答正式一些"])


@st.composite
def standing_wish(draw: st.DrawFn) -> tuple[str, str]:
    shape = draw(st.integers(0, 4))
    if shape == 0:
        day, chore = draw(EN_DAY), draw(EN_CHORE)
        return f"{draw(EN_WISH)} to be reminded {day} {chore}".strip() + draw(EN_END), day
    if shape == 1:
        day, chore = draw(EN_DAY), draw(EN_CHORE)
        return f"{draw(EN_WISH)} you to remind me {day} {chore}".strip() + ".", day
    if shape == 2:
        day, chore = draw(ZH_DAY), draw(ZH_CHORE)
        lead = draw(st.sampled_from(["我希望你", "请", ""]))
        return f"{lead}{day}提醒我{chore}{draw(ZH_END)}", day
    if shape == 3:
        lang, verb = draw(ZH_REPLY_LANGUAGE), draw(ZH_VERB)
        with_you = draw(st.sampled_from(["", "和你", "跟你"]))
        return f"我想用{lang}{with_you}{verb}{draw(ZH_END)}", ""
    lead = draw(st.sampled_from(["我希望你以后", "希望你以后", "我希望你今后", "希望以后"]))
    return f"{lead}{draw(ZH_STYLE)}{draw(ZH_END)}", ""


@settings(max_examples=80, deadline=None)
@given(standing_wish())
def test_wish__a_standing_request_to_the_assistant_commits(case: tuple[str, str]) -> None:
    text, marker = case
    committed = _committed(text)
    assert committed, text
    assert all(marker.lower() in value for key, value in committed if key.endswith(".note"))


@st.composite
def not_a_standing_wish(draw: st.DrawFn) -> str:
    day, chore = draw(EN_DAY), draw(EN_CHORE)
    zh_day, zh_chore = draw(ZH_DAY), draw(ZH_CHORE)
    lang, verb = draw(ZH_REPLY_LANGUAGE), draw(ZH_VERB)
    return draw(
        st.sampled_from(
            [
                f"My boss would like to be reminded {day} {chore}.",  # third party
                f"She said she'd like to be reminded {day}.",  # reported speech
                f"{draw(ZH_OTHERS)}希望你{zh_day}提醒他{zh_chore}。",
                f"{draw(ZH_OTHERS)}想用{lang}{verb}。",
                f"If I'd like to be reminded {day}, I'll tell you.",  # hypothetical
                f"如果你{zh_day}提醒我{zh_chore}就好了。",
                f"I'd like to be reminded tomorrow {chore}.",  # once: a plan
                f"I'd like to be reminded tonight {chore}.",
                f"这次{zh_day}提醒我{zh_chore}。",  # one-time
                f"Could you remind me {day} {chore}?",  # question
                f"你能{zh_day}提醒我{zh_chore}吗？",
                f"我想用{lang}{verb}吗？",
                f"I'd like to be reminded {day} lol jk",  # joke
                f"I'd like to try {draw(tools)}.",  # a wish of the moment
                f"我想用 {draw(tools)} 试试。",
            ]
        )
    )


@settings(max_examples=120, deadline=None)
@given(not_a_standing_wish())
def test_wish__others_hypotheses_one_offs_questions_and_jokes_never_commit(text: str) -> None:
    assert _committed(text) == [], text


@given(EN_DAY, ZH_DAY)
def test_wish__a_negated_standing_wish_keeps_its_negation_or_is_not_kept(
    day: str, zh_day: str
) -> None:
    for text, negation in (
        (f"I don't want to be reminded {day}.", "don't"),
        (f"我不需要你{zh_day}提醒我。", "不"),
    ):
        assert all(negation in value for _, value in _committed(text)), text


# ------------------------------------------------------------ a name given in passing
# Mechanism: ``classifier_cues.EN_NAME_IN_PASSING`` (read on the whole sentence) and
# ``routes.EN_NAME_IN_PASSING`` / ``ZH_NAME_IN_PASSING``: "I'm <Name>" closed by "by the
# way"/"btw", or opened by a greeting, "对了/你好，我是<名>"; a word that
# ``languages.names_a_people_or_language`` (langcodes, the IANA region names), a role head
# or a sensitive category claims is no name.

_CONSONANTS, _VOWELS = "bdfgklmnprstvz", "aeiou"


@st.composite
def given_names(draw: st.DrawFn) -> str:
    """A random pronounceable name no catalogue holds, capitalised."""
    syllables = draw(st.integers(2, 3))
    name = "".join(
        draw(st.sampled_from(_CONSONANTS)) + draw(st.sampled_from(_VOWELS))
        for _ in range(syllables)
    )
    # an invented name may spell an English word ("Mine", a pronoun): no name then
    assume(name not in _COMMON_WORDS)
    return name.capitalize()


_COMMON_WORDS = frozenset(top_n_list("en", 5000))
ZH_SURNAMES = st.sampled_from(["小", "老", "王", "李", "张", "陈"])
ZH_GIVEN = st.sampled_from(["芳", "伟", "娜", "强", "敏", "静", "磊", "洋"])


@st.composite
def name_in_passing(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(given_names())
    assume(not names_a_people_or_language(name))  # "Baba" is also a language: lost by design
    shape = draw(st.integers(0, 3))
    if shape == 0:
        lead = draw(st.sampled_from(["Thanks for the help, ", "Great, ", "", "Anyway, "]))
        close = draw(st.sampled_from([" by the way", ", by the way", " btw"]))
        return f"{lead}I'm {name}{close}{draw(EN_END)}", name
    if shape == 1:
        greeting = draw(st.sampled_from(["Hi", "Hello", "Hey", "Hi there", "btw"]))
        return f"{greeting}, I'm {name}{draw(EN_END)}", name
    zh = draw(ZH_SURNAMES) + draw(ZH_GIVEN)
    lead = draw(
        st.sampled_from(["对了，", "你好，", "顺便说一下，", "您好，", "你好呀，", "嗨~", "哈喽，"])
    )
    return f"{lead}我是{zh}{draw(ZH_END)}", zh


@settings(max_examples=80, deadline=None)
@given(name_in_passing())
def test_name__a_name_given_in_passing_commits(case: tuple[str, str]) -> None:
    text, name = case
    kept = _kept(text)
    assert ("profile.name", name.lower()) in kept, (text, kept)


PEOPLES = st.sampled_from(
    ["Canadian", "Japanese", "German", "Brazilian", "Korean", "Mexican", "Indian", "Irish"]
)
BELIEFS = st.sampled_from(["Muslim", "Jewish", "Catholic", "Buddhist", "Hindu"])


@st.composite
def not_a_name_in_passing(draw: st.DrawFn) -> str:
    name = draw(given_names())
    return draw(
        st.sampled_from(
            [
                f"I'm {draw(PEOPLES)} by the way.",  # a nationality
                f"Hi, I'm {draw(PEOPLES)}.",
                f"I'm {draw(BELIEFS)}, by the way.",  # a belief, never a name
                "I'm tired by the way.",  # a state
                "Hi, I'm new here.",
                f"My colleague said: Hi, I'm {name}.",  # reported speech
                f"Hi, I'm {name}?",  # question
                f"If I'm {name} by the way, then who are you?",  # hypothetical
                f"I'm {name} by the way, lol jk",  # joke
                f"{draw(ZH_OTHERS)}说，你好，我是小{draw(ZH_GIVEN)}。",
                "对了，我是学生。",  # a role
                "你好，我是新人。",
            ]
        )
    )


@settings(max_examples=80, deadline=None)
@given(not_a_name_in_passing())
def test_name__nationalities_beliefs_states_roles_and_others_words_are_no_name(
    text: str,
) -> None:
    assert all(key != "profile.name" for key, _ in _proposed(text)), text
    assert _committed(text) == [], text


# ------------------------------------------------------------ a pet named in passing
# Mechanism: ``classifier_cues.EN_PET_IN_PASSING`` / ``ZH_PET_IN_PASSING``: "my <pet>
# <name> <present verb> …", "我家<宠物><名字>三岁了 / 特别喜欢…", read as the owner's
# household (``household.household_note``) with no remember-cue.

EN_PETS = st.sampled_from(["dog", "cat", "parrot", "corgi", "hamster", "rabbit"])
ZH_PETS = st.sampled_from(["猫", "狗", "鹦鹉", "兔子", "仓鼠"])
EN_PET_FACT = st.sampled_from(
    ["is three", "loves carrots", "sleeps all day", "talks a lot", "likes long walks"]
)
ZH_PET_FACT = st.sampled_from(["三岁了", "特别喜欢游泳", "很黏人", "每天睡一整天"])
ZH_PET_NAME = st.sampled_from(["豆豆", "旺财", "咪咪", "团子", "毛毛"])


@st.composite
def pet_in_passing(draw: st.DrawFn) -> tuple[str, str]:
    if draw(st.booleans()):
        name = draw(given_names())
        owner = draw(st.sampled_from(["My", "my", "Our"]))
        return f"{owner} {draw(EN_PETS)} {name} {draw(EN_PET_FACT)}{draw(EN_END)}", name
    name = draw(ZH_PET_NAME)
    owner = draw(st.sampled_from(["我家", "我家的", "我的"]))
    return f"{owner}{draw(ZH_PETS)}{name}{draw(ZH_PET_FACT)}{draw(ZH_END)}", name


@settings(max_examples=60, deadline=None)
@given(pet_in_passing())
def test_pet__a_pet_named_in_passing_commits_as_the_owners_household(
    case: tuple[str, str],
) -> None:
    text, name = case
    kept = _kept(text)
    assert any(key == "profile.note" and name.lower() in v for key, v in kept), (text, kept)


@st.composite
def not_the_owners_pet(draw: st.DrawFn) -> str:
    name, pet, fact = draw(given_names()), draw(EN_PETS), draw(EN_PET_FACT)
    zh_pet, zh_name, zh_fact = draw(ZH_PETS), draw(ZH_PET_NAME), draw(ZH_PET_FACT)
    return draw(
        st.sampled_from(
            [
                f"My neighbour's {pet} {name} {fact}.",  # third party
                f"{draw(ZH_OTHERS)}家的{zh_pet}{zh_name}{zh_fact}。",
                f"If my {pet} {name} were older, it would be calmer.",  # hypothetical
                f"Is my {pet} {name} three?",  # question
                f"我家{zh_pet}{zh_name}{zh_fact}吗？",
                f"My {pet} {name} was sick yesterday.",  # an event
                f"My {pet} {name} is sick today.",  # a passing state
                f"My {pet} {name} {fact} lol jk",  # joke
                f"My sister said her {pet} {name} {fact}.",  # reported speech
            ]
        )
    )


@settings(max_examples=80, deadline=None)
@given(not_the_owners_pet())
def test_pet__others_pets_hypotheses_questions_events_and_jokes_never_commit(text: str) -> None:
    assert _committed(text) == [], text


# ------------------------------------------------------------ OS and shell named together
# Mechanism: ``tools._names_another_tool``: an unambiguous tool of another key in the
# sentence lets an ambiguous name ("fish", "Windows", "Arch") count as a tool, with a verb
# of using before it and a clause boundary after it (``tools._CLAUSE_GOES_ON``).

OSES = st.sampled_from(["macOS", "Ubuntu", "Fedora", "Debian", "NixOS"])
SHELLS = st.sampled_from(["zsh", "bash", "PowerShell", "nushell"])
AMBIGUOUS_SHELL_OS = st.sampled_from([("fish", "preference.shell")])


@st.composite
def os_and_shell(draw: st.DrawFn) -> tuple[str, str, str]:
    os_name = draw(OSES)
    shell = draw(st.sampled_from(["fish", *["zsh", "bash", "PowerShell"]]))
    lead = draw(st.sampled_from(["I'm on", "I use", "I run", "I develop on"]))
    join = draw(st.sampled_from(["and use", "and run", "with"]))
    tail = draw(st.sampled_from(["", " as my shell", " everywhere"]))
    if tail.strip() == "everywhere" and join == "with":
        tail = ""
    return f"{lead} {os_name} {join} {shell}{tail}{draw(EN_END)}", os_name, shell


@settings(max_examples=60, deadline=None)
@given(os_and_shell())
def test_os_and_shell__both_are_kept(case: tuple[str, str, str]) -> None:
    text, os_name, shell = case
    committed = dict(_committed(text))
    assert committed.get("preference.os") == os_name.lower(), (text, committed)
    assert committed.get("preference.shell") == shell.lower(), (text, committed)


@given(OSES, st.sampled_from(["love fish tacos", "used fish once", "don't use fish"]))
def test_os_and_shell__an_ambiguous_word_stays_a_word(os_name: str, rest: str) -> None:
    text = f"I'm on {os_name} and {rest}."
    assert all(key != "preference.shell" for key, _ in _committed(text)), text


# ------------------------------------------------------------ less common remember-cues
# Mechanism: ``classifier_cues.NOTE_PREFIX`` (a note label and a colon: "note:", "FYI for
# later:", "备注："), ``EN_TRAILING_CUE`` / ``ZH_TRAILING_CUE`` (the cue closing the sentence
# after a comma or a dash, stripped from the value by ``rules.raw_claim``), and an inline
# enumerated list (``segmenter.list_markers`` cuts at its markers, which belong to no
# sentence; ``classifier._list_header`` gives each item the header's remember-instruction),
# so each item is proposed on its own with its own evidence span.

EN_ACTS = st.sampled_from(
    [
        "review pull requests",
        "answer email",
        "tidy my inbox",
        "water the plants",
        "do code reviews",
    ]
)
EN_WHEN = st.sampled_from(["in the morning", "after lunch", "on Fridays", "before standup"])
ZH_WHEN = st.sampled_from(["早上", "午饭后", "周五", "下班前"])
ZH_ACTS = st.sampled_from(["审代码", "回邮件", "整理待办", "浇花", "写日报"])
EN_PREFIX = st.sampled_from(["note:", "Note:", "FYI for later:", "For the record:", "NB:"])
ZH_PREFIX = st.sampled_from(["备忘：", "备注：", "记一下：", "记录一下："])
EN_CLOSING_CUE = st.sampled_from(
    [", remember that", " - remember this", ", keep that in mind", ", please remember",
     ", don't forget"]
)  # fmt: skip
ZH_CLOSING_CUE = st.sampled_from(["，记一下", "，记住哦", "，帮我记下来", "，记好了"])


@st.composite
def cued_statement(draw: st.DrawFn) -> tuple[str, str]:
    """(message, a word the value must hold), with a prefix cue or a closing cue."""
    if draw(st.booleans()):
        act, when = draw(EN_ACTS), draw(EN_WHEN)
        claim = f"I {act} {when}"
        if draw(st.booleans()):
            return f"{draw(EN_PREFIX)} {claim}{draw(EN_END)}", act
        return f"{claim}{draw(EN_CLOSING_CUE)}{draw(EN_END)}", act
    act, when = draw(ZH_ACTS), draw(ZH_WHEN)
    claim = f"我{when}{act}"
    if draw(st.booleans()):
        return f"{draw(ZH_PREFIX)}{claim}{draw(ZH_END)}", act
    return f"{claim}{draw(ZH_CLOSING_CUE)}{draw(ZH_END)}", act


@settings(max_examples=80, deadline=None)
@given(cued_statement())
def test_cue__a_note_label_or_a_closing_cue_commits_without_the_cue_in_the_value(
    case: tuple[str, str],
) -> None:
    text, act = case
    committed = _committed(text)
    assert any(act in value for _, value in committed), (text, committed)
    cue_words = ("note", "fyi", "record", "remember", "mind", "forget", "备", "记")
    for _, value in committed:
        assert not any(value.startswith(w) or value.endswith(w) for w in cue_words), value


@st.composite
def cued_but_not_durable(draw: st.DrawFn) -> str:
    act, when = draw(EN_ACTS), draw(EN_WHEN)
    zh_act, zh_when = draw(ZH_ACTS), draw(ZH_WHEN)
    prefix, closing = draw(EN_PREFIX), draw(EN_CLOSING_CUE)
    return draw(
        st.sampled_from(
            [
                f"{prefix} my colleague and I never {act}.",  # negated
                f"{prefix} {draw(EN_OTHERS)} {act}s {when}.",  # third party
                f"{draw(EN_OTHERS)} {act}s {when}{closing}.",
                f"{draw(ZH_OTHERS)}{zh_when}{zh_act}{draw(ZH_CLOSING_CUE)}。",
                f"{prefix} if I {act} {when}, I'm late.",  # hypothetical
                f"I {act} {when} this time{closing}.",  # one-time
                f"我这次{zh_when}{zh_act}{draw(ZH_CLOSING_CUE)}。",
                f"{prefix} do I {act} {when}?",  # question
                f"{draw(ZH_PREFIX)}我{zh_when}{zh_act}吗？",
                f"{prefix} I {act} {when}, yeah right.",  # joke
                f"I don't {act} {when}{closing}.",  # negated, kept only with its negation
            ]
        )
    )


@settings(max_examples=120, deadline=None)
@given(cued_but_not_durable())
def test_cue__cued_but_negated_others_supposed_one_off_asked_or_joked_never_commits_a_claim(
    text: str,
) -> None:
    for _, value in _committed(text):
        assert "don't" in value or "never" in value, (text, value)


EN_HEADERS = st.sampled_from(
    ["Remember two things:", "Please remember these:", "Remember the following:"]
)
ZH_HEADERS = st.sampled_from(["记住两件事：", "请记住这几点：", "帮我记一下："])
EN_MARKERS = st.sampled_from([("1)", "2)"), ("1.", "2."), ("(1)", "(2)")])
ZH_MARKERS = st.sampled_from([("1）", "2）"), ("①", "②"), ("（1）", "（2）"), ("1.", "2.")])


@st.composite
def remembered_list(draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    """(message, the two items' claims, a word of each claim)."""
    if draw(st.booleans()):
        acts = draw(st.lists(EN_ACTS, min_size=2, max_size=2, unique=True))
        claims = [f"I {a} {draw(EN_WHEN)}" for a in acts]
        first, second = draw(EN_MARKERS)
        end = draw(st.sampled_from(["", "."]))
        text = f"{draw(EN_HEADERS)} {first} {claims[0]}{end} {second} {claims[1]}{end}"
        return text, claims, acts
    acts = draw(st.lists(ZH_ACTS, min_size=2, max_size=2, unique=True))
    claims = [f"我{draw(ZH_WHEN)}{a}" for a in acts]
    first, second = draw(ZH_MARKERS)
    gap = draw(st.sampled_from(["", " "]))
    return f"{draw(ZH_HEADERS)}{first}{claims[0]}{gap}{second}{claims[1]}", claims, acts


@settings(max_examples=80, deadline=None)
@given(remembered_list())
def test_cue__each_item_of_a_remembered_list_is_proposed_with_its_own_span(
    case: tuple[str, list[str], list[str]],
) -> None:
    text, claims, acts = case
    explained = explain(text)
    spans = {
        s.text.rstrip("."): [c for c in s.candidates if c.decision == "COMMIT"] for s in explained
    }
    for claim, act in zip(claims, acts, strict=True):
        assert claim in spans, (text, list(spans))  # the item is a sentence of its own
        assert any(act in str(c.value) for c in spans[claim]), (text, claim, spans[claim])


@st.composite
def list_not_to_remember(draw: st.DrawFn) -> str:
    acts = draw(st.lists(EN_ACTS, min_size=2, max_size=2, unique=True))
    when = draw(EN_WHEN)
    first, second = draw(EN_MARKERS)
    header = draw(
        st.sampled_from(
            [
                "My boss listed two things:",  # someone else's list
                "Don't remember these:",  # negated
                "If I asked you to remember two things:",  # hypothetical
                "Should you remember these?",  # question
                "Two things my colleague does:",
            ]
        )
    )
    return f"{header} {first} I {acts[0]} {when} {second} I {acts[1]} {when}"


@settings(max_examples=60, deadline=None)
@given(list_not_to_remember())
def test_cue__a_list_under_no_remember_header_gets_no_instruction(text: str) -> None:
    assert _committed(text) == [], text


@given(st.sampled_from(["v1.2", "3.14", "2.", "3)", "step 2) only"]))
def test_cue__a_lone_number_is_no_list(fragment: str) -> None:
    assert list_markers(f"I use {fragment} daily") == []


# ------------------------------------------------------------ "project", "live in", two sentences
# Mechanisms: ``classifier_cues.PROJECT_GENERIC`` takes no function word, no noun that
# "project" qualifies and no single Chinese character as a project's name, so the bare word
# asks for no project scope; "the project" with no name stays a narrowing qualifier
# (``EN_QUALIFIER``), never user-wide. ``routes._names_a_place``: living "in the terminal"
# or "in <tool>" is a figure of speech, not a location. ``rules._beside_earlier``: a sentence
# that adds to an earlier one of the same message ("also", "too", "有时也") neither refines
# nor replaces its single-valued key.

PACKAGE_MANAGERS = st.sampled_from(["npm", "pnpm", "yarn", "bun"])


@st.composite
def bare_project_word(draw: st.DrawFn) -> tuple[str, str]:
    pm = draw(PACKAGE_MANAGERS)
    return draw(
        st.sampled_from(
            [
                (f"Within a project I always use {pm}.", pm),
                (f"I use {pm} for project work.", pm),
                (f"For project setup I use {pm}.", pm),
                (f"在项目里我一般用 {pm}。", pm),
                (f"在新项目里我都用 {pm}。", pm),
                (f"我做项目一般用 {pm}。", pm),
            ]
        )
    )


@settings(max_examples=40, deadline=None)
@given(bare_project_word())
def test_project__the_bare_word_asks_for_no_project_scope(case: tuple[str, str]) -> None:
    text, pm = case
    assert ("preference.package_manager", pm) in _committed(text), text


@given(PACKAGE_MANAGERS, st.sampled_from(["For the project", "In the project", "在这个项目里"]))
def test_project__one_unnamed_project_is_never_user_wide(pm: str, lead: str) -> None:
    text = f"{lead} I use {pm}." if lead.isascii() else f"{lead}我用 {pm}。"
    assert _committed(text) == [], text


@given(st.sampled_from(["atlas", "orion", "billing-api"]), PACKAGE_MANAGERS)
def test_project__a_named_project_still_asks_for_its_scope(name: str, pm: str) -> None:
    for text in (f"For the {name} project I use {pm}.", f"在 {name} 项目里我用 {pm}。"):
        assert _committed(text) == [], text


LIVE_IN = st.sampled_from(["live in", "basically live in", "practically live in"])


@given(LIVE_IN, st.one_of(tools, st.sampled_from(["the terminal", "spreadsheets", "my IDE"])))
def test_live_in__a_tool_or_a_thing_of_work_is_no_location(verb: str, thing: str) -> None:
    text = f"I {verb} {thing}."
    assert all(key != "profile.location" for key, _ in _proposed(text)), text


@given(st.sampled_from(["Berlin", "Lisbon", "the Bay Area", "a small town", "New York"]))
def test_live_in__a_place_is_still_a_location_for_the_owner_to_confirm(place: str) -> None:
    proposed = _proposed(f"I live in {place}.")
    assert ("profile.location", place.lower()) in proposed, proposed
    assert _committed(f"I live in {place}.") == []  # sensitive: never auto-committed


EDITORS = st.sampled_from(["vim", "emacs", "neovim", "vscode"])
ADDITIVE = st.sampled_from(
    ["I also use {x} sometimes", "I use {x} too", "I occasionally use {x} as well"]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(EDITORS, min_size=2, max_size=2, unique=True), ADDITIVE, EN_END)
def test_two_sentences__an_addition_leaves_the_first_value_standing(
    editors: list[str], additive: str, end: str
) -> None:
    first, second = editors
    text = f"I use {first}. {additive.format(x=second)}{end}"
    committed = _committed(text)
    assert ("preference.editor", first) in committed, (text, committed)
    assert ("preference.editor", second) not in committed, (text, committed)


@settings(max_examples=40, deadline=None)
@given(st.lists(PACKAGE_MANAGERS, min_size=2, max_size=2, unique=True))
def test_two_sentences__a_correction_still_refines(pms: list[str]) -> None:
    first, second = pms
    text = f"I use {first}. Actually, I use {second} for everything."
    keys = [(k, v) for k, v in _committed(text) if k == "preference.package_manager"]
    assert keys == [("preference.package_manager", second)], (text, keys)


@settings(max_examples=40, deadline=None)
@given(st.lists(EDITORS, min_size=2, max_size=2, unique=True), EN_OTHERS)
def test_two_sentences__an_addition_that_is_someone_elses_adds_nothing(
    editors: list[str], other: str
) -> None:
    first, second = editors
    for text in (
        f"I use {first}. {other} also uses {second}.",
        f"I use {first}. If I had time I would also use {second}.",
        f"I use {first}. Do you also use {second}?",
        f"I use {first}. I don't use {second} too.",
    ):
        named = re.compile(rf"(?<![\w]){re.escape(second)}(?![\w])")
        assert not any(named.search(value) for _, value in _committed(text)), text


# ------------------------------------------------------------ main-tool slang, reply format
# Mechanisms: ``routes.MAIN_TOOL`` ("daily driver", "go-to", "workhorse", "主力") names the
# role of a tool after it ("X is my daily driver", ``ROLE_AFTER``) or before it ("my daily
# driver is X", ``MAIN_TOOL_BEFORE``); ``classifier_cues.EN_FIRST_PERSON_DURABLE`` reads an
# imperative about replies in the plural ("Keep answers short", "in your replies") and
# ``ZH_FIRST_PERSON_DURABLE`` "回答都/回复一律…" as standing instructions.

MAIN_TOOL_SLANG = st.sampled_from(["daily driver", "go-to", "workhorse", "main tool"])
TOOL_AND_KEY = st.sampled_from(
    [
        ("neovim", "preference.editor"),
        ("emacs", "preference.editor"),
        ("pnpm", "preference.package_manager"),
        ("zsh", "preference.shell"),
        ("ubuntu", "preference.os"),
    ]
)


@settings(max_examples=60, deadline=None)
@given(TOOL_AND_KEY, MAIN_TOOL_SLANG, st.booleans(), EN_END)
def test_slang__my_main_tool_is_the_keys_value(
    pair: tuple[str, str], slang: str, first: bool, end: str
) -> None:
    tool, key = pair
    text = f"my {slang} is {tool}{end}" if first else f"{tool} is my {slang}{end}"
    assert (key, tool) in _committed(text), (text, _committed(text))


@given(TOOL_AND_KEY)
def test_slang__zh_main_tool_is_the_keys_value(pair: tuple[str, str]) -> None:
    tool, key = pair
    for text in (f"我的主力工具是 {tool}", f"{tool} 是我的主力"):
        assert (key, tool) in _committed(text), (text, _committed(text))


@given(TOOL_AND_KEY, MAIN_TOOL_SLANG, EN_OTHERS)
def test_slang__someone_elses_or_a_supposed_main_tool_is_not_the_owners(
    pair: tuple[str, str], slang: str, other: str
) -> None:
    tool, _ = pair
    for text in (
        f"{tool} is {other.lower()}'s {slang}.",
        f"{other} says {tool} is their {slang}.",
        f"If {tool} were my {slang}, I'd be faster.",
        f"Is {tool} my {slang}?",
        f"{tool} is not my {slang}.",
    ):
        assert _committed(text) == [], text


EN_FORMAT = st.sampled_from(
    [
        "Keep answers short",
        "Please keep your answers short",
        "Use bullet points in your answers",
        "Make your replies casual",
        "Keep all responses brief",
    ]
)
ZH_FORMAT = st.sampled_from(["回答都简短一些", "回复一律用要点", "回答都直接一点"])


@settings(max_examples=40, deadline=None)
@given(st.one_of(EN_FORMAT, ZH_FORMAT), st.sampled_from(["", ".", "!"]))
def test_format__an_imperative_about_every_reply_commits_as_style(fmt: str, end: str) -> None:
    committed = _committed(fmt + end)
    assert any(key == "preference.communication_style" for key, _ in committed), fmt


@st.composite
def not_a_standing_format(draw: st.DrawFn) -> str:
    fmt = draw(EN_FORMAT)
    return draw(
        st.sampled_from(
            [
                f"{fmt} today.",  # one-time
                f"{fmt} this time.",
                f"Can you {fmt[0].lower()}{fmt[1:]}?",  # question
                f"If you {fmt[0].lower()}{fmt[1:]}, I'll read them.",  # hypothetical
                f"{fmt}, yeah right.",  # joke
                f"My boss said: {fmt[0].lower()}{fmt[1:]}.",  # reported speech
                "Keep the answer above short.",  # this answer only
                "Answer in Japanese please.",  # may be this answer alone
                f"{draw(ZH_FORMAT)}吗？",
                f"他的{draw(ZH_FORMAT)}。",
            ]
        )
    )


@settings(max_examples=80, deadline=None)
@given(not_a_standing_format())
def test_format__one_offs_questions_hypotheses_jokes_and_reports_never_commit(text: str) -> None:
    assert _committed(text) == [], text


def _faker_first_names() -> list[str]:
    """Given names from Faker's locale catalogues (English-writing locales), ASCII only."""
    from faker import Faker

    names: set[str] = set()
    for locale in ("en_US", "en_GB", "en_IN", "de_DE", "es_ES", "fr_FR", "it_IT", "pt_BR"):
        provider = Faker(locale)
        for attr in ("first_names_female", "first_names_male", "first_names"):
            names.update(getattr(provider.provider("faker.providers.person"), attr, ()))
    return sorted(n for n in names if n.isascii() and n.isalpha() and n[:1].isupper())


_REAL_NAMES = _faker_first_names()


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(_REAL_NAMES),
    st.sampled_from(["Hi! I'm {n}, by the way.", "Thanks! I'm {n} btw.", "Hey, I'm {n}."]),
)
def test_a_real_given_name_in_passing_is_the_owners_name(name: str, template: str) -> None:
    # a name is lost only when it also names a spoken language or a people ("Jordan")
    text = template.format(n=name)
    found = [(key, value) for key, value in _proposed(text) if key == "profile.name"]
    if names_a_people_or_language(name) or sensitive_categories(name):
        assert found == [], text
    else:
        assert found == [("profile.name", name.lower())], text
