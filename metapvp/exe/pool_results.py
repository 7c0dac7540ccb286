"""Pools head2head runs of the same pairing (e.g. 500 battles from each of two seeds) into one
result: the battles won, lost and tied added up, the win rate with its Wilson 95% interval.

    ./rp metapvp/exe/pool_results.py DIR [DIR ...]

Each DIR is a head2head --outdir (its results.json). Runs of different players or formats are
refused, naming the run that differs; a bare `agent` counts as the search it played where the
run recorded that (`p1_as_played`), so a run of `agent` pools with one of its spelt-out spec.
The last line of stdout is the pooled result as JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from metapvp.arena.stats import summarize

SAME = ("format", "p1", "p2")


def pairing(r: dict) -> dict:
    """A result's format and players, each player as it played (a bare `agent` spelt out) where
    the run recorded it."""
    return {k: r.get(f"{k}_as_played", r.get(k)) for k in SAME}


def pool(results: list[dict]) -> dict:
    """The pooled result of head2head results of one pairing; ValueError where they differ."""
    if not results:
        raise ValueError("no results to pool")
    first = pairing(results[0])
    for i, r in enumerate(map(pairing, results[1:]), 1):
        differs = [k for k in SAME if r[k] != first[k]]
        if differs:
            raise ValueError(f"run {i + 1} is not the same pairing as run 1: "
                             + ", ".join(f"{k} {r[k]!r} against {first[k]!r}" for k in differs))
    wins, losses, ties, errors, invalid = (sum(int(r.get(k, 0)) for r in results)
                                           for k in ("p1_wins", "p2_wins", "ties", "errors", "invalid_choices"))
    return {**first, **summarize(wins, losses, ties), "p1_wins": wins, "p2_wins": losses,
            "ties": ties, "errors": errors, "invalid_choices": invalid, "seeds": [r.get("seed") for r in results]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", type=Path, nargs="+", help="head2head --outdir folders")
    args = ap.parse_args(argv)
    results = []
    for d in args.dirs:
        path = d / "results.json"
        try:
            results.append(json.loads(path.read_text()))
        except (OSError, ValueError) as e:
            print(f"pool_results: cannot read {path}: {e}", file=sys.stderr)
            return 2
    try:
        r = pool(results)
    except (ValueError, KeyError) as e:
        print(f"pool_results: {e}", file=sys.stderr)
        return 2
    lo, hi = r["p1_win_rate_ci95"]
    print(f"{r['p1']} vs {r['p2']} ({r['format']}), seeds {r['seeds']}: {r['p1_wins']} won, {r['p2_wins']} lost, "
          f"{r['ties']} tied of {r['matches']}: {r['p1_win_rate']:.3f} ({lo:.3f}-{hi:.3f}), {r['errors']} errors")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
