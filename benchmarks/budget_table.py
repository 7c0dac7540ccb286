"""`agent`'s strength by its search's budget against one opponent, with the time a decision
takes on the live path: one row a budget, from runs already made.

    ./rp benchmarks/budget_table.py --baseline RUN RUN [RUN ...] [--live SOAK [SOAK ...]]

RUN: a head2head --outdir whose --p1 is the agent at one budget (native(ms=M,...):agent or
native(iterations=N,...):agent), all against the same --p2 on the same --seed; --baseline is the
one the others are paired with, battle by battle (metapvp/exe/compare_runs.py). SOAK: a
benchmarks/soak.py --outdir whose live part served the agent at one budget (`--bot SPEC`): the
milliseconds from a request's message to the choice sent, over a real server with the timer on.
A budget's row joins its head2head run and its soak by the budget their specs name. Prints the
table (markdown) and, as the last line, the rows as JSON. The commands that make the runs:
docs/lab/worlds.md, "The budget against the yardstick"."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from metapvp.arena.rundir import recorded_run
from metapvp.arena.stats import wilson
from metapvp.exe.compare_runs import compare_dirs, outcomes
from metapvp.players import SpecError
from metapvp.players.spec import parse_spec


def budget(spec: str, fmt: str = "gen9randombattle") -> str:
    """The budget a native player's spec names: "400 ms" or "10,000 iterations"; a ValueError
    for a spec that is not a native search's."""
    try:
        p = parse_spec(spec, fmt)
    except SpecError as e:
        raise ValueError(str(e)) from None
    if p.kind not in ("native", "mcts"):
        raise ValueError(f"{spec!r} is not a native search's spec (native(ms=M,...):agent)")
    return f"{p.config.ms} ms" if p.config.ms else f"{p.config.iterations:,} iterations"


def strength(run: Path, baseline: Path) -> dict:
    """One head2head run's row: its budget, win rate over its battles with the 95% interval, and
    the paired difference with the baseline's run over the battles both have."""
    recorded = recorded_run(run)
    if recorded is None:
        raise ValueError(f"{run} holds no head2head run (no run.json or results.json)")
    spent = budget(recorded["p1"], recorded.get("format", "gen9randombattle"))
    won, _ = outcomes(run)
    if not won:
        raise ValueError(f"{run} has no battle log")
    n, wins = len(won), sum(won.values())
    row = {"budget": spent, "source": str(run), "battles": n, "won": wins / n, "ci95": list(wilson(wins / n, n))}
    if run.resolve() != baseline.resolve():
        paired = compare_dirs(baseline, run)
        row["paired"] = {k: paired[k] for k in ("battles", "a_win_rate", "b_minus_a", "b_minus_a_ci95",
                                                "sign_test_p")}
    return row


def live_times(soak: Path) -> dict:
    """A soak's live part: the budget its bot played, the ms from request to choice, the record."""
    path = soak / "soak.json"
    try:
        live = json.loads(path.read_text())["live"]
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(f"{path}: no live part of a soak ({e})") from None
    return {"budget": budget(live["bot"]), "source": str(soak), "bot": live["bot"], "battles": live["battles"],
            "lost_on_time": live["lost_on_time"], "invalid_choices": live["invalid_choices"],
            "decision_ms": live["bot_decision_ms"]}


def join(rows: dict[str, dict], kind: str, found: dict):
    """`found` (a strength or live row) into the row of its budget; one of each kind a budget."""
    row = rows.setdefault(found["budget"], {"budget": found["budget"]})
    if kind in row:
        raise ValueError(f"two {kind} rows at {found['budget']}: {row[kind]['source']} and {found['source']}")
    row[kind] = found


def table(rows: list[dict]) -> str:
    """The rows as a markdown table, by budget."""
    out = ["| budget | battles | won | 95% interval | paired with the baseline | p | live choices | "
           "ms p50 | ms p99 | lost on time |", "|---|---:|---:|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        s, t = r.get("strength"), r.get("live")
        pair = s and s.get("paired")
        cells = [r["budget"],
                 f"{s['battles']:,}" if s else "", f"{s['won']:.3f}" if s else "",
                 f"{s['ci95'][0]:.3f}–{s['ci95'][1]:.3f}" if s else "",
                 (f"{pair['b_minus_a']:+.3f} ({pair['b_minus_a_ci95'][0]:+.3f} to {pair['b_minus_a_ci95'][1]:+.3f}), "
                  f"{pair['battles']:,} battles" if pair else "the baseline" if s else ""),
                 f"{pair['sign_test_p']:.3f}" if pair else "",
                 f"{t['decision_ms']['n']:,}" if t else "", f"{t['decision_ms']['p50']}" if t else "",
                 f"{t['decision_ms']['p99']}" if t else "", f"{t['lost_on_time']}" if t else ""]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", type=Path, nargs="+", help="head2head --outdir folders, one a budget")
    ap.add_argument("--baseline", type=Path, required=True, help="the run the others are paired with")
    ap.add_argument("--live", type=Path, nargs="*", default=[], help="benchmarks/soak.py --outdir folders")
    args = ap.parse_args(argv)
    rows: dict[str, dict] = {}
    try:
        for run in dict.fromkeys([args.baseline, *args.runs]):
            join(rows, "strength", strength(run, args.baseline))
        for soak in args.live:
            join(rows, "live", live_times(soak))
    except ValueError as e:
        print(f"budget_table: {e}", file=sys.stderr)
        return 2
    ordered = sorted(rows.values(), key=lambda r: (r["budget"].endswith("ms"), int(r["budget"].split()[0]
                                                                                   .replace(",", ""))))
    print(table(ordered))
    print(json.dumps(ordered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
