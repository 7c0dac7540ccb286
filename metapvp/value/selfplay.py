"""Self-play inside poke-engine at scale, the data a value learned in the engine is fitted to
(issue 83, docs/lab/engine-value.md). Each game starts at the first decision of a gen 9 random
battle (both teams from the format's generator, written as the engine's state by the bridge:
js/checks/enginecheck.js engineStarts) and is played to its end inside the engine by the native
search for both sides (search-rs/src/selfplay.rs: `iterations` a decision, each side its most
visited option, drawn by its visits in the first `sample_turns` decisions so that games part).
Every decision's state, both sides' visits and the game's winner are kept.

A run directory holds:

    run.json                  the settings (a resumed run must have the same)
    shard-000000.jsonl.gz     one game a line: {game, winner, states, visits: [[s1, s2], ...]}
    metrics.csv, tb/          per shard: games, positions, positions a second, side one's wins

Shard k holds games k * games_per_shard onward, each seeded by its number, so a shard is the same
whoever plays it and whenever. A shard is written whole (to a temporary name, then renamed): a run
stopped at any moment resumes (--resume) from the shards on disk and loses at most the shards in
flight. Locally the games of a shard are played on `threads` threads (the search releases the
GIL); with Ray each shard is a task on one CPU of the cluster."""
from __future__ import annotations

import dataclasses
import gzip
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SHARD = "shard-{:06d}.jsonl.gz"


@dataclasses.dataclass(frozen=True)
class SelfPlay:
    """How the games are played (what a resumed run must repeat)."""
    format: str = "gen9randombattle"
    seed: int = 1
    iterations: int = 2000
    sample_turns: int = 4
    max_turns: int = 200
    games_per_shard: int = 200

    def __post_init__(self):
        for name in ("iterations", "games_per_shard", "max_turns"):
            if getattr(self, name) < 1:
                raise ValueError(f"self-play: {name} must be at least 1, not {getattr(self, name)}")
        if self.sample_turns < 0:
            raise ValueError(f"self-play: sample_turns must be 0 or more, not {self.sample_turns}")


class RunMismatch(ValueError):
    """A directory that holds another run's games."""


def shard_path(outdir: Path, k: int) -> Path:
    return Path(outdir) / SHARD.format(k)


def starts(plan: SelfPlay, k: int) -> list[str]:
    """The engine states shard k's games start from."""
    from metapvp.engine.v8 import checks_context
    return checks_context().checks("engineStarts", {
        "format": plan.format, "battles": plan.games_per_shard, "seed": [plan.seed, k, 83, 1]})


def play_shard(plan: SelfPlay, k: int, threads: int = 1) -> list[dict]:
    """Shard k's games, in order: {game, winner, states, visits}."""
    from metapvp.engine.native import native
    engine, first = native(), k * plan.games_per_shard

    def game(i_state):
        i, state = i_state
        g = engine.self_play(state, plan.iterations, seed=first + i, max_turns=plan.max_turns,
                             sample_turns=plan.sample_turns)
        return {"game": first + i, "winner": g["winner"], "states": g["states"],
                "visits": [[[s["options"], s["visits"]] for s in sides] for sides in g["visits"]]}
    with ThreadPoolExecutor(max(1, threads)) as pool:
        return list(pool.map(game, enumerate(starts(plan, k))))


def write_shard(outdir: Path, k: int, games: list[dict]):
    """Shard k written whole: under a temporary name, then renamed."""
    path = shard_path(outdir, k)
    tmp = path.with_name(path.name + ".tmp")
    with gzip.open(tmp, "wt") as f:
        for g in games:
            f.write(json.dumps(g, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def read_shard(path: Path) -> list[dict]:
    """A shard's games; a damaged shard is an error naming it and the line."""
    games = []
    try:
        with gzip.open(path, "rt") as f:
            for n, line in enumerate(f, 1):
                try:
                    games.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}, line {n}: not a game ({e})") from None
    except (OSError, EOFError) as e:
        raise ValueError(f"{path}: not a readable shard ({e})") from None
    return games


def finished_shards(outdir: Path) -> list[int]:
    """The numbers of the shards written whole in `outdir`, in order."""
    return sorted(int(p.name[6:12]) for p in Path(outdir).glob("shard-*.jsonl.gz"))


def summary(games: list[dict]) -> dict:
    """A shard's figures: games, positions (decisions of games with a winner), side one's share
    of wins, games that reached max_turns."""
    won = [g for g in games if g["winner"] is not None]
    return {"games": len(games), "positions": sum(len(g["states"]) for g in won),
            "side_one_won": sum(g["winner"] for g in won) / max(1, len(won)),
            "unfinished": len(games) - len(won)}


def prepare(outdir: Path, plan: SelfPlay, resume: bool) -> list[int]:
    """The directory made ready: run.json written, or checked against `plan` on --resume; ->
    the shards already written. A directory with shards and no --resume is refused."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    meta, done = outdir / "run.json", finished_shards(outdir)
    if meta.exists():
        had = json.loads(meta.read_text())
        if had != dataclasses.asdict(plan):
            changed = {k: (had.get(k), v) for k, v in dataclasses.asdict(plan).items() if had.get(k) != v}
            raise RunMismatch(f"{outdir} holds a run with other settings (was, now: {changed}): "
                              "give another directory, or the same settings")
        if done and not resume:
            raise RunMismatch(f"{outdir} already holds {len(done)} shards: --resume goes on with them")
    meta.write_text(json.dumps(dataclasses.asdict(plan), indent=1) + "\n")
    return done


def run(outdir: Path, plan: SelfPlay, positions: int, threads: int = 2, ray: str | None = None,
        resume: bool = False, metrics=None) -> dict:
    """Plays shards until the run holds `positions` positions (counted from metrics.csv's rows,
    or the shards themselves where it has none); -> {shards, games, positions, unfinished,
    seconds, positions_per_s} of what this call played, and `total_positions`."""
    from metapvp.training.metrics import Metrics
    done = prepare(outdir, plan, resume)
    metrics = metrics or Metrics(outdir)
    counted = {int(r["shard"]): int(r["positions"]) for r in metrics.rows if "shard" in r}
    total = sum(counted.get(k) if k in counted else summary(read_shard(shard_path(outdir, k)))["positions"]
                for k in done)
    written = set(done)
    todo = (k for k in range(10**6) if k not in written)
    played = {"shards": 0, "games": 0, "positions": 0, "unfinished": 0}
    start = time.perf_counter()

    def record(k: int, games: list[dict], seconds: float):
        nonlocal total
        write_shard(outdir, k, games)
        s = summary(games)
        total += s["positions"]
        for key in ("games", "positions", "unfinished"):
            played[key] += s[key]
        played["shards"] += 1
        metrics.log(total, {"shard": k, "games": s["games"], "positions": s["positions"], "unfinished": s["unfinished"],
                            "selfplay/positions_per_s": s["positions"] / max(seconds, 1e-9),
                            "selfplay/side_one_won": s["side_one_won"],
                            "selfplay/decisions_per_game": s["positions"] / max(1, s["games"] - s["unfinished"])})
        print(f"shard {k}: {s['games']} games, {s['positions']} positions in {seconds:.0f} s "
              f"({s['positions'] / max(seconds, 1e-9):.0f}/s); {total} of {positions}", file=sys.stderr, flush=True)

    try:
        if ray is None:
            while total < positions:
                k, t0 = next(todo), time.perf_counter()
                record(k, play_shard(plan, k, threads), time.perf_counter() - t0)
        else:
            _on_ray(plan, ray, todo, lambda: total < positions, record)
    finally:
        metrics.close()
    seconds = time.perf_counter() - start
    return {**played, "seconds": round(seconds, 1), "total_positions": total,
            "positions_per_s": round(played["positions"] / max(seconds, 1e-9), 1)}


def _on_ray(plan: SelfPlay, address: str, todo, wanted, record):
    """Shards as Ray tasks on one CPU each, as many in flight as the cluster has CPUs, recorded
    as each finishes; once `wanted()` is false no more start, and those in flight are still
    written (no shard is left a gap). A task Ray loses is retried by Ray."""
    import ray

    from metapvp.cluster import connect
    owns = connect(None if address == "local" else address)
    task = ray.remote(num_cpus=1, max_retries=3)(play_shard)
    width = max(1, int(ray.cluster_resources().get("CPU", 1)))
    flight = {}
    try:
        while wanted() or flight:
            while wanted() and len(flight) < width:
                k = next(todo)
                flight[task.remote(plan, k, 1)] = (k, time.perf_counter())
            ready, _ = ray.wait(list(flight), num_returns=1)
            k, t0 = flight.pop(ready[0])
            record(k, ray.get(ready[0]), time.perf_counter() - t0)   # with enough, the rest in flight still counts
    finally:
        for ref in flight:
            ray.cancel(ref, force=True)
        if owns:
            ray.shutdown()
