"""The lab's studies read real runs as they say: each study run on a short head2head run (or on
kept battles' positions) as a user runs it, its JSON read back against the battles' logs. Apart
from the product's tests (metapvp/tests/): the product never imports a study."""
import gzip
import json
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from metapvp import ROOT
from metapvp.arena import play
from metapvp.arena.match import first_seat
from metapvp.arena.replay import recorded_choices, replay
from metapvp.arena.rundir import LOG_NAME
from metapvp.engine.native import available
from metapvp.players import make_player
from metapvp.tests.test_native_search import kept_run


class HeadToHeadStudiesTest(unittest.TestCase):
    """move_use.py and leads.py on six battles of heuristic against random."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = Path(cls.tmp.name) / "run"
        proc = subprocess.run([sys.executable, "-m", "metapvp.exe.head2head", "--p1", "heuristic", "--p2", "random",
                               "--num-matches", "6", "--workers", "2", "--outdir", str(cls.out), "--quiet"],
                              capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert proc.returncode == 0, proc.stderr
        cls.result = json.loads(proc.stdout.strip().splitlines()[-1])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_move_use(self):
        self.check_move_use(self.out, self.result)

    def test_leads(self):
        self.check_leads(self.out, self.result)

    def check_move_use(self, out: Path, result: dict):
        """studies/move_use.py counts the moves each player used against those its team carried:
        each player is read at its seats (the battles it won are head2head's count), every move
        it used is one its own team carried (the names read as ids), and it used some; the two
        players' first Terastallizations, and the turns they came on, add up to those in the
        battles' logs (a player read off the other's side would count its turns twice), as do
        their switches after the lead."""
        teras, turns, switches = 0, 0, 0
        for flag, wins in (([], "p1_wins"), (["--second"], "p2_wins")):
            proc = subprocess.run([sys.executable, "studies/move_use.py", str(out), "--top", "1000", *flag],
                                  capture_output=True, text=True, cwd=ROOT, timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            used = json.loads(proc.stdout.strip().splitlines()[-1])
            self.assertEqual((used["battles"], used["won"]), (6, result[wins]))
            self.assertGreater(sum(m["used"] for m in used["moves"].values()), 6)
            self.assertEqual(used["used_not_carried"], [])
            teras += sum(t["battles"] for t in used["tera"].values())
            switches += used["switches"]
            turns += sum(int(turn) * t["battles"] for turn, t in used["tera"].items())
            self.assertLessEqual(sum(t["won"] for t in used["tera"].values()), result[wins])
        in_logs, turns_in_logs, switches_in_logs = 0, 0, 0
        for log in (out / "logs").iterdir():
            with gzip.open(log, "rt") as f:
                lines = json.load(f)["log"]
            turn = 0
            for line in lines:
                if line.startswith("|turn|"):
                    turn = int(line.split("|")[2])
                elif line.startswith("|-terastallize|"):   # once a side at most: one Tera a battle
                    in_logs += 1
                    turns_in_logs += turn
                elif line.startswith("|switch|") and turn > 0:
                    switches_in_logs += 1
        self.assertGreater(in_logs, 0)
        self.assertGreater(switches_in_logs, 0)
        self.assertEqual((teras, turns, switches), (in_logs, turns_in_logs, switches_in_logs))

    def check_leads(self, out: Path, result: dict):
        """studies/leads.py reads each player at its seats: the battles it won are head2head's
        count, every battle won was led at least by the margin it ended with (the foe's fainted
        less its own, by the log's faints), no lead passed the foe's Pokemon that fainted, and the
        losses once ahead are listed where the player had led that far."""
        margins = {}   # battle -> ({side: its Pokemon fainted}, the winner)
        for log in (out / "logs").iterdir():
            with gzip.open(log, "rt") as f:
                battle = json.load(f)
            faints = [line.split("|")[2][:2] for line in battle["log"] if line.startswith("|faint|")]
            margins[int(LOG_NAME.search(log.name).group(1))] = ({"p1": faints.count("p1"), "p2": faints.count("p2")},
                                                                battle["winner"])
        for flag, wins in (([], "p1_wins"), (["--second"], "p2_wins")):
            proc = subprocess.run([sys.executable, "studies/leads.py", str(out), "--at-least", "1", *flag],
                                  capture_output=True, text=True, cwd=ROOT, timeout=60)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            self.assertEqual((r["battles"], r["won"]), (6, result[wins]))
            self.assertNotIn("0", r["won_by_lead"])
            for i, (fainted, winner) in margins.items():
                seat = first_seat(i) if not flag else ("p2" if first_seat(i) == "p1" else "p1")
                foe = "p2" if seat == "p1" else "p1"
                lead = r["by_battle"][str(i)]
                self.assertLessEqual(lead, fainted[foe])
                if winner == seat:
                    self.assertGreaterEqual(lead, fainted[foe] - fainted[seat])
            self.assertEqual(sum(r["lost_by_lead"].values()), 6 - result[wins])
            self.assertEqual(len(r["lost_from_ahead"]), sum(n for lead, n in r["lost_by_lead"].items() if lead != "0"))
        empty = subprocess.run([sys.executable, "studies/leads.py", str(out / "logs")], capture_output=True,
                               text=True, cwd=ROOT, timeout=60)
        self.assertEqual(empty.returncode, 2)
        self.assertIn("no battle logs in", empty.stderr)



@unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
class EngineMatchTest(unittest.TestCase):
    def test_two_settings_matched_inside_the_engine_score_from_both_seats(self):
        """studies/engine_match.py: from kept battles' positions, A against B from both seats with
        the same seed; a setting against itself scores exactly one half (each pair split), and
        a leaf that cannot be read is named before anything is replayed."""
        results = list(play(make_player("maxdamage"), make_player("random"), "gen9randombattle", range(2),
                            seed=9, keep_logs=True))
        with tempfile.TemporaryDirectory() as tmp:
            run = kept_run(Path(tmp), results)

            def study(*args):
                return subprocess.run([sys.executable, "studies/engine_match.py", "--logs", str(run), "--cache", tmp,
                                       "--iterations", "100", "--per-battle", "3", *args],
                                      cwd=ROOT, capture_output=True, text=True, timeout=600)
            same = study("--a", "search", "--b", "search")
            self.assertEqual(same.returncode, 0, same.stderr[-2000:])
            result = json.loads(same.stdout.splitlines()[-1])
            self.assertEqual((result["positions"], result["games"]), (6, 12))
            self.assertEqual((result["a_score"], result["split"]), (0.5, 6))
            other = study("--a", "search", "--b", "engine", "--b-iterations", "5")
            self.assertEqual(other.returncode, 0, other.stderr[-2000:])
            result = json.loads(other.stdout.splitlines()[-1])
            self.assertEqual(result["b_iterations"], 5)
            self.assertGreater(result["a_score"], 0.5)   # 100 iterations against 5
            bad = study("--a", "search", "--b", str(Path(tmp) / "missing.json"))
            self.assertNotEqual(bad.returncode, 0)
            self.assertIn("missing.json", bad.stderr)



class SavedBattleStudiesTest(unittest.TestCase):
    """decision.py and value_study.py on six saved battles of random against random."""
    fmt = "gen9randombattle"

    @classmethod
    def setUpClass(cls):
        results = list(play(make_player("random", 3), make_player("random", 5), cls.fmt, range(6), seed=4,
                            keep_logs=True, prefix="rec"))
        cls.saved = {r.index: json.loads(r.log) for r in results}

    def write_logs(self, run: Path):
        """The saved battles as head2head keeps them, in `run`/logs/."""
        (run / "logs").mkdir()
        for i, saved in self.saved.items():
            with gzip.open(run / "logs" / f"battle-{self.fmt}-{i:06d}.log.json.gz", "wt") as f:
                json.dump(saved, f)

    @unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
    def test_the_decision_study_searches_a_saved_decision_again(self):
        """studies/decision.py replays a saved battle to one side's decision and searches it again:
        the choice the battle made there is named, and each drawn world's visits add up to the
        budget; a turn the battle never reached is refused by name."""
        with tempfile.TemporaryDirectory() as tmp:
            self.write_logs(Path(tmp))
            study = [sys.executable, "studies/decision.py", tmp, "--battle", "1", "--player",
                     "native(iterations=300):agent"]
            proc = subprocess.run(study + ["--turn", "2"], capture_output=True, text=True, cwd=ROOT, timeout=300)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            lines = proc.stdout.splitlines()
            side = first_seat(1)
            head = re.fullmatch(rf"battle 1, {side}, turn (\d+); played: (.+)", lines[0])
            self.assertIsNotNone(head, lines[0])
            self.assertGreaterEqual(int(head[1]), 2)
            self.assertIn(head[2], recorded_choices(self.saved[1])[side])
            worlds = [k for k, line in enumerate(lines) if line.startswith("world ")]
            self.assertEqual(len(worlds), 2)   # agent's two worlds
            for k in worlds:
                rows = []
                for line in lines[k + 2:]:
                    if not line.startswith("  ") or line.startswith("  the foe"):
                        break
                    rows.append(line.split())
                self.assertEqual(sum(int(r[3]) for r in rows), 300, rows)
            late = subprocess.run(study + ["--turn", "999"], capture_output=True, text=True, cwd=ROOT, timeout=300)
            self.assertNotEqual(late.returncode, 0)
            self.assertIn(f"the battle ended before {side}'s decision at turn 999", late.stderr)

    def test_the_value_study_scores_every_position_of_the_runs(self):
        """studies/value_study.py over a run's saved battles: every position of every battle won
        by one side is scored; a folder without battle logs is refused by name."""
        with tempfile.TemporaryDirectory() as tmp:
            self.write_logs(Path(tmp))
            study = [sys.executable, "studies/value_study.py"]
            proc = subprocess.run(study + [tmp, "--epochs", "1", "--holdout", "0.5"], capture_output=True, text=True,
                                  cwd=ROOT, timeout=300)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            decided = [r for r in replay(sorted(self.saved.items())) if r.winner]
            self.assertEqual(out["battles"], len(decided))
            self.assertEqual(out["positions"], sum(len(r.positions) for r in decided))
            self.assertGreater(out["held_out"], 0)
            self.assertLess(out["held_out"], out["positions"])
            for name in ("base rate", "material (HP lead, fitted)", "win estimate as shipped", "both (fitted)",
                         "win estimate fine-tuned"):
                self.assertTrue(0 < out["scores"][name]["log_loss"] < 5, (name, out["scores"][name]))
            # head2head's --p1 alone: its positions, which seat it had in each battle
            first = subprocess.run(study + [tmp, "--epochs", "0", "--holdout", "0.5", "--player", "p1"],
                                   capture_output=True, text=True, cwd=ROOT, timeout=300)
            self.assertEqual(first.returncode, 0, first.stderr)
            out = json.loads(first.stdout.strip().splitlines()[-1])
            self.assertEqual(out["positions"], sum(p.side == first_seat(r.index) for r in decided for p in r.positions))
            self.assertLess(out["positions"], sum(len(r.positions) for r in decided))
            missing = subprocess.run(study + [str(Path(tmp) / "logs")], capture_output=True, text=True, cwd=ROOT,
                                     timeout=60)
            self.assertEqual(missing.returncode, 2)
            self.assertIn("no logs/ folder", missing.stderr)


if __name__ == "__main__":
    unittest.main()
