"""The native search (search-rs/, metapvp.engine.native) on a poke-engine state: its options are
the engine's, a visit budget is spent exactly and with a seed gives the same search every time,
another seed another one, side one's prior draws the visits towards the option it favours, and
a string that is no state, a prior of the wrong length or no budget is a clear error while the
process goes on. The crate's own tests (cargo test: a search leaves the state as it found it)
run here too."""
import gzip
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

from metapvp import ROOT
from metapvp.arena import play
from metapvp.backends import BACKENDS, make_backend
from metapvp.engine.native import SEARCH_VALUE, available, leaf_model, native
from metapvp.engine.v8 import checks_context
from metapvp.players import SpecError, make_player
from metapvp.players.native import NativeConfig, NativeSearch, root_prior
from metapvp.players.searchconfig import SearchConfigError
from metapvp.tests.enginetruth import golden_turns, tally_rounds


def volatiles(state: str, side: int) -> set[str]:
    """The volatile statuses of side `side`'s active in an engine state (its sides' 9th field)."""
    field = state.split("/")[side].split("=")[8]
    return {v for v in field.split(":") if v}


def pokemon(state: str, side: int) -> list[list[str]]:
    """Side `side`'s six Pokemon in an engine state, each its fields (species, level, ..., status
    at 18, Rest's turns at 19, turns asleep at 20, ...)."""
    return [p.split(",") for p in state.split("/")[side].split("=")[:6]]


def side_conditions(state: str, side: int) -> list[str]:
    """Side `side`'s conditions in an engine state, in poke-engine's order (the toxic count 17th)."""
    return state.split("/")[side].split("=")[7].split(";")


# The set-up builds the module wherever cargo is (every machine of this project has it); a
# machine without Rust has no native search to test.
@unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
def kept_run(folder: Path, results) -> Path:
    """A head2head run directory in `folder` whose kept logs are `results`' battles."""
    run = folder / "run"
    (run / "logs").mkdir(parents=True)
    for i, r in enumerate(results):
        (run / "logs" / f"battle-gen9randombattle-{i:06d}.log.json").write_text(r.log)
    return run


class NativeSearchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = native()
        cls.state = cls.m.example_state()

    def test_the_options_are_the_engines_and_the_budget_is_spent_exactly(self):
        s1, s2 = self.m.options(self.state)
        self.assertIn("earthquake", s1)
        self.assertIn("garchomp", s2)      # a switch to the benched Garchomp
        r = self.m.search(self.state, iterations=800, seed=1)
        self.assertEqual((r["s1"]["options"], r["s2"]["options"]), (s1, s2))
        self.assertEqual(r["iterations"], 800)
        self.assertEqual(sum(r["s1"]["visits"]), 800)
        self.assertEqual(sum(r["s2"]["visits"]), 800)
        for v in r["s1"]["values"] + r["s2"]["values"]:
            self.assertTrue(v is None or 0.0 <= v <= 1.0, v)

    def test_a_seed_gives_the_same_search_and_another_seed_another(self):
        a, b = (self.m.search(self.state, iterations=1500, seed=5) for _ in range(2))
        self.assertEqual(a, b)
        c = self.m.search(self.state, iterations=1500, seed=6)
        self.assertNotEqual(a["s1"]["visits"], c["s1"]["visits"])

    def test_a_panic_of_the_engine_in_a_search_or_a_game_is_a_value_error_naming_it(self):
        """poke-engine panics on a state it cannot play (here side one's active asleep with a Rest
        counter of -1): in our search, a game played on and poke-engine's own search alike, the
        call's error, named, and the process goes on (a panic is not an Exception: uncaught, it
        took a head2head worker with it)."""
        broken = self.state.replace(",NONE,0,0,", ",SLEEP,-1,0,", 1)
        calls = {"the search": lambda s: self.m.search(s, iterations=200, seed=0),
                 "a game played on": lambda s: self.m.self_play(s, 50, seed=0),
                 "poke-engine's own search": lambda s: self.m.engine_mcts(s, iterations=200)}
        for what, call in calls.items():
            with self.subTest(what), self.assertRaisesRegex(
                    ValueError, rf"the engine failed in {what} from .*\(Invalid rest_turns value: -1\)"):
                call(broken)
        self.assertEqual(self.m.search(self.state, iterations=200, seed=0)["iterations"], 200)

    def test_the_settings_measured_and_not_kept_are_refused_by_name(self):
        """UCB1's constant, the prior below the root, the charge for Terastallization, the
        play-out, stages weighed by HP and the root's equilibrium were measured and are gone: a
        spec naming one is refused with the row of the table that measured it; a model's metadata
        written while they existed reads at the value every search had, and no other."""
        for name, (kept, row) in NativeConfig.retired.items():
            with self.subTest(name), self.assertRaisesRegex(SpecError, rf"no longer has {name} \({row}\).*"
                                                                         rf"What was tried on the native search"):
                make_player(f"native({name}=1):agent")
            old = {**NativeConfig().to_dict(), name: kept}
            self.assertEqual(NativeConfig.from_dict(old), NativeConfig())
            with self.assertRaisesRegex(SearchConfigError, rf"no longer has {name}"):
                NativeConfig.from_dict({**old, name: "other"})
        with self.assertRaises(TypeError):   # and the engine's binding has none of them
            self.m.search(self.state, iterations=10, ucb=1.0)

    def test_side_ones_prior_draws_the_visits_to_the_option_it_favours(self):
        s1, _ = self.m.options(self.state)
        k = s1.index("uturn") if "uturn" in s1 else s1.index("stoneedge")
        favour = [0.01] * len(s1)
        favour[k] = 1.0
        uniform = self.m.search(self.state, iterations=1000, seed=2)
        leaning = self.m.search(self.state, iterations=1000, seed=2, priors=favour)
        self.assertGreater(leaning["s1"]["visits"][k], uniform["s1"]["visits"][k])

    def test_a_uniform_share_spreads_the_prior_over_the_options_the_player_can_choose(self):
        """root_prior on known numbers (an option we cannot name stays at 0 whatever the share),
        and the share reaches the search: all of it searches as `mcts` does."""
        options, names = ["a", "b", "c", "d"], {"a": 0, "b": 1, "d": 3}
        p = np.array([0.6, 0.2, 0.0, 0.2])
        np.testing.assert_allclose(root_prior(options, names, p, 0.0), [0.6, 0.2, 0.0, 0.2], atol=1e-5)
        np.testing.assert_allclose(root_prior(options, names, p, 0.5), [0.3 + 1 / 6, 0.1 + 1 / 6, 0.0, 0.1 + 1 / 6],
                                   atol=1e-5)
        self.assertEqual(root_prior(options, names, None, 0.5), [1.0, 1.0, 0.0, 1.0])
        self.assertEqual(root_prior(options, {}, p, 0.5), [0.0] * 4)
        s1 = self.m.options(self.state)[0]
        names = {o: k for k, o in enumerate(s1)}
        sharp = np.full(len(s1), 0.001)
        sharp[0] = 1.0
        searched = {u: NativeSearch(NativeConfig(iterations=2000, uniform=u), seed=0)._search(
            self.state, names, sharp, 4) for u in (0.0, 0.5, 1.0)}
        first = [dict(v)[0] for v in searched.values()]
        self.assertGreater(first[0], first[1])
        self.assertGreater(first[1], first[2])
        self.assertEqual(searched[1.0], make_player("mcts(iterations=2000)").search._search(self.state, names, None, 4))

    def test_bad_input_is_a_clear_error_and_the_process_goes_on(self):
        with self.assertRaisesRegex(ValueError, "not a poke-engine state"):
            self.m.search("garchomp,earthquake", iterations=10)
        with self.assertRaisesRegex(ValueError, "root priors"):
            self.m.search(self.state, iterations=10, priors=[1.0, 2.0])
        with self.assertRaisesRegex(ValueError, "needs a budget"):
            self.m.search(self.state)
        self.assertEqual(self.m.search(self.state, iterations=10)["iterations"], 10)

    def test_a_time_budget_and_the_engines_own_mcts_run(self):
        r = self.m.search(self.state, ms=50, seed=1)
        self.assertGreater(r["iterations"], 0)
        own = self.m.engine_mcts(self.state, iterations=2000)
        self.assertGreaterEqual(own["iterations"], 2000)
        self.assertEqual(sum(own["s1_visits"]), own["iterations"])

    def test_states_written_from_battles_are_read_whole(self):
        """js/src/enginestate.js on random battles (js/checks/enginecheck.js): at each of p1's
        decisions the true battle and a world drawn from p1's view, written as engine states.
        The engine reads every one, knows every name in it (species, moves, items, abilities,
        types, statuses: none read as nothing), and searches it."""
        out = checks_context().checks("engineStates", {"format": "gen9randombattle", "battles": 8,
                                                       "seed": [5, 6, 7, 8], "max": 150})
        self.assertGreater(min(len(out["true"]), len(out["drawn"])), 100)
        unknown = {}
        for kind, states in (("true", out["true"]), ("drawn", out["drawn"])):
            for state in states:
                for name in self.m.unknown_names(state):
                    unknown.setdefault(name, kind)
        self.assertEqual(unknown, {})
        for state in out["true"][::25] + out["drawn"][::25]:
            r = self.m.search(state, iterations=300, seed=1)
            self.assertEqual(sum(r["s1"]["visits"]), 300)
            self.assertGreater(len(r["s1"]["options"]), 0)

    def test_a_drawn_world_offers_the_search_only_what_the_player_can_choose(self):
        """A drawn world's Pokemon start fresh; the bridge carries in what limits the choices
        (js/src/enginestate.js carryLimits): a Choice lock, a move locked into, a Terastallization
        spent (by a Pokemon since fainted: the client forgets it then), a forced switch. At
        p1's decisions of random battles (forced switches among them, the foe choosing nothing
        there), every option the engine lists for side one is one the player can choose; what
        the player sees of the actives' volatile statuses, of our Pokemon's turns asleep and of
        toxic poison's stage is in the world as in the true battle.
        Searched with a prior of 0 on an option, the root never visits it."""
        out = {"true": [], "drawn": [], "named": []}
        for seed in ([1, 2, 3, 4], [5, 6, 7, 8]):   # Toxic in the first battles, sleep in the second
            more = checks_context().checks("engineStates", {"format": "gen9randombattle", "battles": 12,
                                                            "seed": seed, "max": 400})
            for key in out:
                out[key] += more[key]
        self.assertGreater(len(out["drawn"]), 600)
        strays, forced = [], 0
        for state, true, named in zip(out["drawn"], out["true"], out["named"]):
            s1, s2 = self.m.options(state)
            forced += s2 == ["No Move"] and len(s1) > 1    # a forced switch, searched too
            strays += [o for o in s1 if o not in named["options"]]
            # the true battle's state too spends a Terastallization whose Pokemon has fainted
            strays += [o for o in self.m.options(true)[0] if o.endswith("-tera") and not named["canTera"]]
        self.assertEqual(strays, [])
        self.assertGreater(forced, 10)
        # what the player sees of the actives' volatile statuses is in the world as in the true battle
        seen = ("LEECHSEED", "SALTCURE", "CONFUSION", "YAWN", "TAUNT", "CURSE", "PERISH", "FOCUSENERGY")
        carried = slept = poisoned = 0
        for true, drawn in zip(out["true"], out["drawn"]):
            for k in (0, 1):
                want = {v for v in volatiles(true, k) if v.startswith(seen)}
                self.assertLessEqual(want, volatiles(drawn, k), (k, true))
                carried += len(want)
            # our sleeping Pokemon's turns asleep (a Rest's apart) and our active's toxic count
            asleep = {f[0]: f[20] for f in pokemon(true, 0) if f[18] == "SLEEP" and f[19] == "0"}
            for f in pokemon(drawn, 0):
                if f[0] in asleep:
                    self.assertEqual(f[20], asleep[f[0]], f[0])
                    slept += asleep[f[0]] != "0"
            if self.m.options(true)[1] != ["No Move"]:   # at a forced switch the count goes with the active
                self.assertEqual(side_conditions(drawn, 0)[16], side_conditions(true, 0)[16])
                poisoned += side_conditions(true, 0)[16] != "0"
        self.assertGreater(carried, 0)
        self.assertGreater(slept, 0)
        self.assertGreater(poisoned, 0)
        s1, _ = self.m.options(self.state)
        prior = [0.0 if o.endswith("-tera") else 1.0 for o in s1]
        r = self.m.search(self.state, iterations=2000, seed=3, priors=prior)
        teras = [n for o, n in zip(s1, r["s1"]["visits"]) if o.endswith("-tera")]
        self.assertTrue(teras and not any(teras), teras)
        self.assertEqual(sum(r["s1"]["visits"]), 2000)

    def test_the_leaf_values_positions_come_from_whole_battles(self):
        """engineGames (`metapvp fit-leaf`'s data): battles of a scripted player against
        itself, each with its first position and its winner; every position a state the engine
        reads whole, with a finite feature of each name."""
        out = checks_context().checks("engineGames", {"format": "gen9randombattle", "battles": 4, "seed": [3, 4, 5, 6],
                                                      "player": "heuristic", "explore": 0.2})
        firsts = [b["first"] for b in out["battles"]]
        self.assertEqual(firsts, sorted(set(firsts)))
        self.assertEqual(firsts[0], 0)
        self.assertLess(firsts[-1], len(out["states"]))
        self.assertTrue(all(b["p1won"] in (True, False, None) for b in out["battles"]))
        self.assertTrue(any(b["p1won"] is not None for b in out["battles"]))
        for state in out["states"]:
            self.assertEqual(self.m.unknown_names(state), [])
            features = self.m.features(state)
            self.assertEqual(len(features), len(self.m.feature_names()))
            self.assertTrue(all(abs(x) < 1e3 for x in features), features)

    def test_unknown_names_are_named(self):
        state = self.state.replace("EARTHQUAKE", "EARTHQUAKEX", 1)
        self.assertEqual(self.m.unknown_names(self.state), [])
        self.assertEqual(self.m.unknown_names(state), ["EARTHQUAKEX"])

    def test_the_crates_own_tests_pass(self):
        proc = subprocess.run(["cargo", "test", "--release", "--no-default-features", "--features", "studies",
                               "--quiet"], cwd=ROOT / "search-rs", capture_output=True, text=True, timeout=900)
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])
        self.assertIn("test result: ok. 34 passed", proc.stdout)

    def test_the_learned_leaf_value_is_read_checked_and_searched_with(self):
        """The shipped learned value's weights match the features the module computes (one per
        name, the engine's evaluation among them); a search
        valued by it spends its budget and differs from the engine's evaluation; weights of
        the wrong count, and a file that is no model, are named."""
        names = self.m.feature_names()
        weights, relative, hidden = leaf_model()
        self.assertIsNone(hidden)
        self.assertFalse(relative, "the shipped value is fitted to outcomes: absolute")
        self.assertEqual(len(weights), len(names))
        features = self.m.features(self.state)
        self.assertEqual(len(features), len(names))
        learned = self.m.search(self.state, iterations=1500, seed=4, leaf=weights)
        self.assertAlmostEqual(features[names.index("engine_eval")], learned["root_eval"] / 100, places=4)
        self.assertEqual(sum(learned["s1"]["visits"]), 1500)
        self.assertNotEqual(learned, self.m.search(self.state, iterations=1500, seed=4))
        with self.assertRaisesRegex(ValueError, "3 leaf weights"):
            self.m.search(self.state, iterations=10, leaf=[1.0, 2.0, 3.0])
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "value.json"
            bad.write_text(json.dumps({"features": names[:-1] + ["no_such_feature"], "weights": weights}))
            with self.assertRaisesRegex(SpecError, "value.json: fitted on features"):
                make_player(f"mcts(leaf={bad})")
            bad.write_text(json.dumps({"features": names, "weights": weights[:-1]}))
            with self.assertRaisesRegex(SpecError, "value.json: fitted on features"):
                make_player(f"mcts(leaf={bad})")
            # a model fitted before features were added: each weight read by its name, the new ones 0
            older, fitted = Path(tmp) / "older.json", names[:-3] + names[-1:]
            older.write_text(json.dumps({"features": fitted, "weights": [k + 1.0 for k in range(len(fitted))]}))
            read = dict(zip(names, leaf_model(older)[0]))
            self.assertEqual(read, {n: fitted.index(n) + 1.0 if n in fitted else 0.0 for n in names})
            self.assertEqual((read["ko_first"], read["bench_best_hit"]), (0.0, 0.0))
            bad.write_text("{")
            with self.assertRaisesRegex(SpecError, "value.json: not a model"):
                make_player(f"mcts(leaf={bad})")
        with self.assertRaisesRegex(SpecError, "leaf is engine, learned, search or a .json file"):
            make_player("mcts(leaf=deep)")
        learned_player = make_player("mcts(iterations=1500,leaf=learned)")
        self.assertEqual(learned_player.search.leaf_args["leaf"], weights)
        names = {o: k for k, o in enumerate(self.m.options(self.state)[0])}
        self.assertNotEqual(learned_player.search._search(self.state, names, None, 4),
                            make_player("mcts(iterations=1500)").search._search(self.state, names, None, 4))

    def test_a_leaf_value_fitted_to_the_search_is_relative(self):
        """`metapvp fit-leaf --target search` fits a model to what the search makes of kept
        battles' positions and writes it relative; a relative model that copies the engine's
        evaluation as the search reads it (1.25 log-odds a 100 points) searches as the engine's
        evaluation does, and the same weights read absolutely do not; `leaf=search` plays the one
        shipped, relative; a `relative` that is not true or false is named."""
        names = self.m.feature_names()
        copy = [0.0] * len(names)
        copy[names.index("engine_eval")] = 1.25
        engine = self.m.search(self.state, iterations=2000, seed=3)
        relative = self.m.search(self.state, iterations=2000, seed=3, leaf=copy, leaf_relative=True)
        absolute = self.m.search(self.state, iterations=2000, seed=3, leaf=copy)
        best = lambda r: int(np.argmax(r["s1"]["visits"]))  # noqa: E731
        self.assertEqual(best(relative), best(engine))
        np.testing.assert_allclose(relative["s1"]["values"], engine["s1"]["values"], atol=0.02)
        self.assertNotEqual(absolute["s1"]["visits"], engine["s1"]["visits"])
        results = list(play(make_player("maxdamage"), make_player("random"), "gen9randombattle", range(2),
                            seed=9, keep_logs=True))
        with tempfile.TemporaryDirectory() as tmp:
            run, model = kept_run(Path(tmp), results), Path(tmp) / "value.json"
            study = subprocess.run([sys.executable, "-m", "metapvp.exe.fit_leaf",
                                    "--logs", str(run), "--target", "search",
                                    "--search-iterations", "300", "--cache", tmp, "--write", str(model)],
                                   cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(study.returncode, 0, study.stderr[-2000:])
            self.assertIn("against the search's values", study.stdout)
            written = json.loads(model.read_text())
            self.assertIs(written["relative"], True)
            self.assertEqual(written["features"], names)
            fitted = written["weights"][names.index("engine_eval")]
            self.assertGreater(fitted, 0.3, "the search's values follow the engine's evaluation")
            player = make_player(f"mcts(iterations=500,leaf={model})")
            self.assertTrue(player.search.leaf_args["leaf_relative"])
            self.assertEqual(player.search.leaf_args["leaf"], written["weights"])
            options = self.m.options(self.state)[0]
            searched = lambda relative: self.m.search(  # noqa: E731  as the player searches: a uniform prior
                self.state, iterations=500, seed=4, priors=[1.0] * len(options), leaf=written["weights"],
                leaf_relative=relative)["s1"]["visits"]
            played = [n for _, n in player.search._search(self.state, {o: k for k, o in enumerate(options)}, None, 4)]
            self.assertEqual(played, searched(True))
            self.assertNotEqual(played, searched(False))
            shipped = make_player("mcts(leaf=search)").search
            self.assertTrue(shipped.leaf_args["leaf_relative"], "the shipped value fitted to the search is relative")
            self.assertEqual(shipped.leaf_args["leaf"], leaf_model(SEARCH_VALUE)[0])
            # the same fit without a feature (its cached positions): the model does without it
            dropped = Path(tmp) / "dropped.json"
            again = subprocess.run([sys.executable, "-m", "metapvp.exe.fit_leaf",
                                    "--logs", str(run), "--target", "search",
                                    "--search-iterations", "300", "--cache", tmp, "--write", str(dropped),
                                    "--drop", "bench_best_hit"], cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(again.returncode, 0, again.stderr[-2000:])
            self.assertIn("positions read from", again.stderr)   # neither replayed nor searched again
            self.assertIn("the search's values read from", again.stderr)
            self.assertNotIn("searched ", again.stderr)
            self.assertEqual(json.loads(dropped.read_text())["features"], [n for n in names if n != "bench_best_hit"])
            self.assertEqual(leaf_model(dropped)[0][names.index("bench_best_hit")], 0.0)
            # with a hidden layer: the module's log-odds are the file's, and the player searches with it
            deep = Path(tmp) / "deep.json"
            again = subprocess.run([sys.executable, "-m", "metapvp.exe.fit_leaf",
                                    "--logs", str(run), "--target", "search",
                                    "--search-iterations", "300", "--cache", tmp, "--write", str(deep),
                                    "--hidden", "4"], cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(again.returncode, 0, again.stderr[-2000:])
            self.assertIn("learned_hidden4", again.stdout)
            value = leaf_model(deep)
            rows, out = np.array(value.hidden[0]), np.array(value.hidden[1])
            self.assertEqual(rows.shape, (4, len(names)))
            x = np.array(self.m.features(self.state))
            expected = x @ value.weights + np.tanh(rows @ x) @ out
            self.assertAlmostEqual(self.m.leaf_logit(self.state, value.weights, value.hidden), expected, places=4)
            self.assertNotAlmostEqual(self.m.leaf_logit(self.state, value.weights), expected, places=4)
            player = make_player(f"mcts(iterations=500,leaf={deep})").search
            self.assertEqual(player.leaf_args["leaf_hidden"], value.hidden)
            broken = json.loads(deep.read_text())
            broken["hidden"]["out"] = broken["hidden"]["out"][:-1]
            (Path(tmp) / "broken.json").write_text(json.dumps(broken))
            with self.assertRaisesRegex(SpecError, "broken.json: 4 hidden rows with 3 weights out"):
                make_player(f"mcts(leaf={Path(tmp) / 'broken.json'})")
            with_hidden = [n for _, n in player._search(self.state, {o: k for k, o in enumerate(options)}, None, 4)]
            uniform = [1.0] * len(options)
            self.assertEqual(with_hidden, self.m.search(self.state, iterations=500, seed=4, priors=uniform,
                                                        **value.search_args())["s1"]["visits"])
            self.assertNotEqual(with_hidden, self.m.search(self.state, iterations=500, seed=4, priors=uniform,
                                                           leaf=value.weights, leaf_relative=True)["s1"]["visits"])
            written["relative"] = "yes"
            model.write_text(json.dumps(written))
            with self.assertRaisesRegex(SpecError, "value.json: 'relative' is true or false"):
                make_player(f"mcts(leaf={model})")

    def test_the_search_plays_its_own_games_on_and_their_winners_label_a_fit(self):
        """self_play: the search plays both sides on from a state to the battle's end (the state
        kept at each decision, the first the one given), the same game for the same seed, None
        where its turns run out; `metapvp fit-leaf --target games` labels every decision of
        such games, played from kept battles' positions, by the game's winner (each game played
        again from its start gives the same decisions and winner) and writes a relative model."""
        game = self.m.self_play(self.state, 200, seed=5)
        self.assertEqual(game["states"][0], self.state)
        self.assertIn(game["winner"], (0.0, 1.0))
        self.assertEqual(self.m.self_play(self.state, 200, seed=5), game)
        self.assertEqual(self.m.self_play(self.state, 200, seed=5, max_turns=3),
                         {"states": game["states"][:3], "visits": game["visits"][:3], "winner": None})
        with self.assertRaisesRegex(ValueError, "not a poke-engine state"):
            self.m.self_play("nonsense", 100)
        with self.assertRaisesRegex(ValueError, "iterations above 0"):
            self.m.self_play(self.state, 0)
        # a foe of the same settings plays the same game; one valued otherwise, another
        self.assertEqual(self.m.self_play(self.state, 200, seed=5, foe=True), game)
        leaf = leaf_model(SEARCH_VALUE).search_args()
        matched = self.m.self_play(self.state, 200, seed=5, foe=True, **{"foe_" + k: v for k, v in leaf.items()})
        self.assertEqual(matched["states"][0], self.state)
        self.assertNotEqual(matched["states"], game["states"])
        # both seats, so that side one wins some games and side two others
        results = [r for p1, p2 in (("maxdamage", "random"), ("random", "maxdamage"))
                   for r in play(make_player(p1), make_player(p2), "gen9randombattle", range(2), seed=9,
                                 keep_logs=True)]
        with tempfile.TemporaryDirectory() as tmp:
            run, model = kept_run(Path(tmp), results), Path(tmp) / "games.json"
            study = subprocess.run([sys.executable, "-m", "metapvp.exe.fit_leaf",
                                    "--logs", str(run), "--target", "games",
                                    "--game-iterations", "100", "--games-per-battle", "3", "--cache", tmp,
                                    "--write", str(model)], cwd=ROOT, capture_output=True, text=True, timeout=600)
            self.assertEqual(study.returncode, 0, study.stderr[-2000:])
            self.assertIn("the search's games", study.stdout)
            self.assertIn("played 12 of 12 games", study.stderr)
            written = json.loads(model.read_text())
            self.assertIs(written["relative"], True)
            self.assertEqual(written["fitted"]["target"], "games")
            self.assertGreater(written["fitted"]["positions"], 12)
            [kept] = Path(tmp).glob("logs-*-games100-*.json.gz")
            games = json.loads(gzip.open(kept, "rt").read())
        # every decision is its game's, labelled by that game's winner: each game played again
        winners = set()
        for start in dict.fromkeys(games["start"]):
            at = [i for i, k in enumerate(games["start"]) if k == start]
            again = self.m.self_play(games["states"][at[0]], 100, seed=start)
            self.assertEqual(again["states"], [games["states"][i] for i in at])
            self.assertEqual({games["y"][i] for i in at}, {again["winner"]})
            winners.add(again["winner"])
        self.assertEqual(winners, {0.0, 1.0})

    def test_kept_battles_replay_into_the_positions_of_the_leaf_values_fit(self):
        """head2head's kept logs, replayed in the simulator (`metapvp fit-leaf --logs`), give
        the engine's state at each round, with the battle's winner; a log whose replay does not
        end as recorded (a choice changed) is marked, not fitted."""
        results = list(play(make_player("maxdamage"), make_player("random"), "gen9randombattle", range(2),
                            seed=9, keep_logs=True))
        records = [json.loads(r.log) for r in results]
        battles = [{"seed": r["seed"], "inputLog": r["inputLog"], "winner": r["winner"]} for r in records]
        tampered = dict(battles[0], inputLog=[line.replace("move ", "move 4") for line in battles[0]["inputLog"]])
        found = checks_context().checks("engineReplays", {"format": "gen9randombattle",
                                                          "battles": battles + [tampered]})
        self.assertEqual([b["reproduced"] for b in found["battles"]], [True, True, False])
        for b, r in zip(found["battles"], records):
            self.assertEqual(b["p1won"], r["winner"] == "p1")
        turns = found["battles"][1]["first"]
        self.assertGreater(turns, 3)   # a state a round, about
        self.assertLessEqual(turns, records[0]["turns"] + 1)
        self.assertEqual(len(self.m.features(found["states"][0])), len(self.m.feature_names()))

    def test_the_bridge_is_true_on_the_gen9_golden_battles(self):
        """The recorded gen 9 battles (random and with set teams) replayed: at each round, from the
        true battle written as the engine's state, the joint choice that was played has among the
        engine's outcomes what the simulator produced (each active, every HP within a roll,
        faints, statuses, stages) on at least TRUE_ROUNDS of rounds (metapvp/tests/enginetruth.py;
        studies/engine_truth.py lists the misses by mechanic over many battles)."""
        rounds = []
        for battle, found in golden_turns():
            self.assertEqual(found["battles"], [{"winner": battle["winner"], "turns": battle["turns"]}])
            for name in {n for r in found["rounds"] for n in self.m.unknown_names(r["state"])}:
                self.fail(f"{battle['format']}: the engine does not know {name}")
            rounds += found["rounds"]
        tally = tally_rounds(rounds, self.m)
        self.assertGreater(tally.rounds, 150)
        self.assertGreaterEqual(tally.rate, TRUE_ROUNDS, dict(tally.by_difference))

    def test_the_bridge_is_true_on_random_battles(self):
        """The same judgement over 20 random gen 9 battles (seed 1, both sides at random), where
        sleep, Rest, Wish and the like come up more than in the two golden battles: at least
        RANDOM_TRUE_ROUNDS of rounds agree (0.943 measured; 0.906 before the crate's corrections
        of the engine, search-rs/src/corrections.rs; without the sleep counters 0.899 and
        without Wish's count 0.891, as the bridge stood then)."""
        found = checks_context().checks("engineTurns", {"format": "gen9randombattle", "battles": 20,
                                                        "seed": [1, 2, 3, 4], "max": 100_000})
        tally = tally_rounds(found["rounds"], self.m)
        self.assertGreater(tally.rounds, 1000)
        self.assertGreaterEqual(tally.rate, RANDOM_TRUE_ROUNDS, dict(tally.by_difference))



# The share of the golden battles' rounds the engine must get right, the issue's bar: 0.954
# measured (2026-11-29: 186 of 195, with the crate's corrections of Spikes, Heal Block, Rest and
# Yawn against Sleep Clause, Encore failing on a move out of PP, and the rounds after a refused
# choice named right; 0.882 before any of it). The 9 misses left are poke-engine 0.0.48's own:
# Magic Bounce, Beat Up, poison before Leftovers, damage past a roll (docs/lab/engine-truth.md)
TRUE_ROUNDS = 0.95
# The same over 20 random battles (the battles and the engine are fixed: the figure is exact, so
# a bound just under it, 0.943 measured, catches a field the bridge stops carrying)
RANDOM_TRUE_ROUNDS = 0.94


@unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
class NativePlayerTest(unittest.TestCase):
    def test_mcts_and_the_network_guided_search_play_on_every_backend(self):
        """Two battles each against random on both backends: no error, no invalid choice, every
        decision with a choice searched (none failed), forced switches among them, the worlds'
        iterations all spent."""
        for backend_name in BACKENDS:
            for spec, iterations in (("mcts", 10_000), ("native(iterations=2000,worlds=2):agent", 2000)):
                with self.subTest(backend=backend_name, spec=spec):
                    player, foe = make_player(spec, seed=1), make_player("random", seed=2)
                    forced = []   # each world searched at a forced switch (the foe choosing nothing)
                    search_world = player.search._searched

                    def counted(state, *rest, search_world=search_world, forced=forced):
                        forced.append(native().options(state)[1] == ["No Move"])
                        return search_world(state, *rest)
                    player.search._searched = counted
                    backend = make_backend(backend_name, "singles-v2")
                    try:
                        results = list(play(player, foe, "gen9randombattle", range(2), seed=3, backend=backend))
                    finally:
                        backend.close()
                    self.assertEqual([r.error for r in results], [None, None])
                    self.assertEqual(sum(r.invalid for r in results), 0)
                    search = player.search
                    self.assertGreater(search.searched, 10)
                    self.assertGreater(sum(forced), 0)
                    self.assertEqual(search.failed, 0)
                    self.assertEqual(search.iterations, search.searched * 2 * iterations)

    def test_told_worlds_are_the_true_battle_and_only_the_simulator_tells_them(self):
        """`foe=told` (a diagnostic): the player searches told worlds; at every decision where
        both sides choose, p1's told world holds p2's true Pokemon (those p2's own view
        has), drawn worlds only guess them, and every told world of a decision is the same. A
        backend fed from outside (stdio) names the error."""
        sim = make_backend("inprocess", "singles-v2")
        seen = []   # per decision both sides take: (p1's told, p1's drawn, p2's drawn) states
        truths = set()   # every told state
        rebuilt = []     # per decision: (the foe's Pokemon in the told world, in the world told-rebuilt)

        def sets_of(state):   # the foe's Pokemon still in the fight, each its species and moves
            return sorted((f[0], *sorted(m.split(";")[0] for m in f[22:26]))
                          for f in pokemon(state, 1) if f[6] != "0" and f[0] != "NONE")

        def look(step):
            keys = [(d.battle, d.side) for d in step.decisions]
            told = sim.engine_worlds(keys, 2, [0] * len(keys), told=True)
            drawn = sim.engine_worlds(keys, 1, [1] * len(keys))
            partly = sim.engine_worlds(keys, 1, [1] * len(keys), told="rebuilt")
            at = {k: (t, d) for k, t, d in zip(keys, told, drawn) if t and d}
            rebuilt.extend((sets_of(t["states"][0]), sets_of(r["states"][0])) for t, r in zip(told, partly) if t and r)
            for (battle, side), (t, d) in at.items():
                self.assertEqual(t["states"][0], t["states"][1])
                truths.add(t["states"][0])
                if side == "p1" and (battle, "p2") in at:
                    seen.append((t["states"][0], d["states"][0], at[battle, "p2"][1]["states"][0]))
            return step
        begin, advance = sim.start, sim.step   # each step's decisions, looked at before they are taken
        sim.start = lambda *a: look(begin(*a))
        sim.step = lambda *a: look(advance(*a))

        def alive(state, side):
            return sorted(f[0] for f in pokemon(state, side) if f[6] != "0" and f[0] != "NONE")
        # the player searches the told worlds (two battles, one in each seat)
        player, searched = make_player("native(iterations=200,foe=told):agent", seed=1), []
        search_world = player.search._searched
        player.search._searched = lambda state, *rest: searched.append(state) or search_world(state, *rest)
        try:
            results = list(play(player, make_player("random", seed=2), "gen9randombattle", range(2), seed=5,
                                backend=sim))
        finally:
            sim.close()
        self.assertEqual([r.error for r in results], [None, None])
        self.assertEqual(player.search.failed, 0)
        self.assertGreater(len(searched), 10)
        self.assertLessEqual(set(searched), truths)
        self.assertGreater(len(seen), 20)
        for told, drawn, theirs in seen:
            self.assertEqual(alive(told, 1), alive(theirs, 0))
            self.assertEqual(alive(told, 0), alive(drawn, 0))
        self.assertTrue(any(alive(told, 1) != alive(drawn, 1) for told, drawn, _ in seen))
        # drawn worlds told the seen foes' sets and the unseen foes hold the true team
        self.assertGreater(len(rebuilt), 20)
        for truth, partly in rebuilt:
            self.assertEqual(partly, truth)
        outside = make_backend("stdio", "singles-v2")
        try:
            step = outside.start([{"id": "told-0", "format": "gen9randombattle", "seed": "1,2,3,4"}])
            keys = [(d.battle, d.side) for d in step.decisions]
            answers = outside.engine_worlds(keys, 1, [0] * len(keys), told=True)
        finally:
            outside.close()
        self.assertTrue(answers)
        for a in answers:
            self.assertIn("known only to the in-process simulator", a["error"])
        self.assertEqual(make_player("native(foe=told):agent").config.prefix(),
                         "native(iterations=10000,worlds=2,exploration=1.5,leaf=engine,foe=told)")
        self.assertEqual(make_player("native(foe=told-unseen):agent").config.foe, "told-unseen")
        with self.assertRaisesRegex(SpecError, "foe is drawn or told, told-sets"):
            make_player("native(foe=true):agent")

    def test_specs_are_read_and_bad_ones_named(self):
        p = make_player("native(iterations=500,worlds=3,exploration=2):agent")
        self.assertEqual((p.config.iterations, p.config.worlds, p.config.exploration), (500, 3, 2.0))
        self.assertEqual(make_player("native(ms=50):agent").config.ms, 50)
        self.assertEqual(make_player("mcts(iterations=1000,worlds=3)").config, NativeConfig(iterations=1000, worlds=3))
        self.assertEqual(make_player("mcts(search=poke-engine)").config.search, "poke-engine")
        mixed = make_player("native(uniform=0.5):agent").config
        self.assertEqual(mixed.prefix(), "native(iterations=10000,worlds=2,exploration=1.5,leaf=engine,uniform=0.5)")
        self.assertNotIn("uniform", NativeConfig().prefix())   # the default, 0, unsaid
        for bad, said in [("native(depth=3):agent", "no setting .depth."), ("native(worlds=0):agent", "worlds 1 to 64"),
                          ("native(iterations=x):agent", "not a whole number"), ("native:", "needs a model"),
                          ("native:agent:gen9randomdoublesbattle", "plays singles"),
                          ("mcts(search=poke-engine,leaf=learned)", "the latter with the engine's leaf value"),
                          ("mcts(exploration=0)", "exploration above 0"),
                          ("native(uniform=1.5):agent", "uniform is a share, 0 to 1"),
                          ("mcts(foe=guessed)", "foe is drawn or told"),
                          ("mcts(ucb=0.5)", r"no longer has ucb \(UCB1's constant\)")]:
            with self.subTest(spec=bad), self.assertRaisesRegex(SpecError, said):
                make_player(bad)

    def test_the_budget_table_pairs_runs_and_live_times_by_budget(self):
        """benchmarks/budget_table.py: each run a row by the budget its --p1 names, its win rate
        over its battles, paired with the baseline's battle by battle (the baseline with itself
        none); a soak's live times join the row of its bot's budget; runs of other battles and a
        player that is not a native search are refused by name."""
        def head2head(out, p1, seed=3):
            cmd = [sys.executable, "-m", "metapvp.exe.head2head", "--p1", p1, "--p2", "random", "--num-matches",
                   "4", "--workers", "1", "--seed", str(seed), "--outdir", str(out), "--quiet"]
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return json.loads(proc.stdout.strip().splitlines()[-1])

        def table(*args):
            proc = subprocess.run([sys.executable, "benchmarks/budget_table.py", *map(str, args)],
                                  capture_output=True, text=True, cwd=ROOT, timeout=120)
            return proc.returncode, proc.stderr, (json.loads(proc.stdout.strip().splitlines()[-1])
                                                  if proc.returncode == 0 else proc.stdout)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            few = head2head(tmp / "few", "mcts(iterations=100)")
            timed = head2head(tmp / "timed", "mcts(ms=20)")
            soak = tmp / "soak"
            soak.mkdir()
            times = {"n": 40, "p50": 25.0, "p90": 30.0, "p99": 41.0, "max": 44.0}
            (soak / "soak.json").write_text(json.dumps({"live": {
                "bot": "mcts(ms=20)", "battles": 2, "lost_on_time": 0, "invalid_choices": 0,
                "bot_decision_ms": times}}))
            code, err, rows = table("--baseline", tmp / "few", tmp / "timed", "--live", soak)
            self.assertEqual(code, 0, err)
            self.assertEqual([r["budget"] for r in rows], ["100 iterations", "20 ms"])
            base, clock = rows[0]["strength"], rows[1]["strength"]
            self.assertEqual((base["battles"], base["won"]), (4, few["p1_wins"] / 4))
            self.assertNotIn("paired", base)
            self.assertEqual((clock["battles"], clock["won"]), (4, timed["p1_wins"] / 4))
            self.assertEqual((clock["paired"]["battles"], clock["paired"]["a_win_rate"]), (4, few["p1_wins"] / 4))
            self.assertAlmostEqual(clock["paired"]["b_minus_a"], (timed["p1_wins"] - few["p1_wins"]) / 4)
            self.assertEqual(rows[1]["live"]["decision_ms"], times)
            self.assertNotIn("live", rows[0])
            head2head(tmp / "other", "mcts(ms=20)", seed=4)
            code, err, _ = table("--baseline", tmp / "few", tmp / "other")
            self.assertEqual(code, 2)
            self.assertIn("not the same battles: seed 4", err)
            (tmp / "heuristic").mkdir()
            (tmp / "heuristic" / "run.json").write_text(json.dumps({"p1": "heuristic", "p2": "random", "seed": 3}))
            code, err, _ = table("--baseline", tmp / "few", tmp / "heuristic")
            self.assertEqual(code, 2)
            self.assertIn("'heuristic' is not a native search's spec", err)


if __name__ == "__main__":
    unittest.main()
