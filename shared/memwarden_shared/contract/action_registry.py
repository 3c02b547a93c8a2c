"""The action registry (SPEC §14): which intents an agent may ask the action gate about, and
which of them are high-consequence (they always need another principal's approval).

Loaded from ``actions.json`` beside this file, in the style of the key registry. A tenant
may extend it with a file of the same shape (``MEMWARDEN_ACTION_REGISTRY_EXTRA``): it may add
intents and raise an intent to high-consequence, never lower one (an extension can only make
acting harder). A malformed file is refused at load, so a bad extension fails closed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from memwarden_shared.config import get_settings

ACTIONS_PATH = Path(__file__).with_name("actions.json")
INTENT_PATTERN = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$")


class ActionRegistryError(ValueError):
    """An action registry file that cannot be used as written."""


@dataclass(frozen=True)
class IntentSpec:
    intent: str
    high_consequence: bool
    description: str = ""


@dataclass(frozen=True)
class ActionRegistry:
    version: str
    intents: dict[str, IntentSpec]

    def get(self, intent: str) -> IntentSpec | None:
        return self.intents.get(intent)

    def extended(self, data: dict[str, Any], label: str) -> ActionRegistry:
        """This registry plus ``data``'s intents; an existing intent may only become stricter."""
        merged = dict(self.intents)
        for spec in _parse(data, label):
            old = merged.get(spec.intent)
            if old is not None and old.high_consequence and not spec.high_consequence:
                raise ActionRegistryError(
                    f"{label}: {spec.intent} is high-consequence and cannot be lowered"
                )
            merged[spec.intent] = spec
        return ActionRegistry(f"{self.version}+{data['registry_version']}", merged)


def _parse(data: Any, label: str) -> list[IntentSpec]:
    if not isinstance(data, dict) or not isinstance(data.get("registry_version"), str):
        raise ActionRegistryError(f"{label}: needs a string registry_version")
    raw_intents = data.get("intents")
    if not isinstance(raw_intents, list):
        raise ActionRegistryError(f"{label}: needs a list of intents")
    specs = []
    for raw in raw_intents:
        if not isinstance(raw, dict) or set(raw) - {"intent", "high_consequence", "description"}:
            raise ActionRegistryError(f"{label}: intent entries take intent/high_consequence/…")
        intent = raw.get("intent")
        if not isinstance(intent, str) or not INTENT_PATTERN.match(intent):
            raise ActionRegistryError(f"{label}: bad intent name {intent!r}")
        if not isinstance(raw.get("high_consequence"), bool):
            raise ActionRegistryError(f"{label}: {intent} needs a boolean high_consequence")
        specs.append(IntentSpec(intent, raw["high_consequence"], str(raw.get("description", ""))))
    return specs


def load_action_registry(path: Path = ACTIONS_PATH, extra: Path | None = None) -> ActionRegistry:
    data = json.loads(path.read_text(encoding="utf-8"))
    base = ActionRegistry(data["registry_version"], {s.intent: s for s in _parse(data, str(path))})
    if extra is None:
        return base
    try:
        extension = json.loads(extra.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ActionRegistryError(f"{extra}: {exc}") from exc
    return base.extended(extension, str(extra))


@lru_cache(maxsize=1)
def default_action_registry() -> ActionRegistry:
    extra = get_settings().action_registry_extra
    return load_action_registry(extra=extra)
