"""Tool preferences (database, framework, OS, shell, cloud) and the tools each covers. Pure.

A tool counts only where a preference is stated, as for the package manager: a verb of
using right before it ("I use **Django**", "我一直用 **MySQL**", "I develop on **Arch Linux**",
"我的项目都部署在**阿里云**上"), or the key's own noun in the sentence ("My default shell is
**zsh**", "我喜欢用 **PostgreSQL** 做数据库"). The rejected alternative never counts ("I use
**MySQL**, not Oracle"). The value is the tool's name as the owner wrote it ("Postgres",
"Windows"), so the gate's grounding finds it word for word.

Names that are also ordinary words ("arch", "fish", "spring", "express", "mac") need the
key's noun in the sentence; several tools of one key in one sentence are ambiguous (none).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from memwarden_shared.detect.grounding import form_pattern
from memwarden_shared.text.fold import Level, fold_text
from memwarden_shared.text.tool_catalogue import AMBIGUOUS_FORMS, TOOLS

# The key's own noun: "database", "我的 shell 是", "deployed on", "开发机".
KEY_NOUNS = {
    "preference.database": r"\b(?:databases?|dbs?|rdbms|datastore)\b|数据库",
    "preference.framework": r"\b(?:(?:web )?frameworks?|web apps?|backends?|frontends?)\b"
    r"|框架|后端|前端|服务端|小服务",
    "preference.os": r"\b(?:os|operating system|laptop|desktop|machine|computer|pc|workstation"
    r"|distro)\b|操作系统|系统|开发机|电脑|笔记本|开发",
    "preference.shell": r"\b(?:shells?|terminal|scripts?|scripting|command line|cli)\b"
    r"|终端|命令行|脚本",
    "preference.cloud": r"\b(?:clouds?|cloud provider|host(?:ed|ing)?|deploy\w*|infrastructure"
    r"|infra|servers?|side projects|projects)\b|部署|服务器|云服务|托管|跑在",
}
# Verbs of using a tool, right before it (besides routes.EN/ZH_PREFERENCE_VERB).
EN_TOOL_VERB = (
    r"(?:develop|code|work|program|build|run|runs|host|deploy|live|am|i'm) (?:\S+ ){0,4}?"
    r"(?:on|to|in|with)|runs?|deploy(?:s|ed)? to|it's|is on|are on|for"
)
ZH_TOOL_VERB = r"(?:部署在|跑在|托管在|放在|运行在|首选|是|都在|都用|只用|一般用|平时用)"


@cache
def _tool_forms(key: str) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """(canonical, form, pattern) of ``key``'s tools in the order they are tried (longest
    form first within a tool): the catalogue is fixed, so built once per process."""
    return tuple(
        (canonical, form, form_pattern(fold_text(form, Level.SPACE)))
        for canonical, forms in TOOLS[key].items()
        for form in sorted(forms, key=len, reverse=True)
    )


def _stated_positions(
    folded: str, key: str, before: Callable[[int], bool]
) -> dict[str, list[tuple[int, str]]]:
    """canonical tool -> (position, form) of each stated mention of a tool of ``key``."""
    keyed = bool(re.search(KEY_NOUNS[key], folded))
    # a tool of another key named beside it sets the scene: "I'm on macOS and use fish",
    # "I'm on Windows and use PowerShell" (issue 25); the verb of using is still needed
    among_tools = keyed or _names_another_tool(folded, key)
    found: dict[str, list[tuple[int, str]]] = {}
    taken: list[tuple[int, int]] = []
    for canonical, form, pattern in _tool_forms(key):
        ambiguous = form in AMBIGUOUS_FORMS
        if ambiguous and not among_tools:
            continue
        for m in pattern.finditer(folded):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue  # "arch linux" already holds "arch", "linux"
            if ambiguous and not keyed and not _CLAUSE_GOES_ON.match(folded, m.end()):
                continue  # "… and love fish tacos", "… used fish once": a word, not a tool
            taken.append((m.start(), m.end()))
            if keyed or before(m.start()):
                found.setdefault(canonical, []).append((m.start(), form))
    return found


# What may follow an ambiguous name that another tool made a tool: the clause's end or a
# joiner, never a noun it qualifies or an adverb of once.
_CLAUSE_GOES_ON = re.compile(
    r"\s*(?:$|[,.;!?。，；！？]|(?:and|with|as|on|for|in|at|too|also|everywhere|always|daily)\b)"
)


def _names_another_tool(folded: str, key: str) -> bool:
    """An unambiguous tool of another key is named in the sentence."""
    return any(
        form not in AMBIGUOUS_FORMS and pattern.search(folded)
        for other in TOOLS
        if other != key
        for _, form, pattern in _tool_forms(other)
    )


@cache
def _raw_pattern(form: str) -> str:
    return form_pattern(fold_text(form, Level.SPACE)).pattern


def tool_mention(
    raw: str, folded: str, key: str, stated: Callable[[int], bool], rejected: Callable[[int], bool]
) -> str | None:
    """The one tool of ``key`` the sentence states, as written in ``raw``; else None."""
    found = _stated_positions(folded, key, stated)
    keep = {c: hits for c, hits in found.items() if any(not rejected(p) for p, _ in hits)}
    if len(keep) != 1:
        return None
    (hits,) = keep.values()
    form = next(form for p, form in hits if not rejected(p))
    m = re.search(_raw_pattern(form), raw, re.I)
    return m.group(0) if m else None
