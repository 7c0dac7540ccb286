"""Records the golden battles the tests replay: for every gen 1-9 random-battle format and one
format with user teams (team preview), seeded battles between uniformly random players on the
real simulator, keeping every message each player saw. It also writes, as the expectation, the
tensors the bridge encodes when those messages are fed back to it: singles-v1's, and beside them
the battle knowledge singles-v2 adds (FILE-v2.npz); and for random doubles and VGC (team
preview), doubles-v1's.

    ./rp scripts/record_golden.py [--battles N] [--out metapvp/tests/data/golden] [--only singles|doubles]
    ./rp scripts/record_golden.py --reencode [--only singles|doubles]

Rerun it after an intended change to the contract or the encoder, and review the diff. With
--reencode the recorded battles stay as they are and only the expected tensors are written again
from them (after a change to how a view reads the same messages)."""
import argparse
import gzip
import json
from pathlib import Path

import numpy as np

from metapvp import ROOT
from metapvp.engine import Engine, Simulator
from metapvp.tests.golden import (
    DOUBLES_CONTRACT,
    DOUBLES_FORMATS,
    FORMATS,
    KNOWLEDGE_CONTRACT,
    knowledge_only,
    play_random,
    replay_stacked,
)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--battles", type=int, default=1, help="battles per format")
    ap.add_argument("--out", default=str(ROOT / "metapvp/tests/data/golden"))
    ap.add_argument("--only", choices=("singles", "doubles"), help="record one game type's battles alone")
    ap.add_argument("--reencode", action="store_true", help="keep the recorded battles; write their expectations again")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.only != "doubles":
        knowledge = Engine(KNOWLEDGE_CONTRACT)

        def also(battle, perspective, name):
            np.savez_compressed(out / f"{name}-{perspective}-v2.npz",
                                **knowledge_only(replay_stacked(battle, perspective, knowledge)))
        if args.reencode:
            reencode(FORMATS, args.battles, out, also)
        else:
            record(Simulator(), FORMATS, args.battles, out, also)
    if args.only != "singles":
        engine = Engine(DOUBLES_CONTRACT)
        if args.reencode:
            reencode(DOUBLES_FORMATS, args.battles, out, engine=engine)
        else:
            record(Simulator(DOUBLES_CONTRACT), DOUBLES_FORMATS, args.battles, out, engine=engine)


def expect(battle: dict, name: str, out: Path, also=None, engine=None):
    """Writes each side's expected tensors of `battle` (and, with `also`, more of them)."""
    for perspective in ("p1", "p2"):
        np.savez_compressed(out / f"{name}-{perspective}.npz", **replay_stacked(battle, perspective, engine))
        if also:
            also(battle, perspective, name)


def reencode(formats: list[str], battles: int, out: Path, also=None, engine=None):
    """The expectations of the battles recorded in `out`, written again from their messages."""
    for fmt in formats:
        for i in range(battles):
            name = f"{fmt}-{i}"
            with gzip.open(out / f"{name}.json.gz", "rt") as f:
                expect(json.load(f), name, out, also, engine)
            print(f"{name}: expectations written again")


def record(sim: Simulator, formats: list[str], battles: int, out: Path, also=None, engine=None):
    """Records `battles` of each format and writes each side's expected tensors; `also` writes
    more expectations per (battle, perspective, name)."""
    rng = np.random.default_rng(20261122)   # one sequence per game type: the other's files stay as they are
    for fmt in formats:
        for i in range(battles):
            seed = f"{i + 1},{len(fmt)},17,{sum(map(ord, fmt)) % 65536}"
            battle = play_random(sim, fmt, seed, rng)
            name = f"{fmt}-{i}"
            with gzip.open(out / f"{name}.json.gz", "wt") as f:
                json.dump(battle, f)
            expect(battle, name, out, also, engine)
            print(f"{name}: {battle['turns']} turns, winner {battle['winner']!r}, "
                  f"{len(battle['choices'])} decisions")


if __name__ == "__main__":
    main()
