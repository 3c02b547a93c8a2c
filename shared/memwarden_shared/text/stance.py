"""First-person stance: a small grammar of standing preferences and habits. Pure.

A plain statement of how the owner (or the owner's own group) holds to something is
durable without any remember-cue: "I prefer X", "I usually <verb> X", "my favourite N is X",
"we use X", "我一般…", "我习惯…", "我们组用…". The grammar reads the folded claim as

    subject   first person singular ("i", "我") or the owner's group ("we", "our team",
              "我们组")
    stance    a verb class: PREFER (prefer, like, love, 喜欢, 偏好), HABIT (a habit adverb
              and a present verb: usually, always, tend to, 一般, 习惯, 平时), FAVOURITE (a
              possessive of choice and a copula: "my go-to N is", "我最喜欢的N是"),
              AM (a self-description: "I'm a/an …", "我是一个…"), or USE for a group
    object    the rest of the clause, which must hold at least one word

It only says which shape a sentence has. Whether it is durable (not negated, questioned,
hypothetical, one-time, reported …) stays the classifier's to say; the extractor and the
gate both ask :func:`stance` through ``classifier.note_may_stand``, so they never disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from memwarden_shared.contract.registry import default_registry
from memwarden_shared.text import classifier_cues as cues
from memwarden_shared.text.fold import Level, fold_text
from memwarden_shared.text.tool_catalogue import AMBIGUOUS_FORMS, ORDINARY_WORD_NAMES, TOOLS


class Subject(StrEnum):
    OWNER = "owner"  # "I", "我"
    GROUP = "group"  # "we", "our team", "我们组": a group the owner belongs to


class Stance(StrEnum):
    PREFER = "prefer"
    HABIT = "habit"
    FAVOURITE = "favourite"
    AM = "am"
    USE = "use"  # the group's practice


@dataclass(frozen=True)
class StanceClaim:
    subject: Subject
    stance: Stance
    object: str  # the object phrase, folded


# --------------------------------------------------------------------------- English

# Fillers, and an adverbial of place, time or scope before the subject ("At work, I …",
# "在公司我一般…"): the classifier judges what it scopes (a named project, a condition).
_EN_LEAD = (
    r"^(?:(?:personally|honestly|generally|basically|in general|as a rule|for me"
    r"|(?:at|in|for|on|during|with|when|whenever|after|before)\s+[^,;:]{1,40}?,)\s*,?\s*)*"
)
_EN_ADVERB = (
    r"(?:really|much|strongly|definitely|generally|usually|normally|typically|mostly|mainly"
    r"|always|also|still|just|honestly|personally|actually|absolutely|exclusively|primarily"
    r"|pretty much|almost always|nearly always|by and large|habitually|regularly|often"
    r"|frequently|invariably|religiously|consistently|" + cues.INTENSIFIER + r")"
)
_EN_HABIT_ADVERB = (
    r"(?:usually|normally|typically|generally|mostly|mainly|always|almost always|nearly always"
    r"|habitually|regularly|often|frequently|invariably|religiously|consistently|tend to"
    r"|like to|prefer to|love to)"
)
# "I'd rather …", "I would prefer …" are left out: mostly a wish about the moment ("I would
# prefer to stop here"); the narrow keys still read them where they name a value.
_EN_PREFER = (
    r"(?:prefers?|likes?|loves?|enjoys?|favou?rs?|adores?"
    r"|(?:am|'m)\s+(?:(?:" + cues.INTENSIFIER + r"|big|huge)\s+)*(?:a (?:big |huge )?fan"
    r" of|into|partial to|keen on|fond of|hooked on|obsessed with|used to|accustomed to))"
)
# A past tense is an event, a modal a plan or a wish: neither is a habit.
_EN_NOT_PRESENT = (
    r"(?:ate|went|had|got|made|took|bought|wrote|ran|did|saw|was|were|said|told|sent|paid"
    r"|gave|left|came|met|found|chose|picked|tried|meant|thought|felt|heard|kept|lost|sold"
    r"|spent|won|drove|flew|sat|stood|fell|broke|will|would|could|should|might|may|must"
    r"|can|shall|am|is|are|have|has|need|needs|want|wants|don't|do not|didn't|never|not)\b"
)
_EN_VERB = r"(?!" + _EN_NOT_PRESENT + r")[a-z]+(?<!ed)"
# A reaction to the conversation is no standing preference: "I like this", "I love your idea".
_EN_OBJECT = (
    r"(?!(?:it|this|that|these|those|them|you|your|yours|him|her|what you|how you|the idea"
    r"|the answer|the suggestion|the plan)\b)(?P<object>[^\s,].*)"
)
# Verbs of a standing practice, said in the present simple: "I use a standing desk", "I
# commute by train". Only these: "I run into an error", "I see", "I need …" state nothing.
_EN_PRACTICE = (
    r"(?:use|drink|eat|commute|cycle|bike|walk|drive|cook|wear|journal|meditate|keep|store"
    r"|write|read|code|program|develop|work|deploy|host|indent|format|name|back up|shower"
    r"|run on|swim|jog|listen to|speak|type|sleep|wake up|get up|go to bed|start work"
    r"|finish work|have (?:breakfast|lunch|dinner|coffee|tea)|play|practi[cs]e|study|teach"
    r"|watch|volunteer|main|daily[- ]drive|rock|swear by)s?"
)
_EN_OWNER = re.compile(
    _EN_LEAD
    + r"i(?:\s+|(?='))(?:"
    # "I (really) prefer X", "I'd rather X", "I'm a big fan of X"
    + r"(?:"
    + _EN_ADVERB
    + r"\s+)*"
    + _EN_PREFER
    + r"|(?:"
    + _EN_ADVERB
    + r"\s+)*"
    + _EN_HABIT_ADVERB
    + r"\s+"
    + _EN_VERB
    + r"|(?:"
    + _EN_ADVERB
    + r"\s+)*"
    + _EN_PRACTICE
    + r")\b\s*"
    + _EN_OBJECT
)
# The habit said first: "Usually I take the train", "Every morning I go for a run".
_EN_HABIT_FIRST = re.compile(
    _EN_LEAD + r"(?:usually|normally|typically|generally|mostly|most days|most mornings"
    r"|on weekends|on weekdays|these days|nowadays|every (?:single )?(?:morning|day|evening"
    r"|night|week|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\s*,?\s*i\s+(?:"
    + _EN_ADVERB
    + r"\s+)*"
    + _EN_VERB
    + r"\b\s*"
    + _EN_OBJECT
)
_EN_POSSESSIVE_OF_CHOICE = (
    r"(?:all-time\s+|absolute\s+|personal\s+)?(?:favou?rite|fave?|preferred|go[- ]to|usual|default"
    r"|regular|everyday|daily|main|trusty|weapon of choice)"
)
_EN_FAVOURITE = re.compile(
    _EN_LEAD
    + r"my\s+"
    + _EN_POSSESSIVE_OF_CHOICE
    + r"(?:\s+[\w'-]+){0,3}?\s+(?:is|are)\s+"
    + _EN_OBJECT
)
_EN_FAVOURITE_AFTER = re.compile(
    r"^(?P<object>[\w.+#' -]{1,40}?)\s+(?:is|are)\s+(?:still\s+|now\s+)?my\s+"
    + _EN_POSSESSIVE_OF_CHOICE
    + r"\b"
)
# "I'm an early riser", "I am a night owl": not "I'm a bit tired" (a state of the moment)
_EN_AM = re.compile(
    _EN_LEAD + r"i(?:'m| am)\s+(?:(?:" + _EN_ADVERB + r")\s+)*(?:a|an)\s+"
    r"(?!(?:bit|little|lot|few|while|moment|second|minute|hurry|rush|mess|meeting|call)\b)"
    + _EN_OBJECT
)
# A self-description names a role or a kind of person ("software engineer", "morning person",
# "night owl"), not a judgement of the moment ("I'm an idiot"): its head has a role's shape.
_EN_ROLE_HEAD = re.compile(
    r"(?:[a-z]{2,}(?:er|or|ist|ian|ant|ent|eer|ee|ive)|person|people|type|owl|bird|native"
    r"|speaker|user|fan|parent|mum|mom|dad)(?:\s+(?:at|in|for|from|by|on|who|with|and)\b.*)?$"
)
ZH_ROLE_HEAD = re.compile(
    r"(?:者|员|师|生|家|人|手|族|党|控|迷|猫子|工|长|狗|妈|爸|粉|户)(?:[，,].*)?$"
)
_EN_GROUP_SUBJECT = (
    r"(?:we|our\s+(?:whole\s+)?(?:team|squad|group|company|org|organi[sz]ation|department|lab"
    r"|office|startup|shop|household|family))"
)
_EN_GROUP_HEAD = (
    _EN_LEAD
    + r"(?:(?:at work|at the office|at my (?:job|company|work)|here)\s*,?\s*)?"
    + _EN_GROUP_SUBJECT
    + r"\s+(?:(?:"
    + _EN_ADVERB
    + r"|all)\s+)*(?:use|uses|run on|runs on|work in|works in"
    r"|host on|hosts on|deploy to|deploys to|rely on|relies on|build with|builds with"
    r"|write|writes|track|tracks|keep|keeps|store|stores|develop in|develops in|code in"
    r"|communicate (?:in|on|over|via)|communicates (?:in|on|over|via)|chat (?:in|on)"
    r"|chats (?:in|on)|deploy|deploys|release|releases|ship|ships|meet|meets|work|works)\b"
)
_EN_GROUP_USE = re.compile(_EN_GROUP_HEAD + r"\s*" + _EN_OBJECT)

# --------------------------------------------------------------------------- Chinese

_ZH_LEAD = (
    r"^(?:(?:其实|说实话|个人来说|一般来说|平常|总的来说"
    r"|(?:在|对于)?[^，,。；;！？!?]{1,12}?(?:里|上|中|时|的时候|的话)|在[^，,。；;！？!?我]{1,10}"
    r"|从[^，,。；;！？!?我]{1,8}(?:开始|起))"
    r"\s*[,，]?\s*)*"
)
_ZH_OBJECT = r"\s*(?!(?:这|那|你的|你说|你这|它|他|她)|[,，])(?P<object>.*[\w\u4e00-\u9fff].*)"
_ZH_PREFER = r"(?:更喜欢|最喜欢|比较喜欢|特别喜欢|很喜欢|挺喜欢|喜欢|偏好|偏爱|更爱|最爱|钟爱|爱)"
_ZH_HABIT = (
    r"(?:一般|通常|平时|平常|习惯|习惯了|总是|一向|向来|一直|往往|每天|每周|每晚|每早|每次"
    r"|经常|常常|老是|基本上|基本都|大多|日常)"
)
# Verbs of practice in Chinese: "我用 Notion 记笔记", "我从上周起用 …". Only in a clause with no
# aspect marker: "我用 npm 装了个包" is an event (as classifier_cues.ZH_FIRST_PERSON_WEAK).
_ZH_PRACTICE = r"(?:用|使用|喝|骑|坐|听|写|读|玩)"
_ZH_OWNER = re.compile(
    _ZH_LEAD
    + r"我(?!们)(?:个人|自己|本人)?\s*(?:也|还|都|就|真的|确实|比较|非常)?\s*"
    # a short adverbial between ("我上班一般…", "我写文档一般用…"), never a finished event;
    # a past day may open something ("我上周起…")
    + r"(?:[^，,。！？!?；;了过不没别昨今明刚\s]{1,4}?\s*"
    + r"|(?:从)?[^，,。！？!?；;了过不没别]{1,6}?(?:开始|起)\s*)?"
    + r"(?:(?P<stance>"
    + _ZH_PREFER
    + r"|"
    + _ZH_HABIT
    + r")(?!的)|(?P<practice>"
    + _ZH_PRACTICE
    + r"))"
    + _ZH_OBJECT
)
_ZH_WORKPLACE = re.compile(
    _ZH_LEAD
    + r"我(?!们)(?:目前|现在|一直)?在(?P<object>[^，,。！？!?；;了过]{1,12}?)(?:工作|上班)$"
)
_ZH_FAVOURITE = re.compile(
    _ZH_LEAD
    + r"我(?!们)(?:最喜欢|最爱|常用|惯用|习惯用|平时用|一般用|最常用|首选|默认)的"
    + r"[^，,。；;]{1,8}?(?:是|为|就是)"
    + _ZH_OBJECT
)
_ZH_AM = re.compile(_ZH_LEAD + r"我(?!们)(?:是|算是)(?:一个|个|一名|名|一位|位)(?!人)" + _ZH_OBJECT)
_ZH_GROUP_SUBJECT = (
    r"(?:我们|咱们)(?:的)?(?:团队|组|小组|项目组|公司|部门|这边|家|实验室)?(?:里|内部)?"
)
_ZH_GROUP_HEAD = (
    _ZH_LEAD
    + _ZH_GROUP_SUBJECT
    + r"\s*(?:一般|通常|平时|都|一直|向来|一向|基本上|主要)?\s*(?:都)?\s*"
    r"(?:用|使用|在用|采用|习惯用)"
)
_ZH_GROUP_USE = re.compile(_ZH_GROUP_HEAD + _ZH_OBJECT)
# "我们组每周五发版", "我们团队的代码都放在 GitLab 上": the group's routine or its things
_ZH_GROUP_ROUTINE = re.compile(
    _ZH_LEAD
    + _ZH_GROUP_SUBJECT
    + r"\s*(?:每(?:天|周.?|个?月|次|个?星期.?)|一般|通常|平时|向来|一向)"
    + _ZH_OBJECT
)
_ZH_GROUP_THINGS = re.compile(
    _ZH_LEAD + r"(?:我们|咱们)的?(?:团队|组|小组|项目组|公司|部门)?的[^，,。；;]{1,6}?"
    r"(?:都|一般|全)?(?:放在|存在|托管在|部署在|跑在|记在|用)" + _ZH_OBJECT
)
# The group-and-verb head alone: the classifier removes it before looking for reported
# speech, since "team"/"团队" are people words there.
GROUP_PRACTICE_HEAD = re.compile(
    f"{_EN_GROUP_HEAD}|{_ZH_GROUP_HEAD}"
    r"|^(?:我们|咱们)的?(?:团队|组|小组|项目组|公司|部门)?(?:的|(?=每|一般|通常|平时|向来|一向))"
)

_READINGS: tuple[tuple[re.Pattern[str], Subject, Stance], ...] = (
    (_EN_FAVOURITE, Subject.OWNER, Stance.FAVOURITE),
    (_EN_FAVOURITE_AFTER, Subject.OWNER, Stance.FAVOURITE),
    (_EN_OWNER, Subject.OWNER, Stance.PREFER),
    (_EN_HABIT_FIRST, Subject.OWNER, Stance.HABIT),
    (_EN_AM, Subject.OWNER, Stance.AM),
    (_EN_GROUP_USE, Subject.GROUP, Stance.USE),
    (_ZH_FAVOURITE, Subject.OWNER, Stance.FAVOURITE),
    (_ZH_OWNER, Subject.OWNER, Stance.PREFER),
    (_ZH_WORKPLACE, Subject.OWNER, Stance.HABIT),
    (_ZH_AM, Subject.OWNER, Stance.AM),
    (_ZH_GROUP_USE, Subject.GROUP, Stance.USE),
    (_ZH_GROUP_ROUTINE, Subject.GROUP, Stance.USE),
    (_ZH_GROUP_THINGS, Subject.GROUP, Stance.USE),
)
# A problem being reported is no stance: "I usually get an error when …", "我一般会报错".
_TROUBLE = re.compile(
    r"\b(?:errors?|fail\w*|crash\w*|broken|bugs?|issues?|problems?|stuck|help|exceptions?"
    r"|wrong|trouble)\b|报错|错误|失败|崩溃|问题|卡住|出错|帮我|帮忙"
)
# What the owner picks among the things of this conversation is a choice of the moment, not
# a standing preference: "I prefer the second option", "I like the one with tests", "option
# B", "我更喜欢第二个方案", "上面那个", and anything pointing at here and now or at the
# assistant ("this", "your", "你").
_MOMENT = re.compile(
    r"\b(?:this|that|these|those|here|above|below|you|your|yours|first|second|third|fourth"
    r"|fifth|last|latter|former|1st|2nd|3rd|option|options|version|versions|draft|drafts"
    r"|variant|variants|alternative|proposal|suggestion|solution|answer|response|snippet"
    r"|approach|mockup|layout|rewrite|wording|phrasing)\b|\bthe\s+ones?\b"
    r"|这|那|上面|下面|以上|以下|前面|后面|第[一二三四五六七八九十两\d]|方案|选项|版本|你|您|哪"
)
# A feeling about a person is no preference, and a fact about them is theirs (SPEC §5.6):
# "I love my wife", "我喜欢我同事" are not filed as the owner's stance.
_PERSON = re.compile(rf"\b(?:{cues.EN_PERSON})s?\b|{cues.ZH_PERSON}")
_ZH_ASPECT = re.compile(r"[了过着]|正在|一下")
_PREFER_WORD = re.compile(r"\b" + _EN_PREFER + r"|" + _ZH_PREFER)
# what ends the claim: the sentence's closing punctuation and a trailing remember-cue
_CLOSING = re.compile(r"[\s.!。！…~～]+$")


# A bare "we" is also everyone ("we use our lungs to breathe") or a notice pasted in ("we use
# cookies to improve your experience"). It is the owner's group when it names the group
# ("our team", "我们组", "at work"), or when what it uses is a thing of work: a name written
# with a capital or in Latin letters inside Chinese, a tool the registry names (however it
# is cased: "we use neovim"), a workspace noun, or a work purpose.
_BARE_GROUP = re.compile(
    r"^(?:we|咱们|我们)(?!的?(?:团队|组|小组|项目组|公司|部门|这边|家|实验室))"
)
_NAMED_THING = re.compile(r"(?<=\s)[A-Z][\w.+#-]*[a-z0-9][\w.+#-]*")
_WORK_PURPOSE = re.compile(
    r"\b(?:for|to)\s+(?:our\s+)?(?:tickets?|docs?|documentation|ci|deploys?|chat|meetings?|code"
    r"|reviews?|issues?|tracking|planning|on-?call|alerts?)\b"
    r"|沟通|开会|协作|办公|管理|部署|发版|打卡|写文档|记录|评审|代码"
)
_WORKSPACE_THING = re.compile("|".join((*cues.EN_WORKSPACE, *cues.ZH_WORKSPACE)))
_ADDRESSES_READER = re.compile(r"\byour\b|您")


_TOOL_PURPOSE = "coding_assistance"
_FIRST_NAME = re.compile(r"[\w.+#-]+")


@cache
def tool_names() -> frozenset[str]:
    """Folded names of the tools memwarden knows: the tool catalogue's forms that are no
    ordinary word, every value, alias and surface form of the registry's coding-assistance
    keys (editor, package manager …) and every key's catalogue of tool names ("kubectl").
    Lower-case names are names of work all the same; names that are also ordinary words
    ("yarn", "flask") are left out."""
    names = {form for forms in TOOLS.values() for tool in forms.values() for form in tool}
    for spec in default_registry().keys.values():
        names.update(spec.value.get("catalogue", ()))
        if _TOOL_PURPOSE in spec.retrieval_purposes:
            names.update(spec.value.get("values", ()))
            names.update(spec.aliases)
            names.update(form for forms in spec.aliases.values() for form in forms)
    folded = frozenset(fold_text(n, Level.SPACE) for n in names)
    return folded - ORDINARY_WORD_NAMES - AMBIGUOUS_FORMS


def _names_a_tool(obj: str) -> bool:
    first = _FIRST_NAME.match(obj)
    return first is not None and first.group(0).rstrip(".") in tool_names()


def _owners_group(claim: str, folded: str, obj: str) -> bool:
    if _ADDRESSES_READER.search(obj):
        return False
    lead = re.sub(r"^.*?(?=\b(?:we|our)\b|我们|咱们)", "", folded, count=1)
    if not _BARE_GROUP.match(lead) or re.match(r"^(?:at|in|here)\b", folded):
        return True
    # a name in Latin letters inside Chinese ("我们用 Jira")
    han_with_latin = bool(re.search(r"[\u4e00-\u9fff]", folded) and re.search(r"[a-z]", obj))
    return bool(
        _NAMED_THING.search(claim)
        or han_with_latin
        or _names_a_tool(obj)
        or _WORK_PURPOSE.search(obj)
        or _WORKSPACE_THING.search(folded)
    )


def stance(claim: str) -> StanceClaim | None:
    """The stance the claim clause states, or None. ``claim`` starts at the claim (the caller
    strips filler and remember-cues, as ``classifier.claim_offset`` does)."""
    folded = _CLOSING.sub("", fold_text(claim, Level.SPACE).strip())
    for pattern, subject, kind in _READINGS:
        m = pattern.match(folded)
        if m is None:
            continue
        obj = m.group("object").strip(" ,，:：")
        if "practice" in m.groupdict() and m.group("practice") and _ZH_ASPECT.search(obj):
            continue  # "我用 npm 装了个包": an event
        if not re.search(r"[^\W_]", obj) or _TROUBLE.search(folded) or _MOMENT.search(obj):
            continue
        if kind is Stance.AM and not (_EN_ROLE_HEAD.search(obj) or ZH_ROLE_HEAD.search(obj)):
            continue
        if subject is Subject.GROUP and not _owners_group(claim, folded, obj):
            continue
        if subject is Subject.OWNER and kind is not Stance.AM and _PERSON.search(obj):
            continue
        if kind is Stance.PREFER and not _PREFER_WORD.search(folded[: m.start("object")]):
            kind = Stance.HABIT  # a habit adverb or a verb of practice
        return StanceClaim(subject, kind, obj)
    return None
