"""The policy network, PPO pieces, model files and the training script, on real battles."""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings
import zipfile
from pathlib import Path

import numpy as np
import torch

from metapvp import ROOT
from metapvp.contract import CONTRACTS, load
from metapvp.engine import Simulator
from metapvp.engine.native import available as native_available
from metapvp.exe import integrated_rl_script
from metapvp.models import ModelError, load_model, new_model, save_model, to_tensors
from metapvp.models.modelfile import read_metadata, update_metadata
from metapvp.players import make_player
from metapvp.players.neural import load_player
from metapvp.players.spec import SHIPPED_MODELS, shipped_model
from metapvp.training import imitation, lineage
from metapvp.training.config import ConfigError, learner_threads, load_expt, parse_overrides
from metapvp.training.league import Elo, League, matchups_for
from metapvp.training.pool import WorkerError
from metapvp.training.ppo import gae
from metapvp.training.rewards import outcome_reward, shaped_reward
from metapvp.training.rollout import Matchup, RolloutWorker
from metapvp.training.trainer import RETIRE_AFTER, Trainer, TrainingError
from metapvp.training.workers import WorkerPool


def real_decisions(battles=24, privileged=False, contract=None):
    """Observations of real decision points: battle starts and a few random turns."""
    sim = Simulator(contract)
    step = sim.start([{"id": f"t{i}", "format": "gen9randombattle", "seed": f"5,6,7,{i}",
                       "privileged": privileged} for i in range(battles)])
    rng = np.random.default_rng(0)
    for _ in range(6):  # some turns in, so forced switches and fainted Pokemon appear
        acts = [(d.battle, d.side, int(rng.choice(np.flatnonzero(step.obs["action.mask"][d.row]))))
                for d in step.decisions]
        step = sim.step(acts)
    rows = [d.row for d in step.decisions]
    obs = {k: np.ascontiguousarray(v[rows]) for k, v in step.obs.items()}
    priv_rows = [d.priv for d in step.decisions]
    priv = {k: np.ascontiguousarray(v[priv_rows]) for k, v in step.obs.items()} if privileged else None
    sim.abort()
    return obs, priv


class NetworkTest(unittest.TestCase):
    contract_name = "singles-v1"

    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.contract = load(cls.contract_name)
        cls.model = new_model(cls.contract).eval()
        cls.obs, cls.priv = real_decisions(privileged=True, contract=cls.contract_name)

    def test_masked_head_gives_illegal_actions_no_probability(self):
        with torch.no_grad():
            logits, value, win = self.model(to_tensors(self.obs), to_tensors(self.priv))
        probs = torch.softmax(logits, -1).numpy()
        mask = self.obs["action.mask"].astype(bool)
        self.assertTrue((~mask).any() and mask.any())
        self.assertEqual(probs[~mask].max(), 0.0)
        np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-5)
        draws = torch.multinomial(torch.softmax(logits, -1), 200, replacement=True).numpy()
        self.assertTrue(mask[np.arange(len(mask))[:, None], draws].all())
        self.assertEqual(value.shape, (len(mask),))
        self.assertEqual(win.shape, (len(mask),))

    def test_actor_ignores_privileged_input(self):
        with torch.no_grad():
            with_priv, v1, _ = self.model(to_tensors(self.obs), to_tensors(self.priv))
            without, v0, _ = self.model(to_tensors(self.obs))
        torch.testing.assert_close(with_priv, without)
        self.assertFalse(torch.allclose(v1, v0))  # the critic does read it

    def test_torchscript_matches_eager(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # torch 2.13 deprecates jit.script
            warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated")
            scripted = torch.jit.script(self.model)
        with torch.no_grad():
            a = self.model(to_tensors(self.obs), to_tensors(self.priv))
            b = scripted(to_tensors(self.obs), to_tensors(self.priv))
        for x, y in zip(a, b):
            torch.testing.assert_close(x, y)

    def test_torch_export_with_any_batch_size_matches_eager(self):
        """The actor's inference graph exports (torch.export, the successor of TorchScript)
        with a dynamic batch dimension: exported on a few rows, it runs on all of them."""
        obs = to_tensors(self.obs)
        batch = torch.export.Dim("batch", min=1, max=4096)
        few = {k: v[:3] for k, v in obs.items()}
        exported = torch.export.export(self.model, (few,), dynamic_shapes=({k: {0: batch} for k in obs},))
        with torch.no_grad():
            for x, y in zip(self.model(obs), exported.module()(obs)):
                torch.testing.assert_close(x, y)

    def test_model_file_round_trip_and_contract_hash(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = save_model(Path(tmp) / "m.zip", self.model, self.contract, format="gen9randombattle", steps=7)
            with zipfile.ZipFile(path) as z:
                self.assertEqual(sorted(z.namelist()), ["metadata.json", "obs_norm.pt", "weights.pt"])
                meta = json.loads(z.read("metadata.json"))
            self.assertEqual(meta["contract"], {"name": self.contract_name, "hash": self.contract.hash})
            self.assertEqual((meta["preset"], meta["steps"]), ("small", 7))
            loaded, _ = load_model(path)
            with torch.no_grad():
                torch.testing.assert_close(loaded(to_tensors(self.obs))[0], self.model(to_tensors(self.obs))[0])
            # the same file, but recording another contract's hash, is refused
            bad = Path(tmp) / "other-contract.zip"
            with zipfile.ZipFile(path) as src, zipfile.ZipFile(bad, "w") as dst:
                for name in src.namelist():
                    data = src.read(name)
                    if name == "metadata.json":
                        meta["contract"]["hash"] = "0" * 64
                        data = json.dumps(meta).encode()
                    dst.writestr(name, data)
            with self.assertRaisesRegex(ModelError, "hash 000000000000.*cannot play here"):
                load_player(bad)
            with self.assertRaisesRegex(ModelError, "hash"):
                make_player(str(bad))
            (Path(tmp) / "junk.zip").write_bytes(b"not a zip")
            with self.assertRaisesRegex(ModelError, "not a model file"):
                load_model(Path(tmp) / "junk.zip")


class NetworkV2Test(NetworkTest):
    """The same checks on singles-v2, whose network also reads the battle knowledge."""
    contract_name = "singles-v2"

    def test_knowledge_features_change_the_policy(self):
        self.assertTrue(self.model.knowledge)
        obs = to_tensors(self.obs)
        with torch.no_grad():
            before = self.model(obs)[0]
            obs["move.damage"] = obs["move.damage"] * 0
            after = self.model(obs)[0]
        legal = to_tensors(self.obs)["action.mask"] > 0
        self.assertGreater((before - after)[legal].abs().max().item(), 1e-4)


class CheckpointAverageTest(unittest.TestCase):
    def test_checkpoints_average_to_one_model(self):
        """metapvp/exe/average_checkpoints.py: the weights are the mean of the inputs', the
        observation statistics the newest's; checkpoints of different networks are refused."""
        torch.manual_seed(1)
        contract = load("singles-v2")
        mine_model, other = new_model(contract).eval(), new_model(contract).eval()
        other.global_norm.mean.add_(3.0)
        with tempfile.TemporaryDirectory() as tmp:
            a = save_model(Path(tmp) / "model-000010.zip", mine_model, contract, format="gen9randombattle")
            b = save_model(Path(tmp) / "model-000020.zip", other, contract, format="gen9randombattle")
            average = [sys.executable, str(ROOT / "metapvp/exe/average_checkpoints.py")]
            run = subprocess.run(average + [str(Path(tmp) / "avg.zip"), str(a), str(b)], capture_output=True, text=True,
                                 timeout=120)
            self.assertEqual(run.returncode, 0, run.stderr)
            avg, meta = load_model(Path(tmp) / "avg.zip")
            self.assertEqual(meta["averaged_from"], ["model-000010.zip", "model-000020.zip"])
            mine, theirs, got = mine_model.state_dict(), other.state_dict(), avg.state_dict()
            for name in ("global_norm.mean", "global_norm.var"):
                torch.testing.assert_close(got[name], theirs[name])
            weights = [k for k, v in got.items()
                       if v.is_floating_point() and not k.startswith(("global_norm.", "pokemon_norm."))]
            self.assertTrue(any(not torch.equal(mine[k], theirs[k]) for k in weights))
            for k in weights:
                torch.testing.assert_close(got[k], (mine[k] + theirs[k]) / 2)
            big = save_model(Path(tmp) / "big.zip", new_model(contract, "medium"), contract)
            run = subprocess.run(average + [str(Path(tmp) / "x.zip"), str(a), str(big)], capture_output=True, text=True,
                                 timeout=120)
            self.assertEqual(run.returncode, 2)
            self.assertIn("only checkpoints of one network can be averaged", run.stderr)


class PPOPiecesTest(unittest.TestCase):
    def test_gae_matches_hand_computation(self):
        # gamma 0.9, lambda 0.8; the battle ends after the third step:
        # d2 = 1 - 0.6 = 0.4                      A2 = 0.4
        # d1 = 0 + 0.9 * 0.6 - 0.4 = 0.14         A1 = 0.14 + 0.72 * 0.4 = 0.428
        # d0 = 0 + 0.9 * 0.4 - 0.5 = -0.14        A0 = -0.14 + 0.72 * 0.428 = 0.16816
        adv, ret = gae([0, 0, 1], [0.5, 0.4, 0.6], [0, 0, 1], last_value=123.0, gamma=0.9, lam=0.8)
        np.testing.assert_allclose(adv, [0.16816, 0.428, 0.4])
        np.testing.assert_allclose(ret, [0.66816, 0.828, 1.0])
        # cut short instead: the last step bootstraps from last_value = 0.5
        # d2 = 1 + 0.45 - 0.6 = 0.85; A1 = 0.14 + 0.72 * 0.85 = 0.752; A0 = -0.14 + 0.72 * 0.752
        adv, _ = gae([0, 0, 1], [0.5, 0.4, 0.6], [0, 0, 0], last_value=0.5, gamma=0.9, lam=0.8)
        np.testing.assert_allclose(adv, [-0.14 + 0.72 * 0.752, 0.752, 0.85])

    def test_rewards_on_known_numbers(self):
        w = {"win": 1.0, "damage_dealt": 0.1, "damage_taken": 0.2, "faint_dealt": 0.5, "faint_taken": 0.25}
        self.assertEqual((outcome_reward("p1", "p1", w), outcome_reward("p2", "p1", w), outcome_reward("", "p1", w)),
                         (1.0, -1.0, 0.0))
        # features: own HP, foe HP (whole Pokemon), own fainted, foe fainted
        before, after = np.array([5.0, 4.0, 1.0, 2.0]), np.array([4.5, 3.0, 1.0, 3.0])
        # the foe lost 1.0 HP and a Pokemon, we lost 0.5 HP: 0.1 * 1 - 0.2 * 0.5 + 0.5 * 1 - 0
        self.assertAlmostEqual(shaped_reward(before, after, w), 0.5)
        self.assertAlmostEqual(shaped_reward(after, after, w), 0.0)

    def test_league_sampling_and_quality(self):
        league = League(max_snapshots=3, quality_lr=0.1)
        for i in range(4):
            league.add(f"s{i}.zip", f"s{i}", i)
        self.assertEqual([s["name"] for s in league.snapshots], ["s1", "s2", "s3"])
        league.record("s2.zip", 1.0)  # beaten: s2 becomes less likely
        p = league.probabilities()
        self.assertLess(p[1], p[0])
        self.assertAlmostEqual(p[0], p[2])
        picks = league.sample(2, np.random.default_rng(0))
        self.assertEqual(len({s["name"] for s in picks}), 2)
        # beaten over and over, a snapshot's probability shrinks but never reaches 0: the league
        # still has as many distinct snapshots to draw as it holds
        for _ in range(200):
            league.record("s2.zip", 1.0)
            league.record("s3.zip", 1.0)
        p = league.probabilities()
        self.assertTrue((p > 0).all(), p)
        self.assertLess(p[1], 1e-9)
        picks = league.sample(3, np.random.default_rng(1))
        self.assertEqual(len({s["name"] for s in picks}), 3)

    def test_match_making_splits_the_opponent_shares(self):
        """league.matchups_for: each kind of opponent gets its share, split among its members;
        the past selves' share goes to self-play while the league is empty."""
        cfg = {"opponents": {"pure": 0.4, "past": 0.2, "target": 0.1, "baseline": 0.2, "exploiter": 0.1},
               "targets": ["t.zip"], "baselines": ["random", "maxdamage"]}
        snaps = [{"path": "s1.zip"}, {"path": "s2.zip"}]
        matchups, shares = matchups_for(cfg, snaps)
        got = {(m.kind, m.learner, m.opponent): w for m, w in zip(matchups, shares)}
        self.assertEqual(got, {("pure", "main", "main"): 0.4, ("past", "main", "s1.zip"): 0.1,
                               ("past", "main", "s2.zip"): 0.1, ("target", "main", "t.zip"): 0.1,
                               ("baseline", "main", "random"): 0.1, ("baseline", "main", "maxdamage"): 0.1,
                               ("exploiter", "exploiter", "main"): 0.1})
        matchups, shares = matchups_for(cfg, [])
        self.assertAlmostEqual(dict(zip([m.kind for m in matchups], shares))["pure"], 0.6)
        self.assertEqual(cfg["opponents"]["past"], 0.2)   # the experiment's own shares are left as they were

    def test_elo_anchor_and_updates(self):
        elo = Elo(anchors={"random": 1000.0})
        for _ in range(50):
            elo.update("main", "random", 1.0)
        self.assertEqual(elo.ratings["random"], 1000.0)
        self.assertGreater(elo.ratings["main"], 1200)


class ConfigTest(unittest.TestCase):
    def test_every_shipped_experiment_file_loads(self):
        # the README's recipes and benchmarks, and the lab's (expts/lab/): a key renamed in
        # DEFAULTS must not strand one
        files = sorted((ROOT / "expts").glob("*.yml")) + sorted((ROOT / "expts" / "lab").glob("*.yml"))
        self.assertIn(ROOT / "expts" / "quick-warm.yml", files)
        contracts = {p.stem for p in CONTRACTS.glob("*.json")}
        for path in files:
            with self.subTest(path.name):
                self.assertIn(load_expt(path)["contract"], contracts)

    def test_import_override_and_errors(self):
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--ppo.learning_rate", "1e-4", "--seed=3"])
        self.assertEqual(cfg["ppo"]["learning_rate"], 1e-4)
        self.assertEqual(cfg["seed"], 3)
        self.assertEqual(cfg["rewards"]["damage_dealt"], 0.1)   # from base.yml
        self.assertEqual(cfg["total_decisions"], 1200)           # smoke.yml overrides base.yml
        self.assertEqual(cfg["ppo"]["gamma"], 0.99)              # a default
        with self.assertRaisesRegex(ConfigError, "unknown setting 'ppo.learning_rat'"):
            load_expt(ROOT / "expts" / "smoke.yml", ["--ppo.learning_rat", "1"])
        with self.assertRaisesRegex(ConfigError, "no experiment file"):
            load_expt("expts/nope.yml")
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "bad.yml"
            bad.write_text("import: bad.yml\n")
            with self.assertRaisesRegex(ConfigError, "import cycle"):
                load_expt(bad)
            bad.write_text("opponents: {pure: 0, past: 0}\n")
            with self.assertRaisesRegex(ConfigError, "not all 0"):
                load_expt(bad)
        self.assertEqual(parse_overrides(["--a.b", "[1, 2]"]), {"a": {"b": [1, 2]}})

    def test_learner_threads_leave_the_workers_their_cores(self):
        cores = len(os.sched_getaffinity(0))
        smoke = ROOT / "expts" / "smoke.yml"
        self.assertEqual(learner_threads(load_expt(smoke, ["--workers", "2"])), max(1, cores - 2))
        self.assertEqual(learner_threads(load_expt(smoke, ["--workers", "2", "--rollout.overlap", "false"])), cores)
        self.assertEqual(learner_threads(load_expt(smoke, ["--workers", "0"])), cores)
        self.assertEqual(learner_threads(load_expt(smoke, ["--workers", "2", "--torch_threads", "3"])), 3)


class WorkerPoolTest(unittest.TestCase):
    def test_submitted_rollout_comes_back_and_close_reaps_a_busy_worker(self):
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--rollout.decisions_per_worker", "60"])
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(cfg, tmp)
            pool = WorkerPool(cfg, 1)
            procs = list(pool.procs)
            try:
                pool.submit("collect", trainer.plans(1))
                with self.assertRaisesRegex(RuntimeError, "'collect' is still running"):
                    pool.submit("collect", trainer.plans(1))
                [rollout] = pool.gather()
                self.assertGreaterEqual(rollout.decisions, 60)
                self.assertEqual(len(rollout.actions), len(rollout.records))
                self.assertEqual(rollout.errors, [])
                pool.submit("collect", trainer.plans(1))   # still collecting when closed
            finally:
                pool.close()
            self.assertTrue(procs and not any(p.is_alive() for p in procs))
            self.assertEqual([p.exitcode for p in procs], [0])


    def test_after_a_worker_fails_the_others_replies_are_not_taken_for_later_ones(self):
        cfg = load_expt(ROOT / "expts" / "smoke.yml")
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(cfg, tmp)
            good = {"weights": {"main": trainer.learners["main"].weights()}, "learner": "main",
                    "opponent": "random", "indices": [0, 1], "seed": 1}
            pool = WorkerPool(cfg, 2)
            try:
                with self.assertRaisesRegex(WorkerError, "rollout worker 0 failed"):
                    pool.run("evaluate", [{**good, "learner": "nobody"}, good])
                self.assertEqual(pool.run("reset", [None, None]), [0, 0])
            finally:
                pool.close()

    def test_a_snapshot_that_cannot_be_read_fails_only_its_battles(self):
        # a league snapshot deleted under a worker (it was dropped from the league while a plan
        # still named it): its battles are given up and reported, the others go on
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--rollout.decisions_per_worker", "200"])
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(cfg, tmp)
            plan = trainer.plans(1)[0]
            plan["matchups"] = [Matchup("pure", "main", "main"), Matchup("past", "main", f"{tmp}/gone.zip")]
            plan["shares"] = [0.5, 0.5]
            worker = RolloutWorker(cfg)
            try:
                rollout = worker.collect(plan)
            finally:
                worker.close()
            self.assertGreater(len(rollout.actions), 100)  # (open segments keep their last one)
            self.assertTrue(rollout.errors and all("no model file" in e for e in rollout.errors), rollout.errors)

    def test_dropped_snapshots_outlive_the_plans_that_name_them(self):
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--league.max_snapshots", "2"])
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(cfg, tmp)
            first = None
            for u in range(1, 25):
                trainer.updates = u
                trainer.snapshot("main")
                first = first or trainer.league.snapshots[0]["path"]
                if u <= 2 + RETIRE_AFTER:  # dropped at update 3, kept RETIRE_AFTER updates more
                    self.assertTrue(Path(first).exists(), u)
            self.assertFalse(Path(first).exists())
            self.assertEqual(len(list((Path(tmp) / "league").glob("*.zip"))), 2 + RETIRE_AFTER)


class ImitationTest(unittest.TestCase):
    def test_warm_start_learns_the_teacher_and_beats_random(self):
        # a short warm start on heuristic's choices, in the learner's process (workers 0), then
        # two PPO updates pulled towards the teacher with a fading weight
        cfg = load_expt(ROOT / "expts" / "smoke.yml", [
            "--workers", "0", "--total_decisions", "600", "--pretrain.decisions", "6000",
            "--pretrain.epochs", "4", "--pretrain.minibatch_size", "256", "--pretrain.chunk", "3000",
            "--pretrain.kl_coef", "0.5", "--pretrain.kl_updates", "4", "--opponents.exploiter", "0",
            "--eval.every", "1000", "--eval.battles", "40", "--eval.opponents", "[random]",
            "--eval.league_latest", "0"])
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(cfg, Path(tmp) / "run")
            trainer.train()
            with open(Path(tmp) / "run" / "metrics.csv", newline="") as f:
                rows = list(csv.DictReader(f))
            pre = [r for r in rows if r.get("pretrain/epoch")]
            held = [float(r["pretrain/holdout_imitation_loss"]) for r in pre]
            self.assertEqual([int(float(r["pretrain/epoch"])) for r in pre], [0, 1, 2, 3, 4])
            # held-out teacher decisions: the loss falls, and most choices match the teacher's
            self.assertLess(held[-1], held[0] * 0.7, held)
            self.assertGreater(float(pre[-1]["pretrain/holdout_accuracy"]), 0.5)
            # the warm-started policy, evaluated before any PPO update, beats Random
            first = next(r for r in rows if r.get("eval/winrate_random"))
            self.assertGreaterEqual(float(first["eval/winrate_random"]), 0.75)
            # then PPO, pulled towards the teacher with the fading weight
            ppo = [r for r in rows if r.get("losses/policy_loss")]
            self.assertGreaterEqual(len(ppo), 2)
            self.assertEqual([float(r["charts/teacher_coef"]) for r in ppo],
                             [max(0.0, 0.5 * (1 - u / 4)) for u in range(len(ppo))])
            self.assertTrue(all(math.isfinite(float(r["losses/teacher_loss"])) for r in ppo))
            state = json.loads((Path(tmp) / "run" / "checkpoints" / "state.json").read_text())
            self.assertTrue(state["pretrained"])

    @unittest.skipUnless(native_available(), "the native search is not built here (no Rust toolchain at set-up)")
    def test_a_searching_teacher_is_imitated_by_its_visits_and_its_demonstrations_resume(self):
        """A teacher that searches (here `mcts`, the native search) gives its visit distribution
        as the target; the demonstrations are written chunk by chunk, and collecting more goes
        on from the chunks there (a run stopped while collecting resumes)."""
        cfg = load_expt(ROOT / "expts" / "smoke.yml", [
            "--contract", "singles-v2", "--workers", "0", "--pretrain.teacher", "mcts(iterations=200)",
            "--pretrain.opponents", "[random]", "--pretrain.chunk", "120", "--rollout.battles_per_worker", "4"])
        pool = WorkerPool(cfg, 0)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                store = Path(tmp) / "run" / "demonstrations"
                first = imitation.demonstrations(pool, {**cfg["pretrain"], "decisions": 120}, 0.99, 0.95, store)
                kept = {f.name: f.read_bytes() for f in store.iterdir()}
                both = imitation.demonstrations(pool, {**cfg["pretrain"], "decisions": 240}, 0.99, 0.95, store)
                self.assertGreater(len(list(store.iterdir())), len(kept))
                for name, data in kept.items():   # kept, not collected again
                    self.assertEqual((store / name).read_bytes(), data)
                n = len(first["actions"])
                self.assertGreaterEqual(len(both["actions"]), 240)
                for k in imitation.KEPT:
                    np.testing.assert_array_equal(both[k][:n], first[k])
                # the targets: weights summing to 1 over distinct actions; where the search spread
                # its visits (most decisions) more than one action, its most visited the one played
                probs, acts = both["target_probs"], both["target_actions"]
                np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
                spread = (probs > 0).sum(1) > 1
                self.assertGreater(spread.mean(), 0.5)
                np.testing.assert_array_equal(acts[spread, 0], both["actions"][spread])
                # an earlier round's demonstrations learned beside this one's, after them
                joined = imitation.joined(first, imitation.earlier([store]))
                self.assertEqual(len(joined["actions"]), n + len(both["actions"]))
                np.testing.assert_array_equal(joined["target_probs"][n:], both["target_probs"])
                with self.assertRaisesRegex(ValueError, "no demonstrations .* in " + tmp):
                    imitation.earlier([store, Path(tmp)])
                narrow = {**first, "records": first["records"][:, :1]}
                with self.assertRaisesRegex(ValueError, "records of shape"):
                    imitation.joined(narrow, imitation.earlier([store]))
                # a run with demonstrations and no checkpoint yet takes --resume (and goes on collecting)
                Trainer(cfg, Path(tmp) / "run", resume=True)
                with self.assertRaisesRegex(TrainingError, "no checkpoint"):
                    Trainer(cfg, Path(tmp) / "elsewhere", resume=True)
        finally:
            pool.close()

    def test_where_the_pupil_plays_the_teacher_labels_the_pupils_states(self):
        """DAgger (pretrain.pupil_plays): an untrained pupil plays the teacher's seat against
        MaxDamage and loses the battles heuristic wins, yet what is recorded at each decision
        is still heuristic's choice, not the pupil's."""
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--workers", "0", "--rollout.battles_per_worker", "8"])
        pool = WorkerPool(cfg, 0)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                trainer = Trainer(cfg, Path(tmp) / "run")
                pre = {**cfg["pretrain"], "decisions": 1500, "teacher": "heuristic", "opponents": ["maxdamage"]}
                led = imitation.demonstrations(pool, {**pre, "pupil_plays": 0.0}, 0.99, 0.95, Path(tmp) / "led")
                walked = imitation.demonstrations(pool, {**pre, "pupil_plays": 1.0}, 0.99, 0.95, Path(tmp) / "walked",
                                                  trainer.learners["main"].weights())
                won = {name: np.nanmean(d["outcomes"]) for name, d in (("led", led), ("walked", walked))}
                self.assertGreater(won["led"], 0.5, won)
                self.assertLess(won["walked"], 0.25, won)
                rows = np.arange(len(walked["actions"]))
                with torch.no_grad():
                    logits, _, _ = trainer.learners["main"].model(trainer.tensors(walked, rows)["obs"], None)
                pupils = logits.argmax(-1).numpy()
                self.assertLess((pupils == walked["actions"]).mean(), 0.5)
        finally:
            pool.close()
        with self.assertRaisesRegex(ConfigError, "pretrain.pupil_plays"):
            load_expt(ROOT / "expts" / "smoke.yml", ["--pretrain.pupil_plays", "2"])

    def test_earlier_rounds_demonstrations_are_learned_with_none_collected(self):
        """pretrain.decisions 0 with pretrain.also: the policy learns the earlier demonstrations
        alone (a new network fitted to rounds already played), and no battle of a teacher's is
        played (the teacher named is not even made)."""
        smoke = ROOT / "expts" / "smoke.yml"
        cfg = load_expt(smoke, ["--workers", "0", "--rollout.battles_per_worker", "8"])
        pool = WorkerPool(cfg, 0)
        with tempfile.TemporaryDirectory() as tmp:
            earlier = Path(tmp) / "earlier"
            try:
                pre = {**cfg["pretrain"], "decisions": 3000, "teacher": "heuristic", "opponents": ["maxdamage"]}
                n = len(imitation.demonstrations(pool, pre, 0.99, 0.95, earlier)["actions"])
            finally:
                pool.close()
            cfg = load_expt(smoke, [
                "--workers", "0", "--total_decisions", "1", "--pretrain.decisions", "0",
                "--pretrain.also", f"[{earlier}]", "--pretrain.teacher", "no-such-player",
                "--pretrain.epochs", "6", "--pretrain.minibatch_size", "256", "--eval.battles", "4",
                "--eval.opponents", "[random]", "--eval.league_latest", "0"])
            Trainer(cfg, Path(tmp) / "run").train()
            self.assertFalse((Path(tmp) / "run" / "demonstrations").exists())
            with open(Path(tmp) / "run" / "metrics.csv", newline="") as f:
                pre_rows = [r for r in csv.DictReader(f) if r.get("pretrain/epoch")]
            self.assertEqual([int(float(r["pretrain/epoch"])) for r in pre_rows], list(range(7)))
            self.assertEqual(int(float(pre_rows[-1]["pretrain/decisions"])), n - round(n * cfg["pretrain"]["holdout"]))
            held = [float(r["pretrain/holdout_imitation_loss"]) for r in pre_rows]
            self.assertLess(held[-1], held[0] * 0.7, held)
            self.assertGreater(float(pre_rows[-1]["pretrain/holdout_accuracy"]), 0.5)
            with self.assertRaisesRegex(ValueError, "no demonstrations to learn"):
                imitation.joined(None, [])

    def test_bad_pretrain_settings_are_named(self):
        with self.assertRaisesRegex(ConfigError, "pretrain.holdout"):
            load_expt(ROOT / "expts" / "smoke.yml", ["--pretrain.holdout", "1.5"])
        with self.assertRaisesRegex(ConfigError, "pretrain.decisions"):
            load_expt(ROOT / "expts" / "smoke.yml", ["--pretrain.decisions", "-3"])


class InitTest(unittest.TestCase):
    def test_a_run_starts_from_a_model_files_weights_and_a_mismatch_is_named(self):
        smoke = ROOT / "expts" / "smoke.yml"
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(load_expt(smoke, ["--contract", "singles-v2", "--init", "agent"]), Path(tmp) / "a")
            shipped, _ = load_model(shipped_model("gen9randombattle"))
            for k, v in shipped.state_dict().items():
                torch.testing.assert_close(trainer.learners["main"].model.state_dict()[k], v)
            with self.assertRaisesRegex(TrainingError, r"init: .*contract 'singles-v2'.*singles-v1"):
                Trainer(load_expt(smoke, ["--contract", "singles-v1", "--init", "agent"]), Path(tmp) / "b")
            with self.assertRaisesRegex(TrainingError, r"init: .*'small' network.*'large'"):
                Trainer(load_expt(smoke, ["--contract", "singles-v2", "--init", "agent", "--model.preset", "large"]),
                        Path(tmp) / "c")
            with self.assertRaisesRegex(TrainingError, r"init: .*no-such\.zip"):
                Trainer(load_expt(smoke, ["--contract", "singles-v2", "--init", str(Path(tmp) / "no-such.zip")]),
                        Path(tmp) / "d")


class LineageTest(unittest.TestCase):
    """A model's lineage (training/lineage.py): the runs that made it, kept in its metadata by
    ship_model.py, so that its card says how it was made once the runs are gone."""

    def shipped_round(self, run: Path, pre: dict, init: Path) -> Path:
        """A round's model, fresh, beside `run` (begun from `agent`, imitating by `pre`), given its
        lineage by `ship_model.py --lineage-only` with `init` the model it began from."""
        from metapvp.exe import ship_model
        (run / "checkpoints").mkdir(parents=True, exist_ok=True)
        (run / "checkpoints" / "state.json").write_text(json.dumps({"seconds": 60}))
        (run / "config.yml").write_text(json.dumps({"init": "agent", "workers": 2, "pretrain": pre}))
        model = run.parent / "round.zip"
        save_model(model, new_model(load("singles-v2"), "small"), load("singles-v2"),
                   format="gen9randombattle", steps=0, updates=0)
        args = [str(run), "--model", str(model), "--expt", "expts/smoke.yml", "--lineage-only", "--init", str(init)]
        self.assertEqual(ship_model.main(args), 0)
        return model

    def test_the_shipped_models_lineage_holds_together(self):
        steps = lineage.of_model(shipped_model("gen9randombattle"))
        self.assertEqual([s["kind"] for s in steps], ["ppo", "imitation", "imitation"])
        self.assertTrue((ROOT / steps[0]["model"]).is_file(), steps[0])
        for s in steps[1:]:   # each round's experiment file says what the lineage says it did
            pre = load_expt(ROOT / s["experiment"])["pretrain"]
            self.assertEqual((pre["teacher"], pre["opponents"]), (s["teacher"], s["opponents"]))
            self.assertGreaterEqual(s["decisions"], pre["decisions"])
        self.assertEqual(steps[2]["earlier"], steps[1]["decisions"])   # round 2 learned round 1's beside its own
        self.assertIn("[its card](rounds/gen9randombattle-ppo.md)", lineage.described(steps[0], SHIPPED_MODELS))

    def test_ship_model_writes_a_rounds_lineage_from_its_run_and_names_what_is_missing(self):
        ppo = ROOT / "static" / "models" / "rounds" / "gen9randombattle-ppo.zip"
        with tempfile.TemporaryDirectory() as tmp:
            run, before = Path(tmp) / "run", Path(tmp) / "before"
            for folder, n in ((run / "demonstrations", 7), (before, 5)):
                folder.mkdir(parents=True)
                np.savez(folder / "chunk-00000.npz", actions=np.zeros(n, dtype=np.int64))
            # begun from `agent` when the PPO model was shipped (--init: where it lies now)
            pre = {"decisions": 7, "teacher": "native(iterations=300):agent", "opponents": ["agent@0", "random"],
                   "epochs": 2, "also": [str(before)]}
            model = self.shipped_round(run, pre, ppo)
            steps = read_metadata(model)["lineage"]
            self.assertEqual(steps[0], lineage.of_model(ppo)[0])
            self.assertEqual({k: steps[1][k] for k in ("kind", "decisions", "earlier", "teacher", "opponents")},
                             {"kind": "imitation", "decisions": 7, "earlier": 5,
                              "teacher": f"native(iterations=300):{ppo}", "opponents": [f"{ppo}@0", "random"]})
            self.assertIn("on 7 of its decisions (and 5 of earlier rounds')", lineage.described(steps[1], ROOT))
            shutil.rmtree(before)            # an earlier round's folder gone: named
            with self.assertRaisesRegex(lineage.LineageError, "no demonstrations.*before"):
                lineage.step(run, json.loads((run / "config.yml").read_text()), read_metadata(model), {}, "x")
            fresh = Path(tmp) / "fresh.zip"   # no lineage, no PPO update: nothing says how it was made
            shutil.copyfile(model, fresh)
            update_metadata(fresh, lineage=None)
            with self.assertRaisesRegex(lineage.LineageError, "fresh.zip.*no lineage"):
                lineage.of_model(fresh)

    def test_a_run_that_learned_earlier_demonstrations_alone_has_its_lineage(self):
        ppo = ROOT / "static" / "models" / "rounds" / "gen9randombattle-ppo.zip"
        with tempfile.TemporaryDirectory() as tmp:
            run, before = Path(tmp) / "run", Path(tmp) / "before"
            before.mkdir()
            np.savez(before / "chunk-00000.npz", actions=np.zeros(5, dtype=np.int64))
            pre = {"decisions": 0, "teacher": "native:agent", "opponents": ["random"], "epochs": 3,
                   "also": [str(before)]}
            model = self.shipped_round(run, pre, ppo)     # no demonstrations/ of its own: none collected
            imitated = read_metadata(model)["lineage"][1]
            self.assertEqual({k: imitated[k] for k in ("kind", "decisions", "earlier", "teacher", "opponents")},
                             {"kind": "imitation", "decisions": 0, "earlier": 5, "teacher": None, "opponents": []})
            self.assertIn("imitation of 5 earlier rounds' demonstrations alone (no teacher's battle played), 3 epochs",
                          lineage.described(imitated, ROOT))
            # PPO begun from such an imitation says so, naming the demonstrations it learned
            meta = {**read_metadata(model), "updates": 4, "steps": 800}
            made = lineage.step(run, json.loads((run / "config.yml").read_text()), meta, {"seconds": 60}, "x")
            self.assertIn(f"from an imitation of earlier rounds' demonstrations alone ({before}), 3 epochs",
                          lineage.described(made, ROOT))
            with self.assertRaisesRegex(lineage.LineageError, "no imitation.*pretrain.also"):
                lineage.step(run, {"workers": 2, "pretrain": {**pre, "also": []}}, read_metadata(model), {}, "x")


class TeacherFormatTest(unittest.TestCase):
    def test_agent_in_a_teachers_spec_is_the_model_of_the_format_trained_on(self):
        cfg = load_expt(ROOT / "expts" / "gen9randomdoublesbattle-expert.yml")
        worker = RolloutWorker(cfg)
        try:
            teacher = worker.player_for(cfg["pretrain"]["teacher"])   # lookahead2w8:agent
            self.assertEqual((teacher.contract, teacher.game_type, teacher.weight), ("doubles-v2", "doubles", 8.0))
        finally:
            worker.sim.close()


    def test_a_spec_around_a_model_file_is_a_player_not_the_file(self):
        # round 2's teacher, native(iterations=3000):ROUND1.zip, ends in .zip: taken for a league
        # snapshot, it could not be read and every battle of the teacher's was given up, endlessly
        cfg = load_expt(ROOT / "expts" / "gen9randombattle-native-expert-2.yml")
        teacher = cfg["pretrain"]["teacher"]
        worker = RolloutWorker(cfg)
        try:
            self.assertIsNone(worker.model_for(teacher))
            player = worker.player_for(teacher)
            self.assertEqual((player.name, player.config.iterations), (f"native:{cfg['init']}", 3000))
            self.assertIsNotNone(worker.model_for(cfg["init"]))   # a bare model file is one
        finally:
            worker.sim.close()

    def test_an_imitation_player_that_cannot_play_stops_the_run_named(self):
        # before any battle (no pool is needed to find out)
        with tempfile.TemporaryDirectory() as tmp:
            for teacher, opponents, where in [(f"{tmp}/gone.zip", "[random]", "pretrain.teacher"),
                                              ("heuristic", "[main, random, mcts(worlds=0)]", "pretrain.opponents")]:
                cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--contract", "singles-v2",
                                                               "--pretrain.decisions", "100",
                                                               "--pretrain.teacher", teacher,
                                                               "--pretrain.opponents", opponents])
                trainer = Trainer(cfg, Path(tmp) / where)
                with self.assertRaisesRegex(TrainingError, rf"{where}: .*cannot play"):
                    trainer.pretrain(pool=None)
            trainer.check_players({"teacher": "heuristic", "opponents": ["main", "random"]})


class TrainingRunTest(unittest.TestCase):
    """One smoke run, shared by the tests below (it takes about half a minute)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="metapvp-train-")
        cls.out = Path(cls.tmp) / "run"
        cls.rc = integrated_rl_script.main([str(ROOT / "expts" / "smoke.yml"), str(cls.out)])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_smoke_run_writes_a_checkpoint_head2head_can_load(self):
        self.assertEqual(self.rc, 0)
        ckpt = self.out / "checkpoints"
        for name in ("model-latest.zip", "state.json", "trainer.pt"):
            self.assertTrue((ckpt / name).is_file(), name)
        for name in ("config.yml", "metrics.csv", "winrate.png", "elo.json"):
            self.assertTrue((self.out / name).is_file(), name)
        self.assertTrue(any((self.out / "league").glob("exploiter-*.zip")))
        state = json.loads((ckpt / "state.json").read_text())
        self.assertGreaterEqual(state["decisions"], 1200)
        rows = (self.out / "metrics.csv").read_text().splitlines()
        self.assertIn("losses/policy_loss", rows[0])
        self.assertIn("eval/winrate_random", rows[0])
        proc = subprocess.run([sys.executable, str(ROOT / "metapvp/exe/head2head.py"), "--p1",
                               str(ckpt / "model-latest.zip"), "--p2", "random", "--num-matches", "6",
                               "--workers", "1", "--quiet"], capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        self.assertEqual((result["matches"], result["errors"], result["invalid_choices"]), (6, 0, 0))
        self.assertEqual(result["p1_wins"] + result["p2_wins"] + result["ties"], 6)

    def test_resume_continues_with_optimiser_state(self):
        self.assertEqual(self.rc, 0)
        before = json.loads((self.out / "checkpoints" / "state.json").read_text())
        # without --resume, an existing run is never overwritten
        self.assertEqual(integrated_rl_script.main([str(ROOT / "expts" / "smoke.yml"), str(self.out)]), 2)
        original = (self.out / "config.yml").read_text()
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--total_decisions", str(before["decisions"] + 300)])
        trainer = Trainer(cfg, self.out, resume=True)
        # the run's own experiment is kept; the resumed session's settings go beside it
        self.assertEqual((self.out / "config.yml").read_text(), original)
        self.assertIn(f"total_decisions: {before['decisions'] + 300}", (self.out / "config-resumed.yml").read_text())
        self.assertEqual((trainer.decisions, trainer.updates), (before["decisions"], before["updates"]))
        opt = trainer.learners["main"].optimizer.state_dict()["state"]
        self.assertTrue(opt and all(float(s["step"]) > 0 for s in opt.values()))
        latest, _ = load_model(self.out / "checkpoints" / "model-latest.zip")
        for k, v in latest.state_dict().items():
            torch.testing.assert_close(trainer.learners["main"].model.state_dict()[k], v)
        trainer.train()
        after = json.loads((self.out / "checkpoints" / "state.json").read_text())
        self.assertGreater(after["updates"], before["updates"])
        self.assertGreater(after["decisions"], before["decisions"])
        with self.assertRaisesRegex(TrainingError, "no checkpoint"):
            Trainer(cfg, Path(self.tmp) / "empty", resume=True)


if __name__ == "__main__":
    unittest.main()
