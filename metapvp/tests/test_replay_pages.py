"""Battles to watch: the thoughts recorded while `agent` plays, Showdown's replay file of a real
battle, and the page of what the players thought, rendered in headless Chromium (Debian's
`chromium`; without one the rendering test skips with one line saying so)."""
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

from metapvp.arena.runconfig import RunConfig
from metapvp.arena.runner import run
from metapvp.arena.thoughts import read_thoughts, thoughts_path
from metapvp.exe import replay as replay_cli
from metapvp.gym.env import PokemonEnv
from metapvp.replays.run import ReplayError, battle_logs, page, pick, read_battle, replay

BROWSER = next((b for b in ("chromium", "chromium-browser") if shutil.which(b)), None)


def played(outdir: Path, p1: str, p2: str, fmt: str = "gen9randombattle", n: int = 2,
           thoughts: bool | None = None) -> Path:
    """A head2head run's folder; `thoughts` None: kept as head2head keeps them by default."""
    run(RunConfig(p1=p1, p2=p2, format=fmt, num_matches=n, workers=1, seed=5, outdir=str(outdir), quiet=True,
                  thoughts=thoughts))
    return outdir


def rendered(path: Path) -> str:
    """The page's DOM after its script ran, as headless Chromium dumps it."""
    out = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                          "--dump-dom", path.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise AssertionError(f"chromium failed ({out.returncode}): {out.stderr[-500:]}")
    return out.stdout


class Elements(HTMLParser):
    """Every element's tag and attributes, in order."""

    def __init__(self, text: str):
        super().__init__()
        self.found: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))

    def having(self, tag: str, cls: str) -> list[dict]:
        return [a for t, a in self.found if t == tag and cls in (a.get("class") or "").split()]


def log_turns(saved: dict) -> int:
    return sum(line.startswith("|turn|") for line in saved["log"])


class AgentRunTest(unittest.TestCase):
    """Two battles of `agent` against `heuristic`, thoughts kept, and what is made of them."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.run_dir = played(Path(cls.tmp.name) / "run", "agent", "heuristic")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def thoughts(self, battle: int) -> dict:
        return read_thoughts(thoughts_path(battle_logs(self.run_dir)[battle]))

    def test_the_agent_thoughts_hold_its_prior_visits_values_and_worlds(self):
        for battle in (0, 1):
            data = self.thoughts(battle)
            agent_side = "p1" if battle == 0 else "p2"   # seats alternate
            self.assertEqual(data["players"][agent_side], "agent")
            mine = [d for d in data["decisions"] if d["side"] == agent_side]
            theirs = [d for d in data["decisions"] if d["side"] != agent_side]
            self.assertTrue(mine and theirs)
            searched = [d for d in mine if any("visits" in o for o in d["options"])]
            self.assertGreater(len(searched), len(mine) / 2, "most of agent's decisions are searched")
            for d in mine:
                self.assertIn(d["chosen"], [o["action"] for o in d["options"]])
                self.assertTrue(0 <= d["win"] <= 1)
                self.assertAlmostEqual(sum(o["prior"] for o in d["options"]), 1.0, delta=0.01)
            for d in searched:
                self.assertAlmostEqual(sum(o["visits"] for o in d["options"]), 1.0, delta=0.01)
                self.assertTrue(all(o["value"] is None or 0 <= o["value"] <= 1 for o in d["options"]))
                self.assertEqual(len(d["worlds"]), 2)   # agent searches two worlds
                for team in d["worlds"]:
                    self.assertTrue(1 <= len(team) <= 6)
                    self.assertTrue(all(mon["species"] and len(mon["moves"]) >= 1 for mon in team))
            for d in theirs:   # heuristic: its choice among the named options, nothing more
                self.assertTrue(all(set(o) == {"action", "label"} for o in d["options"]))
                self.assertNotIn("win", d)

    def test_the_replay_file_holds_the_whole_public_log_and_nothing_private(self):
        logs = battle_logs(self.run_dir)
        saved = read_battle(logs[0])
        text = replay(logs[0], 0)
        body = re.search(r'<script type="text/plain" class="battle-log-data">(.*?)</script>', text, re.S)
        self.assertIsNotNone(body)
        self.assertEqual(body.group(1).replace("<\\/", "</").split("\n"), saved["log"])
        self.assertNotIn("|request|", text)
        self.assertNotIn("|split|", text)
        for choice in saved["inputLog"]:   # the players' own choices are not in it either
            if choice.startswith((">p1 ", ">p2 ")):
                self.assertNotIn(choice, text)
        self.assertIn("replay-embed.js", text)
        self.assertIn("agent", text)   # the players named by their specs

    def test_the_command_writes_a_replay_for_every_battle_and_one_page(self):
        out = Path(self.tmp.name) / "pages"
        self.assertEqual(replay_cli.main([str(self.run_dir), "--out", str(out)]), 0)
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["battle-000000.html", "battle-000001.html"])
        one = Path(self.tmp.name) / "one.html"
        self.assertEqual(replay_cli.main([str(self.run_dir), "--battle", "1", "--thoughts", "--out", str(one)]), 0)
        self.assertIn('id="battle-data"', one.read_text())

    @unittest.skipIf(BROWSER is None, "no chromium here: the page is not rendered (apt-get install chromium)")
    def test_chromium_renders_every_turn_each_decision_and_the_chart(self):
        path = Path(self.tmp.name) / "page.html"
        self.assertEqual(replay_cli.main([str(self.run_dir), "--battle", "0", "--thoughts", "--out", str(path)]), 0)
        dom = rendered(path)
        self.assertIn('data-rendered="1"', dom, "the page's script ran to its end")
        self.assertNotIn("data-errors", dom, "no script error")
        found = Elements(dom)
        saved, data = read_battle(battle_logs(self.run_dir)[0]), self.thoughts(0)
        turns = [int(a["data-turn"]) for a in found.having("section", "turn")]
        self.assertEqual(turns, list(range(log_turns(saved) + 1)), "every turn, the start before them")
        with_win = [d for d in data["decisions"] if "win" in d]
        self.assertEqual(len(found.having("circle", "point")), len(with_win), "a point per decision")
        self.assertEqual(len(found.having("div", "decision")), len(data["decisions"]))
        rows = found.having("tr", "option")
        searched = [d for d in data["decisions"] if any("visits" in o for o in d["options"])]
        self.assertEqual(len([r for r in rows if "data-visits" in r]), sum(len(d["options"]) for d in searched))
        visits = [float(r["data-visits"]) for r in rows if r.get("data-visits")]
        self.assertAlmostEqual(sum(visits), len(searched), delta=0.01 * len(searched),
                               msg="each decision's shares add to 1")
        tabled = [d for d in data["decisions"] if any("prior" in o or "visits" in o for o in d["options"])]
        self.assertEqual(len(found.having("tr", "chosen")), len(tabled), "the option played marked in each table")

    def test_a_page_is_never_half_written_over_a_good_one(self):
        out = Path(self.tmp.name) / "kept.html"
        self.assertEqual(replay_cli.main([str(self.run_dir), "--battle", "0", "--thoughts", "--out", str(out)]), 0)
        good = out.read_text()
        broken = Path(self.tmp.name) / "broken" / "logs"
        broken.mkdir(parents=True)
        saved = read_battle(battle_logs(self.run_dir)[0])
        saved["log"] = saved["log"][: len(saved["log"]) // 2]   # cut short
        with gzip.open(broken / "battle-gen9randombattle-000000.log.json.gz", "wt") as f:
            json.dump(saved, f)
        self.assertEqual(replay_cli.main([str(broken.parent), "--battle", "0", "--thoughts", "--out", str(out)]), 2)
        self.assertEqual(out.read_text(), good)
        self.assertEqual([p.name for p in out.parent.glob("kept.html*")], ["kept.html"])


class BadInputTest(unittest.TestCase):
    def test_a_folder_without_logs_a_battle_out_of_range_and_a_log_cut_short_each_say_where(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            with self.assertRaisesRegex(ReplayError, r"no battle logs in .*logs.*--outdir"):
                battle_logs(tmp)
            with self.assertRaisesRegex(ReplayError, "no such run folder"):
                battle_logs(tmp / "missing")
            logs = tmp / "logs"
            logs.mkdir()
            path = logs / "battle-gen9randombattle-000003.log.json.gz"
            with gzip.open(path, "wt") as f:
                json.dump({"format": "gen9randombattle", "log": ["|player|p1|a||", "|turn|1"]}, f)
            with self.assertRaisesRegex(ReplayError, r"no battle 7 \(its battles: 3 to 3, 1 logged\)"):
                pick(battle_logs(tmp), 7, tmp)
            with self.assertRaisesRegex(ReplayError, r"000003.*cut short"):
                replay(path, 3)
            with gzip.open(path, "wt") as f:   # a player's own stream is no replay
                json.dump({"format": "gen9randombattle",
                           "log": ["|player|p1|a||", '|request|{"side":{}}', "|win|a"]}, f)
            with self.assertRaisesRegex(ReplayError, r"000003.*private line \(\|request"):
                replay(path, 3)
            path.write_bytes(b"not gzip")
            with self.assertRaisesRegex(ReplayError, r"000003.*unreadable"):
                page(path, 3)

    def test_the_command_says_one_line_and_exits_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run([sys.executable, "-m", "metapvp.exe.replay", tmp, "--battle", "0"],
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 2)
            self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)
            self.assertIn("no battle logs", out.stderr)


class EveryPlayerTest(unittest.TestCase):
    """Players without a search show what they have; a doubles battle renders both actives."""

    def test_scripted_players_and_a_doubles_battle_make_pages(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_dir = played(Path(tmp) / "doubles", "heuristic", "random", fmt="gen9randomdoublesbattle", n=1,
                             thoughts=True)
            data = read_thoughts(thoughts_path(battle_logs(run_dir)[0]))
            labels = [o["label"] for d in data["decisions"] for o in d["options"]]
            self.assertTrue(any(" / " in label for label in labels), "a doubles option names both positions")
            text = page(battle_logs(run_dir)[0], 0)
            start = json.loads(re.search(r'id="battle-data">(.*?)</script>', text, re.S).group(1))["story"]["turns"][0]
            self.assertEqual([sum(m["active"] for m in start["sides"][s]) for s in ("p1", "p2")], [2, 2])
            if BROWSER:
                path = Path(tmp) / "doubles.html"
                path.write_text(text)
                dom = rendered(path)
                self.assertIn('data-rendered="1"', dom)
                self.assertNotIn("data-errors", dom)
                found = Elements(dom)
                saved = read_battle(battle_logs(run_dir)[0])
                self.assertEqual(len(found.having("section", "turn")), log_turns(saved) + 1)
                active = [m for m in found.having("div", "mon") if "active" in m["class"].split()]
                self.assertGreaterEqual(len(active), 4, "both actives of both sides, at the start")
                self.assertEqual(len(found.having("circle", "point")), 0)   # no player saw a chance to win

    def test_the_gymnasium_environment_logs_battles_that_replay(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = PokemonEnv(opponent="maxdamage", log_dir=tmp)
            try:
                for episode in range(2):
                    obs, info = env.reset(seed=episode)
                    done = False
                    while not done:
                        obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            finally:
                env.close()
            logs = battle_logs(Path(tmp))
            self.assertEqual(sorted(logs), [0, 1])
            saved = read_battle(logs[1])
            self.assertIn("\n".join(saved["log"]).replace("</", "<\\/"), replay(logs[1], 1))

    def test_scripted_players_keep_no_thoughts_by_default_and_their_page_is_the_battle_alone(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_dir = played(Path(tmp) / "plain", "maxdamage", "random", n=1)
            log = battle_logs(run_dir)[0]
            self.assertFalse(thoughts_path(log).exists())
            self.assertIn('"decisions":[]', page(log, 0))


if __name__ == "__main__":
    unittest.main()
