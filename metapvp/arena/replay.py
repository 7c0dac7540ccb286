"""Saved battles played again in the simulator: each battle of a run's --outdir (head2head's
logs) is rebuilt from its seed and its input log, and each side's observation at each of its
decisions comes back as that player saw it, with the battle's saved winner. What recorded games
looked like to their players, for studying or training a value.

A replay is checked against its record: every recorded choice must be accepted where it was
made, none may be left over, and the replayed battle must end as the saved one did. A battle
that fails a check is reported with why, and the others go on."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from metapvp import contract as contracts
from metapvp.engine import Simulator


@dataclass
class Position:
    side: str                    # 'p1' or 'p2': whose view
    turn: int
    obs: dict[str, np.ndarray]   # the contract's features, one row (copied)


@dataclass
class Replayed:
    index: int                   # the battle's number in its run
    winner: str                  # the saved winner: 'p1', 'p2', or '' for a tie
    positions: list[Position] = field(default_factory=list)
    error: str | None = None     # why the replay failed its record, where it did


def recorded_choices(saved: dict) -> dict[str, list[str]]:
    """Each side's committed choices, in order, from a saved battle's input log."""
    out: dict[str, list[str]] = {"p1": [], "p2": []}
    for line in saved.get("inputLog") or []:
        head, _, rest = line.partition(" ")
        side = head[1:]
        if side in out and rest:
            out[side].append(rest)
    return out


def battle_spec(bid: str, saved: dict) -> dict:
    """The simulator's start spec for a saved battle: its format and seed; the teams come from
    the seed, as in every random format."""
    fmt, seed = saved.get("format"), saved.get("seed")
    if not fmt or not seed:
        raise ValueError("the saved battle has no format or seed")
    if "random" not in fmt:
        raise ValueError(f"{fmt}: only random formats replay (their teams follow from the seed)")
    if isinstance(seed, list):
        seed = ",".join(map(str, seed))
    return {"id": bid, "format": fmt, "seed": seed}


def replay(battles: Iterable[tuple[int, dict]], contract: str | None = None, concurrency: int = 32,
           sides=("p1", "p2")) -> Iterator[Replayed]:
    """Replays (battle number, saved battle) pairs (rundir.read_logs), `concurrency` at a time,
    all of one format; yields each as it ends, with the positions of `sides`."""
    if concurrency < 1 or not sides or not set(sides) <= {"p1", "p2"}:
        raise ValueError(f"replay: concurrency >= 1 and sides among p1, p2, got {concurrency} and {sides!r}")
    pending = iter(battles)
    sim = None
    live: dict[str, tuple[Replayed, dict[str, list[str]]]] = {}

    def refill() -> tuple[list[dict], list[Replayed]]:
        """Start specs for battles up to `concurrency` live, and the records refused on the way."""
        specs, refused = [], []
        while len(live) < concurrency:
            nxt = next(pending, None)
            if nxt is None:
                break
            index, saved = nxt
            bid = f"replay-{index}"
            rec = Replayed(index, saved.get("winner") if saved.get("winner") in ("p1", "p2") else "")
            try:
                specs.append(battle_spec(bid, saved))
            except ValueError as e:
                rec.error = f"battle {index}: {e}"
                refused.append(rec)
                continue
            live[bid] = (rec, recorded_choices(saved))
        return specs, refused

    try:
        start, refused = refill()
        yield from refused
        if not live:
            return
        fmt = start[0]["format"]
        sim = Simulator(contract or contracts.for_format(fmt))
        step = sim.start(start)
        while live:
            for err in step.errors:
                if err.battle in live:
                    rec, _ = live.pop(err.battle)
                    rec.error = f"battle {rec.index}: {err}"
                    sim.abort([err.battle])
                    yield rec
            for e in step.ended:
                if e.battle not in live:
                    continue
                rec, left = live.pop(e.battle)
                if e.error:
                    rec.error = f"battle {rec.index}: {e.error}"
                elif any(left.values()):
                    rec.error = f"battle {rec.index}: ended with recorded choices left ({sum(map(len, left.values()))})"
                elif (e.winner or "") != rec.winner:
                    rec.error = (f"battle {rec.index}: replayed winner {e.winner or 'none'!r}, "
                                 f"saved {rec.winner or 'none'!r}")
                yield rec
            choices, broken = [], []
            for d in step.decisions:
                if d.battle not in live or d.battle in broken:
                    continue
                rec, left = live[d.battle]
                if d.side in sides:
                    rec.positions.append(Position(d.side, d.turn, {k: v[d.row].copy() for k, v in step.obs.items()}))
                if not left[d.side]:
                    rec.error = (f"battle {rec.index}: {d.side} must decide at turn {d.turn}, "
                                 f"but its recorded choices ran out")
                    broken.append(d.battle)
                    continue
                choices.append((d.battle, d.side, left[d.side].pop(0)))
            for bid in broken:
                rec, _ = live.pop(bid)
                yield rec
            if broken:
                sim.abort(broken)
                choices = [c for c in choices if c[0] not in broken]
            more, refused = refill()
            yield from refused
            if not live:
                break
            step = sim.replay(choices, more)
    finally:
        if sim is not None:
            sim.close()

