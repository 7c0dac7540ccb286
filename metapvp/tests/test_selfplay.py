"""Self-play inside the engine (`metapvp selfplay`, metapvp/value/selfplay.py), the value
network's reading of a state (search-rs/src/encoding.rs) and the network's fit (`metapvp
fit-value`, metapvp/value/fit.py): games start where random battles start
(six full-HP Pokémon a side, the leads out), every decision keeps its state and both sides'
visits over the engine's own options, shards are written whole, the same settings give the same
shards, a run resumes from its shards without playing them again, a directory of another run or a
damaged shard is a clear error; the encoding has a row of the right size for every state, ids
inside their embeddings, and names a state it cannot read; the network's value is the same from
either seat, a fit learns its games, resumes from its checkpoint and is judged beside the
engine's evaluation and the linear value; every value experiment file loads."""
import csv
import gzip
import json
import tempfile
import unittest
from pathlib import Path

import numpy as np
import torch

from metapvp import ROOT
from metapvp.arena import play
from metapvp.engine.native import available, native
from metapvp.exe import fit_value as fit_value_cli
from metapvp.exe import selfplay as selfplay_cli
from metapvp.players import make_player
from metapvp.players.native import NativeConfig
from metapvp.training.config import ConfigError
from metapvp.training.leafvalue import difference_by_game
from metapvp.value.dataset import encoded, layout
from metapvp.value.export import load as load_exported
from metapvp.value.fit import load_config
from metapvp.value.fit import run as fit_run
from metapvp.value.network import EngineValue
from metapvp.value.selfplay import (
    RunMismatch,
    SelfPlay,
    finished_shards,
    read_shard,
    run,
    shard_path,
    starts,
)

TINY = SelfPlay(seed=3, iterations=60, sample_turns=2, games_per_shard=3)


@unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
class SelfPlayTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = native()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name) / "r1"
        cls.first = run(cls.dir, TINY, positions=1, threads=2)   # one shard is enough
        cls.games = read_shard(shard_path(cls.dir, 0))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_games_start_where_random_battles_start(self):
        begun = starts(TINY, 0)
        self.assertEqual(len(begun), 3)
        self.assertEqual(len(set(begun)), 3, "three battles, three different starts")
        for state, game in zip(begun, self.games):
            self.assertEqual(game["states"][0], state)
            ints, floats, layout = self.m.encode([state])
            floats = np.frombuffer(floats, np.float32)
            per = layout["slots"] * layout["pokemon_floats"]
            for side in range(2):
                pokemon = floats[side * per:(side + 1) * per].reshape(layout["slots"], layout["pokemon_floats"])
                self.assertTrue((pokemon[:, 0] == 1).all(), "a Pokémon fainted before the first move")
                self.assertTrue((pokemon[:, 1] == 1).all(), "a Pokémon hurt before the first move")
            for options in self.m.options(state):   # five to switch to, and a move at least
                self.assertGreaterEqual(len(options), 6, options)

    def test_every_decision_keeps_its_state_visits_and_winner(self):
        for g in self.games:
            self.assertEqual(len(g["visits"]), len(g["states"]))
            self.assertIn(g["winner"], (0.0, 1.0, None))
            for state, (one, two) in zip(g["states"], g["visits"]):
                self.assertEqual((one[0], two[0]), tuple(self.m.options(state)))
                self.assertEqual(sum(one[1]), TINY.iterations, "side one's visits are the search's iterations")
                self.assertEqual(len(two[1]), len(two[0]))
        won = [g for g in self.games if g["winner"] is not None]
        self.assertEqual(self.first["positions"], sum(len(g["states"]) for g in won))
        self.assertEqual(self.first["total_positions"], self.first["positions"])
        metrics = (self.dir / "metrics.csv").read_text().splitlines()
        self.assertEqual(len(metrics), 2, "one row a shard, below the header")
        self.assertIn("positions_per_s", metrics[0])

    def test_the_same_settings_give_the_same_shard_and_a_run_resumes_from_its_shards(self):
        with tempfile.TemporaryDirectory() as d:
            again = Path(d) / "again"
            run(again, TINY, positions=1, threads=1)
            self.assertEqual(read_shard(shard_path(again, 0)), self.games, "one thread or two, the same games")
            before = shard_path(again, 0).stat().st_mtime_ns
            more = run(again, TINY, positions=self.first["positions"] + 1, threads=2, resume=True)
            self.assertEqual(finished_shards(again), [0, 1])
            self.assertEqual(more["shards"], 1, "the written shard is not played again")
            self.assertEqual(shard_path(again, 0).stat().st_mtime_ns, before)
            self.assertGreater(more["total_positions"], self.first["positions"])
            self.assertNotEqual(read_shard(shard_path(again, 1))[0]["states"][0], self.games[0]["states"][0])

    def test_another_runs_directory_and_a_damaged_shard_are_named(self):
        with self.assertRaisesRegex(RunMismatch, "already holds 1 shards: --resume"):
            run(self.dir, TINY, positions=10)
        with self.assertRaisesRegex(RunMismatch, r"other settings .*'iterations': \(60, 61\)"):
            run(self.dir, SelfPlay(seed=3, iterations=61, sample_turns=2, games_per_shard=3), positions=10, resume=True)
        with tempfile.TemporaryDirectory() as d:
            bad = Path(d) / "shard-000000.jsonl.gz"
            with gzip.open(bad, "wt") as f:
                f.write(json.dumps(self.games[0]) + "\n{not json\n")
            with self.assertRaisesRegex(ValueError, "shard-000000.jsonl.gz, line 2: not a game"):
                read_shard(bad)
            bad.write_bytes(b"not gzip at all")
            with self.assertRaisesRegex(ValueError, "shard-000000.jsonl.gz: not a readable shard"):
                read_shard(bad)
        with self.assertRaisesRegex(ValueError, "iterations must be at least 1"):
            SelfPlay(iterations=0)

    def test_the_command_line_refuses_what_it_cannot_play(self):
        with self.assertRaises(SystemExit):
            selfplay_cli.parse_args([str(self.dir), "--positions", "10", "--sample-turns", "-1"])
        self.assertEqual(selfplay_cli.main([str(self.dir), "--positions", "10", "--seed", "3", "--iterations", "60",
                                            "--sample-turns", "2", "--games-per-shard", "3"]), 2)

    def test_the_encoding_has_a_row_per_state_and_ids_inside_their_embeddings(self):
        states = [s for g in self.games for s in g["states"]]
        ints, floats, layout = self.m.encode(states)
        n_ints = 2 * layout["slots"] * layout["pokemon_ints"]
        n_floats = 2 * layout["slots"] * layout["pokemon_floats"] + 2 * layout["side_floats"] + layout["field_floats"]
        ints = np.frombuffer(ints, np.int32).reshape(len(states), n_ints)
        floats = np.frombuffer(floats, np.float32).reshape(len(states), n_floats)
        self.assertTrue(np.isfinite(floats).all())
        rows = [layout[k] for k in ("species", "items", "abilities", "types", "types", "types", "statuses",
                                    "moves", "moves", "moves", "moves")]
        ids = ints.reshape(len(states), 2 * layout["slots"], layout["pokemon_ints"])
        self.assertTrue(((ids >= 0) & (ids < np.array(rows))).all())
        self.assertGreater(len({r.tobytes() for r in floats}), len(states) // 2, "positions of a game read alike")
        with self.assertRaisesRegex(ValueError, "state 1: not a poke-engine state"):
            self.m.encode([states[0], "nonsense"])


class DifferenceByGameTest(unittest.TestCase):
    """Two values' log-losses compared on the same positions, the games as the units."""

    def test_a_small_case_by_hand(self):
        # games 0, 0, 1 with differences 1, 1, 4: mean 2; the games' sums 2 and 4 against 2 * 2
        # and 1 * 2 leave -2 and 2, so the standard error is sqrt(2 / 1 * 8) / 3 = 4 / 3
        d = difference_by_game(np.array([1.0, 1.0, 4.0]), np.zeros(3), np.array([7, 7, 9]))
        self.assertAlmostEqual(d["difference"], 2.0)
        np.testing.assert_allclose(d["ci95"], [2 - 1.96 * 4 / 3, 2 + 1.96 * 4 / 3])
        self.assertEqual(d["games"], 2)
        same = difference_by_game(np.ones(6), np.ones(6), np.arange(6) // 2)
        self.assertEqual((same["difference"], same["ci95"]), (0.0, [0.0, 0.0]))

    def test_positions_of_one_game_do_not_count_as_independent(self):
        """Each game's 30 positions share one difference: the interval by game is about sqrt(30)
        times wider than one that took the positions apart."""
        rng = np.random.default_rng(0)
        per_game = rng.normal(0.0, 0.05, 200)
        game = np.repeat(np.arange(200), 30)
        a = per_game[game] + rng.normal(0, 0.001, len(game))
        d = difference_by_game(a, np.zeros(len(game)), game)
        width = d["ci95"][1] - d["ci95"][0]
        apart = 2 * 1.96 * a.std() / np.sqrt(len(a))
        self.assertGreater(width / apart, 4, (width, apart))
        self.assertLess(width / apart, 7, (width, apart))


def rows(run: Path) -> list[dict]:
    with open(run / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def swapped(ints: np.ndarray, floats: np.ndarray, lay: dict) -> tuple[np.ndarray, np.ndarray]:
    """Encoded states with the sides swapped: each half of the ids, of the Pokémon's numbers and
    of the sides' numbers exchanged, the field as it was."""
    half = lay["slots"] * lay["pokemon_ints"]
    p, s = lay["slots"] * lay["pokemon_floats"], lay["side_floats"]
    ints = np.concatenate([ints[:, half:], ints[:, :half]], 1)
    floats = np.concatenate([floats[:, p:2 * p], floats[:, :p], floats[:, 2 * p + s:2 * p + 2 * s],
                             floats[:, 2 * p:2 * p + s], floats[:, 2 * p + 2 * s:]], 1)
    return ints, floats


@unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
class ValueFitTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.games = Path(cls.tmp.name) / "games"
        run(cls.games, SelfPlay(seed=4, iterations=40, sample_turns=2, games_per_shard=10), positions=1)
        cls.expt = Path(cls.tmp.name) / "value.yml"
        cls.expt.write_text(f"data: [{cls.games}]\nheld_out_every: 3\nbatch: 32\nepochs: 6\nlog_every: 2\n"
                            "network: {width: 16, species: 8, small: 8}\n")
        cls.fit = Path(cls.tmp.name) / "fit"
        cls.first = fit_run(load_config(cls.expt, ["--epochs", "3"]), cls.fit)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_value_is_the_same_from_either_seat(self):
        states = [s for g in read_shard(shard_path(self.games, 0)) for s in g["states"]][:40]
        lay = layout()
        ints, floats = encoded(states)
        model = EngineValue(lay, width=16, species=8, small=8)
        with torch.no_grad():
            one = model(torch.from_numpy(ints.astype(np.int64)), torch.from_numpy(floats.copy()))
            s_ints, s_floats = swapped(ints, floats, lay)
            two = model(torch.from_numpy(s_ints.astype(np.int64)), torch.from_numpy(s_floats))
        self.assertGreater(one.abs().max().item(), 0, "a value of 0 everywhere is the same from either seat too")
        torch.testing.assert_close(two, -one)
        # the crate's own encoding of the swapped state is the swap above
        flipped = [s.split("/")[1] + "/" + s.split("/")[0] + "/" + "/".join(s.split("/")[2:]) for s in states[:5]]
        f_ints, f_floats = encoded(flipped)
        np.testing.assert_array_equal(f_ints, s_ints[:5])
        np.testing.assert_array_equal(f_floats, s_floats[:5])

    def test_a_fit_learns_its_games_resumes_and_is_judged_beside_todays_values(self):
        out, first, cfg = self.fit, self.first, load_config(self.expt, ["--epochs", "3"])
        self.assertEqual(first["epochs"], 3)
        for name in ("network", "linear", "engine_eval"):
            self.assertTrue(0 < first[name]["log_loss"] < 5, (name, first[name]))
        for name in ("linear", "engine_eval"):   # the network's lead over each, paired position by position
            d = first[f"network_minus_{name}"]
            self.assertAlmostEqual(d["difference"], first["network"]["log_loss"] - first[name]["log_loss"], places=9)
            self.assertLess(d["ci95"][0], d["difference"])
            self.assertLess(d["difference"], d["ci95"][1])
            self.assertGreater(d["games"], 1)
        self.assertGreater(first["held_out_positions"], 0)
        losses = [float(r["value/train_log_loss"]) for r in rows(out) if r["value/train_log_loss"]]
        self.assertLess(np.mean(losses[-3:]), np.mean(losses[:3]), "the training loss did not fall")
        with self.assertRaisesRegex(ConfigError, "holds a fit already: --resume"):
            fit_run(cfg, out)
        more = fit_run(load_config(self.expt, ["--epochs", "4"]), out, resume=True)
        self.assertEqual(more["epochs"], 4)
        self.assertEqual([float(r["epoch"]) for r in rows(out) if r["epoch"]], [1, 2, 3, 4], "epochs 1-3 run again")
        saved = torch.load(out / "value.pt", weights_only=False)
        self.assertEqual(saved["layout"], layout())
        self.assertEqual(fit_value_cli.main([str(self.expt), str(out)]), 2)   # a fit there, no --resume

    def test_the_crate_values_states_as_pytorch_does_and_the_search_reads_it(self):
        """value.json (export.py) read by the crate (valuenet.rs): its forward pass gives
        PyTorch's log-odds on the same states; a search valued by it runs, and differs from one
        valued by the engine's evaluation; a file of another encoding, a missing file and a value
        beside a leaf model are named."""
        m, path = native(), str(self.fit / "value.json")
        states = [s for g in read_shard(shard_path(self.games, 0)) for s in g["states"]][::3]
        model, meta = load_exported(self.fit / "value.json")
        ints, floats = encoded(states)
        with torch.no_grad():
            torch_logits = model(torch.from_numpy(ints.astype(np.int64)), torch.from_numpy(floats.copy())).numpy()
        crate = np.array(m.value_logits(path, states))
        self.assertGreater(np.abs(torch_logits).max(), 0.01)
        np.testing.assert_allclose(crate, torch_logits, atol=2e-4)
        valued = m.search(states[0], iterations=300, seed=2, value=path)
        self.assertEqual(sum(valued["s1"]["visits"]), 300)
        self.assertNotEqual(valued["s1"]["values"], m.search(states[0], iterations=300, seed=2)["s1"]["values"])
        game = m.self_play(states[0], 40, seed=1, value=path, max_turns=3)
        self.assertEqual(len(game["states"]), 3)
        other = json.loads((self.fit / "value.json").read_text())
        other["layout"]["species"] += 1
        wrong = self.fit / "other.json"
        wrong.write_text(json.dumps(other))
        with self.assertRaisesRegex(ValueError, "other.json: written for another encoding: its species is 1456"):
            m.value_logits(str(wrong), states[:1])
        with self.assertRaisesRegex(ValueError, "value network /nonexistent.json"):
            m.search(states[0], iterations=10, value="/nonexistent.json")
        with self.assertRaisesRegex(ValueError, "a leaf model or by a value network, not both"):
            m.search(states[0], iterations=10, value=path, leaf=[0.0] * len(m.feature_names()))
        self.assertEqual(meta["layout"], layout())
        # a native player's leaf= names the file, and plays a battle valuing its leaves by it
        self.assertEqual(NativeConfig(leaf=path).leaf_args(), {"value": path})
        [result] = list(play(make_player(f"mcts(iterations=200,worlds=1,leaf={path})"), make_player("random"),
                             "gen9randombattle", range(1)))
        self.assertEqual((result.error, result.invalid), (None, 0))
        self.assertIn(result.winner, ("a", "b", "tie"))

    def test_every_value_experiment_file_loads_and_a_bad_one_is_named(self):
        files = sorted((ROOT / "expts" / "value").glob("*.yml"))
        self.assertTrue(files)
        for path in files:
            with self.subTest(path.name):
                self.assertTrue(load_config(path)["data"])
        with self.assertRaisesRegex(ConfigError, "unknown setting 'epoch'"):
            load_config(self.expt, ["--epoch", "2"])
        with self.assertRaisesRegex(ConfigError, "held_out_every must be at least 2"):
            load_config(self.expt, ["--held_out_every", "1"])


if __name__ == "__main__":
    unittest.main()
