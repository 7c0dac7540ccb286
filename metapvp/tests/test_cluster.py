"""Ray (metapvp/cluster/) on a real two-node cluster on this machine, over loopback: rollout
actors land on both nodes, a smoke training runs on them and finishes although one of its
actors is killed, an actor killed mid-rollout is replaced and counted, head2head gives the local run's results, and every process the cluster
started is gone afterwards."""
import csv
import json
import os
import signal
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
        cls.cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        cls.cluster.add_node(num_cpus=1)
        cls.cluster.wait_for_nodes()
        connect(cls.cluster.address)
        cls.pids = set()   # every process of the cluster's seen by the tests

    @classmethod
    def tearDownClass(cls):
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
                time.sleep(1.0)   # mid-rollout: 2,000 decisions take several seconds here
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
            run = {}
            thread = threading.Thread(target=lambda: run.update(latest=Trainer(cfg, tmp).train(make_pool(cfg))))
            thread.start()
            victim = None
            while thread.is_alive() and victim is None:   # an actor of the run, killed once it works
                actors = [p for p in _processes() if _cmdline(p).startswith("ray::RolloutActor")]
                if len(actors) == 2:
                    time.sleep(2.0)
                    victim = actors[0]
                    os.kill(victim, signal.SIGKILL)
                time.sleep(0.2)
            thread.join(300)
            self.assertIsNotNone(victim, "the run ended before an actor could be killed")
            self.assertTrue(run.get("latest") and run["latest"].exists())
            with open(Path(tmp) / "metrics.csv", newline="") as f:
                rows = list(csv.DictReader(f))
            lost = [int(r["charts/lost_workers"]) for r in rows if r.get("charts/lost_workers")]
            self.assertEqual(lost[-1], 1, lost)
            self.assertTrue(any(r.get("eval/winrate_random") for r in rows))

    def test_head2head_gives_the_local_runs_results(self):
        common = ["--p1", "random", "--p2", "maxdamage", "--num-matches", "16", "--workers", "2", "--seed", "5", "--quiet"]
        local = head2head.play(head2head.config(head2head.parse_args(common)))
        on_ray = head2head.play(head2head.config(head2head.parse_args(common + ["--ray", self.cluster.address])))
        same = ("p1_wins", "p2_wins", "ties", "mean_turns", "errors", "invalid_choices", "matches")
        self.assertEqual({k: on_ray[k] for k in same}, {k: local[k] for k in same})
        self.assertEqual((on_ray["matches"], on_ray["lost_workers"]), (16, 0))


if __name__ == "__main__":
    unittest.main()
