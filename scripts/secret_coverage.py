"""Which identity, tax, bank and crypto numbers ingest masks, by country (issue 21).

    .venv/bin/python scripts/secret_coverage.py [--markdown] [--left-out]

For every stdnum module the catalogue chose (memwarden_shared.detect.secret_ids), each
valid number of the module's own doctests is masked twice, after a cue (``my id: …``) and
in a sentence with no cue (``it is … for later``); a type counts as detected when every
example is masked. Formats stdnum has no module for (UK NINO, HKID, Taiwan, mainland
travel permits, Aadhaar with spaces, bank numbers without a checksum) are tried from their
published layout with random digits. Prints the table; checks nothing.
"""

from __future__ import annotations

import argparse
import doctest
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import langcodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memwarden_shared.detect.secret_ids import chosen_modules, left_out_modules
from memwarden_shared.detect.secret_mask import MASK, mask_secrets

# Layouts with no stdnum module: (country, id type, layout). In a layout "9" is a random
# digit, "A" a random capital letter; everything else is written as is.
LAYOUTS = [
    ("GB", "NINO (National Insurance number)", "AB 99 99 99 C"),
    ("HK", "HKID (Hong Kong identity card)", "A999999(9)"),
    ("TW", "National ID (Taiwan)", "A999999999"),
    ("CN", "Mainland travel permit (港澳通行证)", "C99999999"),
    ("CN", "Mainland travel permit for HK/Macau residents (回乡证)", "H9999999999"),
    ("CN", "Taiwan compatriot permit (台胞证)", "99999999"),
    ("US", "Bank account number (no checksum)", "999999999999"),
    ("US", "Passport number", "999999999"),
    ("IN", "Aadhaar, grouped", "9999 9999 9999"),
    ("JP", "Passport number", "AA9999999"),
]


def _examples(module: ModuleType) -> list[str]:
    found = []
    for example in doctest.DocTestParser().get_examples(module.__doc__ or ""):
        m = re.fullmatch(r"(?:validate|is_valid)\('([^']+)'\)\n", example.source)
        if m and not example.want.startswith(("Traceback", "False")):
            try:
                if module.is_valid(m.group(1)):
                    found.append(m.group(1))
            except Exception:
                continue
    return found


def _masked(number: str, cued: bool) -> bool:
    text = f"my id: {number} thanks" if cued else f"it is {number} for later"
    start = text.index(number)
    masked = mask_secrets(text).text[start : start + len(number)]
    return all(c == MASK or not c.isalnum() for c in masked)


def _from_layout(layout: str, rng: random.Random) -> str:
    return "".join(
        str(rng.randint(0, 9))
        if c == "9"
        else rng.choice("ABCDEFGHJKLMNPRSTWXYZ")
        if c == "A"
        else c
        for c in layout
    )


def _country(module: ModuleType) -> str:
    parts = module.__name__.split(".")
    return parts[1].rstrip("_").upper() if len(parts) == 3 else "INTL"


def _name(code: str) -> str:
    if code == "INTL":
        return "International"
    return str(langcodes.Language.get(f"und-{code}").territory_name())


def coverage() -> dict[str, list[tuple[str, str, str]]]:
    """country -> [(id type, masked with a cue, masked without one)]."""
    table: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for module in chosen_modules():
        examples = _examples(module)
        title = (module.__doc__ or "").strip().splitlines()[0].rstrip(".")
        if not examples:
            table[_country(module)].append((title, "no example", "no example"))
            continue
        cued = all(_masked(e, True) for e in examples)
        bare = all(_masked(e, False) for e in examples)
        table[_country(module)].append((title, "yes" if cued else "NO", "yes" if bare else "NO"))
    rng = random.Random(21)
    for code, title, layout in LAYOUTS:
        samples = [_from_layout(layout, rng) for _ in range(20)]
        cued = all(_masked(s, True) for s in samples)
        bare = all(_masked(s, False) for s in samples)
        table[code].append((f"{title} [layout]", "yes" if cued else "NO", "yes" if bare else "NO"))
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--left-out", action="store_true", help="also list modules left out")
    args = parser.parse_args()
    table = coverage()
    rows = sorted(table.items(), key=lambda kv: _name(kv[0]))
    if args.markdown:
        print("| country | id types detected (with a cue / with none) |")
        print("|---|---|")
    for code, types in rows:
        listed = "; ".join(f"{t} ({c}/{b})" for t, c, b in types)
        if args.markdown:
            print(f"| {_name(code)} | {listed} |")
        else:
            print(f"{_name(code)}: {listed}")
    total = sum(len(t) for t in table.values())
    missed = sum(1 for t in table.values() for _, c, b in t if "NO" in (c, b))
    print(f"\n{len(table)} countries, {total} id types, {missed} not masked in every example")
    if args.left_out:
        print("\nleft out:", ", ".join(m.__name__[7:] for m in left_out_modules()))


if __name__ == "__main__":
    main()
