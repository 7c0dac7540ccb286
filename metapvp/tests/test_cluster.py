"""Ray (metapvp/cluster/) on a real two-node cluster on this machine, over loopback: rollout
actors land on both nodes, a smoke training runs on them and finishes although one of its
actors is killed, an actor killed mid-rollout is replaced and counted, head2head gives the local
run's results, and every process the cluster started is gone afterwards."""
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

from metapvp import ROOT
from metapvp.cluster.pool import make_pool
from metapvp.exe import head2head
from metapvp.training.config import load_expt
from metapvp.training.trainer import Trainer


def _processes() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] != "Z"   # a zombie has exited
    except FileNotFoundError:
        return False


class RayClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import ray
        from ray.cluster_utils import Cluster

        from metapvp.cluster import connect
        cls.ray = ray
        cls.pids = set()   # every process of the cluster's seen by the tests
        cls.cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        cls.addClassCleanup(cls.stop_cluster)   # at once: a failure below still stops what started
        cls.cluster.add_node(num_cpus=1)
        cls.cluster.wait_for_nodes()
        connect(cls.cluster.address)

    @classmethod
    def actors(cls, name: str) -> list[int]:
        """The processes of Ray actors of class `name` that belong to this test's cluster (their
        parent is one of its raylets), not any Ray process the machine happens to run."""
        raylets = {p.process.pid for node in cls.cluster.list_all_nodes()
                   for p in node.all_processes.get("raylet", [])}
        return [pid for pid in _processes() if _cmdline(pid).startswith(f"ray::{name}") and _parent(pid) in raylets]

    @classmethod
    def stop_cluster(cls):
        for node in cls.cluster.list_all_nodes():
            cls.pids |= {p.process.pid for procs in node.all_processes.values() for p in procs}
        cls.ray.shutdown()
        cls.cluster.shutdown()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(alive(p) for p in cls.pids):
            time.sleep(0.5)
        left = [p for p in cls.pids if alive(p)]
        for p in left:
            os.kill(p, signal.SIGKILL)
        assert not left, f"processes of the cluster still running after its shutdown: {left}"

    def test_actors_spread_over_both_nodes_and_a_killed_one_is_replaced(self):
        from metapvp.cluster.pool import RayWorkerPool
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--rollout.decisions_per_worker", "2000"])
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(cfg, tmp)
            pool = RayWorkerPool(cfg, 2)
            try:
                self.pids |= {p["pid"] for p in pool.places}
                self.assertEqual(len({p["node"] for p in pool.places}), 2, pool.places)
                pool.submit("collect", trainer.plans(2))
                # killed while its command runs or before it starts: either way the call fails
                # with the actor's death, and the pool must replace it and ask again
                os.kill(pool.places[0]["pid"], signal.SIGKILL)
                rollouts = pool.gather()
                self.pids |= {p["pid"] for p in pool.places}
                self.assertEqual(pool.lost, 1)
                self.assertTrue(all(r.decisions >= 2000 and not r.errors for r in rollouts))
                self.assertEqual(len(pool.run("collect", trainer.plans(2))), 2)   # and it goes on
            finally:
                pool.close()

    def test_smoke_training_on_the_cluster_survives_a_killed_actor(self):
        cfg = load_expt(ROOT / "expts" / "smoke.yml",
                        ["--workers", "2", "--ray.enabled", "true", "--ray.address", json.dumps(self.cluster.address),
                         "--total_decisions", "3000"])
        with tempfile.TemporaryDirectory() as tmp:
            run, trainer, pool = {}, Trainer(cfg, tmp), make_pool(cfg)
            self.pids |= {p["pid"] for p in pool.places}
            thread = threading.Thread(target=lambda: run.update(latest=trainer.train(pool)), daemon=True)
            thread.start()
            # once the first update is in, the actors are collecting the next rollout (overlap):
            # one of this run's own actors is killed then
            deadline = time.monotonic() + 300
            while thread.is_alive() and trainer.updates < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertTrue(thread.is_alive(), "the run ended before an actor could be killed")
            victim = pool.places[0]["pid"]
            os.kill(victim, signal.SIGKILL)
            thread.join(300)
            self.assertFalse(thread.is_alive(), "the run did not finish in 300 s")
            self.pids |= {p["pid"] for p in pool.places}
            self.assertTrue(run.get("latest") and run["latest"].exists())
            with open(Path(tmp) / "metrics.csv", newline="") as f:
                rows = list(csv.DictReader(f))
            lost = [int(r["charts/lost_workers"]) for r in rows if r.get("charts/lost_workers")]
            self.assertEqual(lost[-1], 1, lost)
            self.assertTrue(any(r.get("eval/winrate_random") for r in rows))

    def test_an_actor_that_cannot_start_is_tried_again_then_named(self):
        from metapvp.cluster.pool import RayWorkerPool
        from metapvp.training.pool import WorkerError
        cfg = load_expt(ROOT / "expts" / "smoke.yml")
        cfg["contract"] = "no-such-contract"   # the worker's constructor raises: the actor dies
        with self.assertRaisesRegex(WorkerError, "ray worker 0 could not start"):
            RayWorkerPool(cfg, 1)

    def test_a_reply_that_does_not_come_is_an_error_naming_the_actor(self):
        from metapvp.cluster.pool import RayWorkerPool
        from metapvp.training.pool import WorkerError
        cfg = load_expt(ROOT / "expts" / "smoke.yml", ["--rollout.decisions_per_worker", "5000"])
        with tempfile.TemporaryDirectory() as tmp:
            plans = Trainer(cfg, tmp).plans(1)
        pool = RayWorkerPool(cfg, 1)
        try:
            self.pids |= {p["pid"] for p in pool.places}
            pool.timeout = 0.5   # a rollout of 5,000 decisions takes seconds
            pool.submit("collect", plans)
            with self.assertRaisesRegex(WorkerError, r"ray worker 0 \(pid \d+ .*gave no reply to 'collect'"):
                pool.gather()
        finally:
            pool.close()

    def test_head2head_gives_the_local_runs_results(self):
        common = ["--p1", "random", "--p2", "maxdamage", "--num-matches", "16", "--workers", "2", "--seed", "5",
                  "--quiet"]
        local = head2head.play(head2head.config(head2head.parse_args(common)))
        on_ray = head2head.play(head2head.config(head2head.parse_args(common + ["--ray", self.cluster.address])))
        same = ("p1_wins", "p2_wins", "ties", "mean_turns", "errors", "invalid_choices", "matches")
        self.assertEqual({k: on_ray[k] for k in same}, {k: local[k] for k in same})
        self.assertEqual((on_ray["matches"], on_ray["lost_workers"]), (16, 0))

    def test_selfplay_on_the_cluster_writes_the_local_runs_shards(self):
        """`metapvp selfplay --ray`: each shard a task on one CPU of the cluster, the shards the
        same games as a local run's (each game seeded by its number), written whole."""
        from metapvp.value.selfplay import SelfPlay, finished_shards, read_shard, run, shard_path
        plan = SelfPlay(seed=6, iterations=40, sample_turns=2, games_per_shard=2)
        with tempfile.TemporaryDirectory() as d:
            local = run(Path(d) / "local", plan, positions=1, threads=2)
            on_ray = run(Path(d) / "ray", plan, positions=local["positions"] + 1, ray=self.cluster.address)
            self.assertGreaterEqual(on_ray["shards"], 2)
            self.assertEqual(finished_shards(Path(d) / "ray"), list(range(on_ray["shards"])))
            self.assertEqual(read_shard(shard_path(Path(d) / "ray", 0)), read_shard(shard_path(Path(d) / "local", 0)))

    def test_head2head_with_a_lost_actor_gives_the_local_runs_results(self):
        """An actor killed mid-share is replaced and plays the rest of its share, its players
        seeded as the lost one's: with players that choose without chance, every battle is the
        local run's."""
        common = ["--p1", "heuristic", "--p2", "maxdamage", "--num-matches", "60", "--workers", "2", "--seed", "8",
                  "--concurrency", "1", "--quiet"]
        local = head2head.play(head2head.config(head2head.parse_args(common)))
        with tempfile.TemporaryDirectory() as tmp:
            cfg = head2head.config(head2head.parse_args(common + ["--ray", self.cluster.address, "--outdir", tmp]))
            out, victims = {}, []
            thread = threading.Thread(target=lambda: out.update(head2head.play(cfg)), daemon=True)
            thread.start()
            logs = Path(tmp) / "logs"
            deadline = time.monotonic() + 300
            while thread.is_alive() and not victims and time.monotonic() < deadline:
                if logs.is_dir() and len(list(logs.iterdir())) >= 2:   # the shares are under way
                    victims = self.actors("BattleActor")[:1]
                    for pid in victims:
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.02)
            thread.join(300)
            self.assertFalse(thread.is_alive())
        self.assertEqual(len(victims), 1, "no actor of the run was found to kill")
        self.assertEqual(out["lost_workers"], 1)
        same = ("p1_wins", "p2_wins", "ties", "mean_turns", "errors", "invalid_choices", "matches")
        self.assertEqual({k: out[k] for k in same}, {k: local[k] for k in same})


class RayDownTest(unittest.TestCase):
    def test_a_ray_call_while_ray_is_down_fails_instead_of_joining_a_cluster(self):
        """A call that comes after shutdown (a late thread) must not join whatever cluster runs on
        the machine, or start one: a joined cluster's end makes Ray stop the whole process later.
        (Let through, the call here would start a local instance.)"""
        code = ("import metapvp.cluster, ray\n"
                "try:\n    ray.put(1)\nexcept Exception as e:\n    print('refused:', type(e).__name__)\n"
                "print('initialized:', ray.is_initialized())")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        for name in ("RAY_ENABLE_AUTO_CONNECT", "RAY_ADDRESS"):
            env.pop(name, None)
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
        self.assertIn("refused: RaySystemError", proc.stdout)
        self.assertIn("initialized: False", proc.stdout)


if __name__ == "__main__":
    unittest.main()
