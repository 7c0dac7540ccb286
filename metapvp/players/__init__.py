"""Players: anything that turns a batch of decision points into action indices."""
from metapvp.players.base import Decisions, Player, contract_for
from metapvp.players.scripted import FirstLegalPlayer, RandomPlayer, ScriptedPlayer
from metapvp.players.spec import SpecError, as_played, live_spec, make_player

__all__ = ["as_played", "contract_for", "Decisions", "FirstLegalPlayer", "Player", "RandomPlayer", "ScriptedPlayer",
           "SpecError", "live_spec", "make_player"]
