"""Pits two players against each other at full speed and reports honest statistics.

    ./rp metapvp/exe/head2head.py --format gen9randombattle --p1 heuristic --p2 maxdamage \\
        --num-matches 1000 [--workers W] [--seed S] [--sim inprocess|stdio] [--outdir DIR] \\
        [--play-best-move p1|p2|both] [--team-p1 FILE --team-p2 FILE] [--concurrency C] \\
        [--ray [ADDRESS]]

Players are specs (see metapvp/players/spec.py): random, first, maxdamage, heuristic,
module.Class:weights, ,module.factory, or a model file. --p1 and --p2 name players, not sides:
they swap sides every battle. Each of W worker processes owns a V8 context and plays C battles at
once. The last line of stdout is the result as one JSON object, also written to
DIR/results.json; DIR/logs/ gets every battle in Showdown's saved-battle JSON, gzipped.
With --ray the workers are Ray actors, spread over a cluster's nodes; the results are the same
as the local run's for the same seed and --workers.
Ctrl-C stops the run and still writes what was finished."""
from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing as mp
import os
import queue
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from metapvp.arena import play, summarize
from metapvp.engine import memory
from metapvp.lifecycle import exit_with_parent, stop_on_signals


@dataclass
class Tally:
    """The run's finished battles as counts: a long run keeps no per-battle rows in memory."""
    a: int = 0
    b: int = 0
    ties: int = 0
    failed: int = 0
    turns: int = 0
    invalid: int = 0
    unavailable: int = 0
    errors: set = field(default_factory=set)
    memory: list = field(default_factory=list)   # the workers' memory samples (--memory-every)

    def add(self, r: dict):
        """One battle's result (a BattleResult's fields)."""
        if r["winner"] is None:
            self.failed += 1
        else:
            self.a += r["winner"] == "a"
            self.b += r["winner"] == "b"
            self.ties += r["winner"] == "tie"
            self.turns += r["turns"]
        self.invalid += r["invalid"]
        self.unavailable += r["unavailable"]
        if r["error"] and len(self.errors) < 100:
            self.errors.add(r["error"])

    @property
    def played(self) -> int:
        return self.a + self.b + self.ties

    def score(self, args) -> str:
        return f"{args.p1} {self.a}-{self.b} {args.p2}"


def player_seeds(seed: int, worker: int) -> tuple[int, int]:
    """The two players' seeds in worker `worker` of a run with `seed`: distinct for every worker
    and player (a player's sampling must not repeat another's)."""
    a, b = np.random.SeedSequence([seed, worker]).generate_state(2)
    return int(a), int(b)


def play_share(args, indices, stop=None):
    """Plays the run's battles `indices` in this process, as one worker of the run; yields their
    results (with their logs when args.outdir is set)."""
    from metapvp.backends import make_backend
    from metapvp.players import contract_for, make_player
    seed_a, seed_b = player_seeds(args.seed, indices[0] if indices else 0)
    a = make_player(args.p1, seed=seed_a, fmt=args.format)
    b = make_player(args.p2, seed=seed_b, fmt=args.format)
    teams = None
    if args.team_p1:
        teams = {"a": Path(args.team_p1).read_text(), "b": Path(args.team_p2).read_text()}
    greedy = (args.play_best_move in ("p1", "both"), args.play_best_move in ("p2", "both"))
    backend = make_backend(args.sim, contract_for(a, b))
    try:
        yield from play(a, b, args.format, indices, seed=args.seed, concurrency=args.concurrency,
                        teams=teams, keep_logs=bool(args.outdir), greedy=greedy, backend=backend, stop=stop)
    finally:
        close = getattr(backend, "close", None)
        if close:
            close()


def write_log(args, index: int, log: str):
    with gzip.open(Path(args.outdir) / "logs" / f"battle-{args.format}-{index:06d}.log.json.gz", "wt") as f:
        f.write(log)


def worker(args, indices, results, stop):
    exit_with_parent()  # the parent handles Ctrl-C and tells us; if it dies, we go too
    try:
        for n, r in enumerate(play_share(args, indices, stop), 1):
            if args.outdir and r.log:
                write_log(args, r.index, r.log)
            r.log = None
            results.put(("result", r.__dict__))
            if args.memory_every and n % args.memory_every == 0:
                results.put(("memory", {"worker": indices[0], "battles": n, **memory.sample()}))
    except Exception as e:  # noqa: BLE001 -- reported to the parent, which carries on
        results.put(("error", f"{type(e).__name__}: {e}"))
    results.put(("done", None))


def shares(args) -> list[list[int]]:
    """The battles of each worker: every W-th, so that a run's results depend on W, not on timing."""
    return [s for s in (list(range(w, args.num_matches, args.workers)) for w in range(args.workers)) if s]


def run(args) -> dict:
    outdir = Path(args.outdir) if args.outdir else None
    if outdir:
        (outdir / "logs").mkdir(parents=True, exist_ok=True)
    if args.ray is not None:
        from metapvp.cluster.battles import run_on_ray
        return run_on_ray(args)
    ctx = mp.get_context("spawn")
    results, stop = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=worker, args=(args, s, results, stop), daemon=True) for s in shares(args)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    done, tally, fatal, interrupted = 0, Tally(), [], False
    bar = tqdm(total=args.num_matches, unit="battle", file=sys.stderr, disable=args.quiet)
    try:
        while done < len(procs):
            try:
                kind, payload = results.get(timeout=1.0)
            except queue.Empty:
                if not any(p.is_alive() for p in procs):
                    break
                continue
            if kind == "result":
                tally.add(payload)
                bar.update(1)
                bar.set_postfix_str(tally.score(args))
            elif kind == "memory":
                tally.memory.append(payload)
            elif kind == "error":
                fatal.append(payload)
                tqdm.write(f"worker failed: {payload}", file=sys.stderr)
            else:
                done += 1
    except KeyboardInterrupt:
        interrupted = True
        tqdm.write("interrupted: stopping workers, writing what finished", file=sys.stderr)
        stop.set()
        deadline = time.time() + 10
        while time.time() < deadline and any(p.is_alive() for p in procs):
            try:
                kind, payload = results.get(timeout=0.5)
                if kind == "result":
                    tally.add(payload)
            except queue.Empty:
                pass
    finally:
        bar.close()
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join()
    seconds = time.perf_counter() - start
    return report(args, tally, fatal, seconds, interrupted)


def report(args, tally: Tally, fatal, seconds, interrupted, lost_workers: int = 0) -> dict:
    t = tally
    out = {"format": args.format, "p1": args.p1, "p2": args.p2, **summarize(t.a, t.b, t.ties),
           "p1_wins": t.a, "p2_wins": t.b, "ties": t.ties,
           "mean_turns": t.turns / t.played if t.played else None,
           "battles_per_s": t.played / seconds if seconds else None,
           "turns_per_s": t.turns / seconds if seconds else None,
           "errors": t.failed + len(fatal),
           "invalid_choices": t.invalid,
           "unavailable_choices": t.unavailable,
           "requested": args.num_matches, "seed": args.seed, "sim": args.sim, "workers": args.workers,
           "ray": args.ray, "lost_workers": lost_workers,
           "play_best_move": args.play_best_move,
           "seconds": seconds, "interrupted": interrupted,
           "error_messages": sorted(t.errors | set(fatal))[:20],
           **({"memory": t.memory} if t.memory else {})}
    return out


def table(r: dict) -> str:
    lo, hi = r["p1_win_rate_ci95"]
    rate = "n/a" if r["p1_win_rate"] is None else f"{r['p1_win_rate']:.3f}  (95% CI {lo:.3f}-{hi:.3f})"
    rows = [("format", r["format"]), ("p1", r["p1"]), ("p2", r["p2"]),
            ("matches", f"{r['matches']} of {r['requested']}" + ("  (interrupted)" if r["interrupted"] else "")),
            ("p1 wins / p2 wins / ties", f"{r['p1_wins']} / {r['p2_wins']} / {r['ties']}"),
            ("p1 win rate", rate),
            ("z vs an even match", "n/a" if r["z"] is None else f"{r['z']:+.2f}"),
            ("Elo difference", "n/a" if r["elo_diff"] is None else f"{r['elo_diff']:+.0f}"),
            ("mean turns", "n/a" if r["mean_turns"] is None else f"{r['mean_turns']:.1f}"),
            ("speed", f"{r['battles_per_s']:.1f} battles/s, {r['turns_per_s']:.0f} turns/s, {r['workers']} workers"),
            ("errors / invalid choices", f"{r['errors']} / {r['invalid_choices']}"
                                         f"  ({r['unavailable_choices']} re-decided for hidden information)")]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", default="gen9randombattle")
    ap.add_argument("--p1", required=True, help="player spec")
    ap.add_argument("--p2", required=True, help="player spec")
    ap.add_argument("--num-matches", type=int, default=100)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--concurrency", type=int, default=32, help="battles at once per worker")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sim", choices=["inprocess", "stdio"], default="inprocess")
    ap.add_argument("--outdir", default=None, help="where results.json and logs/ go")
    ap.add_argument("--play-best-move", choices=["p1", "p2", "both"], default=None,
                    help="these players take their best action instead of sampling")
    ap.add_argument("--team-p1", default=None, help="team file (export or packed) for --p1")
    ap.add_argument("--team-p2", default=None, help="team file (export or packed) for --p2")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--memory-every", type=int, default=0, metavar="N",
                    help="every N battles, each local worker samples its memory (resident set, V8 heap, "
                         "knowledge caches) into results.json (`memory`)")
    ap.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                    help="play on Ray actors (one per worker): a local instance, or the cluster at "
                         "ADDRESS ('auto', 'ray://host:port')")
    args = ap.parse_args(argv)
    if bool(args.team_p1) != bool(args.team_p2):
        ap.error("--team-p1 and --team-p2 go together")
    for t in (args.team_p1, args.team_p2):
        if t and not Path(t).is_file():
            ap.error(f"team file {t} does not exist")
    if args.num_matches < 1 or args.workers < 1 or args.concurrency < 1:
        ap.error("--num-matches, --workers and --concurrency must be at least 1")
    args.workers = min(args.workers, args.num_matches)
    from metapvp.players import SpecError, make_player
    for spec in (args.p1, args.p2):
        try:
            make_player(spec, fmt=args.format)  # fail here, with the spec named, rather than in every worker
        except SpecError as e:
            ap.error(str(e))
    return args


def main(argv=None):
    args = parse_args(argv)
    stop_on_signals()  # Ctrl-C and SIGTERM stop the workers and write what finished
    result = run(args)
    print(table(result), file=sys.stderr)
    if args.outdir:
        Path(args.outdir).mkdir(parents=True, exist_ok=True)
        (Path(args.outdir) / "results.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))
    return 0 if result["errors"] == 0 and not result["interrupted"] else 1


if __name__ == "__main__":
    sys.exit(main())
