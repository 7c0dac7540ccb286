"""The action table on hand-written requests in the simulator's request format: which joint
actions are legal and the exact choice string each becomes."""
import json
import unittest

import numpy as np

from metapvp.engine import context
from metapvp.players.base import allowed

SWITCH = lambda j: (3 + j) * 6  # noqa: E731  action index of "switch j" (1-based)


def mon(name, active=False, condition="100/100", **extra):
    return {"ident": f"p1: {name}", "details": f"{name}, L50", "condition": condition, "active": active,
            "stats": {"atk": 100, "def": 100, "spa": 100, "spd": 100, "spe": 100},
            "moves": ["tackle"], "baseAbility": "pressure", "item": "leftovers", "pokeball": "pokeball",
            **extra}


def move(name, disabled=False, pp=10):
    return {"move": name, "id": name.lower().replace(" ", ""), "pp": pp, "maxpp": 16,
            "target": "normal", "disabled": disabled}


def team(**first):
    return [mon("Pikachu", active=True, **first), mon("Charizard"), mon("Blastoise"),
            mon("Venusaur", condition="0 fnt")]


MOVES = [move("Thunderbolt"), move("Quick Attack"), move("Volt Tackle", disabled=True), move("Surf")]


def request(active=None, side=None, **top):
    r = {"side": {"name": "p1", "id": "p1", "pokemon": side or team()}, "rqid": 3, **top}
    if active is not None:
        r["active"] = [active]
    return r


class ActionTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.v8 = context()

    def legal(self, req):
        out = self.v8.legal_actions(json.dumps(req))
        return {int(a): c for a, c in out.items()}

    def test_moves_switches_and_tera(self):
        legal = self.legal(request({"moves": MOVES, "canTerastallize": "Electric"}))
        self.assertEqual(legal, {
            0: "move 1", 1: "move 1 terastallize", 6: "move 2", 7: "move 2 terastallize",
            18: "move 4", 19: "move 4 terastallize",            # move 3 is disabled
            SWITCH(2): "switch 2", SWITCH(3): "switch 3"})      # 4 has fainted, 1 is active

    def test_trapped_has_no_switches(self):
        legal = self.legal(request({"moves": MOVES, "trapped": True}))
        self.assertEqual(sorted(legal.values()), ["move 1", "move 2", "move 4"])

    def test_maybe_trapped_keeps_switches(self):
        # The player cannot know: the simulator answers with [Unavailable choice] if it is.
        legal = self.legal(request({"moves": MOVES, "maybeTrapped": True}))
        self.assertIn("switch 2", legal.values())

    def test_forced_switch(self):
        legal = self.legal(request(forceSwitch=[True]))
        self.assertEqual(legal, {SWITCH(2): "switch 2", SWITCH(3): "switch 3"})

    def test_revival_blessing_picks_a_fainted_one(self):
        legal = self.legal(request(forceSwitch=[True], side=team(reviving=True)))
        self.assertEqual(legal, {SWITCH(4): "switch 4"})

    def test_struggle(self):
        struggle = {"move": "Struggle", "id": "struggle", "target": "randomNormal", "disabled": False}
        legal = self.legal(request({"moves": [struggle], "trapped": True}))
        self.assertEqual(legal, {0: "move 1"})

    def test_wait(self):
        self.assertEqual(self.legal(request(wait=True)), {})

    def test_team_preview(self):
        six = [mon(n) for n in ("Pikachu", "Charizard", "Blastoise", "Venusaur", "Snorlax", "Mew")]
        legal = self.legal(request(side=six, teamPreview=True))
        self.assertEqual(legal[SWITCH(1)], "team 123456")
        self.assertEqual(legal[SWITCH(3)], "team 312456")
        self.assertEqual(legal[SWITCH(6)], "team 612345")
        self.assertEqual(len(legal), 6)

    def test_team_preview_picks_fewer(self):
        six = [mon(n) for n in ("Pikachu", "Charizard", "Blastoise", "Venusaur", "Snorlax", "Mew")]
        legal = self.legal(request(side=six, teamPreview=True, maxChosenTeamSize=3))
        self.assertEqual(legal[SWITCH(5)], "team 512")

    def test_z_move_only_where_offered(self):
        z = [None, {"move": "Gigavolt Havoc", "target": "normal"}, None, None]
        legal = self.legal(request({"moves": MOVES, "canZMove": z}))
        self.assertEqual([c for c in legal.values() if "zmove" in c], ["move 2 zmove"])

    def test_dynamax_follows_max_moves(self):
        maxes = {"maxMoves": [{"move": "maxlightning", "target": "adjacentFoe"},
                              {"move": "maxstrike", "target": "adjacentFoe", "disabled": True},
                              {"move": "maxlightning", "target": "adjacentFoe"},
                              {"move": "maxgeyser", "target": "adjacentFoe"}]}
        legal = self.legal(request({"moves": MOVES, "canDynamax": True, "maxMoves": maxes}))
        # Max Move 3 is legal although Volt Tackle is disabled: Dynamax lifts a Choice lock.
        self.assertEqual(sorted(c for c in legal.values() if "dynamax" in c),
                         ["move 1 dynamax", "move 3 dynamax", "move 4 dynamax"])

    def test_mega_and_ultra(self):
        legal = self.legal(request({"moves": MOVES, "canMegaEvo": True, "canUltraBurst": True}))
        self.assertEqual(legal[2], "move 1 mega")
        self.assertEqual(legal[5], "move 1 ultra")


class MaskedActionFallbackTest(unittest.TestCase):
    """players.base.allowed: the one rule for an action the mask forbids (live play, the move API)."""

    def test_an_allowed_action_stands(self):
        mask = np.array([0, 1, 1, 0], dtype=np.uint8)
        self.assertEqual(allowed(2, mask), 2)
        self.assertEqual(allowed(2, mask, np.array([0.1, 0.8, 0.05, 0.05])), 2)

    def test_a_forbidden_one_gives_way_to_the_most_probable_allowed_or_the_first(self):
        mask = np.array([0, 1, 1, 0], dtype=np.uint8)
        self.assertEqual(allowed(3, mask, np.array([0.5, 0.1, 0.3, 0.1])), 2)   # 0 is forbidden too
        self.assertEqual(allowed(0, mask), 1)                                    # no probabilities


if __name__ == "__main__":
    unittest.main()
