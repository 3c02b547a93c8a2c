"""Fault-injection suite (issue 9, SPEC §8.1): real processes, a private Redis, real faults."""
