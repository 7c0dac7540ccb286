"""The battle runner: a run of many battles between two player specs, split into shares played
by worker processes (each with its own V8 context), tallied, reported and logged. head2head.py
is its command line; cluster/battles.py plays the same shares on Ray actors.

A run's results depend on its seed and its number of workers, never on timing: worker w plays
every W-th battle, and each battle's seed and seats follow from its number. So a stopped run
can go on where it stopped (`resume`): the battles it logged count, the others are played (the
same battles; only the players' own random draws differ from an unbroken run)."""
from __future__ import annotations

import dataclasses
import gzip
import json
import multiprocessing as mp
import queue
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from metapvp import contract as contracts
from metapvp.arena.match import first_seat, play
from metapvp.arena.stats import summarize
from metapvp.backends import make_backend
from metapvp.engine import memory
from metapvp.lifecycle import exit_with_parent, signals_held
from metapvp.players import as_played, contract_for, make_player


@dataclass
class RunConfig:
    """What a run plays. p1 and p2 name players (specs, metapvp/players/spec.py), not sides: they
    swap sides every battle."""
    p1: str
    p2: str
    format: str = "gen9randombattle"
    num_matches: int = 100
    workers: int = 1
    concurrency: int = 32          # battles at once per worker
    seed: int = 0
    sim: str = "inprocess"         # the backend: inprocess or stdio
    outdir: str | None = None      # where results.json and logs/ go
    play_best_move: str | None = None  # p1, p2 or both take their best action instead of sampling
    team_p1: str | None = None     # team files, for formats with user teams
    team_p2: str | None = None
    quiet: bool = False            # no progress bar
    memory_every: int = 0          # every N battles, each local worker samples its memory
    ray: str | None = None         # None: local processes; else 'local' or a cluster's address
    resume: bool = False           # go on with the run in outdir: its logged battles count, the rest are played


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
    memory: list = field(default_factory=list)   # the workers' memory samples (memory_every)

    def add(self, r: dict):
        """One battle's result (a Result's fields)."""
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

    def score(self, cfg: RunConfig) -> str:
        return f"{cfg.p1} {self.a}-{self.b} {cfg.p2}"


RUN_FILE = "run.json"      # the run's config, written to its outdir before the first battle
SAME_RUN = ("format", "p1", "p2", "seed", "play_best_move", "team_p1", "team_p2")   # what makes it the same battles


class RunDirError(ValueError):
    """An --outdir that holds another run, or nothing to resume."""


@dataclass
class Earlier:
    """What earlier sittings of a resumed run finished: their battles (those logged without an
    error) tallied from the logs, with the counts only results.json kept (invalid choices,
    failures) when a sitting got to write it, and the seconds they took."""
    tally: Tally = field(default_factory=Tally)
    done: set = field(default_factory=set)
    seconds: float = 0.0


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
    try:
        yield from play(a, b, cfg.format, indices, seed=cfg.seed, concurrency=cfg.concurrency, teams=teams,
                        keep_logs=bool(cfg.outdir), greedy=greedy, backend=backend, stop=stop)
    finally:
        backend.close()


def write_log(cfg: RunConfig, index: int, log: str):
    """Written whole or not at all (renamed into place), so that a run killed mid-write leaves
    no torn log for a resume to stumble on."""
    path = Path(cfg.outdir) / "logs" / f"battle-{cfg.format}-{index:06d}.log.json.gz"
    part = path.with_name(path.name + ".part")
    with gzip.open(part, "wt") as f:
        f.write(log)
    part.replace(path)


LOG_NAME = re.compile(r"battle-.*-([0-9]+)\.log\.json\.gz$")


def read_logs(outdir) -> Iterator[tuple[int, dict]]:
    """(battle number, saved battle) for each battle log of a run's --outdir (write_log's), in
    order; a ValueError naming the file where one cannot be read."""
    for path in sorted((Path(outdir) / "logs").glob("battle-*.log.json.gz")):
        m = LOG_NAME.search(path.name)
        if not m:
            continue
        try:
            with gzip.open(path, "rt") as f:
                yield int(m.group(1)), json.load(f)
        except (OSError, ValueError) as e:
            raise ValueError(f"{path}: unreadable battle log ({e})") from e


def logged_winner(index: int, battle: dict) -> str:
    """Who won battle `index` of a run by its saved log: 'a' (the first player, --p1), 'b', or
    'tie' (no side named)."""
    winner = battle.get("winner")
    return "tie" if winner not in ("p1", "p2") else "a" if winner == first_seat(index) else "b"


def _worker(cfg: RunConfig, share: int, indices, results, stop):
    exit_with_parent()  # the parent handles Ctrl-C and tells us; if it dies, we go too
    try:
        for n, r in enumerate(play_share(cfg, indices, stop, share=share), 1):
            if cfg.outdir and r.log:
                write_log(cfg, r.index, r.log)
            r.log = None
            results.put(("result", r.__dict__))
            if cfg.memory_every and n % cfg.memory_every == 0:
                results.put(("memory", {"worker": indices[0], "battles": n, **memory.sample()}))
    except Exception as e:  # noqa: BLE001 -- reported to the parent, which carries on
        results.put(("error", f"{type(e).__name__}: {e}"))
    results.put(("done", None))


def prepare(cfg: RunConfig) -> Earlier:
    """Makes cfg.outdir ready (its logs/ and run.json); -> what an earlier sitting there finished
    when cfg.resume, else nothing. A RunDirError when the folder holds another run's battles
    (their logs would mix) or, with resume, no run at all."""
    if not cfg.outdir:
        if cfg.resume:
            raise RunDirError("resume needs the run's outdir")
        return Earlier()
    out = Path(cfg.outdir)
    before = recorded_run(out)
    if before is not None:
        differs = [k for k in SAME_RUN if k in before and before[k] != getattr(cfg, k)]
        if differs:
            raise RunDirError(f"{out} holds another run ({', '.join(f'{k} {before[k]!r}' for k in differs)}); "
                              f"choose another outdir")
    elif cfg.resume:
        raise RunDirError(f"nothing to resume in {out}: no {RUN_FILE} or results.json there")
    earlier = _earlier(cfg, out) if cfg.resume else Earlier()
    (out / "logs").mkdir(parents=True, exist_ok=True)
    (out / RUN_FILE).write_text(json.dumps(dataclasses.asdict(cfg), indent=2) + "\n")
    return earlier


def recorded_run(out: Path) -> dict | None:
    """The run an outdir holds (its players, format, seed...), by its run.json, written before
    the first battle, or, from runs before run.json existed, results.json; None where neither is."""
    for name in (RUN_FILE, "results.json"):
        path = out / name
        if path.is_file():
            try:
                return json.loads(path.read_text())
            except ValueError as e:
                raise RunDirError(f"{path}: unreadable ({e})") from e
    return None


def _earlier(cfg: RunConfig, out: Path) -> Earlier:
    earlier = Earlier()
    t = earlier.tally
    try:
        for i, battle in read_logs(out):
            if i >= cfg.num_matches or battle.get("error"):
                continue   # a failed battle is played again
            earlier.done.add(i)
            winner = logged_winner(i, battle)
            t.a += winner == "a"
            t.b += winner == "b"
            t.ties += winner == "tie"
            t.turns += battle.get("turns", 0)
    except ValueError as e:   # a log torn by a run from before logs were renamed into place
        raise RunDirError(f"{e}: remove it to play that battle again") from e
    results = out / "results.json"
    if results.is_file():
        try:
            r = json.loads(results.read_text())
        except ValueError as e:
            raise RunDirError(f"{results}: unreadable ({e})") from e
        t.invalid, t.unavailable, t.failed = (r.get("invalid_choices", 0), r.get("unavailable_choices", 0),
                                              r.get("errors", 0))
        t.errors.update(r.get("error_messages", []))
        earlier.seconds = r.get("seconds", 0.0)
    return earlier


def left_to_play(cfg: RunConfig, earlier: Earlier) -> list[tuple[int, list[int]]]:
    """(share number, its battles not yet finished) for each share with some left."""
    return [(s[0], left) for s in shares(cfg) if (left := [i for i in s if i not in earlier.done])]


def run(cfg: RunConfig) -> dict:
    """Plays the run in cfg.workers local processes; -> the report (see report())."""
    earlier = prepare(cfg)
    ctx = mp.get_context("spawn")
    results, stop = ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_worker, args=(cfg, share, left, results, stop), daemon=True)
             for share, left in left_to_play(cfg, earlier)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    done, tally, fatal, interrupted = 0, earlier.tally, [], False
    bar = tqdm(total=cfg.num_matches, initial=len(earlier.done), unit="battle", file=sys.stderr, disable=cfg.quiet)
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
                bar.set_postfix_str(tally.score(cfg))
            elif kind == "memory":
                tally.memory.append(payload)
            elif kind == "error":
                fatal.append(payload)
                tqdm.write(f"worker failed: {payload}", file=sys.stderr)
            else:
                done += 1
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
    return report(cfg, tally, fatal, earlier.seconds + time.perf_counter() - start, interrupted,
                  resumed=len(earlier.done))


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
