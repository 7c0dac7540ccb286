"""The model shipped in static/models/, by its player name `agent`."""
import argparse
import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from metapvp import ROOT
from metapvp.arena import play
from metapvp.engine.native import available
from metapvp.players import SpecError, make_player
from metapvp.players.native import NativeConfig, NativeSearchPlayer
from metapvp.players.search import SearchPlayer
from metapvp.players.searchconfig import SCRIPTED_PLAYERS, SearchConfig
from metapvp.players.spec import SHIPPED_MODELS, as_played
from metapvp.tests import test_serve_api  # (its class by module, so that it is not collected twice)

# `agent` in gen 9 singles as the model file's metadata names it: the native search (docs/agent.md),
# and the search in the simulator where that is not built
SHIPPED_NATIVE = NativeConfig(iterations=10_000, ms=0, worlds=2, exploration=1.5, search="ours", leaf="search",
                              uniform=0.5)
SHIPPED_SEARCH = SearchConfig(visits=64, ms=0, worlds=2, halve=4, weight=16.0, play_on=1, exploration=1.5, scripted=())


class ShippedAgentTest(unittest.TestCase):
    def beats_random(self, agent, fmt: str, battles: int = 10):
        """`agent` wins at least 90% of `battles` against random in `fmt`, with no error and no
        invalid choice. (10: the searching agent takes about 0.2 s a decision in singles and
        more in doubles, a battle against random some 30 decisions; a player no better than
        random passes once in a hundred. Its strength is measured by head2head, docs/agent.md.)"""
        results = list(play(agent, make_player("random", 7), fmt, range(battles), seed=2, concurrency=20))
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(r.invalid for r in results), 0)
        wins = sum(r.winner == "a" for r in results)
        self.assertGreaterEqual(wins, 0.9 * battles, f"agent won {wins} of {battles} against random in {fmt}")

    def test_agent_loads_the_shipped_model_and_beats_random(self):
        agent = make_player("agent", seed=1, fmt="gen9randombattle")
        self.assertEqual(agent.contract, "singles-v2")
        self.beats_random(agent, "gen9randombattle")
        self.assertGreater(agent.searched, 100)
        self.assertEqual(agent.failed, 0)

    def test_agent_searches_unless_given_a_temperature(self):
        agent = make_player("agent")
        # in gen 9 singles the native search, spelt out in the model file's metadata, whatever
        # the search's defaults (the simulator's search where it is not built: the test below)
        self.assertIsInstance(agent, NativeSearchPlayer if available() else SearchPlayer)
        self.assertEqual(agent.config, SHIPPED_NATIVE if available() else SHIPPED_SEARCH)
        self.assertEqual(agent.policy.temperature, 1.0)  # the search's prior is the policy as trained
        self.assertEqual(make_player("agent@0").temperature, 0.0)
        self.assertEqual(make_player("agent@1").temperature, 1.0)
        self.assertEqual(make_player("agent@0.5").temperature, 0.5)
        # a model file plays as trained
        self.assertEqual(make_player(str(SHIPPED_MODELS / "gen9randombattle.zip")).temperature, 1.0)

    def test_without_the_native_search_agent_plays_the_simulators_search_and_says_so_once(self):
        """Where the set-up had no Rust (the module metapvp_search cannot be imported), `agent`
        in gen 9 singles plays the search in the simulator its metadata also names, and says
        once, naming what to install; doubles, which have no native setting, say nothing."""
        script = ("import sys; sys.modules['metapvp_search'] = None\n"
                  "from metapvp.players import make_player\n"
                  "from metapvp.players.spec import as_played\n"
                  "for fmt in ('gen9randombattle', 'gen9randombattle', 'gen9randomdoublesbattle'):\n"
                  "    print(type(make_player('agent', fmt=fmt)).__name__, as_played('agent', fmt))\n")
        r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["SearchPlayer search64x2h4q16p1:agent"] * 2
                         + ["SearchPlayer search64x2h8q16p1s:agent"])
        self.assertEqual(r.stderr.count("the native search (search-rs/, on poke-engine) is not built here"), 1,
                         r.stderr)
        self.assertIn(f"instead of {SHIPPED_NATIVE.prefix()}:agent", r.stderr)
        self.assertIn("install Rust (rustup, so that cargo is on the PATH) and run ./rp again", r.stderr)

    def test_agent_in_doubles_plays_the_doubles_model_with_its_search(self):
        agent = make_player("agent", seed=1, fmt="gen9randomdoublesbattle")
        self.assertIsInstance(agent, SearchPlayer)
        # spelt out in the model file's metadata, whatever the search's defaults
        self.assertEqual((agent.contract, agent.game_type), ("doubles-v2", "doubles"))
        # the scripted players' choices among the root candidates
        self.assertEqual(agent.config, SearchConfig(visits=64, ms=0, worlds=2, halve=8, weight=16.0, play_on=1,
                                                    exploration=1.5, scripted=SCRIPTED_PLAYERS))
        self.assertEqual(agent.policy.temperature, 1.0)  # the search's prior is the policy as trained
        self.assertEqual(make_player("agent@0", fmt="gen9randomdoublesbattle").temperature, 0.0)
        self.beats_random(agent, "gen9randomdoublesbattle")
        self.assertGreater(agent.searched, 25)
        self.assertEqual(agent.failed, 0)

    def test_what_agent_played_is_spelt_out(self):
        """Results record each player as it played (as_played): a bare `agent` as its search."""
        # as results files have recorded it: singles since 2026-11-30 (leaf=engine from 2026-11-28,
        # without uniform=0.5 that day; search64x2h4q16p1:agent from 2026-11-25), doubles since 2026-11-26
        singles = f"{SHIPPED_NATIVE.prefix()}:agent" if available() else "search64x2h4q16p1:agent"
        self.assertEqual(as_played("agent", "gen9randombattle"), singles)
        if available():
            self.assertEqual(singles, "native(iterations=10000,worlds=2,exploration=1.5,leaf=search,uniform=0.5):agent")
        self.assertEqual(as_played(" agent ", "gen9randomdoublesbattle"), "search64x2h8q16p1s:agent")
        self.assertEqual(as_played("agent:gen9randomdoublesbattle", "gen9randombattle"),
                         "search64x2h8q16p1s:agent:gen9randomdoublesbattle")
        for spec in ("agent@0", "lookahead2:agent", "search32:agent", "heuristic"):
            self.assertEqual(as_played(spec, "gen9randombattle"), spec)
        # what a result records plays again as it played
        self.assertEqual(make_player(as_played("agent", "gen9randombattle")).config, make_player("agent").config)

    def test_ship_model_writes_and_reads_the_native_setting(self):
        """ship_model.py --search names the native search in the metadata's "native" entry (the
        simulator's search its fallback), a bad one is refused by name, and a card's row says
        how a native agent played."""
        from metapvp.exe.ship_model import how, played, search_entry, strength_intro
        ap = argparse.ArgumentParser()
        self.assertEqual(search_entry("native(iterations=3000,worlds=4)", ap),
                         {"native": NativeConfig(iterations=3000, worlds=4).to_dict()})
        self.assertEqual(search_entry("search64x2h4q16p1:", ap), {"search": SHIPPED_SEARCH.to_dict()})
        for bad in ("native(depth=3)", "native(worlds=0)", "nothing"):
            err = io.StringIO()
            with self.subTest(bad=bad), contextlib.redirect_stderr(err), self.assertRaises(SystemExit):
                search_entry(bad, ap)
            self.assertIn(f"--search {bad!r}", err.getvalue())
        spec = played({"p1": "agent", "format": "gen9randombattle"})
        self.assertEqual(spec, as_played("agent", "gen9randombattle"))
        if available():
            self.assertEqual(how(spec), "native search, 10,000 iterations in each of 2 worlds")
            self.assertIn(f"`{SHIPPED_NATIVE.prefix()}`", " ".join(strength_intro("gen9randombattle")))
        self.assertEqual(how("native(ms=150,worlds=4):agent"), "native search, 150 ms in each of 4 worlds")

    def test_on_a_server_agent_plays_the_live_setting_its_metadata_names(self):
        """ship_model.py --live writes the native search `agent` plays on a Showdown server
        (metadata "native_live"); live_spec(), which challenge_bot, smogon_eval and the move API
        read `agent` through, spells it out there, head2head's `agent` stays as it was, any other
        spec is as given, `none` takes it away, a prefix not native's is refused by name, and the
        card says it."""
        from metapvp.exe import ship_model
        from metapvp.models.modelfile import read_metadata, update_metadata
        from metapvp.players import spec as specs
        if not available():
            self.skipTest("the native search is not built")
        fmt, prefix = "gen9randombattle", "native(ms=400,worlds=2,exploration=1.5,leaf=search,uniform=0.5)"
        ap = argparse.ArgumentParser()
        for bad in ("search64x2h4q16p1", "native(ms=-1)", "heuristic"):
            err = io.StringIO()
            with self.subTest(bad=bad), contextlib.redirect_stderr(err), self.assertRaises(SystemExit):
                ship_model.live_entry(bad, ap)
            self.assertIn(f"--live {bad!r}", err.getvalue())
        with tempfile.TemporaryDirectory() as tmp:
            for name in (f"{fmt}.zip", f"{fmt}.card.json"):
                shutil.copyfile(SHIPPED_MODELS / name, Path(tmp) / name)
            model = Path(tmp) / f"{fmt}.zip"
            update_metadata(model, **ship_model.live_entry(prefix, ap))
            self.assertEqual(read_metadata(model)["native_live"],
                             NativeConfig(iterations=0, ms=400, leaf="search", uniform=0.5).to_dict())
            with unittest.mock.patch.object(specs, "SHIPPED_MODELS", Path(tmp)):
                self.assertEqual(specs.live_spec(" agent ", fmt), f"{prefix}:agent")
                self.assertEqual(specs.live_spec("agent:gen9randombattle", "gen9randomdoublesbattle"),
                                 f"{prefix}:agent:gen9randombattle")
                live = make_player(specs.live_spec("agent", fmt), fmt=fmt)
                self.assertEqual((live.config.ms, live.config.iterations), (400, 0))
                self.assertEqual(as_played("agent", fmt), f"{SHIPPED_NATIVE.prefix()}:agent")   # head2head's
                for spec in ("agent@0", "heuristic", "native(iterations=500):agent"):
                    self.assertEqual(specs.live_spec(spec, fmt), spec)
                with contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(ship_model.main(["--card-for", str(model)]), 0)
                self.assertIn(f"| on a server | `{prefix}:agent` (challenge_bot, smogon_eval, the move API) |",
                              (Path(tmp) / f"{fmt}.md").read_text())
                update_metadata(model, **ship_model.live_entry("none", ap))
                self.assertEqual(specs.live_spec("agent", fmt), "agent")
        self.assertEqual(specs.live_spec("agent", "gen9randomdoublesbattle"), "agent")   # its model names none

    def test_each_card_is_what_its_metadata_and_data_write(self):
        """A shipped model's card is written from two sources alone, the model's metadata and
        the card's data beside it: `metapvp ship --card-for` on a copy of each gives the card
        committed, and adding a head2head run puts its row in (in place of one of the same
        opponent, moves and seed) with its command."""
        from metapvp.exe import ship_model
        for fmt in ("gen9randombattle", "gen9randomdoublesbattle"):
            with self.subTest(format=fmt), tempfile.TemporaryDirectory() as tmp:
                for name in (f"{fmt}.zip", f"{fmt}.card.json", f"{fmt}-curve.png"):
                    if (SHIPPED_MODELS / name).is_file():
                        shutil.copyfile(SHIPPED_MODELS / name, Path(tmp) / name)
                with contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(ship_model.main(["--card-for", str(Path(tmp) / f"{fmt}.zip")]), 0)
                self.assertEqual((Path(tmp) / f"{fmt}.md").read_text(), (SHIPPED_MODELS / f"{fmt}.md").read_text())
        with tempfile.TemporaryDirectory() as tmp:
            fmt = "gen9randombattle"
            for name in (f"{fmt}.zip", f"{fmt}.card.json"):
                shutil.copyfile(SHIPPED_MODELS / name, Path(tmp) / name)
            run = Path(tmp) / "run"
            run.mkdir()
            (run / "results.json").write_text(json.dumps({
                "format": fmt, "p1": "agent@0", "p2": "maxdamage", "matches": 10, "p1_wins": 7, "p1_win_rate": 0.7,
                "p1_win_rate_ci95": [0.397, 0.892], "elo_diff": 147.2, "errors": 0, "seed": 0, "workers": 1,
                "play_best_move": None}))
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(ship_model.main(["--card-for", str(Path(tmp) / f"{fmt}.zip"), "--evals", str(run)]), 0)
            data = json.loads((Path(tmp) / f"{fmt}.card.json").read_text())
            key = ("maxdamage", "best move", 0)
            rows = [e for e in data["evaluations"] if (e["opponent"], e["moves"], e["seed"]) == key]
            self.assertEqual([(e["battles"], e["win_rate"]) for e in rows], [(10, 0.7)])
            card = (Path(tmp) / f"{fmt}.md").read_text()
            self.assertIn("| `maxdamage` | best move | 10 | **0.700** | 0.397–0.892 | +147 | 0 |", card)
            self.assertIn("metapvp head2head --p1 agent@0 --p2 maxdamage --format gen9randombattle --num-matches 10 "
                          "--workers 1 --seed 0", card)

    def test_agent_with_a_format_names_that_format(self):
        self.assertEqual(make_player("agent:gen9randombattle").contract, "singles-v2")

    def test_a_format_without_a_model_is_a_clear_error(self):
        with self.assertRaises(SpecError) as e:
            make_player("agent", fmt="gen1ou")
        self.assertIn("gen1ou", str(e.exception))
        self.assertIn("gen9randombattle", str(e.exception))  # what is shipped
        self.assertIn(str(SHIPPED_MODELS), str(e.exception))
        r = subprocess.run([sys.executable, "metapvp/exe/head2head.py", "--p1", "agent", "--p2", "random",
                            "--format", "gen1ou", "--num-matches", "1"], cwd=ROOT, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no model is shipped for format 'gen1ou'", r.stderr)


class ShippedAgentApiTest(test_serve_api.ServeApiTest):
    """The shipped model behind serve_api plays a whole battle for both sides (the other
    ServeApiTest checks do not depend on the model and run once, there)."""
    test_bad_requests_get_errors_and_serving_goes_on = None
    test_fuzzed_requests_all_get_answers = None

    @classmethod
    def player(cls):
        return make_player("agent", seed=3)

    def test_answers_a_whole_battle_for_both_sides(self):
        super().test_answers_a_whole_battle_for_both_sides()
        # the answers came from the search, not from the policy alone after a failure
        self.assertGreater(self.api.player.searched, 5)
        self.assertEqual(self.api.player.failed, 0)


class ShippedDoublesAgentApiTest(test_serve_api.DoublesServeApiTest):
    """The shipped doubles model behind serve_api plays a whole random doubles battle."""

    @classmethod
    def player(cls):
        return make_player("agent", seed=3, fmt="gen9randomdoublesbattle")

    def test_answers_a_whole_battle_for_both_sides(self):
        super().test_answers_a_whole_battle_for_both_sides()
        # the answers came from the search, not from the policy alone after a failure
        self.assertGreater(self.api.player.searched, 5)
        self.assertEqual(self.api.player.failed, 0)


if __name__ == "__main__":
    unittest.main()
