"""The owner's household (pets, family names), diet and allergies. Pure.

Each test reads one folded sentence and says whether it states such a fact about the owner;
the value is the owner's own claim clause, negation kept ("I don't eat pork", "我不吃辣").
Someone else's pet or allergy ("My manager's dog is called Rocky", "我朋友对花生过敏") is not
the owner's: a possessive person before the noun, or a person as the subject, fails here,
and the classifier marks it reported as well.
"""

from __future__ import annotations

import re

from memwarden_shared.text.classifier_cues import (
    EN_FAMILY,
    EN_HOUSEHOLD_DURABLE,
    EN_PET,
    EN_PET_IN_PASSING,
    ZH_FAMILY,
    ZH_HOUSEHOLD_DURABLE,
    ZH_PET,
    ZH_PET_IN_PASSING,
)

_NAME_VERB_EN = r"(?:'s\s+(?:first\s+)?name\s+is|\s+is\s+(?:named|called)|\s+goes\s+by)\b"

_EN_HOUSEHOLD = re.compile(
    # "my dog is called Biscuit", "our golden retriever is Maple", "my wife is named Priya"
    r"\b(?:my|our)\s+(?:[a-z-]+\s+){0,2}?(?:" + EN_PET + r"|" + EN_FAMILY + r")s?"
    r"(?:" + _NAME_VERB_EN + r"|\s+is\s+(?!a\b|an\b|the\b|not\b|very\b|so\b)[a-z][\w'-]*\s*[.!]?$)"
    # "we have a parrot named Kiwi", "I've got a cat called Miso", "I have two cats"
    r"|"
    + EN_HOUSEHOLD_DURABLE
    # "my dog is a corgi": what the owner's pet is
    + r"|^(?:my|our)\s+(?:[a-z-]+\s+){0,2}?"
    + EN_PET
    + r"s?\s+(?:is|are)\s+(?:a|an)\s+[a-z]"
)
_ZH_HOUSEHOLD = re.compile(
    # "我家的狗叫豆豆", "我老婆叫林晓", "我女儿的名字是朵朵"
    r"我(?:的|家的?|家里的?)?(?:那?[只条个位])?(?:" + ZH_PET + "|" + ZH_FAMILY + r")"
    r"(?:的名字|名字)?(?:叫|是|名叫)(?!不|没)"
    # "我养了一只仓鼠，叫团子", "我家有两只猫"
    r"|" + ZH_HOUSEHOLD_DURABLE
)
# Someone else's household: "my manager's dog", "我领导家的狗".
_EN_OTHERS = re.compile(r"\b(?:my|our)\s+[a-z-]+'s\s+(?:" + EN_PET + "|" + EN_FAMILY + ")")

EN_DIET = re.compile(
    r"\bi(?:'m| am)\s+(?:a\s+)?(?:strict\s+|fully\s+|mostly\s+)?(?:vegetarian|vegan|pescatarian"
    r"|lacto-ovo|flexitarian|lactose intolerant|gluten[- ]free|on a \w+ diet|teetotal)\b"
    r"|\bi\s+(?:(?:don't|do not|never|can't|cannot)\s+eat|(?:only\s+)?eat\s+(?:halal|kosher)"
    r"|keep\s+(?:kosher|halal)|avoid\s+(?:gluten|dairy|meat|pork|beef|sugar|alcohol)"
    r"|(?:don't|do not|never)\s+drink\s+alcohol)\b"
)
ZH_DIET = re.compile(
    r"我(?:从来)?(?:不|从不|不能|不太能|没法)吃|我(?:只)?吃素|我是(?:个)?(?:素食|纯素|吃素)|乳糖不耐"
    r"|我(?:只)?吃清真|我忌口|我戒(?:了)?(?:肉|糖|酒|荤)|我不喝酒"
)
EN_ALLERGY = re.compile(
    r"\bi(?:'m| am)\s+(?:severely\s+|very\s+|mildly\s+)?allergic\s+to\b"
    r"|\bi\s+have\s+(?:a|an|severe|mild)?\s*[\w -]{0,30}?\s*allerg(?:y|ies)\b"
)
ZH_ALLERGY = re.compile(r"我(?:对)?[^，,。；;]{1,12}?过敏")


def household_note(raw: str, folded: str) -> bool:
    """The sentence names the owner's pet or family member."""
    if _EN_OTHERS.search(folded) or allergy(folded):
        return False  # someone else's, or an allergy to an animal ("I have a cat allergy")
    return bool(
        _EN_HOUSEHOLD.search(folded)
        or _ZH_HOUSEHOLD.search(folded)
        or re.search(EN_PET_IN_PASSING, folded)  # "my dog Biscuit is three"
        or re.search(ZH_PET_IN_PASSING, folded)
    )


def diet(folded: str) -> bool:
    """The owner's diet: vegetarian, halal, "I don't eat pork", "我不吃辣", "乳糖不耐受"."""
    return bool(EN_DIET.search(folded) or ZH_DIET.search(folded)) and not allergy(folded)


def allergy(folded: str) -> bool:
    """The owner's allergy: "I'm allergic to peanuts", "我对花生过敏"."""
    return bool(EN_ALLERGY.search(folded) or ZH_ALLERGY.search(folded))
