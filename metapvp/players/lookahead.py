"""A trained policy sharpened by lookahead.

The policy names its likeliest actions; for each, the battle as the player sees it is played one
turn ahead in the simulator against each move the foe likely has (js/src/lookahead.js), then
`play_on` more turns of both sides' hardest hits, and scored by the material both sides have
left. At a forced switch the candidates are the Pokemon that could come in. The action taken
maximises

    log p(action) + weight * ((1 - caution) * mean material + caution * worst material)

so the policy's preferences stand where the turn's outcomes hardly differ (setting up, laying
hazards), and a clearly better outcome (a KO, not being KOed) overrides a small preference.
Decisions with nothing to look ahead at (team preview, a fainted or unknown foe) take the
policy's most probable action.

In doubles (js/src/lookahead.js over js/src/games/doubles.js) the candidates are the joint actions pairing each
position's `top` likeliest actions (the policy's marginals), and the foe's answers are each of
its positions taking one of its two hardest hits."""
from __future__ import annotations

import logging

import numpy as np

from metapvp.players.base import Decisions, GuidedPlayer, joint_candidates, likeliest

log = logging.getLogger(__name__)


DEFAULT_WEIGHT = 4.0


class LookaheadPlayer(GuidedPlayer):
    """`policy`: a NeuralPlayer (its probabilities as trained are read); `top`: how many of its
    likeliest legal actions are looked at (fewer than that where the rest are below `floor`; in
    doubles, per position); `play_on`: turns played after the one looked at, both sides taking
    their hardest hit; `samples`: draws of the battle's chances each outcome is averaged over.
    The defaults are the measured ones (docs/agent.md, "Looking ahead at decision time"; in
    doubles `agent` weighs the material by 8, docs/doubles.md, "Looking ahead")."""
    game_types = ("singles", "doubles")

    def __init__(self, policy, top: int = 3, floor: float = 0.02, weight: float = DEFAULT_WEIGHT, caution: float = 0.5,
                 play_on: int = 0, samples: int = 1):
        if top < 1 or not weight >= 0 or not 0 <= caution <= 1 or samples < 1:
            raise ValueError(f"lookahead: top >= 1, weight >= 0, 0 <= caution <= 1 and samples >= 1, "
                             f"got {top}, {weight}, {caution}, {samples}")
        super().__init__(policy)
        self.name = f"lookahead:{policy.name}"
        self.top, self.floor, self.weight, self.caution = top, floor, weight, caution
        self.play_on, self.samples = play_on, samples
        self.looked = self.overruled = 0  # decisions looked ahead at; of them, where the policy's choice lost
        self.failed = 0                   # decisions whose lookahead failed (the policy decided alone)

    def choose(self, decisions: Decisions, probs: np.ndarray) -> np.ndarray:
        """The actions kept, given the policy's probabilities for these decisions (evaluate())."""
        probs = probs * decisions.mask
        chosen = probs.argmax(-1)
        candidates = [self.candidates(row) for row in probs]
        ask = [i for i, c in enumerate(candidates) if len(c) > 1]
        if not ask:
            return chosen
        values = decisions.state.lookahead([decisions.keys[i] for i in ask], [candidates[i] for i in ask],
                                           self.play_on, self.samples)
        for i, found in zip(ask, values):
            if isinstance(found, dict):
                self.failed += 1
                log.warning("lookahead failed in %s: %s; the policy decides", decisions.keys[i], found.get("error"))
                continue
            if found is None:
                continue
            best = self.best(probs[i], candidates[i], found)
            self.looked += 1
            if best is not None and best != chosen[i]:
                self.overruled += 1
                chosen[i] = best
        return chosen

    def candidates(self, p: np.ndarray) -> list[int]:
        if self.game_type == "doubles":
            return joint_candidates(p, self.top, self.floor)
        return likeliest(p, self.top, self.floor)

    def best(self, p: np.ndarray, candidates: list[int], found: list) -> int | None:
        """The candidate with the highest score; None where no candidate has a value."""
        material = np.array([np.nan if v is None or v[0] is None else
                             (1 - self.caution) * v[0] + self.caution * v[1] for v in found], dtype=np.float64)
        if np.isnan(material).all():
            return None
        material = np.where(np.isnan(material), np.nanmin(material), material)
        score = np.log(np.maximum(p[candidates], 1e-12)) + self.weight * material
        return candidates[int(score.argmax())]
