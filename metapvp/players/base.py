"""The player API: a player gets a batch of decision points and returns one action each."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metapvp import contract as contracts
from metapvp.engine.types import BattleViews


@dataclass
class Decisions:
    """Decision points for one player, across many battles.

    keys: (battle id, side) per decision; obs: the contract's features, one row per decision;
    state: what holds the battles (a backend, or the bridge in live play), which players may ask
    for read-only facts (scripted policies, lookahead)."""
    keys: list[tuple[str, str]]
    obs: dict[str, np.ndarray]
    state: BattleViews

    @property
    def mask(self) -> np.ndarray:
        return self.obs["action.mask"]

    def __len__(self):
        return len(self.keys)


class Player:
    """Subclasses implement act(); greedy asks a stochastic player for its best action.
    `contract`: the contract a player must be fed (a trained model's), None for any."""
    name = "player"
    contract: str | None = None
    thinks = False
    """Whether the player has thoughts to keep (a policy's probabilities, a search's visits):
    scripted players have none, and head2head keeps thoughts by default only where one has
    some (recording costs a few percent of a fast scripted run)."""
    thinking = False
    """Whether act() keeps what it made of each decision in `thoughts`: set by whoever records
    them (metapvp/arena/thoughts.py); unset, nothing is kept and nothing costs."""
    thoughts: dict = {}
    """{decision key: what the player made of it} of the last act(), where `thinking`: any of
    "prior" (per action, the policy's probability), "win" (its chance to win), "visits" (per
    action, the search's share of its visits), "value" (per action, the search's mean value, None
    where unvisited) and "worlds" (per world searched, the foe's team as drawn)."""

    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        raise NotImplementedError


class GuidedPlayer(Player):
    """A trained policy sharpened at decision time (lookahead, search): the policy's
    probabilities as trained go to choose(), which keeps one action per decision. The move API
    reports evaluate()'s probabilities and plays what choose() keeps. `game_types`: the battles
    a subclass plays."""
    game_types = ("singles",)
    thinks = True

    def __init__(self, policy):
        self.policy = policy           # a NeuralPlayer
        self.contract = policy.contract
        self.game_type = contracts.load(self.contract).game_type if self.contract else "singles"
        if self.game_type not in self.game_types:
            raise ValueError(f"{type(self).__name__} plays {' and '.join(self.game_types)} battles; its model reads "
                             f"{self.contract}, a {self.game_type} contract")

    @property
    def generator(self):
        return self.policy.generator

    def evaluate(self, obs: dict[str, np.ndarray]):
        """The policy's own probabilities and win estimate."""
        return self.policy.evaluate(obs)

    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        if len(decisions) == 0:
            return np.zeros(0, dtype=np.int64)
        probs, win = self.policy.evaluate(decisions.obs)
        self.notes = {}
        chosen = self.choose(decisions, probs)
        if self.thinking:
            self.thoughts = {key: {"prior": probs[i], "win": float(win[i]), **self.notes.get(key, {})}
                             for i, key in enumerate(decisions.keys)}
        return chosen

    def choose(self, decisions: Decisions, probs: np.ndarray) -> np.ndarray:
        """The actions kept; where `thinking`, what the sharpening found of a decision goes to
        self.notes[key] (its "visits", "value", "worlds": Player.thoughts)."""
        raise NotImplementedError


def likeliest(p: np.ndarray, top: int, floor: float) -> list[int]:
    """The `top` likeliest actions of `p`, most probable first, those below `floor` left out but
    for the first."""
    order = np.argsort(-p)[:top]
    return [int(a) for k, a in enumerate(order) if p[a] > 0 and (k == 0 or p[a] >= floor)]


def joint_candidates(p: np.ndarray, top: int, floor: float) -> list[int]:
    """Doubles: the allowed pairs (p > 0) of each position's `top` likeliest actions by the
    policy's marginals (as likeliest()), the likeliest pair first. The joint table is square: a
    = p0 * n + p1."""
    n = int(round(np.sqrt(p.size)))
    joint = p.reshape(n, n)
    picks = [likeliest(joint.sum(1), top, floor), likeliest(joint.sum(0), top, floor)]
    pairs = [int(a0 * n + a1) for a0 in picks[0] for a1 in picks[1] if joint[a0, a1] > 0]
    return sorted(pairs, key=lambda a: -p[a]) or [int(p.argmax())]


def allowed(action: int, mask: np.ndarray, probs: np.ndarray | None = None) -> int:
    """`action` where the decision's mask allows it; else the one rule for a masked action: the
    allowed action the player thinks most probable (`probs`, where it has them), or else the
    first allowed one. The mask must allow something."""
    if mask[action]:
        return int(action)
    legal = np.flatnonzero(mask)
    return int(legal[np.argmax(probs[legal])] if probs is not None else legal[0])


def contract_for(*players) -> str | None:
    """The one contract these players need fed (None where none needs one in particular); a
    ValueError naming them where two need different ones."""
    wanted = {p.contract: p for p in players if getattr(p, "contract", None)}
    if len(wanted) > 1:
        raise ValueError("these players need different contracts: " +
                         ", ".join(f"{p.name} needs {c}" for c, p in wanted.items()) +
                         " (one battle is encoded with one contract)")
    return next(iter(wanted), None)
