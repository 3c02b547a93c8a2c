"""Registry v2 (issue 15): BCP 47 languages, the new keys, dated events, the loader's
description / key_aliases fields, and tenant registry files."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from memwarden_shared.contract.registry import Sensitivity, default_registry, load_registry
from memwarden_shared.contract.tenant_registry import TenantRegistryError, extend, registry_for

REGISTRY = default_registry()
LANGUAGE = REGISTRY.keys[("preference", "preference.language")]
EVENT = REGISTRY.keys[("task_fact", "task_fact.event")]
PLUS8 = dt.timezone(dt.timedelta(hours=8))


@pytest.mark.parametrize(
    ("said", "canonical"),
    [
        ("British English", "en-GB British English 英式英语"),
        ("英式英语", "en-GB British English 英式英语"),
        ("English (UK)", "en-GB British English 英式英语"),
        ("en-gb", "en-GB British English 英式英语"),
        ("Brazilian Portuguese", "pt-BR Brazilian Portuguese 巴西葡萄牙语"),
        ("Portuguese (Brazil)", "pt-BR Brazilian Portuguese 巴西葡萄牙语"),
        ("Canadian French", "fr-CA Canadian French 加拿大法语"),
        ("Mexican Spanish", "es-MX Mexican Spanish 墨西哥西班牙语"),
        ("Traditional Chinese", "zh-Hant Traditional Chinese 繁体中文"),
        ("繁體中文", "zh-Hant Traditional Chinese 繁体中文"),
        ("粤语", "yue Cantonese 粤语"),
        ("Portuguese", "pt Portuguese 葡萄牙语"),
        ("Vietnamese", "vi Vietnamese 越南语"),
        ("Dutch", "nl Dutch 荷兰语"),
        ("德语", "de German 德语"),
        ("English", "en English 英语"),
        ("英文", "en English 英语"),
        ("中文", "zh Chinese 中文"),
        ("汉语", "zh Chinese 中文"),
        ("日本語", "ja Japanese 日语"),
        ("Esperanto", "eo Esperanto 世界语"),  # not in the table: langcodes still knows it
    ],
)
def test_language__every_surface_form_has_one_canonical_value(said: str, canonical: str) -> None:
    assert LANGUAGE.canonical(said) == canonical
    assert LANGUAGE.validate(said) is None
    assert LANGUAGE.validate(canonical) is None
    assert LANGUAGE.canonical(canonical) == canonical


def test_language__a_variant_is_never_dropped() -> None:
    assert LANGUAGE.canonical("British English") != LANGUAGE.canonical("English")
    assert LANGUAGE.canonical("Traditional Chinese") != LANGUAGE.canonical("Chinese")


@pytest.mark.parametrize("said", ["blorptongue", "xx-QQ", "", "   ", "dark mode"])
def test_language__a_name_of_no_language_is_invalid(said: str) -> None:
    assert LANGUAGE.validate(said) in ("value_not_language", "value_empty")


def test_language__the_extractor_sees_each_form_under_one_value() -> None:
    owners: dict[str, str] = {}
    for canonical in LANGUAGE.aliases:
        for form in LANGUAGE.surface_forms(canonical):
            assert owners.setdefault(form, canonical) == canonical, form


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("2026-03-06 design review", None),
        ("2026-03-06 10:00 design review", None),
        ("2026-03-06T10:00 design review", None),
        ("2026-02-30 design review", "value_not_dated"),
        ("2026-03-06 25:00 design review", "value_not_dated"),
        ("2026-03-06", "value_not_dated"),
        ("next Friday design review", "value_not_dated"),
        ("2026-03-06 " + "x" * 400, "value_too_long"),
    ],
)
def test_dated_text__opens_with_a_real_date(value: str, reason: str | None) -> None:
    assert EVENT.validate(value) == reason


def test_dated_text__expires_after_the_event_day_in_the_writers_offset() -> None:
    written = dt.datetime(2026, 3, 4, 23, 30, tzinfo=PLUS8)
    expiry = EVENT.expires_at("2026-03-06 10:00 design review", None, written)
    assert expiry == dt.datetime(2026, 3, 8, 0, 0, tzinfo=PLUS8)  # day end + 24 h grace
    claimed = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    assert EVENT.expires_at("2026-03-06 design review", claimed, written) == expiry


def test_expiry__other_keys_keep_the_proposals_expiry() -> None:
    note = REGISTRY.keys[("task_fact", "task_fact.note")]
    claimed = dt.datetime(2026, 5, 1, 18, tzinfo=dt.UTC)
    assert note.expires_at("x", claimed, claimed) == claimed
    assert note.expires_at("x", None, claimed) is None


@pytest.mark.parametrize(
    ("key", "sensitivity", "multi", "kind"),
    [
        ("preference.database", Sensitivity.NORMAL, False, "text"),
        ("preference.framework", Sensitivity.NORMAL, False, "text"),
        ("preference.os", Sensitivity.NORMAL, False, "text"),
        ("preference.shell", Sensitivity.NORMAL, False, "text"),
        ("preference.cloud", Sensitivity.NORMAL, False, "text"),
        ("profile.diet", Sensitivity.SENSITIVE, False, "text"),
        ("profile.allergy", Sensitivity.SENSITIVE, True, "text"),
        ("profile.note", Sensitivity.NORMAL, True, "text"),
        ("task_fact.event", Sensitivity.NORMAL, True, "dated_text"),
    ],
)
def test_new_keys__as_the_lead_fixed_them(
    key: str, sensitivity: Sensitivity, multi: bool, kind: str
) -> None:
    spec = REGISTRY.get(key.split(".")[0], key)
    assert spec is not None
    assert (spec.sensitivity, spec.multi_valued, spec.value["type"]) == (sensitivity, multi, kind)
    assert set(spec.description) == {"en", "zh"} and all(spec.description.values())
    assert spec.key_aliases["en"] and spec.key_aliases["zh"]


def test_loader__description_and_key_aliases_default_empty(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps({"registry_version": "v", "keys": [_entry("preference.editor")]}))
    spec = load_registry(path).get("preference", "preference.editor")
    assert spec is not None and spec.description == {} and spec.key_aliases == {}


def test_loader__an_unknown_field_refuses_the_file(tmp_path: Path) -> None:
    path = tmp_path / "registry.json"
    entry = {**_entry("preference.editor"), "colour": "blue"}
    path.write_text(json.dumps({"registry_version": "v", "keys": [entry]}))
    with pytest.raises(ValueError, match="colour"):
        load_registry(path)


# ------------------------------------------------------------------ tenant registry files


def _entry(key: str, **overrides: Any) -> dict[str, Any]:
    return {
        "kind": key.split(".")[0],
        "normalized_key": key,
        "value": {"type": "text", "max_length": 80},
        "sensitivity": "normal",
        "scopes": ["user"],
        "retrieval_purposes": ["general"],
        "prohibited_actions": [],
        **overrides,
    }


def tenant_file(tenant: str, *keys: dict[str, Any], **top: Any) -> bytes:
    body = {"tenant_id": tenant, "registry_version": "t-1", "keys": list(keys), **top}
    return json.dumps(body).encode()


def test_tenant__its_keys_are_added_and_the_version_names_the_file() -> None:
    raw = tenant_file("acme", _entry("preference.x_ticket_system"))
    registry = extend(REGISTRY, raw, "acme.json", "acme")
    assert registry.get("preference", "preference.x_ticket_system") is not None
    assert registry.version.startswith(REGISTRY.version + "+t-1#")
    other = extend(REGISTRY, tenant_file("acme", _entry("preference.x_tracker")), "a", "acme")
    assert other.version != registry.version  # another file, another hash


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (tenant_file("acme", _entry("preference.editor")), "x_"),  # built-in name
        (tenant_file("acme", _entry("preference.ticket_system")), "x_"),  # not namespaced
        (tenant_file("acme", _entry("profile.x_pet", kind="preference")), "does not belong"),
        (tenant_file("acme", {**_entry("preference.x_a"), "colour": "blue"}), "colour"),
        (tenant_file("acme", _entry("preference.x_a"), colour="blue"), "colour"),
        (tenant_file("acme", _entry("preference.x_a", sensitivity="secret")), "sensitivity"),
        (tenant_file("acme", _entry("preference.x_a", value={"type": "blob"})), "value"),
        (tenant_file("acme"), "keys"),
        (tenant_file("acme", _entry("preference.x_a"), _entry("preference.x_a")), "twice"),
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (tenant_file("other", _entry("preference.x_a")), "tenant_id"),
    ],
)
def test_tenant__an_invalid_file_is_refused_with_one_line(raw: bytes, says: str) -> None:
    with pytest.raises(TenantRegistryError) as caught:
        extend(REGISTRY, raw, "acme.json", "acme")
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_tenant__each_tenant_gets_only_its_own_file(tmp_path: Path) -> None:
    (tmp_path / "acme.json").write_bytes(tenant_file("acme", _entry("preference.x_tracker")))
    acme = registry_for(REGISTRY, "acme", tmp_path)
    assert acme.get("preference", "preference.x_tracker") is not None
    assert registry_for(REGISTRY, "globex", tmp_path) is REGISTRY
    assert registry_for(REGISTRY, "acme", None) is REGISTRY


def test_tenant__an_invalid_file_fails_closed(tmp_path: Path) -> None:
    (tmp_path / "acme.json").write_bytes(b"{broken")
    registry = registry_for(REGISTRY, "acme", tmp_path)
    assert registry.version.endswith("+invalid")
    assert registry.get("preference", "preference.x_tracker") is None
    assert registry.get("preference", "preference.editor") is not None  # built-ins still work


def test_tenant__a_single_file_applies_to_its_declared_tenant(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_bytes(tenant_file("acme", _entry("preference.x_tracker")))
    assert registry_for(REGISTRY, "acme", path).get("preference", "preference.x_tracker")
    assert registry_for(REGISTRY, "globex", path) is REGISTRY
