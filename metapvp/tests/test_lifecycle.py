"""A child process never outlives its parent (metapvp/lifecycle.py), even one stuck in native code
that holds the GIL, as a rollout worker freeing its V8 context after its learner was killed was."""
import ctypes
import os
import signal
import subprocess
import sys
import time
import unittest
from pathlib import Path

from metapvp.lifecycle import exit_with_parent

ROOT = Path(__file__).resolve().parents[2]
STUCK_S = 120   # how long the child blocks, GIL held, unless something ends it

# The parent: starts the child the way the battle runner and the rollout pool do (spawn), says
# its pid, then waits to be killed.
PARENT = f"""
import multiprocessing, sys, time
from metapvp.tests.test_lifecycle import stuck_child
if __name__ == "__main__":
    child = multiprocessing.get_context("spawn").Process(target=stuck_child, daemon=True)
    child.start()
    print(child.pid, flush=True)
    time.sleep({STUCK_S})
"""


def stuck_child():
    """A child that blocks in a C call without releasing the GIL: no Python thread of it runs."""
    exit_with_parent()
    print("stuck", flush=True)
    ctypes.PyDLL(None).sleep(STUCK_S)


def alive(pids: list[int]) -> list[int]:
    """Those still running (a zombie waiting for its new parent to reap it has ended)."""
    out = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            continue
        if state != "Z":
            out.append(pid)
    return out


@unittest.skipUnless(Path("/proc/self/stat").exists(), "reads processes from /proc")
class ChildEndsWithParent(unittest.TestCase):
    def test_a_child_stuck_holding_the_gil_ends_when_its_parent_is_killed(self):
        proc = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            child = int(proc.stdout.readline())
            self.assertEqual(proc.stdout.readline().strip(), "stuck")
            time.sleep(0.5)   # well inside the blocking call
            self.assertEqual(alive([child]), [child])
            proc.kill()
            proc.wait()
            deadline = time.time() + 15
            while alive([child]) and time.time() < deadline:
                time.sleep(0.2)
            self.assertEqual(alive([child]), [], f"child {child} outlived its killed parent")
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


if __name__ == "__main__":
    unittest.main()
