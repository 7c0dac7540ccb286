"""The worlds the native search thinks on, held to the true battle field by field of poke-engine's
state (js/checks/worldtruth.js; scripts/worlds_truth.py prints the same over more battles):
what the player could count from the battle's lines (turns left of weather, terrain, Trick Room,
screens and Tailwind; sleep and Rest; Taunt, Encore and Yawn; PP spent; a Wish to come) agrees
with the truth in every drawn world."""
import importlib.util
import json
import tempfile
import unittest
from pathlib import Path

from metapvp.engine.v8 import checks_context

# Fields the player could count, each of which the worlds once got wrong (docs/lab/worlds.md):
# none may disagree.
COUNTED = ["field.weather", "field.weather_turns", "field.terrain", "field.terrain_turns",
           "field.trickroom", "field.trickroom_turns", "ours.move_pp", "foe.move_pp",
           "ours.rest_turns", "ours.sleep_turns", "foe.rest_turns", "foe.sleep_turns",
           "ours.taunt_turns", "foe.taunt_turns", "ours.encore_turns", "foe.encore_turns",
           "ours.yawn_turns", "foe.yawn_turns", "ours.wish", "foe.wish", "ours.toxic_count", "foe.toxic_count",
           "ours.item", "ours.substitute_hp", "foe.substitute_hp"] + [
    f"{side}.{c}" for side in ("ours", "foe")
    for c in ("reflect", "lightscreen", "auroraveil", "tailwind", "safeguard", "mist", "spikes", "stealthrock",
              "stickyweb", "toxicspikes")]


class WorldsAgainstTruthTest(unittest.TestCase):
    def test_drawn_worlds_agree_with_the_true_battle_on_what_the_player_counts(self):
        """Thirty random gen 9 battles, two worlds at each of p1's decisions: no counted field
        above disagrees; in all, under 1 in 2,000 counted fields does (the rest: docs/lab/worlds.md,
        "What the worlds still miss"); and the foe's unseen Pokemon are drawn wide (a drawn world
        rarely holds an unseen foe's species: the bench is the generator's, not one fixed team)."""
        r = checks_context().checks("checkWorldTruth", {"battles": 30, "seed": [1, 2, 3, 4], "worlds": 2})
        wrong = {k: n for k, n in r["counted"].items() if k in COUNTED}
        self.assertEqual(wrong, {}, r["examples"])
        self.assertGreater(r["compared"], 100_000, r)
        self.assertLess(sum(r["counted"].values()), r["compared"] / 2000, r)
        miss, n = r["guessed"]["foe.unseen_species"]
        self.assertGreater(n, 1000, r)
        self.assertLess(1 - miss / n, 0.05, r)


class StagedDurationsTest(unittest.TestCase):
    def test_screens_weather_and_trick_room_count_down_from_when_they_began(self):
        """Our Ninetales-Alola sets Aurora Veil in its Snow Warning's snow while the foe sets
        Trick Room; three turns later a drawn world has what the true battle has: snow and
        Trick Room 2 turns left, Aurora Veil 5 with Light Clay (8 turns) and 2 without (5)."""
        r = checks_context().checks("checkStagedDurations")
        self.assertEqual(r["clayed"]["truth"], {"snow": 2, "trickroom": 2, "auroraveil": 5})
        self.assertEqual(r["unclayed"]["truth"], {"snow": 2, "trickroom": 2, "auroraveil": 2})
        self.assertEqual(r["clayed"]["world"], r["clayed"]["truth"])
        self.assertEqual(r["unclayed"]["world"], r["unclayed"]["truth"])


if __name__ == "__main__":
    unittest.main()


class WorldsChoiceTest(unittest.TestCase):
    def test_the_probe_meets_the_same_decisions_each_run(self):
        """scripts/worlds_choice.py plays the told search's choice, so a second run meets the
        same decisions and pairs with the first over every one of them, differing by nothing;
        every decision has the drawn, told and rerun choices and a regret of 0 or more."""
        root = Path(__file__).resolve().parents[2]
        spec = importlib.util.spec_from_file_location("worlds_choice", root / "scripts" / "worlds_choice.py")
        probe = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(probe)
        agent = "native(iterations=300,worlds=2,exploration=1.5,leaf=search,uniform=0.5):agent"
        with tempfile.TemporaryDirectory() as tmp:
            first, second = Path(tmp) / "first.json", Path(tmp) / "second.json"
            self.assertEqual(probe.main(["--battles", "2", "--agent", agent, "--save", str(first)]), 0)
            self.assertEqual(probe.main(["--battles", "2", "--agent", agent, "--save", str(second),
                                         "--against", str(first)]), 0)
            a, b = json.loads(first.read_text()), json.loads(second.read_text())
        self.assertGreater(len(a["records"]), 10)
        self.assertEqual(a["records"], b["records"])
        self.assertEqual(probe.paired(b["records"], a["records"]),
                         {"decisions": len(a["records"]), "agree": (0.0, 0.0), "regret": (0.0, 0.0)})
        for r in a["records"]:
            self.assertGreaterEqual(r["regret"], 0)
            if r["drawn"] == r["told"]:
                self.assertEqual(r["regret"], 0)
