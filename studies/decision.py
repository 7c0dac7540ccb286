"""Why a native-search player chose what it did at one decision of a saved battle: the battle
(head2head's --outdir logs) is replayed in the simulator up to that decision, and there the
player's view is searched again as the player searches it: the policy's probabilities, then for
each drawn world the foe's active as the world has it and the search's visits and values per
option, beside the choice the saved battle made. For finding what a search misjudges.

    ./rp studies/decision.py runs/h2h/RUN --battle N --turn T [--side p1|p2] [--player agent] [--seed 0]

--side defaults to the side head2head's --p1 played in that battle (seats alternate). The
drawn worlds are seeded by --seed, so they are not the ones the battle drew; what they show is
what the player's view and the search make of the position."""
from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import numpy as np

from metapvp import contract as contracts
from metapvp.arena.match import first_seat
from metapvp.arena.replay import battle_spec, recorded_choices
from metapvp.engine import Simulator
from metapvp.players.base import Decisions
from metapvp.players.native import NativeSearchPlayer, root_prior
from metapvp.players.spec import make_player


def saved_battle(run: Path, index: int) -> dict:
    found = sorted((run / "logs").glob(f"battle-*-{index:06d}.log.json.gz"))
    if not found:
        raise SystemExit(f"decision: no saved battle {index} in {run / 'logs'} (head2head keeps logs with --outdir)")
    with gzip.open(found[0], "rt") as f:
        return json.load(f)


def replayed_to(sim: Simulator, saved: dict, side: str, turn: int):
    """The simulator's step at `side`'s first decision of `turn` (the saved battle's choices
    played up to it), and that decision; SystemExit where the battle never reaches it."""
    left = recorded_choices(saved)
    spec = battle_spec("why", saved)
    step = sim.start([spec])
    while True:
        if step.errors:
            raise SystemExit(f"decision: the replay failed: {step.errors[0]}")
        mine = [d for d in step.decisions if d.side == side and d.turn >= turn]
        if mine:
            return step, mine[0], left[side][0] if left[side] else None
        if step.ended or not step.decisions:
            raise SystemExit(f"decision: the battle ended before {side}'s decision at turn {turn}")
        step = sim.replay([(d.battle, d.side, left[d.side].pop(0)) for d in step.decisions])


def foes_active(state: str) -> str:
    """Side two's active Pokemon in a poke-engine state: species, HP, status, types, Tera."""
    side = state.split("/")[1].split("=")
    p = side[int(side[6])].split(",")
    types = f"{p[2].lower()}/{p[3].lower()}"
    return f"{p[0].lower()} {p[6]}/{p[7]} HP, {p[18].lower()}, {types}, tera {p[-2]} {p[-1].lower()}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--battle", type=int, required=True)
    ap.add_argument("--turn", type=int, required=True)
    ap.add_argument("--side", choices=("p1", "p2"))
    ap.add_argument("--player", default="agent", help="a native search player's spec (default agent)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    saved = saved_battle(args.run, args.battle)
    side = args.side or first_seat(args.battle)
    player = make_player(args.player, seed=args.seed, fmt=saved["format"])
    if not isinstance(player, NativeSearchPlayer):
        raise SystemExit(f"decision: {args.player} is not a native search player "
                         "(native:MODEL, or agent in gen 9 singles)")
    sim = Simulator(player.contract or contracts.for_format(saved["format"]))
    try:
        step, d, played = replayed_to(sim, saved, side, args.turn)
        obs = {k: v[d.row:d.row + 1].copy() for k, v in step.obs.items()}
        decisions = Decisions([(d.battle, side)], obs, sim)
        probs = player.policy.evaluate(obs)[0][0]
        c = player.config
        print(f"battle {args.battle}, {side}, turn {d.turn}; played: {played}")
        found = sim.engine_worlds([(d.battle, side)], c.worlds, [args.seed])[0]
        if not found or "error" in found:
            raise SystemExit(f"decision: no world to search: {found}")
        search = player.search
        for w, (state, names) in enumerate(zip(found["states"], found["options"])):
            options, _ = search.module.options(state)
            prior = root_prior(options, names, probs, c.uniform)
            r = search.world_search(state, options, names, probs, args.seed + w)
            print(f"world {w}: the foe's active {foes_active(state)}")
            print(f"  {'option':24} {'policy':>7} {'prior':>7} {'visits':>7} {'value':>6}")
            for o, pr, n, v in zip(options, prior, r["s1"]["visits"], r["s1"]["values"]):
                pol = probs[names[o]] if o in names else float("nan")
                value = float("nan") if v is None else v   # an option never visited has none
                print(f"  {o:24} {pol:7.3f} {pr:7.3f} {n:7d} {value:6.3f}")
            top = np.argsort(r["s2"]["visits"])[::-1][:3]
            print("  the foe's most visited: " + ", ".join(
                f"{r['s2']['options'][k]} {r['s2']['visits'][k]}" for k in top))
        chosen = player.act(decisions)[0]
        print(f"the player's choice now: action {chosen} (played in the battle: {played})")
    finally:
        sim.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
