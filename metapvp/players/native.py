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

import numpy as np

from metapvp.engine.native import LEARNED_VALUE, SEARCH_VALUE, LeafValue, leaf_model, native
from metapvp.players.base import Decisions, GuidedPlayer, Player
from metapvp.players.searchconfig import settings_from_dict

log = logging.getLogger(__name__)

DEFAULT_UCB = 2 ** 0.5
ENGINE_TERA_CHARGE = 75.0   # search-rs/src/duct.rs, ENGINE_TERA_CHARGE: poke-engine's own
SHIPPED_LEAVES = {"learned": LEARNED_VALUE, "search": SEARCH_VALUE}   # leaf=NAME: the file it reads


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
    `mcts`'s is uniform); the rest of the tree chooses by UCB1."""
    ucb: float = DEFAULT_UCB
    """UCB1's exploration constant, for every choice no prior guides (the foe's everywhere, ours
    below the root): sqrt(2), the textbook's and poke-engine's MCTS's."""
    search: str = "ours"
    """Whose search: "ours" (search-rs/) or "poke-engine" (poke-engine's own MCTS: UCB1, no
    prior, its evaluation, not seeded; a reference for `mcts`, which has no prior either)."""
    leaf: str = "engine"
    """How new nodes are valued: "engine" (poke-engine's evaluation, relative to the root's),
    "learned" (the shipped learned value, fitted to battles' outcomes: static/models/native-value.json),
    "search" (the shipped relative value, fitted to the search's own values of positions:
    static/models/native-value-search.json) or a path to one (a .json file that
    studies/leaf_value.py wrote)."""
    uniform: float = 0.0
    """The share of our prior at the root spread evenly over the options the player can choose,
    the rest the policy's: 0, the policy's alone; 1, uniform (as `mcts`, whose prior is uniform
    whatever this says)."""
    prior: str = "root"
    """Where the policy's prior guides our side: "root" (there only; UCB1 below) or "deep" (also
    at every node below where our options are the root's: the same Pokemon in, the same moves
    open; docs/lab/native-agent.md, "The prior below the root")."""
    tera: float = ENGINE_TERA_CHARGE
    """What the engine's evaluation charges a side for having terastallized, in its points (a
    healthy Pokemon's HP is 100): the engine's own is 75 (docs/lab/native-agent.md, "The charge
    for Terastallization")."""
    playout: int = 0
    """Joint choices of both sides' hardest-hitting moves played past each new node before the
    engine values it (search-rs/src/playout.rs): 0 to 4; 0, none."""
    foe: str = "drawn"
    """What the worlds know of the foe: "drawn" (its sets and unseen Pokemon drawn from what the
    player has seen) or "told" (a diagnostic, not a player: every world is the true battle,
    which only the in-process simulator knows; docs/lab/native-agent.md, "The foe's sets told")."""
    choice: str = "visits"
    """How the searched worlds choose: "visits" (the option most visited, over all worlds) or
    "equilibrium" (the option most played, over all worlds, in our strategy at the equilibrium of
    each world's root as a game of one turn: the mean value of each joint choice searched;
    search-rs/src/matrix.rs)."""
    stages: str = "engine"
    """What an active's stat stages are worth at the leaves: "engine" (the engine's points at any
    HP) or "hp" (those points in proportion to the HP it has left: search-rs/src/duct.rs,
    stage_discount)."""

    def __post_init__(self):
        if bool(self.iterations) == bool(self.ms) or self.iterations < 0 or self.ms < 0:
            raise ValueError(f"native search: a budget of iterations or of ms, one of them "
                             f"(got iterations={self.iterations}, ms={self.ms})")
        if not 1 <= self.worlds <= 64 or not self.exploration > 0 or not self.ucb > 0:
            raise ValueError(f"native search: worlds 1 to 64, exploration and ucb above 0 "
                             f"(got worlds={self.worlds}, exploration={self.exploration}, ucb={self.ucb})")
        theirs = self.search == "poke-engine" and (self.leaf != "engine" or self.ucb != DEFAULT_UCB)
        if self.search not in ("ours", "poke-engine") or theirs:
            raise ValueError(f"native search: search is ours or poke-engine, the latter with the engine's leaf "
                             f"value and UCB1's own constant (got search={self.search!r}, leaf={self.leaf!r}, "
                             f"ucb={self.ucb:g})")
        if self.leaf not in ("engine", *SHIPPED_LEAVES) and not self.leaf.endswith(".json"):
            raise ValueError(f"native search: leaf is engine, learned, search or a .json file (got {self.leaf!r})")
        if not 0 <= self.uniform <= 1:
            raise ValueError(f"native search: uniform is a share, 0 to 1 (got {self.uniform:g})")
        if not 0 <= self.tera <= 200 or (self.search == "poke-engine" and self.tera != ENGINE_TERA_CHARGE):
            raise ValueError(f"native search: tera is the charge for having terastallized, 0 to 200 points, "
                             f"the engine's own ({ENGINE_TERA_CHARGE:g}) with poke-engine's search (got {self.tera:g})")
        if not 0 <= self.playout <= 4 or (self.search == "poke-engine" and self.playout):
            raise ValueError(f"native search: playout is 0 to 4 joint choices, 0 with poke-engine's search "
                             f"(got playout={self.playout}, search={self.search!r})")
        if self.stages not in ("engine", "hp") or (self.search == "poke-engine" and self.stages != "engine"):
            raise ValueError(f"native search: stages is engine or hp, engine with poke-engine's search "
                             f"(got stages={self.stages!r}, search={self.search!r})")
        if self.choice not in ("visits", "equilibrium") or (self.search == "poke-engine" and self.choice != "visits"):
            raise ValueError(f"native search: choice is visits or equilibrium, visits with poke-engine's search "
                             f"(got choice={self.choice!r}, search={self.search!r})")
        if self.foe not in ("drawn", "told"):
            raise ValueError(f"native search: foe is drawn or told (got {self.foe!r})")
        if self.prior not in ("root", "deep") or (self.search == "poke-engine" and self.prior != "root"):
            raise ValueError(f"native search: prior is root or deep, root with poke-engine's search "
                             f"(got prior={self.prior!r}, search={self.search!r})")

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
        out (so that a record still means the same when a default changes), UCB1's constant and
        the search's owner, the prior's uniform share and its reach, the charge for
        Terastallization, the play-out, the stages' worth, what the worlds know of the foe and
        how they choose only where they are not the defaults (sqrt(2), ours, 0, root, 75, 0,
        engine, drawn, visits), e.g.
        native(iterations=10000,worlds=2,exploration=1.5,leaf=engine)."""
        budget = f"ms={self.ms}" if self.ms else f"iterations={self.iterations}"
        ucb = "" if self.ucb == DEFAULT_UCB else f",ucb={self.ucb:g}"
        owner = "" if self.search == "ours" else f",search={self.search}"
        uniform = f",uniform={self.uniform:g}" if self.uniform else ""
        prior = "" if self.prior == "root" else f",prior={self.prior}"
        tera = "" if self.tera == ENGINE_TERA_CHARGE else f",tera={self.tera:g}"
        playout = f",playout={self.playout}" if self.playout else ""
        stages = "" if self.stages == "engine" else f",stages={self.stages}"
        foe = "" if self.foe == "drawn" else f",foe={self.foe}"
        choice = "" if self.choice == "visits" else f",choice={self.choice}"
        return (f"native({budget},worlds={self.worlds},exploration={self.exploration:g},leaf={self.leaf}"
                f"{ucb}{owner}{uniform}{prior}{tera}{playout}{stages}{foe}{choice})")

    def leaf_model(self) -> LeafValue | None:
        """The learned leaf value (metapvp.engine.native.leaf_model); None for the engine's
        evaluation."""
        if self.leaf == "engine":
            return None
        return leaf_model(SHIPPED_LEAVES.get(self.leaf, Path(self.leaf)))


class NativeSearch:
    """The native search of a batch of decisions: their worlds drawn in one call to the battles'
    engine, searched in a pool of threads, each world's weight per action (its visits, or its
    equilibrium's shares of them: NativeConfig.choice) added up."""

    def __init__(self, config: NativeConfig, seed: int | None):
        self.config = config
        self.module = native()
        self.leaf, self.leaf_relative, self.leaf_hidden = config.leaf_model() or (None, False, None)
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
        found = decisions.state.engine_worlds(keys, self.config.worlds, seeds, told=self.config.foe == "told",
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
        """(action, weight, mean value) of one world's search: its visits, or with
        choice=equilibrium the world's visits shared as the equilibrium plays (so that every
        world weighs as its search did), and side one's mean value there (None where the search
        reports none: poke-engine's, or an option unvisited); the engine's options it cannot
        name as one of our actions (none, as the bridge writes them) are left out."""
        c = self.config
        options, _ = self.module.options(state)   # side one's, in the order both searches report
        if c.search == "poke-engine":
            r = self.module.engine_mcts(state, iterations=c.iterations, ms=c.ms)
            iterations, visits, values = r["iterations"], r["s1_visits"], [None] * len(options)
        else:
            r = self.world_search(state, options, names, p, seed)
            iterations, visits, values = r["iterations"], r["s1"]["visits"], r["s1"]["values"]
            if c.choice == "equilibrium":
                visits = [share * sum(visits) for share in r["s1"]["equilibrium"]]
        self.iterations += iterations
        return [(names[o], n, v) for o, n, v in zip(options, visits, values) if o in names]

    def world_search(self, state: str, options: list[str], names: dict, p: np.ndarray | None, seed: int) -> dict:
        """Our search of one world as the module returns it (per side its options, visits and
        values; the iterations): `options` side one's, `names` those we can name, `p` the policy's
        probabilities (None: uniform)."""
        c = self.config
        return self.module.search(state, iterations=c.iterations, ms=c.ms, seed=seed, exploration=c.exploration,
                                  priors=root_prior(options, names, p, c.uniform), leaf=self.leaf, ucb=c.ucb,
                                  deep_prior=c.prior == "deep", tera=c.tera, playout=c.playout,
                                  stages_by_hp=c.stages == "hp", leaf_relative=self.leaf_relative,
                                  leaf_hidden=self.leaf_hidden, equilibrium=c.choice == "equilibrium")


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
