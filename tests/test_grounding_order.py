"""Ordered grounding and dropped qualifiers (issue 10), English and Chinese. Pure."""

from __future__ import annotations

import datetime as dt

import pytest

from memwarden_shared.contract.registry import KeySpec, default_registry
from memwarden_shared.detect.grounding import (
    NEGATION_DROPPED,
    QUALIFIER_DROPPED,
    VALUE_NOT_GROUNDED,
    ungrounded_reason,
)

ANCHOR = dt.datetime(2026, 3, 10, 14, 0, tzinfo=dt.UTC)
OK = None


def spec(key: str) -> KeySpec:
    found = default_registry().get(key.split(".", 1)[0], key)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("key", "value", "span", "reason"),
    [
        # word order: the same words in another order say something else
        (
            "decision.note",
            "switch from GitHub Actions to Jenkins",
            "We decided to switch from Jenkins to GitHub Actions.",
            VALUE_NOT_GROUNDED,
        ),
        (
            "decision.note",
            "switch from Jenkins to GitHub Actions",
            "We decided to switch from Jenkins to GitHub Actions.",
            OK,
        ),
        (
            "decision.note",
            "从 GitHub Actions 迁移到 Jenkins",
            "我们决定从 Jenkins 迁移到 GitHub Actions。",
            VALUE_NOT_GROUNDED,
        ),
        (
            "decision.note",
            "从 Jenkins 迁移到 GitHub Actions",
            "我们决定从 Jenkins 迁移到 GitHub Actions。",
            OK,
        ),
        (
            "preference.note",
            "我先写代码再写测试",
            "记住：我先写测试再写代码。",
            VALUE_NOT_GROUNDED,
        ),
        # qualifiers a free-text value must keep
        (
            "preference.note",
            "I review PRs on Fridays",
            "Remember that I only review PRs on Fridays.",
            QUALIFIER_DROPPED,
        ),
        (
            "preference.note",
            "I only review PRs",
            "Remember that I only review PRs on Fridays.",
            QUALIFIER_DROPPED,
        ),
        (
            "preference.note",
            "I only review PRs on Fridays",
            "Remember that I only review PRs on Fridays.",
            OK,
        ),
        (
            "preference.note",
            "I use tabs",
            "Remember that I use tabs except in YAML files.",
            QUALIFIER_DROPPED,
        ),
        (
            "preference.note",
            "I code in the evening",
            "Remember that I usually code in the evening.",
            QUALIFIER_DROPPED,
        ),
        # in Chinese a dropped character inside the value already breaks a bigram
        ("preference.note", "我在周五发布", "记住：我只在周五发布。", VALUE_NOT_GROUNDED),
        ("preference.note", "我只在家办公", "记住：周五我只在家办公。", QUALIFIER_DROPPED),
        ("preference.note", "我在家办公", "记住：我只在家办公。", VALUE_NOT_GROUNDED),
        ("preference.note", "我只在周五发布", "记住：我只在周五发布。", OK),
        ("preference.note", "都在家办公", "记住：我除了周一都在家办公。", QUALIFIER_DROPPED),
        ("preference.note", "晚上写代码", "记住：我仅在晚上写代码。", QUALIFIER_DROPPED),
        (
            "preference.note",
            "I take meetings before 10am",
            "Remember that I never take meetings before 10am.",
            NEGATION_DROPPED,
        ),
        # a relative date is a date, not a weekday qualifier
        (
            "preference.note",
            "I joined the company on 2026-03-02",
            "Remember that I joined the company last Monday.",
            OK,
        ),
        # enum values: a restriction means the choice is not general
        ("preference.ui_theme", "dark", "I only use dark mode on Fridays.", QUALIFIER_DROPPED),
        ("preference.ui_theme", "dark", "我只在周五用深色模式。", QUALIFIER_DROPPED),
        (
            "preference.ui_theme",
            "light",
            "When I'm on the train, I use light mode.",
            QUALIFIER_DROPPED,
        ),
        ("preference.editor", "vim", "I use vim only on my laptop.", QUALIFIER_DROPPED),
        ("preference.package_manager", "pnpm", "I only use pnpm.", OK),
        ("preference.package_manager", "pnpm", "我只用 pnpm。", OK),
        ("preference.editor", "vim", "I prefer vim when coding.", OK),
        # the alternative a sentence turns down is not its value
        ("preference.package_manager", "npm", "I prefer pnpm over npm.", VALUE_NOT_GROUNDED),
        ("preference.package_manager", "pnpm", "I prefer pnpm over npm.", OK),
        ("preference.package_manager", "npm", "我从 npm 换成了 pnpm。", VALUE_NOT_GROUNDED),
        ("preference.package_manager", "pnpm", "我从 npm 换成了 pnpm。", OK),
        ("preference.editor", "vim", "I moved from Vim to Emacs.", VALUE_NOT_GROUNDED),
        ("preference.editor", "emacs", "I moved from Vim to Emacs.", OK),
        # "prefer X to Y": "to" after a verb of preferring names the loser
        ("preference.editor", "emacs", "I prefer vim to emacs.", VALUE_NOT_GROUNDED),
        ("preference.editor", "vim", "I prefer vim to emacs.", OK),
        ("preference.package_manager", "npm", "I much prefer pnpm to npm.", VALUE_NOT_GROUNDED),
        ("preference.package_manager", "yarn", "I use pnpm rather than yarn.", VALUE_NOT_GROUNDED),
        ("preference.package_manager", "npm", "我用 pnpm 而不是 npm。", VALUE_NOT_GROUNDED),
        ("preference.package_manager", "pnpm", "我用 pnpm 而不是 npm。", OK),
        ("preference.editor", "emacs", "I switched from vim to emacs.", OK),  # no preferring verb
        # traditional Chinese evidence grounds a simplified value
        ("preference.note", "我习惯用繁体中文交流", "請記住，我習慣用繁體中文交流。", OK),
    ],
)
def test_ungrounded_reason__order_qualifiers_and_alternatives(
    key: str, value: str, span: str, reason: str | None
) -> None:
    assert ungrounded_reason(value, span, spec(key), ANCHOR) == reason
