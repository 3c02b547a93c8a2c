"""The one sentence cutter (SPEC §5.3), shared by the extractor and the gate. Pure.

Cuts at ``. ! ? 。 ！ ？ ；`` (and ASCII ``;``) and line breaks; commas never cut. A period
does not cut inside a number or version (``3.14``, ``v1.2``), after a known abbreviation
(``e.g.``, ``Dr.``), or when the next character is not whitespace / end of text
(``example.com``); ``!``, ``?`` and ``;`` do not cut inside an ASCII token (``Qw9!zR4``), so
a password or URL is never split into two "sentences". Closing quotes
and brackets after the terminator stay with the sentence. Spans are trimmed of surrounding
whitespace; offsets are code points into the original text, ``end`` exclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TERMINATORS = frozenset(".!?。！？；;")
FULLWIDTH_TERMINATORS = frozenset("。！？；")
CLOSERS = frozenset("\"'”’)]}）】」』》")
LINE_BREAKS = frozenset("\n\r\u2028\u2029")
ABBREVIATIONS = frozenset(
    {
        "e.g",
        "i.e",
        "etc",
        "vs",
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "no",
        "approx",
        "inc",
        "ltd",
        "co",
        "corp",
        "u.s",
        "a.m",
        "p.m",
        "fig",
        "cf",
    }
)


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int
    text: str


def _word_before(text: str, dot: int) -> str:
    i = dot
    while i > 0 and (text[i - 1].isalpha() or text[i - 1] == "."):
        i -= 1
    return text[i:dot].lower()


def _period_cuts(text: str, i: int) -> bool:
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if nxt and not nxt.isspace() and nxt not in CLOSERS:
        return False  # 3.14, v1.2, example.com, a.m.
    return _word_before(text, i) not in ABBREVIATIONS


def _inside_token(text: str, i: int) -> bool:
    """``!``/``?``/``;`` between two ASCII non-space characters belong to a token
    (``Qw9!zR4``, ``a?b=1``), not to the sentence structure."""
    if i == 0 or i + 1 >= len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    return all(
        c.isascii() and not c.isspace() and c not in TERMINATORS and c not in CLOSERS
        for c in (before, after)
    )


def _cuts_at(text: str, i: int) -> bool:
    ch = text[i]
    if ch in LINE_BREAKS or ch in FULLWIDTH_TERMINATORS:
        return True
    if ch in "!?;":
        return not _inside_token(text, i)
    if ch == ".":
        return _period_cuts(text, i)
    return False


# The only characters :func:`_cuts_at` may cut at: the cutter jumps from one to the next.
_CUT_CANDIDATE = re.compile("[" + re.escape("".join(sorted(LINE_BREAKS | TERMINATORS))) + "]")


# An enumerated item's marker: "1)", "1.", "1）", "(1)", "（1）", "①". It opens an item only
# where no Latin letter, digit or period runs into it ("v1.2", "a1)"); "1." and "1)" need a
# space or a Chinese character after them, the full-width and circled forms do not.
_MARKER = re.compile(
    r"(?<![A-Za-z0-9_.])"
    r"(?:(?P<num>\d{1,2})(?P<close>[.)])(?=\s|[\u3400-\u9fff])|(?P<fnum>\d{1,2})(?P<fclose>）)"
    r"|(?P<open>[(（])(?P<pnum>\d{1,2})[)）]|(?P<circled>[①-⑩]))"
)
_CIRCLED_BASE = ord("①") - 1


def _marker_style_and_number(m: re.Match[str]) -> tuple[str, int]:
    if m["num"] is not None:
        return m["close"], int(m["num"])
    if m["fnum"] is not None:
        return "）", int(m["fnum"])
    if m["pnum"] is not None:
        return "()", int(m["pnum"])
    return "①", ord(m["circled"]) - _CIRCLED_BASE


def list_markers(text: str) -> list[tuple[int, int]]:
    """The spans of the markers of an enumerated list written inline: "remember two things:
    1) … 2) …", "记住两件事：①… ②…". Only a run numbered 1, 2, … in one style counts, so a
    lone "2." or "3)" in a sentence is no list. The markers belong to no sentence."""
    found: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    run_style = ""
    for m in _MARKER.finditer(text):
        style, number = _marker_style_and_number(m)
        if number == 1:
            if len(run) >= 2:
                found.extend(run)
            run, run_style = [(m.start(), m.end())], style
        elif run and style == run_style and number == len(run) + 1:
            run.append((m.start(), m.end()))
    if len(run) >= 2:
        found.extend(run)
    return found


def split_sentences(text: str) -> list[Sentence]:
    """Cut ``text`` into trimmed sentences with code-point offsets; an inline enumerated
    list's markers cut too, and belong to no sentence (:func:`list_markers`)."""
    markers = list_markers(text) if _MAY_LIST.search(text) else []
    if not markers:
        return _split(text, 0, len(text))
    sentences: list[Sentence] = []
    start = 0
    for m_start, m_end in markers:
        sentences.extend(_split(text, start, m_start))
        start = m_end
    sentences.extend(_split(text, start, len(text)))
    return sentences


_MAY_LIST = re.compile(r"[1１①][.)）]|[(（]1[)）]|①")


def _split(text: str, begin: int, stop: int) -> list[Sentence]:
    """Cut ``text[begin:stop]`` at terminators and line breaks."""
    sentences: list[Sentence] = []
    start = begin
    i = begin
    n = stop
    while i < n:
        candidate = _CUT_CANDIDATE.search(text, i, n)
        if candidate is None:
            break
        i = candidate.start()
        if _cuts_at(text, i):
            end = i + 1
            if text[i] not in LINE_BREAKS:
                # runs like "?!" or "。」" stay with the sentence they close
                while end < n and (text[end] in TERMINATORS or text[end] in CLOSERS):
                    if text[end] == "." and not _period_cuts(text, end):
                        break
                    end += 1
            else:
                end = i  # the break itself belongs to no sentence
            _append_trimmed(sentences, text, start, min(end, n))
            start = max(end, i + 1)
            i = start
            continue
        i += 1
    _append_trimmed(sentences, text, start, n)
    return sentences


def _append_trimmed(out: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append(Sentence(start, end, text[start:end]))


def is_complete_utterance(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` is exactly one whole sentence of ``text``."""
    return any(s.start == start and s.end == end for s in split_sentences(text))
