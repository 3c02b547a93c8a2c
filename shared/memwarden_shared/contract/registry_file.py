"""The shape of a key registry file, validated with pydantic (unknown fields refused).

The built-in ``registry.json`` and a tenant's file (:class:`TenantRegistryFile`) share the
key entry shape, so a tenant key is described exactly like a built-in one.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memwarden_shared.contract.models import MemoryKind, ScopeKind

KEY_NAME = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")
LANGS = Literal["en", "zh"]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)


class EnumValue(_Closed):
    type: Literal["enum"]
    values: list[Annotated[str, Field(min_length=1, max_length=80)]] = Field(min_length=1)


# Typed harmless forms a free-text value may hold beside words (deny by default, SPEC
# §5.6 v3): the gate sends any other number or code to the owner.
ValueForm = Literal["date", "clock_time", "small_count", "version"]
ALL_FORMS: list[ValueForm] = ["date", "clock_time", "small_count", "version"]
CatalogueEntry = Annotated[str, Field(min_length=1, max_length=80)]


class TextValue(_Closed):
    """Free text. ``catalogue`` names the gate recognises although no word list holds them
    (tool names such as ``kubectl``); ``forms`` the typed forms the key allows."""

    type: Literal["text"]
    max_length: int = Field(default=500, ge=1, le=2000)
    forms: list[ValueForm] = ALL_FORMS
    catalogue: list[CatalogueEntry] = []


class TimezoneValue(_Closed):
    type: Literal["timezone"]


class DatedTextValue(_Closed):
    """``YYYY-MM-DD[ HH:MM] <what>``; expires ``grace_hours`` after the event's day ends."""

    type: Literal["dated_text"]
    max_length: int = Field(default=300, ge=20, le=2000)
    grace_hours: int = Field(default=24, ge=0, le=24 * 366)
    forms: list[ValueForm] = ALL_FORMS
    catalogue: list[CatalogueEntry] = []


class VariantNames(_Closed):
    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)
    aliases: list[str] = []


class LanguageValue(_Closed):
    """A BCP 47 tag; ``tags`` are the ones the extractor looks for (any other is accepted)."""

    type: Literal["language"]
    tags: list[str] = Field(min_length=1)
    variants: dict[str, VariantNames] = {}
    aliases: dict[str, list[str]] = {}
    not_forms: list[str] = []  # names that are ordinary words ("Indonesia" is a country)


ValueSchema = Annotated[
    EnumValue | TextValue | TimezoneValue | DatedTextValue | LanguageValue,
    Field(discriminator="type"),
]


class KeyEntry(_Closed):
    kind: MemoryKind
    normalized_key: str
    value: ValueSchema
    aliases: dict[str, list[str]] = {}
    sensitivity: Literal["normal", "sensitive", "forbidden"]
    default_expiry_days: int | None = Field(default=None, ge=1)
    scopes: list[ScopeKind] = Field(min_length=1)
    retrieval_purposes: list[str]
    prohibited_actions: list[str]
    explicit_only: bool = False
    multi_valued: bool = False
    description: dict[LANGS, Annotated[str, Field(min_length=1, max_length=300)]] = {}
    key_aliases: dict[LANGS, list[Annotated[str, Field(min_length=1, max_length=80)]]] = {}

    @field_validator("normalized_key")
    @classmethod
    def _key_name(cls, key: str) -> str:
        if not KEY_NAME.match(key):
            raise ValueError("normalized_key must be <kind>.<name> in lower case")
        return key

    @model_validator(mode="after")
    def _key_of_kind(self) -> KeyEntry:
        if not self.normalized_key.startswith(self.kind.value + "."):
            raise ValueError(f"{self.normalized_key} does not belong to kind {self.kind.value}")
        return self


class RegistryFile(_Closed):
    registry_version: str = Field(min_length=1, max_length=64)
    keys: list[KeyEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> RegistryFile:
        names = [k.normalized_key for k in self.keys]
        if len(names) != len(set(names)):
            raise ValueError("a key is listed twice")
        return self


# A tenant key is <kind>.x_<name>: the x_ prefix is never used by a built-in key, so a
# built-in key added later can never collide with a tenant's.
TENANT_KEY = re.compile(r"^[a-z_]+\.x_[a-z][a-z0-9_]{0,47}$")


class TenantRegistryFile(RegistryFile):
    """A tenant's own keys, added to the built-in registry for that tenant only."""

    tenant_id: str = Field(min_length=1, max_length=128)

    @model_validator(mode="after")
    def _namespaced(self) -> TenantRegistryFile:
        for key in self.keys:
            if not TENANT_KEY.match(key.normalized_key):
                raise ValueError(f"tenant key {key.normalized_key} must be named <kind>.x_<name>")
            if key.value.type == "language":
                raise ValueError(f"{key.normalized_key}: a tenant key cannot be a language key")
        return self
