"""Saved battles replayed from their seed and input log (metapvp/arena/replay.py): each side's
observations come back as the player saw them in the battle itself, and a record that does not
fit its battle is named with why."""
import gzip
import json
import unittest
from pathlib import Path

import numpy as np

from metapvp.arena import play
from metapvp.arena.replay import recorded_choices, replay
from metapvp.players.scripted import RandomPlayer


class Recording(RandomPlayer):
    """A random player that keeps every observation it is given, per battle and side, in order."""

    def __init__(self, seed):
        super().__init__(seed)
        self.seen: dict[tuple[str, str], list[dict]] = {}

    def act(self, decisions, greedy=False):
        for k, key in enumerate(decisions.keys):
            self.seen.setdefault(key, []).append({n: v[k].copy() for n, v in decisions.obs.items()})
        return super().act(decisions, greedy)


class ReplayTest(unittest.TestCase):
    fmt = "gen9randomdoublesbattle"

    @classmethod
    def setUpClass(cls):
        cls.players = {"a": Recording(3), "b": Recording(5)}
        cls.results = list(play(cls.players["a"], cls.players["b"], cls.fmt, range(6), seed=4, keep_logs=True,
                                prefix="rec"))
        cls.saved = {r.index: json.loads(r.log) for r in cls.results}

    def write_logs(self, run: Path):
        """The saved battles as head2head keeps them, in `run`/logs/."""
        (run / "logs").mkdir()
        for i, saved in self.saved.items():
            with gzip.open(run / "logs" / f"battle-{self.fmt}-{i:06d}.log.json.gz", "wt") as f:
                json.dump(saved, f)

    def seen_by(self, index, side):
        r = next(r for r in self.results if r.index == index)
        player = self.players["a"] if side == r.a_side else self.players["b"]
        return player.seen.get((r.battle, side), [])

    def test_observations_are_those_the_players_saw(self):
        replayed = list(replay(sorted(self.saved.items()), concurrency=4))
        self.assertEqual(sorted(r.index for r in replayed), list(range(6)))
        for r in replayed:
            self.assertIsNone(r.error, r.error)
            saved = self.saved[r.index]["winner"]
            self.assertEqual(r.winner, saved if saved in ("p1", "p2") else "")
            for side in ("p1", "p2"):
                mine = [p.obs for p in r.positions if p.side == side]
                seen = self.seen_by(r.index, side)
                self.assertEqual(len(mine), len(seen), f"battle {r.index} {side}")
                self.assertGreater(len(mine), 0)
                for k, (a, b) in enumerate(zip(mine, seen)):
                    for name in b:
                        np.testing.assert_array_equal(a[name], b[name],
                                                      err_msg=f"battle {r.index} {side} decision {k}: {name}")

    def test_only_the_sides_asked_for(self):
        r = next(iter(replay([(0, self.saved[0])], sides=("p2",))))
        self.assertIsNone(r.error)
        self.assertEqual({p.side for p in r.positions}, {"p2"})
        self.assertEqual(len(r.positions), len(self.seen_by(0, "p2")))

    def test_a_record_that_does_not_fit_is_named_and_the_rest_go_on(self):
        wrong = json.loads(json.dumps(self.saved[1]))
        at = next(i for i, line in enumerate(wrong["inputLog"]) if line.startswith(">p1 "))
        wrong["inputLog"][at] = ">p1 switch 9"
        short = json.loads(json.dumps(self.saved[2]))
        short["inputLog"] = short["inputLog"][:-2]
        extra = json.loads(json.dumps(self.saved[3]))
        extra["inputLog"].append(">p1 move 1")
        vgc = json.loads(json.dumps(self.saved[4]))
        vgc["format"] = "gen9vgc2025regi"
        got = {r.index: r for r in replay([(0, self.saved[0]), (1, wrong), (2, short), (3, extra), (4, vgc)])}
        self.assertIsNone(got[0].error)
        self.assertIn("battle 1", got[1].error)
        self.assertIn("'switch 9' refused by the simulator", got[1].error)
        self.assertIn("battle 2", got[2].error)
        self.assertIn("ran out", got[2].error)
        self.assertIn("left", got[3].error)
        self.assertIn("only random formats", got[4].error)

    def test_bad_settings_are_refused(self):
        for kw in ({"concurrency": 0}, {"sides": ("p3",)}, {"sides": ()}):
            with self.subTest(**kw), self.assertRaisesRegex(ValueError, "replay: concurrency"):
                list(replay([(0, self.saved[0])], **kw))

    def test_recorded_choices_are_each_sides_in_order(self):
        saved = {"inputLog": ['>start {"formatid":"gen9randombattle"}', '>player p1 {"name":"a"}',
                              ">p1 move tackle", ">p2 switch 3", ">p2 move 1 terastallize", ">p1 switch 2"]}
        self.assertEqual(recorded_choices(saved), {"p1": ["move tackle", "switch 2"],
                                                   "p2": ["switch 3", "move 1 terastallize"]})


class SinglesReplayTest(ReplayTest):
    fmt = "gen9randombattle"
    # (the studies that read saved battles are tested in studies/test_studies.py)


if __name__ == "__main__":
    unittest.main()
