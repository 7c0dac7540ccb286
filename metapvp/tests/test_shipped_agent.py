"""The model shipped in static/models/, by its player name `agent`."""
import subprocess
import sys
import unittest

from metapvp import ROOT
from metapvp.arena import play
from metapvp.players import SpecError, make_player
from metapvp.players.search import SearchPlayer
from metapvp.players.searchconfig import SCRIPTED_PLAYERS, SearchConfig
from metapvp.players.spec import SHIPPED_MODELS, as_played
from metapvp.tests import test_serve_api  # (its class by module, so that it is not collected twice)


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
        self.assertIsInstance(agent, SearchPlayer)
        # spelt out in the model file's metadata, whatever the search's defaults
        self.assertEqual(agent.config, SearchConfig(visits=64, ms=0, worlds=2, halve=4, weight=16.0, play_on=1,
                                                    exploration=1.5, scripted=()))
        self.assertEqual(agent.policy.temperature, 1.0)  # the search's prior is the policy as trained
        self.assertEqual(make_player("agent@0").temperature, 0.0)
        self.assertEqual(make_player("agent@1").temperature, 1.0)
        self.assertEqual(make_player("agent@0.5").temperature, 0.5)
        # a model file plays as trained
        self.assertEqual(make_player(str(SHIPPED_MODELS / "gen9randombattle.zip")).temperature, 1.0)

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
        # as results files have recorded it since 2026-11-25 (singles) and 2026-11-26 (doubles)
        self.assertEqual(as_played("agent", "gen9randombattle"), "search64x2h4q16p1:agent")
        self.assertEqual(as_played(" agent ", "gen9randomdoublesbattle"), "search64x2h8q16p1s:agent")
        self.assertEqual(as_played("agent:gen9randomdoublesbattle", "gen9randombattle"),
                         "search64x2h8q16p1s:agent:gen9randomdoublesbattle")
        for spec in ("agent@0", "lookahead2:agent", "search32:agent", "heuristic"):
            self.assertEqual(as_played(spec, "gen9randombattle"), spec)

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
