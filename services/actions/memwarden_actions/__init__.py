"""The action gate (SPEC §14): remembering is not permission to act."""
