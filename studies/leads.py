"""How far ahead a player of a head2head run got in each battle, and whether it won: per battle
the largest lead in Pokemon it held at any point of it (the foe's fainted less its own, after
each faint), counted over the battles it won and those it lost, and the lost battles it had once
led by --at-least or more listed with the turn the lead was reached. A loss from far ahead is
where to look for a misjudgement (studies/decision.py searches that decision again); a loss never
led is more often the teams' matchup.

    ./rp studies/leads.py DIR                   the first player (--p1)
    ./rp studies/leads.py DIR --second          the second player (--p2)
    ./rp studies/leads.py DIR --at-least 3      list the losses once led by 3 or more

The last line of stdout is the result as JSON."""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from metapvp.arena.match import first_seat
from metapvp.arena.rundir import logged_winner, read_logs


def largest_lead(lines: list[str], side: str) -> tuple[int, int]:
    """(the largest lead in Pokemon `side` held, the turn it was first reached; 0 where never)
    from a battle's protocol lines."""
    fainted = {"p1": 0, "p2": 0}
    foe = "p2" if side == "p1" else "p1"
    turn, best, when = 0, 0, 0
    for line in lines:
        if line.startswith("|turn|"):
            turn = int(line.split("|")[2])
        elif line.startswith("|faint|"):
            fainted[line.split("|")[2][:2]] += 1
            if fainted[foe] - fainted[side] > best:
                best, when = fainted[foe] - fainted[side], turn
    return best, when


def leads(run: Path, second: bool, at_least: int) -> dict:
    """The run's battles by the player's largest lead, won and lost, the losses once led by
    `at_least` or more ([battle, lead, turn]), and each battle's largest lead."""
    won, lost, thrown, by_battle = Counter(), Counter(), [], {}
    for i, battle in read_logs(run):
        seat = first_seat(i)
        side = seat if not second else ("p2" if seat == "p1" else "p1")
        lead, turn = largest_lead(battle["log"], side)
        by_battle[i] = lead
        if logged_winner(i, battle) == ("b" if second else "a"):
            won[lead] += 1
        else:
            lost[lead] += 1
            if lead >= at_least:
                thrown.append([i, lead, turn])
    return {"battles": sum(won.values()) + sum(lost.values()), "won": sum(won.values()),
            "won_by_lead": dict(sorted(won.items())), "lost_by_lead": dict(sorted(lost.items())),
            "at_least": at_least, "lost_from_ahead": thrown, "by_battle": by_battle}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="a head2head --outdir")
    ap.add_argument("--second", action="store_true", help="the second player (--p2) rather than the first")
    ap.add_argument("--at-least", type=int, default=2, help="list the losses once led by this many or more")
    args = ap.parse_args(argv)
    try:
        r = leads(args.run, args.second, args.at_least)
    except ValueError as e:
        print(f"leads: {e}", file=sys.stderr)
        return 2
    if not r["battles"]:
        print(f"leads: no battle logs in {args.run / 'logs'}", file=sys.stderr)
        return 2
    print(f"{r['battles']} battles, {r['won']} won")
    print("largest lead   won   lost")
    for lead in sorted(set(r["won_by_lead"]) | set(r["lost_by_lead"])):
        print(f"{lead:12d} {r['won_by_lead'].get(lead, 0):5d} {r['lost_by_lead'].get(lead, 0):6d}")
    print(f"lost once {args.at_least} or more ahead: {len(r['lost_from_ahead'])} "
          f"(battle, lead, turn): {' '.join(f'{b}:{n}@{t}' for b, n, t in r['lost_from_ahead'])}")
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
