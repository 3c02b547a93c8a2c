"""The reply language as the owner named it, variant included. Pure.

"Please reply in British English" -> "British English", "请用繁體中文回复我" -> "繁體中文",
"回复我的时候请用粤语" -> "粤语", "Always answer me in Vietnamese" -> "Vietnamese". The phrase
is taken as written, so the gate's grounding finds it; turning it into a language tag is the
registry's job (issue 15, BCP 47), not the extractor's. Only names of languages count: "reply
in Markdown" or "用表格回复" name a format, not a language.
"""

from __future__ import annotations

import re

from memwarden_shared.text.fold import Level, fold_text

# Language names (English), the last word of the phrase.
EN_LANGUAGES = (
    "english|chinese|mandarin|cantonese|french|german|spanish|portuguese|italian|dutch"
    "|japanese|korean|vietnamese|thai|russian|ukrainian|polish|czech|swedish|norwegian|danish"
    "|finnish|greek|turkish|arabic|hebrew|hindi|bengali|urdu|persian|farsi|indonesian|malay"
    "|tagalog|filipino|swahili|romanian|hungarian|catalan|basque|welsh|irish|latin|esperanto"
)
# A variant or script before the language: "British English", "Traditional Chinese".
EN_VARIANTS = (
    "british|american|australian|canadian|indian|irish|scottish|brazilian|european|iberian"
    "|mexican|latin american|castilian|argentinian|swiss|austrian|belgian|quebec(?:ois)?"
    "|traditional|simplified|taiwanese|hong kong|singaporean|formal|informal|plain|modern"
    "|classical|standard"
)
# Chinese: a stem + 语/文/话 ("葡萄牙语"), with an optional variant before it ("巴西葡萄牙语").
ZH_LANGUAGE_STEMS = (
    "英|中|汉|华|普通|国|法|德|西班牙|葡萄牙|意大利|荷兰|日|韩|朝鲜|越南|泰|俄|乌克兰|波兰|捷克"
    "|瑞典|挪威|丹麦|芬兰|希腊|土耳其|阿拉伯|希伯来|印地|孟加拉|乌尔都|波斯|印尼|印度尼西亚|马来"
    "|菲律宾|斯瓦希里|罗马尼亚|匈牙利|加泰罗尼亚|拉丁|世界|粤|闽南|客家|上海|吴|台|广东"
)
ZH_VARIANTS = (
    "繁体|繁體|简体|簡體|正体|英式|美式|澳式|港式|台式|巴西|欧洲|葡式|加拿大|魁北克|墨西哥"
    "|拉美|西式|台湾|臺灣|香港|新加坡|大陆|标准|正式|书面"
)

_EN_PHRASE = re.compile(
    r"(?<![A-Za-z])((?:(?:" + EN_VARIANTS + r")\s+)?(?:" + EN_LANGUAGES + r"))(?![A-Za-z])",
    re.I,
)
_ZH_PHRASE = re.compile(
    r"((?:"
    + ZH_VARIANTS
    + r"){0,2}(?:(?:"
    + ZH_LANGUAGE_STEMS
    + r")(?:语|文|话|話|語)|中文|国语|國語))"
)
_VARIANT = re.compile(r"^(?:" + EN_VARIANTS + r")\s|^(?:" + ZH_VARIANTS + r")", re.I)


def language_phrase(raw: str) -> str | None:
    """The one language named in ``raw`` (variant included), as written; None for none or
    several different ones ("translate English to French" picks neither)."""
    phrases = [m.group(1) for m in _EN_PHRASE.finditer(raw)]
    phrases += [m.group(1) for m in _ZH_PHRASE.finditer(raw)]
    distinct = {fold_text(p, Level.SPACE) for p in phrases}
    return re.sub(r"\s+", " ", phrases[0]) if len(distinct) == 1 else None


def is_language_variant(phrase: str) -> bool:
    """True when ``phrase`` qualifies its language ("British English", "简体中文")."""
    return bool(_VARIANT.search(phrase.strip()))
