"""The key registry's prohibited actions name registered intents (SPEC §14 v2, issue 21
item 7), and an unregistered intent is a DENY, not an exception.

Mechanism: ``check_prohibited_actions`` runs when a registry (built-in or a tenant's) loads
and refuses a name the action registry does not hold; ``decide_action`` denies an unknown
intent first. Generated family: random well-formed intent names outside the registry.
"""

from __future__ import annotations

import json
import string
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_actions.decide import decide_action
from memwarden_shared.contract.action_registry import default_action_registry
from memwarden_shared.contract.registry import (
    REGISTRY_PATH,
    default_registry,
    load_registry,
    unknown_prohibited_actions,
)
from memwarden_shared.contract.tenant_registry import TenantRegistryError, extend

ACTIONS = default_action_registry()
_PART = st.text(string.ascii_lowercase, min_size=2, max_size=10)
UNREGISTERED = st.tuples(_PART, _PART).map(".".join).filter(lambda i: ACTIONS.get(i) is None)
THIRD_PARTY_SENDS = ("message.send", "email.send")


def test_registry__every_prohibited_action_is_a_registered_intent() -> None:
    assert unknown_prohibited_actions(list(default_registry().keys.values()), ACTIONS) == []


@pytest.mark.parametrize("key", ["profile.contact", "profile.location"])
def test_registry__contact_and_location_never_authorise_sending(key: str) -> None:
    spec = default_registry().get("profile", key)
    assert spec is not None
    assert set(THIRD_PARTY_SENDS) <= set(spec.prohibited_actions)


@given(intent=UNREGISTERED)
@settings(max_examples=30, deadline=None)
def test_registry__an_unregistered_prohibited_action_refuses_the_load(
    tmp_path_factory: pytest.TempPathFactory, intent: str
) -> None:
    data = json.loads(REGISTRY_PATH.read_text(encoding="utf-8"))
    data["keys"][0]["prohibited_actions"] = [intent]
    path = tmp_path_factory.mktemp("reg") / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="unregistered intents"):
        load_registry(Path(path))


@given(intent=UNREGISTERED)
@settings(max_examples=30, deadline=None)
def test_registry__a_tenant_key_with_an_unregistered_action_is_refused(intent: str) -> None:
    tenant_file = {
        "registry_version": "t1",
        "tenant_id": "acme",
        "keys": [
            {
                "kind": "preference",
                "normalized_key": "preference.x_board",
                "value": {"type": "text", "max_length": 80},
                "sensitivity": "normal",
                "scopes": ["user"],
                "retrieval_purposes": ["general"],
                "prohibited_actions": [intent],
            }
        ],
    }
    with pytest.raises(TenantRegistryError, match="unregistered intents"):
        extend(default_registry(), json.dumps(tenant_file).encode(), "acme.json", "acme")


@given(intent=UNREGISTERED)
@settings(max_examples=50, deadline=None)
def test_action_decide__an_unknown_intent_is_denied_first(intent: str) -> None:
    verdict = decide_action(
        intent=intent,
        known_intent=ACTIONS.get(intent) is not None,
        high_consequence=False,
        may_request=False,
        purpose=None,
        used=[],
        now=datetime(2026, 5, 1, tzinfo=UTC),
    )
    assert (verdict.decision.value, verdict.reasons) == ("DENY", ("unknown_intent",))
