"""The self-play PPO loop: collect rollouts from the workers, update each learner, keep the
league and the Elo table, evaluate, checkpoint.

Run directory:
  config.yml               the resolved experiment; config-resumed.yml: the last --resume's
  checkpoints/model-N.zip  model files of the main policy (the last `keep`), model-latest.zip
  checkpoints/state.json   counters, league, Elo, random state; trainer.pt: optimiser states
  league/                  snapshots the league samples from
  metrics.csv, tb/, winrate.png, elo.json
Every file is written atomically, and a checkpoint is written on the way out, Ctrl-C included."""
from __future__ import annotations

import io
import json
import math
import os
import time
from pathlib import Path

import numpy as np
import torch
import yaml
from tqdm import tqdm

from metapvp import contract as contracts
from metapvp.models import ModelError, load_model, new_model, save_model
from metapvp.players.spec import SpecError, make_player, shipped_model
from metapvp.training import imitation
from metapvp.training.config import learner_threads, schedule
from metapvp.training.league import Elo, League, matchups_for
from metapvp.training.metrics import Metrics
from metapvp.training.pool import Pool
from metapvp.training.ppo import ppo_update
from metapvp.training.rollout import LEARNERS
from metapvp.training.workers import WorkerPool

RETIRE_AFTER = 20  # updates a dropped league snapshot's file is kept


STARTED_CONFIG, RESUMED_CONFIG = "config.yml", "config-resumed.yml"


def ended_config(outdir: Path) -> dict:
    """The experiment a run in `outdir` ended with: its last --resume's, else the one it started with."""
    resumed = Path(outdir) / RESUMED_CONFIG
    return yaml.safe_load((resumed if resumed.is_file() else Path(outdir) / STARTED_CONFIG).read_text())


class TrainingError(RuntimeError):
    """A run that cannot start or go on (bad run directory, missing checkpoint)."""


class Learner:
    """One policy being trained, with its optimiser."""

    def __init__(self, name: str, model, cfg: dict, device: str):
        self.name = name
        self.model = model.to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg["ppo"]["learning_rate"], eps=1e-5)
        self.updates = 0

    def weights(self) -> bytes:
        buf = io.BytesIO()
        torch.save({k: v.detach().cpu() for k, v in self.model.state_dict().items()}, buf)
        return buf.getvalue()


class Trainer:
    def __init__(self, cfg: dict, outdir, resume: bool = False):
        self.cfg = cfg
        self.outdir = Path(outdir)
        self.ckpt = self.outdir / "checkpoints"
        self.device = cfg["device"]
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise TrainingError("--device cuda asked for, but torch sees no CUDA device")
        torch.set_num_threads(learner_threads(cfg))
        self.contract = contracts.load(cfg["contract"])
        has_ckpt = (self.ckpt / "state.json").exists()
        self.demos = self.outdir / "demonstrations"   # the imitation's decisions, chunk by chunk
        if resume and not has_ckpt and not self.demos.is_dir():
            raise TrainingError(f"--resume: no checkpoint in {self.ckpt} (nor demonstrations in {self.demos})")
        if not resume and has_ckpt:
            raise TrainingError(f"{self.outdir} already holds a run: pass --resume to continue it, "
                                f"or choose another directory")
        self.outdir.mkdir(parents=True, exist_ok=True)
        # the run's experiment as it started; a resumed session's own settings go beside it
        config = self.outdir / (RESUMED_CONFIG if resume else STARTED_CONFIG)
        config.write_text(yaml.safe_dump(cfg, sort_keys=False))
        torch.manual_seed(cfg["seed"])
        self.rng = np.random.default_rng(cfg["seed"])
        self.generator = torch.Generator().manual_seed(cfg["seed"])
        preset = cfg["model"]["preset"]
        self.learners = {"main": Learner("main", self.first_model(), cfg, self.device)}
        if cfg["opponents"]["exploiter"] > 0:
            self.learners["exploiter"] = Learner("exploiter", new_model(self.contract, preset), cfg, self.device)
        self.league = League(cfg["league"]["max_snapshots"], cfg["league"]["quality_lr"])
        self.elo = Elo(anchors={"random": 1000.0} if "random" in cfg["eval"]["opponents"] else {})
        self.decisions = 0          # learner transitions trained on
        self.updates = 0
        self.seconds = 0.0          # wall time of earlier sessions of this run
        self.return_stats = [0.0, 1.0, 1e-4]  # mean, var, count of raw returns (reward normalisation)
        self.last_eval: dict[str, float] = {}
        self.saved_updates = 0      # the update the last checkpoint holds
        self.pretrained = False     # the imitation warm start is done (or was never asked for)
        self.retired: list = []     # (update, path) of snapshots dropped from the league, files kept a while
        if resume and has_ckpt:   # (without one, a run stopped while it collected demonstrations goes on)
            self.load()

    def first_model(self):
        """The main policy's network before training: a fresh one, or the weights of the model
        file `init` names (on a resumed run the checkpoint's replace them)."""
        init = self.cfg["init"]
        if init is None:
            return new_model(self.contract, self.cfg["model"]["preset"])
        try:
            path = shipped_model(self.cfg["format"]) if init == "agent" else Path(init)
            model, meta = load_model(path, self.contract)
        except (ModelError, SpecError, OSError) as e:
            raise TrainingError(f"init: {e}") from None
        if meta["preset"] != self.cfg["model"]["preset"]:
            raise TrainingError(f"init: {path} is a {meta['preset']!r} network, the experiment's model.preset "
                                f"is {self.cfg['model']['preset']!r}")
        return model.train()

    # --- the loop --------------------------------------------------------------------------
    def train(self, pool: Pool | None = None):
        """Trains until the experiment's end (or Ctrl-C), on `pool` (default: the local worker
        processes the experiment asks for; metapvp.cluster.pool.make_pool makes a Ray pool) which
        it closes at the end; -> the latest model file."""
        cfg = self.cfg
        if pool is None:
            if cfg["ray"]["enabled"]:
                raise TrainingError("ray.enabled: pass the pool of metapvp.cluster.pool.make_pool(cfg) to train()")
            pool = WorkerPool(cfg, cfg["workers"])
        self.metrics = Metrics(self.outdir)
        started = time.perf_counter()
        bar = None
        try:
            if imitation.wanted(cfg["pretrain"]) and not self.pretrained and self.updates == 0:
                self.pretrain(pool)
                self.evaluate(pool)
                self.save(started)
            bar = tqdm(total=cfg["total_decisions"], initial=min(self.decisions, cfg["total_decisions"]),
                       unit="dec", dynamic_ncols=True)
            while self.decisions < cfg["total_decisions"]:
                elapsed = self.seconds + time.perf_counter() - started
                if cfg["max_minutes"] is not None and elapsed > cfg["max_minutes"] * 60:
                    break
                info = self.iteration(pool)
                bar.total = max(bar.total, bar.n + info["new"])  # the last update may overshoot
                bar.update(info["new"])
                bar.set_postfix_str(self.postfix(info))
                if self.updates % cfg["league"]["snapshot_every"] == 0:
                    self.snapshot("main")
                if "exploiter" in self.learners and self.updates % cfg["exploiter"]["snapshot_every"] == 0:
                    self.snapshot("exploiter")
                if self.updates % cfg["eval"]["every"] == 0:
                    self.evaluate(pool)
                if self.updates % cfg["checkpoint"]["every"] == 0:
                    self.save(started)
        finally:
            if bar is not None:
                bar.close()
            try:
                if self.updates != self.saved_updates:
                    self.save(started)
            finally:
                pool.close()
                self.metrics.close()
        return self.outdir / "checkpoints" / "model-latest.zip"

    def iteration(self, pool: Pool) -> dict:
        """One update: collect a rollout, learn from it, log."""
        t0 = time.perf_counter()
        rollouts, batch = self.collect(pool)
        t1 = time.perf_counter()
        new = int((batch["learner"] == 0).sum())   # the main policy's transitions
        if self.overlaps(pool, new):
            pool.submit("collect", self.plans(pool.size))   # the next rollout, while this one is learned
        stats = self.learn(batch)
        t2 = time.perf_counter()
        self.decisions += new
        self.updates += 1
        values = {**stats, **self.rollout_metrics(rollouts, batch, pool, (t0, t1, t2))}
        self.metrics.log(self.decisions, values)
        return {"new": new, "dps": values["charts/decisions_per_s"], "errors": values["charts/battle_errors"]}

    def collect(self, pool: Pool) -> tuple[list, dict]:
        """The workers' rollouts (the one already submitted, if any) and their transitions as one
        batch; the battles' results go to the league and the Elo table."""
        if pool.pending is None:
            pool.submit("collect", self.plans(pool.size))
        rollouts = pool.gather()
        self.record_results(rollouts)
        batch = {k: np.concatenate([getattr(r, k) for r in rollouts]) for k in
                 ("records", "priv_records", "actions", "logprobs", "values", "advantages", "returns", "raw_returns",
                  "outcomes", "learner", "teacher")}
        return rollouts, batch

    def learn(self, batch: dict) -> dict:
        """A PPO update of each learner on its rows of the batch, at this point's learning rate
        and entropy coefficient (the return statistics first take in the batch's returns);
        -> the losses and the schedules' values, for the metrics."""
        self.update_return_stats(batch["raw_returns"])
        progress = self.decisions / self.cfg["total_decisions"]
        ppo = self.cfg["ppo"]
        lr = schedule(ppo["lr_schedule"], ppo["learning_rate"], ppo["learning_rate"] * ppo["lr_final_fraction"],
                      progress)
        ent = schedule(ppo["entropy_schedule"], ppo["entropy_coef"], ppo["entropy_final"], progress)
        pull = self.teacher_pull()
        stats = {"charts/learning_rate": lr, "charts/entropy_coef": ent, "charts/teacher_coef": pull}
        for i, name in enumerate(LEARNERS):
            rows = np.flatnonzero(batch["learner"] == i)
            if name not in self.learners or len(rows) == 0:
                continue
            learner = self.learners[name]
            data = self.tensors(batch, rows)
            learner.model.update_norms({k: v.to(self.device) for k, v in data["obs"].items()})
            for g in learner.optimizer.param_groups:
                g["lr"] = lr
            out = ppo_update(learner.model, learner.optimizer, data, ppo, ent, self.generator, self.device,
                             teacher_coef=pull if name == "main" else 0.0)
            learner.updates += 1
            prefix = "losses/" if name == "main" else f"{name}/"
            stats.update({f"{prefix}{k}": v for k, v in out.items()})
        return stats

    def rollout_metrics(self, rollouts: list, batch: dict, pool: Pool, times: tuple) -> dict:
        """Speeds, counts and scores of this update's rollout. times: (start, rollout gathered,
        update done)."""
        t0, t1, t2 = times
        rollout_decisions = sum(r.decisions for r in rollouts)
        collect = max(r.seconds for r in rollouts)
        values = {
            # end to end: the wait for the rollout and the update (with overlap, the workers
            # collected meanwhile); the rollout figures count the workers' own collecting time
            "charts/decisions_per_s": len(batch["actions"]) / (t2 - t0),
            "charts/rollout_decisions_per_s": len(batch["actions"]) / collect,
            "charts/all_seats_decisions_per_s": rollout_decisions / collect,
            "charts/learner_decisions": len(batch["actions"]), "charts/all_seats_decisions": rollout_decisions,
            "charts/wait_seconds": t1 - t0, "charts/learn_seconds": t2 - t1, "charts/collect_seconds": collect,
            "charts/battles": sum(len(r.results) for r in rollouts),
            "charts/battle_errors": sum(len(r.errors) for r in rollouts),
            "charts/reward_scale": self.reward_scale(), "charts/updates": self.updates,
            "charts/lost_workers": pool.lost,
        }
        for kind in ("pure", "past", "target", "baseline", "exploiter"):
            scores = [s for r in rollouts for (k, _, _, s) in r.results if k == kind]
            if scores and kind != "pure":
                values[f"rollout/score_vs_{kind}"] = float(np.mean(scores))
        return values

    # --- imitation warm start ------------------------------------------------------------
    def pretrain(self, pool: Pool):
        """The teacher plays the learner's seat until pretrain.decisions of its choices are
        recorded; the main policy learns them, and pretrain.also's earlier ones beside them
        (see training/imitation.py)."""
        pre = self.cfg["pretrain"]
        if pre["decisions"]:
            self.check_players(pre)
        try:
            earlier = imitation.earlier([Path(d) for d in pre["also"]])
        except ValueError as e:
            raise TrainingError(str(e)) from None
        started = time.perf_counter()
        batch = None
        if pre["decisions"]:
            batch = imitation.demonstrations(pool, pre, self.cfg["ppo"]["gamma"], self.cfg["ppo"]["gae_lambda"],
                                             self.demos, self.learners["main"].weights())
        try:
            batch = imitation.joined(batch, earlier)
        except ValueError as e:
            raise TrainingError(str(e)) from None
        self.update_return_stats(batch["raw_returns"])
        batch["returns"] = (batch["raw_returns"] / self.reward_scale()).astype(np.float32)
        train_rows, held_rows = imitation.split(len(batch["actions"]), pre["holdout"], self.rng)
        train, held = self.tensors(batch, train_rows), self.tensors(batch, held_rows)
        model = self.learners["main"].model
        model.update_norms({k: v.to(self.device) for k, v in train["obs"].items()})
        imitation.fit(model, train, held, pre, self.generator, self.device, lambda values: self.metrics.log(0, values),
                      started)
        self.pretrained = True

    def check_players(self, pre: dict):
        """Every player of the imitation made once here, before any battle: one that cannot
        play stops the run, named (in a worker its battles would be given up, one after another,
        and the demonstrations never come)."""
        named = [("pretrain.teacher", pre["teacher"])] + [("pretrain.opponents", o) for o in pre["opponents"]]
        for where, spec in named:
            if spec in LEARNERS:
                continue
            try:
                make_player(spec, fmt=self.cfg["format"])
            except (SpecError, ModelError, ValueError) as e:
                raise TrainingError(f"{where}: {spec!r} cannot play: {e}") from None

    def teacher_pull(self) -> float:
        """The weight of the pull towards the teacher in this update: pretrain.kl_coef, fading
        linearly to 0 over pretrain.kl_updates updates."""
        pre = self.cfg["pretrain"]
        if not pre["decisions"] or not pre["kl_coef"] or pre["kl_updates"] <= 0:
            return 0.0
        return float(pre["kl_coef"] * max(0.0, 1.0 - self.updates / pre["kl_updates"]))

    def overlaps(self, pool: Pool, new: int) -> bool:
        """Whether the next rollout starts now, before this update: with overlap on, unless the
        run ends with this update or an evaluation (which needs the workers) follows it."""
        cfg = self.cfg
        return (cfg["rollout"]["overlap"] and not pool.in_process
                and self.decisions + new < cfg["total_decisions"]
                and (self.updates + 1) % cfg["eval"]["every"] != 0)

    def plans(self, workers: int) -> list[dict]:
        """Each worker's plan for the next rollout: the league's matchups (league.matchups), the
        learners' weights, and how much to collect."""
        cfg = self.cfg
        matchups, weights = matchups_for(cfg, self.league.sample(cfg["league"]["sample"], self.rng))
        weights_blobs = {name: learner.weights() for name, learner in self.learners.items()}
        teacher = cfg["pretrain"]["teacher"] if self.teacher_pull() > 0 else None
        return [{"weights": weights_blobs, "matchups": matchups, "shares": weights,
                 "decisions": cfg["rollout"]["decisions_per_worker"], "reward_scale": self.reward_scale(),
                 "gamma": cfg["ppo"]["gamma"], "lam": cfg["ppo"]["gae_lambda"], "teacher": teacher}
                for _ in range(workers)]

    def record_results(self, rollouts):
        names = {s["path"]: s["name"] for s in self.league.snapshots}
        for r in rollouts:
            for kind, learner, opponent, score in r.results:
                if kind == "pure":
                    continue
                if kind == "past":
                    self.league.record(opponent, score)
                self.elo.update(learner, names.get(opponent, Path(opponent).stem if opponent.endswith(".zip")
                                                   else opponent), score)

    def tensors(self, batch: dict, rows: np.ndarray) -> dict:
        """The batch's `rows` as tensors: its raw records viewed as obs (and priv) by the contract."""
        def features(raw):
            views = self.contract.views(np.ascontiguousarray(raw[rows]), len(rows))
            return {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in views.items()}
        out = {"obs": features(batch["records"]), "priv": features(batch["priv_records"])}
        for k in ("actions", "logprobs", "values", "advantages", "returns", "outcomes", "teacher", "target_actions",
                  "target_probs"):
            if k in batch:
                out[k] = torch.from_numpy(np.ascontiguousarray(batch[k][rows]))
        return out

    def update_return_stats(self, raw_returns: np.ndarray):
        if not self.cfg["ppo"]["normalize_rewards"] or len(raw_returns) == 0:
            return
        mean, var, count = self.return_stats
        n, bm, bv = len(raw_returns), float(raw_returns.mean()), float(raw_returns.var())
        total = count + n
        delta = bm - mean
        m2 = var * count + bv * n + delta ** 2 * count * n / total
        self.return_stats = [mean + delta * n / total, m2 / total, total]

    def reward_scale(self) -> float:
        if not self.cfg["ppo"]["normalize_rewards"]:
            return 1.0
        return float(math.sqrt(self.return_stats[1]) + 1e-8)

    # --- league, evaluation ----------------------------------------------------------------
    def snapshot(self, learner: str):
        name = f"{learner}-{self.updates:06d}"
        path = self.outdir / "league" / f"{name}.zip"
        save_model(path, self.learners[learner].model, self.contract, format=self.cfg["format"],
                   steps=self.decisions, updates=self.updates, learner=learner)
        dropped = self.league.snapshots[0] if len(self.league.snapshots) >= self.league.max_snapshots else None
        self.league.add(str(path), name, self.updates)
        self.elo.copy_rating(learner, name)
        if dropped:
            self.retired.append((self.updates, dropped["path"]))
        # A dropped snapshot's file goes only after RETIRE_AFTER updates: workers may still be
        # playing battles against it, or starting them from a plan made before it was dropped.
        while self.retired and self.updates - self.retired[0][0] >= RETIRE_AFTER:
            Path(self.retired.pop(0)[1]).unlink(missing_ok=True)

    def evaluate(self, pool: Pool):
        cfg = self.cfg["eval"]
        opponents = list(cfg["opponents"])
        opponents += [s["path"] for s in self.league.snapshots[-cfg["league_latest"]:]] if cfg["league_latest"] else []
        names = {s["path"]: s["name"] for s in self.league.snapshots}
        weights = {"main": self.learners["main"].weights()}
        values = {}
        for k, opp in enumerate(opponents):
            shares = np.array_split(np.arange(cfg["battles"]), pool.size)
            jobs = [{"weights": weights, "learner": "main", "opponent": opp, "indices": s.tolist(),
                     "seed": self.cfg["seed"] * 7919 + self.updates * 101 + k} for s in shares if len(s)]
            scores = [x for part in pool.run("evaluate", jobs) for x in part]
            name = names.get(opp, opp)
            for x in scores:
                self.elo.update("main", name, x)
            if scores:
                label = "league" if opp in names else name
                rate = float(np.mean(scores))
                values[f"eval/winrate_{label}" if label != "league" else f"eval/league_{name}"] = rate
                if label != "league":
                    self.last_eval[label] = rate
        for name, rating, _ in self.elo.table():
            if name == "main" or name in cfg["opponents"]:
                values[f"elo/{name}"] = rating
        self.metrics.log(self.decisions, values)
        self.metrics.plot()
        _write_json(self.outdir / "elo.json", [{"name": n, "elo": round(r, 1), "games": g}
                                               for n, r, g in self.elo.table()])

    def postfix(self, info: dict) -> str:
        wr = " ".join(f"{k}={v:.2f}" for k, v in self.last_eval.items())
        return f"upd={self.updates} {info['dps']:.0f} dec/s {wr}".strip()

    # --- checkpoints -----------------------------------------------------------------------
    def save(self, started: float):
        self.ckpt.mkdir(parents=True, exist_ok=True)
        info = {"format": self.cfg["format"], "steps": self.decisions, "updates": self.updates}
        path = save_model(self.ckpt / f"model-{self.updates:06d}.zip", self.learners["main"].model,
                          self.contract, **info)
        _write_bytes(self.ckpt / "model-latest.zip", path.read_bytes())
        extra = {name: {"optimizer": learner.optimizer.state_dict(), "updates": learner.updates,
                        "model": learner.model.state_dict() if name != "main" else None}
                 for name, learner in self.learners.items()}
        buf = io.BytesIO()
        torch.save(extra, buf)
        _write_bytes(self.ckpt / "trainer.pt", buf.getvalue())
        state = {"decisions": self.decisions, "updates": self.updates,
                 "seconds": self.seconds + time.perf_counter() - started,
                 "return_stats": self.return_stats, "league": self.league.state(), "elo": self.elo.state(),
                 "last_eval": self.last_eval, "rng": self.rng.bit_generator.state,
                 "pretrained": self.pretrained, "retired": self.retired}
        _write_json(self.ckpt / "state.json", state)
        self.saved_updates = self.updates
        kept = sorted(self.ckpt.glob("model-[0-9]*.zip"))
        for old in kept[:-self.cfg["checkpoint"]["keep"]]:
            old.unlink()
        return path

    def load(self):
        state = json.loads((self.ckpt / "state.json").read_text())
        model, _ = load_model(self.ckpt / "model-latest.zip", self.contract)
        main = self.learners["main"]
        main.model.load_state_dict(model.state_dict())
        extra = torch.load(self.ckpt / "trainer.pt", weights_only=True, map_location=self.device)
        for name, saved in extra.items():
            if name not in self.learners:
                continue
            if saved.get("model") is not None:
                self.learners[name].model.load_state_dict(saved["model"])
            self.learners[name].optimizer.load_state_dict(saved["optimizer"])
            self.learners[name].updates = saved["updates"]
        self.decisions, self.updates = state["decisions"], state["updates"]
        self.saved_updates = self.updates
        self.seconds = state.get("seconds", 0.0)
        self.return_stats = state["return_stats"]
        self.league.load(state["league"])
        self.elo.load(state["elo"])
        self.last_eval = state.get("last_eval", {})
        self.pretrained = state.get("pretrained", False)
        self.retired = [tuple(r) for r in state.get("retired", [])]
        self.rng.bit_generator.state = state["rng"]


def _write_bytes(path: Path, data: bytes):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _write_json(path: Path, obj):
    _write_bytes(path, json.dumps(obj, indent=1).encode())
