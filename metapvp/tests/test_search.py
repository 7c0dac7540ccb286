"""The search at decision time (js/src/search.js, metapvp.players.search): the worlds it draws
agree with what the player has seen, it answers legal actions the simulator accepts in every
generation, a visit budget with a seed is reproducible, a time budget holds, the settings read
from specs and model files, and the search player plays on every backend."""
import time
import unittest

import numpy as np

from metapvp.arena import play
from metapvp.backends import BACKENDS, make_backend
from metapvp.engine import Engine, Simulator
from metapvp.engine.v8 import checks_context
from metapvp.exe.ship_model import played
from metapvp.players import as_played, make_player
from metapvp.players.search import SearchPlayer, with_picks
from metapvp.players.searchconfig import SCRIPTED_PLAYERS, SearchConfig, SearchConfigError
from metapvp.players.spec import SpecError, agent_search, parse_spec
from metapvp.tests.golden import FORMATS as GOLDEN_FORMATS
from metapvp.tests.golden import golden_battle, replay

FORMATS = [f"gen{g}randombattle" for g in range(1, 10)]
DOUBLES_FORMATS = ["gen9randomdoublesbattle", "gen8randomdoublesbattle"]


class WorldsAndSearchAgainstSimulatorTest(unittest.TestCase):
    """js/checks/worldcheck.js: p1 plays the search's choices, p2 at random; at each of p1's
    decisions the drawn worlds are compared with p1's view, and the search run twice."""

    @classmethod
    def setUpClass(cls):
        v8 = checks_context()
        # a deeper search where the foe can Terastallize (its drawn Tera type gets played), our
        # root choices by sequential halving there
        deeper = settings(visits=32, halve=4, weight=8)
        cls.results = {f: v8.checks("checkWorlds", {
            "format": f, "battles": 2, "seed": [3, 1, 4, 1],
            "settings": deeper if f == "gen9randombattle" else settings(visits=8)}) for f in FORMATS + DOUBLES_FORMATS}

    def test_every_world_agrees_with_what_was_seen(self):
        for f, r in self.results.items():
            with self.subTest(format=f):
                self.assertGreater(r["worlds"], 20)
                self.assertEqual(r["disagreements"], 0, r["examples"])

    def test_the_search_answers_legal_actions_the_simulator_accepts(self):
        for f, r in self.results.items():
            with self.subTest(format=f):
                self.assertGreater(r["searched"], 0.9 * r["decisions"], r)
                self.assertEqual((r["failed"], r["illegal"], r["refused"]), (0, 0, 0), r["examples"])

    def test_a_node_budget_with_a_seed_gives_the_same_search(self):
        for f, r in self.results.items():
            with self.subTest(format=f):
                self.assertEqual((r["not_reproduced"], r["over_budget"]), (0, 0))


class GoldenBattleSearchTest(unittest.TestCase):
    def test_the_search_answers_a_legal_action_at_every_decision_of_the_golden_battles(self):
        """Each singles golden battle (generations 1 to 9, and a custom game with team files)
        replayed from p1's side: at every decision with a choice, the search answers an action
        the mask allows, which the action table speaks."""
        engine = Engine("singles-v1")
        for fmt in GOLDEN_FORMATS:
            with self.subTest(format=fmt):
                battle = golden_battle(fmt)
                key = f"replay-{battle['format']}-{battle['seed']}-p1"
                searched = 0
                for k, (_, obs) in enumerate(replay(battle, "p1", engine)):
                    legal = np.flatnonzero(obs["action.mask"])
                    if len(legal) < 2:
                        continue
                    prior = [1 / len(legal)] * len(legal)
                    r = engine.search([(key, "p1")], [legal], [prior], [k], SearchConfig(visits=8).to_js())[0]
                    if r is None:  # nothing to search (team preview)
                        continue
                    self.assertNotIn("error", r, (k, r))
                    self.assertEqual(sum(r["visits"]), r["nodes"])
                    self.assertIsNotNone(engine.choice(key, "p1", int(legal[r["best"]])), k)
                    searched += 1
                self.assertGreater(searched, 5)


def first_decision(sim: Simulator, fmt: str = "gen9randombattle"):
    """A battle of `fmt` started on `sim` and p1's first decision: (key, legal actions)."""
    step = sim.start([{"id": "s-1", "format": fmt, "seed": "5,6,7,8"}])
    d = next(d for d in step.decisions if d.side == "p1")
    return (d.battle, d.side), np.flatnonzero(step.obs["action.mask"][d.row])


def settings(**fields) -> dict:
    """A search's settings as JS takes them: SearchConfig's defaults but for `fields`, and for
    halving, none unless asked (weight 0 plays the most visited)."""
    return SearchConfig(**{"halve": 0, "weight": 0, **fields}).to_js()


class BudgetTest(unittest.TestCase):
    def test_a_time_budget_is_kept(self):
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = [1 / len(legal)] * len(legal)
            sim.search([key], [legal], [prior], [1], settings(visits=1))  # the format's set data, made once
            for ms, root in [(20, {}), (100, {}), (100, {"halve": 4, "weight": 8})]:
                start = time.perf_counter()
                r = sim.search([key], [legal], [prior], [1], settings(visits=0, ms=ms, **root))[0]
                wall = (time.perf_counter() - start) * 1000
                # (no count of visits asked for: it depends on how loaded the machine is)
                self.assertGreaterEqual(r["nodes"], 0 if ms < 100 else 1, r)
                # one visit is a few milliseconds: the search stops at the first visit past the
                # budget (the margins allow for a loaded machine)
                self.assertLess(r["ms"], ms + 50, r)
                self.assertLess(wall, ms + 150)
                self.assertEqual(sum(r["visits"]), r["nodes"])
        finally:
            sim.close()

    def test_halving_visits_its_candidates_alike_and_keeps_the_better_half(self):
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            self.assertGreater(len(legal), 4)
            prior = np.linspace(2, 1, len(legal))
            prior = (prior / prior.sum()).tolist()
            r = sim.search([key], [legal], [prior], [1], settings(visits=64, halve=4, weight=8))[0]
            # two rounds of 32 visits: the 4 likeliest 8 each, then the better 2 of them 16 more
            self.assertEqual(sorted(v for v in r["visits"] if v), [8, 8, 24, 24], r)
            self.assertEqual([k for k, v in enumerate(r["visits"]) if v], [0, 1, 2, 3])
            self.assertEqual(r["visits"][r["best"]], 24)
            # the one played: the better of the two kept, by log p + 8 * value at the end
            kept = [k for k, v in enumerate(r["visits"]) if v == 24]
            self.assertEqual(r["best"], max(kept, key=lambda k: np.log(prior[k]) + 8 * r["values"][k]))
        finally:
            sim.close()

    def test_leaves_are_valued_after_the_turns_played_on(self):
        """Each visit that stops short of the battle's end plays `play_on` more turns of both
        sides' hardest hits before its position is valued: more turns simulated, other values."""
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = [1 / len(legal)] * len(legal)
            found = [sim.search([key], [legal], [prior], [1], settings(visits=16, halve=4, weight=8, play_on=p))[0]
                     for p in (0, 1, 2)]
            self.assertEqual([r["nodes"] for r in found], [16, 16, 16])
            # (no visit from a battle's first turn ends it: every one plays on)
            self.assertEqual([r["played_on"] for r in found], [0, 16, 32])
            self.assertTrue(all(r["steps"] >= 16 + r["played_on"] for r in found), found)
            self.assertNotEqual(found[0]["values"], found[1]["values"])
        finally:
            sim.close()

    def test_material_weighs_what_it_says(self):
        """js/checks/scorecheck.js: one change to a side of a simulated battle at a time, and how
        much material (js/src/evaluation.js) says it changed that side's score."""
        found = checks_context().checks("scoreChanges")
        expected = {"attackUp2": 0.08, "speedDown1": -0.04, "benchAttackUp2": 0, "halfHp": -0.5,
                    "paralysed": -0.12, "fainted": -1, "substitute": 0, "reflect": 0}
        self.assertEqual(set(found), set(expected))
        for change, delta in expected.items():
            with self.subTest(change=change):
                self.assertAlmostEqual(found[change], delta, delta=0.01)

    def test_a_search_needs_a_budget(self):
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = [[1 / len(legal)] * len(legal)]
            r = sim.search([key], [legal], prior, [1], {**settings(), "visits": 0, "ms": 0})[0]
            self.assertIn("budget", r["error"])
            # a setting missing is named (JS takes SearchConfig.to_js() as it is)
            partial = {k: v for k, v in settings().items() if k != "play_on"}
            self.assertIn("no play_on", sim.search([key], [legal], prior, [1], partial)[0]["error"])
        finally:
            sim.close()


class SearchPlayerTest(unittest.TestCase):
    def test_specs(self):
        """The three ways to name a setting, each field where its spec says, and the defaults
        where it says nothing."""
        p = make_player("search32x3:agent", seed=1)
        self.assertIsInstance(p, SearchPlayer)
        self.assertEqual((p.config.visits, p.config.ms, p.config.worlds), (32, 0, 3))
        self.assertEqual(make_player("search:agent").config, SearchConfig())
        p = make_player("search150ms:agent")
        self.assertEqual((p.config.visits, p.config.ms), (0, 150))
        compact = ("search64h0:agent", "search64h0q0:agent", "search8q2.5:agent", "search64h3q4:agent",
                   "search150msh2:agent")
        self.assertEqual([(p.config.halve, p.weight) for p in map(make_player, compact)],
                         [(0, 16.0), (0, 0.0), (4, 2.5), (3, 4.0), (2, 16.0)])
        played_on = ("search:agent", "search64p0:agent", "search8h2q4p3:agent")
        self.assertEqual([make_player(s).config.play_on for s in played_on], [1, 0, 3])
        scripted = ("search:agent", "search64s:agent", "search64x2h8q16p1s:agent")
        self.assertEqual([make_player(s).config.scripted for s in scripted], [(), SCRIPTED_PLAYERS, SCRIPTED_PLAYERS])
        named = make_player("search(visits=128, worlds=4, weight=8, scripted=heuristic):agent").config
        self.assertEqual(named, SearchConfig(visits=128, worlds=4, weight=8.0, scripted=("heuristic",)))
        self.assertEqual(make_player("search(ms=200):agent").config, SearchConfig(visits=0, ms=200))
        # the compact form each setting writes reads back as the same setting
        for config in (SearchConfig(), SearchConfig(ms=0, visits=32, worlds=3, halve=0, weight=2.5, play_on=0),
                       SearchConfig(visits=0, ms=150, scripted=SCRIPTED_PLAYERS), SearchConfig(scripted=("maxdamage",)),
                       SearchConfig(exploration=2.0)):
            with self.subTest(config=config):
                self.assertEqual(make_player(f"{config.compact()}:agent").config, config)
        for bad in ("search:", "search:nothing.zip", "search8sp1:agent", "search0:agent", "search8x0:agent",
                    "search8q:agent", "search8q1.2.3:agent", "search8h1:agent", "search8q0:agent", "search8h17:agent",
                    "search8p4:agent", "search8p:agent", "search(visits=8,ms=8):agent", "search(worlds=two):agent",
                    "search(depth=3):agent", "search(visits):agent", "search(scripted=nobody):agent"):
            with self.subTest(spec=bad), self.assertRaises(SpecError):
                make_player(bad)
        for bad in ("search8s2:agent", "search64p1x2:agent"):   # settings out of order
            with self.subTest(spec=bad), self.assertRaisesRegex(SpecError, r"search\[N\|Nms\]\[xW\]"):
                make_player(bad)

    def test_a_retired_setting_is_named_with_where_it_was_measured(self):
        """The settings measured and not kept are gone: a spec that names one (as results files
        from before recorded them) is refused, naming the setting and the table of what was
        tried."""
        for spec, what in [("search64x2v0.5:agent", "network's share"), ("search16l3:agent", "log-odds"),
                           ("search64fu:agent", "foe's prior"), ("search64x2fhh4q16p1:agent", "foe's prior"),
                           ("search64x2h4q16r0.5p1:agent", "worst reply"), ("search64c:agent", "paired"),
                           ("search64x2h4q16p1e:agent", "steady chance"), ("search64x2w0.15:agent", "worth")]:
            with self.subTest(spec=spec), self.assertRaisesRegex(SpecError, f"no longer has .*{what}.*What was tried"):
                make_player(spec)

    def test_every_spec_is_read_by_one_parser_with_one_error_type(self):
        """parse_spec reads every kind of spec into one typed value (make_player builds it,
        ship_model.py reads it); a bad part of any kind is a SpecError naming the spec."""
        self.assertIs(SearchConfigError, SpecError)
        kinds = {"heuristic": "builtin", "mcts(iterations=500)": "mcts", "native(iterations=500):agent": "native",
                 "search(visits=16):agent": "search", "search16x1:agent": "search", "lookahead2x3:agent": "lookahead",
                 "agent@0.5": "models", ",metapvp.tests.test_head2head.slow_random": "named"}
        for text, kind in kinds.items():
            with self.subTest(spec=text):
                p = parse_spec(text)
                self.assertEqual(p.kind, kind)
        self.assertEqual(parse_spec("search(visits=16):agent").config, SearchConfig(visits=16))
        self.assertEqual(parse_spec("lookahead2x3:agent").lookahead[:2], (2, 3))
        self.assertEqual(parse_spec("agent@0.5").temperature, 0.5)
        self.assertEqual(parse_spec("search16x1:agent").prefix, "search16x1")
        agent = parse_spec("agent")   # read from its metadata, not from a string made of it
        self.assertIn(agent.kind, ("native", "search"))
        self.assertEqual(agent.text, as_played("agent", "gen9randombattle"))
        self.assertEqual(played({"p1": "agent", "format": "gen9randombattle"}), f"{agent.prefix}:agent")
        for bad, part in [("search(visits=x):agent", "visits='x' is not a whole number"),
                          ("native(iterations=10):", "native needs a model after"),
                          ("lookahead9:agent", "1 to 3 turns ahead"), ("agent@hot", "'hot' after '@'")]:
            with self.subTest(spec=bad), self.assertRaisesRegex(SpecError, part):
                parse_spec(bad)

    def test_the_settings_are_validated_in_one_place(self):
        for fields in ({"visits": 0}, {"visits": 8, "ms": 8}, {"worlds": 0}, {"halve": 1}, {"halve": 4, "weight": 0},
                       {"play_on": 4}, {"exploration": 0}, {"scripted": ("nobody",)}):
            with self.subTest(fields=fields), self.assertRaises(SearchConfigError):
                SearchConfig(**fields)
        with self.assertRaisesRegex(SearchConfigError, r"model.zip: no search setting 'nodes'"):
            SearchConfig.from_dict({"nodes": 64}, "model.zip")

    def test_agents_setting_comes_from_its_model_file(self):
        """`agent`'s search in the simulator is the shipped model's metadata, as it was measured:
        64 visits halved over 4 in singles (where the native search is not built); over 8 with
        the scripted players' picks in doubles."""
        self.assertEqual(agent_search("gen9randombattle").compact(), "search64x2h4q16p1")
        self.assertEqual(agent_search("gen9randomdoublesbattle").compact(), "search64x2h8q16p1s")
        self.assertEqual(make_player("agent", fmt="gen9randomdoublesbattle").config,
                         SearchConfig(halve=8, scripted=SCRIPTED_PLAYERS))

    def test_the_action_played(self):
        v8 = checks_context()

        def best(visits, values, prior, weight):
            return v8.checks("bestAction", {"visits": visits, "values": values, "prior": prior, "weight": weight})
        # without a weight: the most visited, the policy breaking ties
        self.assertEqual(best([3, 9, 1], [0.5, 0.5, 0.5], [0.5, 0.2, 0.3], 0), 1)
        self.assertEqual(best([4, 4, 1], [0.5, 0.5, 0.5], [0.2, 0.5, 0.3], 0), 1)
        # by value: close values leave the policy's choice, a clearly better value overrides it
        p = [0.6, 0.3, 0.1]
        self.assertEqual(best([30, 20, 14], [0.52, 0.55, 0.5], p, 8), 0)
        self.assertEqual(best([30, 20, 14], [0.40, 0.70, 0.5], p, 8), 1)
        # an action never visited counts the visited ones' mean: it cannot win on value alone
        self.assertEqual(best([10, 10, 0], [0.5, 0.5, None], [0.2, 0.2, 0.6], 8), 2)
        self.assertEqual(best([10, 10, 0], [0.9, 0.5, None], [0.3, 0.3, 0.4], 8), 0)

    def test_halving_keeps_the_better_half(self):
        v8 = checks_context()
        prior = [0.4, 0.3, 0.15, 0.1, 0.05]
        # the fourth likeliest has by far the best value: it survives both rounds and is played;
        # the least likely is never visited (only the 4 likeliest are candidates)
        r = v8.checks("halving", {"prior": prior, "m": 4, "nodes": 64, "values": [0.5, 0.3, 0.4, 0.9, 1.0],
                                  "weight": 8})
        self.assertEqual(r, {"visits": [24, 8, 8, 24, 0], "best": 3})
        # values alike: the policy's order decides
        r = v8.checks("halving", {"prior": prior, "m": 4, "nodes": 64, "values": [0.5] * 5, "weight": 8})
        self.assertEqual(r, {"visits": [24, 24, 8, 8, 0], "best": 0})

    def test_scripted_choices_join_the_root_candidates_as_likely_as_the_favourite(self):
        p = np.array([0.5, 0.3, 0.0, 0.15, 0.05, 0.0])
        mask = np.array([1, 1, 0, 1, 1, 1], dtype=bool)
        # 5 is added and as likely as 0; 1 is a candidate already; 2 is not allowed: left out
        added = with_picks(np.array([0, 1, 3]), p, mask, [5, 1, 2])
        self.assertEqual(added.tolist(), [0, 1, 3, 5])
        self.assertEqual(p.tolist(), [0.5, 0.5, 0.0, 0.15, 0.05, 0.5])

    def test_a_scripted_player_that_fails_leaves_the_search_to_the_policys_candidates(self):
        player = SearchPlayer(make_player("search8:agent").policy, SearchConfig(visits=8), seed=1)
        # past the validator, as a broken caller would
        object.__setattr__(player.config, "scripted", ("no-such-player",))
        backend = make_backend("inprocess", player.contract)
        try:
            with self.assertLogs("metapvp.players.search", "WARNING") as logs:
                (result,) = play(player, make_player("random", seed=2), "gen9randombattle", range(1), seed=3,
                                 backend=backend)
        finally:
            backend.close()
        self.assertIsNone(result.error)
        self.assertIn("no scripted player 'no-such-player'", logs.output[0])
        self.assertGreater(player.searched, 5)

    def test_the_search_player_plays_on_every_backend(self):
        specs = ("search8:agent", "search(visits=8,halve=0,weight=0):agent")
        for name, spec in [(b, s) for b in BACKENDS for s in specs]:
            with self.subTest(backend=name, spec=spec):
                check_plays(self, name, spec, "random", "gen9randombattle")


class DoublesSearchTest(unittest.TestCase):
    """The search in doubles (js/src/games/doubles.js): joint candidates at the root, each
    side's positions' hardest hits below it, leaves by material."""

    def test_the_search_finds_the_knock_out_where_a_turn_shows_it(self):
        from metapvp.tests.test_doubles_lookahead import DoublesLookaheadTest, P, move
        sim = DoublesLookaheadTest.start(self)
        on_machamp, on_chansey, waiting = move(0, 1) * P + move(0), move(0, 2) * P + move(0), move(1) * P + move(0)
        # the policy prefers waiting: the searched values overrule it where a Pokemon is won
        prior = [0.2, 0.2, 0.6]
        (found,) = sim.search([("k", "p1")], [[on_machamp, on_chansey, waiting]], [prior], [5],
                              settings(visits=48, worlds=2, halve=3, weight=8, play_on=0))
        self.assertEqual(found["best"], 0, found)
        values = found["values"]
        # Psystrike on the level 5 Machamp wins a whole Pokemon at once; on Chansey it only hurts;
        # waiting wins only what the turns below it do
        self.assertGreater(values[0], values[1])
        self.assertGreater(values[1], values[2])
        self.assertEqual(sum(found["visits"]), 48)
        sim.abort()

    def test_the_search_player_plays_random_doubles_on_every_backend(self):
        specs = ("search16h8s:agent", "search(visits=8,halve=0,weight=0):agent")
        for name, spec in [(b, s) for b in BACKENDS for s in specs]:
            with self.subTest(backend=name, spec=spec):
                check_plays(self, name, spec, "maxdamage", "gen9randomdoublesbattle")


def check_plays(test, backend_name, spec, foe_spec, fmt):
    """Two battles of the search player `spec` against `foe_spec` on the backend: no error, no
    invalid choice, searches that ran and none that failed."""
    player, foe = make_player(spec, seed=1, fmt=fmt), make_player(foe_spec, seed=2, fmt=fmt)
    backend = make_backend(backend_name, player.contract)
    try:
        results = list(play(player, foe, fmt, range(2), seed=3, backend=backend))
    finally:
        backend.close()
    test.assertEqual([r.error for r in results], [None, None])
    test.assertEqual(sum(r.invalid for r in results), 0)
    test.assertGreater(player.searched, 5)
    test.assertEqual(player.failed, 0)
