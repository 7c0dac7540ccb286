"""The vector form: N battles in one V8 context, stepped together -- one call carries every
environment's action and the opponents' replies. Autoreset is same-step: an environment whose
battle ends starts a new one at once and returns its first observation, with the last
observation of the finished battle in info["final_obs"] and its outcome in info["final_info"]."""
from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from metapvp.engine import Simulator
from metapvp.gym.env import Shaping, draw_seed, outcome, reward_weights, seeded_opponent
from metapvp.gym.spaces import DEFAULT_CONTRACT, action_space, obs_key, observation_space
from metapvp.players import Decisions, make_player


class PokemonVectorEnv(VectorEnv):
    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, format: str = "gen9randombattle", opponent: str = "random",
                 side: str = "p1", rewards: dict | None = None, contract=DEFAULT_CONTRACT):
        self.num_envs, self.format, self.side = num_envs, format, side
        self.foe_side = "p2" if side == "p1" else "p1"
        self.rewards = reward_weights(rewards)
        self.sim = Simulator(contract)
        self.shaping = Shaping(self.rewards, self.sim.contract)
        self.opponent_spec = opponent
        self.opponent = make_player(opponent, fmt=format)   # fails here, on a bad spec
        self.single_observation_space = observation_space(self.sim.contract)
        self.single_action_space = action_space(self.sim.contract)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.obs = {k: np.zeros((num_envs, *s.shape), s.dtype) for k, s in self.single_observation_space.items()}
        self.env_of: dict[str, int] = {}
        self.count = 0
        self.rng = np.random.default_rng()

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.opponent = seeded_opponent(self.opponent_spec, self.format, self.rng)
        self.sim.abort()
        self.env_of = {}
        self.shaping.features.clear()
        starts = [self._spec(i) for i in range(self.num_envs)]
        rewards, done, info = self._advance(self.sim.start(starts), set(range(self.num_envs)))
        return self._copy_obs(), info

    def step(self, actions):
        actions = np.asarray(actions)
        moves = [(b, self.side, int(actions[i])) for b, i in self.env_of.items()]
        return self._finish(*self._advance(self.sim.step(moves), set(range(self.num_envs))))

    def _finish(self, rewards, done, info):
        return self._copy_obs(), rewards, done, np.zeros(self.num_envs, bool), info

    def _copy_obs(self):
        return {k: v.copy() for k, v in self.obs.items()}

    def _spec(self, i):
        self.count += 1
        battle = f"venv-{self.count}"
        self.env_of[battle] = i
        return {"id": battle, "format": self.format, "seed": draw_seed(self.rng)}

    def _advance(self, step, waiting: set[int]):
        """Plays the opponents (and restarts finished battles) until every environment in
        `waiting` has a decision for the agent."""
        rewards = np.zeros(self.num_envs, np.float64)
        done = np.zeros(self.num_envs, bool)
        final_obs = [None] * self.num_envs
        final_info = [None] * self.num_envs
        while True:
            starts = []
            for e in step.ended:
                i = self.env_of.pop(e.battle)
                result = "error" if e.error else outcome(e.winner, self.side)
                rewards[i] += self.rewards.get(result, 0.0)
                self.shaping.forget(e.battle)
                done[i] = True
                final_obs[i] = {k: v[i].copy() for k, v in self.obs.items()}
                final_info[i] = {"outcome": result, "turns": e.turns, "error": e.error}
                starts.append(self._spec(i))
            for d in step.decisions:
                if d.side == self.side:
                    i = self.env_of[d.battle]
                    rewards[i] += self.shaping.reward(d.battle, step.obs, d.row)
                    for k, v in step.obs.items():
                        self.obs[obs_key(k)][i] = v[d.row]
                    waiting.discard(i)
            foe = [d for d in step.decisions if d.side == self.foe_side]
            if not foe and not starts:
                if not waiting:
                    break
                # nothing left to play, yet these environments have no decision: never spin
                raise RuntimeError(f"battles of environments {sorted(waiting)} stalled: "
                                   f"{[b for b, i in self.env_of.items() if i in waiting]}")
            actions = []
            if foe:
                rows = np.asarray([d.row for d in foe])
                acts = self.opponent.act(Decisions([(d.battle, d.side) for d in foe],
                                                   {k: v[rows] for k, v in step.obs.items()}, self.sim))
                actions = [(d.battle, d.side, int(a)) for d, a in zip(foe, acts)]
            for s in starts:
                waiting.add(self.env_of[s["id"]])
            step = self.sim.step(actions, starts)
        info = {"action_mask": self.obs["action_mask"].astype(np.int8).copy()}
        if done.any():
            info["final_obs"] = np.array(final_obs, dtype=object)
            info["final_info"] = np.array(final_info, dtype=object)
            info["_final_obs"] = info["_final_info"] = done.copy()
        return rewards, done, info

    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) bool: the legal actions each environment's agent faces."""
        return self.obs["action_mask"].astype(bool)

    def close_extras(self, **kwargs):
        self.sim.close()
