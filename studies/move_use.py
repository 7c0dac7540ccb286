"""Which moves a player of a head2head run used, of those its Pokemon carried: over the battles
of the run (head2head --outdir), per move, how many of the player's team carried it (one count
per Pokemon per battle) and how many times the player used it (moves called by another move, such
as Metronome's, left out). A player that never uses a move its team often carries -- a support
move its policy never learnt -- shows here. And when it Terastallized: per turn of its first
Terastallization, the battles and how many of them it won.

    ./rp studies/move_use.py DIR                          the first player (--p1), top 20 carried
    ./rp studies/move_use.py DIR --moves tailwind,protect  only these
    ./rp studies/move_use.py DIR --second                  the second player (--p2)

The last line of stdout is the result as JSON, with the moves used that the team did not carry
(Struggle, moves a Transform copied)."""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from metapvp.arena.match import first_seat
from metapvp.arena.rundir import read_logs


def move_id(name: str) -> str:
    """A move's id from its display name ("U-turn" -> "uturn")."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


@dataclass
class Usage:
    """One player's moves over a run: per move id, team Pokemon carrying it summed over battles,
    and times used; per turn of its first Terastallization, battles and battles won; its switches
    in (forced or chosen, after the lead)."""
    battles: int = 0
    won: int = 0
    switches: int = 0
    carried: Counter = field(default_factory=Counter)
    used: Counter = field(default_factory=Counter)
    tera: Counter = field(default_factory=Counter)
    tera_won: Counter = field(default_factory=Counter)


def count(run: Path, second: bool = False) -> Usage:
    """The run's first player's (or second's) Usage."""
    u = Usage()
    for i, battle in read_logs(run):
        side = first_seat(i)
        if second:
            side = "p2" if side == "p1" else "p1"
        try:
            team, log = battle[f"{side}team"], battle["log"]
        except KeyError as e:
            raise ValueError(f"{run}: battle {i}'s log has no {e}") from e
        u.battles += 1
        won = battle.get("winner") == side
        u.won += won
        for mon in team:
            u.carried.update(set(mon.get("moves", [])))
        turn, tera = 0, None
        for line in log:
            parts = line.split("|")
            if len(parts) > 2 and parts[1] == "turn":
                turn = int(parts[2])
            elif len(parts) > 2 and parts[1] == "-terastallize" and parts[2].startswith(side) and tera is None:
                tera = turn
            elif len(parts) > 3 and parts[1] == "move" and parts[2].startswith(side) and "[from]" not in line:
                u.used[move_id(parts[3])] += 1
            elif len(parts) > 2 and parts[1] == "switch" and parts[2].startswith(side) and turn > 0:
                u.switches += 1
        if tera is not None:
            u.tera[tera] += 1
            u.tera_won[tera] += won
    return u


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a head2head --outdir")
    ap.add_argument("--moves", help="comma-separated move ids to list (default: the most carried)")
    ap.add_argument("--top", type=int, default=20, help="without --moves, how many of the most carried")
    ap.add_argument("--second", action="store_true", help="the run's second player (--p2) instead of its first")
    args = ap.parse_args(argv)
    if not (args.run / "logs").is_dir():
        print(f"move_use: {args.run} has no logs/ (run head2head with --outdir)", file=sys.stderr)
        return 2
    try:
        u = count(args.run, args.second)
    except ValueError as e:
        print(f"move_use: {e}", file=sys.stderr)
        return 2
    moves = ([move_id(m) for m in args.moves.split(",") if m.strip()] if args.moves
             else [m for m, _ in u.carried.most_common(args.top)])
    who = "second" if args.second else "first"
    print(f"{args.run}: the {who} player over {u.battles} battles ({u.won} won)")
    print(f"{'move':<18}{'carried':>9}{'used':>7}")
    for m in moves:
        print(f"{m:<18}{u.carried[m]:>9}{u.used[m]:>7}")
    print(f"Terastallized in {sum(u.tera.values())} battles; by the turn it first did, battles (won): " +
          (", ".join(f"turn {t}: {u.tera[t]} ({u.tera_won[t]})" for t in sorted(u.tera)) or "none"))
    # moves used that the team did not carry: Struggle, or moves a Transform copied
    print(f"Switched in {u.switches} times after the lead ({u.switches / max(u.battles, 1):.2f} a battle)")
    print(json.dumps({"battles": u.battles, "won": u.won, "player": who, "switches": u.switches,
                      "moves": {m: {"carried": u.carried[m], "used": u.used[m]} for m in moves},
                      "used_not_carried": sorted(m for m in u.used if not u.carried[m]),
                      "tera": {t: {"battles": u.tera[t], "won": u.tera_won[t]} for t in sorted(u.tera)}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
