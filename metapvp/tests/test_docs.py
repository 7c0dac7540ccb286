"""The docs tell the truth about the tree: every relative link in the docs, the README and the
model cards leads to a file that exists, every path docs/architecture.md names exists, and the
guides stay guides (docs/agent.md and docs/doubles.md at most 300 lines; the dated reports in
docs/lab/)."""
import re
import unittest

from metapvp import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "static" / "models").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# a path in backticks: a top folder of the tree, then more of it (js/src/search.js, metapvp/exe/)
PATH = re.compile(r"`((?:metapvp|js|docs|scripts|benchmarks|studies|contracts|expts|static|search-rs)/[^`*\s]*)`")


class DocsTest(unittest.TestCase):
    def test_every_relative_link_leads_somewhere(self):
        broken = [f"{page.relative_to(ROOT)}: {target}" for page in PAGES for target in LINK.findall(page.read_text())
                  if "://" not in target and not (page.parent / target).exists()]
        self.assertEqual(broken, [])

    def test_the_architecture_names_only_what_exists(self):
        text = (ROOT / "docs" / "architecture.md").read_text()
        named = set(PATH.findall(text))
        self.assertGreater(len(named), 60)   # it is a map of the tree, not a sketch
        missing = sorted(p for p in named if not (ROOT / p).exists())
        self.assertEqual(missing, [])

    def test_the_guides_stay_guides(self):
        for name in ("agent.md", "doubles.md"):
            with self.subTest(page=name):
                lines = (ROOT / "docs" / name).read_text().count("\n")
                self.assertLessEqual(lines, 300)
        self.assertGreaterEqual(len(list((ROOT / "docs" / "lab").glob("*.md"))), 4)


if __name__ == "__main__":
    unittest.main()
