"""Compares two head2head runs battle by battle: two first players (--p1) over the same battles
(the same format, --p2 and --seed: battle i has the same teams and seats in both), each
battle's outcome for the first player read from the runs' logs (head2head --outdir).

    ./rp metapvp/exe/compare_runs.py DIR_A DIR_B
    ./rp metapvp/exe/compare_runs.py A1 B1 A2 B2 ...     several pairs (say, one per opponent), pooled
    ./rp metapvp/exe/compare_runs.py --same-p2 A B     the runs name one --p2 two ways (agent, then its file)

Most battles end the same way whichever of two similar players plays them, so the difference
between the two is estimated from the battles where the outcomes differ: far tighter than two
separate intervals. Prints each run's win rate over the battles both finished, the battles only
A won and only B won, B - A with its 95% interval (paired, normal approximation) and an exact
two-sided sign test's p-value over the battles that differ. The last line of stdout is the
result as JSON. A tie counts as not won. A run still under way compares over the battles it has
finished (its run.json names it). It also counts the battles both players played choice for
choice alike (the same input log): a change meant to leave a player as it was shows as every
battle the same. With several pairs, each is compared, then all their battles
together: whether B is ahead of A over several opponents at once, each battle counted once (the
last line is then {"pairs": [...], "pooled": {...}})."""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from metapvp.arena.rundir import logged_winner, read_logs, recorded_run
from metapvp.arena.stats import Z95

SAME = ("format", "p2", "seed")


def outcomes(run: Path) -> tuple[dict[int, bool], dict[int, list]]:
    """Battle number -> whether the run's first player won it (it sits p1 in even battles), and
    battle number -> its input log (every choice both sides made)."""
    won, choices = {}, {}
    for i, battle in read_logs(run):
        won[i], choices[i] = logged_winner(i, battle) == "a", battle.get("inputLog")
    return won, choices


def compare(a: dict[int, bool], b: dict[int, bool]) -> dict:
    """The paired comparison of two runs' outcomes over the battles both have."""
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError("the runs have no battle in common (are their logs there?)")
    return paired(len(common), sum(a[i] for i in common), sum(b[i] for i in common),
                  sum(a[i] and not b[i] for i in common), sum(b[i] and not a[i] for i in common))


def paired(n: int, a_wins: int, b_wins: int, a_only: int, b_only: int) -> dict:
    """B - A over n paired battles from the counts: A's and B's wins, and the battles only one won."""
    diff = (b_only - a_only) / n
    se = math.sqrt(max(0.0, (a_only + b_only) / n - diff * diff) / n)
    return {"battles": n, "a_wins": a_wins, "b_wins": b_wins, "a_win_rate": a_wins / n, "b_win_rate": b_wins / n,
            "a_only": a_only, "b_only": b_only, "b_minus_a": diff,
            "b_minus_a_ci95": [diff - Z95 * se, diff + Z95 * se], "sign_test_p": sign_test(a_only, b_only)}


def pooled(results: list[dict]) -> dict:
    """Several pairs' comparisons as one over all their battles."""
    return paired(*(sum(r[k] for r in results) for k in ("battles", "a_wins", "b_wins", "a_only", "b_only")))


def sign_test(x: int, y: int) -> float:
    """Exact two-sided p-value that x and y discordant battles come from a fair coin."""
    n = x + y
    if not n:
        return 1.0
    k = min(x, y)
    tail = sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def compare_dirs(a_dir: Path, b_dir: Path, same_p2: bool = False) -> dict:
    """Runs a_dir and b_dir compared battle by battle; ValueError naming what is wrong.
    `same_p2`: the two runs' --p2 are the same player spelt two ways (the user says so)."""
    runs = [recorded_run(d) for d in (a_dir, b_dir)]
    for d, run in zip((a_dir, b_dir), runs):
        if run is None:
            raise ValueError(f"{d} holds no head2head run (no run.json or results.json)")
    differs = [k for k in SAME if runs[0].get(k) != runs[1].get(k) and not (same_p2 and k == "p2")]
    if differs:
        raise ValueError("not the same battles: " + ", ".join(
            f"{k} {runs[1].get(k)!r} in {b_dir} against {runs[0].get(k)!r} in {a_dir}" for k in differs)
            + (" (--same-p2 if they are one player spelt two ways)" if differs == ["p2"] else ""))
    (a_won, a_choices), (b_won, b_choices) = outcomes(a_dir), outcomes(b_dir)
    r = compare(a_won, b_won)
    same = sum(a_choices[i] == b_choices[i] is not None for i in set(a_won) & set(b_won))
    return {"a": runs[0].get("p1"), "b": runs[1].get("p1"), **{k: runs[0].get(k) for k in SAME}, **r,
            "same_choices": same}


def difference_line(r: dict) -> str:
    lo, hi = r["b_minus_a_ci95"]
    return (f"only A won {r['a_only']}, only B won {r['b_only']}: B - A = {r['b_minus_a']:+.3f} "
            f"({lo:+.3f} to {hi:+.3f}), sign test p = {r['sign_test_p']:.3f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", type=Path, nargs="+", metavar="A B",
                    help="head2head --outdir of player A, then of player B; more pairs to pool")
    ap.add_argument("--same-p2", action="store_true",
                    help="the runs' --p2 are one player spelt two ways (e.g. `...:agent` before a newer model "
                         "shipped, and the file that model is kept in now): compare them all the same")
    args = ap.parse_args(argv)
    if len(args.runs) % 2:
        print(f"compare_runs: runs come in pairs (A B), not {len(args.runs)} of them", file=sys.stderr)
        return 2
    results = []
    for a_dir, b_dir in zip(args.runs[::2], args.runs[1::2]):
        try:
            results.append(compare_dirs(a_dir, b_dir, args.same_p2))
        except ValueError as e:
            print(f"compare_runs: {e}", file=sys.stderr)
            return 2
    for r in results:
        print(f"{r['format']}, against {r['p2']}, seed {r['seed']}, {r['battles']} battles in both")
        print(f"A {r['a']}: {r['a_win_rate']:.3f}   B {r['b']}: {r['b_win_rate']:.3f}")
        print(difference_line(r))
        print(f"the same choices, every one, in {r['same_choices']} of {r['battles']} battles")
    if len(results) == 1:
        print(json.dumps(results[0]))
        return 0
    together = pooled(results)
    print(f"pooled, {together['battles']} battles: A {together['a_win_rate']:.3f}   B {together['b_win_rate']:.3f}")
    print(difference_line(together))
    print(json.dumps({"pairs": results, "pooled": together}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
