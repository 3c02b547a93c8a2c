"""Sentences and values that talk about a credential rather than hold one. Pure.

Two questions the gate asks of a claim, both answered from the credential-cue lexicon
(:mod:`memwarden_shared.detect.secret_cues`), so an everyday word that is also a cue ("VS
Code", "key points", "bus pass") counts only where the lexicon says it announces a value:

- :func:`mentions_credential`: the sentence speaks of a credential ("Remember this deploy
  key:", "密钥如下"). In a message that holds a secret elsewhere it is a note about that
  secret.
- :func:`names_a_credential`: the value is nothing but a credential's name ("my router
  admin password", "我的支付密码"). Such a memory can only ever point at a secret: the value
  follows in a later turn, or the agent is primed to ask for it. It is refused like the
  secret itself, whether or not the secret has arrived yet.
"""

from __future__ import annotations

import re

from memwarden_shared.detect.secret_cues import find_cues
from memwarden_shared.text.fold import Level, fold_text

# Credential words that are never everyday words; the everyday ones (key, code, pin, pass,
# login) are left to the lexicon, which counts them in capitals or before a value.
_UNAMBIGUOUS = re.compile(
    r"\b(?:tokens?|passwords?|passphrases?|secrets?|credentials?|api[- ]?keys?|ssh|pem|certs?"
    r"|certificates?|seed phrases?|recovery codes?|passcodes?|mnemonics?"
    r"|(?:deploy|ssh|private|secret|access|signing|license|licence|gpg|pgp|encryption|master"
    r"|wifi|wi-fi|door|product|activation|root|admin)[- ]?keys?)\b"
    r"|密钥|私钥|公钥|密码|口令|令牌|凭据|凭证|证书|助记词|秘钥|密保|备用码|恢复码|暗号",
    re.IGNORECASE,
)
# A value that is a name and no statement: a possessive or article, at most a few
# modifiers, the cue last ("my router admin password", "the staging DB creds", "我的支付密码").
_EN_NAME_LEAD = re.compile(r"^(?:(?:my|our|the|this|that|a|an|his|her|their)\s+)?", re.IGNORECASE)
_EN_MODIFIERS_MAX = 4
_ZH_NAME = re.compile(r"^(?:我的|我们的|我|这个|那个|这|那)?[^\s，。,.!?！？：:]{0,12}$")
_TRAILING = re.compile(r"[\s.!?。！？,，;；:：…'\"”’)）]+$")


def mentions_credential(sentence: str) -> bool:
    """The sentence speaks of a credential (a word of the lexicon, or an unambiguous one)."""
    if _UNAMBIGUOUS.search(sentence):
        return True
    return bool(find_cues(fold_text(sentence, Level.SCRIPT)))


def names_a_credential(value: str) -> bool:
    """The value is only the name of a credential: the lexicon's cue ends it, and what comes
    before is an article or possessive and a few modifiers, no verb of a statement."""
    text = _TRAILING.sub("", fold_text(value, Level.SCRIPT))
    cues = find_cues(text)
    if not cues or cues[-1].end != len(text):
        return False
    before = text[: cues[-1].start].strip()
    if not before:
        return True
    if before.isascii():
        rest = _EN_NAME_LEAD.sub("", before)
        words = rest.split()
        return len(words) <= _EN_MODIFIERS_MAX and not STATEMENT_WORD.search(rest)
    return bool(_ZH_NAME.match(before)) and not _ZH_STATEMENT.search(before)


# Words that make the part before the cue a statement of its own ("I always use 2FA",
# "never share a password"): a subject, a verb of use or habit, a negation.
STATEMENT_WORD = re.compile(
    r"\b(?:i|i'm|we|you|use|uses|using|used|prefer|like|need|want|always|never|don't|do"
    r"|enable|enabled|turn|set|share|reuse|change|rotate|forgot|forget|is|are|was|no|not)\b",
    re.IGNORECASE,
)
_ZH_STATEMENT = re.compile(r"用|开|启|关|设|改|换|忘|要|不|没|是|喜欢|习惯|需要")


__all__ = ["STATEMENT_WORD", "mentions_credential", "names_a_credential"]
