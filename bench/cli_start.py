"""How long the ``memwarden`` command takes to start (issue 26 item 6).

Runs ``memwarden --version``, a usage error (``memwarden recall`` without its flags) and
``--help`` in fresh processes, and prints the wall and CPU time of each (best and median of
``--runs``), the load average, and the ten slowest imports of ``python -X importtime`` for
the version call. The targets are idle-machine figures (``--version`` under 0.3 s, a usage
error under 1 s): on a loaded machine read the CPU time, which the load does not inflate.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "--version": ["--version"],
    "usage error": ["recall"],
    "--help": ["--help"],
}


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(args: list[str]) -> tuple[float, float]:
    cpu_before = _child_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "memwarden.cli", *args], capture_output=True, check=False)
    return time.perf_counter() - start, _child_cpu() - cpu_before


def _slowest_imports(count: int) -> list[tuple[int, str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "memwarden.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per command")
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    for name, args in COMMANDS.items():
        _run(args)  # warm the page cache and the .pyc files
        walls, cpus = zip(*(_run(args) for _ in range(options.runs)), strict=True)
        print(
            f"{name:12} wall best {min(walls):.3f} s, median {statistics.median(walls):.3f} s;"
            f" CPU best {min(cpus):.3f} s, median {statistics.median(cpus):.3f} s"
        )
    print("slowest imports of `memwarden --version` (cumulative µs, module):")
    for micros, module in _slowest_imports(10):
        print(f"  {micros:>9,}  {module}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
