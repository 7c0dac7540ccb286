"""Rollouts: many self-play battles in one in-process simulator, every waiting decision of a
policy batched into one forward pass.

Each battle has a matchup: who sits on each side, and which seats learn. A learning seat's
transitions form a segment; a transition is shipped once its successor exists (its reward and
bootstrap value are then known) or its battle has ended, so segments carry over between
rollouts and nothing is cut short."""
from __future__ import annotations

import io
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import torch

from metapvp.arena import play
from metapvp.arena.match import decide
from metapvp.engine import Simulator
from metapvp.models import ModelError, PolicyNet, load_model, network_class, sample, to_tensors
from metapvp.players import Decisions, make_player
from metapvp.players.neural import NeuralPlayer
from metapvp.training.ppo import gae
from metapvp.training.rewards import outcome_reward, score, shaped_reward, shaping_features

LEARNERS = ("main", "exploiter")
TARGET_WIDTH = 16
"""Actions a decision's imitation target spreads over (a search teacher's visit distribution,
its most visited first): more than a singles decision has legal actions."""


@dataclass
class Matchup:
    """kind: pure, past, target, baseline, exploiter or teacher; learner: who learns ('main' or
    'exploiter'); opponent: a learner name, a model file, or a scripted player's name;
    controller: who plays the learner's seat, where not the learner itself (a teacher, whose
    choices the learner then imitates)."""
    kind: str
    learner: str
    opponent: str
    controller: str | None = None


@dataclass
class Transition:
    record: np.ndarray       # the decision's record, raw bytes (contract.views reads them)
    priv_record: np.ndarray  # the opponent's own record, raw bytes (zeros when missing)
    action: int
    logprob: float
    value: float
    phi: np.ndarray        # [own hp, foe hp, own fainted, foe fainted] for reward shaping
    reward: float = 0.0
    teacher: int = -1      # the teacher's choice here, where the plan asks for one
    visits: np.ndarray | None = None   # a searching controller's visits per action (its target)


@dataclass
class Seat:
    controller: str                      # a learner name, a model file, or a scripted player
    learner: str | None                  # the learner whose segment this seat feeds
    segment: list = field(default_factory=list)


@dataclass
class LiveBattle:
    matchup: Matchup
    seats: dict                          # side -> Seat
    learner_side: str


@dataclass
class Rollout:
    """The shipped transitions of one collect() and the battles that ended in it. `records` and
    `priv_records` are raw record bytes (N, record_bytes); the trainer views them as obs."""
    records: np.ndarray
    priv_records: np.ndarray
    actions: np.ndarray
    logprobs: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    raw_returns: np.ndarray
    outcomes: np.ndarray
    learner: np.ndarray                  # index into LEARNERS
    teacher: np.ndarray                  # the teacher's choices (-1 where none was asked)
    target_actions: np.ndarray           # (N, TARGET_WIDTH) what the policy imitates: the actions
    target_probs: np.ndarray             # and their weights (a search's visits, else the action
                                         # chosen with weight 1; -1 and 0 pad)
    results: list                        # (kind, learner, opponent, score of the learner's seat)
    decisions: int                       # every decision made, all seats
    errors: list
    seconds: float


class RolloutWorker:
    def __init__(self, cfg: dict, index: int = 0):
        torch.set_num_threads(1)
        self.cfg = cfg
        self.index = index
        self.sim = Simulator(cfg["contract"])
        self.eval_sim = None                 # evaluation battles, apart from the rollouts' own
        self.contract = self.sim.contract
        self.rng = np.random.default_rng([cfg["seed"], index])
        self.torch_rng = torch.Generator().manual_seed(cfg["seed"] * 1000 + index)
        self.learners: dict[str, PolicyNet] = {}
        self.frozen: OrderedDict[str, PolicyNet] = OrderedDict()  # model files, least recent first
        self.files: dict[str, str] = {}      # model files plans name -> where they are here, if elsewhere
        self.scripted = {}
        self.battles: dict[str, LiveBattle] = {}
        self.step = None
        self.counter = 0
        self.reward_scale = 1.0
        self.teacher = None                  # whose choices to record beside the learner's (plan)
        self.pupil = 0.0                     # the share of a teacher's seat the main policy plays (plan)
        self.dropped: list[str] = []         # battles given up since the last rollout, and why

    # --- policies ---------------------------------------------------------------------------
    def set_weights(self, weights: dict[str, bytes]):
        for name, blob in weights.items():
            state = torch.load(io.BytesIO(blob), weights_only=True)
            if name not in self.learners:
                self.learners[name] = network_class(self.contract)(self.contract, self.cfg["model"]["preset"])
            self.learners[name].load_state_dict(state)
            self.learners[name].eval()

    def model_for(self, controller: str) -> PolicyNet | None:
        """The network that plays `controller`: a learner's, or a model file's (a league
        snapshot); None for a player made from a spec (a spec around a model file, e.g.
        native(iterations=3000):PATH.zip, is a player: the name ends in .zip, but it is not a file's)."""
        if controller in self.learners:
            return self.learners[controller]
        if controller.endswith(".zip") and ":" not in controller:
            if controller not in self.frozen:
                self.frozen[controller], _ = load_model(self.files.get(controller, controller), self.contract)
                while len(self.frozen) > 16:
                    self.frozen.popitem(last=False)
            self.frozen.move_to_end(controller)
            return self.frozen[controller]
        return None

    def player_for(self, name: str):
        if name not in self.scripted:
            # (the format: `agent` in a spec is the model shipped for the format trained on)
            self.scripted[name] = make_player(name, seed=int(self.rng.integers(1 << 31)), fmt=self.cfg["format"])
        return self.scripted[name]

    # --- battles ----------------------------------------------------------------------------
    def new_battles(self, matchups: list, weights: np.ndarray) -> list[dict]:
        specs = []
        while len(self.battles) < self.cfg["rollout"]["battles_per_worker"]:
            m = matchups[self.rng.choice(len(matchups), p=weights)]
            self.counter += 1
            battle_id = f"w{self.index}-{self.counter}"
            side = "p1" if self.counter % 2 else "p2"
            other = "p2" if side == "p1" else "p1"
            opp_learns = m.learner if m.kind == "pure" else None
            self.battles[battle_id] = LiveBattle(m, {side: Seat(m.controller or m.learner, m.learner),
                                               other: Seat(m.opponent, opp_learns)}, side)
            seed = self.rng.integers(65536, size=4)
            specs.append({"id": battle_id, "format": self.cfg["format"], "seed": ",".join(map(str, seed)),
                          "privileged": True})
        return specs

    def collect(self, plan: dict) -> Rollout:
        """Plays until `plan['decisions']` learner transitions are shipped. plan: weights
        ({learner: state-dict bytes}), matchups (list of Matchup), shares (their weights),
        reward_scale, gamma, lam, rewards (the reward config)."""
        start = time.perf_counter()
        self.dropped = []
        self.set_weights(plan.get("weights", {}))
        self.reward_scale = plan.get("reward_scale", 1.0)
        self.teacher = plan.get("teacher")
        self.pupil = plan.get("pupil", 0.0)
        matchups = plan["matchups"]
        shares = np.asarray(plan["shares"], dtype=np.float64)
        shares = shares / shares.sum()
        shipped: list[tuple[str, list, bool, float, float]] = []
        results, errors, decisions, recorded = [], [], 0, 0
        if self.step is None:
            self.step = self.sim.start(self.new_battles(matchups, shares))
        while True:
            step = self.step
            errors += [str(err) for err in step.errors]
            for e in step.ended:
                battle = self.battles.pop(e.battle, None)
                if battle is not None:
                    self.finish(battle, e, shipped, results, errors)
            if recorded >= plan["decisions"]:
                break
            actions, learned = self.act(step)
            decisions += len(actions)
            recorded += learned
            self.step = self.sim.step(actions, self.new_battles(matchups, shares))
        return self.package(shipped, results, decisions, errors + self.dropped, time.perf_counter() - start, plan)

    def finish(self, battle: LiveBattle, e, shipped: list, results: list, errors: list):
        """A battle ended: its learners' segments end with the win reward (none if it failed)."""
        if e.error:
            errors.append(f"{e.battle}: {e.error}")
        for side, seat in battle.seats.items():
            if seat.learner and seat.segment:
                if not e.error:
                    seat.segment[-1].reward += outcome_reward(e.winner, side, self.cfg["rewards"])
                shipped.append((seat.learner, seat.segment, True, 0.0, np.nan if e.error else score(e.winner, side)))
                seat.segment = []
        if not e.error:
            m = battle.matchup
            results.append((m.kind, m.learner, m.opponent, score(e.winner, battle.learner_side)))

    def act(self, step) -> tuple[list, int]:
        """Chooses for every waiting decision; records the transitions of learning seats (a
        seat a teacher plays records the teacher's choices). -> (actions, the number of learner
        transitions recorded)."""
        learned = 0
        groups: dict[str, list] = {}
        for k, d in enumerate(step.decisions):
            battle = self.battles.get(d.battle)
            if battle is None:
                continue
            groups.setdefault(battle.seats[d.side].controller, []).append(k)
        actions = []
        for controller, ks in groups.items():
            ds = [step.decisions[k] for k in ks if step.decisions[k].battle in self.battles]
            if not ds:   # given up in an earlier group (the other seat's)
                continue
            rows = [d.row for d in ds]
            try:
                model = self.model_for(controller)
            except ModelError as e:
                # a league snapshot that can no longer be read: its battles alone are given up
                self.give_up({d.battle for d in ds}, str(e))
                continue
            obs = {n: v[rows] for n, v in step.obs.items()}
            if model is None:
                keys = [(d.battle, d.side) for d in ds]
                player = self.player_for(controller)
                chosen, failed = decide(player, keys, obs, self.sim, greedy=False)
                searched = getattr(player, "last_visits", {})   # a searching teacher's visits
                for battle, why in failed.items():   # a scripted player that raised: those battles alone end
                    self.give_up({battle}, why)
                if failed:
                    keep = [j for j, d in enumerate(ds) if d.battle not in failed]
                    ds, rows, chosen = [ds[j] for j in keep], [rows[j] for j in keep], chosen[keep]
                    obs = {n: v[keep] for n, v in obs.items()}
                logp = values = np.zeros(len(ds), dtype=np.float32)
                visits = [searched.get((d.battle, d.side)) for d in ds]
            else:
                visits = None
            learning = [self.battles[d.battle].seats[d.side].learner is not None for d in ds]
            prows = [d.priv if d.priv >= 0 else d.row for d in ds]
            if model is not None:
                priv = {n: v[prows] for n, v in step.obs.items()} if any(learning) else None
                with torch.no_grad():
                    logits, value, _ = model(to_tensors(obs), to_tensors(priv) if priv is not None else None)
                    logp_all = torch.log_softmax(logits, -1)
                    picked = sample(logp_all.exp(), self.torch_rng)
                    logp = logp_all.gather(1, picked.unsqueeze(1)).squeeze(1).numpy()
                chosen, values = picked.numpy(), value.numpy()
            played = self.pupil_plays(obs, chosen, learning) if model is None and self.pupil else chosen
            actions += [(d.battle, d.side, int(a)) for d, a in zip(ds, played)]
            if any(learning):
                learned += sum(learning)
                teacher = self.teacher_choices(ds, obs, learning) if model is not None else None
                self.record(step, ds, rows, prows, learning, chosen, logp, values, teacher, visits)
        # (a battle given up above may have had the other side's choice made already)
        return [a for a in actions if a[0] in self.battles], learned

    def give_up(self, ids: set, why: str):
        """Ends battles that cannot go on, without their transitions; the rollout reports why."""
        self.sim.abort(sorted(ids))
        for battle_id in ids:
            if self.battles.pop(battle_id, None) is not None:
                self.dropped.append(f"{battle_id}: {why}")

    def pupil_plays(self, obs, chosen: np.ndarray, learning: list) -> np.ndarray:
        """`chosen` (a teacher's) with the main policy's likeliest action in its place at each
        learning seat's decision with probability self.pupil: the states the pupil walks into,
        for the teacher to label (DAgger)."""
        with torch.no_grad():
            logits, _, _ = self.learners["main"](to_tensors(obs), None)
        mine = logits.argmax(-1).numpy()
        swap = np.asarray(learning) & (self.rng.random(len(chosen)) < self.pupil)
        return np.where(swap, mine, chosen)

    def teacher_choices(self, ds, obs, learning) -> np.ndarray | None:
        """What the plan's teacher would choose at the learning seats' decisions (-1 elsewhere),
        for the pull towards it in PPO; None without a teacher."""
        if not self.teacher:
            return None
        idx = [j for j, ok in enumerate(learning) if ok]
        keys = [(ds[j].battle, ds[j].side) for j in idx]
        picked = self.player_for(self.teacher).act(Decisions(keys, {n: v[idx] for n, v in obs.items()}, self.sim))
        out = np.full(len(ds), -1, dtype=np.int64)
        out[idx] = picked
        return out

    def record(self, step, ds, rows, prows, learning, chosen, logp, values, teacher=None, visits=None):
        """Appends each learning seat's transition (the record as raw bytes) to its segment, and
        the shaping reward of what happened since to the one before; `visits`: a searching
        controller's visits per action at each decision (None where it gave none)."""
        raw = self.sim.records(rows)
        raw_priv = self.sim.records(prows)
        phi = shaping_features(step.obs, rows, self.contract)
        for j, d in enumerate(ds):
            if not learning[j]:
                continue
            seat = self.battles[d.battle].seats[d.side]
            if seat.segment:
                prev = seat.segment[-1]
                prev.reward += shaped_reward(prev.phi, phi[j], self.cfg["rewards"])
            seat.segment.append(Transition(raw[j], raw_priv[j] if d.priv >= 0 else np.zeros_like(raw[j]),
                                           int(chosen[j]), float(logp[j]), float(values[j]), phi[j],
                                           teacher=-1 if teacher is None else int(teacher[j]),
                                           visits=None if visits is None else visits[j]))

    def package(self, shipped, results, decisions, errors, seconds, plan) -> Rollout:
        """Ships finished segments whole, and every open segment but its last transition (its
        value bootstraps the rest; it stays for the next rollout)."""
        for battle in self.battles.values():
            for seat in battle.seats.values():
                if seat.learner and len(seat.segment) > 1:
                    last = seat.segment[-1]
                    shipped.append((seat.learner, seat.segment[:-1], False, last.value, np.nan))
                    seat.segment = [last]
        cols = {k: [] for k in ("records", "priv_records", "actions", "logprobs", "values", "advantages", "returns",
                                "raw_returns", "outcomes", "learner", "teacher", "target_actions",
                                "target_probs")}
        for learner, seg, done, bootstrap, outcome in shipped:
            rewards = np.array([t.reward for t in seg])
            values = np.array([t.value for t in seg])
            dones = np.zeros(len(seg))
            dones[-1] = 1.0 if done else 0.0
            adv, ret = gae(rewards / self.reward_scale, values, dones, bootstrap, plan["gamma"], plan["lam"])
            _, raw_ret = gae(rewards, np.zeros(len(seg)), dones, 0.0, plan["gamma"], 1.0)
            cols["records"].append(np.stack([t.record for t in seg]))
            cols["priv_records"].append(np.stack([t.priv_record for t in seg]))
            cols["actions"].append(np.array([t.action for t in seg], dtype=np.int64))
            cols["logprobs"].append(np.array([t.logprob for t in seg], dtype=np.float32))
            cols["values"].append(values.astype(np.float32))
            cols["advantages"].append(adv.astype(np.float32))
            cols["returns"].append(ret.astype(np.float32))
            cols["raw_returns"].append(raw_ret.astype(np.float32))
            cols["outcomes"].append(np.full(len(seg), outcome, dtype=np.float32))
            cols["learner"].append(np.full(len(seg), LEARNERS.index(learner), dtype=np.int8))
            cols["teacher"].append(np.array([t.teacher for t in seg], dtype=np.int64))
            targets = [imitation_target(t.action, t.visits) for t in seg]
            cols["target_actions"].append(np.stack([a for a, _ in targets]))
            cols["target_probs"].append(np.stack([p for _, p in targets]))
        size = self.contract.record_bytes
        empty = {"records": np.zeros((0, size), np.uint8), "priv_records": np.zeros((0, size), np.uint8),
                 "actions": np.zeros(0, np.int64), "teacher": np.zeros(0, np.int64), "learner": np.zeros(0, np.int8),
                 "target_actions": np.zeros((0, TARGET_WIDTH), np.int64),
                 "target_probs": np.zeros((0, TARGET_WIDTH), np.float32)}
        arrays = {k: np.concatenate(v) if v else empty.get(k, np.zeros(0, np.float32)) for k, v in cols.items()}
        return Rollout(**arrays, results=results, decisions=decisions, errors=errors, seconds=seconds)

    def reset(self, _=None) -> int:
        """Abandons every battle (e.g. the teacher's, once imitation is done); -> how many."""
        n = self.sim.abort()
        self.battles, self.step = {}, None
        return n

    def close(self):
        self.sim.close()
        if self.eval_sim is not None:
            self.eval_sim.close()


def evaluate(worker: RolloutWorker, job: dict) -> list[float]:
    """Plays job['indices'] battles of learner job['learner'] (sampling its policy) against
    job['opponent'] (a scripted player or a model file); -> the learner's scores."""
    worker.set_weights(job.get("weights", {}))
    a = NeuralPlayer(worker.learners[job["learner"]], seed=int(worker.rng.integers(1 << 31)))
    opp = worker.model_for(job["opponent"])
    b = (NeuralPlayer(opp, seed=int(worker.rng.integers(1 << 31))) if opp is not None
         else worker.player_for(job["opponent"]))
    if worker.eval_sim is None:
        worker.eval_sim = Simulator(worker.cfg["contract"])
    scores = []
    for r in play(a, b, worker.cfg["format"], job["indices"], seed=job["seed"], backend=worker.eval_sim,
                  prefix=f"eval{worker.index}"):
        if r.winner is not None:
            scores.append(1.0 if r.winner == "a" else 0.5 if r.winner == "tie" else 0.0)
    return scores


def imitation_target(action: int, visits: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(actions, weights), TARGET_WIDTH each, of what the policy imitates at a decision: a
    search's visit distribution (its most visited first, the rest dropped past TARGET_WIDTH),
    or the action chosen with weight 1 where no search gave visits; -1 and 0 pad."""
    actions = np.full(TARGET_WIDTH, -1, dtype=np.int64)
    weights = np.zeros(TARGET_WIDTH, dtype=np.float32)
    if visits is None or not visits.sum() > 0:
        actions[0], weights[0] = action, 1.0
        return actions, weights
    top = np.argsort(-visits, kind="stable")[:TARGET_WIDTH]
    top = top[visits[top] > 0]
    actions[:len(top)] = top
    weights[:len(top)] = visits[top] / visits[top].sum()
    return actions, weights
