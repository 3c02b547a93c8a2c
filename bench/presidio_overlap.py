"""Does Presidio's pattern catalogue add coverage beyond ours? (issue 21, docs/decisions.md)

Presidio is not a dependency (it pulls spaCy), so it runs in a venv of its own:

    python3 -m venv /tmp/presidio && /tmp/presidio/bin/pip install presidio-analyzer
    /tmp/presidio/bin/python bench/presidio_overlap.py patterns   # its recognizers, no NLP model
    .venv/bin/python bench/presidio_overlap.py generate            # samples of each pattern
    /tmp/presidio/bin/python bench/presidio_overlap.py detect     # what Presidio accepts
    .venv/bin/python bench/presidio_overlap.py compare            # what ingest masks of it

Each sample is drawn at random from a Presidio pattern (hypothesis ``from_regex``), written in
a sentence with none of the recognizer's context words, and kept only when Presidio's own
recognizer (pattern, validation, no NLP model) reports it. ``compare`` prints, per entity,
how many of those ingest masks (every character of the sample that is a letter or digit).
Entities that are not secrets (URLs, e-mail, dates, postcodes, plates, IP/MAC) are listed
apart. Files go to /tmp; nothing is checked.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

WORK = Path("/tmp/presidio_overlap")
NOT_SECRET = {
    "URL", "EMAIL_ADDRESS", "DATE_TIME", "IP_ADDRESS", "MAC_ADDRESS", "UUID", "CA_POSTAL_CODE",
    "UK_POSTCODE", "DE_PLZ", "DE_KFZ", "UK_VEHICLE_REGISTRATION", "IN_VEHICLE_REGISTRATION",
    "NG_VEHICLE_REGISTRATION", "TR_LICENSE_PLATE", "ZA_LICENSE_PLATE", "CRYPTO",
}  # fmt: skip
SENTENCE = "it is {} for later"


def patterns() -> None:
    import inspect

    import presidio_analyzer.predefined_recognizers as predefined
    from presidio_analyzer import PatternRecognizer

    out = []
    for name in dir(predefined):
        cls = getattr(predefined, name)
        if (
            inspect.isclass(cls)
            and issubclass(cls, PatternRecognizer)
            and cls is not PatternRecognizer
        ):
            try:
                rec: Any = cls()
            except Exception:
                continue
            out.append({"name": name, "entity": rec.supported_entities[0],
                        "patterns": [p.regex for p in rec.patterns]})  # fmt: skip
    WORK.mkdir(exist_ok=True)
    (WORK / "patterns.json").write_text(json.dumps(out), "utf-8")
    print(len(out), "pattern recognizers")


def _draw(regex: str, n: int, given: Any, settings: Any, st: Any, health: Any) -> list[str]:
    """Up to ``n`` strings matching ``regex`` whole, drawn by hypothesis."""
    found: list[str] = []

    @settings(max_examples=n * 4, database=None, deadline=None, suppress_health_check=list(health))  # type: ignore[untyped-decorator]
    @given(  # type: ignore[untyped-decorator]
        st.from_regex(regex, fullmatch=True, alphabet=st.characters(codec="ascii"))
    )
    def draw(s: str) -> None:
        if s.strip() and "\n" not in s and len(found) < n:
            found.append(s.strip())

    try:
        draw()
    except Exception:
        return []
    return found


def generate(per_pattern: int = 25) -> None:
    import random
    import re

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    samples: list[dict[str, str]] = []
    for rec in json.loads((WORK / "patterns.json").read_text("utf-8")):
        for regex in rec["patterns"]:
            try:
                re.compile(regex)
            except re.error:
                continue
            found = _draw(regex, per_pattern, given, settings, st, HealthCheck)
            for s in random.Random(21).sample(found, min(per_pattern, len(found))):
                samples.append({"name": rec["name"], "entity": rec["entity"], "sample": s})
    (WORK / "samples.json").write_text(json.dumps(samples), "utf-8")
    print(len(samples), "samples")


def detect() -> None:
    import presidio_analyzer.predefined_recognizers as predefined
    from presidio_analyzer.nlp_engine import NlpArtifacts

    kept = []
    recognizers: dict[str, object] = {}
    for s in json.loads((WORK / "samples.json").read_text("utf-8")):
        rec = recognizers.setdefault(s["name"], getattr(predefined, s["name"])())
        text = SENTENCE.format(s["sample"])
        empty = NlpArtifacts([], [], [], [], None, "en")
        results = rec.analyze(text, [s["entity"]], empty)  # type: ignore[attr-defined]
        at = text.index(s["sample"])
        if any(r.start <= at and at + len(s["sample"]) <= r.end and r.score > 0 for r in results):
            kept.append(s)
    (WORK / "detected.json").write_text(json.dumps(kept), "utf-8")
    print(len(kept), "samples Presidio reports")


def compare() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from memwarden_shared.detect.secret_mask import MASK, mask_secrets

    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for s in json.loads((WORK / "detected.json").read_text("utf-8")):
        text = SENTENCE.format(s["sample"])
        at = text.index(s["sample"])
        masked = mask_secrets(text).text[at : at + len(s["sample"])]
        ok = int(all(c == MASK or not c.isalnum() for c in masked))
        tally[s["entity"]][0] += ok
        tally[s["entity"]][1] += 1
    for group, keep in (("secrets", False), ("not secrets", True)):
        print(f"-- {group}")
        for entity, (ok, n) in sorted(tally.items()):
            if (entity in NOT_SECRET) == keep:
                print(f"{entity:34s} {ok:4d}/{n:<4d} masked")


if __name__ == "__main__":
    {"patterns": patterns, "generate": generate, "detect": detect, "compare": compare}[
        sys.argv[1]
    ]()
