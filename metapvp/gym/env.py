"""A single-agent gymnasium environment: the agent plays one side of a battle against any player
spec, on the in-process simulator.

Observation: a dict of the contract's features (see docs/contract.md; default: the shipped
agent's contract) for the agent's side, keyed with '_' for '.' ("pokemon_species"; see
metapvp.gym.spaces). The legal-action mask is in the observation as "action_mask", in
info["action_mask"], and from action_masks() (the method sb3-contrib's Maskable PPO calls).
Action: an index into the
contract's 60 joint actions. An illegal action counts as an invalid choice and the agent is asked
again with the same observation (reward 0). Reward: `rewards["win"]`, `["loss"]` or `["tie"]` when
the battle ends; between decisions, where `rewards` gives them weights, the shaping the project's
trainer uses (metapvp.training.rewards: `damage_dealt`, `damage_taken` in whole Pokemon' HP,
`faint_dealt`, `faint_taken`), 0 without. With `log_dir`, each finished battle is logged as
head2head logs it (LOG_DIR/logs/battle-FORMAT-NNNNNN.log.json.gz, numbered by episode), for
`metapvp replay LOG_DIR`."""
from __future__ import annotations

import gymnasium as gym
import numpy as np

from metapvp.arena.rundir import battle_log_path, write_log_at
from metapvp.engine import Simulator
from metapvp.gym.spaces import DEFAULT_CONTRACT, action_space, obs_row, observation_space
from metapvp.players import Decisions, make_player
from metapvp.training.rewards import shaped_reward, shaping_features

DEFAULT_REWARDS = {"win": 1.0, "loss": -1.0, "tie": 0.0,
                   "damage_dealt": 0.0, "damage_taken": 0.0, "faint_dealt": 0.0, "faint_taken": 0.0}


def reward_weights(rewards: dict | None) -> dict:
    """DEFAULT_REWARDS with `rewards` over them; a ValueError naming an unknown key."""
    unknown = sorted(set(rewards or {}) - set(DEFAULT_REWARDS))
    if unknown:
        raise ValueError(f"rewards: unknown key(s) {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(DEFAULT_REWARDS)}")
    return {**DEFAULT_REWARDS, **(rewards or {})}


class Shaping:
    """The shaping reward of each battle between the agent's decisions, by the trainer's rule
    (metapvp.training.rewards); 0 throughout where the weights give none."""

    def __init__(self, weights: dict, contract):
        self.weights, self.contract = weights, contract
        self.on = any(weights[k] for k in ("damage_dealt", "damage_taken", "faint_dealt", "faint_taken"))
        self.features: dict[str, np.ndarray] = {}   # battle id -> features at its last decision

    def reward(self, battle: str, obs: dict, row: int) -> float:
        """The shaping since `battle`'s last decision (0 at its first); obs: contract-named rows."""
        if not self.on:
            return 0.0
        features = shaping_features(obs, [row], self.contract)[0]
        before = self.features.get(battle)
        self.features[battle] = features
        return 0.0 if before is None else shaped_reward(before, features, self.weights)

    def forget(self, battle: str):
        self.features.pop(battle, None)


def draw_seed(rng: np.random.Generator) -> str:
    return ",".join(str(int(x)) for x in rng.integers(0, 65536, 4))


def outcome(winner: str, side: str) -> str:
    """A finished battle for `side`: 'win', 'loss', or 'tie' (winner '')."""
    return "tie" if not winner else "win" if winner == side else "loss"


def seeded_opponent(spec: str, fmt: str, rng: np.random.Generator):
    """The opponent `spec`, its own sampling seeded from `rng`: an environment reset with a seed
    replays the same battles, the opponent's choices included."""
    return make_player(spec, seed=int(rng.integers(1 << 31)), fmt=fmt)


class PokemonEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, format: str = "gen9randombattle", opponent: str = "random", side: str = "p1",
                 rewards: dict | None = None, team: str | None = None, opponent_team: str | None = None,
                 contract=DEFAULT_CONTRACT, log_dir: str | None = None):
        if side not in ("p1", "p2"):
            raise ValueError(f"side must be p1 or p2, not {side!r}")
        self.format, self.side = format, side
        self.foe_side = "p2" if side == "p1" else "p1"
        self.rewards = reward_weights(rewards)
        self.teams = {side: team, self.foe_side: opponent_team} if team or opponent_team else {}
        self.sim = Simulator(contract)
        self.opponent_spec = opponent
        self.log_dir = log_dir
        self.opponent = make_player(opponent, fmt=format)   # fails here, on a bad spec
        self.shaping = Shaping(self.rewards, self.sim.contract)
        self.observation_space = observation_space(self.sim.contract)
        self.action_space = action_space(self.sim.contract)
        self.battle = None
        self.episodes = 0
        self.last_obs = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.opponent = seeded_opponent(self.opponent_spec, self.format, self.np_random)
        if self.battle is not None:
            self.sim.abort()
            self.shaping.forget(self.battle)
        self.episodes += 1
        self.battle = f"env-{self.episodes}"
        spec = {"id": self.battle, "format": self.format, "seed": draw_seed(self.np_random),
                "keepLog": bool(self.log_dir)}
        for side, team in self.teams.items():
            if team:
                spec[f"{side}team"] = team
        obs, _, done, info = self._advance(self.sim.start([spec]))
        if done:
            raise RuntimeError(f"battle {self.battle} ended before the agent's first decision: {info}")
        return obs, info

    def step(self, action):
        if self.battle is None:
            raise RuntimeError("step() before reset()")
        return self._unpack(self._advance(self.sim.step([(self.battle, self.side, int(action))])))

    def _unpack(self, result):
        obs, reward, done, info = result
        return obs, reward, done, False, info

    def _advance(self, step):
        """Plays the opponent until the agent has a decision or the battle ends."""
        while True:
            for e in step.ended:
                if e.error:
                    raise RuntimeError(e.error)
                result = outcome(e.winner, self.side)
                if self.log_dir and e.log:
                    write_log_at(battle_log_path(self.log_dir, self.format, self.episodes - 1), e.log)
                self.shaping.forget(self.battle)
                self.battle = None
                info = {"action_mask": np.zeros(self.action_space.n, np.int8), "outcome": result,
                        "turns": e.turns, "invalid": e.invalid}
                return self.last_obs, self.rewards[result], True, info
            if step.errors:
                raise step.errors[0]
            mine = [d for d in step.decisions if d.side == self.side]
            if mine:
                row = mine[0].row
                obs = obs_row(step.obs, row)
                self.last_obs = obs
                info = {"action_mask": obs["action_mask"].astype(np.int8), "turn": mine[0].turn}
                return obs, self.shaping.reward(self.battle, step.obs, row), False, info
            foe = [d for d in step.decisions if d.side == self.foe_side]
            if not foe:
                raise RuntimeError(f"battle {self.battle} stalled: no decision for either side")
            rows = np.asarray([d.row for d in foe])
            acts = self.opponent.act(Decisions([(d.battle, d.side) for d in foe],
                                               {k: v[rows] for k, v in step.obs.items()}, self.sim))
            step = self.sim.step([(d.battle, d.side, int(a)) for d, a in zip(foe, acts)])

    def action_masks(self) -> np.ndarray:
        """The legal actions of the decision the agent faces (bool, one per action)."""
        if self.last_obs is None or self.battle is None:
            return np.zeros(self.action_space.n, bool)
        return self.last_obs["action_mask"].astype(bool)

    def close(self):
        self.battle = None
        self.sim.close()
