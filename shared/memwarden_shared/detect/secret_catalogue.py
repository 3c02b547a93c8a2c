"""Vendor token formats from gitleaks' default rule set (data/gitleaks.toml). Pure.

The data file is gitleaks' own ``config/gitleaks.toml``, unmodified (licence and refresh
script: data/GITLEAKS_LICENSE.md, scripts/update_gitleaks_rules.py). This module
applies it the way gitleaks does: a rule runs only when one of its keywords occurs in the
lower-cased text; the secret is the rule's ``secretGroup`` (else the first non-empty group,
else the whole match); it must reach the rule's Shannon ``entropy``; and the rule's and the
global allowlists (regexes, stopwords; path-only entries do not apply to chat) let it go.

Go RE2 syntax is translated once at load: a mid-pattern ``(?i)`` becomes a scoped group,
``\\z`` becomes ``\\Z`` and POSIX classes are spelled out. A rule that still does not
compile is skipped and counted in :data:`SKIPPED`, never silently mis-read.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources

GENERIC_RULES = frozenset({"generic-api-key"})
EXTRA_RULES = "memwarden_rules.toml"
_POSIX = {
    "[:alnum:]": "a-zA-Z0-9",
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:upper:]": "A-Z",
    "[:lower:]": "a-z",
    "[:xdigit:]": "0-9A-Fa-f",
}


@dataclass(frozen=True, slots=True)
class _Allow:
    target: str  # "secret", "match" or "line"
    regexes: tuple[re.Pattern[str], ...]
    stopwords: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Rule:
    rule_id: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]
    secret_group: int
    entropy: float
    allows: tuple[_Allow, ...]


SKIPPED: list[str] = []


def _group_end(rx: str, pos: int) -> int:
    """Index of the ``)`` closing the group that encloses ``pos`` (``len(rx)`` at top level)."""
    depth = 0
    in_class = False
    i = pos
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if rx.startswith("[^]", i) or rx.startswith("[]", i):
                i += 2 if rx[i + 1] == "]" else 3
                continue
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return len(rx)


def translate(rx: str) -> str:
    """A Go RE2 pattern as Python ``re`` reads it."""
    for posix, spelled in _POSIX.items():
        rx = rx.replace(posix, spelled)
    rx = rx.replace(r"\z", r"\Z")
    if rx.startswith("(?i)"):
        return "(?i)" + rx[4:].replace("(?i)", "")
    while (pos := rx.find("(?i)", 1)) > 0:
        end = _group_end(rx, pos + 4)
        rx = rx[:pos] + "(?i:" + rx[pos + 4 : end] + ")" + rx[end:]
    return rx


def _compile(rx: str) -> re.Pattern[str]:
    return re.compile(translate(rx), re.ASCII)


def _allows(entries: list[dict[str, object]]) -> tuple[_Allow, ...]:
    out = []
    for entry in entries:
        if entry.get("paths") and entry.get("condition") == "AND":
            continue  # needs a file path to match; chat has none
        regexes = tuple(_compile(str(r)) for r in entry.get("regexes", []))  # type: ignore[attr-defined]
        stopwords = tuple(str(w).lower() for w in entry.get("stopwords", []))  # type: ignore[attr-defined]
        if regexes or stopwords:
            out.append(_Allow(str(entry.get("regexTarget", "secret")), regexes, stopwords))
    return tuple(out)


@cache
def rules() -> tuple[tuple[Rule, ...], tuple[_Allow, ...]]:
    """The compiled rules and the global allowlist, loaded once."""
    data = resources.files("memwarden_shared.detect").joinpath("data")
    raw = tomllib.loads(data.joinpath("gitleaks.toml").read_text("utf-8"))
    # memwarden's own rules, same format: formats gitleaks' default set leaves out.
    extra = tomllib.loads(data.joinpath(EXTRA_RULES).read_text("utf-8"))
    global_allow = _allows([raw.get("allowlist", {})])
    compiled = []
    for r in [*raw["rules"], *extra["rules"]]:
        if "regex" not in r:
            continue  # path-only rules (file names) do not apply to chat
        try:
            compiled.append(
                Rule(
                    rule_id=r["id"],
                    pattern=_compile(r["regex"]),
                    keywords=tuple(k.lower() for k in r.get("keywords", [])),
                    secret_group=int(r.get("secretGroup", 0)),
                    entropy=float(r.get("entropy", 0)),
                    allows=_allows(r.get("allowlists", [])),
                )
            )
        except re.error:
            SKIPPED.append(r["id"])
    return tuple(compiled), global_allow


def shannon_entropy(s: str) -> float:
    """Bits per character of ``s``, as gitleaks computes it."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _allowed(allows: tuple[_Allow, ...], secret: str, match: str, line: str) -> bool:
    for allow in allows:
        target = {"match": match, "line": line}.get(allow.target, secret)
        if any(p.search(target) for p in allow.regexes):
            return True
        if any(w in secret.lower() for w in allow.stopwords):
            return True
    return False


def _secret_span(rule: Rule, m: re.Match[str]) -> tuple[int, int]:
    if rule.secret_group and m.lastindex and rule.secret_group <= m.lastindex:
        return m.span(rule.secret_group)
    for g in range(1, (m.lastindex or 0) + 1):
        if m.group(g):
            return m.span(g)
    return m.span()


def _line(text: str, start: int, end: int) -> str:
    lo = text.rfind("\n", 0, start) + 1
    hi = text.find("\n", end)
    return text[lo : hi if hi >= 0 else len(text)]


def trie_pattern(words: set[str]) -> str:
    """One pattern matching, at any position, the LONGEST of ``words`` that starts there: the
    words share their prefixes, each branch tries the longer words first, and at most one
    branch can follow the text. Faster than a plain alternation, which tries every word."""
    children: dict[str, set[str]] = {}
    for word in words:
        if word:
            children.setdefault(word[0], set()).add(word[1:])
    branches = [re.escape(c) + trie_pattern(rest) for c, rest in sorted(children.items())]
    if "" in words and branches:
        branches.append("")  # this word ends here: taken only when no longer one matches
    if len(branches) == 1:
        return branches[0]
    return "(?:" + "|".join(branches) + ")" if branches else ""


@cache
def _keyword_index() -> tuple[re.Pattern[str], dict[str, frozenset[int]], frozenset[int]]:
    """A finder of the longest keyword starting at a position; for each keyword, the rules
    of every keyword it contains (a shorter keyword at the same place is a prefix of the one
    the finder reports); and the rules with no keyword (they always run)."""
    compiled = rules()[0]
    by_word: dict[str, set[int]] = {}
    for i, rule in enumerate(compiled):
        for k in rule.keywords:
            by_word.setdefault(k, set()).add(i)
    covered = {
        word: frozenset(i for other, rs in by_word.items() if other in word for i in rs)
        for word in by_word
    }
    always = frozenset(i for i, rule in enumerate(compiled) if not rule.keywords)
    return re.compile(trie_pattern(set(by_word))), covered, always


def _candidates(lower: str) -> list[int]:
    """Positions of the rules whose keywords occur in ``lower``, in catalogue order."""
    finder, covered, always = _keyword_index()
    picked = set(always)
    pos = 0
    # Each search finds the next place a keyword starts, so overlapping keywords are all seen.
    while m := finder.search(lower, pos):
        picked |= covered[m.group()]
        pos = m.start() + 1
    return sorted(picked)


# How chat ends a token where a config file would not: gitleaks' rules end one at a quote,
# a space, ``;`` or the end of the line; chat also ends it with a full stop or a bracket
# before a space ("… token is hf_…."), with Chinese punctuation, or with a Chinese word
# right after it. The rules read a copy with those turned into spaces, one character for
# one, so offsets hold.
_PROSE_END = re.compile(
    r"[.,!?:)\]}>]+(?=\s|$|[\u4e00-\u9fff])|[。，、！？：；）」』】（「『【]|(?<=[!-~])[\u4e00-\u9fff]"
)


def _as_config_line(text: str) -> str:
    return _PROSE_END.sub(lambda m: " " * len(m.group()), text)


def find_catalogued(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(rule_id, start, end)`` for each secret a gitleaks rule finds in ``text``."""
    compiled, global_allow = rules()
    text = _as_config_line(text)
    for position in _candidates(text.lower()):
        rule = compiled[position]
        for m in rule.pattern.finditer(text):
            start, end = _secret_span(rule, m)
            secret = text[start:end]
            if not secret or (rule.entropy and shannon_entropy(secret) < rule.entropy):
                continue
            line = _line(text, start, end)
            if _allowed(rule.allows, secret, m.group(), line):
                continue
            if _allowed(global_allow, secret, m.group(), line):
                continue
            yield rule.rule_id, start, end
