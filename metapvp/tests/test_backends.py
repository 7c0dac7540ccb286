"""The Backend protocol (metapvp/engine/types.py) is honoured by both backends: every method
players and runners call, with the protocol's parameters, and the shipped agent (which searches
through its backend) plays on each."""
import inspect
import unittest

from metapvp.arena import play
from metapvp.backends import BACKENDS, make_backend
from metapvp.engine import Backend
from metapvp.players import make_player

METHODS = [name for name, _ in inspect.getmembers(Backend, inspect.isfunction) if not name.startswith("_")]


class BackendProtocolTest(unittest.TestCase):
    def test_the_protocol_names_what_players_and_runners_call(self):
        self.assertEqual(sorted(METHODS), ["abort", "close", "engine_worlds", "labels", "lookahead", "scripted",
                                           "search", "start", "step"])

    def test_every_backend_has_every_method_with_the_protocols_parameters(self):
        for name, cls in BACKENDS.items():
            for method in METHODS:
                with self.subTest(backend=name, method=method):
                    self.assertTrue(callable(getattr(cls, method, None)), f"{cls.__name__} has no {method}")
                    want = list(inspect.signature(getattr(Backend, method)).parameters)
                    have = list(inspect.signature(getattr(cls, method)).parameters)
                    self.assertEqual(have[:len(want)], want)
                    extra = [p for p in inspect.signature(getattr(cls, method)).parameters.values()][len(want):]
                    self.assertTrue(all(p.default is not inspect.Parameter.empty for p in extra), extra)

    def test_the_agent_plays_and_searches_on_every_backend(self):
        self.check_plays_on_every_backend("agent", "searched")

    def test_the_lookahead_plays_on_every_backend(self):
        """The lookahead asks the backend for its turns ahead (Backend.lookahead) as the search
        does for its own; a backend without them fails every battle of it."""
        self.check_plays_on_every_backend("lookahead2:agent", "looked")

    def check_plays_on_every_backend(self, spec: str, counter: str):
        """Two battles of `spec` against random on each backend: no error, a winner each, and
        the player's `counter` (decisions it sharpened through the backend) above 0."""
        for name in BACKENDS:
            with self.subTest(backend=name, spec=spec):
                agent, foe = make_player(spec, seed=1), make_player("random", seed=2)
                backend = make_backend(name, agent.contract)
                try:
                    self.assertIsInstance(backend, Backend)
                    results = list(play(agent, foe, "gen9randombattle", range(2), seed=3, backend=backend))
                finally:
                    backend.close()
                self.assertEqual([r.error for r in results], [None, None])
                self.assertTrue(all(r.winner in ("a", "b", "tie") for r in results))
                self.assertGreater(getattr(agent, counter), 0)   # it ran through this backend
                self.assertEqual(agent.failed, 0)

    def test_abort_drops_only_the_battles_named(self):
        for name in BACKENDS:
            with self.subTest(backend=name):
                backend = make_backend(name)
                try:
                    step = backend.start([{"id": f"x{i}", "format": "gen9randombattle", "seed": f"{i},1,1,1"}
                                          for i in range(3)])
                    self.assertEqual({d.battle for d in step.decisions}, {"x0", "x1", "x2"})
                    self.assertEqual(backend.abort(["x1", "nonesuch"]), 1)
                    self.assertEqual(backend.abort(), 2)
                finally:
                    backend.close()
