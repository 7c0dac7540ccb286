"""Doubles: the action table (js/src/doubles.js) against the real simulator. At every decision of
random doubles battles (random doubles in gens 8 and 9, and VGC with its team preview and the
sample teams), joint actions are offered to the simulator -- the allowed ones and as many of
the others -- and its verdict compared with the mask; every allowed action's choice string reads
back as the same action."""
import multiprocessing as mp
import unittest

from metapvp import ROOT

BATTLES = 30
VGC = "gen9vgc2025regi"
FORMATS = ["gen9randomdoublesbattle", "gen8randomdoublesbattle", VGC]
# Special cases the battles must have met, each at decisions with 0 mismatches.
SITUATIONS = ["team_preview", "forced_switch_one", "forced_switch_both", "forced_pass", "fainted_position",
              "both_can_terastallize", "can_dynamax", "dynamaxed", "disabled_move", "trapped", "locked_move",
              "target_normal", "target_any", "target_adjacentAlly", "target_adjacentAllyOrSelf",
              "target_allAdjacentFoes", "target_self"]


def vgc_teams() -> dict:
    return {f"{side}team": (ROOT / f"static/teams/{VGC}-{x}.txt").read_text() for side, x in (("p1", "a"), ("p2", "b"))}


def check(fmt):
    """Plays BATTLES random doubles battles in JS, offering the simulator joint actions at every
    decision (js/checks/doublescheck.js); -> the counts."""
    from metapvp.engine.v8 import checks_context
    opts = {"format": fmt, "battles": BATTLES, "seed": f"{len(fmt)},7,7,{BATTLES}", "offers": 100,
            **(vgc_teams() if fmt == VGC else {})}
    return checks_context().checks("checkDoubles", opts)


class DoublesMaskMatchesSimulatorTest(unittest.TestCase):
    def test_every_format(self):
        with mp.get_context("spawn").Pool(2) as pool:
            results = pool.map(check, FORMATS, chunksize=1)
        for r in results:
            with self.subTest(format=r["format"]):
                self.assertEqual(r["battles"], BATTLES)
                self.assertGreater(r["decisions"], BATTLES * 10)
                self.assertGreater(r["offered"], r["decisions"] * 100)
                self.assertEqual(r["mismatches"], 0, r["examples"])
                self.assertEqual(r["not_round_trips"], 0)
                # refused only for what the player could not see (an unrevealed trap or disable)
                self.assertLess(r["hidden_info"], r["offered"] * 0.01)
        met = {}
        for r in results:
            for name, n in r["situations"].items():
                met[name] = met.get(name, 0) + n
        for name in SITUATIONS:
            self.assertGreater(met.get(name, 0), 0, f"no decision met {name}: {met}")
        print("\ndoubles mask check: " + "; ".join(
            f"{r['format']} {r['decisions']} decisions {r['offered']} offers {r['mismatches']} mismatches "
            f"{r['hidden_info']} hidden-info" for r in results))

    def test_a_format_that_is_not_doubles_is_named(self):
        from metapvp.engine.v8 import checks_context
        with self.assertRaisesRegex(Exception, "gen9randombattle is not a doubles format"):
            checks_context().checks("checkDoubles", {"format": "gen9randombattle", "battles": 1, "seed": "1,2,3,4"})


if __name__ == "__main__":
    unittest.main()
