"""Peak RSS of `memwarden ingest` on a large file (issue 13: streaming, bounded memory).

    .venv/bin/python bench/ingest_memory.py [MiB]    (default 30)

Prints the file size, the turns stored and the ingest process's own peak RSS (VmHWM). It
lives here rather than in tests/ because masking 30 MiB of text takes minutes on a 2-core
machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = """
import sys
from memwarden.cli import main
code = main(sys.argv[1:])
# VmHWM: the peak RSS of this process's own memory since exec. getrusage's ru_maxrss would
# not do: Linux carries the parent's high-water mark across a vfork+exec.
status = open("/proc/self/status", encoding="ascii").read()
peak_kib = int(status.split("VmHWM:")[1].split()[0])
print(f"PEAK_KIB={peak_kib}", file=sys.stderr)
raise SystemExit(code)
"""


def turn_line(i: int, text: str) -> str:
    return json.dumps(
        {
            "tenant_id": "acme",
            "subject_id": f"u{i % 50}",
            "session_id": f"s{i % 50}",
            "message_id": f"m{i}",
            "role": "user",
            "source": "user_message",
            "text": text,
            "created_at": "2026-05-01T09:00:00Z",
        }
    )


def main(mib: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        text = "I prefer pnpm for all my JavaScript projects, and dark mode everywhere. " * 110
        with path.open("w", encoding="utf-8") as out:
            i = 0
            while out.tell() < mib * 1024 * 1024:
                out.write(turn_line(i, text) + "\n")
                i += 1
        env = {**os.environ, "MEMWARDEN_DATA_DIR": str(Path(tmp) / "data")}
        env.pop("MEMWARDEN_DATABASE_URL", None)
        env.pop("MEMWARDEN_BROKER_URL", None)
        done = subprocess.run(
            [sys.executable, "-c", MEASURE, "ingest", str(path), "--tenant", "acme",
             "--no-extract", "--no-drain"],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        peak_mib = int(done.stderr.split("PEAK_KIB=")[1].split()[0]) / 1024
        stored = json.loads(done.stdout)["stored"]
        size = path.stat().st_size >> 20
        print(f"ingest of {size} MiB, {stored} turns: peak RSS {peak_mib:.0f} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
