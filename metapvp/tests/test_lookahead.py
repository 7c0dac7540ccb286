"""One-turn lookahead (js/src/lookahead.js) and the player that weighs it against a policy
(metapvp/players/lookahead.py)."""
import math
import unittest

import numpy as np

from metapvp.arena import play
from metapvp.engine import Simulator
from metapvp.engine.v8 import checks_context
from metapvp.players import Decisions, SpecError, make_player
from metapvp.players.lookahead import LookaheadPlayer

G = 6  # gimmicks per action slot (js/src/actions.js)

OURS = """Mewtwo
Ability: Pressure
- Psystrike
- Splash

Snorlax
Ability: Thick Fat
- Splash
"""
THEIRS = """Machamp
Level: 5
Ability: Guts
- Splash

Chansey
Ability: Natural Cure
- Splash
"""


def first_legal(step):
    return [(d.battle, d.side, int(np.flatnonzero(step.obs["action.mask"][d.row])[0])) for d in step.decisions]


def look_ahead_to_the_end(test, sim, step, candidates, forced_switch, play_on=0):
    """Plays the battles of `step` to the end (first legal actions), looking ahead at p1's first
    `candidates` legal actions at every decision; -> (decisions looked at, candidates valued,
    forced switches (`forced_switch(mask)`) with a value). A failed lookahead fails `test`."""
    looked = valued = forced = 0
    while step.decisions:
        p1 = [d for d in step.decisions if d.side == "p1"]
        legal = [np.flatnonzero(step.obs["action.mask"][d.row])[:candidates].tolist() for d in p1]
        found = sim.lookahead([(d.battle, d.side) for d in p1], legal, play_on=play_on)
        for d, f in zip(p1, found):
            test.assertNotIsInstance(f, dict, f"{d.battle} turn {d.turn}: {f}")
            if f is None:
                continue
            looked += 1
            valued += sum(v[0] is not None and math.isfinite(v[0]) for v in f)
            if forced_switch(step.obs["action.mask"][d.row]):
                forced += any(v[0] is not None for v in f)
        step = sim.step(first_legal(step))
    return looked, valued, forced


class LookaheadTest(unittest.TestCase):
    def test_a_knockout_is_worth_a_pokemon_and_a_wasted_turn_nothing(self):
        sim = Simulator("singles-v2")
        step = sim.start([{"id": "k", "format": "gen9customgame", "seed": "1,2,3,4", "p1team": OURS, "p2team": THEIRS}])
        step = sim.step(first_legal(step))  # team preview: leads in team order
        # turn 1: both use Splash, so the foe's one move is known
        step = sim.step([(d.battle, d.side, 1 * G if d.side == "p1" else 0) for d in step.decisions])
        psystrike, splash, snorlax = 0, 1 * G, 5 * G
        (found,) = sim.lookahead([("k", "p1")], [[psystrike, splash, snorlax]], play_on=0)
        self.assertEqual(len(found), 3)
        # Splash against Splash changes nothing: we keep our two Pokemon at full HP, the foe its
        # one revealed (Chansey is not seen yet, so not counted)
        self.assertEqual(found[1], [1, 1])
        self.assertEqual(found[2], [1, 1])  # nor does a switch into Splash
        # Psystrike knocks out a level 5 Machamp: the foe loses a whole Pokemon
        self.assertAlmostEqual(found[0][0], 2.0, places=6)
        self.assertAlmostEqual(found[0][1], 2.0, places=6)
        # Played on a turn with hardest hits, waiting costs nothing (Mewtwo's Psystrike comes
        # next turn), but Snorlax has nothing to hit with
        (found,) = sim.lookahead([("k", "p1")], [[psystrike, splash, snorlax]], play_on=1)
        self.assertAlmostEqual(found[0][0], 2.0, places=6)
        self.assertAlmostEqual(found[1][0], 2.0, places=6)
        self.assertEqual(found[2], [1, 1])
        # an action its request does not have is refused, not an error
        (found,) = sim.lookahead([("k", "p1")], [[3 * G]])
        self.assertEqual(found, [[None, None]])
        sim.abort()

    def test_fake_out_works_on_a_pokemons_first_turn_out_only(self):
        # Fake Out knocks out the level 5 Machamp where it works; it fails for one that has
        # already moved since it came in, and the rebuilt battle must know which is which
        ours = "Mewtwo\nAbility: Pressure\n- Fake Out\n- Splash\n\nSnorlax\nAbility: Thick Fat\n- Splash\n- Fake Out\n"
        sim = Simulator("singles-v2")
        step = sim.start([{"id": "f", "format": "gen9customgame", "seed": "1,2,3,4", "p1team": ours, "p2team": THEIRS}])
        step = sim.step(first_legal(step))  # team preview: leads in team order
        # turn 1: both use Splash, so the foe's one move is known, and Mewtwo has moved
        step = sim.step([(d.battle, d.side, 1 * G if d.side == "p1" else 0) for d in step.decisions])
        fake_out, splash, snorlax = 0, 1 * G, 5 * G
        (found,) = sim.lookahead([("f", "p1")], [[fake_out, splash]], play_on=0)
        self.assertEqual(found, [[1, 1], [1, 1]])   # Mewtwo's Fake Out fails: nothing changes
        # turn 2: Snorlax comes in; its first turn out, its Fake Out works
        step = sim.step([(d.battle, d.side, snorlax if d.side == "p1" else 0) for d in step.decisions])
        (found,) = sim.lookahead([("f", "p1")], [[1 * G, 0]], play_on=0)
        self.assertAlmostEqual(found[0][0], 2.0, places=6)
        self.assertEqual(found[1], [1, 1])
        sim.abort()

    def test_an_outcome_is_averaged_over_the_draws_of_chance(self):
        # Zap Cannon hits half the time: one draw sees a knockout or a miss, many see both
        ours = OURS.replace("- Psystrike", "- Zap Cannon")
        sim = Simulator("singles-v2")
        step = sim.start([{"id": "z", "format": "gen9customgame", "seed": "1,2,3,4", "p1team": ours, "p2team": THEIRS}])
        step = sim.step(first_legal(step))
        step = sim.step([(d.battle, d.side, 1 * G if d.side == "p1" else 0) for d in step.decisions])
        (one,) = sim.lookahead([("z", "p1")], [[0]], samples=1)
        self.assertIn(round(one[0][0], 6), (1.0, 2.0))  # a miss leaves Machamp, a hit knocks it out
        (many,) = sim.lookahead([("z", "p1")], [[0]], samples=40)
        self.assertGreater(many[0][0], 1.25)
        self.assertLess(many[0][0], 1.75)
        self.assertEqual(sim.lookahead([("z", "p1")], [[0]], samples=40), [many])  # the same draws each time
        sim.abort()

    def test_random_battles_of_every_generation_look_ahead_without_errors(self):
        sim = Simulator("singles-v2")
        looked = valued = forced = 0
        for gen in range(1, 10):
            fmt = f"gen{gen}randombattle"
            step = sim.start([{"id": f"{fmt}-{i}", "format": fmt, "seed": f"{gen},{i},5,6"} for i in range(2)])
            counts = look_ahead_to_the_end(self, sim, step, 3, lambda mask: not mask[:4 * G].any())
            looked, valued, forced = (a + b for a, b in zip((looked, valued, forced), counts))
        self.assertGreater(looked, 100)
        self.assertGreater(valued, 2 * looked)
        self.assertGreater(forced, 10)  # the Pokemon sent in after a faint is looked ahead with too

    def test_a_failed_lookahead_is_reported_per_battle(self):
        sim = Simulator("singles-v2")
        sim.start([{"id": "x", "format": "gen9randombattle", "seed": "1,2,3,4"}])
        found = sim.lookahead([("nope", "p1"), ("x", "p1")], [[0], [0]])
        self.assertIn("nope", found[0]["error"])
        self.assertNotIsInstance(found[1], dict)
        sim.abort()


class LookaheadAnswersTest(unittest.TestCase):
    def test_the_foes_moves_are_weighed_by_how_likely_it_has_them(self):
        """In singles the lookahead plays each candidate against every move the foe's active
        Pokemon may have, each outcome weighed by how likely it has that move (the rebuilt
        battle's weights, from the format's sets): at the first decision of several battles."""
        v8 = checks_context()
        unequal = 0
        for seed in ("1,2,3,4", "5,6,7,8", "9,10,11,12", "13,14,15,16"):
            with self.subTest(seed=seed):
                r = v8.checks("lookaheadAnswers", {"format": "gen9randombattle", "seed": seed})
                self.assertEqual([a for a, _ in r["answers"]], [f"move {m + 1}" for m in range(len(r["weights"]))])
                self.assertEqual([w for _, w in r["answers"]], r["weights"])
                unequal += len(set(r["weights"])) > 1
        self.assertGreater(unequal, 0)   # so that weighing them alike would show


class StubPolicy:
    """A policy whose probabilities are given: the rule is tested without a network."""
    name, contract, generator = "stub", None, None

    def __init__(self, probs):
        self.probs = np.asarray(probs, dtype=np.float64)

    def evaluate(self, obs):
        return self.probs, np.zeros(len(self.probs))


class StubState:
    """Lookahead values given per decision: [mean, worst] per candidate, None, or an error."""

    def __init__(self, values):
        self.values, self.asked = values, []

    def lookahead(self, keys, candidates, play_on=0, samples=1):
        self.asked.append(candidates)
        return [self.values[k] for k in keys]


def decide(probs, values, **settings):
    """The lookahead player's choice at one decision with 3 legal actions (0, 1, 2)."""
    player = LookaheadPlayer(StubPolicy([probs + [0.0] * 3]), **settings)
    state = StubState({("b", "p1"): values})
    mask = np.array([[1, 1, 1, 0, 0, 0]], dtype=np.uint8)
    return int(player.act(Decisions([("b", "p1")], {"action.mask": mask}, state))[0]), player, state


class LookaheadRuleTest(unittest.TestCase):
    """The rule on known numbers: log p(action) + weight * ((1 - caution) * mean + caution * worst)."""

    def test_a_clearly_better_outcome_overrules_the_policy(self):
        # log .6 + 4 * 1.0 = 3.49 < log .3 + 4 * 1.5 = 4.80: the second candidate
        chosen, player, state = decide([0.6, 0.3, 0.1], [[1.0, 1.0], [1.5, 1.5], [0.0, 0.0]])
        self.assertEqual(chosen, 1)
        self.assertEqual(state.asked, [[[0, 1, 2]]])   # the three likeliest, most probable first
        self.assertEqual((player.looked, player.overruled, player.failed), (1, 1, 0))

    def test_the_policy_decides_between_close_outcomes(self):
        # log .9 + 4 * 1.0 = 3.90 > log .1 + 4 * 1.1 = 2.10: the policy's choice stands
        chosen, player, _ = decide([0.9, 0.1, 0.0], [[1.0, 1.0], [1.1, 1.1]])
        self.assertEqual(chosen, 0)
        self.assertEqual(player.overruled, 0)

    def test_caution_weighs_the_worst_outcome(self):
        values = [[1.5, 0.5], [1.2, 1.2]]   # a gamble against a sure thing, at near-even odds
        self.assertEqual(decide([0.5, 0.49, 0.0], values, caution=0.5)[0], 1)   # 1.0 < 1.2
        self.assertEqual(decide([0.5, 0.49, 0.0], values, caution=0.0)[0], 0)   # 1.5 > 1.2
        self.assertEqual(decide([0.5, 0.49, 0.0], [[1.5, 0.5], [1.4, 1.4]], caution=1.0)[0], 1)

    def test_the_weight_scales_the_outcomes_against_the_policy(self):
        values = [[1.0, 1.0], [1.5, 1.5], [0.0, 0.0]]
        self.assertEqual(decide([0.6, 0.3, 0.1], values, weight=0.0)[0], 0)    # the policy alone
        self.assertEqual(decide([0.6, 0.3, 0.1], values, weight=1.0)[0], 0)    # -0.01 > -0.70
        self.assertEqual(decide([0.6, 0.3, 0.1], values, weight=4.0)[0], 1)

    def test_a_candidate_without_a_value_counts_as_the_worst_valued_one(self):
        # (values come in the candidates' order, the most probable first)
        # the unvalued action 0 takes the lowest value found, 1.0: log .5 + 4.0 = 3.31 beats
        # log .3 + 4.0 and log .2 + 4.4; as 0 it would lose to action 1
        self.assertEqual(decide([0.5, 0.3, 0.2], [None, [1.0, 1.0], [1.1, 1.1]])[0], 0)
        # ... and not the highest: log .2 + 5.2 = 3.59 beats log .5 + 4.0 (with 1.3 it would not)
        self.assertEqual(decide([0.5, 0.3, 0.2], [[None, None], [1.0, 1.0], [1.3, 1.3]])[0], 2)

    def test_nothing_to_look_at_or_a_failure_leaves_the_policys_choice_and_is_counted(self):
        chosen, player, _ = decide([0.2, 0.7, 0.1], None)
        self.assertEqual((chosen, player.looked, player.failed), (1, 0, 0))
        chosen, player, _ = decide([0.2, 0.7, 0.1], {"error": "battle b: no view"})
        self.assertEqual((chosen, player.looked, player.failed), (1, 0, 1))

    def test_unlikely_actions_are_not_looked_at(self):
        _, _, state = decide([0.97, 0.02, 0.01], [[1.0, 1.0], [1.0, 1.0]], floor=0.02)
        self.assertEqual(state.asked, [[[0, 1]]])   # below the floor: left out
        _, _, state = decide([0.99, 0.01, 0.0], None)
        self.assertEqual(state.asked, [])           # one candidate: nothing to weigh


class LookaheadPlayerTest(unittest.TestCase):
    def test_lookahead_agent_beats_random_and_overrules_its_policy_sometimes(self):
        player = make_player("lookahead:agent", seed=1)
        self.assertIsInstance(player, LookaheadPlayer)
        results = list(play(player, make_player("random", 7), "gen9randombattle", range(20), seed=3, concurrency=20))
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertGreaterEqual(sum(r.winner == "a" for r in results), 18)
        self.assertGreater(player.looked, 50)
        self.assertGreater(player.overruled, 0)
        self.assertLess(player.overruled, player.looked)

    def test_lookahead_needs_a_model_and_a_sane_number_of_turns(self):
        with self.assertRaises(SpecError) as e:
            make_player("lookahead:random")
        self.assertIn("lookahead needs a model", str(e.exception))
        with self.assertRaises(SpecError) as e:
            make_player("lookahead9:agent")
        self.assertIn("1 to 3 turns", str(e.exception))
        with self.assertRaises(SpecError) as e:
            make_player("lookahead2x0:agent")
        self.assertIn("1 to 16 draws", str(e.exception))
        self.assertEqual((make_player("lookahead:agent").play_on, make_player("lookahead:agent").samples), (0, 1))
        self.assertEqual(make_player("lookahead2:agent").play_on, 1)
        self.assertEqual((make_player("lookahead2x3:agent").play_on, make_player("lookahead2x3:agent").samples), (1, 3))
        self.assertEqual(make_player("lookahead2:agent").weight, 4.0)
        self.assertEqual((make_player("lookahead2x3w16:agent").samples, make_player("lookahead2x3w16:agent").weight),
                         (3, 16.0))
        for spec, says in (("lookahead2w8x3:agent", "its settings in that order"),
                           ("lookahead2w0.5.1:agent", "weight on material"),
                           ("lookahead2w2000:agent", "weight on material")):
            with self.subTest(spec=spec), self.assertRaises(SpecError) as e:
                make_player(spec)
            self.assertIn(says, str(e.exception))


if __name__ == "__main__":
    unittest.main()
