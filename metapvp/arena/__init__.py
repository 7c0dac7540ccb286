"""Playing two players against each other: one batch of battles on one backend (match.play),
a whole run over worker processes (runner; its folder: rundir), and the statistics of the
outcome (stats)."""
from metapvp.arena.match import Result, battle_seed, play
from metapvp.arena.runconfig import RunConfig, Tally
from metapvp.arena.runner import report, run
from metapvp.arena.stats import elo_diff, summarize, wilson

__all__ = ["Result", "RunConfig", "Tally", "battle_seed", "elo_diff", "play", "report", "run", "summarize",
           "wilson"]
