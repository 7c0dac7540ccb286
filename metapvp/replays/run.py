"""A run's battles as replays and pages: head2head's --outdir (logs/battle-FORMAT-NNNNNN.log.json.gz,
the simulator's saved battles), a live bot's --outdir (smogon_eval, challenge_bot:
logs/ROOM.log, every line its room sent the player, made a spectator's log by
js/src/narrate.js), or one battle's log file. Each read with a clear error naming what and where,
each file written whole or not at all (renamed into place), so that a page is never
half-written over a good one."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from metapvp.arena.rundir import LIVE_LOG_NAME, LOG_NAME
from metapvp.arena.thoughts import read_thoughts, thoughts_path
from metapvp.engine.types import EngineError
from metapvp.engine.v8 import context
from metapvp.replays.page import page_data, thoughts_page
from metapvp.replays.showdown import public_lines, replay_file


class ReplayError(ValueError):
    """A run folder, battle number or log that makes no replay: the message names it."""


def battle_logs(source: Path) -> dict[int, Path]:
    """{battle number: its log file} of a run folder (its logs/), or of one log file; a live
    battle is numbered by its room (battle-FORMAT-N)."""
    if source.is_file():
        return {number(source) or 0: source}
    if not source.is_dir():
        raise ReplayError(f"{source}: no such run folder or battle log")
    logs = {n: p for p in sorted((source / "logs").glob("battle-*.log*")) if (n := number(p)) is not None}
    if not logs:
        raise ReplayError(f"{source}: no battle logs in {source / 'logs'} (was it played with --outdir?)")
    return logs


def number(path: Path) -> int | None:
    m = LOG_NAME.search(path.name) or LIVE_LOG_NAME.search(path.name)
    return int(m.groups()[-1]) if m else None


def read_battle(path: Path) -> dict:
    """A saved battle as head2head keeps it (format, p1, p2, winner, log, p1team, p2team); a live
    bot's log made one (its own team alone known); ReplayError naming the file where it is
    unreadable or cut short."""
    try:
        if LIVE_LOG_NAME.search(path.name):
            saved = live_battle(path)
        else:
            with gzip.open(path, "rt") as f:
                saved = json.load(f)
    except (OSError, EOFError, ValueError, EngineError) as e:
        raise ReplayError(f"{path}: unreadable battle log ({e})") from e
    if not isinstance(saved, dict) or not isinstance(saved.get("log"), list):
        raise ReplayError(f"{path}: not a saved battle (no log)")
    if not any(line.startswith("|win|") or line == "|tie" for line in saved["log"]):
        raise ReplayError(f"{path}: the log is cut short (the battle never ends in it)")
    return saved


def live_battle(path: Path) -> dict:
    """A live bot's log of one battle as a saved battle: what a spectator saw, and the bot's team."""
    seen = context().spectator_of(path.read_text().split("\n"))
    return {"format": LIVE_LOG_NAME.search(path.name).group(1), "log": seen["log"], "winner": seen["winner"],
            **seen["players"], f"{seen['side']}team": seen["team"]}


def pick(logs: dict[int, Path], battle: int | None, source: Path) -> dict[int, Path]:
    """The battle asked for, or all; ReplayError naming the range where it is not there."""
    if battle is None:
        return logs
    if battle not in logs:
        raise ReplayError(f"{source}: no battle {battle} (its battles: {min(logs)} to {max(logs)}, {len(logs)} logged)")
    return {battle: logs[battle]}


def replay(path: Path, battle: int) -> str:
    """The Showdown replay file of one logged battle."""
    saved = read_battle(path)
    try:
        lines = public_lines(saved["log"], str(path))
    except ValueError as e:
        raise ReplayError(str(e)) from e
    players = {"p1": saved.get("p1") or "p1", "p2": saved.get("p2") or "p2"}
    thoughts = thoughts_path(path)
    if thoughts.is_file():   # the players' specs name them better than the sides' names
        players.update(read_thoughts(thoughts).get("players", {}))
    return replay_file(lines, saved.get("format", ""), players, f"{saved.get('format', 'battle')}-{battle}")


def page(path: Path, battle: int) -> str:
    """The page of one logged battle and its thoughts (the battle alone where none were kept)."""
    saved = read_battle(path)
    try:
        public_lines(saved["log"], str(path))
        thoughts = read_thoughts(thoughts_path(path)) if thoughts_path(path).is_file() else None
        return thoughts_page(page_data(saved, thoughts, battle))
    except (ValueError, EngineError) as e:
        raise ReplayError(str(e)) from e


def write_whole(path: Path, text: str):
    """`text` to `path`, renamed into place: a reader finds the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    part.replace(path)
