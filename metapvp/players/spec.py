"""Player specs, as given on command lines:

  random | first | maxdamage | heuristic   a built-in baseline
  module.Class:path/to/weights              Class(path) from an importable module (trained policies)
  ,module.factory                           factory() from an importable module
  path/to/model.zip                         a saved model (metapvp.models)
"""
from __future__ import annotations

import importlib
from pathlib import Path

from metapvp.players.base import Player
from metapvp.players.scripted import FirstLegalPlayer, RandomPlayer, ScriptedPlayer

BUILTIN = {
    "random": lambda seed: RandomPlayer(seed),
    "first": lambda seed: FirstLegalPlayer(),
    "maxdamage": lambda seed: ScriptedPlayer("maxdamage"),
    "heuristic": lambda seed: ScriptedPlayer("heuristic"),
}


class SpecError(ValueError):
    """A player spec that names nothing loadable."""


def make_player(spec: str, seed: int | None = None) -> Player:
    spec = spec.strip()
    if spec in BUILTIN:
        return BUILTIN[spec](seed)
    if spec.startswith(","):
        return _named(spec, spec[1:], ())
    if ":" in spec and not Path(spec).exists():
        target, path = spec.split(":", 1)
        return _named(spec, target, (path,))
    if Path(spec).is_file():
        try:
            from metapvp.models.player import load_player
        except ImportError as e:
            raise SpecError(f"player {spec!r}: loading model files needs metapvp.models ({e})") from None
        return load_player(spec)
    raise SpecError(f"unknown player {spec!r}: use one of {', '.join(BUILTIN)}, module.Class:path, "
                    f",module.factory or a model file")


def _named(spec: str, target: str, args: tuple) -> Player:
    module, _, attr = target.rpartition(".")
    if not module:
        raise SpecError(f"player {spec!r}: expected module.name, got {target!r}")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise SpecError(f"player {spec!r}: {e}") from None
    player = obj(*args)
    if not hasattr(player, "act"):
        raise SpecError(f"player {spec!r}: {target} did not make a player (no act method)")
    return player
