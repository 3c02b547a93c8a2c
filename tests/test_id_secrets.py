"""Ids, scope keys and extractor versions hold no secret, even glued to a prefix. Pure."""

from __future__ import annotations

import pytest

from memwarden_shared.contract.models import is_safe_id


@pytest.mark.parametrize(
    "value",
    [
        "ws-38520000023237",  # a Diners test card behind a workspace prefix
        "proj_4111111111111111",
        "scope.5555555555554444",
        "team@378282246310005",
    ],
)
def test_is_safe_id__a_card_glued_to_a_prefix_is_refused(value: str) -> None:
    assert not is_safe_id(value)


@pytest.mark.parametrize(
    "value",
    [
        "adv-hostile_fields-en-005-m1",
        "msg_Zx81kLq0aB93kdLQ",  # a random upstream id: high entropy alone is no secret
        "1700000000000",  # a millisecond timestamp
        "sess-2026-11-30T10:00:00",
        "ws-atlas",
    ],
)
def test_is_safe_id__ordinary_ids_pass(value: str) -> None:
    assert is_safe_id(value)
