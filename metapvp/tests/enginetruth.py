"""The bridge's truth test: does poke-engine, given the state js/src/enginestate.js writes of a true
battle (both sides known) and the joint choice that was played, have among its outcomes what
Showdown's simulator produced? Rounds come from js/checks/enginecheck.js (engineTurns); outcomes
from the native module (search-rs/src/outcomes.rs). Used by test_native_search.py (on the gen 9
golden battles) and studies/engine_truth.py (on many random battles, the misses by mechanic)."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

# HP agrees within a roll: a hit does 85-100% of its top roll and the engine plays 92.5%, so HP
# may differ by up to ~8% of the damage, and what follows from it (drain, recoil) with it: 10% of
# the round's largest HP change, either side, and 1 HP for the rounding of end-of-turn fractions.
HP_SLACK = 0.10
# what a log line says was at work in a round: a move used, or the item, ability or move behind
# an effect ("[from] item: Leftovers")
MOVE = re.compile(r"^\|move\|[^|]*\|([^|]+)")
SOURCE = re.compile(r"\[from\] (?:(item|ability|move): )?([^|\]]+)")
EFFECT = re.compile(r"^\|(-\w+)\|[^|]*\|(?:(item|ability|move): )?([^|]+)")


def largest_change(sides: list[dict], before: list[dict]) -> int:
    """The largest HP change of any Pokemon over a round, both sides."""
    return max((abs(hp - dict(zip(b["species"], b["hp"])).get(sp, hp))
                for side, b in zip(sides, before) for sp, hp in zip(side["species"], side["hp"])), default=0)


def differences(engine: dict, sim: dict, before: dict, change: int) -> list[str]:
    """What differs between one side after an engine outcome and after the simulator's round:
    'active', 'hp', 'faint', 'status', 'boosts'. `change`: the round's largest HP change."""
    out = []
    if engine["active"] != sim["active"]:
        out.append("active")
    hp = dict(zip(engine["species"], engine["hp"]))
    status = dict(zip(engine["species"], engine["status"]))
    for species, truth in zip(sim["species"], sim["hp"]):
        got = hp.get(species)
        if got is None:
            out.append("species")
            continue
        if (got == 0) != (truth == 0):
            out.append("faint")
        elif abs(got - truth) > 1 + HP_SLACK * change:
            out.append("hp")
    # (a fainted Pokemon's status is gone in the simulator, kept in the engine)
    if any(status.get(sp) != st for sp, st, h in zip(sim["species"], sim["status"], sim["hp"]) if h > 0):
        out.append("status")
    # (the simulator clears a fainted Pokemon's stages; the engine keeps them)
    if engine["active"] == sim["active"] and hp.get(sim["active"]) and engine["boosts"] != sim["boosts"]:
        out.append("boosts")
    return sorted(set(out))


@dataclass
class Verdict:
    missed: list[str]          # the closest outcome's differences, "p1 hp" and the like; none where it agrees
    mechanics: list[str]       # what was at work in the round (moves, items, abilities, effects)
    log: list[str]
    closest: dict | None = None  # the engine's outcome nearest the simulator's, where it missed
    after: list = field(default_factory=list)  # the simulator's sides after the round

    @property
    def matched(self) -> bool:
        return not self.missed


def judge(round_: dict, outcomes: list[dict]) -> Verdict:
    """Whether any outcome agrees with the simulator on both sides; else the closest one's
    differences."""
    best, closest = None, None
    for o in outcomes:
        change = max(largest_change(round_["after"], round_["before"]), largest_change(o["sides"], round_["before"]))
        diffs = [f"{side} {d}" for side, k in (("p1", 0), ("p2", 1))
                 for d in differences(o["sides"][k], round_["after"][k], round_["before"][k], change)]
        if best is None or len(diffs) < len(best):
            best, closest = diffs, o
    best = best if best is not None else ["no outcome"]
    return Verdict(best, mechanics(round_["log"]), round_["log"], closest if best else None, round_["after"])


def mechanics(log: list[str]) -> list[str]:
    """The moves, items, abilities and effects a round's log lines show at work."""
    seen = []
    for line in log:
        m = MOVE.match(line)
        if m:
            seen.append(f"move: {m.group(1)}")
        for kind, name in SOURCE.findall(line):
            seen.append(f"{kind or 'effect'}: {name.strip()}")
        e = EFFECT.match(line)
        if e and e.group(2):
            seen.append(f"{e.group(2)}: {e.group(3).strip()}")
    return sorted(set(seen))


@dataclass
class Tally:
    rounds: int = 0
    matched: int = 0
    by_difference: Counter = field(default_factory=Counter)
    by_mechanic: Counter = field(default_factory=Counter)       # among the missed rounds
    mechanic_rounds: Counter = field(default_factory=Counter)   # among all rounds
    examples: dict = field(default_factory=dict)               # a missed round's Verdict per mechanic

    def add(self, verdict: Verdict):
        self.rounds += 1
        self.matched += verdict.matched
        self.mechanic_rounds.update(verdict.mechanics)
        if not verdict.matched:
            self.by_difference.update(verdict.missed)
            self.by_mechanic.update(verdict.mechanics)
            for m in verdict.mechanics:
                self.examples.setdefault(m, verdict)

    @property
    def rate(self) -> float:
        return self.matched / self.rounds if self.rounds else 0.0


def tally_rounds(rounds: list[dict], engine) -> Tally:
    """The verdicts over `rounds` (engineTurns' rounds) with `engine` the native module."""
    tally = Tally()
    for r in rounds:
        try:
            outcomes = engine.outcomes(r["state"], r["s1"], r["s2"])
        except ValueError as e:   # the engine failed on the round: a miss, named
            tally.add(Verdict(["engine failed"], mechanics(r["log"]), r["log"] + [f"(engine: {e})"]))
            continue
        tally.add(judge(r, outcomes))
    return tally


GOLDEN_FORMATS = ("gen9randombattle", "gen9customgame")


def golden_turns() -> list[tuple[dict, dict]]:
    """(the recorded battle, engineTurns of its replay) for each gen 9 golden battle."""
    from metapvp.engine.v8 import checks_context
    from metapvp.tests.golden import golden_battle, teams_for
    out = []
    for fmt in GOLDEN_FORMATS:
        battle = golden_battle(fmt)
        out.append((battle, checks_context().checks("engineTurns", {
            "format": fmt, "seed": battle["seed"], "choices": battle["choices"], **teams_for(fmt)})))
    return out
