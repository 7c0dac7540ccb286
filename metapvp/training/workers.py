"""Rollout workers in their own processes (each with its own V8 context), or in the learner's
process when there are none. Commands go to all workers at once and their replies are
gathered, at once (run) or later (submit, then gather: the learner works meanwhile); a worker
that fails reports its traceback, and every child is reaped on close."""
from __future__ import annotations

import multiprocessing as mp
import time
import traceback

from metapvp.lifecycle import exit_with_parent
from metapvp.training.pool import Pool, WorkerError, run_command
from metapvp.training.rollout import RolloutWorker

CLOSE_WAIT_S = 10.0   # how long closing waits for the workers to finish before killing them


def _serve(cfg: dict, index: int, conn):
    exit_with_parent()  # the learner handles Ctrl-C and closes us; if it dies, we go too
    try:
        worker = RolloutWorker(cfg, index)
    except Exception:  # noqa: BLE001 -- reported to the learner
        conn.send(("error", traceback.format_exc()))
        return
    try:
        conn.send(("ready", None))
        while True:
            try:
                cmd, arg = conn.recv()
            except EOFError:
                break
            if cmd == "close":
                break
            try:
                conn.send(("ok", run_command(worker, cmd, arg)))
            except Exception:  # noqa: BLE001 -- reported to the learner
                conn.send(("error", traceback.format_exc()))
    finally:
        worker.close()


class WorkerPool(Pool):
    def __init__(self, cfg: dict, count: int):
        self.local = RolloutWorker(cfg, 0) if count == 0 else None
        self.in_process = self.local is not None
        self.procs, self.conns = [], []
        self.pending = None         # (command, args) submitted and not yet gathered
        self.lost = 0               # workers replaced after dying: none here, a death is an error
        ctx = mp.get_context("spawn")
        for i in range(count):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=_serve, args=(cfg, i, child), daemon=True, name=f"rollout-{i}")
            p.start()
            self.procs.append(p)
            self.conns.append(parent)
        try:
            for i, conn in enumerate(self.conns):
                self._reply(i, conn)
        except BaseException:
            self.close()
            raise

    @property
    def size(self) -> int:
        return max(1, len(self.conns))

    def submit(self, cmd: str, args: list):
        """Starts `cmd` with args[i] on worker i and returns at once (in-process: when gathered)."""
        self.check_idle()
        if self.local is None:
            for conn, arg in zip(self.conns, args):
                conn.send((cmd, arg))
        self.pending = (cmd, args)

    def gather(self) -> list:
        """Waits for the submitted command; -> the workers' results in order."""
        if self.pending is None:
            raise RuntimeError("nothing was submitted to the workers")
        cmd, args = self.pending
        self.pending = None
        if self.local is not None:
            return [run_command(self.local, cmd, args[0])]
        # every reply is read, also after a failure: one left in a pipe would pass for the
        # answer to the next command
        replies = []
        for i, conn in enumerate(self.conns[:len(args)]):
            try:
                replies.append(self._reply(i, conn))
            except WorkerError as e:
                replies.append(e)
        failed = [r for r in replies if isinstance(r, WorkerError)]
        if failed:
            raise failed[0]
        return replies

    def _reply(self, i: int, conn):
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            raise WorkerError(f"rollout worker {i} died (exit code {self.procs[i].exitcode})") from None
        if kind == "error":
            raise WorkerError(f"rollout worker {i} failed:\n{payload}")
        return payload

    def close(self):
        if self.local is not None:
            self.local.close()
        if self.pending is not None and self.local is None:
            # a worker still sending its reply would block on the pipe and never read "close"
            for conn in self.conns[:len(self.pending[1])]:
                try:
                    if conn.poll(60):
                        conn.recv()
                except (OSError, EOFError):
                    pass
        self.pending = None
        for conn in self.conns:
            try:
                conn.send(("close", None))
            except (OSError, BrokenPipeError):
                pass
        deadline = time.monotonic() + CLOSE_WAIT_S   # one wait for all of them, not one each
        for p in self.procs:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
        for p in self.procs:
            if p.is_alive():
                p.kill()
                p.join()
        self.procs, self.conns = [], []
