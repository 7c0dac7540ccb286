"""The structure as the imports draw it. The package: no module imports from the command lines in
metapvp/exe/ (and metapvp/__main__.py), and no import circle among its modules (imports inside
functions count: they are arrows too). The bundle's sources (js/src): no circle, and no import
running up a floor (JS_FLOORS)."""
import ast
import re
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

    def test_the_product_leaves_the_studies_alone(self):
        """The lab's studies (studies/) are scripts: no file of the package, its tests included,
        or of the crate imports one or runs one (their tests are studies/test_studies.py)."""
        study = re.compile(r"^\s*(from|import)\s+studies\b|[\"']studies/\w+\.py[\"']", re.M)
        files = [*PACKAGE.rglob("*.py"), *(ROOT / "search-rs" / "src").rglob("*.rs")]
        self.assertEqual([str(p.relative_to(ROOT)) for p in files if study.search(p.read_text())], [])


# js/src's floors, top down: an import may stay on its floor or go down, never up (the last
# matching prefix of a file's path names its floor).
JS = ROOT / "js" / "src"
JS_FLOORS = [
    ("index.js", 1),                                   # the API Python calls
    ("engine.js", 2), ("simulator.js", 2),             # what holds battles
    ("lookahead.js", 3), ("search.js", 3), ("rootchoice.js", 3),   # the planners
    ("games/", 4),                                     # one adapter per game
    ("scripted.js", 5), ("doublesscripted.js", 5), ("rebuild.js", 5), ("playon.js", 5), ("evaluation.js", 5),
    ("enginestate.js", 3), ("random.js", 7), ("narrate.js", 3), ("thoughts.js", 5),
    ("view.js", 6), ("encoder.js", 6), ("output.js", 6), ("dextables.js", 6), ("knowledge/", 6),
    ("actiontable.js", 7), ("actions.js", 7), ("doubles.js", 7), ("contract.js", 7), ("format.js", 7),
    ("perspective.js", 7), ("species.js", 7),
]
JS_IMPORT = re.compile(r"^import\s[^;]*?from\s+'(\.{1,2}/[^']+)'", re.M)


def js_graph() -> dict[str, set[str]]:
    """js/src's modules (paths relative to it) and the ones each imports."""
    out = {}
    for path in JS.rglob("*.js"):
        name = path.relative_to(JS).as_posix()
        out[name] = {(path.parent / target).resolve().relative_to(JS.resolve()).as_posix()
                     for target in JS_IMPORT.findall(path.read_text())}
    return out


def js_floor(name: str) -> int:
    found = [floor for prefix, floor in JS_FLOORS
             if name == prefix or (prefix.endswith("/") and name.startswith(prefix))]
    if not found:
        raise AssertionError(f"js/src/{name} has no floor in test_structure.JS_FLOORS: give it one")
    return found[-1]


class JsStructureTest(unittest.TestCase):
    def test_the_walk_reads_the_bundle(self):
        g = js_graph()
        self.assertIn("games/index.js", g["search.js"])
        self.assertIn("playon.js", g["games/doubles.js"])

    def test_no_import_circle(self):
        self.assertEqual(circles(js_graph()), [])

    def test_no_import_runs_up_a_floor(self):
        upward = sorted(f"{m} (floor {js_floor(m)}) imports {d} (floor {js_floor(d)})"
                        for m, deps in js_graph().items() for d in deps if js_floor(d) < js_floor(m))
        self.assertEqual(upward, [])


class FastTierTest(unittest.TestCase):
    def test_the_fast_tier_names_tests_that_exist(self):
        """metapvp/tests/fast.py: every module and class it names loads and holds tests (a test
        renamed or moved must not drop out of the tier unseen)."""
        from metapvp.tests.fast import FAST
        for name in FAST:
            with self.subTest(name=name):
                loader = unittest.TestLoader()
                self.assertGreater(loader.loadTestsFromName(name).countTestCases(), 0)
                self.assertEqual(loader.errors, [])   # a name that does not load comes back as a failing test


class MutationsListTest(unittest.TestCase):
    def test_every_breakage_finds_its_code_once_and_names_tests_that_exist(self):
        """scripts/mutations.yml (scripts/mutate.py): each breakage's `find` occurs exactly once in
        its file and each test it names loads, so that a change that moves the code is caught here,
        not at the next full mutation run."""
        import yaml
        for m in yaml.safe_load((ROOT / "scripts" / "mutations.yml").read_text()):
            with self.subTest(breakage=m["name"]):
                self.assertEqual((ROOT / m["file"]).read_text().count(m["find"]), 1, m["file"])
                for name in m["tests"]:
                    loader = unittest.TestLoader()
                    self.assertGreater(loader.loadTestsFromName(name).countTestCases(), 0, name)
                    self.assertEqual(loader.errors, [], name)   # one that does not load comes back as a failing test
