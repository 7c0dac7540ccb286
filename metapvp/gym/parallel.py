"""PettingZoo: one battle with both sides learnable ("p1" and "p2"), on either simulator backend,
as a ParallelEnv; and the same for many battles of one backend (one V8 context, or one process
per battle for stdio), stepped in one call. For self-play with one's own algorithm:

    from metapvp.gym.parallel import PokemonParallelEnv
    env = PokemonParallelEnv(format="gen9randombattle")
    obs, infos = env.reset(seed=0)
    while env.agents:
        actions = {a: policy(obs[a], infos[a]["action_mask"]) for a in env.agents}
        obs, rewards, terminations, truncations, infos = env.step(actions)

Observations are the gymnasium environments' (metapvp.gym.spaces). Both sides choose at once
each turn; where one side has nothing to decide (the other sends in a Pokemon after a faint),
its mask is all zeros, infos[agent]["waiting"] is True and its action is ignored. An action the
mask does not allow is refused and that side decides again (the battle counts it as invalid).
The rewards come at the end: `rewards["win"]` to the winner, minus that to the loser."""
from __future__ import annotations

import numpy as np

try:
    from pettingzoo import ParallelEnv
except ImportError:
    raise ImportError("metapvp.gym.parallel needs PettingZoo, an optional part: pip install 'metapvp[sb3]' "
                      "(./rp installs every optional part)") from None

from metapvp.backends import make_backend
from metapvp.gym.env import Shaping, draw_seed, outcome, reward_weights
from metapvp.gym.spaces import DEFAULT_CONTRACT, action_space, obs_row, observation_space

SIDES = ("p1", "p2")


class ParallelBattles:
    """`count` battles of one backend, each with both sides as agents; battle i's state is kept
    under slot i. The one place the parallel environments read a backend's steps."""

    def __init__(self, count: int, format: str, backend: str, contract, rewards: dict | None, teams: dict | None):
        self.format, self.teams = format, teams or {}
        self.rewards = reward_weights(rewards)
        if Shaping(self.rewards, None).on:
            raise ValueError("rewards: the parallel environment rewards the outcome only "
                             "(no damage_* or faint_* weights)")
        self.sim = make_backend(backend, contract)
        self.obs_space, self.act_space = observation_space(self.sim.contract), action_space(self.sim.contract)
        self.slot_of: dict[str, int] = {}       # running battle id -> slot
        self.last = [self.blank() for _ in range(count)]   # per slot: side -> last observation
        self.started = 0
        self.rng = np.random.default_rng()

    def blank(self) -> dict:
        return {side: {k: np.zeros(s.shape, s.dtype) for k, s in self.obs_space.items()} for side in SIDES}

    def spec(self, slot: int) -> dict:
        self.started += 1
        battle = f"pz-{self.started}"
        self.slot_of[battle] = slot
        self.last[slot] = self.blank()
        spec = {"id": battle, "format": self.format, "seed": draw_seed(self.rng)}
        for side, team in self.teams.items():
            spec[f"{side}team"] = team
        return spec

    def moves(self, actions: dict[int, dict]) -> list:
        """Backend actions for {slot: {side: action}}: the sides that have a decision."""
        by_slot = {slot: battle for battle, slot in self.slot_of.items()}
        return [(by_slot[slot], side, int(a)) for slot, acts in actions.items() if slot in by_slot
                for side, a in acts.items() if side in SIDES and self.last[slot][side]["action_mask"].any()]

    def read(self, step) -> dict[int, tuple]:
        """{slot: (observations, rewards, ended, infos)} for every battle the step touched."""
        out = {}
        for e in step.ended:
            slot = self.slot_of.pop(e.battle, None)
            if slot is None:
                continue
            if e.error:
                raise RuntimeError(e.error)
            rewards, infos = {}, {}
            for side in SIDES:
                result = outcome(e.winner, side)
                rewards[side] = self.rewards[result]
                infos[side] = {"outcome": result, "turns": e.turns, "invalid": e.invalid,
                               "action_mask": np.zeros(self.act_space.n, np.int8)}
            out[slot] = (dict(self.last[slot]), rewards, True, infos)
        for err in step.errors:
            if err.battle in self.slot_of:
                raise err
        deciding: dict[int, dict] = {}
        for d in step.decisions:
            if d.battle in self.slot_of:
                deciding.setdefault(self.slot_of[d.battle], {})[d.side] = d
        for slot, sides in deciding.items():
            infos = {}
            for side in SIDES:
                if side in sides:
                    self.last[slot][side] = obs_row(step.obs, sides[side].row)
                else:   # nothing to decide: the last observation, nothing allowed
                    self.last[slot][side] = {**self.last[slot][side],
                                             "action_mask": np.zeros(self.act_space.n, np.int8)}
                infos[side] = {"action_mask": self.last[slot][side]["action_mask"], "waiting": side not in sides}
            out[slot] = (dict(self.last[slot]), dict.fromkeys(SIDES, 0.0), False, infos)
        return out

    def close(self):
        self.slot_of = {}
        self.sim.close()


class PokemonParallelEnv(ParallelEnv):
    metadata = {"name": "metapvp_battle_v0", "render_modes": []}
    possible_agents = list(SIDES)

    def __init__(self, format: str = "gen9randombattle", backend: str = "inprocess", contract=DEFAULT_CONTRACT,
                 rewards: dict | None = None, teams: dict | None = None):
        """teams: {"p1": team, "p2": team} for formats with user teams."""
        self.battles = ParallelBattles(1, format, backend, contract, rewards, teams)
        self.agents: list[str] = []

    def observation_space(self, agent):
        return self.battles.obs_space

    def action_space(self, agent):
        return self.battles.act_space

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.battles.rng = np.random.default_rng(seed)
        self.battles.sim.abort(list(self.battles.slot_of))
        self.battles.slot_of = {}
        self.agents = list(SIDES)
        obs, _, ended, infos = self.battles.read(self.battles.sim.start([self.battles.spec(0)])).get(0, (None,) * 4)
        if obs is None or ended:
            raise RuntimeError(f"battle {self.battles.started} ended or stalled before its first decision: {infos}")
        return obs, infos

    def step(self, actions: dict):
        if not self.agents:
            raise RuntimeError("step() after the battle ended: reset() first")
        got = self.battles.read(self.battles.sim.step(self.battles.moves({0: actions})))
        if 0 not in got:
            raise RuntimeError("the battle did not move: give an action for each side whose mask allows one")
        obs, rewards, ended, infos = got[0]
        if ended:
            self.agents = []
        return obs, rewards, dict.fromkeys(SIDES, ended), dict.fromkeys(SIDES, False), infos

    def action_masks(self, agent: str) -> np.ndarray:
        return self.battles.last[0][agent]["action_mask"].astype(bool)

    def close(self):
        self.agents = []
        self.battles.close()


class PokemonParallelVectorEnv:
    """`num_envs` parallel battles stepped together, one backend call per step for all of them,
    with same-step autoreset: a battle that ends is replaced at once by a new one, whose first
    observation comes back in its place; the finished battle's last observations and infos go to
    infos[i]["final_observation"] and infos[i]["final_info"] (per side)."""
    possible_agents = list(SIDES)

    def __init__(self, num_envs: int, format: str = "gen9randombattle", backend: str = "inprocess",
                 contract=DEFAULT_CONTRACT, rewards: dict | None = None, teams: dict | None = None):
        self.num_envs = num_envs
        self.battles = ParallelBattles(num_envs, format, backend, contract, rewards, teams)

    def observation_space(self, agent):
        return self.battles.obs_space

    def action_space(self, agent):
        return self.battles.act_space

    def reset(self, seed=None, options=None) -> tuple[list, list]:
        if seed is not None:
            self.battles.rng = np.random.default_rng(seed)
        self.battles.sim.abort(list(self.battles.slot_of))
        self.battles.slot_of = {}
        specs = [self.battles.spec(i) for i in range(self.num_envs)]
        obs, _, _, _, infos = self._advance(self.battles.sim.start(specs))
        return obs, infos

    def step(self, actions: list[dict]):
        """actions[i]: {side: action} for battle i -> per battle: observations, rewards,
        terminations, truncations and infos, each keyed by side."""
        return self._advance(self.battles.sim.step(self.battles.moves(dict(enumerate(actions)))))

    def _advance(self, step):
        n = self.num_envs
        obs, rewards, ended, infos = [None] * n, [dict.fromkeys(SIDES, 0.0) for _ in range(n)], [False] * n, [None] * n
        while True:
            starts = []
            for slot, (o, r, done, info) in self.battles.read(step).items():
                if done:
                    rewards[slot], ended[slot] = r, True
                    final = (o, info)
                    starts.append(self.battles.spec(slot))
                    infos[slot] = {side: {"final_observation": final[0][side], "final_info": final[1][side]}
                                   for side in SIDES}
                else:
                    obs[slot] = o
                    infos[slot] = {side: {**(infos[slot] or {}).get(side, {}), **info[side]} for side in SIDES}
            if not starts:
                break
            step = self.battles.sim.step([], starts)
        for i in range(n):
            if obs[i] is None:   # a battle given no action stays where it was
                obs[i] = dict(self.battles.last[i])
                infos[i] = {side: {"action_mask": obs[i][side]["action_mask"],
                                   "waiting": not obs[i][side]["action_mask"].any()} for side in SIDES}
        return (obs, rewards, [dict.fromkeys(SIDES, e) for e in ended],
                [dict.fromkeys(SIDES, False) for _ in range(n)], infos)

    def close(self):
        self.battles.close()
