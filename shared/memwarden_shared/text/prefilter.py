"""A literal prefilter in front of a compiled regular expression. Pure.

The cue lists are long alternations whose branches start with ``\\b`` or a lookbehind, so
``re`` cannot skip ahead to a likely start and tries every branch at every position of
the sentence; most sentences match none of them. :func:`prefiltered` reads the pattern's
own parse tree for literal strings at least one of which every match must contain, and
searches for those first: an alternation of plain literals is what ``re`` runs fastest
(it skips to their first characters and rejects a branch on one comparison). Only when
one occurs does the full pattern run, so every answer is the full pattern's answer.

The derivation is conservative: anything it does not understand (a back-reference, a
class of characters, a repeat that may be absent) contributes no literal, and a pattern
left with no good literal is returned as it was. Each literal remembers whether it was
read under ``re.IGNORECASE`` and is looked for the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # typeshed describes re._parser under the public name it had before 3.11
    import sre_parse
else:
    try:  # the parse tree ``re`` itself compiles from; private, stable since Python 3.11
        from re import _parser as sre_parse
    except ImportError:  # a Python that moved it: no prefilter, and the very same answers
        sre_parse = None

_OPS = sre_parse  # op codes (LITERAL, BRANCH, ...) are exported by the parser module

# A class of a few listed characters ("[sz]") or an alternation of plain words multiplies
# the spellings of a literal; past these bounds the literal is cut there instead.
_MAX_CLASS = 8
_MAX_SPELLINGS = 64
# The only non-ASCII characters ``re`` matches to an ASCII one when case is ignored (found
# by trying every code point; tests/test_prefilter.py checks it still holds).
MEETS_ASCII = frozenset("\u0130\u0131\u017f\u212a")  # İ ı ſ K (Kelvin sign)
_MEETS_ASCII_RX = re.compile("[" + "".join(sorted(MEETS_ASCII)) + "]")

Literal = tuple[str, bool]  # the text, and whether it is matched ignoring case


_COMMON = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ .,'-")


def _weight(s: str) -> int:
    """How rare a literal is: one Latin letter occurs in nearly every sentence, one digit or
    Chinese character ("5", "吗", "先") in few."""
    return sum(1 if c in _COMMON else 2 for c in s)


def _better(
    a: frozenset[Literal] | None, b: frozenset[Literal] | None
) -> frozenset[Literal] | None:
    """The more selective of two literal sets: longer shortest string, then fewer strings."""
    if a is None:
        return b
    if b is None:
        return a
    key_a = (min(_weight(s) for s, _ in a), -len(a))
    key_b = (min(_weight(s) for s, _ in b), -len(b))
    return b if key_b > key_a else a


def _class_chars(av: Any) -> list[str] | None:
    """The characters of a class made only of listed characters ("[sz]", "[，,]")."""
    if len(av) > _MAX_CLASS or any(op is not _OPS.LITERAL for op, _ in av):
        return None
    return [chr(code) for _, code in av]


def _words(av: Any) -> list[str] | None:
    """The words of an alternation of plain words ("o|ope|ah")."""
    words = []
    for alternative in av[1]:
        if not alternative.data or any(op is not _OPS.LITERAL for op, _ in alternative.data):
            return None
        words.append("".join(chr(code) for _, code in alternative.data))
    return words


def _pieces(op: Any, av: Any) -> list[str] | None:
    """The spellings of one node that consumes literal text: a character, a class of a few
    listed characters, an alternation of plain words; None for any other node."""
    if op is _OPS.LITERAL:
        return [chr(av)]
    if op is _OPS.IN:
        return _class_chars(av)
    if op is _OPS.BRANCH:
        return _words(av)
    return None


def _required(items: Any, ignorecase: bool) -> frozenset[Literal] | None:
    """Literals one of which every match of the sequence ``items`` contains, or None."""
    best: frozenset[Literal] | None = None
    run: set[str] = {""}  # the literal text just consumed, in each of its spellings
    for op, av in items:
        pieces = _pieces(op, av)
        if pieces is not None and len(run) * len(pieces) <= _MAX_SPELLINGS:
            run = {head + piece for head in run for piece in pieces}
            continue
        if op is _OPS.AT:
            continue  # zero width: the characters around it are still consumed together
        best = _better(best, _spelled(run, ignorecase))
        if pieces is not None and len(pieces) <= _MAX_SPELLINGS:
            run = set(pieces)  # too many spellings to go on: start again from here
        else:
            run = {""}
            best = _better(best, _nested(op, av, ignorecase))
    return _better(best, _spelled(run, ignorecase))


def _spelled(run: set[str], ignorecase: bool) -> frozenset[Literal] | None:
    """The literal run just consumed, None when it is empty."""
    return frozenset((s, ignorecase) for s in run) if run != {""} else None


def _nested(op: Any, av: Any, ignorecase: bool) -> frozenset[Literal] | None:
    """Literals a group, a repeat of at least one, or an alternation requires; None for
    anything else (lookarounds, back-references, wider classes contribute nothing)."""
    if op is _OPS.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        inner = (ignorecase or bool(add_flags & re.IGNORECASE)) and not (del_flags & re.IGNORECASE)
        return _required(sub.data, inner)
    if op is _OPS.ATOMIC_GROUP:
        return _required(av.data, ignorecase)
    if op in (_OPS.MAX_REPEAT, _OPS.MIN_REPEAT, _OPS.POSSESSIVE_REPEAT):
        low, _high, sub = av
        return _required(sub.data, ignorecase) if low >= 1 else None
    if op is _OPS.BRANCH:
        union: set[Literal] = set()
        for alternative in av[1]:
            found = _required(alternative.data, ignorecase)
            if found is None:
                return None  # one alternative requires nothing: neither does the whole
            union |= found
        return frozenset(union)
    return None


def _meets_ascii(literal: str) -> bool:
    """Whether ``literal`` may occur in ASCII text when case is ignored."""
    return all(c.isascii() or c in MEETS_ASCII for c in literal)


def required_literals(pattern: re.Pattern[str]) -> frozenset[Literal] | None:
    """Literals one of which every match of ``pattern`` contains, or None when no good set
    is known (a lone Latin letter filters nothing; a non-ASCII literal that could read as
    ASCII when case is ignored has no simple test)."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags & ~re.UNICODE)
    except re.error:
        return None
    found = _required(parsed.data, bool(pattern.flags & re.IGNORECASE))
    if not found or min(_weight(s) for s, _ in found) < 2:
        return None
    if any(fold and not s.isascii() and _meets_ascii(s) for s, fold in found):
        return None
    return found


def _trie(literals: list[str]) -> str:
    """One regex that finds any of ``literals``, branching once per character (a flat
    alternation would try every literal at every position)."""
    if "" in literals:
        return ""  # a literal ends here: nothing more is needed
    heads: dict[str, list[str]] = {}
    for literal in literals:
        heads.setdefault(literal[0], []).append(literal[1:])
    branches = [re.escape(head) + _trie(tails) for head, tails in sorted(heads.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _search(literals: Iterable[str], flags: int = 0) -> Callable[[str], object] | None:
    found = sorted(set(literals))
    return re.compile(_trie(found), flags).search if found else None


def _literal_test(literals: frozenset[Literal]) -> Callable[[str], object]:
    """A test that is falsy only for a text holding none of ``literals``.

    ``re`` has no fast path for case-insensitive literals, but for ASCII literals ignoring
    case is comparing lower case, in any text without one of :data:`MEETS_ASCII` (those
    texts are let through). The other case-insensitive literals hold a character no ASCII
    one can meet, so they are only looked for in non-ASCII text.
    """
    exact = _search(s for s, fold in literals if not fold)
    lowered = _search(s.lower() for s, fold in literals if fold and s.isascii())
    other = _search((s for s, fold in literals if fold and not s.isascii()), re.IGNORECASE)
    if exact is not None and lowered is None and other is None:
        return exact  # the common case, called directly: its match is the answer

    def test(text: str) -> bool:
        if exact is not None and exact(text):
            return True
        if lowered is None and other is None:
            return False
        if text.isascii():
            return lowered is not None and lowered(text.lower()) is not None
        if _MEETS_ASCII_RX.search(text):
            return True
        return bool(
            (lowered is not None and lowered(text.lower())) or (other is not None and other(text))
        )

    return test


class Prefiltered:
    """``pattern`` behind its literal prefilter; the methods answer as ``pattern``'s do."""

    __slots__ = ("_full", "_may_match", "flags", "literals", "pattern")

    def __init__(self, full: re.Pattern[str], literals: frozenset[Literal]) -> None:
        self._full = full
        self.pattern = full.pattern
        self.flags = full.flags
        self.literals = literals
        self._may_match = _literal_test(literals)

    def search(self, text: str) -> re.Match[str] | None:
        return self._full.search(text) if self._may_match(text) else None

    def match(self, text: str) -> re.Match[str] | None:
        return self._full.match(text) if self._may_match(text) else None

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self._full.fullmatch(text) if self._may_match(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self._full.finditer(text) if self._may_match(text) else iter(())

    def findall(self, text: str) -> list[Any]:
        return self._full.findall(text) if self._may_match(text) else []

    def sub(self, repl: Any, text: str) -> str:
        return self._full.sub(repl, text) if self._may_match(text) else text


def prefiltered(pattern: re.Pattern[str]) -> re.Pattern[str] | Prefiltered:
    """``pattern`` with a literal prefilter in front when one can be derived, else itself."""
    if sre_parse is None:
        return pattern
    literals = required_literals(pattern)
    return pattern if literals is None else Prefiltered(pattern, literals)


def any_may_match(patterns: Iterable[re.Pattern[str] | Prefiltered]) -> Callable[[str], object]:
    """One test for many patterns: falsy only when none of them can match the text (a
    pattern without a prefilter always may)."""
    literals: set[Literal] = set()
    for pattern in patterns:
        if not isinstance(pattern, Prefiltered):
            return lambda text: True
        literals |= pattern.literals
    return _literal_test(frozenset(literals))
