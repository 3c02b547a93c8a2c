"""Session windows: a secret split over the turns of a session (SPEC §5.6 v3). Pure.

A turn opens a window over the turns after it in its session when it holds a credential cue
(:mod:`secret_cues`: ``my PIN is``, ``验证码``, an assistant's ``enter the code``), or when
it is itself a bare fragment: a turn that is not ordinary language and holds a
fragment-shaped token (four digits or more that are not a year, a token mixing letters with
digits or symbols, a spelled sequence of three units) with nothing else but lead-in words
(``and``, ``then``, ``rest``, ``后面是``). A bare fragment is masked whole:
the turn that would complete it comes later, when this one is already stored.

While a window is open, each turn is scanned together with the window's earlier turns as
one text (joined by line breaks), and what that finds inside the turn is masked; besides:

- a turn that is not ordinary language is a fragment (a half, spelled letters, Chinese
  digit words, a bare token): every character of it but spaces is masked, and the window
  stays open;
- an ordinary-language turn closes the window, but every number, symbol-bearing token,
  credential-shaped token and spelled sequence in it is masked first (``the rest is 8812``).

A window closes after :data:`WINDOW_TURNS` turns in any case.

**Ordinary language**: three words or more, where a word is a whole token of two Latin
letters or more in lower, title or upper case (not a NATO or digit word; ``aa!aa`` is no
word) or two Chinese characters that are not numerals.

The state is rebuilt from the session's latest turns (:func:`window_after`): from the
stored, masked texts when ingest reads them back (a masked fragment is all ``*``, which
is not ordinary language, so the window stays open across batches), from the raw texts
inside one batch. Nothing but the texts themselves is needed, so no state is stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from memwarden_shared.detect import secret_cue_window, secret_ids, secret_shapes
from memwarden_shared.detect.secret_cues import find_cues
from memwarden_shared.detect.secret_shape_scan import scan_shapes
from memwarden_shared.detect.secret_shapes import credential_shaped, tokens
from memwarden_shared.detect.secrets import find_secrets
from memwarden_shared.text.fold import Level, fold

FRAGMENT = "session_fragment"
WINDOW_TURNS = 6

_LATIN_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]{2,}")
_SPELLING_WORDS = re.compile(
    rf"(?:{secret_cue_window._DIGIT_WORDS}|{secret_cue_window._NATO})", re.IGNORECASE
)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_ZH_NUMERALS = frozenset(secret_cue_window._ZH_NUMERAL + "十百千万")
# Tokens with digits that say when, which version or how much, not a secret.
_HARMLESS_TOKEN = re.compile(
    r"(?:19|20)\d\d|\d{1,2}:\d\d(?::\d\d)?(?:\s*[ap]m)?|\d{1,2}\s*[ap]m|\d+(?:st|nd|rd|th)"
    r"|v?\d+(?:\.\d+)+[a-z]?|" + secret_shapes.UTC_OFFSET,
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
# Words that lead a piece of a secret in and say nothing of what it is.
_FILLER = frozenset(("and", "then", "also", "plus", "the", "rest", "last", "first", "second",
    "third", "part", "half", "is", "it's", "its", "next", "one", "more", "final", "ok", "so",
    "-", "+", ":", "&", ",", "..."))  # fmt: skip
_ZH_FILLER = re.compile(
    r"(?:然后|还有|后面|前面|剩下|最后|接着|另外|再|和|是|的|部分|一半|半|段|第[一二三]?)*"
)
_SPELLED_START = 3
# "part two:", "第二部分": the label of a piece, not a word of it
_PIECE_LABEL = re.compile(r"part|piece|words?|two|three|four|1|2|3|4|[:：]")


@dataclass(frozen=True, slots=True)
class Window:
    """An open window has ``turns_left`` > 0 and the window's earlier turns' texts."""

    turns_left: int = 0
    texts: tuple[str, ...] = ()

    @property
    def open(self) -> bool:
        return self.turns_left > 0


CLOSED = Window()


def ordinary(folded: str) -> bool:
    """Whether a turn (folded) is ordinary language (module docstring)."""
    latin = (folded[s:e] for s, e in tokens(folded))
    words = sum(1 for w in latin if _LATIN_WORD.fullmatch(w) and not _SPELLING_WORDS.fullmatch(w))
    han = sum(1 for c in _HAN.findall(folded) if c not in _ZH_NUMERALS)
    return words + han // 2 >= 3


def _fragment_token(token: str) -> bool:
    """A token with letters that reads as a piece of a credential (digit runs are judged
    in context by :func:`_digit_fragment`)."""
    if _HARMLESS_TOKEN.fullmatch(token) or token.isdigit():
        return False
    number = _NUMBER.match(token)
    if number and secret_shapes.UNIT_AFTER.fullmatch(token, number.end()):
        return False  # "10kg", "128GB", "5%"
    if credential_shaped(token):
        return True
    digits = any(c.isdigit() for c in token)
    symbols = any(c in "!@#$%^&*+=?~|" for c in token.strip("!?.*"))
    letters = any(c.isalpha() for c in token)
    return len(token) >= 4 and letters and (digits or symbols)


def _only_filler_besides(folded: str, fragment: tuple[int, int]) -> bool:
    """Whether every token of the turn but the fragment's is a lead-in word (``and``,
    ``then``, ``rest``, ``后面是``…): a turn that names what the code is ("request id …",
    "tracking number …") is no fragment of a secret."""
    words = [folded[s:e] for s, e in tokens(folded) if not (fragment[0] <= s < fragment[1])]
    words = [w for w in words if not (fragment[0] <= folded.find(w) < fragment[1])]
    han = "".join(_HAN.findall(folded))
    return all(w.casefold() in _FILLER for w in words) and _ZH_FILLER.fullmatch(han) is not None


def _bare_fragment(folded: str) -> bool:
    if ordinary(folded) or find_cues(folded):
        return False  # a cue's own window masks what follows it
    for _, s, e in secret_shapes.find_digit_runs(folded, min_digits=4):
        if _only_filler_besides(folded, (s, e)):
            return True
    for s, e in tokens(folded):
        fragment = _fragment_token(folded[s:e]) and not secret_shapes.hash_cued(folded, s)
        if fragment and _only_filler_besides(folded, (s, e)):
            return True
    return any(
        len(secret_cue_window._UNIT_ONE.findall(folded[s:e])) >= _SPELLED_START
        for _, s, e in secret_cue_window._spelled(folded, 0, len(folded), _SPELLED_START)
    )


def _next(window: Window, text: str, folded: str) -> Window:
    if find_cues(folded) or secret_ids.seed_cued(folded):
        return Window(WINDOW_TURNS, (text,))
    if window.open and (not ordinary(folded) or _seed_piece_in(window, folded)):
        return Window(window.turns_left - 1, (*window.texts, text))
    if not window.open and _bare_fragment(folded):
        return Window(WINDOW_TURNS, (text,))
    return CLOSED


def _seed_piece_in(window: Window, folded: str) -> bool:
    """After a seed cue, a turn of nothing but seed words and lead-in words reads as
    words, yet it is a piece of the phrase, however short: masked whole, and more pieces
    may follow."""
    if not secret_ids.seed_cued("\n".join(window.texts)):
        return False
    words = [folded[s:e].casefold() for s, e in tokens(folded)]
    pieces = [w for w in words if w not in _FILLER and not _PIECE_LABEL.fullmatch(w)]
    return bool(pieces) and all(secret_ids.seed_word(w) for w in pieces)


def window_after(history: Sequence[str]) -> Window:
    """The window left open by ``history``, the session's latest turns, oldest first."""
    window = CLOSED
    for text in history:
        window = _next(window, text, fold(text, Level.SCRIPT).text)
    return window


def _non_space(text: str) -> Iterator[tuple[int, int]]:
    for m in re.finditer(r"\S+", text):
        yield m.span()


def _candidates(text: str) -> Iterator[tuple[int, int]]:
    """Every number, symbol-bearing or credential-shaped token and spelled sequence."""
    folded = fold(text, Level.SCRIPT)
    t = folded.text
    for start, end in secret_cue_window._token_candidates(t, 0, len(t)):
        yield folded.span(start, end)
    for _, start, end in secret_cue_window._spelled(t, 0, len(t), 2):
        yield folded.span(start, end)


def _joined(window: Window, text: str) -> Iterator[tuple[int, int]]:
    """What a scan of the window's turns and this one, as one text, finds in this one."""
    head = "\n".join(window.texts) + "\n"
    joined = head + text
    offset = len(head)
    spans = [(f.start, f.end) for f in scan_shapes(joined)]
    spans += [(f.start, f.end) for f in find_secrets(joined)]
    for start, end in spans:
        if end > offset:
            yield max(start, offset) - offset, end - offset


def window_spans(window: Window, text: str) -> tuple[list[tuple[str, int, int]], Window]:
    """``(spans to mask in text, the window after text)`` for a turn of the session."""
    folded = fold(text, Level.SCRIPT).text
    spans: list[tuple[str, int, int]] = []
    if window.open:
        whole = not ordinary(folded) or _seed_piece_in(window, folded)
        picked = _non_space(text) if whole else _candidates(text)
        spans += [(FRAGMENT, s, e) for s, e in picked]
        spans += [(FRAGMENT, s, e) for s, e in _joined(window, text)]
    elif _bare_fragment(folded):
        spans += [(FRAGMENT, s, e) for s, e in _non_space(text)]
    return spans, _next(window, text, folded)
