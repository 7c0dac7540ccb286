"""The fast tier: the tests that play no battle, or a handful, for the edit-test loop.

    ./rp -m metapvp.tests.fast [-v]        # the fast tier (a couple of minutes on 2 cores)
    ./rp -m nose2                          # every test, this tier included (CI runs this)

It holds the structure and lint checks, the docs' links, the contracts and the action tables'
tables, bad input and fuzzed lines, the search's settings and its root rules, the lookahead's
rule, PPO's pieces, training's configuration and networks, the challenge bot's answers, the
command line, and short runs of a few battles on each path. The slow tests (every generation's
masks against the simulator, golden battles, live servers, Ray, training runs, the shipped agent
over many battles) run in the full suite only. Any argument goes to nose2 as it is."""
from __future__ import annotations

import sys

import nose2

FAST = [
    "metapvp.tests.test_structure",
    "metapvp.tests.test_lint.LintTest",
    "metapvp.tests.test_docs",
    "metapvp.tests.test_challenges",
    "metapvp.tests.test_cli",
    "metapvp.tests.test_selfplay",
    "metapvp.tests.test_contract",
    "metapvp.tests.test_bad_input",
    "metapvp.tests.test_failures",
    "metapvp.tests.test_replay_pages.BadInputTest",
    "metapvp.tests.test_evidence.StagedTurnTest",
    "metapvp.tests.test_view.TerastallizedReentryTest",
    "metapvp.tests.test_search.SearchPlayerTest",
    "metapvp.tests.test_search.BudgetTest",
    "metapvp.tests.test_search.DoublesSearchTest",
    "metapvp.tests.test_lookahead.LookaheadRuleTest",
    "metapvp.tests.test_lookahead.LookaheadPlayerTest",
    "metapvp.tests.test_doubles_lookahead.DoublesCandidatesTest",
    "metapvp.tests.test_doubles_lookahead.DoublesLookaheadTest",
    "metapvp.tests.test_training.ConfigTest",
    "metapvp.tests.test_training.PPOPiecesTest",
    "metapvp.tests.test_training.TeacherFormatTest",
    "metapvp.tests.test_training.InitTest",
    "metapvp.tests.test_training.LineageTest",
    "metapvp.tests.test_training.NetworkTest",
    "metapvp.tests.test_training.NetworkV2Test",
    "metapvp.tests.test_training.CheckpointAverageTest",
    "metapvp.tests.test_head2head.StatsTest",
    "metapvp.tests.test_head2head.InProcessArenaTest",
    "metapvp.tests.test_showdown.BattleTimerTest",
    "metapvp.tests.test_showdown.LoginFlowTest",
    "metapvp.tests.test_actions",
    "metapvp.tests.test_perspective",
    "metapvp.tests.test_golden",
    "metapvp.tests.test_simulator",
    "metapvp.tests.test_install",
    "metapvp.tests.test_lifecycle",
    "metapvp.tests.test_model_players",
    "metapvp.tests.test_knowledge.NamedColumnsTest",
    "metapvp.tests.test_knowledge.PossibleSetsCoverGeneratedTeamsTest",
    "metapvp.tests.test_knowledge.OlderContractsTest",
    "metapvp.tests.test_knowledge.KnowledgeRecordsTest",
    "metapvp.tests.test_gym.EnvTest",
    "metapvp.tests.test_gym.VectorEnvTest",
    "metapvp.tests.test_doubles.DoublesNetworkTest",
    "metapvp.tests.test_doubles.DoublesKnowledgeTest",
    "metapvp.tests.test_doubles.DoublesBattlesTest",
    "metapvp.tests.test_serve_api.ServeApiTest",
    "metapvp.tests.test_integrations.EnvCheckersTest",
    "metapvp.tests.test_integrations.PettingZooTest",
    "metapvp.tests.test_training.WorkerPoolTest",
    "metapvp.tests.test_native_search.NativeSearchTest",
]


def main(argv: list[str] | None = None):
    args = sys.argv[1:] if argv is None else list(argv)
    nose2.discover(argv=["metapvp.tests.fast", *args, *FAST], module=None)


if __name__ == "__main__":
    main()
