"""The rewards of training: the outcome at the end of a battle (`rewards.win` for a win, minus
it for a loss, 0 for a tie), and shaping between two decisions of a seat: the HP and Pokemon
each side lost, weighed by the experiment's `rewards`."""
from __future__ import annotations

import numpy as np

SHAPING = ("own_hp", "foe_hp", "own_fainted", "foe_fainted")   # the columns of shaping_features
OWN_HP, FOE_HP, OWN_FAINTED, FOE_FAINTED = range(len(SHAPING))


def shaping_features(obs: dict, rows, contract) -> np.ndarray:
    """(len(rows), SHAPING): own HP and foe HP in whole Pokemon, own and foe fainted counts."""
    present = contract.column("pokemon.flags", "present")
    fainted = contract.column("side.counts", "fainted")
    hp = obs["pokemon.hp"][rows] * obs["pokemon.flags"][rows][..., present]
    counts = obs["side.counts"][rows][..., fainted] * contract.by_name["pokemon.hp"].shape[-1]  # (/ team size)
    return np.stack([hp[:, 0].sum(-1), hp[:, 1].sum(-1), counts[:, 0], counts[:, 1]], -1)


def shaped_reward(before: np.ndarray, after: np.ndarray, weights: dict) -> float:
    """The shaping reward of going from features `before` to `after` (rows of shaping_features)."""
    own_lost, foe_lost = before[OWN_HP] - after[OWN_HP], before[FOE_HP] - after[FOE_HP]
    own_fainted = after[OWN_FAINTED] - before[OWN_FAINTED]
    foe_fainted = after[FOE_FAINTED] - before[FOE_FAINTED]
    return float(weights["damage_dealt"] * foe_lost - weights["damage_taken"] * own_lost
                 + weights["faint_dealt"] * foe_fainted - weights["faint_taken"] * own_fainted)


def score(winner: str, side: str) -> float:
    """A finished battle's score for `side`: 1 for a win, 0 for a loss, 0.5 for a tie ('')."""
    return 0.5 if not winner else float(winner == side)


def outcome_reward(winner: str, side: str, weights: dict) -> float:
    """The reward `side` gets when the battle ends: +win, -win, or 0 for a tie."""
    return (2 * score(winner, side) - 1) * weights["win"]
