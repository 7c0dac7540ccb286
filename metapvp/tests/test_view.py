"""A player's view of a battle (js/src/view.js) against the simulator, which knows the true
battle: what the view shows of both active Pokemon at every decision, and a Terastallized
Pokemon switching back in (js/checks/viewcheck.js)."""
import unittest

from metapvp.engine.v8 import checks_context


class ViewAgainstSimulatorTest(unittest.TestCase):
    def test_the_view_shows_both_actives_as_they_are(self):
        """Battles played at random: at every decision of p1's with a move to choose, every
        active's boosts, status, Terastallization and HP (ours exact, the foe's to its shown
        percentage), each side's fainted count and side conditions, weather and terrain, as
        the simulator has them. Gen 9's 60 battles
        hold a Morpeko that Terastallized (the client keys it with its position, "p1a: Morpeko",
        and made a new one at the next request, at 0 HP)."""
        v8 = checks_context()
        cases = [("gen9randombattle", 60), ("gen8randombattle", 10), ("gen4randombattle", 10),
                 ("gen1randombattle", 10), ("gen9randomdoublesbattle", 10)]
        for fmt, battles in cases:
            with self.subTest(format=fmt):
                r = v8.checks("checkViewTruth", {"format": fmt, "battles": battles, "seed": [1, 2, 3, 4]})
                self.assertEqual(r["wrong"], {}, r["examples"])
                self.assertGreater(r["compared"], 20 * battles, r)


class TerastallizedReentryTest(unittest.TestCase):
    def test_a_terastallized_pokemon_back_in_keeps_what_its_entry_did(self):
        """Our Jolteon Terastallizes, goes out, and comes back in over Sticky Web: after the next
        request the view's active Jolteon has the Speed drop and its Tera type, and our side
        its two Pokemon (the client once made a second Jolteon for the switch line's
        ", tera:Electric", and the request put the first back in its place without the drop)."""
        r = checks_context().checks("checkTeraReentry")
        self.assertEqual(r, {"species": "Jolteon", "tera": "Electric", "spe": -1, "team": 2})


if __name__ == "__main__":
    unittest.main()
