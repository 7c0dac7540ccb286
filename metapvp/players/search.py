"""A trained policy that searches before it acts.

For every decision with more than one legal action, a Monte Carlo tree search runs in the
simulator (js/src/search.js): both sides choose at once at every node (decoupled PUCT), over
several worlds drawn from what the player cannot see (the foe's sets, its unseen Pokemon), with
chance sampled along the way. Our prior at the root is the policy's, the foe's by how hard each
move hits; new positions are valued by material after `play_on` turns of both sides' hardest
hits (1: as the two-turn lookahead looks).

By default our root choices are searched by sequential halving over the policy's `halve` (4)
likeliest: every candidate visited alike in rounds, the worse half dropped after each by

    log p(action) + weight * value(action)

where value is the search's mean value of the action; the last one standing is played. A few
dozen visits estimate an action's value better than they rank actions by visits, and the
policy's preferences stand where the values hardly differ. With `halve` 0 our root choices are
picked by PUCT like every other, and the action played is the one with the highest score above
(an action never tried counting the tried ones' mean value), or with `weight` 0 the one visited
most. Where the search fails or has nothing to search, the policy decides alone.

Every setting is a field of SearchConfig (players/searchconfig.py), with its default.

In doubles (js/src/games/doubles.js) our root candidates are the joint actions pairing each
position's three likeliest actions (the policy's marginals, as the lookahead pairs them), below
the root each side chooses among its positions' two hardest hits.

With `scripted` players named (`heuristic` and `maxdamage`), each one's choice at the decision
joins our root candidates with the prior of the policy's likeliest action, so the search weighs
a plan the policy may rank low (docs/doubles.md, "Scripted root candidates")."""
from __future__ import annotations

import logging

import numpy as np

from metapvp.engine.types import EngineError
from metapvp.players.base import Decisions, GuidedPlayer, joint_candidates
from metapvp.players.searchconfig import SearchConfig

log = logging.getLogger(__name__)

DOUBLES_TOP, DOUBLES_FLOOR = 3, 0.02  # each position's likeliest actions paired at a doubles root


class SearchPlayer(GuidedPlayer):
    """`policy`: a NeuralPlayer (its probabilities as trained are the root prior); `config`: the
    search's settings (SearchConfig; its defaults where None); `seed`: the searches' seeds."""
    game_types = ("singles", "doubles")

    def __init__(self, policy, config: SearchConfig | None = None, seed: int | None = None):
        super().__init__(policy)
        self.config = config or SearchConfig()
        self.name = f"search:{policy.name}"
        self.rng = np.random.default_rng(seed)
        self.searched = self.overruled = 0  # decisions searched; of them, where the policy's choice lost
        self.failed = 0                     # decisions whose search failed (the policy decided alone)
        self.nodes = self.steps = 0         # visits and simulated turns over all searches
        self.times: list[int] = []          # milliseconds each search took

    @property
    def weight(self) -> float:
        return self.config.weight

    def choose(self, decisions: Decisions, probs: np.ndarray) -> np.ndarray:
        """The actions the search keeps, given the policy's probabilities (evaluate())."""
        mask = decisions.mask.astype(bool)
        probs = np.where(mask, probs, 0.0)
        chosen = probs.argmax(-1)
        ask = [i for i in range(len(decisions)) if mask[i].sum() > 1]
        if not ask:
            return chosen
        keys = [decisions.keys[i] for i in ask]
        actions = [self.candidates(probs[i], mask[i]) for i in ask]
        if self.config.scripted:
            try:
                picks = list(zip(*(decisions.state.scripted(s, keys) for s in self.config.scripted)))
            except EngineError as e:   # the search goes on with the policy's candidates alone
                log.warning("scripted root candidates failed in %s: %s", keys, e)
                picks = [()] * len(ask)
            actions = [with_picks(a, probs[i], mask[i], p) for i, a, p in zip(ask, actions, picks)]
        priors = [prior(probs[i][a]) for i, a in zip(ask, actions)]
        seeds = self.rng.integers(0, 2**31 - 1, size=len(ask))
        found = decisions.state.search(keys, actions, priors, seeds, self.config.to_js())
        for i, a, result in zip(ask, actions, found):
            if isinstance(result, dict) and "error" in result:
                self.failed += 1
                log.warning("search failed in %s: %s; the policy decides", decisions.keys[i], result["error"])
                continue
            if result is None:
                continue
            best = int(a[result["best"]])
            if self.thinking:
                self.notes[decisions.keys[i]] = searched_note(a, result, mask.shape[1])
            self.searched += 1
            self.nodes += result["nodes"]
            self.steps += result["steps"]
            self.times.append(result["ms"])
            if best != chosen[i]:
                self.overruled += 1
                chosen[i] = best
        return chosen

    def candidates(self, p: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Our root candidates: every allowed action in singles (halving keeps the likeliest);
        in doubles the pairs of each position's likeliest, where the table's allowed pairs run
        to hundreds."""
        if self.game_type == "doubles":
            return np.array(joint_candidates(p, DOUBLES_TOP, DOUBLES_FLOOR), dtype=np.int64)
        return np.flatnonzero(mask)


def searched_note(candidates: np.ndarray, result: dict, width: int) -> dict:
    """A search's result as a decision's thoughts keep it (Player.thoughts): per action of the
    table, its share of the visits and its mean value (None: not searched or never visited)."""
    visits, value = np.zeros(width), [None] * width
    total = sum(result["visits"]) or 1
    for a, n, v in zip(candidates, result["visits"], result["values"]):
        visits[int(a)] = n / total
        value[int(a)] = v
    return {"visits": visits, "value": value}


def with_picks(candidates: np.ndarray, p: np.ndarray, mask: np.ndarray, picks) -> np.ndarray:
    """The candidates with the allowed `picks` added, each pick given (in `p`, changed in place)
    the probability of the likeliest candidate, so that halving over the likeliest keeps it and
    the policy's preference does not rule it out before its value is searched."""
    top = p[candidates].max() if len(candidates) else 1.0
    added = list(candidates)
    for a in map(int, picks):
        if 0 <= a < len(mask) and mask[a]:
            p[a] = max(p[a], top)
            if a not in added:
                added.append(a)
    return np.array(added, dtype=np.int64)


def prior(p: np.ndarray) -> np.ndarray:
    """The policy's probabilities over the candidates, summing to 1 (uniform where it gives them
    none)."""
    total = p.sum()
    return p / total if total > 0 else np.full(len(p), 1.0 / len(p))

