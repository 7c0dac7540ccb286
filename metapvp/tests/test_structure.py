"""The package's structure as its imports draw it: no module imports from the command lines in
metapvp/exe/ (and metapvp/__main__.py), and no import circle among the package's modules (imports inside functions
count: they are arrows too)."""
import ast
import unittest
from pathlib import Path

from metapvp import ROOT

PACKAGE = ROOT / "metapvp"


def modules() -> dict[str, Path]:
    """Every module of the package but the tests, by dotted name (a package by its __init__)."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if "tests" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(path: Path, known: dict) -> set[str]:
    """The package's modules that `path` names in its imports (anywhere in the file)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from a.b import c`: module a.b.c where c is one, else a.b itself
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                     for a in node.names]
        else:
            continue
        found |= {n for n in names if n in known}
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module, or of one that imports itself."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in graph[v]:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(path, known) for name, path in known.items()}


def command_line(module: str) -> bool:
    """metapvp/exe/ and `python -m metapvp` (metapvp/__main__.py, the `metapvp` command)."""
    return module.startswith("metapvp.exe") or module == "metapvp.__main__"


class StructureTest(unittest.TestCase):
    def test_the_walk_sees_a_circle(self):
        self.assertEqual(circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}), [["a", "b", "c"]])
        self.assertEqual(circles({"a": {"b"}, "b": set()}), [])

    def test_the_walk_reads_the_package(self):
        g = graph()
        self.assertIn("metapvp.engine.types", g["metapvp.engine.simulator"])
        self.assertIn("metapvp.arena.runner", g["metapvp.exe.head2head"])

    def test_no_import_circle(self):
        self.assertEqual(circles(graph()), [])

    def test_nothing_imports_a_command_line(self):
        upward = sorted(f"{m} imports {d}" for m, deps in graph().items() if not command_line(m)
                        for d in deps if d.startswith("metapvp.exe"))
        self.assertEqual(upward, [])
