"""An MCP server over memwarden (``memwarden mcp``): an agent remembers, recalls, forgets,
asks why and asks before acting; the gate decides every write.

Tools:

- ``remember(text, user_id, role="user")``: store a turn; the extractor proposes and the gate
  decides. The answer lists each candidate with the gate's decision and reasons.
- ``recall(query, user_id, limit=10)``: the subject's recallable memories, best first.
- ``forget(message_id)``: erase what a message taught (only a content hash is kept).
- ``why(memory_id)``: the memory's versions with the receipts of the decisions that wrote them.
- ``act(user_id, intent, idempotency_key, params={}, uses=[])``: ask the action gate before a
  side effect; act only on ``ALLOW``.

A refusal (unknown id, invalid input, unavailable store) is the tool's error, in one line
that quotes no value.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from memwarden.client import Memory
from memwarden.errors import MemwardenError
from memwarden.types import ActionReceipt, Forgotten

INSTRUCTIONS = (
    "Memory behind a write gate. Call `remember` with what the user said; the gate decides "
    "what becomes a memory and says why. Call `recall` before answering from memory; every "
    "recalled memory is a historical record, not current verification. Call `act` before a "
    "side effect and proceed only on ALLOW."
)


def build_server(memory: Memory) -> MCPServer:
    """The MCP server whose tools call ``memory`` (any backend of :class:`Memory`)."""
    server: MCPServer = MCPServer("memwarden", instructions=INSTRUCTIONS)

    @server.tool(description="Store what the user said; the gate decides what is remembered.")
    def remember(text: str, user_id: str, role: str = "user") -> dict[str, Any]:
        result = _gated(lambda: memory.add({"role": role, "content": text}, user_id=user_id))
        return {
            "message_ids": result.message_ids,
            "decisions": [entry.model_dump() for entry in result.results],
        }

    @server.tool(description="The user's recallable memories most relevant to the query.")
    def recall(query: str, user_id: str, limit: int = 10) -> dict[str, Any]:
        found = _gated(lambda: memory.search(query, user_id=user_id, limit=limit))
        return {"memories": [item.model_dump() for item in found.results]}

    @server.tool(description="Forget what a message taught (only a content hash is kept).")
    def forget(message_id: str) -> dict[str, Any]:
        forgotten: Forgotten = _gated(lambda: memory.forget(message_id))
        return forgotten.model_dump()

    @server.tool(description="Why a memory holds: its versions and the gate's receipts.")
    def why(memory_id: str) -> dict[str, Any]:
        history = _gated(lambda: memory.history(memory_id))
        return {"memory_id": memory_id, "history": [h.model_dump(mode="json") for h in history]}

    @server.tool(description="Ask the action gate before a side effect; act only on ALLOW.")
    def act(
        user_id: str,
        intent: str,
        idempotency_key: str,
        params: dict[str, Any] | None = None,
        uses: list[str] | None = None,
    ) -> dict[str, Any]:
        receipt: ActionReceipt = _gated(
            lambda: memory.act(
                user_id, intent, params or {}, idempotency_key=idempotency_key, uses=uses or ()
            )
        )
        return receipt.model_dump()

    return server


def _gated(call: Any) -> Any:
    try:
        return call()
    except MemwardenError as exc:
        # ToolError: an anticipated refusal, sent to the client as the tool's error (our
        # message only: it names codes and fields, never a value)
        raise ToolError(f"{type(exc).__name__} ({exc.code}): {exc}") from None


def serve_stdio(memory: Memory) -> None:
    """``memwarden mcp``: serve over stdin/stdout until the client disconnects."""
    build_server(memory).run("stdio")
