"""Averages the weights of several checkpoints of one run into one model file (an average of the
policy's last few points along its training path; it often plays better than any one of them,
since PPO's last updates wander around a plateau).

    ./rp metapvp/exe/average_checkpoints.py OUT.zip MODEL.zip [MODEL.zip ...]
    ./rp metapvp/exe/average_checkpoints.py OUT.zip --run runs/ship-v2 --last 5

The models must share preset and contract. The observation-normalisation statistics are the
newest model's (the others' differ little late in a run, and the network was last trained under
these); the metadata is the newest model's, with "averaged_from" naming the inputs."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from metapvp.models.modelfile import NORM_PREFIXES, ModelError, load_model, save_model


def last_checkpoints(run: Path, n: int) -> list[Path]:
    found = sorted((run / "checkpoints").glob("model-[0-9]*.zip"))
    if len(found) < n:
        raise ModelError(f"{run}/checkpoints has {len(found)} numbered checkpoints, fewer than {n}")
    return found[-n:]


def average(paths: list[Path], out: Path) -> Path:
    """Writes the average of `paths`' weights to `out` (the newest, last, gives norms and metadata)."""
    if not paths:
        raise ModelError("no models to average")
    loaded = [load_model(p) for p in paths]
    model, meta = loaded[-1]
    for p, (_, mt) in zip(paths, loaded):
        if (mt["preset"], mt["contract"]) != (meta["preset"], meta["contract"]):
            raise ModelError(f"{p}: preset {mt['preset']!r} / contract {mt['contract']['name']!r} differ from "
                             f"{paths[-1]}'s; only checkpoints of one network can be averaged")
    states = [m.state_dict() for m, _ in loaded]
    averaged = {k: (sum(s[k].double() for s in states) / len(states)).to(v.dtype)
                if v.is_floating_point() and not k.startswith(NORM_PREFIXES) else v
                for k, v in states[-1].items()}
    model.load_state_dict(averaged)
    from metapvp import contract as contracts
    info = {k: v for k, v in meta.items() if k not in ("format_version", "preset", "contract", "date")}
    return save_model(out, model, contracts.load(meta["contract"]["name"]), **info,
                      averaged_from=[Path(p).name for p in paths])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("models", nargs="*", type=Path)
    ap.add_argument("--run", type=Path, help="take the run's newest numbered checkpoints")
    ap.add_argument("--last", type=int, default=5, help="how many of them (with --run)")
    args = ap.parse_args(argv)
    try:
        paths = args.models or (last_checkpoints(args.run, args.last) if args.run else [])
        out = average(paths, args.out)
    except ModelError as e:
        print(f"average_checkpoints: {e}", file=sys.stderr)
        return 2
    print(f"{out}: the average of {', '.join(p.name for p in paths)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
