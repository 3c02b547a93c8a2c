"""Recall by meaning: a query naming a key ("时区", "JS tooling") finds that key's memory
through the registry's descriptions and bilingual key aliases, deterministically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine

from memwarden_recall.keymatch import build_vocabulary, terms
from memwarden_recall.query import recall
from memwarden_revalidation.commands import forget_message, revoke_message
from memwarden_shared.contract.registry import REGISTRY_PATH, default_registry, load_registry
from tests.actions_helpers import say

EXISTING_KEYS = {
    "preference.package_manager",
    "preference.language",
    "preference.ui_theme",
    "preference.editor",
    "preference.communication_style",
    "preference.note",
    "profile.name",
    "profile.timezone",
    "profile.location",
    "profile.contact",
    "profile.health",
    "decision.note",
    "task_fact.note",
}


def test_registry__the_existing_keys_describe_themselves_in_both_languages() -> None:
    specs = {s.normalized_key: s for s in default_registry().keys.values()}
    for key in EXISTING_KEYS:
        spec = specs[key]
        assert set(spec.description) == {"en", "zh"}, key
        assert all(spec.description.values()), key
        assert spec.key_aliases["en"] and spec.key_aliases["zh"], key


def test_registry__description_and_key_aliases_are_optional(tmp_path: Path) -> None:
    data = json.loads(REGISTRY_PATH.read_text(encoding="utf-8"))
    for raw in data["keys"]:
        raw.pop("description", None)
        raw.pop("key_aliases", None)
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    spec = load_registry(path).get("profile", "profile.timezone")
    assert spec is not None and spec.description == {} and spec.key_aliases == {}


def test_terms__drop_function_words_and_keep_cjk_bigrams() -> None:
    assert terms("What is my time zone?") == {"time", "zone"}
    assert terms("我的时区") == {"的时", "时区"}  # "我的" is a function word
    assert terms("dependencies") == {"dependency"}


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("时区", "profile.timezone"),
        ("JS tooling", "preference.package_manager"),
        ("my text editor", "preference.editor"),
        ("联系方式", "profile.contact"),
        ("reply language", "preference.language"),
        ("界面主题", "preference.ui_theme"),
    ],
)
def test_key_match__a_query_naming_a_key_scores_that_key_highest(query: str, key: str) -> None:
    scores = build_vocabulary(default_registry()).match(query)
    assert max(scores, key=lambda k: scores[k]) == key


def test_key_match__a_query_about_a_value_alone_touches_no_key() -> None:
    assert build_vocabulary(default_registry()).match("Redis Kafka") == {}


def _say_profile(store: Engine, tenant: str) -> dict[str, str]:
    """One memory per key, as a user would state them; message id by key."""
    return {
        "pm": say(store, tenant, "I use yarn for every project."),
        "tz": say(store, tenant, "My timezone is Europe/Berlin."),
        "theme": say(store, tenant, "I prefer dark mode."),
        "editor": say(store, tenant, "I use vim as my editor."),
    }


def test_recall__the_issue_queries_rank_the_meant_key_first(store: Engine, tenant: str) -> None:
    _say_profile(store, tenant)
    keys = {r.normalized_key for r in recall(tenant, "u1", engine=store)}
    assert {"preference.package_manager", "profile.timezone"} <= keys
    assert recall(tenant, "u1", "时区", engine=store)[0].normalized_key == "profile.timezone"
    first = recall(tenant, "u1", "JS tooling", engine=store)[0]
    assert first.normalized_key == "preference.package_manager"


def test_recall__ranking_is_deterministic(store: Engine, tenant: str) -> None:
    _say_profile(store, tenant)
    runs = [
        [(r.memory_id, r.score) for r in recall(tenant, "u1", "界面和编辑器", engine=store)]
        for _ in range(3)
    ]
    assert runs[0] == runs[1] == runs[2]


def test_recall__key_match_never_brings_back_a_revoked_or_forgotten_memory(
    store: Engine, tenant: str
) -> None:
    said = _say_profile(store, tenant)
    revoke_message(tenant, said["tz"], engine=store)
    forget_message(tenant, said["pm"], engine=store)
    for query in ("时区", "time zone", "JS tooling", "包管理器"):
        keys = {r.normalized_key for r in recall(tenant, "u1", query, engine=store)}
        assert not keys & {"profile.timezone", "preference.package_manager"}, query
