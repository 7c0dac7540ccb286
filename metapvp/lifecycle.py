"""How processes end: a parent stops cleanly on Ctrl-C and on SIGTERM, and a child never
outlives its parent, however the parent ended (even SIGKILL, which no handler sees)."""
from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import threading
import time

PARENT_POLL_S = 1.0   # how soon a child notices that its parent is gone
GRACE_S = 5           # seconds it may then take to close its own children before it is cut off
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies


def stop_on_signals():
    """For a program that promises to stop cleanly: Ctrl-C (SIGINT) and SIGTERM both raise
    KeyboardInterrupt in the main thread. SIGINT is set explicitly because a process started in
    the background by a non-interactive shell inherits it as ignored."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def signals_held():
    """Ctrl-C and SIGTERM ignored while a stopping program saves what it has: a second signal
    (Ctrl-C pressed twice; timeout(1), which signals its command and then the command's process
    group) must not throw away what finished. Whatever is held must be bounded in time. Outside
    the main thread, where signals cannot be set, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def exit_with_parent():
    """For a child process, first thing: it ends when its parent is gone. On Linux the kernel
    kills it then (PR_SET_PDEATHSIG), whatever it is doing: a watching thread needs the GIL, and
    a worker stuck in native code that holds it (mini-racer freeing a V8 context after its
    parent died was seen to) kept running for good. What it started goes with it: the node
    simulators of the stdio backend end when their stdin closes. Elsewhere a thread watches for
    the re-parenting and ends it through SIGTERM, then SystemExit, so that its `finally` blocks
    reap what it started, the kernel ending it if that takes longer than GRACE_S. Ctrl-C is the
    parent's to handle: the child ignores SIGINT and is told to stop by its parent. The child
    must be started from a thread that outlives it (the kernel's signal follows that thread)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit)
    started_by = multiprocessing.parent_process()
    parent = started_by.pid if started_by is not None else os.getppid()
    if _killed_with_parent():
        if os.getppid() != parent:   # gone before the kernel was asked
            os._exit(128 + signal.SIGKILL)
        return
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _killed_with_parent() -> bool:
    """Asks the kernel to SIGKILL this process when its parent dies; False where it cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # no prctl: not Linux
        return False


def _exit(signum, frame):
    raise SystemExit(128 + signum)


def _watch_parent(parent: int):
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    # the hard deadline is SIGALRM's default action (the kernel ends the process), not this
    # thread: once the interpreter is shutting down, a daemon thread no longer runs, and a
    # shutdown can hang (a multiprocessing queue flushing into a pipe nobody reads)
    signal.alarm(GRACE_S)
    os.kill(os.getpid(), signal.SIGTERM)
