"""The league of past selves, Elo ratings, and the match-making of each rollout (matchups_for).

Snapshots are sampled by quality, as in prioritised past self-play (OpenAI Five): a snapshot's
probability is softmax(quality), and when the learner beats it its quality drops by
lr / (N p), so snapshots the learner has mastered fade while hard ones keep coming back. A
snapshot's probability never falls below e^-FLOOR of the likeliest one's: the drop grows as p
shrinks, and a probability that reached 0 left fewer snapshots to draw than a plan asked for
(a doubles run stopped on it at update 79)."""
from __future__ import annotations

import math

import numpy as np

from metapvp.training.rollout import Matchup

FLOOR = 30.0   # the most a snapshot's quality counts below the best one's


class League:
    def __init__(self, max_snapshots: int = 40, quality_lr: float = 0.01):
        self.max_snapshots = max_snapshots
        self.quality_lr = quality_lr
        self.snapshots: list[dict] = []   # {path, name, updates, quality}

    def add(self, path: str, name: str, updates: int):
        quality = max((s["quality"] for s in self.snapshots), default=0.0)
        self.snapshots.append({"path": path, "name": name, "updates": updates, "quality": quality})
        if len(self.snapshots) > self.max_snapshots:
            self.snapshots.pop(0)

    def probabilities(self) -> np.ndarray:
        q = np.array([s["quality"] for s in self.snapshots], dtype=np.float64)
        e = np.exp(np.maximum(q - q.max(), -FLOOR))
        return e / e.sum()

    def sample(self, k: int, rng: np.random.Generator) -> list[dict]:
        """Up to k distinct snapshots, drawn by quality."""
        if not self.snapshots:
            return []
        k = min(k, len(self.snapshots))
        picks = rng.choice(len(self.snapshots), size=k, replace=False, p=self.probabilities())
        return [self.snapshots[i] for i in picks]

    def record(self, path: str, learner_score: float):
        """The learner scored `learner_score` (1 win, 0.5 tie, 0 loss) against snapshot `path`."""
        p = self.probabilities()
        for i, s in enumerate(self.snapshots):
            if s["path"] == path and learner_score > 0.5:
                s["quality"] -= self.quality_lr / (len(self.snapshots) * p[i])

    def state(self) -> dict:
        return {"snapshots": self.snapshots}

    def load(self, state: dict):
        self.snapshots = list(state.get("snapshots", []))


class Elo:
    """Ratings updated game by game (K-factor k); anchored players keep their rating, so the
    scale stays put (random is anchored at 1000 when present)."""

    def __init__(self, k: float = 16.0, anchors: dict | None = None):
        self.k = k
        self.anchors = dict(anchors or {})
        self.ratings: dict[str, float] = dict(self.anchors)
        self.games: dict[str, int] = {}

    def expected(self, a: str, b: str) -> float:
        ra, rb = self.ratings.setdefault(a, 1000.0), self.ratings.setdefault(b, 1000.0)
        return 1.0 / (1.0 + math.pow(10.0, (rb - ra) / 400.0))

    def update(self, a: str, b: str, score: float):
        e = self.expected(a, b)
        for name, delta in ((a, score - e), (b, e - score)):
            self.games[name] = self.games.get(name, 0) + 1
            if name not in self.anchors:
                self.ratings[name] += self.k * delta

    def copy_rating(self, src: str, dst: str):
        self.ratings[dst] = self.ratings.get(src, 1000.0)

    def table(self) -> list[tuple[str, float, int]]:
        return sorted(((n, r, self.games.get(n, 0)) for n, r in self.ratings.items()), key=lambda x: -x[1])

    def state(self) -> dict:
        return {"ratings": self.ratings, "games": self.games, "anchors": self.anchors}

    def load(self, state: dict):
        self.ratings = dict(state.get("ratings", {}))
        self.games = dict(state.get("games", {}))
        self.anchors = dict(state.get("anchors", self.anchors))


def matchups_for(cfg: dict, snapshots: list) -> tuple[list, list]:
    """The next rollout's matchups and their shares of the battles, by the experiment's
    `opponents` shares: the main policy against itself (pure), the `snapshots` drawn from the
    league (past; their share goes to pure where there are none), target models, scripted
    baselines, and the exploiter against the main policy."""
    shares = dict(cfg["opponents"])
    matchups, weights = [], []

    def add(m, w):
        matchups.append(m)
        weights.append(w)
    if not snapshots:
        shares["pure"] += shares["past"]
        shares["past"] = 0
    if shares["pure"]:
        add(Matchup("pure", "main", "main"), shares["pure"])
    for s in snapshots:
        add(Matchup("past", "main", s["path"]), shares["past"] / len(snapshots))
    for path in cfg["targets"]:
        add(Matchup("target", "main", str(path)), shares["target"] / len(cfg["targets"]))
    for name in cfg["baselines"]:
        if shares["baseline"]:
            add(Matchup("baseline", "main", name), shares["baseline"] / len(cfg["baselines"]))
    if shares["exploiter"]:
        add(Matchup("exploiter", "exploiter", "main"), shares["exploiter"])
    return matchups, weights
