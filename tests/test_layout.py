"""The package's layout: no import cycles, op modules named by family, and the checked-in
``.pyi`` stubs in step with the op registry."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "glassgrad"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at module level or inside a function (a deferred import is
    still a dependency), except those under ``if TYPE_CHECKING:``, which never run."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                stack.extend(child.orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            stack.append(child)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the glassgrad modules it imports, read from the source (nothing is run).

    ``from . import x`` depends on the submodule ``x`` where there is one, otherwise on the
    package's ``__init__``; importing a submodule is not counted as depending on its parents.
    """
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name in paths)
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target not in paths:
                continue
            submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in paths]
            edges.update(submodules)
            if len(submodules) < len(node.names):
                edges.add(target)
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that ends where it starts, or [] (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if root in state:
            continue
        path = [root]
        state[root] = 1
        iterators = [iter(sorted(graph[root]))]
        while iterators:
            step = next(iterators[-1], None)
            if step is None:
                state[path.pop()] = 2
                iterators.pop()
            elif state.get(step) == 1:
                return path[path.index(step) :] + [step]
            elif step not in state:
                state[step] = 1
                path.append(step)
                iterators.append(iter(sorted(graph[step])))
    return []


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert "glassgrad._tensor" in graph["glassgrad.ops.arithmetic"]  # the graph is read
    cycle = find_cycle(graph)
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_finds_a_deferred_import_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from . import hidden\n"
        "def f():\n    from . import deferred\n"
    )
    assert [a.name for node in _imports(tree) for a in node.names] == ["TYPE_CHECKING", "deferred"]


def test_op_modules_are_named_by_family() -> None:
    names = [p.stem for p in (PACKAGE / "ops").glob("*.py")]
    assert not [n for n in names if n.endswith("_extra")], "name op modules by family"


def test_op_modules_stay_about_600_lines() -> None:
    """A family past ~600 lines is split into sub-families (ops/README.md)."""
    sizes = {p.name: len(p.read_text().splitlines()) for p in (PACKAGE / "ops").glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 620} == {}


def _stub_generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "generate_stubs", ROOT / "scripts/generate_stubs.py"
    )
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    sys.modules["generate_stubs"] = generator
    spec.loader.exec_module(generator)
    return generator


def test_stubs_match_the_registry() -> None:
    generator = _stub_generator()
    stale = [str(p.relative_to(ROOT)) for p in generator.stale()]
    assert not stale, (
        f"stubs out of date with the op registry: {stale}. "
        "Run `.venv/bin/python scripts/generate_stubs.py` and commit the .pyi files."
    )


def test_stub_annotations_name_builtin_types_that_glassgrad_rebinds() -> None:
    # glassgrad.float, glassgrad.int and glassgrad.bool are dtypes: in __init__.pyi a bare
    # "float" annotation would mean the dtype, so the stubs write builtins.float.
    rewrite = _stub_generator()._unshadowed_line
    shadowed = {"float", "int", "bool"}
    assert (
        rewrite(
            "def f(x: float, y: tuple[int, float] = ..., *, int: int = ...) -> bool: ...\n",
            shadowed,
        )
        == "def f(x: builtins.float, y: tuple[builtins.int, builtins.float] = ..., *, "
        "int: builtins.int = ...) -> builtins.bool: ...\n"
    )
    assert rewrite("e: float\n", shadowed) == "e: builtins.float\n"
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    annotations = [
        node.annotation for node in ast.walk(tree) if isinstance(node, (ast.arg, ast.AnnAssign))
    ]
    annotations += [node.returns for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    bare = {
        name.id
        for annotation in annotations
        if annotation is not None
        for name in ast.walk(annotation)
        if isinstance(name, ast.Name) and name.id in shadowed
    }
    assert not bare, f"annotations in __init__.pyi name glassgrad's dtypes {bare}, not builtins"
