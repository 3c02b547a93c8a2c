"""The key registry (SPEC §6): which kind + normalized_key may be remembered, and how.

Loaded from ``registry.json`` beside this file, validated by :mod:`shared.registry_file`
(unknown fields refused). Pure apart from reading that file once. A tenant's own keys are
added by :mod:`shared.tenant_registry`.

Value types: ``enum``, ``text``, ``timezone``, ``language`` (a BCP 47 tag, stored as
``"<tag> <English name> <Chinese name>"``, see :mod:`shared.languages`) and ``dated_text``
(``"YYYY-MM-DD[ HH:MM] <what>"``, see :mod:`shared.event_dates`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from memwarden_shared.contract.action_registry import ActionRegistry, default_action_registry
from memwarden_shared.contract.registry_file import KeyEntry, RegistryFile
from memwarden_shared.text.event_dates import event_expiry, parse_dated
from memwarden_shared.text.fold import Level, fold_text
from memwarden_shared.text.languages import LanguageTable, Variant, build_table

REGISTRY_PATH = Path(__file__).with_name("registry.json")

_TIMEZONE = re.compile(
    r"^(?:[A-Za-z]+(?:/[A-Za-z0-9_+\-]+)+|UTC|GMT|(?:UTC|GMT)?[+\-−]\d{1,2}(?::?\d{2})?)$"
)


class Sensitivity(StrEnum):
    NORMAL = "normal"
    SENSITIVE = "sensitive"
    FORBIDDEN = "forbidden"


FORMS_MEMO_SIZE = 4096


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
    # what the key holds, one line per language ("en", "zh"); read by recall by meaning
    description: dict[str, str] = field(default_factory=dict)
    # words people use for the key itself ("time zone", "时区"), per language
    key_aliases: dict[str, list[str]] = field(default_factory=dict)
    languages: LanguageTable | None = field(default=None, repr=False, compare=False)
    _alias_index: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    # canonical value -> its surface forms: asked for every sentence, the same each time
    _forms: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def canonical(self, raw: str) -> str | None:
        """The canonical value for ``raw`` via the normalisation table, or None.

        A language key knows every language, not only its table: "Vietnamese", "粤语" and
        "pt-BR" all have a canonical value."""
        if self.languages is not None:
            return self.languages.canonical(raw) if isinstance(raw, str) else None
        return self._alias_index.get(fold_text(raw, Level.SPACE))

    def surface_forms(self, canonical_value: str) -> list[str]:
        """Every way ``canonical_value`` may appear in a sentence (itself included)."""
        known = self._forms.get(canonical_value)
        if known is None:
            known = self._surface_forms(canonical_value)
            if len(self._forms) < FORMS_MEMO_SIZE:  # values may be anything a proposal says
                self._forms[canonical_value] = known
        return list(known)

    def _surface_forms(self, canonical_value: str) -> list[str]:
        forms = {fold_text(canonical_value, Level.SPACE)}
        if self.languages is not None:
            tag = self.languages.resolve(canonical_value)
            forms.update(self.languages.forms_of(tag) if tag else ())
        forms.update(fold_text(a, Level.SPACE) for a in self.aliases.get(canonical_value, []))
        return sorted(forms, key=len, reverse=True)

    @property
    def dated(self) -> bool:
        """The value opens with the date it is about (``dated_text``)."""
        return bool(self.value["type"] == "dated_text")

    def expires_at(
        self, value: Any, proposed: dt.datetime | None, written_at: dt.datetime
    ) -> dt.datetime | None:
        """When a committed ``value`` stops holding. A dated value's expiry is recomputed
        from its date (the end of the event's day in the writer's offset, plus the key's
        grace), whatever the proposal claimed; any other key keeps the proposal's expiry
        (the extractor applies ``default_expiry_days``)."""
        if self.dated and isinstance(value, str):
            grace = dt.timedelta(hours=int(self.value.get("grace_hours", 24)))
            computed = event_expiry(value, written_at, grace)
            if computed is not None:
                return computed
        return proposed

    def validate(self, value: Any) -> str | None:
        """Why ``value`` is invalid for this key, or None when it is valid."""
        if not isinstance(value, str):
            return "value_not_string"
        if not value.strip():
            return "value_empty"
        kind = self.value["type"]
        if kind == "enum":
            return None if value in self.value["values"] else "value_not_in_enum"
        if kind == "text":
            too_long = len(value) > int(self.value.get("max_length", 500))
            return "value_too_long" if too_long else None
        if kind == "timezone":
            return None if _TIMEZONE.match(value.strip()) else "value_not_timezone"
        if kind == "language":
            known = self.languages is not None and self.languages.resolve(value)
            return None if known else "value_not_language"
        if kind == "dated_text":
            return self._dated_invalid(value)
        return None

    def _dated_invalid(self, value: str) -> str | None:
        if len(value) > int(self.value.get("max_length", 300)):
            return "value_too_long"
        return None if parse_dated(value) is not None else "value_not_dated"


@dataclass(frozen=True)
class Registry:
    """``version`` goes into every receipt; with a tenant's keys it is
    ``<built-in>+<tenant file version>#<sha256 prefix of the tenant file>``."""

    version: str
    keys: dict[tuple[str, str], KeySpec]

    def get(self, kind: str, normalized_key: str) -> KeySpec | None:
        return self.keys.get((kind, normalized_key))

    def with_keys(self, version: str, extra: list[KeySpec]) -> Registry:
        """This registry plus ``extra``; a key already here cannot be redefined."""
        keys = dict(self.keys)
        for spec in extra:
            if (spec.kind, spec.normalized_key) in keys:
                raise ValueError(f"{spec.normalized_key} is a built-in key and cannot be redefined")
            keys[(spec.kind, spec.normalized_key)] = spec
        return Registry(version=version, keys=keys)


def _language_table(value: dict[str, Any]) -> LanguageTable:
    variants = {
        tag: Variant(v["en"], v["zh"], tuple(v.get("aliases", ())))
        for tag, v in value.get("variants", {}).items()
    }
    return build_table(
        value["tags"], variants, value.get("aliases", {}), value.get("not_forms", ())
    )


def spec_of(entry: KeyEntry) -> KeySpec:
    """The runtime KeySpec of one validated registry entry."""
    value = entry.value.model_dump()
    aliases = {k: list(v) for k, v in entry.aliases.items()}
    languages = _language_table(value) if value["type"] == "language" else None
    if languages is not None:  # the extractor looks for the table's languages by these forms
        aliases = {canonical: list(forms) for canonical, forms in languages.forms.items()}
    index: dict[str, str] = {}
    for canonical, forms in aliases.items():
        index[fold_text(canonical, Level.SPACE)] = canonical
        for form in forms:
            index[fold_text(form, Level.SPACE)] = canonical
    for canonical in value.get("values", []):
        index.setdefault(fold_text(canonical, Level.SPACE), canonical)
    return KeySpec(
        kind=entry.kind.value,
        normalized_key=entry.normalized_key,
        value=value,
        aliases=aliases,
        sensitivity=Sensitivity(entry.sensitivity),
        default_expiry_days=entry.default_expiry_days,
        scopes=tuple(s.value for s in entry.scopes),
        retrieval_purposes=tuple(entry.retrieval_purposes),
        prohibited_actions=tuple(entry.prohibited_actions),
        explicit_only=entry.explicit_only,
        multi_valued=entry.multi_valued,
        description={lang: line for lang, line in entry.description.items()},
        key_aliases={lang: list(words) for lang, words in entry.key_aliases.items()},
        languages=languages,
        _alias_index=index,
    )


def file_digest(raw: bytes) -> str:
    """The first 12 hex of a registry file's sha256: which exact file a receipt was made under."""
    return hashlib.sha256(raw).hexdigest()[:12]


ANY_ACTION = "*"


def unknown_prohibited_actions(specs: list[KeySpec], actions: ActionRegistry) -> list[str]:
    """``<key>: <name>`` for each prohibited action that names no registered intent. A name
    the action gate never sees prohibits nothing, so an approved memory would authorise
    the very action its key meant to forbid (SPEC §14 v2)."""
    return [
        f"{spec.normalized_key}: {name}"
        for spec in specs
        for name in spec.prohibited_actions
        if name != ANY_ACTION and actions.get(name) is None
    ]


def check_prohibited_actions(specs: list[KeySpec], actions: ActionRegistry | None) -> None:
    """Raise ValueError naming every prohibited action that is not a registered intent."""
    unknown = unknown_prohibited_actions(specs, actions or default_action_registry())
    if unknown:
        raise ValueError("prohibited_actions name unregistered intents: " + ", ".join(unknown))


def load_registry(path: Path = REGISTRY_PATH, actions: ActionRegistry | None = None) -> Registry:
    """The built-in registry; raises ValueError (pydantic's) on a file that breaks its shape,
    or whose prohibited actions name intents the action registry (``actions``, by default
    the configured one) does not hold."""
    data = RegistryFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    keys = {}
    for entry in data.keys:
        spec = spec_of(entry)
        keys[(spec.kind, spec.normalized_key)] = spec
    check_prohibited_actions(list(keys.values()), actions)
    return Registry(version=data.registry_version, keys=keys)


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    return load_registry()
