"""Golden tests: battles recorded from the real simulator (scripts/record_golden.py), fed through
the bridge message by message. The tensors must match the committed expectation, and the own
side's rows must agree with the requests the simulator sent."""
import json
import re
import unittest

import numpy as np

from metapvp.contract import load
from metapvp.engine import Engine
from metapvp.tests.golden import (
    DATA,
    DOUBLES_CONTRACT,
    DOUBLES_FORMATS,
    FORMATS,
    KNOWLEDGE_CONTRACT,
    golden_battle,
    knowledge_only,
    replay,
)


def toid(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def last_request(pumps):
    for pump in reversed(pumps):
        for message in reversed(pump):
            for line in message.split("\n"):
                if line.startswith("|request|") and len(line) > 9:
                    return json.loads(line[9:])
    return None


class GoldenTest(unittest.TestCase):
    FORMATS, CONTRACT = FORMATS, "singles-v1"

    @classmethod
    def setUpClass(cls):
        cls.contract = load(cls.CONTRACT)
        cls.engine = Engine(cls.CONTRACT)
        cls.species = cls.contract.vocab_index("species")
        cls.moves = cls.contract.vocab_index("moves")

    def battles(self):
        for fmt in self.FORMATS:
            yield fmt, golden_battle(fmt)

    def test_tensors_match_expectation(self):
        for fmt, battle in self.battles():
            for perspective in ("p1", "p2"):
                with self.subTest(format=fmt, perspective=perspective):
                    expected = np.load(DATA / f"{fmt}-0-{perspective}.npz")
                    rows = [obs for _, obs in replay(battle, perspective, self.engine)]
                    self.assertEqual(len(rows), len(expected["battle.gen"]))
                    for name in expected.files:
                        got = np.stack([r[name] for r in rows])
                        np.testing.assert_array_equal(got, expected[name], err_msg=f"{fmt} {name}")

    def test_knowledge_matches_expectation(self):
        # singles-v2's battle knowledge on the same streams: a change to @smogon/calc, the set
        # data or the knowledge code shows here as a diff to review
        engine = Engine(KNOWLEDGE_CONTRACT)
        for fmt, battle in self.battles():
            for perspective in ("p1", "p2"):
                with self.subTest(format=fmt, perspective=perspective):
                    expected = np.load(DATA / f"{fmt}-0-{perspective}-v2.npz")
                    rows = [knowledge_only(obs) for _, obs in replay(battle, perspective, engine)]
                    self.assertEqual(sorted(rows[0]), sorted(expected.files))
                    for name in expected.files:
                        got = np.stack([r[name] for r in rows])
                        np.testing.assert_array_equal(got, expected[name], err_msg=f"{fmt} {name}")

    def test_own_rows_agree_with_requests(self):
        for fmt, battle in self.battles():
            pumps = battle["streams"]["p1"]
            gen = int(fmt[3])
            checked = 0
            for i, obs in replay(battle, "p1", self.engine):
                req = last_request(pumps[: i + 1])
                with self.subTest(format=fmt, pump=i):
                    self.assertEqual(obs["battle.gen"][0], gen)
                    for row, mon in enumerate(req["side"]["pokemon"]):
                        species = toid(mon["details"].split(",")[0])
                        self.assertEqual(obs["pokemon.species"][0, row], self.species[species], species)
                        hp, _, status = mon["condition"].partition(" ")
                        num, _, den = hp.partition("/")
                        frac = int(num) / int(den) if den else 0.0
                        self.assertAlmostEqual(float(obs["pokemon.hp"][0, row]), frac, places=5)
                        self.assertAlmostEqual(float(obs["pokemon.stats"][0, row, 1]),
                                               mon["stats"]["atk"] / 500, places=5)
                        self.assertEqual(obs["pokemon.flags"][0, row, 2], float(mon["active"]))
                    if req.get("active"):
                        # "Hidden Power Fire 60" -> hiddenpowerfire; gen 1's "Fight" -> <other>
                        ids = [self.moves.get(toid(m["move"]), self.moves.get(toid(m["move"]).rstrip("0123456789"), 2))
                               for m in req["active"][0]["moves"]]
                        self.assertEqual(list(obs["pokemon.moves"][0, 0, :len(ids)]), ids)
                    self.assertGreater(obs["action.mask"].sum(), 0)
                    checked += 1
            self.assertGreater(checked, 5, fmt)

    def test_a_terastallization_stays_spent_after_the_pokemon_that_did_faints(self):
        # side.gimmicks_used's first column: whether the side has Terastallized this battle, as
        # the lines seen so far say, also once the Pokemon that did has fainted (the client
        # forgets it then; the encoder must not)
        for fmt, battle in self.battles():
            if not fmt.startswith("gen9"):
                continue
            after_a_faint = 0
            for perspective in ("p1", "p2"):
                pumps, foe = battle["streams"][perspective], "p2" if perspective == "p1" else "p1"
                for i, obs in replay(battle, perspective, self.engine):
                    seen = "".join("".join(pump) for pump in pumps[: i + 1])
                    with self.subTest(format=fmt, perspective=perspective, pump=i):
                        for s, side in enumerate((perspective, foe)):
                            spent = f"|-terastallize|{side}" in seen
                            self.assertEqual(obs["side.gimmicks_used"][s, 0], float(spent))
                            alive_tera = obs["pokemon.flags"][s, :, 4].any()
                            after_a_faint += spent and not alive_tera
            self.assertGreater(after_a_faint, 0, f"{fmt}: no decision after a Terastallized Pokemon fainted")

    def test_recorded_choices_are_legal_and_spoken_by_the_action_table(self):
        """Each side's recorded choices, fed back through the bridge at their decisions: the mask
        the encoder writes now allows each, and the action table turns each into a choice string
        (the simulator accepted every one of them when the battle was recorded)."""
        for fmt, battle in self.battles():
            for side in ("p1", "p2"):
                with self.subTest(format=fmt, side=side):
                    mine = [a for s, a in battle["choices"] if s == side]
                    key = f"replay-{battle['format']}-{battle['seed']}-{side}"
                    decisions = 0
                    for k, (_, obs) in enumerate(replay(battle, side, self.engine)):
                        action = mine[k]
                        self.assertEqual(obs["action.mask"][action], 1, (fmt, side, k, action))
                        self.assertIsNotNone(self.engine.choice(key, side, action), (fmt, side, k, action))
                        decisions += 1
                    self.assertEqual(decisions, len(mine), fmt)


class DoublesGoldenTest(GoldenTest):
    """Random doubles and VGC (team preview) battles, replayed with the doubles contract: the
    same checks (but singles-v2's knowledge), and the positions."""
    FORMATS, CONTRACT = DOUBLES_FORMATS, DOUBLES_CONTRACT
    test_knowledge_matches_expectation = None

    def test_positions_agree_with_requests(self):
        for fmt, battle in self.battles():
            pumps = battle["streams"]["p1"]
            checked = 0
            for i, obs in replay(battle, "p1", self.engine):
                req = last_request(pumps[: i + 1])
                with self.subTest(format=fmt, pump=i):
                    for row, mon in enumerate(req["side"]["pokemon"]):
                        standing = mon["active"] and not mon["condition"].endswith("fnt")
                        want = [float(standing and row == 0), float(standing and row == 1)]
                        self.assertEqual(obs["pokemon.position"][0, row].tolist(), want, (row, mon["condition"]))
                    self.assertGreater(obs["action.mask"].sum(), 0)
                    checked += 1
            self.assertGreater(checked, 5, fmt)


class RefusalTest(unittest.TestCase):
    def first_choice(self, engine):
        """A recorded battle replayed up to its first decision with two or more legal actions:
        (key, the replay, held open until the test ends, the legal actions, the request line
        that decision answers)."""
        battle = golden_battle("gen9randombattle")
        key = f"replay-{battle['format']}-{battle['seed']}-p1"
        replayed = replay(battle, "p1", engine)
        for i, obs in replayed:
            legal = np.flatnonzero(obs["action.mask"])
            if len(legal) >= 2:
                break
        self.addCleanup(replayed.close)
        lines = [line for pump in battle["streams"]["p1"][:i + 1] for m in pump for line in m.split("\n")]
        request = [line for line in lines if line.startswith("|request|") and len(line) > 9][-1]
        return key, replayed, legal, request

    def test_an_action_the_simulator_refuses_is_banned_for_the_rest_of_its_request(self):
        """The view's one rule (js/src/view.js): an action the mask allowed but the simulator
        refused (|error|[Invalid choice]) leaves the mask for that request, the other actions
        stay, and choosing it again is a refusal, not a choice string."""
        engine = Engine()
        key, replayed, legal, _ = self.first_choice(engine)
        action = int(legal[-1])
        self.assertIsNotNone(engine.choice(key, "p1", action))
        batch = engine.batch(feed=[(key, "p1", "|error|[Invalid choice] Can't move: not now")],
                             encode=[(key, "p1")])
        mask, record = batch.obs["action.mask"][0], batch.records[0]
        self.assertTrue(record.decision)
        self.assertEqual(mask[action], 0)
        np.testing.assert_array_equal(np.flatnonzero(mask), [a for a in legal if a != action])
        self.assertEqual((record.refusals, record.invalid, record.unavailable), (1, 1, 0))
        self.assertIsNone(engine.choice(key, "p1", action))

    def test_an_unavailable_choice_is_decided_again_on_the_updated_request(self):
        """|error|[Unavailable choice] (a switch into an unrevealed trap) is followed by an updated
        request that shows the trap; a choice sent before it arrives is answered "too late", so
        the player has no decision until the update, and then decides on what it shows."""
        engine = Engine()
        key, replayed, legal, request = self.first_choice(engine)
        switches = [a for a in legal if a >= 4 and engine.choice(key, "p1", int(a)).startswith("switch")]
        self.assertTrue(switches, "the decision has a switch")
        trapped = "|error|[Unavailable choice] Can't switch: The active Pokémon is trapped"
        batch = engine.batch(feed=[(key, "p1", trapped)], encode=[(key, "p1")])
        record = batch.records[0]
        self.assertFalse(record.decision)
        self.assertEqual((record.refusals, record.invalid, record.unavailable), (1, 0, 1))
        update = json.loads(request[9:])
        update["active"][0]["trapped"] = True
        update["update"], update["rqid"] = True, (update.get("rqid") or 0) + 1
        batch = engine.batch(feed=[(key, "p1", "|request|" + json.dumps(update))], encode=[(key, "p1")])
        mask, record = batch.obs["action.mask"][0], batch.records[0]
        self.assertTrue(record.decision)
        self.assertEqual([int(a) for a in switches if mask[a]], [])     # the trap, as the update shows it
        self.assertTrue(mask.any())
        self.assertEqual(record.unavailable, 1)


if __name__ == "__main__":
    unittest.main()
