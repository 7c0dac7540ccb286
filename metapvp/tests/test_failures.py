"""A failing battle fails alone: a player that raises in some battles makes those battles errors
with its reason, and every other battle is played: in a batch of battles (arena.play), in a
whole run of worker processes (arena.runner, as head2head.py plays), and in training's rollouts."""
import os
import unittest

from metapvp.arena import RunConfig, play, run
from metapvp.players import Player, RandomPlayer

FAULTY = ("-3", "-6")   # the faulty player raises in battles whose id ends so (h2h-3, w0-6...)


class FaultyPlayer(Player):
    """Random, but raises whenever a battle ending in FAULTY is among its decisions."""
    name = "faulty"

    def __init__(self, seed=None):
        self.random = RandomPlayer(seed)

    def act(self, decisions, greedy=False):
        bad = sorted({battle for battle, _ in decisions.keys if battle.endswith(FAULTY)})
        if bad:
            raise RuntimeError(f"cannot decide in {bad[0]}")
        return self.random.act(decisions)


def faulty():
    """For specs: ,metapvp.tests.test_failures.faulty"""
    return FaultyPlayer(seed=7)


class DyingPlayer(RandomPlayer):
    """Random, but ends its whole process, as an uncaught panic of a native module or the kernel's
    OOM killer would, once it has to decide in battle 5."""

    def act(self, decisions, greedy=False):
        if any(battle.endswith("-5") for battle, _ in decisions.keys):
            os._exit(3)
        return super().act(decisions, greedy)


def dying():
    """For specs: ,metapvp.tests.test_failures.dying"""
    return DyingPlayer(seed=7)


class FailingBattleTest(unittest.TestCase):
    def test_a_raising_player_fails_only_its_battles(self):
        results = list(play(FaultyPlayer(1), RandomPlayer(2), "gen9randombattle", range(8), seed=4, concurrency=8))
        failed = {r.battle: r.error for r in results if r.winner is None}
        self.assertEqual(set(failed), {"h2h-3", "h2h-6"})
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

    def test_a_worker_that_dies_is_reported_lost_and_the_other_plays_its_share(self):
        """A worker process that ends without a word (nothing it could catch) is named in the
        results and counted lost, where its unplayed battles once went missing without a trace."""
        cfg = RunConfig(p1=",metapvp.tests.test_failures.dying", p2="random", num_matches=8, workers=2,
                        concurrency=1, seed=4, quiet=True)
        result = run(cfg)
        self.assertEqual(result["lost_workers"], 1)
        self.assertEqual(result["errors"], 1)
        self.assertIn("worker 1 died (exit code 3)", result["error_messages"][0])
        # worker 0's battles 0, 2, 4, 6 and worker 1's 1 and 3, played before battle 5 killed it
        self.assertEqual(result["matches"], 6)

    def test_a_raising_baseline_in_training_ends_only_its_battles(self):
        import tempfile

        from metapvp import ROOT
        from metapvp.training.config import load_expt
        from metapvp.training.rollout import Matchup, RolloutWorker
        from metapvp.training.trainer import Trainer
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--rollout.decisions_per_worker", "300"])
        with tempfile.TemporaryDirectory() as tmp:
            plan = Trainer(cfg, tmp).plans(1)[0]
        plan["matchups"] = [Matchup("baseline", "main", ",metapvp.tests.test_failures.faulty")]
        plan["shares"] = [1.0]
        worker = RolloutWorker(cfg)
        try:
            rollout = worker.collect(plan)
        finally:
            worker.close()
        self.assertEqual(sorted(e.split(":")[0] for e in rollout.errors), ["w0-3", "w0-6"])
        self.assertTrue(all("cannot decide in" in e for e in rollout.errors), rollout.errors)
        self.assertGreaterEqual(len(rollout.actions), 200)   # the other battles' transitions
