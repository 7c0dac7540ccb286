"""How true the native search's worlds are: over random gen 9 battles (both sides mostly
attacking at random), at each of p1's decisions `--worlds` worlds drawn from p1's view as
`agent` draws them, each written as poke-engine's state beside the true battle's, field by field
(js/checks/worldtruth.js). Prints the disagreements on the fields the player could count (they
should be none) and, for the fields the foe hides, how often a drawn world had the truth.

    ./rp scripts/worlds_truth.py [--battles 100] [--seed 1] [--worlds 2]

The last line of stdout is the result as JSON."""
from __future__ import annotations

import argparse
import json

from metapvp.engine.v8 import checks_context


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--battles", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--worlds", type=int, default=2, help="worlds drawn at each decision")
    args = ap.parse_args(argv)
    r = checks_context().checks("checkWorldTruth", {"format": "gen9randombattle", "battles": args.battles,
                                                    "seed": [args.seed, 2, 3, 4], "worlds": args.worlds})
    wrong = sum(r["counted"].values())
    print(f"{r['worlds']} worlds at {r['decisions']} decisions of {args.battles} battles: "
          f"{wrong} of {r['compared']} counted fields disagree with the true battle")
    for what, n in sorted(r["counted"].items(), key=lambda kv: -kv[1]):
        print(f"  {what:<28} {n:>7}")
    print("\nguessed (the foe's hidden sets, unseen Pokemon, durations drawn at their start): "
          "share of worlds that had the truth")
    for what, (miss, n) in sorted(r["guessed"].items()):
        print(f"  {what:<28} {1 - miss / n:>7.3f} of {n}")
    for e in r["examples"]:
        print("  e.g.", e)
    print(json.dumps(r))


if __name__ == "__main__":
    main()
