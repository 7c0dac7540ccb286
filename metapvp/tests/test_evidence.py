"""What the foe's play shows of its hidden set (js/src/knowledge/evidence.js, silence.js), held to
the simulator's true sets: who moved first rules out sets too slow or too fast for it, two
different moves in one stay rule out a Choice item, what it would have shown and did not (Boots
over hazards, Leftovers, Life Orb's recoil, Assault Vest, Air Balloon, an entry ability) rules
out the sets that hold it, and the foe's true set is never ruled out. The drawn
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
        # gen 9's 80 battles hold a foe Zoroark shown as Hatterene until it broke (its turns' orders
        # taken back then) and ours entering Sticky Web as Chansey (the client gave the drop to the
        # real Chansey: our Speed unknown, its orders unread)
        cases = [("gen9randombattle", 80, [2, 7, 1, 8]), ("gen8randombattle", 20, [8, 2, 3, 4]),
                 ("gen9randomdoublesbattle", 6, [2, 7, 1, 8])]
        for fmt, battles, seed in cases:
            with self.subTest(format=fmt):
                r = self.v8.checks("checkEvidence", {"format": fmt, "battles": battles, "seed": seed})
                self.assertEqual(r["ruled_out"], 0, r["examples"])
                self.assertGreater(r["checks"], 100, r)
                if battles == 80:   # two Illusions in play: the foe's broken mid-battle, ours under Sticky Web
                    self.assertGreater(r["behind_illusion"], 0, r)
                self.assertGreater(r["unchoiced"], 0, r)
                if fmt == "gen9randombattle":  # what its play did not show: each kind seen
                    for fact, n in r["silences"].items():
                        self.assertGreater(n, 0, (fact, r["silences"]))
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

    def test_what_its_play_did_not_show_rules_out_sets_and_excuses_what_it_should(self):
        """The foe leads Chansey, then brings in a second Pokemon, over our Stealth Rock or not,
        which acts: each time its true set is still allowed, and
        - a Landorus-Therian that came in saying nothing is not the Intimidate one, unless our
          Neutralizing Gas was in play;
        - an attack that hit with no recoil rules out Life Orb (Darkrai keeps Leftovers), but not
          with Magic Guard (Clefable unhurt by the rocks too: only its Magic Guard sets) nor with
          Sheer Force on a move with added effects (Earth Power);
        - hurt by the rocks, Incineroar holds no Heavy-Duty Boots; in over them unhurt, it holds
          them, and a status move rules out Assault Vest."""
        r = self.v8.checks("checkSilences")
        for case, got in r.items():
            self.assertTrue(got["allowed"], case)
        self.assertEqual(r["silent"]["abilities"], ["sheerforce"])
        self.assertEqual(r["underGas"]["abilities"], ["intimidate", "sheerforce"])
        self.assertEqual(r["noLifeOrb"]["items"], ["leftovers"])
        self.assertEqual((r["magicGuard"]["items"], r["magicGuard"]["abilities"]), (["lifeorb"], ["magicguard"]))
        self.assertEqual(r["sheerForce"]["items"], ["lifeorb"])
        self.assertNotIn("heavydutyboots", r["hurtByRocks"]["items"])
        self.assertIn("assaultvest", r["hurtByRocks"]["items"])
        self.assertEqual(r["statusMove"]["items"], ["heavydutyboots"])

    def test_moves_made_with_an_item_not_its_own_tell_nothing_of_its_sets_item(self):
        """A Rotom-Wash Tricks its Choice Scarf onto our Chansey and then uses two different
        moves while holding our Leftovers: its set's Choice Scarf is still allowed."""
        r = self.v8.checks("checkTrickedScarf")
        self.assertEqual(r, {"item": "leftovers", "unchoiced": False, "allowed": True})


if __name__ == "__main__":
    unittest.main()
