"""Players: anything that turns a batch of decision points into action indices."""
from metapvp.players.base import Decisions, Player
from metapvp.players.scripted import FirstLegalPlayer, RandomPlayer, ScriptedPlayer
from metapvp.players.spec import SpecError, make_player

__all__ = ["Decisions", "FirstLegalPlayer", "Player", "RandomPlayer", "ScriptedPlayer", "SpecError",
           "make_player"]
