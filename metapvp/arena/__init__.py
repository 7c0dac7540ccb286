"""Playing two players against each other, and the statistics of the outcome."""
from metapvp.arena.match import Result, battle_seed, play
from metapvp.arena.stats import elo_diff, summarize, wilson

__all__ = ["Result", "battle_seed", "elo_diff", "play", "summarize", "wilson"]
