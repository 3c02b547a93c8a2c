"""mem0's calls on ``memwarden.Memory`` (issue 26 item 3), on every backend of the client
contract: a mem0 user changes only the import, and every call still goes through the gate.

The call shapes are mem0's documented ones (``add(messages, user_id=, metadata=)``,
``search(query, user_id=, limit=)``, ``get_all(user_id=)``, ``get(memory_id)``,
``delete(memory_id)``, ``history(memory_id)``); results read as mem0's dicts."""

from __future__ import annotations

import random
import uuid

import pytest

from memwarden import InvalidInput, Memory, NotFound
from tests import test_client_contract as contract
from tests.test_client_contract import Backend

# the client contract's fixtures: each backend (embedded, distributed, remote over HTTP)
backend, api_server = contract.backend, contract.api_server

TOOLS = ("pnpm", "yarn", "npm", "bun")


def _messages(tool: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": f"I prefer {tool} for all my JavaScript projects."},
        {"role": "assistant", "content": "Noted, I will use it from now on."},
    ]


def test_mem0__add_search_get_history_delete_through_the_gate(backend: Backend) -> None:
    rng = random.Random()
    tool, user = rng.choice(TOOLS), "u-" + uuid.uuid4().hex[:8]
    memory = backend.memory
    added = backend.add(_messages(tool), user_id=user, metadata={"category": "tools"})
    assert len(added["message_ids"]) == 2
    if memory.embedded:  # the pipeline ran before add returned: the decisions are there
        (entry,) = added["results"]
        assert (entry["event"], entry["decision"], entry["memory"]) == ("ADD", "COMMIT", tool)

    found = memory.search("which package manager", user_id=user, limit=5)["results"]
    assert [m["memory"] for m in found] == [tool]
    assert found[0]["user_id"] == user and found[0]["score"] is not None
    memory_id = found[0]["id"]
    assert [m.id for m in memory.get_all(user_id=user).results] == [memory_id]
    got = memory.get(memory_id)
    assert got is not None and got["memory"] == tool

    (written,) = memory.history(memory_id)
    assert written.event == "ADD" and written.receipt is not None
    assert written.receipt.decision == "COMMIT" and written.receipt.memory_id == memory_id

    deleted = memory.delete(memory_id)
    assert deleted["status"] == "revoked" and deleted.receipt == written.receipt
    backend.settle()
    assert memory.get(memory_id) is None
    assert memory.search("which package manager", user_id=user)["results"] == []
    assert [h.event for h in memory.history(memory_id)] == ["ADD", "DELETE"]
    with pytest.raises(NotFound):
        memory.delete(memory_id)  # nothing recallable is left to delete


def test_mem0__a_second_value_waits_for_the_owner_and_says_so(tmp_path: object) -> None:
    first, second = random.sample(TOOLS, 2)
    with Memory(data_dir=str(tmp_path)) as memory:
        memory.add(f"I prefer {first} for all my JavaScript projects.", user_id="u")
        later = memory.add(
            f"Actually, I prefer {second} for all my JavaScript projects.", user_id="u"
        )
        (entry,) = later.results
        # mem0 would overwrite; the gate asks the owner first, and the result shows it
        assert entry.event == "NONE" and entry.decision == "CONFIRM_REPLACE"
        assert entry.id is None and entry.reasons
        assert [m.memory for m in memory.get_all(user_id="u").results] == [first]


def test_mem0__names_and_limits_are_checked_without_echoing(tmp_path: object) -> None:
    secret_text = "my pin is " + uuid.uuid4().hex
    with Memory(data_dir=str(tmp_path)) as memory:
        with pytest.raises(InvalidInput):
            memory.search("anything")  # whose memories?
        with pytest.raises(InvalidInput):
            memory.get_all(user_id="u", limit=0)
        with pytest.raises(InvalidInput):
            memory.add(secret_text, user_id="a", subject="b")
        with pytest.raises(InvalidInput) as caught:
            memory.add({"role": "user", "content": secret_text, "extra": 1}, user_id="u")
        assert secret_text not in str(caught.value) and "turn 0" in str(caught.value)
        with pytest.raises(ValueError):  # InvalidInput is a ValueError for older callers
            memory.add(secret_text)
        assert memory.get("mem_" + "0" * 32) is None
        with pytest.raises(NotFound):
            memory.history("mem_" + "0" * 32)
