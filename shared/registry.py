"""The key registry (SPEC §6): which kind + normalized_key may be remembered, and how.

Loaded from ``registry.json`` beside this file. Pure apart from reading that file once.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

REGISTRY_PATH = Path(__file__).with_name("registry.json")

_TIMEZONE = re.compile(
    r"^(?:[A-Za-z]+(?:/[A-Za-z0-9_+\-]+)+|UTC|GMT|(?:UTC|GMT)?[+\-−]\d{1,2}(?::?\d{2})?)$"
)


class Sensitivity(StrEnum):
    NORMAL = "normal"
    SENSITIVE = "sensitive"
    FORBIDDEN = "forbidden"


def fold(text: str) -> str:
    """Case- and width-insensitive form used for alias lookups and grounding."""
    return unicodedata.normalize("NFKC", text).casefold().strip()


@dataclass(frozen=True)
class KeySpec:
    kind: str
    normalized_key: str
    value: dict[str, Any]
    aliases: dict[str, list[str]]
    sensitivity: Sensitivity
    default_expiry_days: int | None
    scopes: tuple[str, ...]
    retrieval_purposes: tuple[str, ...]
    prohibited_actions: tuple[str, ...]
    explicit_only: bool = False
    multi_valued: bool = False  # each distinct claim is its own fact (free-text notes)
    # What the key holds and the words people use for the key itself, per language ("en",
    # "zh"): recall matches a query against them (recall by meaning).
    description: dict[str, str] = field(default_factory=dict)
    key_aliases: dict[str, list[str]] = field(default_factory=dict)
    _alias_index: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def canonical(self, raw: str) -> str | None:
        """The canonical value for ``raw`` via the normalisation table, or None."""
        return self._alias_index.get(fold(raw))

    def surface_forms(self, canonical_value: str) -> list[str]:
        """Every way ``canonical_value`` may appear in a sentence (itself included)."""
        forms = {fold(canonical_value)}
        forms.update(fold(a) for a in self.aliases.get(canonical_value, []))
        return sorted(forms, key=len, reverse=True)

    def validate(self, value: Any) -> str | None:
        """Why ``value`` is invalid for this key, or None when it is valid."""
        if not isinstance(value, str):
            return "value_not_string"
        if not value.strip():
            return "value_empty"
        kind = self.value["type"]
        if kind == "enum" and value not in self.value["values"]:
            return "value_not_in_enum"
        if kind == "text" and len(value) > int(self.value.get("max_length", 500)):
            return "value_too_long"
        if kind == "timezone" and not _TIMEZONE.match(value.strip()):
            return "value_not_timezone"
        return None


@dataclass(frozen=True)
class Registry:
    version: str
    keys: dict[tuple[str, str], KeySpec]

    def get(self, kind: str, normalized_key: str) -> KeySpec | None:
        return self.keys.get((kind, normalized_key))


def _spec(raw: dict[str, Any]) -> KeySpec:
    aliases = {k: list(v) for k, v in raw.get("aliases", {}).items()}
    index: dict[str, str] = {}
    for canonical, forms in aliases.items():
        index[fold(canonical)] = canonical
        for form in forms:
            index[fold(form)] = canonical
    for canonical in raw["value"].get("values", []):
        index.setdefault(fold(canonical), canonical)
    return KeySpec(
        kind=raw["kind"],
        normalized_key=raw["normalized_key"],
        value=raw["value"],
        aliases=aliases,
        sensitivity=Sensitivity(raw["sensitivity"]),
        default_expiry_days=raw.get("default_expiry_days"),
        scopes=tuple(raw["scopes"]),
        retrieval_purposes=tuple(raw["retrieval_purposes"]),
        prohibited_actions=tuple(raw["prohibited_actions"]),
        explicit_only=bool(raw.get("explicit_only", False)),
        multi_valued=bool(raw.get("multi_valued", False)),
        description={lang: str(text) for lang, text in raw.get("description", {}).items()},
        key_aliases={
            lang: [str(a) for a in words] for lang, words in raw.get("key_aliases", {}).items()
        },
        _alias_index=index,
    )


def load_registry(path: Path = REGISTRY_PATH) -> Registry:
    data = json.loads(path.read_text(encoding="utf-8"))
    keys = {}
    for raw in data["keys"]:
        spec = _spec(raw)
        if not spec.normalized_key.startswith(spec.kind + "."):
            raise ValueError(f"registry key {spec.normalized_key} does not belong to {spec.kind}")
        keys[(spec.kind, spec.normalized_key)] = spec
    return Registry(version=data["registry_version"], keys=keys)


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    return load_registry()
