"""Curate (SPEC §15): rewriting a memory base is a release — snapshot, plan, check, review,
attest, publish, rollback."""
