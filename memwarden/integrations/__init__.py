"""Adapters that put memwarden's gate behind other frameworks' memory doors: a LangGraph
``BaseStore`` (``memwarden.integrations.langgraph``, extra ``[langgraph]``) and an MCP
server (``memwarden.integrations.mcp_server``, extra ``[mcp]``, ``memwarden mcp``)."""
