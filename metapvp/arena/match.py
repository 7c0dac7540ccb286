"""Plays many battles between two players on one backend, stepping them all together.

Player A takes side p1 in even-numbered battles and p2 in odd ones, so each plays each side
equally often. Each step is one call into the backend: the actions of every battle waiting on a
decision go in, and the next decisions of all of them come out."""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from metapvp import contract as contracts
from metapvp.arena.thoughts import ThoughtLog
from metapvp.engine import Simulator
from metapvp.players.base import Decisions, Player, contract_for


@dataclass
class Result:
    index: int              # the battle's number in the run
    battle: str
    seed: str
    a_side: str             # the side player A played
    winner: str | None      # 'a', 'b', 'tie', or None when the battle failed
    turns: int
    invalid: int
    unavailable: int
    error: str | None
    log: str | None = None  # Showdown's saved-battle JSON, when logs are kept
    thoughts: list | None = None   # the players' thoughts at each decision, when recorded (arena/thoughts.py)


def decide(player: Player, keys, obs, state, greedy: bool) -> tuple[np.ndarray, dict[str, str]]:
    """The player's actions for these decisions, and {battle id: error} for the battles it failed
    in. A batch the player raises on is asked again decision by decision, so that only the
    battles at fault fail (with the player's error) and the rest play on."""
    try:
        return np.asarray(player.act(Decisions(keys, obs, state), greedy=greedy)), {}
    except Exception as e:  # noqa: BLE001 -- narrowed down below, each battle alone
        first = e
    chosen, failed = np.zeros(len(keys), dtype=np.int64), {}
    for k, key in enumerate(keys):
        try:
            if len(keys) == 1:
                raise first
            one = {name: v[k:k + 1] for name, v in obs.items()}
            chosen[k] = int(np.asarray(player.act(Decisions([key], one, state), greedy=greedy))[0])
        except Exception as e:  # noqa: BLE001 -- this battle fails, the others go on
            failed[key[0]] = (f"battle {key[0]}: player {player.name} raised at {key[1]}'s decision: "
                              f"{type(e).__name__}: {e}")
    return chosen, failed


def battle_seed(seed: int, index: int) -> str:
    return f"{seed % 65536},{index % 65536},{(index // 65536) % 65536},{(seed // 65536) % 65536}"


def first_seat(i: int) -> str:
    """The side the first player (A, head2head's --p1) takes in battle i: seats alternate,
    p1 in even battles."""
    return "p1" if i % 2 == 0 else "p2"


def play(a: Player, b: Player, fmt: str, indices, seed: int = 0, concurrency: int = 32,
         teams: dict | None = None, keep_logs: bool = False, greedy=(False, False),
         backend=None, stop: threading.Event | None = None, prefix: str = "h2h", thoughts: bool = False):
    """Yields a Result per battle, as battles end. `indices`: the battle numbers to play (their
    seeds and seats follow from them); `teams`: {'a': team, 'b': team} for formats with user
    teams; `greedy`: (a, b) ask for each player's best action rather than a sample; `stop`: once
    set, the battles under way are dropped after the step in hand (a slow player would take
    minutes to finish them); `thoughts`: record what the players thought (Result.thoughts)."""
    need = contract_for(a, b)
    sim = backend or Simulator(need or contracts.for_format(fmt))
    if need and sim.contract.name != need:
        raise ValueError(f"the backend encodes contract {sim.contract.name}, but a player needs {need}")
    todo = list(indices)[::-1]
    live: dict[str, tuple[int, str]] = {}  # battle id -> (index, A's side)
    recorder = ThoughtLog({"a": a, "b": b}) if thoughts else None

    def spec(i):
        a_side = first_seat(i)
        s = {"id": f"{prefix}-{i}", "format": fmt, "seed": battle_seed(seed, i), "keepLog": keep_logs}
        if teams:
            b_side = "p2" if a_side == "p1" else "p1"
            s[f"{a_side}team"], s[f"{b_side}team"] = teams["a"], teams["b"]
        live[s["id"]] = (i, a_side)
        return s

    def stopped():
        return stop is not None and stop.is_set()

    def refill():
        out = []
        while todo and len(live) < concurrency and not stopped():
            out.append(spec(todo.pop()))
        return out

    step = sim.start(refill())
    try:
        while live:
            for err in step.errors:
                if err.battle in live and not any(e.battle == err.battle for e in step.ended):
                    i, a_side = live.pop(err.battle)
                    if recorder:
                        recorder.take(err.battle)
                    yield Result(i, err.battle, battle_seed(seed, i), a_side, None, 0, 0, 0, str(err))
            for e in step.ended:
                if e.battle not in live:
                    continue
                i, a_side = live.pop(e.battle)
                winner = None if e.error else "tie" if not e.winner else "a" if e.winner == a_side else "b"
                yield Result(i, e.battle, e.seed, a_side, winner, e.turns, e.invalid, e.unavailable, e.error, e.log,
                             recorder.take(e.battle) if recorder else None)
            actions, failed = [], {}
            for player, is_a, g in ((a, True, greedy[0]), (b, False, greedy[1])):
                rows = [k for k, d in enumerate(step.decisions)
                        if d.battle in live and (live[d.battle][1] == d.side) == is_a]
                if not rows:
                    continue
                keys = [(step.decisions[k].battle, step.decisions[k].side) for k in rows]
                idx = np.asarray([step.decisions[k].row for k in rows])
                obs = {name: v[idx] for name, v in step.obs.items()}
                chosen, why = decide(player, keys, obs, sim, g)
                failed.update(why)
                if recorder:
                    kept = [k for k, (bt, _) in enumerate(keys) if bt not in why]
                    recorder.add(player, [keys[k] for k in kept], [step.decisions[rows[k]].turn for k in kept],
                                 chosen[kept], sim)
                actions += [(bt, sd, int(x)) for (bt, sd), x in zip(keys, chosen) if bt not in why]
            if failed:
                sim.abort(list(failed))
                for battle, error in failed.items():
                    i, a_side = live.pop(battle)
                    if recorder:
                        recorder.take(battle)
                    yield Result(i, battle, battle_seed(seed, i), a_side, None, 0, 0, 0, error)
                actions = [x for x in actions if x[0] not in failed]
            if (not live and not todo) or stopped():
                break
            step = sim.step(actions, refill())
    finally:
        if backend is None:
            sim.close()
        elif live:
            sim.abort()
