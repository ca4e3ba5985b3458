"""No import circles in the trainer package, counting imports made inside functions too (a deferred import hides a
circle from load order but not from the code: the two modules are really one). The TypeScript sources have the
same check (test/fast/import-circles.test.ts)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "flywheel_trainer"


def imports_of(path: Path) -> set[str]:
    """The package's modules a file imports, anywhere in it (relative or by the package's name)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1:
                names = [base] if base else [a.name for a in node.names]
            elif base.startswith("flywheel_trainer."):
                names = [base.removeprefix("flywheel_trainer.")]
            elif base == "flywheel_trainer":
                names = [a.name for a in node.names]
            else:
                continue
            found.update(n.split(".")[0] for n in names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("flywheel_trainer."))
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that reach each other (Tarjan's strongly connected components of size > 1)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_trainer_imports_itself_through_others():
    graph = {p.stem: imports_of(p) - {p.stem} for p in PACKAGE.glob("*.py")}
    assert len(graph) > 20
    assert "dpo" in graph["train"], "the reader sees imports made inside functions"
    assert circles(graph) == []
