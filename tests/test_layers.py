"""The package's layers hold: imports go only downward, with no cycles.

harness > report > tasks > judge > scoring > text, data, errors (bottom). The package root is the public
facade above them all: nothing inside the package imports it. ``testing/`` is support for tests and benches.
Every import counts, at module level or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lm_eval_persian_culture"
ROOT = PACKAGE.name
LAYERS = {  # top-level module or subpackage -> rank (higher may import lower or equal)
    "errors": 0, "_version": 0, "lm_eval_stack": 0, "text": 0, "data": 0,
    "scoring": 1,
    "judge": 2,
    "tasks": 3,
    "report": 4,
    "harness": 5,
    "testing": 6,
}  # fmt: skip


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return mods


def _imports(path: Path, module: str, mods: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports (resolved to the longest existing module name)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against this module's package
                package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            # "from package import submodule" depends on the submodule, not on the package's __init__
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
        for name in names:
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and name != module and name.split(".")[0] == ROOT:
                found.add(name)
    return found


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {m: _imports(path, m, mods) for m, path in mods.items()}


def test_every_top_level_module_has_a_layer():
    unknown = sorted({_layer(m) for m in _modules()} - set(LAYERS) - {ROOT})
    assert not unknown, f"give these a layer in tests/test_layers.py: {unknown}"


def test_imports_go_only_downward():
    upward = []
    for module, targets in _graph().items():
        for target in targets:
            if target == ROOT and module != ROOT:
                upward.append(f"{module} -> {ROOT} (the public facade)")
                continue
            src, dst = _layer(module), _layer(target)
            if src == ROOT or dst == ROOT:
                continue
            if LAYERS[dst] > LAYERS[src]:
                upward.append(f"{module} ({src}) -> {target} ({dst})")
    assert not upward, "upward imports:\n" + "\n".join(sorted(upward))


def test_no_import_cycles():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)
