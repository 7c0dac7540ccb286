"""A player that thinks on poke-engine: at each decision, `worlds` worlds are drawn from what the
player can see (the foe's sets and unseen Pokemon, as for the search on Showdown's simulator),
each written as an engine state (js/src/enginestate.js), and the native search (search-rs/) runs
on every world, the worlds side by side in threads (the search releases the GIL). Our prior at
each world's root is the policy's probabilities over the options the engine lists (uniform for
`mcts`, which has no policy; 0, never searched, for an option the player cannot choose); the
action played is the one most visited over all worlds, the
policy's preference breaking ties. Where no world can be drawn (doubles, team preview) or a
search fails, the policy decides alone (`mcts`: the first legal action).

Singles, gen 9 (poke-engine is built for it). Spec: `mcts` (no network), `native:MODEL` and
`native(iterations=N,worlds=W):MODEL` (metapvp.players.spec)."""
from __future__ import annotations

import dataclasses
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from metapvp.engine.native import LEARNED_VALUE, SEARCH_VALUE, is_value_network, leaf_model, native
from metapvp.players.base import Decisions, GuidedPlayer, Player
from metapvp.players.searchconfig import settings_from_dict

log = logging.getLogger(__name__)

SHIPPED_LEAVES = {"learned": LEARNED_VALUE, "search": SEARCH_VALUE}   # leaf=NAME: the file it reads

# Settings measured and not kept, gone from the code (and from search-rs/), each with the value
# every search had before it was a setting and the row of the table that measured it
# (docs/agent.md, "What was tried on the native search"). A spec that names one is refused; a
# model file's metadata written while they existed may carry them at that value.
RETIRED_AT = "b94b5cc"   # the last commit that had them
RETIRED = {
    "ucb": (2 ** 0.5, "UCB1's constant"),
    "prior": ("root", "the prior below the root"),
    "tera": (75.0, "the charge for Terastallization"),
    "playout": (0, "a play-out past the leaves"),
    "stages": ("engine", "stat stages weighed by the HP left"),
    "choice": ("visits", "the root as a game"),
}
# NativeConfig.foe -> what the engine's worlds are told of the true battle (engine_worlds' `told`)
FOE_KNOWS = {"drawn": False, "told": True, "told-sets": "sets", "told-unseen": "unseen", "told-rebuilt": "rebuilt"}


@dataclass(frozen=True)
class NativeConfig:
    iterations: int = 10_000
    """Iterations of the native search in each world (with a seed: the same search every time);
    0 where `ms` is the budget."""
    ms: int = 0
    """Milliseconds each world's search runs, instead of iterations."""
    worlds: int = 2
    """Worlds drawn from what the player cannot see, searched side by side."""
    exploration: float = 1.5
    """PUCT's exploration constant, for our side at the root (where the policy's prior guides;
    `mcts`'s is uniform); the rest of the tree chooses by UCB1 (its constant sqrt(2))."""
    search: str = "ours"
    """Whose search: "ours" (search-rs/) or "poke-engine" (poke-engine's own MCTS: UCB1, no
    prior, its evaluation, not seeded; a reference for `mcts`, which has no prior either)."""
    leaf: str = "engine"
    """How new nodes are valued: "engine" (poke-engine's evaluation, relative to the root's),
    "learned" (the shipped learned value, fitted to battles' outcomes: static/models/native-value.json),
    "search" (the shipped relative value, fitted to the search's own values of positions:
    static/models/native-value-search.json), a path to one (a .json file that
    `metapvp fit-leaf` wrote), or a value network's (the value.json `metapvp fit-value` wrote)."""
    uniform: float = 0.0
    """The share of our prior at the root spread evenly over the options the player can choose,
    the rest the policy's: 0, the policy's alone; 1, uniform (as `mcts`, whose prior is uniform
    whatever this says)."""
    foe: str = "drawn"
    """What the worlds know of the foe: "drawn" (its sets and unseen Pokemon drawn from what the
    player has seen) or, diagnostics and not players, which only the in-process simulator can
    answer: "told" (every world is the true battle; docs/lab/native-agent.md, "The foe's sets
    told"), "told-sets", "told-unseen" or "told-rebuilt" (drawn worlds but for the seen Pokemon's
    true sets, the true unseen Pokemon, or both; docs/lab/worlds.md)."""
    retired: ClassVar[dict] = RETIRED
    retired_at: ClassVar[str] = RETIRED_AT

    def __post_init__(self):
        if bool(self.iterations) == bool(self.ms) or self.iterations < 0 or self.ms < 0:
            raise ValueError(f"native search: a budget of iterations or of ms, one of them "
                             f"(got iterations={self.iterations}, ms={self.ms})")
        if not 1 <= self.worlds <= 64 or not self.exploration > 0:
            raise ValueError(f"native search: worlds 1 to 64, exploration above 0 "
                             f"(got worlds={self.worlds}, exploration={self.exploration})")
        if self.search not in ("ours", "poke-engine") or (self.search == "poke-engine" and self.leaf != "engine"):
            raise ValueError(f"native search: search is ours or poke-engine, the latter with the engine's leaf "
                             f"value (got search={self.search!r}, leaf={self.leaf!r})")
        if self.leaf not in ("engine", *SHIPPED_LEAVES) and not self.leaf.endswith(".json"):
            raise ValueError(f"native search: leaf is engine, learned, search or a .json file (got {self.leaf!r})")
        if not 0 <= self.uniform <= 1:
            raise ValueError(f"native search: uniform is a share, 0 to 1 (got {self.uniform:g})")
        if self.foe not in FOE_KNOWS:
            raise ValueError(f"native search: foe is drawn or told, told-sets, told-unseen, told-rebuilt "
                             f"(got {self.foe!r})")

    def to_dict(self) -> dict:
        """The fields as plain JSON values (for a model file's metadata: the native search
        `agent` plays, metapvp/exe/ship_model.py --search)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict, where: str = "native search settings") -> NativeConfig:
        """From to_dict()'s form; SearchConfigError names, with `where`, what is wrong."""
        return settings_from_dict(cls, d, where)

    def prefix(self) -> str:
        """The spec prefix that plays this setting, as results record it: every field spelt
        out (so that a record still means the same when a default changes), the search's owner,
        the prior's uniform share and what the worlds know of the foe only where they are not
        the defaults (ours, 0, drawn), e.g. native(iterations=10000,worlds=2,exploration=1.5,leaf=engine)."""
        budget = f"ms={self.ms}" if self.ms else f"iterations={self.iterations}"
        owner = "" if self.search == "ours" else f",search={self.search}"
        uniform = f",uniform={self.uniform:g}" if self.uniform else ""
        foe = "" if self.foe == "drawn" else f",foe={self.foe}"
        return (f"native({budget},worlds={self.worlds},exploration={self.exploration:g},leaf={self.leaf}"
                f"{owner}{uniform}{foe})")

    def leaf_args(self) -> dict:
        """The search's arguments that value its leaves as `leaf` says: none for the engine's
        evaluation, the value network's path for a file `metapvp fit-value` wrote (value.json),
        else the learned leaf value's (metapvp.engine.native.leaf_model)."""
        if self.leaf == "engine":
            return {}
        path = SHIPPED_LEAVES.get(self.leaf, Path(self.leaf))
        if is_value_network(path):
            return {"value": str(path)}
        return leaf_model(path).search_args()


class NativeSearch:
    """The native search of a batch of decisions: their worlds drawn in one call to the battles'
    engine, searched in a pool of threads, each world's visits per action added up."""

    def __init__(self, config: NativeConfig, seed: int | None):
        self.config = config
        self.module = native()
        self.leaf_args = config.leaf_args()
        self.rng = np.random.default_rng(seed)
        self.pool = ThreadPoolExecutor(max_workers=config.worlds)
        self.searched = self.failed = 0
        self.iterations = 0
        self.last: dict = {}
        """{decision key: visits per action} of the last call's searched decisions (a teacher's
        targets: metapvp/training/rollout.py reads them)."""
        self.notes: dict = {}
        """{decision key: its "visits" (shares), "value" and "worlds"} of the last call's
        searched decisions, where it was asked to describe them (Player.thoughts)."""

    def visits(self, decisions: Decisions, rows: list[int], probs: np.ndarray | None,
               describe: bool = False) -> dict[int, np.ndarray]:
        """{row: visits per action (the action table's width)} for the rows whose worlds could be
        drawn and searched; `probs`: the policy's probabilities per row (None: uniform priors);
        `describe`: also keep in self.notes what each search found."""
        self.last, self.notes = {}, {}
        keys = [decisions.keys[i] for i in rows]
        seeds = self.rng.integers(0, 2**31 - 1, size=len(rows))
        found = decisions.state.engine_worlds(keys, self.config.worlds, seeds, told=FOE_KNOWS[self.config.foe],
                                              foes=describe)
        width = decisions.mask.shape[1]
        out = {}
        for i, seed, worlds in zip(rows, seeds, found):
            if worlds is None:
                continue
            if "error" in worlds:
                self.failed += 1
                log.warning("native search: no worlds for %s: %s", decisions.keys[i], worlds["error"])
                continue
            p = probs[i] if probs is not None else None
            jobs = [self.pool.submit(self._searched, state, names, p, int(seed) + w)
                    for w, (state, names) in enumerate(zip(worlds["states"], worlds["options"]))]
            total, valued, weighed = np.zeros(width), np.zeros(width), np.zeros(width)
            try:
                for job in jobs:
                    for a, n, v in job.result():
                        total[a] += n
                        if v is not None and n:
                            valued[a] += n * v
                            weighed[a] += n
            except ValueError as e:   # the engine refused a state: the policy decides
                self.failed += 1
                log.warning("native search failed in %s: %s", decisions.keys[i], e)
                continue
            self.searched += 1
            out[i] = self.last[decisions.keys[i]] = total
            if describe:
                self.notes[decisions.keys[i]] = described(total, valued, weighed, worlds.get("foes"))
        return out

    def _search(self, state: str, names: dict, p: np.ndarray | None, seed: int) -> list[tuple[int, float]]:
        """(action, weight) of one world's search (_searched's, without the values)."""
        return [(a, n) for a, n, _ in self._searched(state, names, p, seed)]

    def _searched(self, state: str, names: dict, p: np.ndarray | None,
                  seed: int) -> list[tuple[int, float, float | None]]:
        """(action, visits, mean value) of one world's search, side one's (the value None where
        the search reports none: poke-engine's, or an option unvisited); the engine's options it
        cannot name as one of our actions (none, as the bridge writes them) are left out."""
        c = self.config
        options, _ = self.module.options(state)   # side one's, in the order both searches report
        if c.search == "poke-engine":
            r = self.module.engine_mcts(state, iterations=c.iterations, ms=c.ms)
            iterations, visits, values = r["iterations"], r["s1_visits"], [None] * len(options)
        else:
            r = self.world_search(state, options, names, p, seed)
            iterations, visits, values = r["iterations"], r["s1"]["visits"], r["s1"]["values"]
        self.iterations += iterations
        return [(names[o], n, v) for o, n, v in zip(options, visits, values) if o in names]

    def world_search(self, state: str, options: list[str], names: dict, p: np.ndarray | None, seed: int) -> dict:
        """Our search of one world as the module returns it (per side its options, visits and
        values; the iterations): `options` side one's, `names` those we can name, `p` the policy's
        probabilities (None: uniform)."""
        c = self.config
        return self.module.search(state, iterations=c.iterations, ms=c.ms, seed=seed, exploration=c.exploration,
                                  priors=root_prior(options, names, p, c.uniform), **self.leaf_args)


def described(visits: np.ndarray, valued: np.ndarray, weighed: np.ndarray, foes: list | None) -> dict:
    """A searched decision as its thoughts keep it: each action's share of the visits, its mean
    value over the worlds (`valued`: values times visits, over `weighed` visits; None where no
    search valued it), and the foe's team in each world."""
    total = visits.sum()
    return {"visits": visits / total if total else visits,
            "value": [float(v / n) if n else None for v, n in zip(valued, weighed)],
            "worlds": foes}


def root_prior(options: list[str], names: dict, p: np.ndarray | None, uniform: float) -> list[float]:
    """Our prior over the engine's options at a world's root: 0 (never searched) for an option
    we cannot name as one of our actions; over the rest the policy's probabilities, never quite
    0, normalised, with the share `uniform` spread evenly (`p` None, as `mcts`: uniform)."""
    named = [o in names for o in options]
    if p is None or not any(named):
        return [float(n) for n in named]
    policy = np.array([max(float(p[names[o]]), 1e-6) if n else 0.0 for o, n in zip(options, named)])
    even = np.array(named, dtype=float)
    return list((1 - uniform) * policy / policy.sum() + uniform * even / even.sum())


class Counted:
    """The decisions a native player searched and those whose search failed (the policy, or
    the first legal action, decided), named as the search in the simulator names them; and
    the visits of its last call's searches, where it teaches."""
    search: NativeSearch

    @property
    def last_visits(self) -> dict:
        """{decision key: visits per action} of the decisions the last act() searched."""
        return self.search.last

    @property
    def searched(self) -> int:
        return self.search.searched

    @property
    def failed(self) -> int:
        return self.search.failed


def played(visits: np.ndarray, mask: np.ndarray, prefer: np.ndarray) -> int:
    """The legal action most visited, `prefer` (the policy's probabilities) breaking ties."""
    score = np.where(mask, visits + 1e-6 * prefer, -np.inf)
    return int(score.argmax())


class NativeSearchPlayer(Counted, GuidedPlayer):
    """The policy guiding the native search (its probabilities the prior at each world's root)."""

    def __init__(self, policy, config: NativeConfig | None = None, seed: int | None = None):
        super().__init__(policy)
        if self.game_type != "singles":
            raise ValueError(f"the native search plays singles; {policy.name} reads a {self.game_type} contract")
        self.config = config or NativeConfig()
        self.name = f"native:{policy.name}"
        self.search = NativeSearch(self.config, seed)

    def choose(self, decisions: Decisions, probs: np.ndarray) -> np.ndarray:
        mask = decisions.mask.astype(bool)
        probs = np.where(mask, probs, 0.0)
        chosen = probs.argmax(-1)
        rows = [i for i in range(len(decisions)) if mask[i].sum() > 1]
        for i, visits in self.search.visits(decisions, rows, probs, describe=self.thinking).items():
            chosen[i] = played(visits, mask[i], probs[i])
        self.notes = self.search.notes
        return chosen


class MctsPlayer(Counted, Player):
    """The native search without a network: a uniform prior at the root (PUCT there, UCB1
    below, as `native:MODEL` with its policy's prior), the engine's evaluation at the leaves
    unless told otherwise; the baseline that shows what the network adds to `native:MODEL`."""
    thinks = True

    def __init__(self, config: NativeConfig | None = None, seed: int | None = None):
        self.config = config or NativeConfig()
        self.name = "mcts"
        self.search = NativeSearch(self.config, seed)

    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        mask = decisions.mask.astype(bool)
        chosen = mask.argmax(-1)
        rows = [i for i in range(len(decisions)) if mask[i].sum() > 1]
        flat = np.zeros(mask.shape[1])
        for i, visits in self.search.visits(decisions, rows, None, describe=self.thinking).items():
            chosen[i] = played(visits, mask[i], flat)
        if self.thinking:
            self.thoughts = dict(self.search.notes)
        return chosen
