"""A trained policy that searches before it acts.

For every decision with more than one legal action, a Monte Carlo tree search runs in the
simulator (js/src/search.js): both sides choose at once at every node (decoupled PUCT), over
several worlds drawn from what the player cannot see (the foe's sets, its unseen Pokemon), with
chance sampled along the way. Our prior at the root is the policy's; new positions are valued,
after `play_on` turns of both sides' hardest hits (1: as the two-turn lookahead looks), by
material, by the network's value head (the position encoded as the player would see it), or a
blend; where the network values a position it reached without turns played on, its policy is our
prior there.

By default our root choices are searched by sequential halving over the policy's `halve` (4)
likeliest: every candidate visited alike in rounds, the worse half dropped after each by

    log p(action) + weight * value(action)

where value is the search's mean value of the action; the last one standing is played. A few
dozen visits estimate an action's value better than they rank actions by visits, and the
policy's preferences stand where the values hardly differ. With `halve` 0 our root choices are
picked by PUCT like every other, and the action played is the one with the highest score above
(an action never tried counting the tried ones' mean value), or with `weight` 0 the one visited
most. Where the search fails or has nothing to search, the policy decides alone.

The budget is visits (`nodes`: the same seed gives the same choice every time) or time (`ms`).

In doubles (js/src/doublessearch.js) our root candidates are the joint actions pairing each
position's three likeliest actions (the policy's marginals, as the lookahead pairs them), below
the root each side chooses among its positions' two hardest hits; leaves are valued as in
singles, but the network's policy gives no prior below the root (the options there are
hardest-hit pairs, not the action table's).

With `scripted` players named (the spec's `s`: `heuristic` and `maxdamage`), each one's choice at
the decision joins our root candidates with the prior of the policy's likeliest action, so the
search weighs a plan the policy may rank low (docs/doubles.md, "Scripted root candidates")."""
from __future__ import annotations

import logging

import numpy as np

from metapvp.engine.types import EngineError
from metapvp.players.base import Decisions, GuidedPlayer, joint_candidates

log = logging.getLogger(__name__)

# Measured (docs/agent.md, "Search"): the budget keeps a decision near 200 ms on one core here.
DEFAULT_NODES = 64
DEFAULT_WORLDS = 2
DEFAULT_NET = 0.0
DEFAULT_WEIGHT = 16.0  # measured: docs/agent.md, "Measured (2026-11-25)"
DEFAULT_HALVE = 4
DEFAULT_PLAY_ON = 1
DOUBLES_TOP, DOUBLES_FLOOR = 3, 0.02  # each position's likeliest actions paired at a doubles root
FOE_PRIORS = ("damage", "uniform", "network", "heuristic", "maxdamage")  # the foe's prior (js/src/search.js)
SCORES = ("material", "worth")  # how the search scores a position (js/src/evaluation.js)
MAX_BOOST = 10.0  # the most a stage may weigh (evaluation.js refuses more too)
ROOT_SCRIPTS = ("heuristic", "maxdamage")  # the spec's `s`: their choices join the root candidates


class SearchPlayer(GuidedPlayer):
    """`policy`: a NeuralPlayer (its probabilities as trained are the root prior); `nodes` or `ms`: the
    budget per decision; `worlds`: the draws of what cannot be seen; `c`: exploration; `foe`: the
    foe's prior ('damage': by how hard each move hits, 'uniform', or 'network': at each world's root
    the policy's from the foe's seat, in singles; 'heuristic', 'maxdamage': at each world's root
    half on that scripted player's choice from the foe's seat); `net`: the network's share of a leaf's value (0:
    material alone), its leaves valued `batch` at a time per search; `odds`: instead of a share, the
    network's change in win log-odds from the root to the leaf, times `odds`, added to material's
    log-odds (0: none); `weight`: how the action is chosen (0: the one visited most; above 0, see
    the top of this module); `worst`: a root candidate's value moved that share of the way to its
    mean after the foe's reply that hurt it most (js/src/search.js); `halve`: sequential halving at
    the root over that many candidates (0: none; it needs a weight); `play_on`: turns of both sides'
    hardest hits played past a new position before it is valued (the lookahead's play-on); `paired`:
    each cycle of halving visits every candidate in one world from one draw of chance; `steady`:
    damage rolls at their mean and no critical hits inside the search; `score`: how the search
    scores a position, 'material' or 'worth' (js/src/evaluation.js), and `boost` its weight a stage
    of attack, special attack or speed (None: the scoring's own); `scripted`: scripted players whose
    choices join our root candidates, as likely as the policy's favourite."""
    game_types = ("singles", "doubles")

    def __init__(self, policy, nodes: int = DEFAULT_NODES, ms: int = 0, worlds: int = DEFAULT_WORLDS,
                 c: float = 1.5, foe: str = "damage", net: float = DEFAULT_NET, odds: float = 0.0, batch: int = 8,
                 weight: float = DEFAULT_WEIGHT, worst: float = 0.0, halve: int = DEFAULT_HALVE, play_on: int = DEFAULT_PLAY_ON,
                 paired: bool = False, steady: bool = False, score: str = "material",
                 boost: float | None = None, scripted: tuple[str, ...] = (), seed: int | None = None):
        if (nodes < 0 or ms < 0 or not (nodes or ms) or worlds < 1 or not c > 0 or foe not in FOE_PRIORS
                or not 0 <= net <= 1 or not 0 <= odds <= 100 or (net > 0 and odds > 0) or batch < 1 or not weight >= 0 or not 0 <= worst <= 1 or halve < 0
                or (halve > 1 and not weight > 0) or not 0 <= play_on <= 3 or score not in SCORES
                or not (boost is None or 0 <= boost <= MAX_BOOST)):
            raise ValueError(f"search: a budget of nodes or ms, worlds >= 1, c > 0, foe one of {', '.join(FOE_PRIORS)}, "
                             f"0 <= net <= 1, 0 <= odds <= 100 (not both above 0), batch >= 1, weight >= 0, 0 <= worst <= 1, halve >= 0 (halving needs a weight), 0 <= play_on <= 3, "
                             f"score one of {', '.join(SCORES)}, boost None or 0 to {MAX_BOOST:g}, "
                             f"got nodes={nodes}, ms={ms}, worlds={worlds}, c={c}, foe={foe!r}, net={net}, odds={odds}, "
                             f"batch={batch}, weight={weight}, worst={worst}, halve={halve}, play_on={play_on}, score={score!r}, "
                             f"boost={boost}")
        super().__init__(policy)
        self.name = f"search:{policy.name}"
        self.options = {"nodes": int(nodes), "ms": int(ms), "worlds": int(worlds), "c": float(c), "foe": foe,
                        "net": float(net), "odds": float(odds), "batch": int(batch), "weight": float(weight), "worst": float(worst), "halve": int(halve), "playOn": int(play_on),
                        "paired": bool(paired), "steady": bool(steady), "score": score,
                        "boost": None if boost is None else float(boost)}
        self.scripted = tuple(scripted)
        self.rng = np.random.default_rng(seed)
        self.searched = self.overruled = 0  # decisions searched; of them, where the policy's choice lost
        self.failed = 0                     # decisions whose search failed (the policy decided alone)
        self.nodes = self.steps = 0         # visits and simulated turns over all searches
        self.times: list[int] = []          # milliseconds each search took

    @property
    def weight(self) -> float:
        return self.options["weight"]

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
        if self.scripted:
            try:
                picks = list(zip(*(decisions.state.scripted(s, keys) for s in self.scripted)))
            except EngineError as e:   # the search goes on with the policy's candidates alone
                log.warning("scripted root candidates failed in %s: %s", keys, e)
                picks = [()] * len(ask)
            actions = [with_picks(a, probs[i], mask[i], p) for i, a, p in zip(ask, actions, picks)]
        priors = [prior(probs[i][a]) for i, a in zip(ask, actions)]
        seeds = self.rng.integers(0, 2**31 - 1, size=len(ask))
        found = decisions.state.search(keys, actions, priors, seeds, self.options,
                                       self.policy.evaluate)
        for i, a, p, result in zip(ask, actions, priors, found):
            if isinstance(result, dict) and "error" in result:
                self.failed += 1
                log.warning("search failed in %s: %s; the policy decides", decisions.keys[i], result["error"])
                continue
            if result is None:
                continue
            best = int(a[result["best"]])
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

