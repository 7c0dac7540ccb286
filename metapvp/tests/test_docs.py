"""The docs tell the truth about the tree: every relative link in the docs, the README and the
model cards leads to a file that exists, every path docs/architecture.md names exists, and the
guides stay guides (bounded by characters, no dates: those are in CHANGELOG.md and the dated
reports of docs/lab/, each listed in its index)."""
import json
import re
import unittest

from metapvp import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "static" / "models").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# a path in backticks: a top folder of the tree, then more of it (js/src/search.js, metapvp/exe/)
# the guides, each at most this many characters
GUIDE_CHARACTERS = {"README.md": 20_000, "docs/agent.md": 25_000, "docs/doubles.md": 16_000, "docs/testing.md": 8_000}
# pages that say what is true now: no dates
PRESENT = [ROOT / "README.md", *(p for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "benchmarks.md"),
           *sorted((ROOT / "static" / "models").rglob("*.md"))]
DATE = re.compile(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b")
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
        """Guides bounded by characters (a line made longer is no way around it), each report
        of the lab listed in its index."""
        for name, most in GUIDE_CHARACTERS.items():
            with self.subTest(page=name):
                self.assertLessEqual(len((ROOT / name).read_text()), most)
        lab = ROOT / "docs" / "lab"
        index = (lab / "README.md").read_text()
        unlisted = [p.name for p in lab.glob("*.md") if p.name != "README.md" and f"]({p.name})" not in index]
        self.assertEqual(unlisted, [])

    def test_the_readme_and_the_card_give_the_same_headline_figures(self):
        """Each evaluation the card's data marks as a headline (the shipped `agent` at its
        setting now) stands in the README's table with its win rate and interval, as the card has
        them: one source (static/models/gen9randombattle.card.json, from `metapvp ship`)."""
        data = json.loads((ROOT / "static" / "models" / "gen9randombattle.card.json").read_text())
        headline = [e for e in data["evaluations"] if e.get("headline")]
        self.assertGreaterEqual(len(headline), 3)
        readme = (ROOT / "README.md").read_text()
        card = (ROOT / "static" / "models" / "gen9randombattle.md").read_text()
        for e in headline:
            figures = f"**{e['win_rate']:.3f}** | {e['ci95'][0]:.3f}–{e['ci95'][1]:.3f}"
            with self.subTest(opponent=e["opponent"]):
                self.assertIn(figures, readme)
                self.assertIn(f"| **{e['win_rate']:.3f}** | {e['ci95'][0]:.3f}–{e['ci95'][1]:.3f} |", card)

    def test_the_guides_tell_the_present(self):
        """No date in the README, the guides or the model cards: what changed when is in
        CHANGELOG.md and the dated reports of docs/lab/ (docs/benchmarks.md, a record of
        measurements, dates each)."""
        dated = [f"{page.relative_to(ROOT)}: {m.group(0)}" for page in PRESENT for m in DATE.finditer(page.read_text())]
        self.assertEqual(dated, [])


if __name__ == "__main__":
    unittest.main()
