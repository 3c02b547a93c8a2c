"""Extractor versions the stage can run side by side: the stable one and a canary.

A version string names an extractor: ``rules-*`` is the rules extractor under that label (as
eval and replay run it; the label is part of every proposal id, so a new version proposes
anew), the LLM extractor's own ``llm-*`` version when it is configured, or a version
registered in this process (``register_version``; tests register a deliberately bad one).
"""

from __future__ import annotations

from collections.abc import Callable

from memwarden_extractor.llm import extractor_from_settings
from memwarden_extractor.llm_client import extractor_version_for
from memwarden_extractor.rules import EXTRACTOR_VERSION, extract
from memwarden_shared.config import Settings
from memwarden_shared.contract.models import ProposalBody, Turn
from memwarden_shared.contract.registry import Registry

Extractor = Callable[[Turn, Registry], list[ProposalBody]]

_registered: dict[str, Extractor] = {}


class UnknownVersion(ValueError):
    """A canary names a version this process cannot run."""


def register_version(version: str, extractor: Extractor) -> None:
    """Make ``version`` runnable in this process (a plugin, or a test's bad extractor)."""
    _registered[version] = extractor


def _llm_version(settings: Settings) -> str | None:
    if not (settings.llm_base_url and settings.llm_model):
        return None
    return extractor_version_for(settings.llm_model)


def stable_version(settings: Settings) -> str:
    """The version the stage's own extractor (``MEMWARDEN_EXTRACTOR``) writes."""
    if settings.extractor == "llm":
        version = _llm_version(settings)
        if version is None:
            raise UnknownVersion("MEMWARDEN_EXTRACTOR=llm needs MEMWARDEN_LLM_BASE_URL and _MODEL")
        return version
    return EXTRACTOR_VERSION


def extractor_for_version(version: str, settings: Settings) -> Extractor:
    """The extractor that writes ``version``; UnknownVersion (one line) when none does."""
    if version in _registered:
        return _registered[version]
    if version.startswith("rules-"):
        return lambda turn, registry: extract(turn, registry, extractor_version=version)
    if version == _llm_version(settings):
        return extractor_from_settings(settings)
    raise UnknownVersion(
        "MEMWARDEN_EXTRACTOR_CANARY names an extractor version this process cannot run "
        "(expected rules-<label>, the configured LLM's version, or a registered one)"
    )
