"""Fits the native search's learned leaf value (search-rs/src/features.rs): a logistic model of
P(side one wins) over features of the engine's state, each side one's lead, fitted to how played
battles ended. The battles are gen 9 random battles whose sides both play a scripted player
(js/checks/enginecheck.js engineGames; a share of decisions at random, for positions the player
would not reach itself); every round's true state is a sample, labelled by the battle's winner.
With --logs, the battles are instead those head2head kept (--keep-logs: each battle's seed and
input log), replayed in the simulator: the search's own games, where the search played a side.
A fifth of the battles are held out: the model is judged on them beside the engine's own
evaluation (its scale fitted the same way), by log-loss, Brier score and accuracy.

    ./rp studies/leaf_value.py [--battles 5000] [--seed 1] [--write static/models/native-value.json]
    ./rp studies/leaf_value.py --logs runs/h2h/RUN [RUN ...] [--write FILE.json]

Positions are kept in runs/leaf-value/ (by battles, seed, player, explore), so a second run
fits without replaying. The last line of stdout is the result as JSON."""
from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metapvp.engine.native import native  # noqa: E402
from metapvp.engine.v8 import checks_context  # noqa: E402

CHUNK = 250   # battles per call to the checks engine (progress, and memory of the JSON it returns)


def positions(battles: int, seed: int, player: str, explore: float) -> dict[str, np.ndarray]:
    """{x: features per state, y: 1 where side one won, battle: its battle's index}, ties left
    out; read from runs/leaf-value/ where a run with these settings left them."""
    def collect(engine, checks, out):
        for start in range(0, battles, CHUNK):
            n = min(CHUNK, battles - start)
            found = checks.checks("engineGames", {"format": "gen9randombattle", "battles": n,
                                                  "seed": [seed, start, 7, 11], "player": player, "explore": explore})
            labelled(found, engine, start, out)
            print(f"  {start + n} battles, {len(out['y'])} positions", file=sys.stderr, flush=True)
    return cached(f"{player}-e{explore}-s{seed}-b{battles}.npz", collect)


def recorded_positions(runs: list[Path]) -> dict[str, np.ndarray]:
    """As positions(), from the battles head2head kept in the run directories `runs` (RUN/logs/),
    replayed in the simulator; a battle whose replay does not end as its record did is named and
    left out. Cached in runs/leaf-value/ by the runs' names."""
    files = sorted(f for run in runs for f in (run / "logs").glob("battle-*.log.json*"))
    if not files:
        raise SystemExit(f"no kept battle logs in {', '.join(str(r / 'logs') for r in runs)} (head2head --keep-logs)")

    def collect(engine, checks, out):
        for start in range(0, len(files), CHUNK):
            part = files[start:start + CHUNK]
            records = [json.loads((gzip.open if f.suffix == ".gz" else open)(f, "rt").read()) for f in part]
            found = checks.checks("engineReplays", {"format": records[0]["format"], "battles": [
                {"seed": r["seed"], "inputLog": r["inputLog"], "winner": r["winner"]} for r in records]})
            astray = {k for k, b in enumerate(found["battles"]) if not b["reproduced"]}
            for k in sorted(astray):
                print(f"  {part[k]}: the replay does not end as recorded; left out", file=sys.stderr)
            labelled(found, engine, start, out, astray)
            print(f"  {start + len(part)} of {len(files)} battles, {len(out['y'])} positions", file=sys.stderr,
                  flush=True)
    key = hashlib.sha256("\n".join(sorted(str(r.resolve()) for r in runs)).encode()).hexdigest()[:12]
    return cached(f"logs-{key}.npz", collect)


def labelled(found: dict, engine, offset: int, out: dict, left_out=frozenset()):
    """Adds to `out` ({x, y, battle} lists) each battle's states of a checks answer ({states,
    battles: [{first, p1won}]}) as features, labelled by whether p1 won; ties and the battles
    numbered in `left_out` skipped."""
    ends = [b["first"] for b in found["battles"][1:]] + [len(found["states"])]
    for k, (battle, end) in enumerate(zip(found["battles"], ends)):
        if battle["p1won"] is None or k in left_out:
            continue
        for state in found["states"][battle["first"]:end]:
            out["x"].append(engine.features(state))
            out["y"].append(float(battle["p1won"]))
            out["battle"].append(offset + k)


def cached(name: str, collect) -> dict[str, np.ndarray]:
    """runs/leaf-value/NAME's positions, or `collect(engine, checks, out)`'s, kept there."""
    cache = ROOT / "runs" / "leaf-value" / name
    if cache.exists():
        return dict(np.load(cache))
    out = {"x": [], "y": [], "battle": []}
    collect(native(), checks_context(), out)
    arrays = {"x": np.asarray(out["x"], np.float64), "y": np.asarray(out["y"]), "battle": np.asarray(out["battle"])}
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, **arrays)
    return arrays


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 50) -> np.ndarray:
    """Logistic regression with no intercept (the model is the same from either seat), by
    Newton's method with an L2 penalty of `l2` per sample."""
    w = np.zeros(x.shape[1])
    n = len(y)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) / n + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / n + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def judged(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict:
    p = np.clip(1 / (1 + np.exp(-x @ w)), 1e-6, 1 - 1e-6)
    return {"log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
            "brier": float(np.mean((p - y) ** 2)), "accuracy": float(np.mean((p > 0.5) == (y > 0.5)))}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--battles", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--player", default="heuristic", help="the scripted player both sides play")
    ap.add_argument("--explore", type=float, default=0.1, help="share of decisions played at random")
    ap.add_argument("--logs", type=Path, nargs="+", metavar="RUN",
                    help="head2head run directories whose kept logs are the battles (instead of --player's)")
    ap.add_argument("--write", type=Path, help="write the fitted model here (static/models/native-value.json)")
    args = ap.parse_args(argv)
    names = native().feature_names()
    data = recorded_positions(args.logs) if args.logs else positions(args.battles, args.seed, args.player, args.explore)
    x, y, battle = data["x"], data["y"], data["battle"]
    held = battle % 5 == 0
    eval_only = [names.index("engine_eval")]
    w_eval = np.zeros(len(names))
    w_eval[eval_only] = fit(x[~held][:, eval_only], y[~held])
    w = fit(x[~held], y[~held])
    result = {"battles": int(len(np.unique(battle))), "positions": int(len(y)), "held_out": int(held.sum()),
              "engine_eval": judged(x[held], y[held], w_eval), "learned": judged(x[held], y[held], w),
              "engine_eval_scale": float(w_eval[eval_only[0]])}
    print(f"{result['positions']} positions of {result['battles']} battles; judged on {result['held_out']} "
          f"of a fifth of the battles held out")
    for who in ("engine_eval", "learned"):
        r = result[who]
        print(f"  {who:<12} log-loss {r['log_loss']:.4f}  Brier {r['brier']:.4f}  accuracy {r['accuracy']:.3f}")
    print("weights:", ", ".join(f"{n} {v:+.2f}" for n, v in zip(names, w)))
    if args.write:
        final = fit(x, y)   # the shipped model is fitted on every battle
        args.write.write_text(json.dumps({
            "features": names, "weights": [round(float(v), 5) for v in final],
            "fitted": {"date": datetime.date.today().isoformat(),
                       "command": "./rp studies/leaf_value.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                       **({"logs": [str(r) for r in args.logs]} if args.logs else
                          {"player": args.player, "explore": args.explore}), **result}}, indent=1) + "\n")
        print(f"wrote {args.write}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
