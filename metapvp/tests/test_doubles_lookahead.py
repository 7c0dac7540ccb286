"""The doubles lookahead (js/src/lookahead.js over js/src/games/doubles.js): the battle rebuilt with every Pokemon at
its position, a turn played for each joint candidate against the foe's likely answers; and the
lookahead player's doubles candidates (metapvp/players/lookahead.py)."""
import unittest

import numpy as np

from metapvp.arena import play
from metapvp.engine import Simulator
from metapvp.players import Decisions, make_player
from metapvp.players.lookahead import LookaheadPlayer
from metapvp.tests.test_lookahead import OURS, THEIRS, StubPolicy, StubState, first_legal, look_ahead_to_the_end

P = 127                      # actions per position (js/src/doubles.js)
G, T = 6, 5                  # gimmicks; targets: none, foe1, foe2, ally, self


def move(slot, target=0):
    return (slot * T + target) * G


class DoublesLookaheadTest(unittest.TestCase):
    def start(self):
        sim = Simulator("doubles-v1")
        step = sim.start([{"id": "k", "format": "gen9doublescustomgame", "seed": "1,2,3,4",
                           "p1team": OURS, "p2team": THEIRS}])
        step = sim.step(first_legal(step))   # team preview: leads in team order
        # turn 1: everyone uses Splash, so the foe's moves are known
        splash = move(1) * P + move(0)
        step = sim.step([(d.battle, d.side, splash if d.side == "p1" else move(0) * P + move(0))
                         for d in step.decisions])
        return sim

    def test_the_target_a_move_is_aimed_at_is_the_pokemon_at_that_position(self):
        sim = self.start()
        on_machamp, on_chansey, waiting = move(0, 1) * P + move(0), move(0, 2) * P + move(0), move(1) * P + move(0)
        (found,) = sim.lookahead([("k", "p1")], [[on_machamp, on_chansey, waiting]], play_on=0)
        # Splash on both sides changes nothing: two of ours at full HP, two of theirs
        self.assertEqual(found[2], [0, 0])
        # Psystrike knocks out the level 5 Machamp on the foe's left: a whole Pokemon
        self.assertAlmostEqual(found[0][0], 1.0, places=6)
        # on Chansey, at the foe's right, it only hurts
        self.assertGreater(found[1][0], 0.05)
        self.assertLess(found[1][0], 0.9)
        # played on, Machamp's position stays empty and Mewtwo's next Psystrike lands on Chansey
        (found,) = sim.lookahead([("k", "p1")], [[on_machamp, waiting]], play_on=1)
        self.assertGreater(found[0][0], 1.05)
        self.assertAlmostEqual(found[1][0], 1.0, places=6)   # a turn late: Machamp down then
        # an action the rebuilt battle refuses is refused, not an error
        (found,) = sim.lookahead([("k", "p1")], [[move(3, 1) * P + move(0)]])
        self.assertEqual(found, [[None, None]])
        sim.abort()

    def test_a_fainted_position_stays_where_it_is(self):
        sim = self.start()
        step = sim.step([("k", "p1", move(0, 1) * P + move(0)), ("k", "p2", move(0) * P + move(0))])
        self.assertTrue(step.decisions, "the battle goes on: Chansey is left")
        # the foe's left is down for good (no one left to send in); Psystrike at the right hits Chansey
        (found,) = sim.lookahead([("k", "p1")], [[move(0, 2) * P + move(0), move(1) * P + move(0)]])
        self.assertGreater(found[0][0], found[1][0] + 0.05)
        self.assertAlmostEqual(found[1][0], 1.0, places=6)
        sim.abort()

    def test_random_doubles_look_ahead_without_errors(self):
        for fmt in ("gen9randomdoublesbattle", "gen8randomdoublesbattle"):
            with self.subTest(format=fmt):
                self.check_format(fmt)

    def check_format(self, fmt):
        sim = Simulator("doubles-v1")
        step = sim.start([{"id": f"{fmt}-{i}", "format": fmt, "seed": f"{i},5,5,6"} for i in range(3)])

        def forced_switch(mask):   # no moves for either position
            return not mask.reshape(P, P)[:120].any() and not mask.reshape(P, P)[:, :120].any()
        looked, valued, forced = look_ahead_to_the_end(self, sim, step, 6, forced_switch, play_on=1)
        self.assertGreater(looked, 20)
        self.assertGreater(valued, 2 * looked)
        self.assertGreater(forced, 0)   # the Pokemon sent in after a faint are looked ahead with too
        sim.abort()


class DoublesCandidatesTest(unittest.TestCase):
    """The joint candidates: each position's likeliest actions by the policy's marginals, paired."""

    def decide(self, joint, values, mask=None, **settings):
        player = LookaheadPlayer(StubPolicy([joint.ravel()]), **settings)
        player.game_type = "doubles"       # the stub reads no contract
        state = StubState({("b", "p1"): values})
        mask = np.ones((1, P * P), dtype=np.uint8) if mask is None else mask.reshape(1, -1)
        chosen = int(player.act(Decisions([("b", "p1")], {"action.mask": mask}, state))[0])
        return chosen, state.asked

    def test_pairs_of_each_positions_likeliest_actions_are_looked_at(self):
        joint = np.zeros((P, P))
        left, right = np.zeros(P), np.zeros(P)
        left[[5, 7, 9, 11]] = [0.5, 0.3, 0.15, 0.05]
        right[[1, 2, 3]] = [0.6, 0.38, 0.02]
        joint = np.outer(left, right)
        chosen, asked = self.decide(joint, None, top=3, floor=0.1)
        self.assertEqual(chosen, 5 * P + 1)                    # nothing valued: the policy's best
        (candidates,) = asked[0]
        # left: 5, 7, 9 (11 beyond top); right: 1, 2 (3 below the floor); most probable first
        self.assertEqual(sorted(candidates), sorted(a * P + b for a in (5, 7, 9) for b in (1, 2)))
        self.assertEqual(candidates[0], 5 * P + 1)
        probs = [joint.ravel()[c] for c in candidates]
        self.assertEqual(probs, sorted(probs, reverse=True))

    def test_pairs_the_mask_forbids_are_left_out_and_values_decide(self):
        left, right = np.zeros(P), np.zeros(P)
        left[[120, 121]] = [0.6, 0.4]                          # two switches
        right[[120, 121]] = [0.5, 0.5]
        mask = np.zeros((P, P), dtype=np.uint8)
        mask[120, 121] = mask[121, 120] = 1                     # never both to the same Pokemon
        joint = np.outer(left, right) * mask
        joint /= joint.sum()
        values = [[0.0, 0.0], [1.0, 1.0]]                       # the second pair is a turn better
        chosen, asked = self.decide(joint, values, mask=mask)
        self.assertEqual(asked, [[[120 * P + 121, 121 * P + 120]]])
        self.assertEqual(chosen, 121 * P + 120)


class DoublesLookaheadPlayerTest(unittest.TestCase):
    def test_lookahead_agent_plays_doubles_and_overrules_its_policy_sometimes(self):
        player = make_player("lookahead2:agent", seed=1, fmt="gen9randomdoublesbattle")
        self.assertIsInstance(player, LookaheadPlayer)
        results = list(play(player, make_player("random", 7), "gen9randomdoublesbattle", range(12), seed=3,
                            concurrency=12))
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(r.invalid for r in results), 0)
        self.assertGreaterEqual(sum(r.winner == "a" for r in results), 11)
        self.assertGreater(player.looked, 30)
        self.assertGreater(player.overruled, 0)
        self.assertLess(player.overruled, player.looked)
        self.assertEqual(player.failed, 0)


if __name__ == "__main__":
    unittest.main()
