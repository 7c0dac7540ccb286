"""A failing battle fails alone: a player that raises in some battles makes those battles errors
with its reason, and every other battle of the share is played, in a batch of battles
(arena.play) and in a whole run of worker processes (arena.runner, as head2head.py plays)."""
import unittest

from metapvp.arena import RunConfig, play, run
from metapvp.players import Player, RandomPlayer

FAULTY = {"h2h-3", "h2h-6"}   # the battles the faulty player raises in


class FaultyPlayer(Player):
    """Random, but raises whenever a battle of FAULTY is among its decisions."""
    name = "faulty"

    def __init__(self, seed=None):
        self.random = RandomPlayer(seed)

    def act(self, decisions, greedy=False):
        bad = sorted({battle for battle, _ in decisions.keys} & FAULTY)
        if bad:
            raise RuntimeError(f"cannot decide in {bad[0]}")
        return self.random.act(decisions)


def faulty():
    """For specs: ,metapvp.tests.test_failures.faulty"""
    return FaultyPlayer(seed=7)


class FailingBattleTest(unittest.TestCase):
    def test_a_raising_player_fails_only_its_battles(self):
        results = list(play(FaultyPlayer(1), RandomPlayer(2), "gen9randombattle", range(8), seed=4, concurrency=8))
        failed = {r.battle: r.error for r in results if r.winner is None}
        self.assertEqual(set(failed), FAULTY)
        for battle, error in failed.items():
            self.assertIn(f"cannot decide in {battle}", error)
            self.assertIn("player faulty raised", error)
        played = [r for r in results if r.winner is not None]
        self.assertEqual(len(played), 6)
        self.assertTrue(all(r.turns > 0 and r.error is None for r in played))

    def test_a_run_counts_each_failed_battle_and_plays_the_rest(self):
        cfg = RunConfig(p1=",metapvp.tests.test_failures.faulty", p2="random", num_matches=10, workers=1,
                        concurrency=10, seed=4, quiet=True)
        result = run(cfg)
        self.assertEqual((result["matches"], result["errors"]), (8, 2))
        self.assertEqual(len(result["error_messages"]), 2)
        self.assertTrue(all("RuntimeError: cannot decide in h2h-" in m for m in result["error_messages"]))
        self.assertEqual(result["p1_wins"] + result["p2_wins"] + result["ties"], 8)
