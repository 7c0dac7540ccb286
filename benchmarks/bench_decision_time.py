"""Benchmarks how long players take a decision, side by side in one run: each spec plays
--battles battles against --opponent, one battle at a time in one process (one core), and every
decision it is asked for is timed (the whole act() call: the policy's forward pass, its
lookahead or search).

    ./rp benchmarks/bench_decision_time.py --format gen9randomdoublesbattle \\
        --specs agent@0,lookahead2x1w8:agent,lookahead3w8:agent [--battles 30] [--opponent heuristic] [--seed 0]
    ./rp benchmarks/bench_decision_time.py --specs agent --battles 20 --thoughts

Prints, per spec: decisions timed, milliseconds a decision (median, 90th and 99th percentile,
max), and its win rate over the battles (too few to rank players: use head2head for that).
With --thoughts, each spec plays the same battles twice (after a pass unmeasured, which warms
the caches alike for both), without and then with its thoughts recorded (as head2head --outdir
keeps them: arena/thoughts.py), the recording's own work counted
in each decision's time, and the cost of recording is printed as the ratio of the two means.
With --parts, for a native search, where the time goes: the worlds drawn in JS (one call a
decision) and one world's search (the worlds are searched side by side in threads).
A benchmark, not a test: the figures depend on the machine and its load; run it on an idle
machine."""
import argparse
import time
from collections import defaultdict

import numpy as np

from metapvp.arena import play
from metapvp.arena.thoughts import ThoughtLog
from metapvp.engine.v8 import V8Object
from metapvp.players import make_player
from metapvp.players.base import Player
from metapvp.players.native import NativeSearch
from metapvp.players.spec import spec_list


class Timed(Player):
    """`inner`, with the time of every act() call kept (and, where thoughts are recorded, the
    recorder's work for it: time_recording())."""

    def __init__(self, inner: Player):
        self.inner, self.name, self.contract = inner, inner.name, inner.contract
        self.ms: list[float] = []

    @property
    def thinking(self):
        return self.inner.thinking

    @thinking.setter
    def thinking(self, on: bool):
        self.inner.thinking = on

    @property
    def thoughts(self):
        return self.inner.thoughts

    def act(self, decisions, greedy: bool = False):
        start = time.perf_counter()
        out = self.inner.act(decisions, greedy)
        self.ms.append(1000 * (time.perf_counter() - start))
        return out


def time_parts() -> dict[str, list[float]]:
    """Wraps the native search's parts so that each call's milliseconds are kept, by part."""
    spent = defaultdict(list)

    def wrap(cls, name: str, part: str):
        inner = getattr(cls, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            out = inner(*args, **kwargs)
            spent[part].append(1000 * (time.perf_counter() - start))
            return out
        setattr(cls, name, timed)

    wrap(V8Object, "engine_worlds", "worlds drawn")
    wrap(NativeSearch, "_searched", "one world's search")
    return spent


def time_recording():
    """The thought recorder's work for a Timed player's decisions, added to their times."""
    inner = ThoughtLog.add

    def timed(self, player, *args, **kwargs):
        start = time.perf_counter()
        inner(self, player, *args, **kwargs)
        if isinstance(player, Timed) and player.ms:
            player.ms[-1] += 1000 * (time.perf_counter() - start)
    ThoughtLog.add = timed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--specs", required=True, help="player specs, comma-separated")
    ap.add_argument("--battles", type=int, default=30)
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--parts", action="store_true", help="also time a native search's parts")
    ap.add_argument("--thoughts", action="store_true",
                    help="each spec twice, without and with its thoughts recorded, and the cost of recording")
    args = ap.parse_args()
    parts = time_parts() if args.parts else {}
    time_recording()
    print(f"{args.format}, against {args.opponent}, {args.battles} battles each, one at a time")
    print(f"{'player':<30} {'decisions':>9} {'ms median':>9} {'p90':>6} {'p99':>6} {'max':>6} {'win':>6}")
    for spec in spec_list(args.specs):
        means = []
        if args.thoughts:   # once unmeasured first: the knowledge caches warm up alike for both
            list(play(make_player(spec, seed=args.seed, fmt=args.format), make_player(args.opponent, seed=args.seed + 1,
                 fmt=args.format), args.format, range(args.battles), seed=args.seed, concurrency=1))
        for thoughts in ((False, True) if args.thoughts else (False,)):
            player = Timed(make_player(spec, seed=args.seed, fmt=args.format))
            foe = make_player(args.opponent, seed=args.seed + 1, fmt=args.format)
            results = list(play(player, foe, args.format, range(args.battles), seed=args.seed, concurrency=1,
                                thoughts=thoughts))
            done = [r for r in results if r.error is None]
            win = sum(r.winner == "a" for r in done) / max(1, len(done))
            ms = np.asarray(player.ms or [0.0])
            means.append(ms.mean())
            name = spec + (" + thoughts" if thoughts else "")
            print(f"{name:<30} {len(ms):>9} {np.median(ms):>9.1f} {np.percentile(ms, 90):>6.1f} "
                  f"{np.percentile(ms, 99):>6.1f} {ms.max():>6.1f} {win:>6.3f}"
                  + (f"  ({len(results) - len(done)} errors)" if len(done) < len(results) else ""), flush=True)
        if args.thoughts:
            print(f"  recording thoughts: mean {means[1]:.2f} ms against {means[0]:.2f} ms a decision, "
                  f"{100 * (means[1] / means[0] - 1):+.1f}%", flush=True)
        for part, times in parts.items():
            t = np.asarray(times)
            print(f"  {part:<28} {len(t):>9} {np.median(t):>9.1f} {np.percentile(t, 90):>6.1f} "
                  f"{np.percentile(t, 99):>6.1f} {t.max():>6.1f}", flush=True)
            times.clear()


if __name__ == "__main__":
    main()
