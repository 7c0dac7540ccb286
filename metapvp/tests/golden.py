"""Recording battles for the golden tests, and replaying a recording through the bridge."""
from __future__ import annotations

import gzip
import json

import numpy as np

from metapvp import ROOT
from metapvp.engine.bridge import Engine
from metapvp.engine.simulator import Simulator

DATA = ROOT / "metapvp/tests/data/golden"
FORMATS = [f"gen{g}randombattle" for g in range(1, 10)] + ["gen9customgame"]
# doubles battles, recorded and replayed with the doubles contract
DOUBLES_FORMATS = ["gen9randomdoublesbattle", "gen9vgc2025regi"]
DOUBLES_CONTRACT = "doubles-v1"
TEAMS = {"gen9customgame": ("static/teams/sample-a.txt", "static/teams/sample-b.txt"),
         "gen9vgc2025regi": ("static/teams/gen9vgc2025regi-a.txt", "static/teams/gen9vgc2025regi-b.txt")}
# Beside each battle's singles-v1 expectation, one for the features singles-v2 adds (the battle
# knowledge), in FILE-v2.npz.
KNOWLEDGE_CONTRACT = "singles-v2"


def knowledge_only(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The features singles-v2 adds to singles-v1."""
    from metapvp.contract import load
    v1 = load("singles-v1").by_name
    return {k: v for k, v in obs.items() if k not in v1}


def golden_battle(fmt: str) -> dict:
    """The recorded battle of a format (scripts/record_golden.py)."""
    with gzip.open(DATA / f"{fmt}-0.json.gz", "rt") as f:
        return json.load(f)


def teams_for(fmt: str) -> dict:
    if fmt not in TEAMS:
        return {}
    a, b = TEAMS[fmt]
    return {"p1team": (ROOT / a).read_text(), "p2team": (ROOT / b).read_text()}


def play_random(sim: Simulator, fmt: str, seed: str, rng: np.random.Generator) -> dict:
    """One battle between uniformly random players, recording every message each player saw."""
    step = sim.start([{"id": f"{fmt}-{seed}", "format": fmt, "seed": seed, "record": True,
                       **teams_for(fmt)}])
    choices = []
    while not step.ended:
        if step.errors:
            raise step.errors[0]
        actions = []
        for d in step.decisions:
            a = int(rng.choice(np.flatnonzero(step.obs["action.mask"][d.row])))
            actions.append((d.battle, d.side, a))
            choices.append([d.side, a])
        step = sim.step(actions)
    end = step.ended[0]
    if end.error:
        raise RuntimeError(end.error)
    return {"format": fmt, "seed": seed, "winner": end.winner, "turns": end.turns,
            "streams": end.streams, "choices": choices}


def replay(battle: dict, perspective: str, engine: Engine | None = None):
    """Feeds one player's recorded messages through the bridge, a pump per call, and yields
    (pump index, observation) after every pump that leaves the player a decision."""
    engine = engine or Engine()
    key = f"replay-{battle['format']}-{battle['seed']}-{perspective}"
    engine.open(key, perspective)
    try:
        for i, pump in enumerate(battle["streams"][perspective]):
            b = engine.batch(feed=[(key, perspective, m) for m in pump], encode=[(key, perspective)])
            b.raise_first()
            if b.records[0].decision:
                yield i, {k: v[0].copy() for k, v in b.obs.items()}
    finally:
        engine.close_view(key, perspective)


def replay_stacked(battle: dict, perspective: str, engine: Engine | None = None) -> dict[str, np.ndarray]:
    rows = [obs for _, obs in replay(battle, perspective, engine)]
    return {k: np.stack([r[k] for r in rows]) for k in rows[0]}
