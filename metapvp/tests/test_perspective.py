"""One simulator message, with its |split| pairs, read from each perspective: the owner sees
exact HP, the opponent and spectators the public percentage."""
import unittest

from metapvp.engine import Engine

START = "\n".join(["|player|p1|Alice|1|", "|player|p2|Bob|2|", "|teamsize|p1|6", "|teamsize|p2|6",
                   "|gen|9", "|tier|[Gen 9] Random Battle", "|start"])
SWITCH = "\n".join([
    "|split|p1",
    "|switch|p1a: Pikachu|Pikachu, L50, M|61/120",
    "|switch|p1a: Pikachu|Pikachu, L50, M|51/100",
    "|split|p2",
    "|switch|p2a: Eevee|Eevee, L60, F|100/150",
    "|switch|p2a: Eevee|Eevee, L60, F|67/100",
    "|turn|1",
])


class PerspectiveTest(unittest.TestCase):
    def test_split_lines_follow_the_perspective(self):
        engine = Engine()
        hp = {}
        for perspective in ("p1", "p2", "spectator"):
            key = f"split-{perspective}"
            engine.open(key, perspective)
            engine.feed(key, perspective, START)
            engine.feed(key, perspective, SWITCH)
            _, obs = engine.encode(key, perspective)
            hp[perspective] = obs["pokemon.hp"][0]
            engine.close_view(key, perspective)
        # side 0 is the perspective's own side: p1 for p1 and for spectators, p2 for p2
        self.assertAlmostEqual(float(hp["p1"][0, 0]), 61 / 120, places=6)
        self.assertAlmostEqual(float(hp["p1"][1, 0]), 0.67, places=6)
        self.assertAlmostEqual(float(hp["p2"][0, 0]), 100 / 150, places=6)
        self.assertAlmostEqual(float(hp["p2"][1, 0]), 0.51, places=6)
        self.assertAlmostEqual(float(hp["spectator"][0, 0]), 0.51, places=6)
        self.assertAlmostEqual(float(hp["spectator"][1, 0]), 0.67, places=6)

    def test_unrevealed_opponents_are_unknown_not_guessed(self):
        engine = Engine()
        engine.open("u", "p1")
        engine.feed("u", "p1", START)
        engine.feed("u", "p1", SWITCH)
        _, obs = engine.encode("u", "p1")
        species = obs["pokemon.species"][0, 1]      # the opponent's six rows
        flags = obs["pokemon.flags"][0, 1]
        self.assertNotIn(species[0], (0, 1, 2))     # Eevee, seen
        self.assertEqual(list(species[1:]), [1] * 5)  # <unknown>: there are 6, 5 unseen
        self.assertEqual(list(flags[:, 0]), [1] * 6)  # present
        self.assertEqual(list(flags[:, 1]), [1, 0, 0, 0, 0, 0])  # revealed
        self.assertEqual(obs["pokemon.item"][0, 1, 0], 1)  # Eevee's item not revealed yet
        self.assertEqual(obs["action.mask"].sum(), 0)  # no request: nothing to decide


if __name__ == "__main__":
    unittest.main()
