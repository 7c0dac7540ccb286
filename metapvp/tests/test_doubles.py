"""Doubles. The action table (js/src/doubles.js) against the real simulator: at every decision of
random doubles battles (random doubles in gens 8 and 9, and VGC with its team preview and the
sample teams), joint actions are offered to the simulator -- the allowed ones and as many of
the others -- and its verdict compared with the mask; every allowed action's choice string reads
back as the same action. Then doubles end to end: scripted players on both backends, the
contract's encoding of positions, the gymnasium environment, and a singles contract refused."""
import multiprocessing as mp
import unittest

import numpy as np
from gymnasium.utils.env_checker import check_env

from metapvp import ROOT
from metapvp.arena import play
from metapvp.backends import make_backend
from metapvp.contract import for_format, load
from metapvp.engine import Simulator
from metapvp.gym import PokemonEnv
from metapvp.players import make_player

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


class DoublesBattlesTest(unittest.TestCase):
    def play(self, sim, a, b, fmt, n, teams=None):
        backend = make_backend(sim, for_format(fmt))
        try:
            return list(play(make_player(a, 1), make_player(b, 7), fmt, range(n), seed=3, teams=teams,
                             backend=backend, concurrency=n))
        finally:
            backend.close()

    def check(self, results, n):
        self.assertEqual(len(results), n)
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(r.invalid for r in results), 0)
        self.assertTrue(all(r.winner in ("a", "b", "tie") for r in results))
        return sum(r.winner == "a" for r in results)

    def test_random_doubles_on_both_backends(self):
        for sim, n in (("inprocess", 40), ("stdio", 4)):
            with self.subTest(sim=sim):
                wins = self.check(self.play(sim, "maxdamage", "random", "gen9randomdoublesbattle", n), n)
                self.assertGreaterEqual(wins, n * 3 // 4)

    def test_vgc_with_team_preview(self):
        teams = vgc_teams()
        results = self.play("inprocess", "random", "maxdamage", VGC, 10,
                            teams={"a": teams["p1team"], "b": teams["p2team"]})
        self.check(results, 10)

    def test_a_singles_contract_is_refused_naming_both_game_types(self):
        results = list(play(make_player("random", 1), make_player("random", 2), "gen9randomdoublesbattle", range(2),
                            backend=Simulator("singles-v1")))
        self.assertEqual(len(results), 2)
        for r in results:
            self.assertIn("contract singles-v1 encodes singles battles, this one is doubles", r.error)

    def test_positions_are_encoded_for_both_sides(self):
        sim = Simulator("doubles-v1")
        contract = load("doubles-v1")
        step = sim.start([{"id": "d", "format": "gen9randomdoublesbattle", "seed": "1,2,3,4"}])
        rows = [d.row for d in step.decisions]
        self.assertEqual(len(rows), 2)  # both sides decide the first turn
        pos = step.obs["pokemon.position"][rows]
        flags = step.obs["pokemon.flags"][rows][..., contract.column("pokemon.flags", "active")]
        for row in range(len(rows)):
            # our rows 0 and 1 stand left and right; two of the foe's revealed Pokemon stand too
            np.testing.assert_array_equal(pos[row, 0, :2], np.eye(2))
            self.assertEqual(pos[row, 0, 2:].sum(), 0)
            self.assertEqual(sorted(np.flatnonzero(pos[row, 1].sum(-1))), sorted(np.flatnonzero(flags[row, 1])))
            self.assertEqual(pos[row, 1].sum(0).tolist(), [1.0, 1.0])
        self.assertEqual(step.obs["action.mask"].shape[1], 127 * 127)
        sim.close()

    def test_the_gymnasium_environment(self):
        env = PokemonEnv(format="gen9randomdoublesbattle", opponent="maxdamage", contract="doubles-v1")
        check_env(env, skip_render_check=True)
        obs, _ = env.reset(seed=3)
        rng = np.random.default_rng(0)
        done, steps = False, 0
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done, steps = terminated or truncated, steps + 1
        self.assertIn(info["outcome"], ("win", "loss", "tie"))
        self.assertGreater(steps, 3)
        env.close()

    def test_the_pettingzoo_environment(self):
        from pettingzoo.test import parallel_api_test

        from metapvp.gym.parallel import PokemonParallelEnv
        parallel_api_test(PokemonParallelEnv(format="gen9randomdoublesbattle", contract="doubles-v1"), num_cycles=100)


class DoublesKnowledgeTest(unittest.TestCase):
    def test_damage_lands_on_the_position_and_target_it_names(self):
        """doubles-v2 at VGC's first turn, leads chosen: our left Incineroar (Fake Out, Flare
        Blitz, Knock Off, Parting Shot) against Calyrex-Shadow (left) and Miraidon (right), our
        ally Rillaboom."""
        from metapvp.engine.v8 import context
        sim = Simulator("doubles-v2")
        teams = {side: context().pack_team(team) for side, team in vgc_teams().items()}
        step = sim.start([{"id": "k", "format": VGC, "seed": "1,2,3,4", **teams}])
        leads = 120 * 127 + 121   # rows 0 and 1 lead
        step = sim.step([(d.battle, d.side, leads) for d in step.decisions])
        [row] = [d.row for d in step.decisions if d.side == "p1"]
        damage = step.obs["doubles.move_damage"][row]   # [position, slot, gimmick, target, (expected, ko)]
        fake_out, flare_blitz, knock_off, parting_shot = range(4)
        self.assertEqual(damage[0, fake_out, 0, 0, 0], 0.0)          # Normal on a Ghost
        self.assertGreater(damage[0, fake_out, 0, 1, 0], 0.0)        # on Miraidon it lands
        self.assertGreater(damage[0, knock_off, 0, 0, 0], 2 * damage[0, knock_off, 0, 1, 0])  # Dark: 4x on Calyrex
        self.assertGreater(damage[0, flare_blitz, 0, 2, 0], 0.5)     # Fire on our Grass ally
        self.assertEqual(damage[0, parting_shot].sum(), 0.0)        # a status move
        self.assertGreater(damage[0, knock_off, 1, 0, 0], 0.0)       # with Terastallization too
        self.assertEqual(damage[0, knock_off, 2:].sum(), 0.0)        # no other gimmick in gen 9
        self.assertTrue(((damage >= 0) & (damage <= 1)).all())
        best = step.obs["doubles.best_hit"][row]
        self.assertEqual(best[0], damage[0, :, 0, :2, 0].max())      # the leads' best hit, from the same numbers
        sim.close()


class DoublesNetworkTest(unittest.TestCase):
    def test_a_fresh_network_plays_only_legal_pairs_and_survives_its_model_file(self):
        for name in ("doubles-v1", "doubles-v2"):
            with self.subTest(contract=name):
                self.check_network(name)

    def check_network(self, name):
        import tempfile
        from pathlib import Path

        import torch

        from metapvp.models import load_model, new_model, save_model, to_tensors
        from metapvp.models.doubles import DoublesPolicyNet
        from metapvp.players.neural import NeuralPlayer
        contract = load(name)
        torch.manual_seed(0)
        net = new_model(contract).eval()
        self.assertIsInstance(net, DoublesPolicyNet)
        self.assertEqual(net.doubles_knowledge, name == "doubles-v2")
        sim = Simulator(name)
        step = sim.start([{"id": f"n{i}", "format": "gen9randomdoublesbattle", "seed": f"{i},2,3,4"} for i in range(4)])
        rows = [d.row for d in step.decisions]
        obs = to_tensors({k: v[rows] for k, v in step.obs.items()})
        with torch.no_grad():
            probs = torch.softmax(net(obs)[0], -1)
        mask = obs["action.mask"].bool()
        self.assertEqual(probs[~mask].sum().item(), 0.0)
        torch.testing.assert_close(probs.sum(-1), torch.ones(len(rows)))
        with tempfile.TemporaryDirectory() as tmp:
            path = save_model(Path(tmp) / "d.zip", net, contract)
            again, _ = load_model(path)
            with torch.no_grad():
                torch.testing.assert_close(torch.softmax(again(obs)[0], -1), probs)
        sim.close()
        results = list(play(NeuralPlayer(net, name="fresh", seed=1, contract=name), make_player("random", 2),
                            "gen9randomdoublesbattle", range(8), seed=1, concurrency=8))
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(r.invalid for r in results), 0)

    def test_the_search_and_the_lookahead_take_a_doubles_model_a_singles_only_player_refuses_it(self):
        import tempfile
        from pathlib import Path

        from metapvp.models import new_model, save_model
        from metapvp.players.base import GuidedPlayer
        contract = load("doubles-v1")
        with tempfile.TemporaryDirectory() as tmp:
            path = save_model(Path(tmp) / "d.zip", new_model(contract), contract)
            self.assertEqual(make_player(f"search16:{path}").game_type, "doubles")
            self.assertEqual(make_player(f"lookahead2:{path}").game_type, "doubles")

            class SinglesOnly(GuidedPlayer):   # a guided player that says nothing of doubles
                pass
            with self.assertRaisesRegex(ValueError, "SinglesOnly plays singles battles; its model reads doubles-v1"):
                SinglesOnly(make_player(str(path)))


if __name__ == "__main__":
    unittest.main()
