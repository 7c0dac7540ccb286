"""How true the bridge to poke-engine is: over random gen 9 battles (both sides at random), at
each round the true battle written as the engine's state (js/src/enginestate.js) and the joint
choice that was played applied in the engine; the round agrees when one of the engine's outcomes
matches what Showdown's simulator produced (each side's active, every Pokemon's HP within a roll,
faints, status, the active's stages: metapvp/tests/enginetruth.py). Prints the share of rounds
that agree, the differences of those that do not, and the mechanics at work in them (moves,
items, abilities, effects), each with its count among all rounds: the miss rate per mechanic.

    ./rp studies/engine_truth.py [--battles 100] [--seed 1] [--top 30] [--examples 3] [--golden]

The last line of stdout is the result as JSON."""
from __future__ import annotations

import argparse
import json

from metapvp.engine.native import native
from metapvp.engine.v8 import checks_context
from metapvp.tests.enginetruth import GOLDEN_FORMATS, golden_turns, tally_rounds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--battles", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--top", type=int, default=30, help="mechanics listed, most missed first")
    ap.add_argument("--examples", type=int, default=3, help="missed rounds' logs shown, for the top mechanics")
    ap.add_argument("--golden", action="store_true", help="the two recorded gen 9 battles the test replays instead")
    args = ap.parse_args(argv)
    if args.golden:   # the recorded gen 9 battles, as the test replays them
        found = {"rounds": [], "skipped": {}}
        for _, part in golden_turns():
            found["rounds"] += part["rounds"]
            for why, n in part["skipped"].items():
                found["skipped"][why] = found["skipped"].get(why, 0) + n
        args.battles = len(GOLDEN_FORMATS)
    else:
        found = checks_context().checks("engineTurns", {"format": "gen9randombattle", "battles": args.battles,
                                                        "seed": [args.seed, 2, 3, 4], "max": 100_000})
    tally = tally_rounds(found["rounds"], native())
    print(f"{tally.matched} of {tally.rounds} rounds agree ({tally.rate:.3f}) over {args.battles} battles; "
          f"left out: {found['skipped'] or 'none'}")
    print("\nthe closest outcome's differences, in the rounds that miss:")
    for what, n in tally.by_difference.most_common():
        print(f"  {what:<12} {n:>6}")
    print("\nmechanics at work in the rounds that miss (missed / rounds with it):")
    for what, n in tally.by_mechanic.most_common(args.top):
        print(f"  {what:<40} {n:>5} / {tally.mechanic_rounds[what]:<5} {n / tally.mechanic_rounds[what]:.2f}")
    for what, _ in tally.by_mechanic.most_common(args.examples):
        verdict = tally.examples[what]
        print(f"\na missed round with {what}: {', '.join(verdict.missed)}")
        print("\n".join(f"    {line}" for line in verdict.log if line.strip() and not line.startswith("|t:|")))
        for k, side in enumerate(verdict.after):
            print(f"  sim    p{k + 1}: {side['active']} hp {dict(zip(side['species'], side['hp']))} "
                  f"boosts {side['boosts']} status {[s for s in side['status'] if s != 'NONE']}")
        if verdict.closest:
            for k, side in enumerate(verdict.closest["sides"]):
                print(f"  engine p{k + 1}: {side['active']} hp {dict(zip(side['species'], side['hp']))} "
                      f"boosts {side['boosts']} status {[s for s in side['status'] if s != 'NONE']}")
    print(json.dumps({"rounds": tally.rounds, "agree": tally.matched, "rate": round(tally.rate, 4),
                      "skipped": found["skipped"], "differences": dict(tally.by_difference),
                      "mechanics": {k: [n, tally.mechanic_rounds[k]] for k, n in tally.by_mechanic.most_common()}}))


if __name__ == "__main__":
    main()
