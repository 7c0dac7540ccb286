"""What the foe's play shows of its hidden set (js/src/knowledge/evidence.js), held to the
simulator's true sets: who moved first rules out sets too slow or too fast for it, two different
moves in one stay rule out a Choice item, and the foe's true set is never ruled out. The drawn
worlds keep only the sets allowed (js/src/rebuild.js)."""
import unittest

from metapvp.engine.v8 import checks_context


class PlayEvidenceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.v8 = checks_context()

    def test_the_foes_true_set_is_never_ruled_out(self):
        """Battles both sides play at random, mostly attacking: at every one of p1's decisions,
        each foe Pokemon's true set is allowed by all the orders and moves seen, while the
        record did narrow some foes' sets. Turn orders are read in gen 9 singles; the Choice
        rule in every generation and in doubles."""
        # gen 8's seed holds a foe that Dynamaxed between two moves (a Max Move is none of its set's)
        cases = [("gen9randombattle", 30, [2, 7, 1, 8]), ("gen8randombattle", 20, [8, 2, 3, 4]),
                 ("gen9randomdoublesbattle", 6, [2, 7, 1, 8])]
        for fmt, battles, seed in cases:
            with self.subTest(format=fmt):
                r = self.v8.checks("checkEvidence", {"format": fmt, "battles": battles, "seed": seed})
                self.assertEqual(r["ruled_out"], 0, r["examples"])
                self.assertGreater(r["checks"], 100, r)
                self.assertGreater(r["unchoiced"], 0, r)
                if fmt == "gen9randombattle":
                    self.assertGreater(r["orders"], 5 * battles, r)
                    self.assertGreater(r["narrowed"], 0, r)
                else:
                    self.assertEqual(r["orders"], 0, r)


class StagedTurnTest(unittest.TestCase):
    """Staged battles of a few turns (the fast tier)."""

    @classmethod
    def setUpClass(cls):
        cls.v8 = checks_context()

    def test_a_foe_that_outspeeds_only_with_a_choice_scarf_is_drawn_with_one(self):
        """Our Jolteon (Speed 254) against Chi-Yu (199, 298 with a Choice Scarf), both moving
        at priority 0: with the scarf Chi-Yu moves first and only its scarf sets are kept;
        without it Jolteon moves first and none of them is."""
        r = self.v8.checks("checkScarfTurn")
        self.assertEqual(r["scarf"]["orders"], [{"foeFirst": True, "ourSpeed": 254}])
        self.assertEqual(r["scarf"]["items"], ["choicescarf"])
        self.assertEqual(r["boots"]["orders"], [{"foeFirst": False, "ourSpeed": 254}])
        self.assertNotIn("choicescarf", r["boots"]["items"])
        self.assertIn("heavydutyboots", r["boots"]["items"])

    def test_moves_made_with_an_item_not_its_own_tell_nothing_of_its_sets_item(self):
        """A Rotom-Wash Tricks its Choice Scarf onto our Chansey and then uses two different
        moves while holding our Leftovers: its set's Choice Scarf is still allowed."""
        r = self.v8.checks("checkTrickedScarf")
        self.assertEqual(r, {"item": "leftovers", "unchoiced": False, "allowed": True})


if __name__ == "__main__":
    unittest.main()
