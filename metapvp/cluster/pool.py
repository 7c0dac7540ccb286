"""Rollout workers as Ray actors: the Pool of training/pool.py over a cluster. Each actor holds one
RolloutWorker with its own V8 context and one CPU; actors spread over the nodes. A command's
argument goes into the object store once however many actors read it (the weights of an update
are one blob for all), and model files the plans name (league snapshots, targets) follow it, for
actors on nodes that lack them.

An actor that dies is replaced and its command asked again (a new worker starts new battles);
the loss is logged and counted in `lost`. Every wait has a timeout naming the actor it waits
for, so a run never hangs on one."""
from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from pathlib import Path

from metapvp.cluster import MAX_REPLACEMENTS, REPLY_TIMEOUT_S, connect, describe, local_copy, log, where
from metapvp.training.pool import Pool, WorkerError, run_command
from metapvp.training.rollout import RolloutWorker
from metapvp.training.workers import WorkerPool


class RolloutActor:
    """One RolloutWorker in a Ray worker process."""

    def __init__(self, cfg: dict, index: int):
        self.worker = RolloutWorker(cfg, index)
        self.cache = Path(tempfile.mkdtemp(prefix="metapvp-models-"))

    def where(self) -> dict:
        return where()

    def call(self, cmd: str, arg, files: dict):
        """Runs `cmd` on the worker, first fetching the model files it names that this node
        lacks (files: path -> object ref of the file's bytes)."""
        for path, ref in files.items():
            if path not in self.worker.files:
                self.worker.files[path] = local_copy(path, ref, self.cache)
        return run_command(self.worker, cmd, arg)


def model_files(obj) -> set[str]:
    """Model file paths (strings ending in .zip that exist here) anywhere in a command's argument."""
    if isinstance(obj, str):
        return {obj} if obj.endswith(".zip") and os.path.isfile(obj) else set()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = dataclasses.asdict(obj)
    if isinstance(obj, dict):
        return set().union(*(model_files(v) for v in obj.values())) if obj else set()
    if isinstance(obj, (list, tuple)):
        return set().union(*(model_files(v) for v in obj)) if obj else set()
    return set()


def _same(a, b) -> bool:
    try:
        return a is b or bool(a == b)
    except (TypeError, ValueError):  # e.g. numpy arrays inside
        return False


class RayWorkerPool(Pool):
    def __init__(self, cfg: dict, count: int, address: str | None = None, timeout: float = REPLY_TIMEOUT_S):
        import ray
        self.ray = ray
        self.owns_ray = connect(address, cpus=count)
        self.cfg, self.timeout = cfg, timeout
        self.pending = None           # (command, args, refs) submitted and not yet gathered
        self.lost = 0                 # actors replaced after dying
        self.files: dict[str, object] = {}   # model file -> object ref of its bytes
        self.actor_class = ray.remote(num_cpus=1, max_restarts=0)(RolloutActor)
        self.actors, self.places = [None] * max(1, count), [None] * max(1, count)
        try:
            self._start(range(len(self.actors)))
        except BaseException:
            self.close()
            raise

    @property
    def size(self) -> int:
        return len(self.actors)

    def _spawn(self, index: int):
        # SPREAD: one actor per node before a second on any, so that every node's cores work
        return self.actor_class.options(scheduling_strategy="SPREAD").remote(self.cfg, index)

    def _start(self, indices):
        """Starts actors `indices` and waits until each is up (its V8 context loaded); one that
        dies on the way is started again, up to MAX_REPLACEMENTS times."""
        waiting, tries = {}, {}
        for i in indices:
            self.actors[i], self.places[i], tries[i] = self._spawn(i), None, 0
            waiting[self.actors[i].where.remote()] = i
        while waiting:
            ready, _ = self.ray.wait(list(waiting), num_returns=1, timeout=self.timeout)
            if not ready:
                raise WorkerError(f"{describe(next(iter(waiting.values())), None)} did not start in "
                                  f"{self.timeout:.0f} s (METAPVP_RAY_TIMEOUT; are the cluster's CPUs taken?)")
            i = waiting.pop(ready[0])
            try:
                self.places[i] = self.ray.get(ready[0])
            except self.ray.exceptions.RayActorError as e:
                tries[i] += 1
                if tries[i] > MAX_REPLACEMENTS:
                    raise WorkerError(f"{describe(i, None)} could not start:\n{e}") from None
                self.lost += 1
                log.warning("%s died while starting: started again (%d lost so far)", describe(i, None), self.lost)
                self.actors[i] = self._spawn(i)
                waiting[self.actors[i].where.remote()] = i

    def submit(self, cmd: str, args: list):
        self.check_idle()
        puts = []                     # (argument, its object ref): equal arguments share one
        refs = []
        for i, arg in enumerate(args):
            ref = next((r for a, r in puts if _same(a, arg)), None)
            if ref is None:
                ref = self.ray.put(arg)
                puts.append((arg, ref))
            refs.append(self._ask(i, cmd, ref, arg))
        self.pending = (cmd, args, refs)

    def _ask(self, i: int, cmd: str, ref, arg):
        files = {}
        for path in model_files(arg):
            if path not in self.files:
                self.files[path] = self.ray.put(Path(path).read_bytes())
            files[path] = self.files[path]
        return self.actors[i].call.remote(cmd, ref, files)

    def gather(self) -> list:
        """Waits for the submitted command; -> the actors' results in order. A dead actor is
        replaced and asked again; every reply is read before a failure is raised."""
        if self.pending is None:
            raise RuntimeError("nothing was submitted to the workers")
        cmd, args, refs = self.pending
        self.pending = None
        waiting = {ref: i for i, ref in enumerate(refs)}
        deadline = {i: time.monotonic() + self.timeout for i in waiting.values()}
        tries = dict.fromkeys(waiting.values(), 0)
        results, failed = [None] * len(refs), []
        while waiting:
            soonest = min(deadline[i] for i in waiting.values())
            ready, _ = self.ray.wait(list(waiting), num_returns=1, timeout=max(0.0, soonest - time.monotonic()))
            if not ready:
                late = min(waiting.values(), key=lambda i: deadline[i])
                failed.append(WorkerError(f"{describe(late, self.places[late])} gave no reply to '{cmd}' "
                                          f"in {self.timeout:.0f} s (METAPVP_RAY_TIMEOUT)"))
                waiting = {r: i for r, i in waiting.items() if i != late}
                continue
            i = waiting.pop(ready[0])
            try:
                results[i] = self.ray.get(ready[0])
            except self.ray.exceptions.RayActorError:
                tries[i] += 1
                if tries[i] > MAX_REPLACEMENTS:
                    failed.append(WorkerError(f"{describe(i, self.places[i])} died {tries[i]} times on '{cmd}'"))
                    continue
                self.lost += 1
                log.warning("%s died during '%s': replaced, asked again (%d lost so far)",
                            describe(i, self.places[i]), cmd, self.lost)
                try:
                    self._start([i])
                except WorkerError as e:
                    failed.append(e)
                    continue
                waiting[self._ask(i, cmd, self.ray.put(args[i]), args[i])] = i
                deadline[i] = time.monotonic() + self.timeout
            except self.ray.exceptions.RayTaskError as e:
                failed.append(WorkerError(f"{describe(i, self.places[i])} failed:\n{e}"))
        if failed:
            raise failed[0]
        return results

    def close(self):
        for actor in self.actors:
            try:
                self.ray.kill(actor)
            except Exception:  # noqa: BLE001 -- already gone
                pass
        self.actors, self.pending = [], None
        if self.owns_ray:
            self.ray.shutdown()
            self.owns_ray = False


def make_pool(cfg: dict) -> Pool:
    """The workers the experiment asks for: Ray actors (ray.enabled) or local processes."""
    if cfg["ray"]["enabled"]:
        return RayWorkerPool(cfg, cfg["workers"], cfg["ray"]["address"])
    return WorkerPool(cfg, cfg["workers"])
