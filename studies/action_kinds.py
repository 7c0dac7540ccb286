"""What kinds of action players choose: a move, a move with Terastallization, a switch it chose,
or a forced switch.

On a teacher's demonstrations (a run's RUN/demonstrations/, metapvp/training/imitation.py), the
share of each kind among the teacher's most visited actions and among each model's favourites on
the same states, with how often each model agrees with the teacher:

    ./rp studies/action_kinds.py --demos RUN/demonstrations --models A.zip B.zip ... [--chunks 4]

On the battles head2head kept (OUTDIR/logs/), its first player's (as studies/move_use.py counts
them): its win rate, the share of battles in which it terastallized, its win rate in those and
in the rest, the median turn it did so, and its switches in a battle (after the lead):

    ./rp studies/action_kinds.py --runs OUTDIR ...

The last line of stdout is the result as JSON."""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np
import torch

from metapvp import contract as contracts
from metapvp.models.modelfile import load_model
from metapvp.training.imitation import chunk_files
from studies.move_use import count

KINDS = ("move", "tera", "switch", "forced switch")


def layout(contract) -> tuple[int, int, int]:
    """A singles contract's action index (slot * gimmicks + gimmick), read from its heads: the
    number of gimmicks, of move slots (the slots before the switches) and Terastallization's index."""
    slots, gimmicks = (h["values"] for h in contract.spec["actions"]["heads"])
    return len(gimmicks), sum(v.startswith("move") for v in slots), gimmicks.index("terastallize")


def kind(action: int, legal: np.ndarray, index: tuple[int, int, int]) -> str:
    """The kind of `action` at a decision whose legal actions are `legal` (index: layout())."""
    gimmicks, move_slots, tera = index
    if not legal[:move_slots * gimmicks].any():
        return "forced switch"
    slot, gimmick = divmod(int(action), gimmicks)
    if slot >= move_slots:
        return "switch"
    return "tera" if gimmick == tera else "move"


def shares(actions: np.ndarray, legal: np.ndarray, index: tuple[int, int, int]) -> dict:
    kinds = [kind(a, m, index) for a, m in zip(actions, legal)]
    return {k: kinds.count(k) / len(kinds) for k in KINDS}


def on_demonstrations(folder: Path, models: list[str], chunks: int) -> dict:
    files = chunk_files(folder)[-chunks:]
    if not files:
        raise SystemExit(f"no demonstrations (chunk-NNNNN.npz) in {folder}")
    data = [np.load(f) for f in files]
    records = np.concatenate([d["records"] for d in data])
    teacher = np.concatenate([d["target_actions"][:, 0] for d in data])
    out = {"states": len(records), "players": {}}
    legal = None
    picks = {"teacher": teacher}
    for path in models:
        model, meta = load_model(path)
        contract = contracts.load(meta["contract"]["name"])
        index = layout(contract)
        views = contract.views(np.ascontiguousarray(records), len(records))
        legal = views["action.mask"].astype(bool)
        obs = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in views.items()}
        best = []
        with torch.no_grad():
            for s in range(0, len(records), 1024):
                logits, _, _ = model({k: v[s:s + 1024] for k, v in obs.items()}, None)
                best.append(logits.argmax(-1).numpy())
        picks[path] = np.concatenate(best)
    if legal is None:
        raise SystemExit("--models: at least one model file, to read the states with its contract")
    for name, p in picks.items():
        out["players"][name] = {**shares(p, legal, index), "agrees with the teacher": float(np.mean(p == teacher))}
    return out


def on_runs(folder: Path) -> dict:
    """p1's battles in a head2head run, as studies/move_use.py counts them."""
    u = count(folder)
    if not u.battles:
        raise SystemExit(f"no kept battles (logs/*.log.json.gz) in {folder}")
    tera, tera_won = sum(u.tera.values()), sum(u.tera_won.values())
    turns = sorted(t for t, n in u.tera.items() for _ in range(n))
    return {"battles": u.battles, "win rate": u.won / u.battles, "terastallized in": tera / u.battles,
            "win rate when it did": tera_won / tera if tera else float("nan"),
            "when it did not": (u.won - tera_won) / (u.battles - tera) if u.battles > tera else float("nan"),
            "median turn it did": statistics.median(turns) if turns else None,
            "switches a battle": u.switches / u.battles}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--demos", type=Path, help="a run's demonstrations folder")
    ap.add_argument("--models", nargs="*", default=[], help="model files to compare with the teacher there")
    ap.add_argument("--chunks", type=int, default=4, help="the last N chunks of the demonstrations")
    ap.add_argument("--runs", type=Path, nargs="*", default=[], help="head2head output folders")
    args = ap.parse_args(argv)
    result = {}
    if args.demos:
        found = result["demonstrations"] = on_demonstrations(args.demos, args.models, args.chunks)
        print(f"{found['states']} states of {args.demos}: the share of each kind among each one's best")
        for name, s in found["players"].items():
            print(f"  {name:60s} " + "  ".join(f"{k} {s[k]:.3f}" for k in KINDS)
                  + f"  agrees with the teacher {s['agrees with the teacher']:.3f}")
    for run in args.runs:
        r = result.setdefault("runs", {})[str(run)] = on_runs(run)
        print(f"{run}: {r['battles']} battles, p1 won {r['win rate']:.3f}, "
              f"terastallized in {r['terastallized in']:.3f} (won {r['win rate when it did']:.3f} of those, "
              f"{r['when it did not']:.3f} of the rest; median turn "
              f"{r['median turn it did']}), {r['switches a battle']:.2f} switches a battle")
    if not result:
        ap.error("--demos with --models, or --runs")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
