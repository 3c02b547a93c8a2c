"""First-person stance without a remember-cue (issue 25 item 1; mechanism: the stance
grammar of ``memwarden_shared.text.stance``, subject + stance verb + object phrase, read by
``classifier.note_may_stand`` for extractor and gate alike).

Sentences are generated from random subjects, stance and habit verbs, fillers and objects
drawn from the registry's catalogues: the owner's stated preference or habit, or their own
group's practice, commits with the object in its value; the same sentence asked, limited to
this once, supposed, said of someone else, negated or a reaction to the moment does not.
The whole pipeline is the pure one ``memwarden explain`` runs (extractor, ``assess``,
``decide``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_shared.contract.registry import default_registry
from memwarden_shared.text.classifier import Feature, classify
from memwarden_shared.text.stance import Stance, Subject, stance
from memwarden_usecases.explain import explain

REGISTRY = default_registry()
# tool names the registry catalogues (words no frequency list holds): the objects
OBJECTS = sorted(
    {
        name
        for key in ("decision.note", "preference.database", "preference.cloud")
        for spec in [REGISTRY.get(key.split(".", 1)[0], key)]
        if spec is not None
        for name in spec.value.get("catalogue", ())
        if name.isalpha()
    }
)
objects = st.sampled_from(OBJECTS)

EN_LEAD = st.sampled_from(["", "Personally, ", "Honestly, ", "In general, "])
EN_END = st.sampled_from([".", "!", ""])
EN_PREFER = st.sampled_from(["prefer", "like", "love", "really like", "generally prefer"])
EN_HABIT = st.sampled_from(["usually", "always", "normally", "typically", "tend to", "mostly"])
EN_PRACTICE = st.sampled_from(
    ["use", "work with", "reach for", "rely on", "set up", "swear by", "daily-drive", "main"]
)
EN_FOR = st.sampled_from(
    ["", " for side projects", " for my scripts", " at work", " for everything", " on my laptop"]
)
EN_FAVOURITE = st.sampled_from(["favourite", "favorite", "preferred", "go-to", "default"])
EN_THING = st.sampled_from(["tool", "setup", "pick", "choice for this"])
EN_GROUP = st.sampled_from(["We", "We all", "Our team", "Our company", "At work we"])
ZH_PREFER = st.sampled_from(["喜欢", "更喜欢", "比较喜欢", "偏好", "习惯", "一般", "平时", "通常"])
ZH_FOR = st.sampled_from(["", "做项目", "写脚本", "干活", "做开发"])
ZH_FAVOURITE = st.sampled_from(["最喜欢", "常用", "最常用", "惯用"])
ZH_THING = st.sampled_from(["工具", "软件", "东西"])
ZH_GROUP = st.sampled_from(["我们", "我们组", "我们团队", "我们公司"])
ZH_END = st.sampled_from(["。", "！", ""])


@st.composite
def en_owner_stance(draw: st.DrawFn) -> tuple[str, str]:
    obj = draw(objects)
    lead, end, purpose = draw(EN_LEAD), draw(EN_END), draw(EN_FOR)
    shape = draw(st.integers(0, 3))
    if shape == 0:
        text = f"{lead}I {draw(EN_PREFER)} {obj}{purpose}{end}"
    elif shape == 1:
        text = f"{lead}I {draw(EN_HABIT)} {draw(EN_PRACTICE)} {obj}{purpose}{end}"
    elif shape == 2:
        text = f"{lead}My {draw(EN_FAVOURITE)} {draw(EN_THING)} is {obj}{end}"
    else:
        text = f"{lead}I'm a big fan of {obj}{purpose}{end}"
    return text, obj


@st.composite
def en_group_practice(draw: st.DrawFn) -> tuple[str, str]:
    obj = draw(objects)
    group = draw(EN_GROUP)
    verb = "uses" if group.startswith("Our") else "use"
    # a product name is written with its capital (a bare "we" needs a thing of work)
    return f"{group} {verb} {obj.capitalize()}{draw(EN_FOR)}{draw(EN_END)}", obj


@st.composite
def zh_owner_stance(draw: st.DrawFn) -> tuple[str, str]:
    obj = draw(objects)
    if draw(st.booleans()):
        return f"我{draw(ZH_PREFER)}用 {obj} {draw(ZH_FOR)}{draw(ZH_END)}", obj
    return f"我{draw(ZH_FAVOURITE)}的{draw(ZH_THING)}是 {obj}{draw(ZH_END)}", obj


@st.composite
def zh_group_practice(draw: st.DrawFn) -> tuple[str, str]:
    obj = draw(objects)
    return f"{draw(ZH_GROUP)}{draw(st.sampled_from(['', '一般', '都']))}用 {obj}{draw(ZH_END)}", obj


def _committed_values(text: str) -> list[str]:
    return [
        str(c.value).lower() for s in explain(text) for c in s.candidates if c.decision == "COMMIT"
    ]


@settings(max_examples=60, deadline=None)
@given(st.one_of(en_owner_stance(), zh_owner_stance(), en_group_practice(), zh_group_practice()))
def test_stance__a_stated_preference_habit_or_group_practice_commits(case: tuple[str, str]) -> None:
    text, obj = case
    values = _committed_values(text)
    assert any(obj.lower() in v for v in values), (text, values)


@settings(max_examples=40, deadline=None)
@given(st.one_of(en_group_practice(), zh_group_practice()))
def test_stance__a_group_practice_is_the_groups_not_the_owners_preference(
    case: tuple[str, str],
) -> None:
    text, _ = case
    keys = {c.key for s in explain(text) for c in s.candidates}
    assert keys <= {"decision.note"}, (text, keys)


# --------------------------------------------------------------------------- negatives

EN_OTHERS = st.sampled_from(["My sister", "My colleague", "My boss", "Alice", "Their team"])
ZH_OTHERS = st.sampled_from(["我同事", "我朋友", "我老板", "他们团队", "我妹妹"])


@st.composite
def not_a_standing_stance(draw: st.DrawFn) -> str:
    obj = draw(objects)
    verb, habit, practice = draw(EN_PREFER), draw(EN_HABIT), draw(EN_PRACTICE)
    zh = draw(ZH_PREFER)
    return draw(
        st.sampled_from(
            [
                # questions
                f"Do I {verb} {obj}?",
                f"Do you {habit} {practice} {obj}?",
                f"我{zh}用 {obj}吗？",
                f"我们组用 {obj}吗？",
                # one-time requests
                f"I {verb} {obj} this time.",
                f"I {verb} {obj} for now.",
                f"我这次{zh}用 {obj}。",
                f"我暂时用 {obj}。",
                # hypotheticals
                f"If I had the budget, I would {habit} {practice} {obj}.",
                f"如果换了工作，我{zh}用 {obj}。",
                # other people's facts
                f"{draw(EN_OTHERS)} {habit} {practice}s {obj}.",
                f"{draw(ZH_OTHERS)}{zh}用 {obj}。",
                f"They use {obj} for everything.",
                # negations
                f"I don't {verb} {obj}.",
                f"I never {practice} {obj}.",
                f"我不{zh}用 {obj}。",
                f"我们组不用 {obj}。",
                # a reaction to the moment, a hedge, a wish
                f"I like this {draw(EN_THING)}.",
                f"Maybe I {verb} {obj}.",
                f"I would prefer to stop here and try {draw(EN_THING)} later.",
            ]
        )
    )


@settings(max_examples=120, deadline=None)
@given(not_a_standing_stance())
def test_stance__questions_one_offs_hypotheses_others_and_negations_never_commit(
    text: str,
) -> None:
    assert _committed_values(text) == [], text


# --------------------------------------------------------------------------- the grammar


@given(en_group_practice())
def test_stance__reads_the_group_as_subject(case: tuple[str, str]) -> None:
    said = stance(case[0])
    assert said is not None and said.subject is Subject.GROUP and said.stance is Stance.USE


@given(objects, EN_HABIT, EN_PRACTICE)
def test_stance__a_habit_adverb_makes_a_habit(obj: str, habit: str, practice: str) -> None:
    said = stance(f"I {habit} {practice} {obj}.")
    assert said is not None and said.stance is Stance.HABIT and obj in said.object


@given(objects)
def test_stance__a_problem_report_is_no_stance(obj: str) -> None:
    assert stance(f"I usually get an error when I run {obj}.") is None
    assert stance(f"我一般用 {obj} 会报错。") is None


@settings(deadline=None)
@given(
    st.sampled_from(["I like", "I love", "I really like", "Personally, I like"]),
    st.sampled_from(["this", "that", "your", "the"]),
    st.sampled_from(["idea", "ideas", "side", "identity", "ideal"]),
)
def test_stance__a_word_holding_ide_is_no_editor_context(lead: str, det: str, noun: str) -> None:
    # mechanism: routes.ZH_EDITOR_CONTEXT bounds its ASCII "IDE" (read case-insensitively)
    keys = {c.key for s in explain(f"{lead} {det} {noun}.") for c in s.candidates}
    assert "preference.editor" not in keys


# --------------------------------------------------------------------------- round two

# no laughter among the fillers: a claim said laughing goes to the owner (test_non_serious)
EN_FILLER = st.sampled_from(["", "tbh ", "btw ", "ok so ", "Honestly, ", "um ", "so "])
EN_EVERY = st.sampled_from(["Usually", "Normally", "Every morning", "On weekends", "Most days"])
EN_ROLE = st.sampled_from(["night owl", "morning person", "backend developer", "teacher"])
ZH_GAP = st.sampled_from(["上班", "写文档", "周末", "在家", "做饭"])
ZH_HABIT = st.sampled_from(["一般", "通常", "平时", "习惯"])
ZH_ROUTINE = st.sampled_from(["每周五", "每天", "一般", "通常"])
ZH_THINGS = st.sampled_from(["代码", "文档", "服务"])


@st.composite
def second_round_stance(draw: st.DrawFn) -> tuple[str, str]:
    """Chat fillers before the subject; the habit said first; an adverbial between 我 and
    the habit word; a group's routine or its things; a role the owner is."""
    obj = draw(objects)
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return f"{draw(EN_FILLER)}I {draw(EN_PREFER)} {obj}{draw(EN_FOR)}{draw(EN_END)}", obj
    if shape == 1:
        return f"{draw(EN_EVERY)} I {draw(EN_PRACTICE)} {obj}{draw(EN_FOR)}.", obj
    if shape == 2:
        return f"我{draw(ZH_GAP)}{draw(ZH_HABIT)}用 {obj}{draw(ZH_END)}", obj
    if shape == 3:
        return f"{draw(ZH_GROUP)}{draw(ZH_ROUTINE)}都用 {obj} 发版{draw(ZH_END)}", obj
    if shape == 4:
        return f"我们团队的{draw(ZH_THINGS)}都放在 {obj} 上{draw(ZH_END)}", obj
    role = draw(EN_ROLE)
    return f"{draw(EN_FILLER)}I'm a {role} and I {draw(EN_PREFER)} {obj}.", obj


@settings(max_examples=80, deadline=None)
@given(second_round_stance())
def test_stance__fillers_habit_first_adverbials_and_group_routines_commit(
    case: tuple[str, str],
) -> None:
    text, obj = case
    values = _committed_values(text)
    assert any(obj.lower() in v for v in values), (text, values)


@settings(deadline=None)
@given(EN_FILLER, EN_ROLE)
def test_stance__a_role_the_owner_is_commits(filler: str, role: str) -> None:
    values = _committed_values(f"{filler}I'm a {role}.")
    assert any(role in v for v in values), values


@st.composite
def second_round_negative(draw: st.DrawFn) -> str:
    obj = draw(objects)
    practice = draw(EN_PRACTICE)
    return draw(
        st.sampled_from(
            [
                # a past or a modal is no habit, nor another group's routine
                f"{draw(EN_EVERY)} I used {obj} last year.",
                f"{draw(EN_EVERY)} I would {practice} {obj}, but today I can't.",
                f"We used {obj} last year.",
                f"We should use {obj}.",
                f"We might use {obj}.",
                f"Their team deploys with {obj}.",
                f"他们组{draw(ZH_ROUTINE)}都用 {obj} 发版。",
                f"我们组这次用 {obj}。",
                f"我们组下周开始用 {obj}。",
                # an adverbial of a finished or passing moment
                f"我昨天一直在用 {obj}。",
                f"我刚才一直在用 {obj}。",
                # a judgement of the moment is no role
                f"{draw(EN_FILLER)}I'm an idiot.",
                f"{draw(EN_FILLER)}I'm a mess today.",
                "我是个傻子。",
                # a problem report
                f"Every day I get errors from {obj}.",
                "我每天都遇到报错。",
            ]
        )
    )


@settings(max_examples=80, deadline=None)
@given(second_round_negative())
def test_stance__pasts_modals_other_groups_moments_and_judgements_never_commit(
    text: str,
) -> None:
    assert _committed_values(text) == [], text


@settings(deadline=None)
@given(
    st.sampled_from(["I use", "I like", "I generally use", "我喜欢", "我比较偏爱"]),
    st.sampled_from(["dark", "light", "深色", "浅色"]),
    st.sampled_from(["chocolate", "roast coffee", "jeans", "系的衣服", "的木头家具"]),
)
def test_stance__a_colour_qualifying_another_noun_is_no_theme(
    verb: str, colour: str, noun: str
) -> None:
    # mechanism: routes._attributive (a theme word followed by another noun is an adjective)
    sep = " " if colour.isascii() else ""
    keys = {
        c.key
        for s in explain(f"{verb}{sep}{colour}{sep if noun.isascii() else ''}{noun}。")
        for c in s.candidates
    }
    assert "preference.ui_theme" not in keys


# --------------------------------------------------------------------------- time and scope

NOW_WORDS = st.sampled_from(["These days", "Nowadays"])
TREND_WORDS = st.sampled_from(["lately", "recently"])
_name = st.text(alphabet="bcdfghjkmnpqrstvwxz", min_size=4, max_size=8)


@settings(deadline=None)
@given(NOW_WORDS, EN_PREFER, objects)
def test_stance__these_days_with_a_present_stance_is_now(now: str, verb: str, obj: str) -> None:
    # mechanism: classifier._claim_features lifts the trend hedge of "these days"/"nowadays"
    # from a present-simple stance
    values = _committed_values(f"{now} I {verb} {obj}.")
    assert any(obj in v for v in values), values


@settings(deadline=None)
@given(TREND_WORDS, EN_PREFER, objects, NOW_WORDS)
def test_stance__a_trend_still_goes_to_the_owner(trend: str, verb: str, obj: str, now: str) -> None:
    assert _committed_values(f"I {verb} {obj} {trend}.") == []
    assert _committed_values(f"{now} I've been using {obj} a lot.") == []
    assert _committed_values(f"我最近{draw_zh(verb)}用 {obj}。") == []


def draw_zh(verb: str) -> str:
    return "喜欢" if "like" in verb or "love" in verb else "偏好"


@settings(deadline=None)
@given(st.sampled_from(["我", "我们", ""]), st.sampled_from(["做", "写", "搞"]), objects)
def test_stance__doing_projects_names_no_project(who: str, verb: str, obj: str) -> None:
    # mechanism: classifier_cues.PROJECT_GENERIC, an activity before 项目 is no name
    reasons = {
        r
        for s in explain(f"{who}{verb}项目一般用 {obj}。")
        for c in s.candidates
        for r in c.reasons
    }
    assert "project_scope_required" not in reasons


@settings(deadline=None)
@given(_name, objects)
def test_stance__a_named_project_still_needs_its_scope(name: str, obj: str) -> None:
    candidates = [c for s in explain(f"在 {name} 项目里我一般用 {obj}。") for c in s.candidates]
    assert candidates and all(c.decision != "COMMIT" for c in candidates)
    # a random name may also read as sensitive content: refused, never committed
    assert all("project_scope_required" in c.reasons or c.decision == "REJECT" for c in candidates)


# --------------------------------------------------------------------------- the owner's pets

EN_PETS = st.sampled_from(["cat", "dog", "hamster", "parrot", "rabbit", "corgi", "goldfish"])
ZH_PETS = st.sampled_from(["猫", "狗", "仓鼠", "兔子", "柯基", "金鱼"])
COUNT_ZH = st.sampled_from(["一", "两", "三"])


@st.composite
def owners_pet(draw: st.DrawFn) -> tuple[str, str]:
    """Having a pet, named or not (mechanism: classifier_cues.EN_/ZH_HOUSEHOLD_DURABLE, read
    by the classifier and by household.household_note)."""
    pet, zh = draw(EN_PETS), draw(ZH_PETS)
    lead = draw(st.sampled_from(["", "btw ", "Oh, "]))
    return draw(
        st.sampled_from(
            [
                (f"{lead}I have two {pet}{'' if pet.endswith('fish') else 's'}.", pet),
                (f"{lead}We've got a {pet}.", pet),
                (
                    f"{lead}My {pet} is a {draw(st.sampled_from(['rescue', 'tabby', 'senior']))}.",
                    pet,
                ),
                (f"我养了{draw(COUNT_ZH)}只{zh}。", zh),
                (f"我家有{draw(COUNT_ZH)}只{zh}。", zh),
            ]
        )
    )


@settings(max_examples=60, deadline=None)
@given(owners_pet())
def test_stance__the_owners_pet_commits(case: tuple[str, str]) -> None:
    text, pet = case
    values = _committed_values(text)
    assert any(pet in v for v in values), (text, values)


@settings(max_examples=60, deadline=None)
@given(EN_PETS, ZH_PETS, EN_OTHERS, ZH_OTHERS)
def test_stance__a_wanted_past_or_others_pet_does_not(
    pet: str, zh: str, other: str, zh_other: str
) -> None:
    for text in (
        f"I want to get a {pet}.",
        f"I had a {pet} as a kid.",
        f"{other} has a {pet}.",
        f"Do you have a {pet}?",
        f"If I had a {pet}, I would walk it daily.",
        f"我想养一只{zh}。",
        f"我以前养过{zh}。",
        f"{zh_other}养了一只{zh}。",
        f"I have a {pet} allergy.",
    ):
        assert _committed_values(text) == [], text


# --------------------------------------------------------------------------- past episodes

ZH_PAST_DAY = st.sampled_from(["昨天", "前天", "上周", "上个月", "上周三"])
ZH_START = st.sampled_from(["从{d}开始我", "我{d}起", "我从{d}开始"])


@settings(max_examples=60, deadline=None)
@given(ZH_PAST_DAY, st.sampled_from(["一直在用", "一直用", "都用", "用"]), objects)
def test_stance__a_past_day_bounds_an_episode(day: str, verb: str, obj: str) -> None:
    # mechanism: classifier._looks_back, a relative day before the message day with no
    # word of beginning makes the claim TRANSIENT (Chinese marks no tense)
    assert _committed_values(f"我{day}{verb} {obj}。") == []


@settings(max_examples=60, deadline=None)
@given(ZH_PAST_DAY, ZH_START, objects)
def test_stance__a_past_day_that_starts_something_still_holds(
    day: str, start: str, obj: str
) -> None:
    text = start.format(d=day) + f"用 {obj}。"
    values = _committed_values(text)
    assert any(obj in v for v in values), (text, values)


# --------------------------------------------------------------------------- everyone's "we"

BODY = st.sampled_from(["lungs", "eyes", "hands", "brains"])
NOTICE = st.sampled_from(["experience", "visit", "account", "browsing"])


@settings(deadline=None)
@given(BODY, NOTICE, st.sampled_from(["筷子", "勺子", "眼睛", "手机"]))
def test_stance__everyones_we_or_a_pasted_notice_is_no_group_practice(
    body: str, notice: str, zh: str
) -> None:
    # mechanism: stance._owners_group (a bare "we" must name a thing of work)
    for text in (
        f"We use our {body} every day.",
        f"We use cookies to improve your {notice}.",
        f"We all use {body} nowadays.",
        f"我们用{zh}吃饭。",
    ):
        assert _committed_values(text) == [], text


# --------------------------------------------------------------------------- a choice of the moment

EN_PICK = st.sampled_from(
    [
        "the second option",
        "the first one",
        "option B",
        "the shorter draft",
        "the one with tests",
        "your approach",
        "this version",
        "the last variant",
        "that answer",
    ]
)
ZH_PICK = st.sampled_from(
    ["第二个方案", "上面那个", "这个版本", "第一种写法", "你这个回答", "选项二"]
)


@settings(max_examples=60, deadline=None)
@given(EN_FILLER, EN_PREFER, EN_PICK, ZH_PREFER, ZH_PICK, st.sampled_from(["", " here", " better"]))
def test_stance__picking_among_this_conversations_things_is_no_preference(
    filler: str, verb: str, pick: str, zh_verb: str, zh_pick: str, tail: str
) -> None:
    # mechanism: stance._MOMENT (an object that points at the conversation or the assistant)
    assert _committed_values(f"{filler}I {verb} {pick}{tail}.") == []
    assert _committed_values(f"我{zh_verb}{zh_pick}。") == []


# --------------------------------------------------------------------------- people and health

EN_PEOPLE = st.sampled_from(["my wife", "my boss", "my sister", "my colleague", "my neighbour"])
ZH_PEOPLE = st.sampled_from(["我同事", "我老板", "我妹妹", "我朋友"])


@settings(deadline=None)
@given(EN_PREFER, EN_PEOPLE, ZH_PREFER, ZH_PEOPLE)
def test_stance__a_feeling_about_a_person_is_no_stance(
    verb: str, person: str, zh_verb: str, zh_person: str
) -> None:
    # mechanism: stance._PERSON (a person as the object of the owner's stance)
    assert _committed_values(f"I {verb} {person}.") == []
    assert _committed_values(f"我{zh_verb}{zh_person}。") == []


@settings(deadline=None)
@given(EN_HABIT, st.sampled_from(["meds", "pills", "medicine", "prescription"]))
def test_stance__a_medicine_habit_is_health_never_a_note(habit: str, what: str) -> None:
    # mechanism: routes.EN_HEALTH names medicines, so profile.health (forbidden) takes it
    assert _committed_values(f"I {habit} take my {what} at night.") == []


# --------------------------------------------------------------------------- wishes, own speech

EN_WISH = st.sampled_from(
    ["I'd", "I would", "I'd much", "I would really", "We'd", "Honestly I'd", "Personally, I would"]
)
EN_WISH_VERB = st.sampled_from(["prefer", "rather", "like", "love"])
EN_WISH_TAIL = st.sampled_from(["", " here", " for now", " this time", " if possible", " instead"])
EN_WISH_ACT = st.sampled_from(["", "to try ", "to use ", "use ", "go with ", "stick with "])
EN_SPEECH = st.sampled_from(
    ["I said", "I told them", "I mentioned", "I wrote", "I told my boss", "I once said"]
)
EN_WHERE = st.sampled_from(["", " in the meeting", " at standup", " yesterday", " in the review"])
ZH_WISH = st.sampled_from(["宁愿", "宁可", "更想", "倒是想", "还是想", "想"])
ZH_SPEECH = st.sampled_from(["说了", "说过", "说", "讲过", "提过", "告诉同事", "回复"])
ZH_WHERE = st.sampled_from(["", "在会上", "昨天", "上次开会", "在群里"])
ZH_STANCE = st.sampled_from(["喜欢", "更喜欢", "习惯用", "一般用", "平时用"])


@st.composite
def a_wish_or_own_words_elsewhere(draw: st.DrawFn) -> str:
    obj = draw(objects)
    shape = draw(st.integers(0, 3))
    if shape == 0:
        act = draw(EN_WISH_ACT)
        verb = draw(EN_WISH_VERB)
        act = act if verb != "rather" else act.removeprefix("to ")
        return f"{draw(EN_WISH)} {verb} {act}{obj}{draw(EN_WISH_TAIL)}{draw(EN_END)}"
    if shape == 1:
        where, that = draw(EN_WHERE), draw(st.sampled_from(["", " that"]))
        return f"{draw(EN_SPEECH)}{where}{that} I {draw(EN_PREFER)} {obj}{draw(EN_END)}"
    if shape == 2:
        return f"我{draw(ZH_WISH)}用 {obj}{draw(ZH_FOR)}{draw(ZH_END)}"
    where = draw(ZH_WHERE)
    sep = draw(st.sampled_from(["", "，"]))
    return f"{where}我{draw(ZH_SPEECH)}{sep}我{draw(ZH_STANCE)} {obj}{draw(ZH_END)}"


@settings(max_examples=120, deadline=None)
@given(a_wish_or_own_words_elsewhere())
def test_stance__a_wish_or_the_owners_words_said_elsewhere_never_commit(text: str) -> None:
    assert _committed_values(text) == [], text


@settings(max_examples=40, deadline=None)
@given(objects, st.sampled_from(["As I said, ", "Like I said, ", "I told you, ", "我跟你说过，"]))
def test_stance__restating_a_preference_to_the_assistant_is_no_report(obj: str, lead: str) -> None:
    text = f"{lead}我喜欢 {obj}。" if lead.startswith("我") else f"{lead}I prefer {obj}."
    assert not classify(text).has(Feature.REPORTED), text


@settings(max_examples=40, deadline=None)
@given(objects, st.sampled_from(["I'm used to", "I am used to", "I'm accustomed to"]), EN_FOR)
def test_stance__being_used_to_a_thing_commits(obj: str, head: str, purpose: str) -> None:
    values = _committed_values(f"{head} {obj}{purpose}.")
    assert any(obj.lower() in v for v in values), (head, obj, values)


@settings(max_examples=40, deadline=None)
@given(
    objects,
    st.sampled_from(["I'm not used to", "Am I used to", "I used to use", "My boss is used to"]),
)
def test_stance__not_being_used_to_a_thing_does_not(obj: str, head: str) -> None:
    assert _committed_values(f"{head} {obj}?" if head.startswith("Am") else f"{head} {obj}.") == []
