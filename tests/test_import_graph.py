"""The shape of the tree (issue 20): no import cycles, and shared/ never reaches the stages.

The graph is read from the sources with ``ast``, the way a reader or a static tool sees it:
imports inside functions count as much as those at the top (they hid the last cycle), and
``from a import b`` is an edge to ``a`` and, when it is a module, to ``a.b`` (importing
``a.b`` runs ``a/__init__.py``). Only imports under ``if TYPE_CHECKING:`` are left out: they
never run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from memwarden_shared.delivery import pipeline
from memwarden_usecases.pipeline import STAGE_TASKS

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT / "shared" / "memwarden_shared"
STAGE_PACKAGES = sorted(p for p in (ROOT / "services").glob("*/memwarden_*") if p.is_dir())
PACKAGES = [ROOT / "memwarden", SHARED, *STAGE_PACKAGES]
# Every distribution above shared: the stages and the use-case layer.
STAGE_NAMES = sorted(p.name for p in STAGE_PACKAGES)
STAGE_MODULE = re.compile(r"(" + "|".join(STAGE_NAMES) + r")(\.\w+)*")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in package.rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(package.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported_names(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: resolved against this module's package
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _runtime_imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: anywhere but under ``if TYPE_CHECKING``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            yield from _runtime_imports(ast.Module(body=child.orelse, type_ignores=[]))
        elif isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        else:
            yield from _runtime_imports(child)


@cache
def import_graph() -> dict[str, set[str]]:
    mods = modules()

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        targets = {
            known(name)
            for node in _runtime_imports(tree)
            for name in _imported_names(node, module, is_package)
        }
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycles__a_ring_of_imports_is_found_and_a_chain_is_not() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_import_graph__reads_imports_inside_functions_and_skips_type_checking_ones() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import only.for_types\n"
        "def f():\n    from inside.a_function import g\n"
    )
    names = [name for node in _runtime_imports(tree) for name in _imported_names(node, "m", False)]
    assert "inside.a_function" in names and "only.for_types" not in names


def test_import_graph__the_tree_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 150  # the whole tree was read, not an empty folder
    assert cycles(graph) == []


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes (prose may name a stage; code may not)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@pytest.mark.parametrize(
    "path", sorted(SHARED.rglob("*.py")), ids=lambda p: str(p.relative_to(SHARED))
)
def test_shared__names_no_stage_module(path: Path) -> None:
    """Neither an import nor a module-name string (``importlib``) in shared/ may name a stage
    or the use-case layer: the stages register with shared, never the other way round."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    named = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in prose
        and STAGE_MODULE.fullmatch(node.value)
    ]
    imported = [
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in _imported_names(node, "memwarden_shared.x", False)
        if STAGE_MODULE.match(name)
    ]
    assert (named, imported) == ([], [])


def test_shared__the_stage_name_check_sees_a_module_name_string() -> None:
    assert STAGE_MODULE.fullmatch("memwarden_gate.tasks")
    assert not STAGE_MODULE.fullmatch("the gate's tasks")


def _shared_imports(prefix: str) -> set[str]:
    """What the shared modules under ``prefix`` import from memwarden_shared."""
    graph = import_graph()
    return {
        target
        for module, targets in graph.items()
        if module == prefix or module.startswith(prefix + ".")
        for target in targets
        if target.startswith("memwarden_shared")
    }


@pytest.mark.parametrize(
    "leaf",
    [
        "memwarden_shared.config",
        "memwarden_shared.observe.metrics",
        "memwarden_shared.observe.logging",
        "memwarden_shared.delivery.pipeline",
    ],
)
def test_shared__leaves_import_nothing_of_memwarden_but_the_contract(leaf: str) -> None:
    assert _shared_imports(leaf) <= {"memwarden_shared.contract.models"}


def test_shared__delivery_sits_below_state_and_the_samplers() -> None:
    above = ("memwarden_shared.state", "memwarden_shared.observe")
    allowed = {"memwarden_shared.observe", "memwarden_shared.observe.metrics"}
    reached = {t for t in _shared_imports("memwarden_shared.delivery") if t.startswith(above)}
    assert reached <= allowed
    assert not {t for t in _shared_imports("memwarden_shared.store") if t.startswith(above)}


def test_state_owner__does_not_import_the_actions_domain() -> None:
    graph = import_graph()
    for owner in ("memory_state", "curate_writes"):
        assert (
            "memwarden_shared.state.action_repair" not in graph[f"memwarden_shared.state.{owner}"]
        )


def test_pipeline__every_stage_has_its_task_registered_under_the_tables_name() -> None:
    assert set(STAGE_TASKS) == set(pipeline.Stage)
    assert {stage: task.name for stage, task in STAGE_TASKS.items()} == dict(pipeline.STAGE_TASKS)
    routed = {route.task for route in pipeline.ROUTES.values()}
    assert routed <= set(pipeline.STAGE_TASKS.values())
