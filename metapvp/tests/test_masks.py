"""At every decision of 100 random battles per generation (200 in gen 9, and 100 of a team-preview
format with user teams), the action mask equals the set of choices the real simulator accepts: every joint
action is offered to the simulator and its verdict compared with the mask."""
import multiprocessing as mp
import unittest

from metapvp.tests.golden import FORMATS, teams_for

BATTLES = 100
# Gen 9 plays more: Revival Blessing comes up about once in 200 of its random battles.
MORE_BATTLES = {"gen9randombattle": 200}


def battles_for(fmt: str) -> int:
    return MORE_BATTLES.get(fmt, BATTLES)


# Special cases the battles must have met, each at decisions with 0 mismatches.
SITUATIONS = ["team_preview", "forced_switch", "revival_blessing", "trapped", "maybe_trapped",
              "struggle", "locked_move", "disabled_move", "can_terastallize", "can_dynamax",
              "can_mega", "can_zmove", "transformed", "illusion", "pivot"]


def check(fmt):
    """Plays BATTLES random battles in JS and offers the simulator every action at every
    decision (js/checks/maskcheck.js); -> the counts."""
    from metapvp.engine.v8 import checks_context
    battles = battles_for(fmt)
    opts = {"format": fmt, "battles": battles, "seed": f"{len(fmt)},9,9,{battles}", **teams_for(fmt)}
    return checks_context().checks("checkMasks", opts)


class MaskMatchesSimulatorTest(unittest.TestCase):
    def test_every_format(self):
        # One V8 context per core: the formats are independent.
        with mp.get_context("spawn").Pool(2) as pool:
            results = pool.map(check, FORMATS, chunksize=1)
        for r in results:
            with self.subTest(format=r["format"]):
                self.assertEqual(r["battles"], battles_for(r["format"]))
                self.assertGreater(r["decisions"], r["battles"] * 5)
                self.assertEqual(r["mismatches"], 0, r["examples"])
                # Choices refused only for what the player could not see (a trapping ability
                # or a disabling move not yet revealed) are counted, not hidden.
                self.assertLess(r["hidden_info"], r["decisions"] * 0.05)
        met = {}
        for r in results:
            for name, n in r["situations"].items():
                met[name] = met.get(name, 0) + n
        for name in SITUATIONS:
            self.assertGreater(met.get(name, 0), 0, f"no decision met {name}: {met}")
        print(f"\nsituations met: {met}")
        print("mask check: " + "; ".join(
            f"{r['format']} {r['decisions']} decisions {r['offered']} offers "
            f"{r['mismatches']} mismatches {r['hidden_info']} hidden-info" for r in results))


if __name__ == "__main__":
    unittest.main()
