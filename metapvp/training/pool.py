"""What the trainer asks of a pool of rollout workers, declared once: local processes
(training/workers.py) and Ray actors (cluster/pool.py) both honour it. A pool runs one command
on all its workers at once (args[i] to worker i) and gathers their replies in order; a worker
that fails raises WorkerError with its traceback."""
from __future__ import annotations

from metapvp.training.rollout import RolloutWorker, evaluate

# The commands a pool's workers run, each a function of (worker, argument).
COMMANDS = {"collect": lambda w, arg: w.collect(arg), "evaluate": evaluate, "reset": lambda w, arg: w.reset()}


class WorkerError(RuntimeError):
    """A rollout worker failed; the message carries its traceback."""


class Pool:
    """`size` workers; submit a command, gather the results in order; run does both.
    `in_process`: the one worker runs in the learner's own process (so a rollout cannot overlap
    the update); `lost`: workers replaced after dying; `pending`: (command, args, ...) submitted
    and not yet gathered."""
    size: int = 1
    in_process: bool = False
    lost: int = 0
    pending = None

    def submit(self, cmd: str, args: list):
        raise NotImplementedError

    def gather(self) -> list:
        raise NotImplementedError

    def close(self):
        raise NotImplementedError

    def run(self, cmd: str, args: list) -> list:
        """Runs `cmd` with args[i] on worker i, all at once; -> their results in order."""
        self.submit(cmd, args)
        return self.gather()

    def check_idle(self):
        if self.pending is not None:
            raise RuntimeError(f"'{self.pending[0]}' is still running on the workers: gather it first")


def run_command(worker: RolloutWorker, cmd: str, arg):
    """One command on one worker (in a pool's process or actor)."""
    if cmd not in COMMANDS:
        raise WorkerError(f"no worker command {cmd!r} ({', '.join(COMMANDS)})")
    return COMMANDS[cmd](worker, arg)
