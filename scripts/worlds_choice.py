"""How often the native search on its drawn worlds chooses what the same search told the true
battle chooses: a cheap, steady measure of the worlds that needs no clock and no match of
hundreds of battles (docs/lab/worlds.md, "What the worlds cost a decision").

`agent` (or --agent SPEC, a native search) plays --battles battles against --opponent; at each
of its decisions with a choice, the search runs twice on the same decision: on its worlds drawn
from what it saw, and told the true battle (every world the truth, the same settings). The told
search's choice is played, so the battles, and the decisions asked, are the same whatever the
worlds are; what the drawn worlds are worth shows as how often their choice agrees with the told
one, and as their regret: the told search's mean value of its own choice less its mean value of
the drawn worlds' choice (0 where they agree; values are side one's chance to win as the search
sees it). The noise of the search itself is the told search run a second time on other seeds,
printed beside.

    ./rp scripts/worlds_choice.py [--battles 40] [--seed 5] [--opponent heuristic] [--save FILE] [--against FILE]

--save keeps every decision's figures (JSON); --against pairs this run with a saved one, decision
by decision (the same battles, agent and seed give the same decisions). What part of the gap each
hidden thing makes: --agent "native(...,foe=told-sets):agent" (or told-unseen, told-rebuilt: drawn
worlds told the seen foes' true sets, the true unseen foes, or both) with --reference agent, so
that the told search, and so the battles, stay those of `agent`."""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

import numpy as np

from metapvp.arena.match import play
from metapvp.players.base import Decisions
from metapvp.players.native import NativeSearch, NativeSearchPlayer, played
from metapvp.players.spec import make_player


class ToldProbe(NativeSearchPlayer):
    """`agent`'s search on its drawn worlds and told the truth at each decision; plays the
    told search's choice and keeps both in `records`."""

    def __init__(self, agent: NativeSearchPlayer, seed: int, reference=None):
        super().__init__(agent.policy, agent.config, seed=seed)
        self.told = NativeSearch(_told(reference or agent.config), seed + 1)
        self.again = NativeSearch(_told(reference or agent.config), seed + 2)
        self.records: list[dict] = []

    def choose(self, decisions: Decisions, probs: np.ndarray) -> np.ndarray:
        mask = decisions.mask.astype(bool)
        probs = np.where(mask, probs, 0.0)
        chosen = probs.argmax(-1)
        rows = [i for i in range(len(decisions)) if mask[i].sum() > 1]
        drawn = self.search.visits(decisions, rows, probs)
        told = self.told.visits(decisions, rows, probs, describe=True)
        notes = self.told.notes
        again = self.again.visits(decisions, rows, probs)
        for i in rows:
            if i not in told:
                continue
            truth = played(told[i], mask[i], probs[i])
            chosen[i] = truth
            if i not in drawn or i not in again:
                continue
            values = notes[decisions.keys[i]]["value"]
            mine, rerun = played(drawn[i], mask[i], probs[i]), played(again[i], mask[i], probs[i])
            self.records.append({"key": list(decisions.keys[i]), "told": truth, "drawn": mine, "again": rerun,
                                 "regret": regret(values, truth, mine), "noise": regret(values, truth, rerun)})
        return chosen


def _told(config):
    return dataclasses.replace(config, foe="told")


def regret(values: list, best: int, other: int) -> float:
    """The told search's mean value of `best` less its value of `other` (an option it never
    visited: its least valued), never below 0."""
    known = [v for v in values if v is not None]
    if best == other or not known:
        return 0.0
    mine = values[best] if values[best] is not None else max(known)
    theirs = values[other] if values[other] is not None else min(known)
    return max(0.0, mine - theirs)


def mean_ci(xs) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval."""
    xs = np.asarray(xs, dtype=float)
    if len(xs) < 2:
        return float(xs.mean()) if len(xs) else 0.0, 0.0
    return float(xs.mean()), 1.96 * float(xs.std(ddof=1)) / math.sqrt(len(xs))


def summary(records: list[dict]) -> dict:
    agree = [r["drawn"] == r["told"] for r in records]
    floor = [r["again"] == r["told"] for r in records]
    return {"decisions": len(records), "agree": mean_ci(agree), "agree_noise": mean_ci(floor),
            "regret": mean_ci([r["regret"] for r in records]), "regret_noise": mean_ci([r["noise"] for r in records])}


def paired(now: list[dict], then: list[dict]) -> dict:
    """This run less a saved one over the decisions both have (keyed by battle, side and order)."""
    def keyed(rs):
        seen, out = {}, {}
        for r in rs:
            k = tuple(r["key"])
            seen[k] = seen.get(k, 0) + 1
            out[(*k, seen[k])] = r
        return out
    a, b = keyed(now), keyed(then)
    common = [k for k in a if k in b and a[k]["told"] == b[k]["told"]]
    return {"decisions": len(common),
            "agree": mean_ci([(a[k]["drawn"] == a[k]["told"]) - (b[k]["drawn"] == b[k]["told"]) for k in common]),
            "regret": mean_ci([a[k]["regret"] - b[k]["regret"] for k in common])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--battles", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--agent", default="agent", help="a native search player (default: agent)")
    ap.add_argument("--reference", help="the told search's settings, a native search player (default: --agent's)")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--save", type=Path, help="keep every decision's figures here (JSON)")
    ap.add_argument("--against", type=Path, help="a saved run to pair this one with")
    args = ap.parse_args(argv)
    agent = make_player(args.agent, seed=args.seed, fmt=args.format)
    if not isinstance(agent, NativeSearchPlayer):
        ap.error(f"--agent must be a native search player; {args.agent!r} is {type(agent).__name__}")
    against = json.loads(args.against.read_text())["records"] if args.against else None
    reference = make_player(args.reference, seed=args.seed, fmt=args.format).config if args.reference else None
    probe = ToldProbe(agent, args.seed, reference)
    opponent = make_player(args.opponent, seed=args.seed + 3, fmt=args.format)
    results = list(play(probe, opponent, args.format, range(args.battles), seed=args.seed, concurrency=8))
    failed = [r.error for r in results if r.error]
    s = summary(probe.records)
    print(f"{s['decisions']} decisions of {len(results)} battles ({len(failed)} failed) against {args.opponent}, "
          f"{probe.config.prefix()}")
    print(f"  drawn worlds choose as the told search: {s['agree'][0]:.3f} ± {s['agree'][1]:.3f}"
          f"   (the told search again: {s['agree_noise'][0]:.3f} ± {s['agree_noise'][1]:.3f})")
    print(f"  regret, the told search's value:        {s['regret'][0]:.4f} ± {s['regret'][1]:.4f}"
          f"   (the told search again: {s['regret_noise'][0]:.4f} ± {s['regret_noise'][1]:.4f})")
    out = {"summary": s, "failed": failed[:5]}
    if against is not None:
        p = paired(probe.records, against)
        out["paired"] = p
        print(f"  paired with {args.against} over {p['decisions']} decisions: agreement "
              f"{p['agree'][0]:+.3f} ± {p['agree'][1]:.3f}, regret {p['regret'][0]:+.4f} ± {p['regret'][1]:.4f}")
    if args.save:
        args.save.write_text(json.dumps({"args": vars(args) | {"save": str(args.save), "against": str(args.against)},
                                         "summary": s, "records": probe.records}))
    print(json.dumps(out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
