"""Model players by spec: ensembles (MODEL+MODEL) and temperatures (MODEL@T)."""
import tempfile
import unittest
from pathlib import Path

import numpy as np
import torch

from metapvp.arena import play
from metapvp.contract import load
from metapvp.engine import Simulator
from metapvp.models import ModelError, new_model, save_model
from metapvp.players import SpecError, make_player
from metapvp.players.base import Decisions
from metapvp.players.neural import load_player
from metapvp.players.spec import spec_list


class SpecListTest(unittest.TestCase):
    def test_specs_in_a_row_split_at_the_commas_outside_a_searchs_settings(self):
        self.assertEqual(spec_list("native(iterations=1000,uniform=0.5):agent, mcts,agent@0"),
                         ["native(iterations=1000,uniform=0.5):agent", "mcts", "agent@0"])
        self.assertEqual(spec_list("heuristic"), ["heuristic"])
        self.assertEqual(spec_list("a,,b,"), ["a", "b"])
        for bad, said in (("native(iterations=1000:agent,mcts", "never closed"), ("mcts),agent", "no '\\(' before")):
            with self.subTest(specs=bad), self.assertRaisesRegex(SpecError, said):
                spec_list(bad)


class ModelPlayerSpecTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        v2 = load("singles-v2")
        torch.manual_seed(0)
        cls.a = str(save_model(Path(cls.tmp.name) / "a.zip", new_model(v2), v2, format="gen9randombattle"))
        cls.b = str(save_model(Path(cls.tmp.name) / "b.zip", new_model(v2), v2, format="gen9randombattle"))
        v1 = load("singles-v1")
        cls.v1 = str(save_model(Path(cls.tmp.name) / "v1.zip", new_model(v1), v1, format="gen9randombattle"))
        sim = Simulator("singles-v2")
        try:
            step = sim.start([{"id": f"e{i}", "format": "gen9randombattle", "seed": f"5,2,7,{i}"} for i in range(6)])
            rows = [d.row for d in step.decisions]
            cls.obs = {k: v[rows] for k, v in step.obs.items()}
            cls.legal = cls.obs["action.mask"] > 0
        finally:
            sim.close()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def probs(self, spec):
        return make_player(spec, seed=0).evaluate(self.obs)

    def test_an_ensemble_averages_its_models_probabilities(self):
        (pa, wa), (pb, wb) = self.probs(self.a), self.probs(self.b)
        self.assertGreater(np.abs(pa - pb).max(), 1e-3)  # two different networks
        p, w = self.probs(f"{self.a}+{self.b}")
        np.testing.assert_allclose(p, (pa + pb) / 2, atol=1e-6)
        np.testing.assert_allclose(w, (wa + wb) / 2, atol=1e-6)
        self.assertTrue((p[~self.legal] == 0).all())
        same, _ = self.probs(f"{self.a}+{self.a}")
        np.testing.assert_allclose(same, pa, atol=1e-6)

    def test_a_temperature_sharpens_or_flattens_and_zero_is_the_best_action(self):
        p1, _ = self.probs(self.a)
        half, _ = self.probs(f"{self.a}@0.5")
        expect = p1 ** 2 / (p1 ** 2).sum(-1, keepdims=True)
        np.testing.assert_allclose(half, expect, atol=1e-5)
        zero, _ = self.probs(f"{self.a}+{self.b}@0")
        mean = (p1 + self.probs(self.b)[0]) / 2
        np.testing.assert_array_equal(zero.argmax(-1), mean.argmax(-1))
        np.testing.assert_array_equal(zero.sum(-1), np.ones(len(zero)))
        player = make_player(f"{self.a}@0", seed=4)
        keys = [(f"e{i}", "p1") for i in range(len(p1))]
        for _ in range(3):  # every draw is the best action
            np.testing.assert_array_equal(player.act(Decisions(keys, self.obs, None)), p1.argmax(-1))

    def test_bad_specs_are_clear_errors(self):
        for spec, says in ((f"{self.a}@hot", "not a temperature"), (f"{self.a}@-1", ">= 0"),
                           ("heuristic@0", "'heuristic' is not a model file"),
                           (f"{self.a}+nowhere.zip", "'nowhere.zip' is not a model file"),
                           ("agent:gen1ou+agent", "no model is shipped for format 'gen1ou'")):
            with self.assertRaises(SpecError, msg=spec) as e:
                make_player(spec)
            self.assertIn(says, str(e.exception))
        with self.assertRaises(ModelError) as e:
            make_player(f"{self.a}+{self.v1}")
        self.assertIn("singles-v1", str(e.exception))
        self.assertIn("singles-v2", str(e.exception))

    def test_the_shipped_ensemble_plays_whole_battles(self):
        player = load_player(["static/models/gen9randombattle.zip"] * 2, seed=1, temperature=0)
        self.assertEqual(player.contract, "singles-v2")
        results = list(play(player, make_player("random", 2), "gen9randombattle", range(8), seed=5,
                            concurrency=8))
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(r.invalid for r in results), 0)
        self.assertGreaterEqual(sum(r.winner == "a" for r in results), 7)


if __name__ == "__main__":
    unittest.main()
