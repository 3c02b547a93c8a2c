"""Sensitive content in a sentence or value (SPEC §5.6), English and Chinese. Pure.

The gate treats these categories the same whatever key a proposal filed the claim under,
so the cues look at content, not at keys. Choices:

* ``I live in <Place>`` / ``我住在北京`` counts as PRECISE_LOCATION even for a bare city: the
  registry files any residence under ``profile.location``, which is sensitive anyway, and a
  city plus other facts narrows a person down. Whoever lives there (``my colleague lives in
  Beijing`` is location and third person). Only a capitalised place (or a number, or a
  Chinese place) counts, so ``I live in the terminal`` / ``I live in vim`` do not; ``住`` as
  a verb complement (``记住`` remember, ``忍住``) or ``住院`` / ``住酒店`` is not residence.
* THIRD_PERSON needs a relation word (``my colleague``, ``我老板``) followed by a fact verb
  (``lives``, ``prefers``, ``住``, ``喜欢``); pronouns alone are not tracked.
* CONTACT needs an actual address or number, or a first-person cue (``my phone number``,
  ``手机号``); the word ``email`` alone is a preference topic, not a contact detail.
"""

from __future__ import annotations

import re
from enum import StrEnum

from memwarden_shared.text.batch_memo import per_batch
from memwarden_shared.text.fold import Level, fold_text
from memwarden_shared.text.prefilter import Prefiltered, prefiltered


class SensitiveCategory(StrEnum):
    """Kinds of personal content the gate never auto-commits (SPEC §5.6)."""

    HEALTH = "health"
    PRECISE_LOCATION = "precise_location"
    CONTACT = "contact"
    RELIGION = "religion"
    POLITICS = "politics"
    SEXUALITY = "sexuality"
    THIRD_PERSON = "third_person"


def _words(*alternatives: str) -> str:
    return r"\b(?:" + "|".join(alternatives) + r")\b"


_HEALTH_EN = _words(
    r"diabet(?:es|ic)",
    r"depress(?:ion|ed|ive)",
    r"anxiety(?: disorder)?",
    "adhd",
    "autis[mt]ic?",
    "bipolar",
    "schizophreni[ac]",
    "ptsd",
    r"cancers?",
    r"tumou?rs?",
    "chemo(?:therapy)?",
    "hiv",
    "hepatitis",
    "asthma(?:tic)?",
    "epilep(?:sy|tic)",
    r"seizures?",
    "pregnan(?:t|cy)",
    "miscarriage",
    "abortion",
    "infertil(?:e|ity)",
    "ivf",
    r"allerg(?:y|ies|ic)",
    r"disabilit(?:y|ies)",
    "disabled",
    "wheelchair",
    "dementia",
    "alzheimer'?s?",
    "parkinson'?s?",
    r"migraines?",
    "insomnia",
    r"medications?",
    "prescri(?:bed|ption)",
    r"antidepressants?",
    "insulin",
    r"therap(?:y|ist)",
    "psychiatri(?:st|c)",
    "diagnosed",
    r"surgery",
    "blood pressure",
    "hypertension",
    "heart attack",
    "eating disorder",
    "anorexi[ac]",
    "bulimi[ac]",
    "rehab",
    "addict(?:ed|ion)",
    "alcoholic",
    "mental health",
    "chronic (?:pain|illness)",
    r"illness",
    r"disease",
    "blood type",
    "herpes",
    "covid",
    "sick leave",
    "my doctor",
)
_HEALTH_CASED = r"\bAIDS\b"  # upper-case only: "hearing aids" is not a diagnosis
_HEALTH_ZH = (
    r"糖尿病|抑郁|忧郁症|焦虑症|癌|肿瘤|化疗|艾滋|乙肝|肝炎|哮喘|癫痫|怀孕|孕期|流产|不孕|过敏|残疾|痴呆"
    r"|阿尔茨海默|帕金森|失眠|偏头痛|高血压|心脏病|血型|自闭症|多动症|精神科|心理医生|心理咨询"
    r"|医院|住院|手术|诊断(?:出|为)|确诊|处方|吃药|服药|(?<![毛语通弊诟])病(?![毒句])|(?<![火弹农炸])药(?!丸)"
)

# A capitalised place, but not the tools people say they "live in".
_PLACE_EN = (
    r"(?:the\s+)?(?!(?:Vim|Emacs|VS|VSCode|Terminal|Linux|Windows|Slack|Excel|Jira|Notion"
    r"|GitHub|Docker|Zoom|Teams|Chrome|Python)\b)"
    # "tickets live in the PLAT Jira project": a container of work, not a place
    r"(?![\w.-]+(?:\s+[\w.-]+){0,2}\s+(?:project|repo|repository|folder|directory|channel"
    r"|board|workspace|drive|bucket|wiki|space|page|file|sheet|doc|tracker|namespace)s?\b)"
    # "based on Europe/Berlin time": a clock the owner keeps, not where they are
    r"(?![\w+-]+/[\w+/-]+)(?![\w.'-]+(?:\s+(?:[A-Z][\w.'-]*|es|de|del|da|do|du|al|el|la|le)){0,3}"
    r"\s+(?:time|timezone|time zone|hours)\b)"
    r"[A-Z0-9]"
)
_LOCATION_EN = re.compile(
    r"(?i:\b(?:i|we)(?:'m| am|'re| are)?\s+(?:currently\s+|now\s+|still\s+)?"
    r"(?:live|living|reside|residing|based|located|stay(?:ing)?|moved|moving)\s+(?:in|at|near|on|to)\s+)"
    + _PLACE_EN
    + r"|(?i:\b(?:live[sd]?|living|reside[sd]?|residing)\s+(?:in|at|near)\s+)"
    + _PLACE_EN
    + r"|(?i:\b(?:i|we)\s+live\s+at\b|\b(?:home|postal|mailing|street|my|our)\s+address\b"
    r"|\bmy\s+(?:zip|postal)\s*code\b|\bpostcode\b)"
    r"|\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Way|Lane|Ln|Boulevard|Blvd"
    r"|Drive|Dr|Court|Ct|Place|Pl|Terrace|Crescent|Close|Square|Highway|Hwy)\b"
    r"|-?\b\d{1,2}\.\d{4,},\s*-?\d{1,3}\.\d{4,}\b"
    # any case, with unit numbers and postcodes: "221b baker street", "apt 4B", "SW1A 1AA"
    r"|(?i:\b\d{1,5}[a-z]?\s+(?:[a-z][\w'.-]*\s+){1,4}(?:street|st|avenue|ave|road|rd|way|lane"
    r"|ln|boulevard|blvd|drive|dr|court|ct|place|pl|terrace|crescent|close|square|highway|hwy"
    r"|parkway|pkwy|alley|mews|gardens|grove|strasse|straße)\b)"
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"
    r"|\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV"
    r"|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY)\s+\d{5}(?:-\d{4})?\b",
)
# "住" is also the complement of many verbs (记住 remember, 忍住, 抓住…): not a residence.
_LOCATION_ZH = re.compile(
    r"家住|我家在|家庭住址|住址|(?:我的|家的|收货|邮寄)地址|地址是"
    r"|(?<![记抓忍挡站保拦顶稳盯守止卡不挺压按锁罩困绑拴扣揪围接])住(?:在)?"
    r"(?![院宿手口持址房户]|酒店|宾馆|民宿)[\u4e00-\u9fff]{2}"
    r"|[\u4e00-\u9fff]{1,10}(?:路|街|大道|巷|弄|胡同)[\d一二三四五六七八九十百]+号"
    r"|(?<!\d)[\d一二三四五六七八九十]+(?:号楼|栋|幢|单元|室)"
    r"|[\u4e00-\u9fff]{2,8}(?:小区|花园|公寓|新村|家园)(?=.{0,12}[\d一二三四五六七八九十])"
)

_CONTACT = re.compile(
    r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    # spelled out to dodge scanners: "bob at example dot com", "bob [at] example [dot] com"
    r"|(?<![\w.+-])[\w.+-]{1,64}\s*(?:[\[({<]\s*at\s*[\])}>]|\s+at\s+|艾特|圈a)\s*[\w-]{1,64}"
    r"(?:\s*(?:[\[({<]\s*dot\s*[\])}>]|\s+dot\s+|点)\s*(?:com|net|org|edu|gov|io|cn|co|uk|de"
    r"|info|me|dev|ai|app)\b|\.(?:com|net|org|edu|gov|io|cn|co|uk|de|info|me|dev|ai|app)\b)"
    r"|(?<!\d)(?:\+?86[\s-]?)?1[3-9]\d(?:[\s-]?\d{4}){2}(?!\d)"
    r"|(?<![\w+])\+\d{1,3}[\s-]?\(?\d{1,4}\)?(?:[\s-]?\d{2,4}){2,4}(?!\d)"
    r"|(?<!\d)\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}(?!\d)"
    r"|\bmy\s+(?:(?:phone|cell|mobile|telephone|contact|work|home)\s+)?"
    r"(?:number|e-?mail\s+address|e-?mail\s*(?:is\b|:))"
    r"|\b(?:call|text|reach|email|e-mail|ping)\s+me\s+(?:at|on)\b"
    r"|\bmy\s+(?:wechat|whatsapp|telegram|signal|skype|qq)\b"
    r"|手机号|电话号|联系电话|联系方式|微信号|加我微信|我的微信|邮箱(?:是|地址)|QQ号",
    re.IGNORECASE,
)

_RELIGION = re.compile(
    _words(
        "christians?",
        "christianity",
        "catholics?",
        "protestants?",
        "muslims?",
        "islam(?:ic)?",
        "jewish",
        "judaism",
        "hindus?",
        "hinduism",
        "buddhists?",
        "buddhism",
        "atheists?",
        "agnostics?",
        "mormons?",
        "sikhs?",
        "church",
        "mosque",
        "synagogue",
        "bible",
        "quran",
        "koran",
        "ramadan",
        "religion",
        "religious",
        "my faith",
        "i pray",
        "baptized",
        "baptised",
    )
    + r"|信佛|佛教|基督|天主教|伊斯兰|穆斯林|犹太教|道教|信教|宗教|无神论|做礼拜|受洗|清真|信仰",
    re.IGNORECASE,
)
_POLITICS = re.compile(
    _words(
        r"vot(?:e|ed|es|ing)\s+(?:for|against)",
        # "I vote Green in every election": a party without "for"
        r"vot(?:e|ed|es|ing)\s+(?:\w+\s+){1,2}(?:in|at)\s+(?:every|each|all|the|this|last|next)"
        r"\s+(?:\w+\s+)?elections?",
        "democrats?",
        "republicans?",
        "tory",
        "tories",
        "labour party",
        "libertarians?",
        "socialists?",
        "communists?",
        "marxists?",
        "fascists?",
        "party member(?:ship)?",
        r"member of the \w+ party",
        "political",
        "politics",
        # Bare "election" is also Raft leader election; name the kind of election.
        "left-wing",
        "right-wing",
        "(?:presidential|general|midterm|local) elections?",
        "ballot",
        r"i(?:'m| am) (?:a |very |pretty )?(?:liberal|conservative|progressive)",
    )
    + r"|党员|入党|共产党|民主党|共和党|国民党|民进党|投票给|投给|选举(?:时|中|里)?都投"
    r"|大选|总统选举|政治|政党|左派|右派",
    re.IGNORECASE,
)
_SEXUALITY = re.compile(
    _words(
        "gay",
        "lesbian",
        "bisexual",
        "transgender",
        "queer",
        "homosexual",
        "heterosexual",
        "asexual",
        "pansexual",
        "lgbtq?\\+?",
        "sexual orientation",
        "came out as",
        "i(?:'m| am) straight",
        "non-binary",
        "nonbinary",
    )
    + r"|同性恋|双性恋|异性恋|跨性别|性取向|出柜|[男女]同(?![事学胞])|无性恋",
    re.IGNORECASE,
)

_RELATION_EN = (
    r"colleague|co-?worker|manager|boss|wife|husband|partner|girlfriend|boyfriend|son|daughter"
    r"|mom|mum|mother|dad|father|sister|brother|friend|neighbou?r|roommate|flatmate|teammate"
    r"|team lead|client|customer|kid|child|children|parents|grandma|grandmother|grandpa"
    r"|grandfather|aunt|uncle|cousin|spouse|fianc[eé]e?|landlord|tenant|teacher|intern|cto|ceo"
)
_FACT_EN = (
    r"is|was|has|had|lives|lived|prefers|preferred|likes|loves|hates|uses|used|works|worked|got"
    r"|gets|takes|needs|wants|earns|makes|believes|votes|voted|drinks|smokes|suffers|goes|went"
    r"|owns|moved|thinks|can't|cannot|doesn't|does|isn't|are|were|have|aren't"
)
_THIRD_EN = re.compile(
    rf"\b(?:my|our)\s+(?:{_RELATION_EN})s?(?:\s+(?-i:[A-Z][\w'-]+)){{0,2}}"
    rf"(?:'s\b|\s+(?:also\s+|really\s+|still\s+|just\s+)?(?:{_FACT_EN})\b)"
    # "Bob, my manager, prefers …": the name before the relation
    rf"|(?-i:\b[A-Z][\w'-]+),\s+(?:my|our)\s+(?:{_RELATION_EN}),\s+(?:{_FACT_EN})\b",
    re.IGNORECASE,
)
# A name after the relation ("我老板老王喜欢…"): 老/小/阿 + one character, or a common
# surname + one or two; not any characters ("客户端是…", "同事说可以…").
_ZH_NAME = (
    r"(?:老|小|阿)[\u4e00-\u9fff]|[王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭"
    r"曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛闫段"
    r"雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤][\u4e00-\u9fff]{1,2}?"
)
_THIRD_ZH = re.compile(
    r"(?:同事|老板|领导|经理|上司|老婆|老公|妻子|丈夫|媳妇|女朋友|男朋友|女友|男友|我妈|妈妈|我爸|爸爸"
    r"|母亲|父亲|儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|朋友|室友|邻居|客户|同学|老师|爷爷|奶奶|外公|外婆"
    rf"|舅舅|阿姨|叔叔)(?:们)?(?:{_ZH_NAME})?(?:也|都|一直|最近|现在|已经|刚|还|经常|平时|每天|今年)?"
    r"(?:住|是|有|喜欢|爱|讨厌|用|在|得了|患|怀孕|信|投|习惯|偏好|的|不|没|会|要|想|打算)"
)

# Each behind its literal prefilter: most sentences hold none of these words.
_CHECKS: tuple[tuple[SensitiveCategory, tuple[re.Pattern[str] | Prefiltered, ...]], ...] = tuple(
    (category, tuple(map(prefiltered, patterns)))
    for category, patterns in (
        (
            SensitiveCategory.HEALTH,
            (
                re.compile(_HEALTH_EN, re.IGNORECASE),
                re.compile(_HEALTH_CASED),
                re.compile(_HEALTH_ZH),
            ),
        ),
        (SensitiveCategory.PRECISE_LOCATION, (_LOCATION_EN, _LOCATION_ZH)),
        (SensitiveCategory.CONTACT, (_CONTACT,)),
        (SensitiveCategory.RELIGION, (_RELIGION,)),
        (SensitiveCategory.POLITICS, (_POLITICS,)),
        (SensitiveCategory.SEXUALITY, (_SEXUALITY,)),
        (SensitiveCategory.THIRD_PERSON, (_THIRD_EN, _THIRD_ZH)),
    )
)


@per_batch  # the gate asks again for each check and proposal
def sensitive_categories(text: str) -> list[SensitiveCategory]:
    """The sorted, unique sensitive categories whose cues occur in ``text``.

    Matches on ``fold_text(text, Level.SCRIPT)`` (NFKC, invisible characters dropped,
    homoglyphs reduced, traditional Chinese simplified), so a health term with a Cyrillic letter
    or in traditional characters is still seen. Returns ``[]`` for ordinary preferences.
    """
    folded = fold_text(text, Level.SCRIPT)
    return sorted(
        category for category, patterns in _CHECKS if any(p.search(folded) for p in patterns)
    )
