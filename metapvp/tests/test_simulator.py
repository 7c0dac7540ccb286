"""The in-process simulator backend: battles finish, seeds reproduce, many battles share a call."""
import gc
import json
import os
import subprocess
import sys
import threading
import unittest

import numpy as np

from metapvp import ROOT
from metapvp.engine import Simulator


def first_legal(step):
    return [(d.battle, d.side, int(np.flatnonzero(step.obs["action.mask"][d.row])[0]))
            for d in step.decisions]


def run(sim, specs, policy=first_legal):
    step = sim.start(specs)
    ended = list(step.ended)
    while len(ended) < len(specs):
        step = sim.step(policy(step))
        ended += step.ended
    return {e.battle: e for e in ended}


class SimulatorTest(unittest.TestCase):
    def test_battles_finish_with_a_winner(self):
        sim = Simulator()
        specs = [{"id": f"b{i}", "format": "gen9randombattle", "seed": f"{i},1,2,3"} for i in range(8)]
        ended = run(sim, specs)
        self.assertEqual(sorted(ended), sorted(s["id"] for s in specs))
        for e in ended.values():
            self.assertIsNone(e.error)
            self.assertIn(e.winner, ("p1", "p2", ""))
            self.assertGreater(e.turns, 3)
            self.assertEqual(e.invalid, 0)

    def test_same_seed_same_log(self):
        logs = []
        for _ in range(2):
            sim = Simulator()
            specs = [{"id": f"s{i}", "format": "gen8randombattle", "seed": f"7,{i},7,7", "keepLog": True}
                     for i in range(3)]
            ended = run(sim, specs)
            # everything but the wall-clock timestamps
            logs.append({k: [x for x in json.loads(e.log)["log"] if not x.startswith("|t:|")]
                         for k, e in ended.items()})
        self.assertEqual(logs[0], logs[1])
        self.assertNotEqual(logs[0]["s0"], logs[0]["s1"])

    def test_illegal_action_is_an_invalid_choice_not_a_crash(self):
        sim = Simulator()
        step = sim.start([{"id": "x", "format": "gen9randombattle", "seed": "1,1,1,1"}])
        d = step.decisions[0]
        mask = step.obs["action.mask"][d.row].copy()
        bad = int(np.flatnonzero(mask == 0)[0])
        step = sim.step([(d.battle, d.side, bad)])
        self.assertEqual(step.errors, [])
        # the same player is asked again, on an unchanged mask
        again = [x for x in step.decisions if x.side == d.side]
        self.assertEqual(len(again), 1)
        np.testing.assert_array_equal(step.obs["action.mask"][again[0].row], mask)

    def test_unknown_format_is_reported_and_others_start(self):
        sim = Simulator()
        step = sim.start([{"id": "bad", "format": "gen9nosuchformat", "seed": "1,1,1,1"},
                          {"id": "ok", "format": "gen9randombattle", "seed": "1,1,1,1"}])
        self.assertEqual(len(step.errors), 1)
        self.assertIn("unknown format 'gen9nosuchformat'", str(step.errors[0]))
        self.assertEqual({d.battle for d in step.decisions}, {"ok"})

    def test_buffer_grows_for_big_batches(self):
        sim = Simulator()
        specs = [{"id": f"g{i}", "format": "gen9randombattle", "seed": f"{i},2,2,2"} for i in range(100)]
        step = sim.start(specs)
        self.assertEqual(len(step.decisions), 200)
        self.assertTrue((step.obs["battle.gen"] == 9).all())
        self.assertTrue((step.obs["action.mask"].sum(axis=1) > 0).all())
        sim.abort()

    def test_closed_and_forgotten_simulators_free_their_js_objects(self):
        from metapvp.arena import play
        from metapvp.engine.v8 import context
        from metapvp.players import make_player
        v8 = context()

        def live():
            return v8.live_objects()
        before = live()
        sims = [Simulator() for _ in range(3)]
        self.assertEqual(live(), before + 3)
        sims[0].start([{"id": "c1", "format": "gen9randombattle", "seed": "1,2,3,4"}])
        sims[0].close()
        sims[0].close()
        self.assertEqual(live(), before + 2)
        del sims
        gc.collect()
        self.assertEqual(live(), before)
        for _ in range(3):  # each call without a backend makes its own simulator
            results = list(play(make_player("random", 1), make_player("random", 2), "gen9randombattle", range(2)))
            self.assertEqual(len(results), 2)
        self.assertEqual(live(), before)

    def test_a_simulator_freed_during_a_call_does_not_wait_for_it(self):
        """The garbage collector can run a simulator's finalizer in the middle of another call
        into the same context (while mini-racer converts the result); the finalizer waited for
        that call's lock, on its own thread, for good. It now leaves the object to the next call."""
        from metapvp.engine.v8 import context
        v8 = context()
        before = v8.live_objects()
        sim = Simulator()
        freed = threading.Event()
        with v8._eval_lock:  # a call in progress
            threading.Thread(target=lambda: (sim.close(), freed.set()), daemon=True).start()
            self.assertTrue(freed.wait(10), "freeing a simulator waited for a call in progress")
        self.assertEqual(v8.live_objects(), before)

    def test_views_of_a_replaced_buffer_stay_readable(self):
        """A view taken before the output buffer grew (JS replaced it) reads what it read
        before, also after JS has collected garbage."""
        sim = Simulator()
        step = sim.start([{"id": "v0", "format": "gen9randombattle", "seed": "5,5,5,5"}])
        old = step.obs["pokemon.hp"]
        before = old.copy()
        big = sim.start([{"id": f"v{i}", "format": "gen9randombattle", "seed": f"{i},6,6,6"} for i in range(1, 120)])
        self.assertGreater(len(big.decisions), len(step.decisions))
        sim.v8.eval("for (let i = 0; i < 64; i++) new ArrayBuffer(1 << 22); 0")  # pressure for a GC
        self.assertTrue(np.array_equal(old, before))
        sim.close()

    def test_calls_leave_nothing_in_the_heap(self):
        """Arguments travel into V8 as values: written into source code, every call's arguments
        stayed in the heap for good (V8 keeps each distinct script it compiles); 2,000 calls of
        32 KB each kept ~110 MB, which a live bot's messages added up to over a long run."""
        v8 = Simulator().v8
        pad = "|c|x|" + "y" * 32_000
        used = lambda: v8.heap_stats()["used_heap_size"] / 2 ** 20  # noqa: E731
        before = used()
        for i in range(2000):
            [line] = v8.spectator_lines([f"{pad}{i}"])
            self.assertTrue(line.endswith(str(i)))
        self.assertLess(used() - before, 48, "MiB of V8 heap still used after 64 MB of call arguments")

    def test_a_stuck_call_is_an_error_not_a_hang(self):
        code = ("from metapvp.engine.v8 import context, EngineError\n"
                "v8 = context()\n"
                "for js in ('while (true) {}', '1 + 1'):\n"
                "    try:\n"
                "        v8.eval(js)\n"
                "    except EngineError as e:\n"
                "        print(e)\n")
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env={**os.environ, "METAPVP_V8_TIMEOUT": "2"})
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 2, out.stdout)
        self.assertTrue(all("ran past 2 s" in line and "unusable" in line for line in lines), lines)


class PrivilegedTest(unittest.TestCase):
    def test_priv_row_is_the_opponents_own_record(self):
        """A privileged decision's `priv` row is the opponent's own view: its whole team known,
        the same Pokemon the deciding player has seen of it; when both players decide in one step,
        each one's record is the other's `priv`."""
        sim = Simulator()
        unknown = sim.contract.vocabs["species"].index("<unknown>")
        step = sim.start([{"id": f"p{i}", "format": "gen9randombattle", "seed": f"{i},5,5,5", "privileged": True}
                          for i in range(6)])
        both = checked = 0
        for _ in range(40):
            if not step.decisions:
                break
            species = step.obs["pokemon.species"]
            rows = {(d.battle, d.side): d for d in step.decisions}
            for d in step.decisions:
                self.assertGreaterEqual(d.priv, 0)
                theirs = species[d.priv][0]            # the opponent's own team, as it knows it
                self.assertNotIn(unknown, theirs.tolist())
                seen = [s for s in species[d.row][1].tolist() if s != unknown and s > 2]
                self.assertTrue(set(seen) <= set(theirs.tolist()), (seen, theirs))
                other = rows.get((d.battle, "p2" if d.side == "p1" else "p1"))
                if other is not None:
                    self.assertEqual(d.priv, other.row)
                    both += 1
                checked += 1
            step = sim.step(first_legal(step))
        self.assertGreater(checked, 50)
        self.assertGreater(both, 20)


if __name__ == "__main__":
    unittest.main()
