"""Scripted baselines. Their rules:

- random: uniform over the legal actions (the mask), from a seeded generator.
- first: the first legal action (lowest index: move 1 before move 2 before any switch).
- maxdamage: the legal move with the highest base power x type effectiveness x STAB (1.5);
  the first legal action when no move does damage; forced switches take the first legal Pokemon.
- heuristic: estimates each move's damage from its stats (its own exactly, the foe's from its
  species at random-battle spreads), boosts, STAB, type, accuracy and hits; takes a KO when it has
  one (a priority KO when slower); switches out of a bad matchup (the foe threatens >= 60% of its
  HP and it deals < 35%) to the team member whose matchup is clearly better; otherwise lays
  hazards while the foe has >= 3 Pokemon left, sets up when safe (boosting attack, special attack
  or speed, below +2, above 60% HP), heals below 45% HP when safe; Terastallizes when the tera
  STAB makes the best move stronger, and counts Z-moves and Max Moves as 1.5x and Mega Evolution
  as 1.1x, so it uses them when they make the strongest hit. Forced switches go to the best
  matchup.

maxdamage and heuristic run in JavaScript, where the battle state is (js/src/scripted.js)."""
from __future__ import annotations

import numpy as np

from metapvp.players.base import Decisions, Player


class RandomPlayer(Player):
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        mask = decisions.mask
        # a uniform pick per row: the argmax of random keys over the legal actions
        keys = self.rng.random(mask.shape) * mask
        return keys.argmax(axis=1)


class FirstLegalPlayer(Player):
    name = "first"

    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        return decisions.mask.argmax(axis=1)


class ScriptedPlayer(Player):
    """A scripted player of js/src/games/ (its rules in js/src/scripted.js, doublesscripted.js),
    run in the battles' own V8 context in one call."""

    def __init__(self, name: str):
        self.name = name

    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        return np.asarray(decisions.state.scripted(self.name, decisions.keys), dtype=np.int64)
