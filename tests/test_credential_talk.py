"""A value that only names a credential is refused; an everyday word that is also a cue is
not credential talk (detect.credential_talk, the gate's secrets check).

Mechanism: both questions are answered from the credential-cue lexicon (secret_cues), not
from a hand list of words. Generated families: every unambiguous cue form of the lexicon
(English and Chinese, traditional and pinyin forms included) under a possessive and random
modifiers from wordfreq's top list; and the lexicon's everyday words in title case inside
a product-like name, which must not count, while the same word in capitals or announcing a
value must.
"""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_shared.detect.credential_talk import (
    STATEMENT_WORD,
    mentions_credential,
    names_a_credential,
)
from memwarden_shared.detect.secret_cues import AMBIGUOUS, lexicon
from memwarden_usecases.explain import explain

_EN_FORMS = sorted(
    f
    for forms in lexicon().values()
    for f in forms
    if f.isascii() and f.replace(" ", "").isalpha() and f not in AMBIGUOUS and len(f) > 3
)
_HAN = re.compile(r"^[\u4e00-\u9fff]+$")
_ZH_FORMS = sorted(f for forms in lexicon().values() for f in forms if _HAN.match(f))
# modifiers: plain words, none of them a word that makes a statement (a subject, a verb of
# use or habit, a negation: "I always use 2FA" is a statement, not a name)
_MODIFIERS = [
    w
    for w in top_n_list("en", 2000)
    if w.isalpha() and w.isascii() and len(w) > 4 and not STATEMENT_WORD.fullmatch(w)
][200:900]
_ZH_MODIFIERS = [w for w in top_n_list("zh", 2000) if _HAN.match(w) and len(w) == 2][100:600]
# words that name a kind of key ("product key", "door key"): a credential, not a brand
_KEY_KINDS = {"product", "master", "root", "admin", "door", "access", "private", "secret"}
_KEY_KINDS |= {"license", "licence", "activation", "signing", "deploy", "encryption"}


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["my", "our", "the", ""]),
    st.lists(st.sampled_from(_MODIFIERS), max_size=3),
    st.sampled_from(_EN_FORMS),
)
def test_an_english_credential_name_is_only_a_name(
    lead: str, modifiers: list[str], cue: str
) -> None:
    value = " ".join(w for w in (lead, *modifiers, cue) if w)
    assert names_a_credential(value), value
    assert mentions_credential(f"Remember {value}.")


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["我的", "", "这个"]),
    st.sampled_from(_ZH_MODIFIERS),
    st.sampled_from(_ZH_FORMS),
)
def test_a_chinese_credential_name_is_only_a_name(lead: str, modifier: str, cue: str) -> None:
    assume(not any(c in modifier for c in "用开启关设改换忘要不没是"))
    assert names_a_credential(f"{lead}{modifier}{cue}")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(_MODIFIERS), st.sampled_from(sorted(AMBIGUOUS)), st.sampled_from(_MODIFIERS))
def test_an_everyday_word_in_a_name_is_no_credential_talk(brand: str, word: str, obj: str) -> None:
    assume(brand not in _KEY_KINDS)
    # "security code" is itself a cue of the lexicon, not a brand and an everyday word
    assume(f"{brand} {word}" not in {f for forms in lexicon().values() for f in forms})
    sentence = f"I use {brand.title()} {word.title()} for {obj}."
    assume(not any(w in sentence.lower().split() for w in ("password", "token", "secret")))
    assert not mentions_credential(sentence), sentence
    # the same word announcing a value, or in capitals, is a cue
    assert mentions_credential(f"The {brand} {word}: 4471"), word
    assert mentions_credential(f"Remember the {word.upper()} for {obj}"), word


@settings(max_examples=60, deadline=None)
@given(
    st.booleans(),
    st.lists(st.sampled_from(_MODIFIERS), min_size=1, max_size=2),
    st.sampled_from([f for f in _EN_FORMS if "password" in f or "pin" in f or "key" in f]),
)
def test_remembering_a_credential_by_name_never_commits(
    english: bool, modifiers: list[str], cue: str
) -> None:
    text = (
        f"Remember my {' '.join(modifiers)} {cue}."
        if english
        else f"记住我的{''.join(modifiers[:1])}密码。"
    )
    for s in explain(text):
        for c in s.candidates:
            assert c.decision != "COMMIT", (text, c.decision, c.reasons)
            assert "secret" in c.reasons, (text, c.reasons)
