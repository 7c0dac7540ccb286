"""The battle runner: a run of many battles between two player specs, split into shares played
by worker processes (each with its own V8 context), tallied, reported and logged. head2head.py
is its command line; cluster/battles.py plays the same shares on Ray actors.

A run's results depend on its seed and its number of workers, never on timing: worker w plays
every W-th battle, and each battle's seed and seats follow from its number. So a stopped run
can go on where it stopped (`resume`): the battles it logged count, the others are played (the
same battles; only the players' own random draws differ from an unbroken run). The folder's
bookkeeping (run.json, the logs, what earlier sittings finished) is rundir.py's; this module
starts, feeds, stops and reaps the worker processes."""
from __future__ import annotations

import multiprocessing as mp
import queue
import sys
import threading
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from metapvp import contract as contracts
from metapvp.arena.match import play
from metapvp.arena.runconfig import RunConfig, Tally
from metapvp.arena.rundir import Earlier, prepare, write_battle
from metapvp.arena.stats import summarize
from metapvp.backends import make_backend
from metapvp.engine import memory
from metapvp.lifecycle import exit_with_parent, signals_held
from metapvp.players import as_played, contract_for, make_player


def player_seeds(seed: int, worker: int) -> tuple[int, int]:
    """The two players' seeds in worker `worker` of a run with `seed`: distinct for every worker
    and player (a player's sampling must not repeat another's)."""
    a, b = np.random.SeedSequence([seed, worker]).generate_state(2)
    return int(a), int(b)


def shares(cfg: RunConfig) -> list[list[int]]:
    """The battles of each worker: every W-th, so that a run's results depend on W, not on timing."""
    return [s for s in (list(range(w, cfg.num_matches, cfg.workers)) for w in range(cfg.workers)) if s]


def play_share(cfg: RunConfig, indices: list[int], stop: threading.Event | None = None, share: int | None = None):
    """Plays the run's battles `indices` in this process, as worker `share` of the run (its
    players' seeds follow from it; default: the first battle's number); yields their Results
    (with their logs when cfg.outdir is set). A worker that takes over the rest of a lost one's
    share passes that share's number, so its players are seeded as the lost one's were."""
    seed_a, seed_b = player_seeds(cfg.seed, share if share is not None else indices[0] if indices else 0)
    a = make_player(cfg.p1, seed=seed_a, fmt=cfg.format)
    b = make_player(cfg.p2, seed=seed_b, fmt=cfg.format)
    teams = None
    if cfg.team_p1:
        teams = {"a": Path(cfg.team_p1).read_text(), "b": Path(cfg.team_p2).read_text()}
    greedy = (cfg.play_best_move in ("p1", "both"), cfg.play_best_move in ("p2", "both"))
    backend = make_backend(cfg.sim, contract_for(a, b) or contracts.for_format(cfg.format))
    thoughts = bool(cfg.outdir) and (cfg.thoughts if cfg.thoughts is not None else a.thinks or b.thinks)
    try:
        yield from play(a, b, cfg.format, indices, seed=cfg.seed, concurrency=cfg.concurrency, teams=teams,
                        keep_logs=bool(cfg.outdir), greedy=greedy, backend=backend, stop=stop,
                        thoughts=thoughts)
    finally:
        backend.close()


def _worker(cfg: RunConfig, share: int, indices, results, stop):
    exit_with_parent()  # the parent handles Ctrl-C and tells us; if it dies, we go too
    try:
        for n, r in enumerate(play_share(cfg, indices, stop, share=share), 1):
            if cfg.outdir and r.log:
                write_battle(cfg, r.__dict__)
            r.log = r.thoughts = None
            results.put(("result", r.__dict__))
            if cfg.memory_every and n % cfg.memory_every == 0:
                results.put(("memory", {"worker": indices[0], "battles": n, **memory.sample()}))
    except Exception as e:  # noqa: BLE001 -- reported to the parent, which carries on
        results.put(("error", f"{type(e).__name__}: {e}"))
    results.put(("done", share))


def left_to_play(cfg: RunConfig, earlier: Earlier) -> list[tuple[int, list[int]]]:
    """(share number, its battles not yet finished) for each share with some left."""
    return [(s[0], left) for s in shares(cfg) if (left := [i for i in s if i not in earlier.done])]


def run(cfg: RunConfig) -> dict:
    """Plays the run in cfg.workers local processes; -> the report (see report())."""
    earlier = prepare(cfg)
    ctx = mp.get_context("spawn")
    results, stop = ctx.Queue(), ctx.Event()
    jobs = left_to_play(cfg, earlier)
    procs = [ctx.Process(target=_worker, args=(cfg, share, left, results, stop), daemon=True) for share, left in jobs]
    start = time.perf_counter()
    for p in procs:
        p.start()
    finished, tally, fatal, interrupted = set(), earlier.tally, [], False
    bar = tqdm(total=cfg.num_matches, initial=len(earlier.done), unit="battle", file=sys.stderr, disable=cfg.quiet)
    try:
        while len(finished) < len(procs):
            try:
                kind, payload = results.get(timeout=1.0)
            except queue.Empty:
                if not any(p.is_alive() for p in procs):
                    break
                continue
            if kind == "result":
                tally.add(payload)
                bar.update(1)
                bar.set_postfix_str(tally.score(cfg))
            elif kind == "memory":
                tally.memory.append(payload)
            elif kind == "error":
                fatal.append(payload)
                tqdm.write(f"worker failed: {payload}", file=sys.stderr)
            else:
                finished.add(payload)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        with signals_held():   # a second signal must not lose what finished; all below is bounded
            if interrupted:
                tqdm.write("interrupted: stopping workers, writing what finished", file=sys.stderr)
                stop.set()
                _collect_while_stopping(procs, results, tally)
            bar.close()
            _reap(procs)
    lost = [] if interrupted else [(share, p.exitcode) for (share, _), p in zip(jobs, procs) if share not in finished]
    for share, code in lost:
        fatal.append(f"worker {share} died (exit code {code}) before its share was played: the battles it had not "
                     f"finished are not in the results; --resume plays them")
    return report(cfg, tally, fatal, earlier.seconds + time.perf_counter() - start, interrupted,
                  lost_workers=len(lost), resumed=len(earlier.done))


def _collect_while_stopping(procs, results, tally: Tally, seconds: float = 10):
    """The results that workers told to stop still send, for up to `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline and any(p.is_alive() for p in procs):
        try:
            kind, payload = results.get(timeout=0.5)
            if kind == "result":
                tally.add(payload)
        except queue.Empty:
            pass


def _reap(procs):
    """Every worker joined: those that do not stop in time are terminated, then killed."""
    for w, p in enumerate(procs):
        p.join(timeout=5)
        if p.is_alive():
            tqdm.write(f"worker {w} did not stop in time: terminated", file=sys.stderr)
            p.terminate()
            # a worker whose exit waits on results nobody reads now is cut off
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()


def report(cfg: RunConfig, tally: Tally, fatal, seconds, interrupted, lost_workers: int = 0,
           resumed: int = 0) -> dict:
    """The run's result as one JSON-able dict: the win rate with its 95% interval, speeds, errors
    (failed battles and failed workers) and their messages; `resumed`, the battles that earlier
    sittings of a resumed run had finished (counted in it, their seconds too)."""
    t = tally
    return {"format": cfg.format, "p1": cfg.p1, "p2": cfg.p2,
            "p1_as_played": as_played(cfg.p1, cfg.format), "p2_as_played": as_played(cfg.p2, cfg.format),
            **summarize(t.a, t.b, t.ties),
            "p1_wins": t.a, "p2_wins": t.b, "ties": t.ties,
            "mean_turns": t.turns / t.played if t.played else None,
            "battles_per_s": t.played / seconds if seconds else None,
            "turns_per_s": t.turns / seconds if seconds else None,
            "errors": t.failed + len(fatal),
            "invalid_choices": t.invalid,
            "unavailable_choices": t.unavailable,
            "requested": cfg.num_matches, "seed": cfg.seed, "sim": cfg.sim, "workers": cfg.workers,
            "ray": cfg.ray, "lost_workers": lost_workers, "resumed": resumed,
            "play_best_move": cfg.play_best_move,
            "seconds": seconds, "interrupted": interrupted,
            "error_messages": sorted(t.errors | set(fatal))[:20],
            **({"memory": t.memory} if t.memory else {})}
