"""Battles between players through the arena and the head2head command line."""
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import numpy as np

from metapvp import ROOT
from metapvp.arena import play, summarize, wilson
from metapvp.arena.rundir import LOG_NAME
from metapvp.backends import make_backend
from metapvp.players import make_player
from metapvp.players.scripted import RandomPlayer
from metapvp.tests.golden import FORMATS, teams_for
from metapvp.tests.test_lifecycle import alive


class SlowRandomPlayer(RandomPlayer):
    """Random, a second a step: a battle takes it half a minute or more."""

    def act(self, decisions, greedy=False):
        time.sleep(1.0)
        return super().act(decisions, greedy)


def slow_random():
    """The factory head2head's `,metapvp.tests.test_head2head.slow_random` calls."""
    return SlowRandomPlayer(0)


def outcome(results):
    w = {k: sum(r.winner == k for r in results) for k in ("a", "b", "tie")}
    return w["a"], w["b"], w["tie"]


class InProcessArenaTest(unittest.TestCase):
    """Scripted players on the in-process backend; StdioArenaTest runs the same on stdio. (The
    shipped agent, which looks ahead through its backend, plays on both in test_backends.py.)"""
    sim = "inprocess"
    per_format = 24   # battles in each format
    strength = 100    # battles of maxdamage against random

    def play(self, a, b, fmt, indices, **kw):
        backend = make_backend(self.sim)
        try:
            return list(play(make_player(a, 1), make_player(b, 7), fmt, indices, backend=backend, **kw))
        finally:
            backend.close()

    def test_every_format_completes_without_invalid_choices(self):
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                t = teams_for(fmt)
                teams = {"a": t["p1team"], "b": t["p2team"]} if t else None
                results = self.play("random", "maxdamage", fmt, range(self.per_format), seed=3, teams=teams,
                                    concurrency=self.per_format)
                self.assertEqual(len(results), self.per_format)
                self.assertEqual([r.error for r in results if r.error], [])
                self.assertEqual(sum(r.invalid for r in results), 0)
                self.assertTrue(all(r.winner in ("a", "b", "tie") for r in results))
                self.assertEqual(sorted({r.a_side for r in results}), ["p1", "p2"])

    def test_maxdamage_beats_random(self):
        results = self.play("maxdamage", "random", "gen9randombattle", range(self.strength), seed=11, concurrency=25)
        a, b, ties = outcome(results)
        self.assertGreaterEqual((a + ties / 2) / self.strength, 0.80, (a, b, ties))

    def test_same_seed_same_logs(self):
        runs = []
        for _ in range(2):
            results = self.play("heuristic", "maxdamage", "gen8randombattle", range(6), seed=5, keep_logs=True)
            runs.append({r.index: [x for x in json.loads(r.log)["log"] if not x.startswith("|t:|")]
                         for r in results})
        self.assertEqual(runs[0], runs[1])
        self.assertNotEqual(runs[0][0], runs[0][1])


    def test_refusals_all_battle_long_never_turn_into_default_choices(self):
        """A player refused at every request (its first try each time is a masked-out action)
        still has its second try played: the refusal limit is per request, not per battle."""
        backend = make_backend(self.sim)
        try:
            [r] = play(Clumsy(), make_player("random", 7), "gen9randombattle", [0], seed=21,
                       keep_logs=True, backend=backend)
        finally:
            backend.close()
        self.assertIsNone(r.error)
        self.assertGreaterEqual(r.invalid, 10)
        chosen = [x for x in json.loads(r.log)["inputLog"] if x.startswith(f">{r.a_side} ")]
        self.assertGreaterEqual(len(chosen), 10)
        self.assertNotIn(f">{r.a_side} default", chosen)


class Clumsy:
    """Tries a masked-out action first at every request, then a legal one."""
    contract = None

    def __init__(self):
        self.calls = 0

    def act(self, decisions, greedy=False):
        self.calls += 1
        mask = decisions.mask
        pick = (lambda m: np.flatnonzero(m == 0)[0]) if self.calls % 2 else (lambda m: np.flatnonzero(m)[0])
        return np.array([pick(m) for m in mask])


class StdioArenaTest(InProcessArenaTest):
    sim = "stdio"
    # A Node process a battle: fewer battles show the same of this backend in a fraction of the time.
    per_format = 4
    strength = 20

    def test_a_killed_child_fails_only_its_battle(self):
        from metapvp.backends.stdio import StdioSimulator
        from metapvp.players import Decisions
        sim = StdioSimulator()
        self.addCleanup(sim.close)   # (the children are reaped whatever the test finds)
        a = make_player("maxdamage")
        step = sim.start([{"id": f"k{i}", "format": "gen9randombattle", "seed": f"{i},4,4,4"} for i in range(3)])
        sim.battles["k1"].proc.kill()
        ended = {}
        while len(ended) < 3:
            for e in step.ended:
                ended[e.battle] = e
            keys = [(d.battle, d.side) for d in step.decisions]
            if not keys:
                break
            acts = a.act(Decisions(keys, step.obs, sim))
            step = sim.step([(bt, sd, int(x)) for (bt, sd), x in zip(keys, acts)])
        for e in step.ended:
            ended[e.battle] = e
        self.assertIn("exited", ended["k1"].error)
        self.assertIsNone(ended["k1"].winner)
        for k in ("k0", "k2"):
            self.assertIsNone(ended[k].error)
            self.assertIn(ended[k].winner, ("p1", "p2", ""))
        self.assertEqual(sim.battles, {})  # every child reaped


class StatsTest(unittest.TestCase):
    def test_known_values(self):
        s = summarize(60, 40, 0)
        self.assertAlmostEqual(s["p1_win_rate"], 0.6)
        self.assertAlmostEqual(s["z"], 2.0)
        self.assertAlmostEqual(s["elo_diff"], 70.437, places=2)  # -400 log10(1/0.6 - 1)
        lo, hi = wilson(0.6, 100)
        self.assertAlmostEqual(lo, 0.5020, places=3)
        self.assertAlmostEqual(hi, 0.6906, places=3)
        self.assertEqual(summarize(0, 0, 4)["p1_win_rate"], 0.5)


class Head2HeadCliTest(unittest.TestCase):
    def test_every_player_of_every_worker_has_its_own_seed(self):
        from metapvp.arena.runner import player_seeds
        seeds = [s for w in range(64) for s in player_seeds(5, w)]
        self.assertEqual(len(set(seeds)), len(seeds))
        self.assertEqual(player_seeds(5, 3), player_seeds(5, 3))
        self.assertNotEqual(player_seeds(5, 3), player_seeds(6, 3))

    def test_results_logs_and_last_line(self):
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "metapvp.exe.head2head", "--p1", "heuristic", "--p2", "random",
                   "--num-matches", "6", "--workers", "2", "--concurrency", "3", "--outdir", out, "--quiet",
                   "--memory-every", "3"]
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            last = json.loads(proc.stdout.strip().splitlines()[-1])
            saved = json.loads((Path(out) / "results.json").read_text())
            self.assertEqual(last, saved)
            for key in ("format", "p1", "p2", "matches", "p1_wins", "p2_wins", "ties", "p1_win_rate",
                        "p1_win_rate_ci95", "z", "elo_diff", "mean_turns", "battles_per_s",
                        "turns_per_s", "errors"):
                self.assertIn(key, last)
            self.assertEqual(last["matches"], 6)
            self.assertEqual(last["p1_wins"] + last["p2_wins"] + last["ties"], 6)
            self.assertEqual((last["p1_as_played"], last["p2_as_played"]), ("heuristic", "random"))
            logs = sorted((Path(out) / "logs").iterdir())
            self.assertEqual(len(logs), 6)
            with gzip.open(logs[0], "rt") as f:
                saved_battle = json.load(f)
            self.assertIn("|start", saved_battle["log"])
            self.assertIn(saved_battle["winner"], ("p1", "p2", ""))
            self.assertTrue(saved_battle["inputLog"][0].startswith(">start"))
            # --memory-every 3: each worker sampled itself after its 3 battles, V8's heap and caches too
            self.assertEqual(sorted((m["worker"], m["battles"]) for m in last["memory"]), [(0, 3), (1, 3)])
            for m in last["memory"]:
                self.assertGreater(m["rss_mib"], 50)
                [v8] = m["v8"].values()
                self.assertGreater(v8["cached"]["results"], 0)   # heuristic reads the battle knowledge
            self.check_pooling(Path(out), last)
            self.check_comparing(Path(out), last)
            self.check_old_results(Path(out))

    def check_comparing(self, out: Path, result: dict):
        """metapvp/exe/compare_runs.py pairs two runs' battles: a run against itself differs nowhere;
        one battle's outcome turned around is the one battle that differs; other battles are
        refused."""
        compare = [sys.executable, "metapvp/exe/compare_runs.py"]

        def run(*dirs):
            proc = subprocess.run(compare + [str(d) for d in dirs], capture_output=True, text=True, cwd=ROOT,
                                  timeout=60)
            last = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None
            return proc.returncode, proc.stderr, last
        code, err, same = run(out, out)
        self.assertEqual(code, 0, err)
        self.assertEqual((same["battles"], same["a_only"], same["b_only"], same["b_minus_a"]), (6, 0, 0, 0))
        self.assertAlmostEqual(same["a_win_rate"], result["p1_wins"] / 6)
        turned = out / "turned"
        shutil.copytree(out, turned, ignore=shutil.ignore_patterns("turned", "other"))
        # battle 1: the first player sits p2
        log = turned / "logs" / sorted(p.name for p in (out / "logs").iterdir())[1]
        with gzip.open(log, "rt") as f:
            battle = json.load(f)
        first_won = battle["winner"] == "p2"
        battle["winner"] = "p1" if first_won else "p2"
        with gzip.open(log, "wt") as f:
            json.dump(battle, f)
        code, err, one = run(out, turned)
        self.assertEqual(code, 0, err)
        self.assertEqual((one["a_only"], one["b_only"]), (1, 0) if first_won else (0, 1))
        self.assertAlmostEqual(one["b_minus_a"], -1 / 6 if first_won else 1 / 6)
        # pairs pooled: the run against itself and against the turned one, 12 battles, 1 differing
        code, err, both = run(out, out, out, turned)
        self.assertEqual(code, 0, err)
        self.assertEqual([p["battles"] for p in both["pairs"]], [6, 6])
        self.assertEqual((both["pooled"]["battles"], both["pooled"]["a_only"], both["pooled"]["b_only"]),
                         (12, 1, 0) if first_won else (12, 0, 1))
        self.assertAlmostEqual(both["pooled"]["b_minus_a"], -1 / 12 if first_won else 1 / 12)
        self.assertAlmostEqual(both["pooled"]["a_win_rate"], result["p1_wins"] / 6)
        code, err, _ = run(out, out, turned)
        self.assertEqual(code, 2)
        self.assertIn("runs come in pairs", err)
        other = out / "seed9"
        other.mkdir()
        (other / "results.json").write_text(json.dumps({**result, "seed": 9}))
        code, err, _ = run(out, other)
        self.assertEqual(code, 2)
        self.assertIn("seed 9", err)
        # one --p2 spelt two ways (`agent`, then the file it is kept in): refused unless said
        respelt = out / "respelt"
        shutil.copytree(out, respelt, ignore=shutil.ignore_patterns("turned", "seed9", "other", "respelt"))
        for file in ("results.json", "run.json"):
            if (respelt / file).is_file():
                r = json.loads((respelt / file).read_text())
                (respelt / file).write_text(json.dumps({**r, "p2": "search8:static/models/old.zip"}))
        code, err, _ = run(out, respelt)
        self.assertEqual(code, 2)
        self.assertIn("--same-p2", err)
        code, err, same = run("--same-p2", out, respelt)
        self.assertEqual((code, same["battles"], same["a_only"], same["b_only"]), (0, 6, 0, 0), err)
        code, err, _ = run("--same-p2", out, other)
        self.assertEqual(code, 2)
        self.assertIn("seed 9", err)
        # a run under way (run.json, no results.json yet) compares over the battles it finished
        underway = out / "underway"
        shutil.copytree(out, underway, ignore=shutil.ignore_patterns("turned", "seed9", "other", "underway", "respelt"))
        (underway / "results.json").unlink()
        sorted((underway / "logs").iterdir())[-1].unlink()
        code, err, partial = run(out, underway)
        self.assertEqual(code, 0, err)
        self.assertEqual((partial["battles"], partial["a_only"], partial["b_only"]), (5, 0, 0))
        code, err, _ = run(out, other / "nonesuch")
        self.assertEqual(code, 2)
        self.assertIn("holds no head2head run", err)

    def check_old_results(self, out: Path):
        """Results files written before the search's settings were typed still load: runs whose
        player was a search setting since retired (`fh`, the foe's prior leaning on the
        heuristic) pool, compare battle by battle, and make a model card's row."""
        old = []
        for name in ("old-a", "old-b"):
            d = out / name
            shutil.copytree(out, d, ignore=shutil.ignore_patterns("old-*", "turned", "seed9", "other", "underway",
                                                                  "respelt"))
            for file in ("results.json", "run.json"):
                r = json.loads((d / file).read_text())
                (d / file).write_text(json.dumps({**r, "p1": "search64x2fhh4q16p1:agent",
                                                  "p1_as_played": "search64x2fhh4q16p1:agent"}))
            old.append(d)
        proc = subprocess.run([sys.executable, "metapvp/exe/pool_results.py", *map(str, old)], capture_output=True,
                              text=True, cwd=ROOT, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout.splitlines()[-1])["p1"], "search64x2fhh4q16p1:agent")
        proc = subprocess.run([sys.executable, "metapvp/exe/compare_runs.py", *map(str, old)], capture_output=True,
                              text=True, cwd=ROOT, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout.splitlines()[-1])["a_only"], 0)
        from metapvp.exe.ship_model import eval_rows, evaluation
        (row,) = eval_rows([evaluation(old[0])])[2:]
        self.assertIn("`search64x2fhh4q16p1` (a setting since retired)", row)

    def check_pooling(self, out: Path, result: dict):
        """metapvp/exe/pool_results.py adds up runs of one pairing and refuses runs of another."""
        pool = [sys.executable, "metapvp/exe/pool_results.py"]
        proc = subprocess.run(pool + [str(out), str(out)], capture_output=True, text=True, cwd=ROOT, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        pooled = json.loads(proc.stdout.strip().splitlines()[-1])
        self.assertEqual((pooled["matches"], pooled["p1_wins"], pooled["ties"]),
                         (12, 2 * result["p1_wins"], 2 * result["ties"]))
        self.assertAlmostEqual(pooled["p1_win_rate"], result["p1_win_rate"])
        self.assertLess(pooled["p1_win_rate_ci95"][1] - pooled["p1_win_rate_ci95"][0],
                        result["p1_win_rate_ci95"][1] - result["p1_win_rate_ci95"][0])
        other = out / "other"
        other.mkdir()
        (other / "results.json").write_text(json.dumps({**result, "p2": "maxdamage", "p2_as_played": "maxdamage"}))
        proc = subprocess.run(pool + [str(out), str(other)], capture_output=True, text=True, cwd=ROOT, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("p2 'maxdamage' against 'random'", proc.stderr)
        # a run of `agent` pools with one of the search it played, spelt out, where it recorded
        # that; a run of `agent` that did not (before 2026-11-26) is refused
        spelt = "search64x2h4q16p1:agent"
        runs = {"agent": {**result, "p1": "agent", "p1_as_played": spelt},
                "spelt": {**result, "p1": spelt, "p1_as_played": spelt},
                "unrecorded": {k: v for k, v in {**result, "p1": "agent"}.items() if not k.endswith("_as_played")}}
        for name, r in runs.items():
            (out / name).mkdir()
            (out / name / "results.json").write_text(json.dumps(r))
        proc = subprocess.run(pool + [str(out / "agent"), str(out / "spelt")], capture_output=True, text=True,
                              cwd=ROOT, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(proc.stdout.strip().splitlines()[-1])["p1"], spelt)
        proc = subprocess.run(pool + [str(out / "unrecorded"), str(out / "spelt")], capture_output=True, text=True,
                              cwd=ROOT, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn(f"p1 {spelt!r} against 'agent'", proc.stderr)
        proc = subprocess.run(pool + [str(out / "nonesuch")], capture_output=True, text=True, cwd=ROOT, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("nonesuch", proc.stderr)

    def test_a_stopped_run_goes_on_with_resume(self):
        """A run that died before writing results.json (two of its battles lost with it) goes on
        with --resume, extended to more battles: the logged battles count and are not played
        again, the others are the same battles an unbroken run plays."""
        with tempfile.TemporaryDirectory() as out:
            out = Path(out)
            cmd = [sys.executable, "-m", "metapvp.exe.head2head", "--p1", "heuristic", "--p2", "random",
                   "--workers", "2", "--outdir", str(out), "--quiet"]
            first = subprocess.run(cmd + ["--num-matches", "8"], capture_output=True, text=True, cwd=ROOT, timeout=300)
            self.assertEqual(first.returncode, 0, first.stderr)
            self.assertEqual(json.loads((out / "run.json").read_text())["p2"], "random")
            logs = {int(LOG_NAME.search(p.name).group(1)): p for p in (out / "logs").iterdir()}
            lost = {i: json.loads(gzip.open(logs[i], "rt").read()) for i in (5, 6)}
            for i in lost:
                logs[i].unlink()
            (out / "results.json").unlink()
            kept = {i: p.read_bytes() for i, p in logs.items() if i not in lost}

            again = subprocess.run(cmd + ["--num-matches", "12", "--resume"], capture_output=True, text=True,
                                   cwd=ROOT, timeout=300)
            self.assertEqual(again.returncode, 0, again.stderr)
            r = json.loads(again.stdout.strip().splitlines()[-1])
            self.assertEqual((r["matches"], r["resumed"], r["errors"]), (12, 6, 0))
            self.assertIn("6 from earlier sittings", again.stderr)
            names = sorted(p.name for p in (out / "logs").iterdir())
            self.assertEqual(len(names), 12, names)
            for i, data in kept.items():
                self.assertEqual(logs[i].read_bytes(), data, f"battle {i} was played again")
            for i, before in lost.items():
                replayed = json.loads(gzip.open(logs[i], "rt").read())
                self.assertEqual((replayed["seed"], replayed["p1team"], replayed["p2team"]),
                                 (before["seed"], before["p1team"], before["p2team"]))
            from metapvp.exe.compare_runs import outcomes
            self.assertEqual(r["p1_wins"], sum(outcomes(out)[0].values()))

            other = subprocess.run(cmd[:6] + ["heuristic"] + cmd[7:] + ["--num-matches", "4"],
                                   capture_output=True, text=True, cwd=ROOT, timeout=300)
            self.assertEqual(other.returncode, 2)
            self.assertIn("holds another run (p2 'random')", other.stderr)
            self.assertEqual(len(list((out / "logs").iterdir())), 12)   # nothing of it overwritten
            logs[0].write_bytes(b"torn")
            torn = subprocess.run(cmd + ["--num-matches", "12", "--resume"], capture_output=True, text=True,
                                  cwd=ROOT, timeout=300)
            self.assertEqual(torn.returncode, 2)
            self.assertIn(f"{logs[0]}: unreadable battle log", torn.stderr)
        with tempfile.TemporaryDirectory() as empty:
            proc = subprocess.run(cmd[:-3] + ["--outdir", empty, "--quiet", "--resume"], capture_output=True,
                                  text=True, cwd=ROOT, timeout=300)
            self.assertEqual(proc.returncode, 2)
            self.assertIn(f"nothing to resume in {empty}", proc.stderr)

    def test_bad_spec_is_named(self):
        proc = subprocess.run([sys.executable, "-m", "metapvp.exe.head2head", "--p1", "nosuchplayer",
                               "--p2", "random"], capture_output=True, text=True, cwd=ROOT, timeout=120)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("unknown player 'nosuchplayer'", proc.stderr)

    def test_ctrl_c_writes_partial_results(self):
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "metapvp.exe.head2head", "--p1", "random", "--p2", "random",
                   "--num-matches", "100000", "--workers", "2", "--outdir", out, "--quiet"]
            # started with SIGINT ignored, as a shell's background job is: head2head must still
            # answer Ctrl-C; in its own session, so that nothing it started outlives a failure
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                    start_new_session=True,
                                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            try:
                logs = Path(out) / "logs"
                deadline = time.time() + 120
                while time.time() < deadline and len(list(logs.glob("*.gz")) if logs.exists() else []) < 20:
                    time.sleep(0.5)
                proc.send_signal(signal.SIGINT)
                stdout, stderr = proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            self.assertEqual(proc.returncode, 1, stderr)
            result = json.loads(stdout.strip().splitlines()[-1])
            self.assertTrue(result["interrupted"])
            self.assertGreaterEqual(result["matches"], 20)
            self.assertLess(result["matches"], 100000)
            self.assertEqual(json.loads((Path(out) / "results.json").read_text())["matches"], result["matches"])

    def test_ctrl_c_stops_a_slow_player_at_once(self):
        """The battles under way are dropped, not played out: a player taking a second a step
        would take half a minute to finish them (before, head2head then hung on its workers)."""
        with tempfile.TemporaryDirectory() as out:
            cmd = [sys.executable, "-m", "metapvp.exe.head2head", "--p1", ",metapvp.tests.test_head2head.slow_random",
                   "--p2", "random", "--num-matches", "64", "--workers", "2", "--outdir", out, "--quiet"]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                    start_new_session=True)
            try:
                time.sleep(15)  # the workers started, their battles a few turns in
                proc.send_signal(signal.SIGINT)
                stdout, stderr = proc.communicate(timeout=60)   # (before: never)
            finally:
                kill_session(proc)
            result = json.loads(stdout.strip().splitlines()[-1])
            self.assertTrue(result["interrupted"], stderr[-2000:])
            self.assertEqual(result["matches"], 0)   # none had finished, none was played out
            self.assertNotIn("did not stop in time", stderr)   # the workers stopped by themselves

    def start_long_run(self, out):
        cmd = [sys.executable, "-m", "metapvp.exe.head2head", "--p1", "random", "--p2", "random",
               "--num-matches", "100000", "--workers", "2", "--outdir", out, "--quiet"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                start_new_session=True)
        logs = Path(out) / "logs"
        deadline = time.time() + 120
        while time.time() < deadline and len(list(logs.glob("*.gz")) if logs.exists() else []) < 10:
            time.sleep(0.5)
        return proc

    def test_a_second_signal_while_stopping_loses_nothing(self):
        """timeout(1) signals head2head and then its process group, and an impatient user presses
        Ctrl-C twice: the second signal came while the workers were stopping and, before, ended
        head2head with a traceback and no results."""
        with tempfile.TemporaryDirectory() as out:
            proc = self.start_long_run(out)
            try:
                proc.send_signal(signal.SIGINT)
                time.sleep(0.3)
                proc.send_signal(signal.SIGINT)
                proc.terminate()
                stdout, stderr = proc.communicate(timeout=60)
            finally:
                kill_session(proc)
            self.assertNotIn("Traceback", stderr)
            result = json.loads(stdout.strip().splitlines()[-1])
            self.assertTrue(result["interrupted"], stderr[-2000:])
            self.assertGreaterEqual(result["matches"], 10)
            self.assertEqual(json.loads((Path(out) / "results.json").read_text())["matches"], result["matches"])

    def test_sigterm_stops_like_ctrl_c(self):
        with tempfile.TemporaryDirectory() as out:
            proc = self.start_long_run(out)
            try:
                children = child_pids(proc.pid)
                proc.terminate()
                stdout, stderr = proc.communicate(timeout=60)
            finally:
                kill_session(proc)
            self.assertEqual(len(children), 2)
            self.assertTrue(json.loads(stdout.strip().splitlines()[-1])["interrupted"], stderr[-2000:])
            self.assertEqual(alive(children), [])

    @unittest.skipUnless(Path("/proc/self/task").exists(), "reads child processes from /proc")
    def test_workers_exit_when_head2head_is_killed(self):
        """SIGKILL reaches no handler: the workers must notice on their own that their parent
        is gone (before, both played on through all 100,000 battles)."""
        with tempfile.TemporaryDirectory() as out:
            proc = self.start_long_run(out)
            children = child_pids(proc.pid)
            try:
                proc.kill()
                proc.wait()
                deadline = time.time() + 30
                while alive(children) and time.time() < deadline:
                    time.sleep(0.5)
                self.assertEqual(len(children), 2)
                self.assertEqual(alive(children), [])
            finally:
                kill_session(proc)


def kill_session(proc):
    """Whatever is left of a test's process and everything it started (its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def child_pids(pid: int) -> list[int]:
    """The worker processes of head2head (the spawn start method's resource tracker aside)."""
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return [k for k in kids if "spawn_main" in Path(f"/proc/{k}/cmdline").read_bytes().decode(errors="replace")
            and "resource_tracker" not in Path(f"/proc/{k}/cmdline").read_bytes().decode(errors="replace")]



if __name__ == "__main__":
    unittest.main()
