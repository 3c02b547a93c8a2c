"""Package list for the one top-level import package (the rest is in pyproject.toml).

The repository keeps SPEC §2's layout (shared/, services/ at the top); installed, they are
memwarden.shared and memwarden.services, so nothing generic lands in site-packages.
"""

from setuptools import find_packages, setup

MAPPED = ("shared", "services")
packages = [
    *find_packages(include=["memwarden", "memwarden.*"]),
    *(f"memwarden.{p}" for p in find_packages(include=[f"{m}*" for m in MAPPED])),
]

setup(
    packages=packages,
    package_dir={"memwarden": "memwarden", **{f"memwarden.{m}": m for m in MAPPED}},
)
