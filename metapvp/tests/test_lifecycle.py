"""A child process never outlives its parent (metapvp/lifecycle.py), even one stuck in native code
that holds the GIL, as a rollout worker freeing its V8 context after its learner was killed was."""
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
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


def load_soak():
    """benchmarks/soak.py as a module (benchmarks/ is scripts, not a package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("soak", ROOT / "benchmarks" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A stand-in for a soak's player: writes a file every `step` seconds until `until`, then idles;
# on SIGINT says so and exits, as challenge_bot writes its summary.
WRITER = """
import signal, sys, time
from pathlib import Path
out, step, until, idle = Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
if idle == "deaf":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
out.mkdir(parents=True, exist_ok=True)
start = time.monotonic()
try:
    k = 0
    while time.monotonic() - start < until:
        (out / f"battle-{k}.log").write_text("done")
        k += 1
        time.sleep(step)
    if idle != "exit":
        time.sleep(120)
except KeyboardInterrupt:
    print(f"interrupted after {k} battles", flush=True)
"""


class SoakWatchTest(unittest.TestCase):
    """A soak calls a run hung by its progress, not by its length: a slow run that keeps
    finishing battles runs on; one that stops finishing them is interrupted (so that it writes what
    it finished) and killed where it does not stop, and no process is left behind."""

    def run_writer(self, tmp: Path, until: float, idle: str, grace: float = 5.0):
        soak = load_soak()
        soak.GRACE_S = grace
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp / "bot"), "0.2", str(until), idle],
                                stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        report = soak.watch({"bot": proc}, progress=lambda: soak.files_under(tmp / "bot"), stall=1.5, every=0.1)
        out, _ = proc.communicate(timeout=10)
        return report, proc.returncode, out

    def test_a_slow_run_that_keeps_finishing_battles_is_not_hung(self):
        with tempfile.TemporaryDirectory() as tmp:
            report, code, _ = self.run_writer(Path(tmp), until=4.0, idle="exit")
            self.assertFalse(report["hung"])
            self.assertEqual(code, 0)
            self.assertGreater(report["seconds"], 3.5)   # longer than the stall: progress kept it going
            self.assertGreaterEqual(len(list((Path(tmp) / "bot").iterdir())), 15)

    def test_a_run_that_stops_finishing_battles_is_interrupted_and_writes_what_it_finished(self):
        with tempfile.TemporaryDirectory() as tmp:
            report, code, out = self.run_writer(Path(tmp), until=1.0, idle="wait")
            self.assertTrue(report["hung"])
            self.assertEqual(code, 0)                      # it ended by its own hand, on SIGINT
            self.assertRegex(out, r"interrupted after \d+ battles")
            self.assertLess(report["seconds"], 10)         # not the 120 s it would have idled

    def test_a_hung_run_deaf_to_interrupts_is_killed_after_the_grace(self):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.monotonic()
            report, code, out = self.run_writer(Path(tmp), until=0.5, idle="deaf", grace=1.0)
            self.assertTrue(report["hung"])
            self.assertEqual(code, -signal.SIGKILL)
            self.assertEqual(out, "")
            self.assertLess(time.monotonic() - start, 10)
