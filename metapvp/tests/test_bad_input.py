"""Bad input gets a clear error naming the battle (and the line), and the other battles go on."""
import gzip
import json
import unittest

from metapvp import ROOT
from metapvp.engine import BattleError, Engine

GOLDEN = ROOT / "metapvp/tests/data/golden/gen9randombattle-0.json.gz"


class BadInputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with gzip.open(GOLDEN, "rt") as f:
            cls.pumps = json.load(f)["streams"]["p1"]

    def setUp(self):
        self.engine = Engine()
        for b in ("good", "bad"):
            self.engine.open(b, "p1")
            self.engine.batch(feed=[(b, "p1", m) for m in self.pumps[0]])

    def tearDown(self):
        for b in ("good", "bad"):
            self.engine.close_view(b, "p1")

    def feed_bad(self, message):
        """Feeds `message` to 'bad' and the next real pump to 'good' in one batch."""
        feed = [("bad", "p1", message)] + [("good", "p1", m) for m in self.pumps[1]]
        batch = self.engine.batch(feed=feed, encode=[("good", "p1"), ("bad", "p1")])
        self.assertEqual(len(batch.errors), 1, batch.errors)
        err = batch.errors[0]
        self.assertEqual(err.battle, "bad")
        self.assertIn("battle bad", str(err))
        # the good battle was fed and encoded in the same call
        self.assertEqual([r.battle for r in batch.records], ["good", "bad"])
        self.assertTrue(batch.records[0].decision)
        self.assertEqual(batch.obs["battle.gen"][0, 0], 9)
        return err

    def test_malformed_line(self):
        err = self.feed_bad("|switch|p2a: Nobody")
        self.assertIn("missing fields", str(err))
        self.assertEqual(err.line, "|switch|p2a: Nobody")

    def test_unknown_species(self):
        err = self.feed_bad("|switch|p2a: Fakemon|Fakemon, L50|100/100")
        self.assertIn("unknown species 'Fakemon'", str(err))
        self.assertIn("Fakemon, L50", str(err))

    def test_unknown_move(self):
        err = self.feed_bad("|move|p2a: Fakemon|Hyper Mega Beam|p1a: Someone")
        self.assertIn("unknown move 'Hyper Mega Beam'", str(err))

    def test_truncated_request(self):
        err = self.feed_bad('|request|{"active":[{"moves":[{"move":"Tackle"')
        self.assertIn("bad request JSON", str(err))

    def test_unknown_battle(self):
        with self.assertRaises(BattleError) as cm:
            self.engine.feed("nosuchbattle", "p1", "|turn|1")
        self.assertEqual(cm.exception.battle, "nosuchbattle")
        self.assertIn("no battle 'nosuchbattle' open", str(cm.exception))
        # and the open ones are untouched
        record, obs = self.engine.encode("good", "p1")
        self.assertEqual(record.battle, "good")

    def test_bad_battle_keeps_working(self):
        self.feed_bad("|switch|p2a: Fakemon|Fakemon, L50|100/100")
        batch = self.engine.batch(feed=[("bad", "p1", m) for m in self.pumps[1]], encode=[("bad", "p1")])
        self.assertEqual(batch.errors, [])
        self.assertTrue(batch.records[0].decision)

    def test_bad_action_index(self):
        self.engine.encode("good", "p1")
        with self.assertRaises(BattleError) as cm:
            self.engine.choice("good", "p1", 999)
        self.assertIn("out of range", str(cm.exception))
        self.assertEqual(cm.exception.battle, "good")

    def test_unknown_perspective(self):
        with self.assertRaises(BattleError) as cm:
            self.engine.open("x", "p3")
        self.assertIn("unknown perspective 'p3'", str(cm.exception))


class FuzzTest(unittest.TestCase):
    def test_mutated_recorded_battles_never_break_the_engine_or_clean_battles(self):
        """Every golden battle, both sides, with a quarter of its lines mutated, beside clean
        copies in the same calls: errors name their battles, clean ones encode as they do alone."""
        from metapvp.tests.fuzzing import fuzz_engine
        stats = fuzz_engine(lines=20_000, seed=7)
        self.assertGreaterEqual(stats.mutated, 20_000)
        self.assertEqual(stats.problems, [])
        self.assertGreater(stats.errors, 0)

    def test_mutated_doubles_battles_with_the_doubles_contract(self):
        from metapvp.engine import Engine
        from metapvp.tests.fuzzing import fuzz_engine
        from metapvp.tests.golden import DOUBLES_CONTRACT, DOUBLES_FORMATS
        stats = fuzz_engine(lines=5_000, seed=8, engine=Engine(DOUBLES_CONTRACT), formats=DOUBLES_FORMATS)
        self.assertGreaterEqual(stats.mutated, 5_000)
        self.assertEqual(stats.problems, [])
        self.assertGreater(stats.errors, 0)


if __name__ == "__main__":
    unittest.main()
