"""What the players thought, recorded while they play: at each decision, every legal action in
words with what the player made of it (the policy's probability, the search's share of visits
and mean value), the chance to win it saw, and the foe's team in each world it searched. Kept
beside each battle's log as `battle-FORMAT-NNNNNN.thoughts.json.gz`, in the format docs/replays.md
describes (THOUGHTS_FORMAT), for `metapvp replay --thoughts` and for anyone's notebooks.

A player records only while its `thinking` is set (metapvp.players.base.Player.thoughts); the
recorder sets it, asks the battles for their actions' names once a step, and keeps each
battle's decisions until it ends."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np

from metapvp.engine.types import BattleViews

THOUGHTS_FORMAT = 1   # docs/replays.md, "Thoughts"


class ThoughtLog:
    """Each live battle's decisions as its players thought them, until taken at its end."""

    def __init__(self, players: dict):
        """`players`: {'a': player, 'b': player}; both are set thinking."""
        self.names = {seat: p.name for seat, p in players.items()}
        for p in players.values():
            p.thinking = True
        self.battles: dict[str, list[dict]] = {}

    def add(self, player, keys, turns, chosen, state: BattleViews):
        """The decisions `keys` ((battle id, side) pairs, at `turns`) that `player` just made
        (`chosen`, an action each), with its thoughts of them and the legal actions' names."""
        labels = state.labels(keys)
        thoughts = getattr(player, "thoughts", None) or {}
        for key, turn, action, names in zip(keys, turns, chosen, labels):
            self.battles.setdefault(key[0], []).append(
                decision_record(key[1], player.name, int(turn), int(action), names, thoughts.get(key, {})))

    def take(self, battle: str) -> list[dict]:
        """The battle's decisions, in order, and forgotten here."""
        return self.battles.pop(battle, [])


def decision_record(side: str, player: str, turn: int, action: int, names: dict, thought: dict) -> dict:
    """One decision as the thoughts file keeps it (docs/replays.md)."""
    if "error" in names:
        names = {str(action): f"action {action}"}
    options = []
    for a in sorted(map(int, names)):
        option = {"action": a, "label": names[str(a)]}
        for field in ("prior", "visits", "value"):
            if thought.get(field) is not None:
                option[field] = number(thought[field][a])
        options.append(option)
    out = {"turn": turn, "side": side, "player": player, "chosen": action, "options": options}
    if thought.get("win") is not None:
        out["win"] = number(thought["win"])
    if thought.get("worlds"):
        out["worlds"] = thought["worlds"]
    return out


def number(x) -> float | None:
    """A float as JSON keeps it (rounded to 4 places); None for no value."""
    if x is None:
        return None
    x = float(x)
    return round(x, 4) if math.isfinite(x) else None


def thoughts_path(log_path: Path) -> Path:
    """The thoughts file beside a battle's log (head2head's battle-...-NNNNNN.log.json.gz, or a
    live bot's ROOM.log)."""
    name = log_path.name
    stem = name[: -len(".log.json.gz")] if name.endswith(".log.json.gz") else name.removesuffix(".log")
    return log_path.with_name(stem + ".thoughts.json.gz")


def write_thoughts(path: Path, battle: int | str, players: dict, decisions: list[dict]):
    """Written whole or not at all (renamed into place), as the logs are. `battle`: its number in
    a run, or its room; `players`: {'p1': name, 'p2': name}."""
    data = {"format": THOUGHTS_FORMAT, "battle": battle, "players": players, "decisions": decisions}
    part = path.with_name(path.name + ".part")
    with gzip.open(part, "wt") as f:
        json.dump(data, f, default=_plain)
    part.replace(path)


def read_thoughts(path: Path) -> dict:
    """A thoughts file (write_thoughts'); a ValueError naming it where it cannot be read."""
    try:
        with gzip.open(path, "rt") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: unreadable thoughts ({e})") from e
    if not isinstance(data, dict) or data.get("format") != THOUGHTS_FORMAT \
            or not isinstance(data.get("decisions"), list):
        raise ValueError(f"{path}: not a thoughts file of format {THOUGHTS_FORMAT}")
    return data


def _plain(x):
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"{type(x).__name__} is not JSON")
