"""Which registry key a sentence speaks about, and the raw value it gives. Pure.

Each router looks at one evidence sentence and returns the value for its key or None.
Routers are narrow on purpose: a value must sit where a preference is stated ("I prefer
**pnpm**", "我一直用 **pnpm**", "my editor is **Vim**"), so "Look up the pnpm docs" or
"My npm token is …" never become a package-manager preference. The rules extractor calls
them in :data:`KEY_ORDER` and still checks every value with the gate's own grounding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memwarden_extractor.household import allergy, diet, household_note
from memwarden_extractor.languages import is_language_variant, language_phrase
from memwarden_extractor.tools import EN_TOOL_VERB, ZH_TOOL_VERB, tool_mention
from memwarden_shared.contract.registry import KeySpec, Registry
from memwarden_shared.detect.grounding import form_pattern
from memwarden_shared.detect.sensitive import sensitive_categories
from memwarden_shared.text.classifier import DECISION, GROUP_RULE
from memwarden_shared.text.classifier_cues import ZH_ENDED_HABIT
from memwarden_shared.text.code_switch import reading_form
from memwarden_shared.text.fold import Level, fold_text
from memwarden_shared.text.languages import names_a_people_or_language
from memwarden_shared.text.stance import ZH_ROLE_HEAD, tool_names
from memwarden_shared.text.tool_catalogue import ORDINARY_WORD_NAMES

# Fixed schema field order: a proposal's stable_candidate_ordinal is
# sentence_index * ORDINAL_STRIDE + KEY_ORDER.index(key) (SPEC §4), never model output order.
KEY_ORDER: tuple[str, ...] = (
    "preference.package_manager",
    "preference.language",
    "preference.ui_theme",
    "preference.editor",
    "preference.communication_style",
    "profile.name",
    "profile.timezone",
    "profile.location",
    "profile.contact",
    "profile.health",
    "decision.note",
    "preference.note",
    "task_fact.note",
    # issue 15: appended, so the ordinals of the keys above do not move
    "preference.database",
    "preference.framework",
    "preference.os",
    "preference.shell",
    "preference.cloud",
    "profile.diet",
    "profile.allergy",
    "profile.note",
    "task_fact.event",
)
ORDINAL_STRIDE = 32  # > len(KEY_ORDER): ordinals of different sentences never collide

# --------------------------------------------------------------------------- cue data

# A value counts when one of these stands shortly before it ("I prefer **pnpm**").
EN_PREFERENCE_VERB = (
    r"(?:prefer|prefers|like|love|use|uses|using|used|stick with|stuck with|rely on"
    r"|switch(?:ed)? (?:over )?to|mov(?:e|ed) to|go with|went with|default to"
    r"|standardi[sz]ed on|favou?r|choose|chose|pick|from \S+ to|fan of|rather"
    r"|reach for|turn to|go for|(?:'m|\bam)(?: now| fully| mostly| all)? on"
    r"|(?:code|coding|program|programming|write code|work|edit|editing) (?:in|with))"
)
# "is"/"是" are not here: "my problem is that npm…" names no preference; "my editor is X"
# and "X is my editor" are recognised through the key noun (EDITOR_KEYED, ROLE_AFTER).
ZH_PREFERENCE_VERB = (
    r"(?:用|喜欢|偏好|偏爱|习惯|选|换成|改用|改成|统一|使用|切换到|换到|切到|转到|转用)"
)
# ...unless the value is the rejected alternative ("pnpm over **npm**", "从 **npm** 换成").
# A negated use names the old value of a switch ("I don't use npm anymore, I switched to …").
EN_REJECTED_BEFORE = (
    r"(?:over|instead of|rather than|than|from|not|replace|replacing|away from"
    r"|(?:do|does|did|ca|wo)n't (?:use|like)|(?:not|never|stopped) (?:use|using|like|on)"
    r"|no longer(?: (?:use|using|like|on))?|used to(?: (?:use|like|be on))?|quit(?: using)?"
    r"|gave up(?: on)?)"
)
# ...or the value is the topic of a negated use in its own clause ("X 不用了，我改用 Y").
ZH_REJECTED_AFTER = r"^[^，,；;。！？!?]{0,24}?(?:不用|不再用|不再使用|弃用|停用|戒掉)"
ZH_REJECTED_BEFORE = (
    r"(?:而不是|不是|不再|不用|不要|别(?:给我)?用?|比|从|而非|代替|取代|替换掉?|"
    + ZH_ENDED_HABIT
    + ")"
)

EN_THEME_NOUN = r"(?:mode|theme|themes|ui|colou?r scheme|appearance|skin)"
ZH_THEME_NOUN = r"(?:主题|模式|配色|外观|皮肤|界面)"
_EN_REPLY_WORDS = (
    r"reply|replies|respond|responses?|answer|answers|write to me|talk to me|speak to me"
    r"|communicate|communication|language|(?<!commit )messages?|explain|explanations?"
)
EN_REPLY_CONTEXT = rf"\b(?:{_EN_REPLY_WORDS})\b"
ZH_REPLY_CONTEXT = (
    r"回复|回答|回我|交流|沟通|跟我说|和我说|对我说|语言|用.{0,4}(?:说|写|讲)"
    r"|聊天|对话|(?:和|跟|与)你聊"
)
EN_STYLE_CONTEXT = rf"\b(?:{_EN_REPLY_WORDS}|tone|style|format|formatting)\b"
EN_STYLE_WORD = (
    r"\b(?:concise(?:ly)?|brief(?:ly)?|short(?:er)?|succinct(?:ly)?|terse(?:ly)?|detailed"
    r"|in detail|thorough(?:ly)?|verbose|direct(?:ly)?|formal(?:ly)?|informal(?:ly)?"
    r"|casual(?:ly)?|friendly|polite(?:ly)?|blunt(?:ly)?|plain|simple|step[- ]by[- ]step"
    r"|bullet(?:ed)? points?|bullets|examples?|emojis?|jargon|tl;?dr|summary first"
    r"|conclusion first|to the point|no fluff|long|lengthy)\b"
)
ZH_STYLE_CONTEXT = r"回答|回复|回应|解释|说话|表达|风格|语气|方式|沟通"
ZH_STYLE_WORD = (
    r"简洁|简短|简单|直接|详细|具体|啰嗦|冗长|结论|要点|分点|条理|正式|口语|随意|礼貌|例子|示例"
    r"|表情|废话|先.{0,8}再"
)
EN_EDITOR_CONTEXT = r"\b(?:editor|ide|code|coding|program|programming|develop)\b"
# "IDE" written inside Chinese needs its own bounds: re.I would find it in "idea", "side"
ZH_EDITOR_CONTEXT = r"编辑器|写代码|编程|敲代码|开发|(?<![A-Za-z])IDE(?![A-Za-z])"
# an adverb may stand between the key noun and its verb: "编辑器一直是 X", "编辑器现在用 X"
_ZH_KEY_ADVERB = r"\s*(?:一直|都|也|还|现在|目前|平时|通常|一般|总是|主要)*\s*"
EDITOR_KEYED = (
    r"\b(?:editor|ide)\b\s*(?:of choice\s*)?(?:is|:)|编辑器" + _ZH_KEY_ADVERB + r"(?:是|用)"
)
# Slang for the owner's main tool (issue 25): "daily driver", "go-to", "workhorse", "主力".
MAIN_TOOL = (
    r"daily[- ]driver|go[- ]to(?:\s+tool)?|main tool|workhorse|weapon of choice|bread and butter"
    r"|主力(?:工具|软件)?|日常主力"
)
# ... and said first: "my daily driver is X", "我的主力工具是 X".
MAIN_TOOL_BEFORE = (
    r"(?:\bmy\s+(?:" + MAIN_TOOL + r")\s+(?:is|=|:)|我的(?:" + MAIN_TOOL + r")(?:是|用))"
)
# The value right before its role: "Vim is my editor", "a vim user", "pnpm 是我的包管理器".
ROLE_AFTER = (
    r"\S*\s*(?:is|are|as|has been|have been|'s been|是)\s*(?:still |now |always )?"
    r"(?:my|我的|我最)\s*(?:[\w-]+\s+){0,2}?"
    r"(?:editor|ide|package manager|theme|favou?rite|go-to|default|choice|编辑器|包管理器|主题"
    r"|首选|最爱|默认|常用|" + MAIN_TOOL + r")"
    # a short qualifier may stand before the role: "vim 重度用户", "pnpm 老用户"; a name of
    # two words, or one word and a qualifier, before "user": "Sublime Text user", "vim power user"
    r"|\S*(?:\s+[\w.+#-]+)?\s+(?:user|fan|person|guy|girl)\b"
    r"|\S*(?:\s+[\w.+#-]+)?\s*[\u4e00-\u9fff]{0,2}(?:用户|党)"
)
# An editor the registry does not list is taken only from "my editor is X".
EN_EDITOR_NAMED = r"(?i:\bmy (?:\w+ )?(?:editor|ide)(?: of choice)? is)\s+([A-Za-z][\w.+#-]*)"
ZH_EDITOR_NAMED = r"编辑器" + _ZH_KEY_ADVERB + r"(?:是|用的是)\s*([A-Za-z][\w.+#-]*)"
# Editor names that are also ordinary words need the context above.
AMBIGUOUS_EDITOR_FORMS = frozenset(
    {"idea", "cursor", "vi", "helix", "nano", "zed", "notepad", "记事本", "sublime"}
)
EN_HEALTH = (
    r"\b(?:diabet\w*|asthma\w*|allerg\w*|diagnos\w*|disease|disorder|depress\w*|anxiety|adhd"
    r"|autis\w*|cancer|pregnan\w*|medication|blood pressure|hypertension|epilep\w*|migraines?"
    r"|hiv|c(?:o)?eliac|lactose intolerant|chronic|insulin|therapy|surgery|disabilit\w*"
    r"|meds|medicines?|pills|prescriptions?|antidepressants?|inhaler)\b"
)
ZH_HEALTH = (
    r"糖尿病|哮喘|过敏|确诊|疾病|抑郁|焦虑症|高血压|怀孕|癌|服药|吃药|胰岛素|病史|残疾|手术"
    r"|慢性病"
)
EN_CONTACT_CONTEXT = (
    r"\b(?:e-?mail|mail|phone|mobile|cell|number|contact|reach me|whatsapp|telegram|wechat)\b"
)
ZH_CONTACT_CONTEXT = r"邮箱|电子邮件|邮件|手机|电话|联系|微信|号码"
EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
PHONE = r"(?<![\w+])\+?\d[\d\s()-]{5,}\d(?!\d)"
TIMEZONE_CONTEXT = r"\btime ?zones?\b|\btz\b|时区"
ON_UTC = r"\b(?:i'm|i am|we're|we are) (?:on|in) (?:utc|gmt)"  # "I'm on UTC+8" names a zone
IANA_ZONE = (
    r"\b(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)"
    r"/[A-Za-z_]+(?:/[A-Za-z_]+)?\b"
)
UTC_OFFSET = r"\b(?:UTC|GMT)(?:\s?[+\-−]\s?\d{1,2}(?::?\d{2})?)?(?![\w+\-])"
EN_NAME = (
    r"(?i:\bmy name is|\bcall me|\bi go by|\bi'm called|\bi am called)\s+"
    r"([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})"
)
# A name given in passing, written with its capital: "…, I'm Arjun by the way", "Hi, I'm
# Priya", "对了，我是小李". A nationality, a language or a role is no name (checked below).
EN_NAME_IN_PASSING = (
    r"(?i:\bi(?:'m| am))\s+([A-Z][a-z'’-]+)\s*,?\s*(?i:by the way|btw)\s*[.!]*$",
    r"^(?i:(?:hi|hello|hey)(?:\s+there)?|nice to meet you|btw|by the way)\s*[,!.]?\s*"
    r"(?i:i(?:'m| am))\s+([A-Z][a-z'’-]+)\s*[.!]*$",
)
ZH_NAME_IN_PASSING = (
    # a greeting may take its particles and marks: "你好呀，", "嗨~", "哈喽！"
    r"^(?:对了|顺便(?:说一下|说一句|提一下)?|你好|您好|嗨|哈喽|大家好)(?:呀|啊|哦|喔|哈|~|～|！|!)*"
    r"\s*[，,]?\s*我是"
    r"(?![你您他她这那谁哪])([\u4e00-\u9fff]{2,3})\s*[。！!.]*$"
)
# The name may not start with an aspect particle or a pronoun: "我叫了外卖" is an order.
ZH_NAME = (
    r"(?:我叫|我的名字是|我的名字叫|叫我)\s*([^\s，。,.!！?？、了过着你他她]{1,12}?)"
    r"(?:就行|就好|吧|好了)?(?=[\s，。,.!！?？、]|$)"
)
EN_LOCATION = (
    r"(?i:\b(?:i|we) (?:live|reside|am living|'m living)"
    r" (?:in|at|on|near|close to|(?:just |right )?outside|(?:right )?next to|around)"
    r"|\bi(?:'m| am) (?:based|located|living) (?:in|at|out of)|\bmy (?:home )?address is"
    r"|\bi(?:'ve| have)? (?:just |recently |now )?moved to)\s+(.+)"
)
# What follows the place is not part of it: company, reasons, and (normalised) dates.
EN_LOCATION_CUT = (
    r"\s+(?:with|and|since|for|because|but|so|which|where)\b.*$"
    r"|\s+(?:on|in)\s+(?:the\s+\w+\s+of\s+)?\d{4}.*$"
    r"|\s+(?:now|currently|these days|nowadays)$"
)
ZH_LOCATION = (
    r"(?:我(?!们)[^，,。；;]{0,12}?(?:住在|家在|定居在?|常住|搬到了?|搬来了?)|我(?:现在)?住"
    r"|我的?(?:家庭)?(?:住址|地址)是)\s*(.+)"
)
ZH_LOCATION_CUT = r"[，,；;].*$|(?:了|啦)$"
SPEAKER = r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b|我(?!们)"
# An inferred (not explicit) claim is proposed only when it describes a habit: "I've been
# using bun a lot lately" is worth asking the owner about, "I used npm yesterday" is not.
HABITUAL = (
    r"\b(?:lately|recently|these days|nowadays|a lot|mostly|mainly|often|usually|generally"
    r"|normally|typically|all the time|every day|daily|regularly|been using|tend to)\b"
    r"|最近|这阵子|经常|常常|大多|基本上|天天|每天|一直在|总在"
)
GROUP_SPEAKER = r"\b(?:we|our|us)\b|我们"

_TRAILING = "。．.!！?？;；…~～\"'”’)）]】」』》 \t"


@dataclass(frozen=True)
class Sentence:
    """One evidence sentence in the forms routers need."""

    raw: str  # as written
    folded: str  # fold_text(raw, Level.SPACE), the form the classifier's cues read
    claim: str  # the claim clause, cue stripped and relative dates normalised


def _near_before(folded: str, pos: int, pattern: str, window: int = 24) -> bool:
    before = folded[max(0, pos - window) : pos]
    return bool(re.search(pattern + r"\s*(?:[\w'-]+\s+){0,3}$", before)) or bool(
        re.search(pattern + r"[^,.!?;。，]{0,6}$", before)
    )


def _mentions(
    spec: KeySpec, folded: str, forms_ok: Callable[[str], bool] | None = None
) -> dict[str, list[int]]:
    """canonical value -> positions of its surface forms in ``folded`` (token-bounded)."""
    found: dict[str, list[int]] = {}
    canonicals = list(spec.value.get("values", [])) or list(spec.aliases)
    for canonical in canonicals:
        for form in spec.surface_forms(canonical):
            if forms_ok is not None and not forms_ok(form):
                continue
            for m in form_pattern(form).finditer(folded):
                found.setdefault(canonical, []).append(m.start())
    return found


_REJECTED = re.compile(
    rf"(?:\b{EN_REJECTED_BEFORE}\s+(?:the\s+|using\s+)?|{ZH_REJECTED_BEFORE}\s*(?:用\s*)?)$"
)
_REJECTED_AFTER = re.compile(ZH_REJECTED_AFTER)


def _rejected(folded: str, p: int) -> bool:
    """The value at ``p`` is the alternative turned down, before or after it."""
    return bool(_REJECTED.search(folded[max(0, p - 20) : p]) or _REJECTED_AFTER.match(folded, p))


def _choose(found: dict[str, list[int]], folded: str, stated: Callable[[int], bool]) -> str | None:
    """The one value the sentence states; None when none or several remain."""
    keep = [
        value
        for value, positions in found.items()
        if any(stated(p) and not _rejected(folded, p) for p in positions)
    ]
    return keep[0] if len(keep) == 1 else None


def _choose_tiered(
    found: dict[str, list[int]], folded: str, *tiers: Callable[[int], bool]
) -> str | None:
    """Try the strongest reading first: one value stated by the strongest test wins; several
    at the same tier are ambiguous (None); none falls through to the next tier."""
    for stated in tiers:
        keep = [
            value
            for value, positions in found.items()
            if any(stated(p) and not _rejected(folded, p) for p in positions)
        ]
        if keep:
            return keep[0] if len(keep) == 1 else None
    return None


# "reply in **English**", "用**中文**回答": the language is the object of the reply
_LANGUAGE_OBJECT = r"(?:\bin|\busing|用|使用|以|说|讲)\s*$"
# A concessive clause names the situation the rule overrides, not what it asks for: "…, even
# when I write in Chinese", "即使我用英文提问，…" (issue 25). It runs to its clause's end.
_CONCESSIVE = re.compile(
    r"\b(?:even (?:when|if|though|in)|(?:al)?though|regardless of (?:whether|what|which)"
    r"|no matter (?:if|whether|what|which|how))\b[^,;:.!?，；：。！？]*"
    r"|(?:即使|即便|就算|哪怕|纵使|尽管|不管|无论)[^,;:.!?，；：。！？]*",
    re.I,
)


def _without_concession(text: str) -> str:
    """``text`` with each concessive clause blanked, offsets kept."""
    return _CONCESSIVE.sub(lambda m: " " * len(m.group(0)), text)


def _preference_object(folded: str) -> Callable[[int], bool]:
    verbs = rf"(?:\b{EN_PREFERENCE_VERB}|{ZH_PREFERENCE_VERB}|{MAIN_TOOL_BEFORE})"
    return lambda pos: _near_before(folded, pos, verbs)


def _stated_object(folded: str, keyed: bool) -> Callable[[int], bool]:
    before = _preference_object(folded)
    return lambda p: keyed or before(p) or bool(re.match(ROLE_AFTER, folded[p:]))


def package_manager(s: Sentence, spec: KeySpec) -> str | None:
    found = _mentions(spec, s.folded)
    keyed = bool(re.search(r"package manager|包管理", s.folded))
    return _choose(found, s.folded, _stated_object(s.folded, keyed))


def language(s: Sentence, spec: KeySpec) -> str | None:
    """The reply language; a variant keeps its qualifier as written ("British English",
    "繁體中文", "巴西葡萄牙语") and a language the registry does not list is still named."""
    if not re.search(EN_REPLY_CONTEXT + "|" + ZH_REPLY_CONTEXT, s.folded):
        return None
    folded, raw = _without_concession(s.folded), _without_concession(s.raw)

    def language_object(pos: int) -> bool:
        return bool(re.search(_LANGUAGE_OBJECT, folded[max(0, pos - 8) : pos]))

    phrase = language_phrase(raw)
    named = phrase is not None and (is_language_variant(phrase) or spec.canonical(phrase) is None)
    if named and spec.validate(phrase) is None:
        return phrase  # a registry that takes it gets the phrase; its own names stay canonical
    return _choose_tiered(_mentions(spec, folded), folded, language_object, lambda p: True)


# A colour word qualifying another noun is an adjective, not a theme: "dark chocolate",
# "深色系的衣服". What may follow a theme named bare: its noun, a setting word, a preposition
# or the end of the clause.
_EN_AFTER_THEME = (
    r"(?!(?:" + EN_THEME_NOUN[3:-1] + r"|default|settings?|scheme|colou?rs?|for|in|on|at|by"
    r"|everywhere|always|please|too|across|and|or|over|instead|rather|than|when|if|because"
    r"|since|with|as|all|whenever|now|from|these|during)\b)[a-z]"
)
_ZH_AFTER_THEME = r"\s*系?的?(?!" + ZH_THEME_NOUN + r"|一点|些|吧|啊|哦)[\u4e00-\u9fff]"


def _attributive(folded: str, pos: int, spec: KeySpec) -> bool:
    """The theme word at ``pos`` qualifies another noun ("dark chocolate")."""
    rest = folded[pos:]
    for canonical in spec.value.get("values", ()):
        for form in spec.surface_forms(canonical):
            if rest.startswith(form):
                after = rest[len(form) :]
                # a Latin word after a Han form needs no space ("深色jeans")
                space = r"\s+" if form.isascii() else r"\s*"
                return bool(
                    re.match(space + _EN_AFTER_THEME, after) or re.match(_ZH_AFTER_THEME, after)
                )
    return False


def ui_theme(s: Sentence, spec: KeySpec) -> str | None:
    noun = rf"(?:\b{EN_THEME_NOUN}\b|{ZH_THEME_NOUN})"
    preferred = _preference_object(s.folded)

    def stated(pos: int) -> bool:
        return preferred(pos) and not _attributive(s.folded, pos, spec)

    def beside_noun(pos: int) -> bool:
        after = s.folded[pos : pos + 24]
        return (
            bool(re.match(r"[^\s]+\s*(?:[\w-]+\s+)?" + noun, after))
            or bool(re.match(r"\S*?" + ZH_THEME_NOUN, after))
            or _near_before(s.folded, pos, noun + r"\s*(?:is|=|:|是|用|为)?", 16)
        )

    return _choose_tiered(_mentions(spec, s.folded), s.folded, stated, beside_noun)


def editor(s: Sentence, spec: KeySpec) -> str | None:
    context = bool(re.search(EN_EDITOR_CONTEXT + "|" + ZH_EDITOR_CONTEXT, s.folded, re.I))
    found = _mentions(spec, s.folded, lambda f: context or f not in AMBIGUOUS_EDITOR_FORMS)
    keyed = bool(re.search(EDITOR_KEYED, s.folded))
    chosen = _choose(found, s.folded, _stated_object(s.folded, keyed))
    if chosen is not None or found:
        return chosen
    m = re.search(EN_EDITOR_NAMED, s.raw) or re.search(ZH_EDITOR_NAMED, s.raw)
    return m.group(1) if m else None


# The assistant producing output is the condition: "whenever you compare options",
# "比较方案的时候", "解释代码时".
_EN_OUTPUT_ACTS = (
    r"(?:compare|explain|answer|reply|respond|write|summari[sz]e|list|show|describe|present"
    r"|give me|send me|draft|format|review|suggest|recommend|walk me through|break down)"
)
EN_OUTPUT_ACT_CONDITION = (
    r"\b(?:when(?:ever)?|every time|each time|any ?time) you " + _EN_OUTPUT_ACTS
)
EN_OUTPUT_GENERAL = (
    r"\b(?:answers|replies|responses|explanations|summaries|messages|output|tone|style"
    r"|format|formatting)\b"
)
ZH_OUTPUT_GENERAL = (
    r"语气|风格|方式|(?:跟|和|对)我说话"
    r"|(?<![这那个])(?:回答|回复)(?=的时候|时|都|一律|请|要|尽量|一直)"
)
EN_OUTPUT_WISH = (
    r"^(?:(?:please|always|never|from now on|going forward)[,\s]+)*(?:put|use|give|start|end"
    r"|include|add|keep|format|write|show|make|lead with|begin with|open with|structure)\b"
    r"|\bi (?:(?:really|much|always|generally|usually)\s+)*(?:like|prefer|love|want"
    r"|appreciate)\b"
)
ZH_OUTPUT_ACT_CONDITION = (
    r"(?:比较|对比|解释|回答|回复|总结|列举|介绍|推荐|分析|讲解|说明)[^，,。；;]{0,8}?"
    r"(?:的时候|时)"
)
ZH_OUTPUT_IMPERATIVE = (
    r"(?:请|麻烦|希望你?|最好)\s*(?:都|一直|尽量)?\s*(?:用|给|加|列|带|附|写)"
    r"|(?:的时候|时)[，,\s]*(?:都|一直|尽量)(?:用|给|加|列|带|附|写)"
)
ZH_OUTPUT_WISH = ZH_OUTPUT_IMPERATIVE + r"|我(?:比较|更|最)?(?:喜欢|偏好|偏爱|习惯)"
# The owner's preference about what the assistant does, the assistant the subject of the
# wished act: "I prefer that you …", "I'd rather you …" (issue 25). How the assistant should
# work with the owner is their communication style, whatever the act is.
EN_PREFER_THAT_YOU = (
    r"\bi(?:'d| would)?\s+(?:(?:really|much|strongly|generally|usually|always)\s+)*"
    r"(?:prefer(?: it)?(?: if| that| when)?|rather)\s+you\b(?!\s*[?])"
)


def communication_style(s: Sentence, spec: KeySpec) -> str | None:
    en = re.search(EN_STYLE_CONTEXT, s.folded) and re.search(EN_STYLE_WORD, s.folded)
    zh = re.search(ZH_STYLE_CONTEXT, s.folded) and re.search(ZH_STYLE_WORD, s.folded)
    asked_of_you = re.search(EN_PREFER_THAT_YOU, s.folded)
    return s.claim if en or zh or asked_of_you or _shapes_output(s.folded) else None


def _shapes_output(folded: str) -> bool:
    """A wish about how the assistant's output looks, whatever its words: the assistant's
    output named in general (your answers, 回答的时候, 语气; never one of them: "that answer",
    "你这个回答" is a pick of the moment) or one of its acts as the condition ("whenever
    you compare …", "比较方案的时候"), and a wish or an imperative about it ("I like …",
    "always put …", "请用 …", "我喜欢 …")."""
    en = re.search(EN_OUTPUT_GENERAL, folded) or re.search(EN_OUTPUT_ACT_CONDITION, folded)
    if en and re.search(EN_OUTPUT_WISH, folded):
        return True
    if re.search(ZH_OUTPUT_GENERAL, folded) and re.search(ZH_OUTPUT_WISH, folded):
        return True
    # an act with no subject is the assistant's only when the wish is an imperative to it:
    # "比较方案的时候请用表格"; "我喜欢…写代码的时候" is the owner's own act
    return bool(
        re.search(ZH_OUTPUT_ACT_CONDITION, folded) and re.search(ZH_OUTPUT_IMPERATIVE, folded)
    )


def name(s: Sentence, spec: KeySpec) -> str | None:
    m = re.search(EN_NAME, s.raw) or re.search(ZH_NAME, s.raw)
    if m:
        return m.group(1).strip()
    return _name_in_passing(s.raw)


def _name_in_passing(raw: str) -> str | None:
    """A name given in passing, unless the word names a people, a language, a role or
    sensitive content ("I'm Muslim, by the way" is a religion, never a name)."""
    for pattern in EN_NAME_IN_PASSING:
        m = re.search(pattern, raw.strip())
        word = m.group(1) if m else ""
        if word and not names_a_people_or_language(word) and not sensitive_categories(word):
            return word
    m = re.search(ZH_NAME_IN_PASSING, raw.strip())
    if m and not ZH_ROLE_HEAD.search(m.group(1)):
        return m.group(1)
    return None


def timezone(s: Sentence, spec: KeySpec) -> str | None:
    context = bool(re.search(TIMEZONE_CONTEXT, s.folded))
    for canonical, forms in spec.aliases.items():
        for form in (f for f in forms if not f.isascii()):
            if form in s.raw and (context or re.search(r"我(?:在|用|按)" + form, s.raw)):
                return canonical  # 东八区 -> Asia/Shanghai
    zone = re.search(IANA_ZONE, s.raw)
    if zone:
        return zone.group(0)
    if not context and not re.search(ON_UTC, s.folded):
        return None
    offset = re.search(UTC_OFFSET, s.raw, re.I)
    return re.sub(r"\s+", "", offset.group(0)).upper().replace("−", "-") if offset else None


def location(s: Sentence, spec: KeySpec) -> str | None:
    m = re.search(EN_LOCATION, s.claim)
    if m and re.search(r"\bas (?:my|the|our|a|an)\b", m.group(1), re.I):
        return None  # "I've moved to Helix as my main editor" names a tool, not a place
    if m:
        place = re.sub(EN_LOCATION_CUT, "", m.group(1)).strip(_TRAILING + ",")
        return place if place and _names_a_place(place) else None
    m = re.search(ZH_LOCATION, s.claim)
    if m and not re.match(r"[的了过着得]", m.group(1)):  # "我住在的地方…" names no place
        place = re.sub(ZH_LOCATION_CUT, "", m.group(1)).strip(_TRAILING)
        return place if place and not _names_a_tool(place) else None
    return None


def _names_a_place(place: str) -> bool:
    """A place is a proper noun, written with its capital ("Berlin", "the Bay Area"), or a kind
    of place ("a small town"); living "in the terminal", "in vim" or "in spreadsheets" is a
    figure of speech for heavy use."""
    named = re.search(r"(?<![\w'])[A-Z]", place) or re.match(r"(?:a|an)\s", place)
    owned = re.match(r"(?i:my|our)\s", place)  # "in my IDE", "in my inbox"
    return bool(named) and not owned and not _names_a_tool(place)


# editors and tools that are also words ("Helix", "Cursor") still name a tool after "live in"
AMBIGUOUS_TOOL_NAMES = ORDINARY_WORD_NAMES - {"flask", "yarn", "bun", "cassandra", "idea"}


def _names_a_tool(place: str) -> bool:
    words = fold_text(place, Level.SPACE).split()
    return any(w.strip(".,") in tool_names() | AMBIGUOUS_TOOL_NAMES for w in words)


def contact(s: Sentence, spec: KeySpec) -> str | None:
    if not re.search(EN_CONTACT_CONTEXT + "|" + ZH_CONTACT_CONTEXT, s.folded):
        return None
    m = re.search(EMAIL, s.raw) or re.search(PHONE, s.raw)
    return m.group(0).strip() if m else None


def health(s: Sentence, spec: KeySpec) -> str | None:
    return s.claim if re.search(EN_HEALTH + "|" + ZH_HEALTH, s.folded) else None


def decision(s: Sentence, spec: KeySpec) -> str | None:
    return s.claim if DECISION.search(s.folded) else None


_TOOL_STATED = (
    rf"(?:\b{EN_PREFERENCE_VERB}|\b{EN_TOOL_VERB}|{ZH_PREFERENCE_VERB}|{ZH_TOOL_VERB}"
    rf"|{MAIN_TOOL_BEFORE})"
)
_TOOL_REJECTED = re.compile(
    rf"(?:\b{EN_REJECTED_BEFORE}\s+(?:the\s+|using\s+|plain\s+)?"
    rf"|{ZH_REJECTED_BEFORE}\s*(?:用\s*)?)$"
)


def _tool_router(key: str) -> Callable[[Sentence, KeySpec], str | None]:
    """A router for one tool key (database, framework, OS, shell, cloud)."""

    def router(s: Sentence, spec: KeySpec) -> str | None:
        role = re.compile(ROLE_AFTER)
        return tool_mention(
            s.raw,
            s.folded,
            key,
            lambda p: _near_before(s.folded, p, _TOOL_STATED) or bool(role.match(s.folded[p:])),
            lambda p: bool(
                _TOOL_REJECTED.search(s.folded[max(0, p - 20) : p])
                or _REJECTED_AFTER.match(s.folded, p)
            ),
        )

    return router


ROUTERS: dict[str, Callable[[Sentence, KeySpec], str | None]] = {
    "preference.package_manager": package_manager,
    "preference.language": language,
    "preference.ui_theme": ui_theme,
    "preference.editor": editor,
    "preference.communication_style": communication_style,
    "profile.name": name,
    "profile.timezone": timezone,
    "profile.location": location,
    "profile.contact": contact,
    "profile.health": health,
    "decision.note": decision,
    "preference.database": _tool_router("preference.database"),
    "preference.framework": _tool_router("preference.framework"),
    "preference.os": _tool_router("preference.os"),
    "preference.shell": _tool_router("preference.shell"),
    "preference.cloud": _tool_router("preference.cloud"),
    "profile.diet": lambda s, spec: s.claim if diet(s.folded) else None,
    "profile.allergy": lambda s, spec: s.claim if allergy(s.folded) else None,
    # read on the claim, so a filler or a remember-cue before "I have two cats" is no obstacle
    "profile.note": lambda s, spec: (
        s.claim if household_note(s.raw, fold_text(s.claim, Level.SPACE)) else None
    ),
}


def route(s: Sentence, registry: Registry) -> dict[str, str]:
    """key -> raw value for every narrow key the sentence states (KEY_ORDER order).

    A decision stated by a group ("we decided", "我们决定") is filed as ``decision.note``
    only: a team's choice is not the owner's personal preference.
    """
    if DECISION.search(s.folded) and (
        re.search(GROUP_SPEAKER, s.folded) or GROUP_RULE.search(s.folded)
    ):
        return {"decision.note": s.claim}
    routed: dict[str, str] = {}
    for key, router in ROUTERS.items():
        spec = registry.get(key.split(".", 1)[0], key)
        if spec is None:
            continue
        value = router(s, spec)
        if value:
            # "Vim" -> "vim", "深色" -> "dark"; a language variant stays whole ("British English")
            # wherever the registry accepts it (language() checked); otherwise the registry
            # gets the plain language rather than nothing
            variant = key == "preference.language" and is_language_variant(value)
            routed[key] = value if variant else spec.canonical(value) or value
    if "decision.note" in routed and len(routed) > 1:
        del routed["decision.note"]  # "I decided to use pnpm": the narrower key says it
    if "profile.diet" in routed or "profile.allergy" in routed:
        routed.pop("profile.health", None)  # an allergy or a diet says it, as sensitive
    return routed


def make_sentence(raw: str, claim: str) -> Sentence:
    # chat spellings spelled out, a code-switched sentence's key words read in Chinese; values are
    # still taken from ``raw`` and ``claim`` as written
    return Sentence(raw=raw, folded=fold_text(reading_form(raw), Level.SPACE), claim=claim)


def has_speaker(folded: str) -> bool:
    """The sentence refers to its speaker: "I", "my", "me", "我" (not "我们")."""
    return bool(re.search(SPEAKER, folded))


def is_habit_of_speaker(folded: str) -> bool:
    """The sentence describes a habit of its speaker: the bar for an inferred proposal."""
    return bool(re.search(SPEAKER, folded)) and bool(re.search(HABITUAL, folded))
