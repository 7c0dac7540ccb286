"""The search at decision time (js/src/search.js, metapvp.players.search): the worlds it draws
agree with what the player has seen, it answers legal actions the simulator accepts in every
generation, a node budget with a seed is reproducible, a time budget holds, and the search
player plays on every backend."""
import time
import unittest

import numpy as np

from metapvp.arena import play
from metapvp.backends import BACKENDS, make_backend
from metapvp.engine import Engine, Simulator
from metapvp.engine.v8 import checks_context
from metapvp.players import make_player
from metapvp.players.search import SearchPlayer, with_picks
from metapvp.players.spec import SpecError
from metapvp.tests.golden import FORMATS as GOLDEN_FORMATS, golden_battle, replay

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
        deeper = {"nodes": 32, "halve": 4, "weight": 8}
        cls.results = {f: v8.checks("checkWorlds", {"format": f, "battles": 2, "seed": [3, 1, 4, 1],
                                                    **(deeper if f == "gen9randombattle" else {"nodes": 8})})
                       for f in FORMATS + DOUBLES_FORMATS}

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
                    r = engine.search([(key, "p1")], [legal], [[1 / len(legal)] * len(legal)], [k], {"nodes": 8})[0]
                    if r is None:  # nothing to search (team preview)
                        continue
                    self.assertNotIn("error", r, (k, r))
                    self.assertEqual(sum(r["visits"]), r["nodes"])
                    self.assertIsNotNone(engine.choice(key, "p1", int(legal[r["best"]])), k)
                    searched += 1
                self.assertGreater(searched, 5)


class LeafEncodingTest(unittest.TestCase):
    def test_a_leaf_encodes_as_the_players_own_view_of_the_same_position(self):
        """js/checks/worldcheck.js checkLeaves: the true battle copied, the turn played with the
        real choices and chances; each side's leaf view against its own view after the turn, in
        singles (four generations) and doubles (two)."""
        singles, doubles = checks_context(), checks_context("doubles-v2")
        for v8, f in [(singles, "gen9randombattle"), (singles, "gen7randombattle"), (singles, "gen4randombattle"),
                      (singles, "gen1randombattle"), (doubles, "gen9randomdoublesbattle"),
                      (doubles, "gen8randomdoublesbattle")]:
            with self.subTest(format=f):
                r = v8.checks("checkLeaves", {"format": f, "battles": 2, "seed": [2, 7, 1, 8]})
                self.assertGreater(r["compared"], 40)
                self.assertEqual(r["differ"], 0, r["examples"])


class FoeViewTest(unittest.TestCase):
    def test_the_foes_view_at_a_worlds_root_encodes_as_its_own_view(self):
        """js/checks/worldcheck.js checkFoeViews: the view the search builds from the foe's seat
        (its prior, `foe: network`) of a world that is the true battle, against the foe's own
        view, in four generations of singles. Besides what differs by design (our HP exact, the
        PP of the foe's benched Pokemon's moves), a record may differ only where the foe's
        client lost a Terastallization it saw in the lines (2 records in 52 in gen 9). The
        scripted players asked from that view (the foe's prior 'heuristic', 'maxdamage') choose as
        they do from the foe's own, but for 1 decision in 20 (our HP is exact in the one, a
        rounded share in the other)."""
        v8 = checks_context()
        for f in ["gen9randombattle", "gen7randombattle", "gen4randombattle", "gen1randombattle"]:
            with self.subTest(format=f):
                r = v8.checks("checkFoeViews", {"format": f, "battles": 2, "seed": [2, 7, 1, 8]})
                self.assertGreater(r["compared"], 30)
                self.assertLessEqual(r["differ"], r["compared"] // 20, r["examples"])
                for name in ("action.mask", "battle.request", "pokemon.species", "pokemon.moves", "pokemon.stats"):
                    self.assertNotIn(name, r["features"], r["features"])
                for name, differ in r["scripted"].items():
                    self.assertLessEqual(differ, r["compared"] // 20, (name, r))


def first_decision(sim: Simulator, fmt: str = "gen9randombattle"):
    """A battle of `fmt` started on `sim` and p1's first decision: (key, legal actions)."""
    step = sim.start([{"id": "s-1", "format": fmt, "seed": "5,6,7,8"}])
    d = next(d for d in step.decisions if d.side == "p1")
    return (d.battle, d.side), np.flatnonzero(step.obs["action.mask"][d.row])


def first_searches(settings) -> list[dict]:
    """The same seeded search of p1's first decision (first_decision), 32 visits halved over 4,
    once under each of `settings` (options added to those)."""
    sim = Simulator("singles-v2")
    try:
        key, legal = first_decision(sim)
        prior = [1 / len(legal)] * len(legal)
        return [sim.search([key], [legal], [prior], [5], {"nodes": 32, "halve": 4, "weight": 16, **o})[0]
                for o in settings]
    finally:
        sim.close()


def check_scripted_foe(test, sim, key, legal):
    """The same search of `key`'s decision with the foe's prior by damage, then leaning on each
    scripted player's choice: that choice is among the foe's root options in every world and
    draws at least half of the foe's visits there, more than by damage (where it may not be an option)."""
    prior = [1 / len(legal)] * len(legal)
    damage, *scripted = (sim.search([key], [legal], [prior], [5], {"nodes": 32, "halve": 4, "weight": 16, "foe": f})[0]
                         for f in ("damage", "heuristic", "maxdamage"))
    test.assertEqual(damage["foe_picks"], [None, None])
    for r in scripted:
        for world, pick in enumerate(r["foe_picks"]):
            visits = r["foe_visits"][world]
            test.assertIn(pick, visits, r)
            test.assertGreaterEqual(visits[pick], sum(visits.values()) / 2, r)
            test.assertGreater(visits[pick], damage["foe_visits"][world].get(pick, 0), (r, damage))


class BudgetTest(unittest.TestCase):
    def test_a_time_budget_is_kept(self):
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = [1 / len(legal)] * len(legal)
            sim.search([key], [legal], [prior], [1], {"nodes": 1})  # the format's set data, made once
            for ms, root in [(20, {}), (100, {}), (100, {"halve": 4, "weight": 8})]:
                start = time.perf_counter()
                r = sim.search([key], [legal], [prior], [1], {"nodes": 0, "ms": ms, **root})[0]
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
            r = sim.search([key], [legal], [prior], [1], {"nodes": 64, "halve": 4, "weight": 8})[0]
            # two rounds of 32 visits: the 4 likeliest 8 each, then the better 2 of them 16 more
            self.assertEqual(sorted(v for v in r["visits"] if v), [8, 8, 24, 24], r)
            self.assertEqual([k for k, v in enumerate(r["visits"]) if v], [0, 1, 2, 3])
            self.assertEqual(r["visits"][r["best"]], 24)
            # the one played: the better of the two kept, by log p + 8 * value at the end
            kept = [k for k, v in enumerate(r["visits"]) if v == 24]
            self.assertEqual(r["best"], max(kept, key=lambda k: np.log(prior[k]) + 8 * r["values"][k]))
        finally:
            sim.close()

    def test_paired_halving_visits_every_candidate_in_every_world_alike(self):
        """With `paired` each cycle of halving visits every candidate in one world, so each one's
        visits split evenly over the two worlds; without it the world goes by the visit's number,
        and with four candidates each is visited in one world only."""
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = np.linspace(2, 1, len(legal))
            prior = (prior / prior.sum()).tolist()
            options = {"nodes": 64, "worlds": 2, "halve": 4, "weight": 8}
            apart, paired = (sim.search([key], [legal], [prior], [1], {**options, "paired": p})[0] for p in (False, True))
            for r in (apart, paired):
                self.assertEqual(sorted(v for v in r["visits"] if v), [8, 8, 24, 24], r)
                self.assertEqual([sum(col) for col in zip(*r["world_visits"])], r["visits"])
            self.assertEqual(paired["world_visits"][0], paired["world_visits"][1], paired)
            self.assertTrue(all(min(col) == 0 for col in zip(*apart["world_visits"])), apart)
            again = sim.search([key], [legal], [prior], [1], {**options, "paired": True})[0]
            self.assertEqual((again["best"], again["values"]), (paired["best"], paired["values"]))
        finally:
            sim.close()

    def test_leaves_are_valued_after_the_turns_played_on(self):
        """Each visit that stops short of the battle's end plays `playOn` more turns of both
        sides' hardest hits before its position is valued: more turns simulated, other values."""
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = [1 / len(legal)] * len(legal)
            found = [sim.search([key], [legal], [prior], [1], {"nodes": 16, "halve": 4, "weight": 8, "playOn": p})[0]
                     for p in (0, 1, 2)]
            self.assertEqual([r["nodes"] for r in found], [16, 16, 16])
            # (no visit from a battle's first turn ends it: every one plays on)
            self.assertEqual([r["played_on"] for r in found], [0, 16, 32])
            self.assertTrue(all(r["steps"] >= 16 + r["played_on"] for r in found), found)
            self.assertNotEqual(found[0]["values"], found[1]["values"])
        finally:
            sim.close()

    def test_steady_chance_is_the_mean_roll_and_never_critical(self):
        """js/checks/steadycheck.js: a move that is critical one time in two, one turn from 32 seeds.
        Drawn, the damage varies and some hits are critical; steady (the search's `steady`), every
        seed deals the same damage, inside the drawn non-critical range, and none is critical."""
        v8 = checks_context()
        drawn = v8.checks("steadyHits", {"seeds": 32, "steady": False})
        steady = v8.checks("steadyHits", {"seeds": 32, "steady": True})
        self.assertGreater(drawn["crits"], 0, drawn)
        self.assertGreater(len(set(drawn["damage"])), 2, drawn)
        self.assertEqual(steady["crits"], 0, steady)
        self.assertEqual(len(set(steady["damage"])), 1, steady)
        lowest, hit = min(drawn["damage"]), steady["damage"][0]
        self.assertTrue(lowest < hit < 1.5 * lowest, (lowest, hit))

    def test_a_steady_search_differs_from_a_drawn_one(self):
        """The option reaches the simulator inside the search: the same seeded search, steady or
        not, values its candidates differently."""
        drawn, steady, again = first_searches({"steady": s} for s in (False, True, True))
        self.assertNotEqual(drawn["values"], steady["values"])
        self.assertEqual(steady["values"], again["values"])

    def test_the_scorings_weigh_what_they_say(self):
        """js/checks/scorecheck.js: one change to a side of a simulated battle at a time, and how
        much each scoring (js/src/evaluation.js) says it changed that side's score."""
        found = checks_context().checks("scoreChanges")
        expected = {
            "material": {"attackUp2": 0.08, "speedDown1": -0.04, "benchAttackUp2": 0, "halfHp": -0.5,
                         "paralysed": -0.12, "fainted": -1, "substitute": 0, "reflect": 0},
            "worth": {"attackUp2": 0.6, "speedDown1": -0.3, "benchAttackUp2": 0, "halfHp": -0.5,
                      "paralysed": -0.25, "fainted": -1.3, "substitute": 0.4, "reflect": 0.2},
        }
        self.assertEqual(set(found), set(expected))
        for name, changes in expected.items():
            for change, delta in changes.items():
                with self.subTest(scoring=name, change=change):
                    self.assertAlmostEqual(found[name][change], delta, delta=0.01)

    def test_a_boost_weighs_the_stages_alone(self):
        """scoring(name, boost): the stages of each scoring at the weight given, the rest as it was."""
        found = checks_context().checks("scoreChanges", 0.15)
        for name in ("material", "worth"):
            with self.subTest(scoring=name):
                self.assertAlmostEqual(found[name]["attackUp2"], 0.3, delta=0.001)
                self.assertAlmostEqual(found[name]["speedDown1"], -0.15, delta=0.001)
        self.assertAlmostEqual(found["worth"]["halfHp"], -0.5, delta=0.01)
        self.assertAlmostEqual(found["worth"]["fainted"], -1.3, delta=0.01)

    def test_a_search_scored_by_worth_differs_from_one_by_material(self):
        """The scoring reaches the search's leaves: the same seeded search values its candidates
        otherwise by worth, the same again by worth; an unknown scoring is refused by name."""
        material, worth, again, bad = first_searches({"score": s} for s in ("material", "worth", "worth", "luck"))
        self.assertNotEqual(material["values"], worth["values"])
        self.assertEqual(worth["values"], again["values"])
        self.assertIn("no scoring 'luck'", bad["error"])
        half, bad_boost = first_searches({"score": "worth", "boost": b} for b in (0.15, -1))
        self.assertNotIn("error", half)
        self.assertNotEqual(half["values"], worth["values"])
        self.assertIn("boost is a weight a stage", bad_boost["error"])

    def test_odds_add_the_networks_change_since_the_root_to_material(self):
        """With `odds` a leaf is valued by material's log-odds plus `odds` times the change in the
        network's win log-odds from the root (valued first): where the estimate never changes,
        the values are material's; where every leaf looks better to it than the root, they rise."""
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            check_odds(self, sim, key, legal)
        finally:
            sim.close()

    def test_the_foes_prior_at_the_root_from_the_network(self):
        """With `foe` 'network' the network is asked first for the foe's view at each world's root
        (one row a world), and its policy is the foe's prior there: a stand-in network sure that
        the foe switches to the last Pokemon it may bring in draws most of the foe's visits at the
        root to that switch, where by damage they go to its attacks; a prior by another name is
        refused."""
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = [1 / len(legal)] * len(legal)
            calls = []

            def sure_switch(obs):  # everything on the highest action the row's mask allows
                mask = obs["action.mask"].astype(bool)
                calls.append(len(mask))
                probs = np.zeros(mask.shape)
                probs[np.arange(len(mask)), [np.flatnonzero(m).max() for m in mask]] = 1.0
                return probs, np.full(len(mask), 0.5)

            def search(foe, evaluate=None):
                return sim.search([key], [legal], [prior], [5], {"nodes": 32, "halve": 4, "weight": 16, "foe": foe},
                                  evaluate)[0]
            damage, network = search("damage"), search("network", sure_switch)
            self.assertEqual(calls, [2])  # the foe's view in each of the 2 worlds, once
            for r in (damage, network):
                self.assertEqual(r["nodes"], 32)
                self.assertEqual(len(r["foe_visits"]), 2)
            top = lambda visits: max(visits, key=visits.get)  # noqa: E731
            for visits in network["foe_visits"]:
                self.assertTrue(top(visits).startswith("switch"), visits)
                self.assertGreater(visits[top(visits)], sum(visits.values()) / 2, visits)
            for visits in damage["foe_visits"]:
                self.assertTrue(top(visits).startswith("move"), visits)
            self.assertIn("foe's prior", search("scripted")["error"])
            with self.assertRaises(ValueError):  # the network is needed to ask it
                search("network")
        finally:
            sim.close()

    def test_the_foes_prior_at_the_root_leaning_on_a_scripted_player(self):
        """With `foe` 'heuristic' or 'maxdamage' the foe's prior at each world's root is half on
        that player's choice from the foe's seat (checkFoeViews holds that choice to the foe's
        own): the choice is one of the foe's options in every world and draws at least half of its
        visits there, more than the prior by damage gives it."""
        sim = Simulator("singles-v2")
        try:
            check_scripted_foe(self, sim, *first_decision(sim))
        finally:
            sim.close()

    def test_worst_moves_a_root_value_towards_its_worst_reply(self):
        """With `worst` a root candidate's value is its mean moved that share of the way to its
        mean after the foe's reply that hurt it most: the same search (PUCT at the root, so the
        visits do not depend on the values) gives values at 0.5 halfway between those at 0 (the
        means) and at 1, none above the mean, some below it; a share above 1 is refused."""
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            prior = [1 / len(legal)] * len(legal)
            runs = [sim.search([key], [legal], [prior], [5], {"nodes": 64, "halve": 0, "weight": 16, "worst": w})[0]
                    for w in (0.0, 0.5, 1.0)]
            self.assertEqual(runs[0]["visits"], runs[1]["visits"])
            self.assertEqual(runs[0]["visits"], runs[2]["visits"])
            mean, half, worst = (r["values"] for r in runs)
            for m, h, w in zip(mean, half, worst):
                if m is None:
                    self.assertIsNone(w)
                    continue
                self.assertLessEqual(w, m + 1e-9)
                self.assertAlmostEqual(h, (m + w) / 2, places=9)
            self.assertTrue(any(m is not None and w < m - 0.01 for m, w in zip(mean, worst)), (mean, worst))
            r = sim.search([key], [legal], [prior], [5], {"nodes": 8, "worst": 1.5})[0]
            self.assertIn("worst", r["error"])
        finally:
            sim.close()

    def test_a_search_needs_a_budget(self):
        sim = Simulator("singles-v2")
        try:
            key, legal = first_decision(sim)
            r = sim.search([key], [legal], [[1 / len(legal)] * len(legal)], [1], {"nodes": 0, "ms": 0})[0]
            self.assertIn("budget", r["error"])
        finally:
            sim.close()


class SearchPlayerTest(unittest.TestCase):
    def test_specs(self):
        p = make_player("search32x3:agent", seed=1)
        self.assertIsInstance(p, SearchPlayer)
        self.assertEqual((p.options["nodes"], p.options["ms"], p.options["worlds"]), (32, 0, 3))
        p = make_player("search150ms:agent")
        self.assertEqual((p.options["nodes"], p.options["ms"]), (0, 150))
        self.assertEqual(make_player("search16x2v0.25:agent").options["net"], 0.25)
        self.assertEqual([(make_player(s).options["net"], make_player(s).options["odds"]) for s in
                          ("search:agent", "search16l3:agent", "search64x2l0.5h4q16p1:agent")],
                         [(0.0, 0.0), (0.0, 3.0), (0.0, 0.5)])
        self.assertEqual([make_player(s).options["foe"] for s in ("search:agent", "search64fu:agent", "search8v1fd:agent", "search64fnh4:agent",
                                                                 "search64fhh4:agent", "search64fm:agent")],
                         ["damage", "uniform", "damage", "network", "heuristic", "maxdamage"])
        self.assertEqual([make_player(s).options["worst"] for s in ("search:agent", "search64x2h4q16r0.5p1:agent")],
                         [0.0, 0.5])
        with self.assertRaises(SpecError):
            make_player("search64r2:agent")
        specs = ("search:agent", "search64h0:agent", "search64h0q0:agent", "search8fuq2.5:agent", "search64h3q4:agent",
                 "search150msh2:agent")
        self.assertEqual([(p.options["halve"], p.weight) for p in map(make_player, specs)],
                         [(4, 16.0), (0, 16.0), (0, 0.0), (4, 2.5), (3, 4.0), (2, 16.0)])
        self.assertEqual([make_player(s).options["playOn"] for s in ("search:agent", "search64p0:agent", "search8h2q4p3:agent")],
                         [1, 0, 3])
        self.assertEqual([make_player(s).scripted for s in ("search:agent", "search64s:agent", "search64x2h8q16p1s:agent")],
                         [(), ("heuristic", "maxdamage"), ("heuristic", "maxdamage")])
        self.assertEqual([(make_player(s).options["paired"], make_player(s).scripted) for s in
                          ("search:agent", "search64c:agent", "search64x2h8q16p1cs:agent")],
                         [(False, ()), (True, ()), (True, ("heuristic", "maxdamage"))])
        self.assertEqual([(make_player(s).options["steady"], make_player(s).options["paired"]) for s in
                          ("search:agent", "search64e:agent", "search64x2h8q16p1ces:agent")],
                         [(False, False), (True, False), (True, True)])
        self.assertEqual([(make_player(s).options["score"], make_player(s).scripted) for s in
                          ("search:agent", "search64w:agent", "search64x2h8q16p1ews:agent")],
                         [("material", ()), ("worth", ()), ("worth", ("heuristic", "maxdamage"))])
        self.assertEqual([(make_player(s).options["score"], make_player(s).options["boost"]) for s in
                          ("search64w:agent", "search64w0.15:agent", "search64x2h4q16p1w0s:agent")],
                         [("worth", None), ("worth", 0.15), ("worth", 0.0)])
        for bad in ("search:", "search:nothing.zip", "search8sp1:agent", "search0:agent", "search8x0:agent", "search8v2:agent",
                    "search8v0..1:agent", "search8fx:agent", "search8q:agent", "search8q1.2.3:agent", "search8h1:agent",
                    "search8q0:agent", "search8h17:agent", "search8p4:agent", "search8p:agent",
                    "search8w0..1:agent", "search8w11:agent", "search8sw:agent", "search8v0.5l3:agent",
                    "search8l101:agent", "search8l:agent"):
            with self.subTest(spec=bad), self.assertRaises(SpecError):
                make_player(bad)
        for bad in ("search8fx:agent", "search64v0.5x2:agent", "search64sc:agent", "search64ec:agent", "search64sw:agent"):   # the second: settings out of order
            with self.subTest(spec=bad), self.assertRaisesRegex(SpecError, r"a search is search\[N\|Nms\]"):
                make_player(bad)

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
        r = v8.checks("halving", {"prior": prior, "m": 4, "nodes": 64, "values": [0.5, 0.3, 0.4, 0.9, 1.0], "weight": 8})
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
        player = SearchPlayer(make_player("search8:agent").policy, nodes=8, scripted=("no-such-player",), seed=1)
        backend = make_backend("inprocess", player.contract)
        try:
            with self.assertLogs("metapvp.players.search", "WARNING") as logs:
                (result,) = play(player, make_player("random", seed=2), "gen9randombattle", range(1), seed=3, backend=backend)
        finally:
            backend.close()
        self.assertIsNone(result.error)
        self.assertIn("no scripted policy 'no-such-player'", logs.output[0])
        self.assertGreater(player.searched, 5)

    def test_the_search_player_plays_on_every_backend(self):
        for name, spec in [(b, s) for b in BACKENDS for s in ("search8:agent", "search8v0.5:agent")]:
            with self.subTest(backend=name, spec=spec):
                check_plays(self, name, spec, "random", "gen9randombattle")


class DoublesSearchTest(unittest.TestCase):
    """The search in doubles (js/src/doublessearch.js): joint candidates at the root, each
    side's positions' hardest hits below it, leaves by material or with the network."""

    def test_the_search_finds_the_knock_out_where_a_turn_shows_it(self):
        from metapvp.tests.test_doubles_lookahead import DoublesLookaheadTest, P, move
        sim = DoublesLookaheadTest.start(self)
        on_machamp, on_chansey, waiting = move(0, 1) * P + move(0), move(0, 2) * P + move(0), move(1) * P + move(0)
        # the policy prefers waiting: the searched values overrule it where a Pokemon is won
        prior = [0.2, 0.2, 0.6]
        (found,) = sim.search([("k", "p1")], [[on_machamp, on_chansey, waiting]], [prior], [5],
                              {"nodes": 48, "worlds": 2, "halve": 3, "weight": 8, "playOn": 0})
        self.assertEqual(found["best"], 0, found)
        values = found["values"]
        # Psystrike on the level 5 Machamp wins a whole Pokemon at once; on Chansey it only hurts;
        # waiting wins only what the turns below it do
        self.assertGreater(values[0], values[1])
        self.assertGreater(values[1], values[2])
        self.assertEqual(sum(found["visits"]), 48)
        sim.abort()

    def test_the_foes_prior_at_the_root_leaning_on_a_scripted_player_in_doubles(self):
        """As in singles (BudgetTest): the scripted player's joint choice joins the foe's
        hardest-hit pairs at the root where it is not one of them."""
        sim = Simulator("doubles-v2")
        try:
            key, legal = first_decision(sim, "gen9randomdoublesbattle")
            check_scripted_foe(self, sim, key, legal[:8])
        finally:
            sim.close()

    def test_odds_add_the_networks_change_since_the_root_to_material_in_doubles(self):
        """As in singles (BudgetTest), at the first decision of a random doubles battle, four of
        its joint actions searched."""
        sim = Simulator("doubles-v2")
        try:
            key, legal = first_decision(sim, "gen9randomdoublesbattle")
            check_odds(self, sim, key, legal[::len(legal) // 4][:4])
        finally:
            sim.close()

    def test_the_search_player_plays_random_doubles_on_every_backend(self):
        for name, spec in [(b, s) for b in BACKENDS for s in ("search16h8s:agent", "search8l1.4h8s:agent")]:
            with self.subTest(backend=name, spec=spec):
                check_plays(self, name, spec, "maxdamage", "gen9randomdoublesbattle")


def check_odds(test, sim, key, legal):
    """The same seeded search of `key`'s decision (32 visits halved over 4) by material, and
    with `odds` 3 under a stand-in network whose win estimate is the same everywhere (values
    equal to material's) or higher at every leaf than at the root (values above material's);
    odds and a share together are refused by name."""
    prior = [1 / len(legal)] * len(legal)
    calls = []

    def network(root, leaves):
        def evaluate(obs):
            n = len(obs["action.mask"])
            win = np.full(n, leaves)
            if not calls:
                win[0] = root
            calls.append(n)
            return np.zeros(obs["action.mask"].shape), win
        return evaluate

    def search(options, evaluate=None):
        calls.clear()
        return sim.search([key], [legal], [prior], [5], {"nodes": 32, "halve": 4, "weight": 16, "batch": 1, **options},
                          evaluate)[0]
    material = search({})
    level = search({"odds": 3}, network(0.3, 0.3))
    test.assertEqual(calls[0], 1)             # the root alone first
    test.assertEqual(sum(calls), 1 + 32)  # then each leaf (none of them ends the battle)
    rising = search({"odds": 3}, network(0.5, 0.8))
    for r in (level, rising):
        test.assertEqual(r["nodes"], 32)
        test.assertEqual(sum(r["visits"]), 32)
    test.assertEqual(level["visits"], material["visits"])
    for a, b in zip(level["values"], material["values"]):
        if b is None:
            test.assertIsNone(a)
        else:
            test.assertAlmostEqual(a, b, places=6)
    mean = lambda r: sum(n * v for n, v in zip(r["visits"], r["values"]) if n) / sum(r["visits"])  # noqa: E731
    test.assertGreater(mean(rising), mean(material) + 0.1)
    both = search({"odds": 3, "net": 0.5}, network(0.5, 0.5))
    test.assertIn("not both", both["error"])


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
