"""head2head.py --ray: each worker's share of the battles plays in a Ray actor, which streams
back each battle's result (and log) as it ends; the driver writes logs and results as the local
run does, so the same seed and --workers give the same results. Model and team files the
players name go along for actors on nodes that lack them. An actor that dies is replaced and
asked for the battles of its share it had not finished; one that sends nothing for
METAPVP_RAY_TIMEOUT seconds is an error naming it."""
from __future__ import annotations

import copy
import os
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from metapvp.arena.rundir import prepare, write_battle
from metapvp.arena.runner import RunConfig, play_share, report, shares
from metapvp.cluster import MAX_REPLACEMENTS, REPLY_TIMEOUT_S, connect, describe, local_copy, log, where
from metapvp.lifecycle import signals_held

FILE_ARGS = ("p1", "p2", "team_p1", "team_p2")   # RunConfig fields that may name files


class BattleActor:
    def play(self, cfg: RunConfig, indices: list[int], files: dict, share: int):
        """Yields where this actor is, then each battle's result as a dict. `share`: the number
        of the share these battles are (all or the unfinished rest) of, which seeds the players."""
        yield where()
        cfg, folder = copy.copy(cfg), Path(tempfile.mkdtemp(prefix="metapvp-h2h-"))
        for attr, ref in files.items():
            setattr(cfg, attr, local_copy(getattr(cfg, attr), ref, folder))
        for r in play_share(cfg, indices, share=share):
            yield r.__dict__


def run_on_ray(cfg: RunConfig) -> dict:
    """The run of arena.runner.run, its shares played on Ray actors (cfg.ray: 'local' or an
    address); -> the same report."""
    import ray
    earlier = prepare(cfg)
    owns = connect(None if cfg.ray == "local" else cfg.ray, cpus=cfg.workers)
    actor_class = ray.remote(num_cpus=1, max_restarts=0)(BattleActor)
    files = {a: ray.put(Path(getattr(cfg, a)).read_bytes()) for a in FILE_ARGS
             if getattr(cfg, a) and os.path.isfile(getattr(cfg, a))}
    todo = shares(cfg)
    finished = [set(s) & earlier.done for s in todo]
    actors, places, streams, deadline, tries = {}, {}, {}, {}, dict.fromkeys(range(len(todo)), 0)
    tally, fatal, lost, interrupted = earlier.tally, [], 0, False

    def launch(k: int):
        actors[k] = actor_class.options(scheduling_strategy="SPREAD").remote()
        places[k] = None
        left = [i for i in todo[k] if i not in finished[k]]
        streams[k] = actors[k].play.options(num_returns="streaming").remote(cfg, left, files, todo[k][0])
        deadline[k] = time.monotonic() + REPLY_TIMEOUT_S

    def stop(k: int, why: str | None = None):
        if why:
            fatal.append(why)
            tqdm.write(f"worker failed: {why}", file=sys.stderr)
        streams.pop(k, None)
        ray.kill(actors[k])

    start = time.perf_counter()
    bar = tqdm(total=cfg.num_matches, initial=len(earlier.done), unit="battle", file=sys.stderr, disable=cfg.quiet)
    try:
        for k in range(len(todo)):
            if len(finished[k]) < len(todo[k]):
                launch(k)
        while streams:
            by_stream = {id(g): k for k, g in streams.items()}
            wait = max(0.0, min(deadline[k] for k in streams) - time.monotonic())
            ready, _ = ray.wait(list(streams.values()), num_returns=1, timeout=min(wait, 1.0))
            if not ready:
                for k in [k for k in streams if time.monotonic() > deadline[k]]:
                    stop(k, f"{describe(k, places[k])} sent nothing for {REPLY_TIMEOUT_S:.0f} s (METAPVP_RAY_TIMEOUT)")
                continue
            k = by_stream[id(ready[0])]
            try:
                item = ray.get(next(ready[0]))
            except StopIteration:
                streams.pop(k)
                continue
            except ray.exceptions.RayActorError:
                tries[k] += 1
                if tries[k] > MAX_REPLACEMENTS:
                    stop(k, f"{describe(k, places[k])} died {tries[k]} times")
                    continue
                lost += 1
                log.warning("%s died: replaced, asked for the %d battles it had not finished",
                            describe(k, places[k]), len(todo[k]) - len(finished[k]))
                launch(k)
                continue
            except ray.exceptions.RayTaskError as e:
                stop(k, f"{describe(k, places[k])} failed: {e}")
                continue
            deadline[k] = time.monotonic() + REPLY_TIMEOUT_S
            if "pid" in item:
                places[k] = item
                continue
            finished[k].add(item["index"])
            if cfg.outdir and item.get("log"):
                write_battle(cfg, item)
            tally.add(item)
            bar.update(1)
            bar.set_postfix_str(tally.score(cfg))
    except KeyboardInterrupt:
        interrupted = True
        tqdm.write("interrupted: stopping the actors, writing what finished", file=sys.stderr)
    finally:
        with signals_held():   # a second signal must not lose what finished
            bar.close()
            for actor in actors.values():
                ray.kill(actor)
            if owns:
                ray.shutdown()
    return report(cfg, tally, fatal, earlier.seconds + time.perf_counter() - start, interrupted, lost,
                  resumed=len(earlier.done))
