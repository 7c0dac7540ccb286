"""A PettingZoo ParallelEnv: one battle, both sides learnable ("p1" and "p2"), on either simulator
backend. For self-play with one's own algorithm:

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
from pettingzoo import ParallelEnv

from metapvp.backends import make_backend
from metapvp.gym.env import DEFAULT_REWARDS, draw_seed
from metapvp.gym.spaces import DEFAULT_CONTRACT, action_space, obs_row, observation_space

SIDES = ("p1", "p2")


class PokemonParallelEnv(ParallelEnv):
    metadata = {"name": "metapvp_battle_v0", "render_modes": []}
    possible_agents = list(SIDES)

    def __init__(self, format: str = "gen9randombattle", backend: str = "inprocess", contract=DEFAULT_CONTRACT,
                 rewards: dict | None = None, teams: dict | None = None):
        """teams: {"p1": team, "p2": team} for formats with user teams."""
        self.format, self.teams = format, teams or {}
        self.rewards_for = {**DEFAULT_REWARDS, **(rewards or {})}
        self.sim = make_backend(backend, contract)
        self._obs_space = observation_space(self.sim.contract)
        self._act_space = action_space(self.sim.contract)
        self.agents: list[str] = []
        self.battle: str | None = None
        self.episodes = 0
        self.rng = np.random.default_rng()
        self.last = {}

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        if self.battle is not None:
            self.sim.abort([self.battle])
        self.episodes += 1
        self.battle = f"pz-{self.episodes}"
        spec = {"id": self.battle, "format": self.format, "seed": draw_seed(self.rng)}
        for side, team in self.teams.items():
            spec[f"{side}team"] = team
        self.agents = list(SIDES)
        self.last = {side: {k: np.zeros(s.shape, s.dtype) for k, s in self._obs_space.items()} for side in SIDES}
        obs, _, _, infos = self._read(self.sim.start([spec]))
        if not self.agents:
            raise RuntimeError(f"battle {spec['id']} ended before its first decision: {infos}")
        return obs, infos

    def step(self, actions: dict):
        if self.battle is None or not self.agents:
            raise RuntimeError("step() after the battle ended: reset() first")
        moves = [(self.battle, side, int(actions[side])) for side in SIDES
                 if side in actions and self.last[side]["action_mask"].any()]
        obs, rewards, done, infos = self._read(self.sim.step(moves))
        terminations = {side: done for side in SIDES}
        truncations = {side: False for side in SIDES}
        return obs, rewards, terminations, truncations, infos

    def _read(self, step):
        """Observations, rewards, whether the battle is over, and infos, from a backend step."""
        infos = {side: {} for side in SIDES}
        rewards = {side: 0.0 for side in SIDES}
        for e in step.ended:
            if e.battle != self.battle:
                continue
            if e.error:
                raise RuntimeError(e.error)
            for side in SIDES:
                outcome = "tie" if not e.winner else "win" if e.winner == side else "loss"
                rewards[side] = self.rewards_for[outcome]
                infos[side] = {"outcome": outcome, "turns": e.turns, "invalid": e.invalid,
                               "action_mask": np.zeros(self._act_space.n, np.int8)}
            self.battle, self.agents = None, []
            return {side: self.last[side] for side in SIDES}, rewards, True, infos
        for err in step.errors:
            if err.battle == self.battle:
                raise err
        deciding = {d.side: d for d in step.decisions if d.battle == self.battle}
        if not deciding:
            raise RuntimeError(f"battle {self.battle} stalled: no decision for either side")
        for side in SIDES:
            if side in deciding:
                d = deciding[side]
                self.last[side] = obs_row(step.obs, d.row)
            else:   # nothing to decide: the last observation, nothing allowed
                self.last[side] = {**self.last[side], "action_mask": np.zeros(self._act_space.n, np.int8)}
            infos[side] = {"action_mask": self.last[side]["action_mask"].astype(np.int8),
                           "waiting": side not in deciding}
        return {side: self.last[side] for side in SIDES}, rewards, False, infos

    def action_masks(self, agent: str) -> np.ndarray:
        return self.last[agent]["action_mask"].astype(bool) if self.last else np.zeros(self._act_space.n, bool)

    def close(self):
        self.battle, self.agents = None, []
        self.sim.close()
