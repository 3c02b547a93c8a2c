"""Which registry key a recall query is about (pure).

A query often names the *key* rather than the value ("时区", "JS tooling", "what should I
call you"), and the value shares no word with it ("Europe/Berlin", "yarn", "Alex Chen"). So
each key gets a vocabulary from its name, its description and its bilingual key aliases
(registry fields ``description`` and ``key_aliases``), and a query is scored against it:

    lexical(key) = sum of w(t) over query terms t in the key's vocabulary
                   / sum of w(t) over query terms t in any key's vocabulary
    w(t)         = ln(1 + N / df(t))     N keys, df(t) keys whose vocabulary holds t
    phrase(key)  = 1 when a whole key alias occurs in the query, else 0
    key_match    = (1 - PHRASE_SHARE) * lexical + PHRASE_SHARE * phrase      in [0, 1]

Terms are folded Latin words (a plural "s", "-ing" and "-ed" dropped) and CJK character
bigrams (a lone CJK character stays itself); function words of either language are not
terms. Terms that no key knows ("Redis", "缓存") do not dilute the score: they are the
value's business.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from memwarden_shared.contract.registry import Registry, default_registry
from memwarden_shared.text.fold import Level, fold_text

PHRASE_SHARE = 0.4

_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9+#\-]*")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")

# Words that carry no key meaning in either language (questions, pronouns, glue).
_STOP_EN = frozenset(
    """a an the and or of to in on at for with by from is are am be was were do does did i me
    my mine we us our you your yours they them their he she his her it its this that these
    those what which who whom whose how when where why there here should would could can
    will shall may might must have has had not no yes any some all one user users s about
    into as than then so if just please right now""".split()  # noqa: SIM905 - reads as text
)
_STOP_ZH = frozenset(
    """什么 哪个 哪些 怎么 怎样 如何 我的 你的 他的 她的 我们 你们 他们 用户
    一个 这个 那个 是什 么样 是不 不是 可以 应该 用的 的是 用什 么语""".split()  # noqa: SIM905
)


def _stem(word: str) -> str:
    """A crude suffix strip, the same on both sides ("formatted", "formatting" -> "formatt")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> set[str]:
    """The meaning-bearing terms of ``text`` (see the module docstring)."""
    folded = fold_text(text, Level.SPACE)
    out: set[str] = set()
    for word in _LATIN_WORD.findall(folded):
        word = word.strip("-")
        if word and word not in _STOP_EN:
            out.add(_stem(word))
    for run in _CJK_RUN.findall(folded):
        if len(run) == 1:
            out.add(run)
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return out - _STOP_ZH


def _compact(text: str) -> str:
    """Folded with spaces squeezed, for whole-phrase containment."""
    return fold_text(text, Level.SPACE)


@dataclass(frozen=True)
class KeyVocabulary:
    terms: dict[str, frozenset[str]]  # normalized_key -> its vocabulary
    phrases: dict[str, tuple[str, ...]]  # normalized_key -> folded key aliases
    weights: dict[str, float]  # term -> w(t)
    # normalized_key -> (CJK aliases, one regex of its Latin aliases): built once, since a
    # recall matches the query against every key
    _matchers: dict[str, tuple[tuple[str, ...], re.Pattern[str] | None]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def match(self, query: str) -> dict[str, float]:
        """key_match for every key the query touches (keys left out score 0)."""
        q_terms = terms(query)
        known = [t for t in q_terms if t in self.weights]
        total = sum(self.weights[t] for t in known)
        padded = f" {_compact(query)} "
        out: dict[str, float] = {}
        for key, vocabulary in self.terms.items():
            lexical = (
                sum(self.weights[t] for t in known if t in vocabulary) / total if total else 0.0
            )
            cjk, latin = self._matchers[key]
            phrase = any(p in padded for p in cjk) or bool(latin and latin.search(padded))
            score = (1 - PHRASE_SHARE) * lexical + (PHRASE_SHARE if phrase else 0.0)
            if score:
                out[key] = score
        return out


def _matcher(phrases: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """CJK aliases match anywhere; Latin ones on word boundaries (a plural "s" allowed)."""
    cjk = tuple(p for p in phrases if _CJK_RUN.search(p))
    latin = [re.escape(p) for p in phrases if not _CJK_RUN.search(p)]
    if not latin:
        return cjk, None
    return cjk, re.compile(rf"(?<![a-z0-9])(?:{'|'.join(latin)})s?(?![a-z0-9])")


def build_vocabulary(registry: Registry) -> KeyVocabulary:
    vocab: dict[str, frozenset[str]] = {}
    phrases: dict[str, tuple[str, ...]] = {}
    for spec in registry.keys.values():
        texts = [spec.normalized_key.replace(".", " ").replace("_", " ")]
        texts += list(spec.description.values())
        aliases = [a for words in spec.key_aliases.values() for a in words]
        found: set[str] = set()
        for text in texts + aliases:
            found |= terms(text)
        vocab[spec.normalized_key] = frozenset(found)
        phrases[spec.normalized_key] = tuple(sorted({_compact(a) for a in aliases if a.strip()}))
    df: dict[str, int] = {}
    for key_terms in vocab.values():
        for t in key_terms:
            df[t] = df.get(t, 0) + 1
    n = max(len(vocab), 1)
    weights = {t: math.log(1 + n / count) for t, count in df.items()}
    matchers = {key: _matcher(p) for key, p in phrases.items()}
    return KeyVocabulary(terms=vocab, phrases=phrases, weights=weights, _matchers=matchers)


_built: dict[int, tuple[Registry, KeyVocabulary]] = {}


def vocabulary_of(registry: Registry) -> KeyVocabulary:
    """Built once per registry object (held here so its id is not reused)."""
    hit = _built.get(id(registry))
    if hit is None or hit[0] is not registry:
        hit = _built[id(registry)] = (registry, build_vocabulary(registry))
    return hit[1]


def default_vocabulary() -> KeyVocabulary:
    return vocabulary_of(default_registry())
