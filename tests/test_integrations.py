"""The framework adapters against the real framework packages (issue 26 item 4): LangGraph's
``BaseStore`` and an MCP server driven by the ``mcp`` package's own client. Every write
goes through the gate: a declined sentence leaves nothing to read back."""

from __future__ import annotations

import asyncio
import os
import random
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from memwarden import Memory

langgraph_store = pytest.importorskip("langgraph.store.base")
mcp = pytest.importorskip("mcp")

from memwarden.integrations.langgraph import GatedStore  # noqa: E402
from memwarden.integrations.mcp_server import build_server  # noqa: E402

TOOLS = ("pnpm", "yarn", "npm", "bun")
# sentences that must not become memories: a third party's preference, a one-time request
DECLINED = (
    "My neighbour prefers yarn for everything.",
    "My coworker Dana prefers bun for all her JavaScript projects.",
    "Just for today, use npm.",
)


def test_langgraph__put_goes_through_the_gate_and_search_recalls(tmp_path: Path) -> None:
    tool = random.choice(TOOLS)
    namespace = ("u-" + uuid.uuid4().hex[:6], "memories")
    with Memory(data_dir=tmp_path) as memory:
        store = GatedStore(memory)
        assert isinstance(store, langgraph_store.BaseStore)
        store.put(namespace, "pm", {"content": f"I prefer {tool} for all my JavaScript projects."})
        for index, sentence in enumerate(DECLINED):
            store.put(namespace, f"declined-{index}", {"content": sentence})
            assert store.get(namespace, f"declined-{index}") is None  # the gate said no

        (found,) = store.search(namespace, query="which package manager")
        assert found.value["value"] == tool and found.score is not None
        item = store.get(namespace, "pm")
        assert item is not None and item.value["memories"][0]["value"] == tool

        store.put(namespace, "pm", {"content": f"I prefer {tool} for all my JavaScript projects."})
        assert len(store.search(namespace, query="package manager")) == 1  # idempotent

        store.delete(namespace, "pm")  # revokes the key's messages
        assert store.get(namespace, "pm") is None
        assert store.search(namespace, query="package manager") == []
        with pytest.raises(ValueError):
            store.put(namespace, "bad", {"note": "no text field"})


def _call(server: Any, tool: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with mcp.Client(server) as client:
            return await client.call_tool(tool, arguments)

    return asyncio.run(run())


def test_mcp__the_gate_decides_every_remember(tmp_path: Path) -> None:
    tool, user = random.choice(TOOLS), "u-" + uuid.uuid4().hex[:6]
    with Memory(data_dir=tmp_path) as memory:
        server = build_server(memory)

        async def names() -> list[str]:
            async with mcp.Client(server) as client:
                return [t.name for t in (await client.list_tools()).tools]

        assert sorted(asyncio.run(names())) == ["act", "forget", "recall", "remember", "why"]

        said = f"I prefer {tool} for all my JavaScript projects."
        kept = _call(server, "remember", {"text": said, "user_id": user})
        (decision,) = kept.structured_content["decisions"]
        assert decision["decision"] == "COMMIT" and decision["event"] == "ADD"
        declined = _call(server, "remember", {"text": DECLINED[0], "user_id": user})
        assert all(d["decision"] != "COMMIT" for d in declined.structured_content["decisions"])

        recalled = _call(server, "recall", {"query": "package manager", "user_id": user})
        (found,) = recalled.structured_content["memories"]
        assert found["value"] == tool
        why = _call(server, "why", {"memory_id": found["id"]})
        (version,) = why.structured_content["history"]
        assert version["receipt"]["decision"] == "COMMIT"

        forgotten = _call(
            server, "forget", {"message_id": kept.structured_content["message_ids"][0]}
        )
        assert forgotten.structured_content["memory_versions_forgotten"] == 1
        assert _call(
            server, "recall", {"query": "package manager", "user_id": user}
        ).structured_content == {"memories": []}
        refused = _call(server, "why", {"memory_id": "mem_" + "0" * 32})
        assert refused.is_error and "NotFound" in refused.content[0].text


@pytest.mark.slow
def test_mcp__memwarden_mcp_serves_over_stdio(tmp_path: Path) -> None:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memwarden.cli", "mcp", "--tenant", "t-stdio"],
        env={
            **os.environ,
            "MEMWARDEN_DATA_DIR": str(tmp_path),
            "MEMWARDEN_DATABASE_URL": "",
            "MEMWARDEN_BROKER_URL": "",
        },
    )

    async def run() -> Any:
        async with mcp.Client(params) as client:
            await client.call_tool(
                "remember", {"text": "I prefer bun for all my JavaScript projects.", "user_id": "u"}
            )
            return await client.call_tool("recall", {"query": "package manager", "user_id": "u"})

    (found,) = asyncio.run(run()).structured_content["memories"]
    assert found["value"] == "bun"
