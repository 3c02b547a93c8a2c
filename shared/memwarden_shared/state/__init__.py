"""Memory state and its neighbours: the one owner of a memory's versions (``memory_state``),
candidates, holds, erasure, principals.

The actions domain reacts to retractions through a hook (``retraction``), not a call from
the state owner; importing it here subscribes it in every process that can retract a
version (see ``retraction``).
"""

from memwarden_shared.state import action_repair

__all__ = ["action_repair"]
