"""Player specs, as given on command lines:

  random | first | maxdamage | heuristic   a built-in baseline
  agent | agent:FORMAT                      the trained model shipped for the format played
                                            (or FORMAT): static/models/FORMAT.zip
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


SHIPPED_MODELS = Path(__file__).resolve().parents[2] / "static" / "models"


class SpecError(ValueError):
    """A player spec that names nothing loadable."""


def shipped_model(fmt: str) -> Path:
    """The model file shipped for a format; a clear error naming the formats that have one."""
    path = SHIPPED_MODELS / f"{fmt}.zip"
    if not path.is_file():
        have = sorted(p.stem for p in SHIPPED_MODELS.glob("*.zip"))
        raise SpecError(f"player 'agent': no model is shipped for format {fmt!r} (no {path}); "
                        f"shipped: {', '.join(have) or 'none'}. Train one with integrated_rl_script.py "
                        f"and pass its model file instead")
    return path


def make_player(spec: str, seed: int | None = None, fmt: str = "gen9randombattle") -> Player:
    """`fmt` is the format the player will play: `agent` loads the model shipped for it."""
    spec = spec.strip()
    if spec in BUILTIN:
        return BUILTIN[spec](seed)
    if spec == "agent" or spec.startswith("agent:"):
        return _load_model(spec, shipped_model(spec.partition(":")[2] or fmt), seed)
    if spec.startswith(","):
        return _named(spec, spec[1:], ())
    if ":" in spec and not Path(spec).exists():
        target, path = spec.split(":", 1)
        return _named(spec, target, (path,))
    if Path(spec).is_file():
        return _load_model(spec, spec, seed)
    raise SpecError(f"unknown player {spec!r}: use one of {', '.join(BUILTIN)}, agent, module.Class:path, "
                    f",module.factory or a model file")


def _load_model(spec: str, path, seed: int | None) -> Player:
    try:
        from metapvp.models.player import load_player
    except ImportError as e:
        raise SpecError(f"player {spec!r}: loading model files needs metapvp.models ({e})") from None
    return load_player(path, seed=seed)


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
