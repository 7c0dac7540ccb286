"""A run's folder (--outdir): its run.json (written before the first battle), its battle logs
(each written whole or not at all), and on --resume what earlier sittings finished there. A
folder that holds another run's battles is refused: their logs would mix."""
from __future__ import annotations

import dataclasses
import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from metapvp.arena.match import first_seat
from metapvp.arena.runconfig import RunConfig, Tally
from metapvp.arena.thoughts import thoughts_path, write_thoughts

RUN_FILE = "run.json"      # the run's config, written to its outdir before the first battle
SAME_RUN = ("format", "p1", "p2", "seed", "play_best_move", "team_p1", "team_p2")   # what makes it the same battles



class RunDirError(ValueError):
    """An --outdir that holds another run, or nothing to resume."""


@dataclass
class Earlier:
    """What earlier sittings of a resumed run finished: their battles (those logged without an
    error) tallied from the logs, with the counts only results.json kept (invalid choices,
    failures) when a sitting got to write it, and the seconds they took."""
    tally: Tally = field(default_factory=Tally)
    done: set = field(default_factory=set)
    seconds: float = 0.0


def log_path(cfg: RunConfig, index: int) -> Path:
    return battle_log_path(cfg.outdir, cfg.format, index)


def battle_log_path(outdir, fmt: str, index: int) -> Path:
    """Where battle `index` of a run in `outdir` is logged (what `metapvp replay` reads)."""
    return Path(outdir) / "logs" / f"battle-{fmt}-{index:06d}.log.json.gz"


def write_log(cfg: RunConfig, index: int, log: str):
    write_log_at(log_path(cfg, index), log)


def write_log_at(path: Path, log: str):
    """Written whole or not at all (renamed into place), so that a run killed mid-write leaves
    no torn log for a resume to stumble on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    with gzip.open(part, "wt") as f:
        f.write(log)
    part.replace(path)


def write_battle(cfg: RunConfig, result: dict):
    """A finished battle's log (a match.Result as a dict) and, where recorded, its thoughts
    beside it (arena/thoughts.py; the players named by their specs, --p1 A), the thoughts first:
    a log on disk is a battle done, for --resume."""
    index, a_side = result["index"], result["a_side"]
    if result.get("thoughts") is not None:
        players = {a_side: cfg.p1, ("p2" if a_side == "p1" else "p1"): cfg.p2}
        write_thoughts(thoughts_path(log_path(cfg, index)), index, players, result["thoughts"])
    write_log(cfg, index, result["log"])


LOG_NAME = re.compile(r"battle-.*-([0-9]+)\.log\.json\.gz$")
LIVE_LOG_NAME = re.compile(r"battle-(.*)-([0-9]+)\.log$")   # a live bot's logs/ROOM.log (showdown/client.py)


def read_logs(outdir) -> Iterator[tuple[int, dict]]:
    """(battle number, saved battle) for each battle log of a run's --outdir (write_log's), in
    order; a ValueError naming the file where one cannot be read."""
    for path in sorted((Path(outdir) / "logs").glob("battle-*.log.json.gz")):
        m = LOG_NAME.search(path.name)
        if not m:
            continue
        try:
            with gzip.open(path, "rt") as f:
                yield int(m.group(1)), json.load(f)
        except (OSError, ValueError) as e:
            raise ValueError(f"{path}: unreadable battle log ({e})") from e


def logged_winner(index: int, battle: dict) -> str:
    """Who won battle `index` of a run by its saved log: 'a' (the first player, --p1), 'b', or
    'tie' (no side named)."""
    winner = battle.get("winner")
    return "tie" if winner not in ("p1", "p2") else "a" if winner == first_seat(index) else "b"


def prepare(cfg: RunConfig) -> Earlier:
    """Makes cfg.outdir ready (its logs/ and run.json); -> what an earlier sitting there finished
    when cfg.resume, else nothing. A RunDirError when the folder holds another run's battles
    (their logs would mix) or, with resume, no run at all."""
    if not cfg.outdir:
        if cfg.resume:
            raise RunDirError("resume needs the run's outdir")
        return Earlier()
    out = Path(cfg.outdir)
    before = recorded_run(out)
    if before is not None:
        differs = [k for k in SAME_RUN if k in before and before[k] != getattr(cfg, k)]
        if differs:
            raise RunDirError(f"{out} holds another run ({', '.join(f'{k} {before[k]!r}' for k in differs)}); "
                              f"choose another outdir")
    elif cfg.resume:
        raise RunDirError(f"nothing to resume in {out}: no {RUN_FILE} or results.json there")
    earlier = _earlier(cfg, out) if cfg.resume else Earlier()
    (out / "logs").mkdir(parents=True, exist_ok=True)
    (out / RUN_FILE).write_text(json.dumps(dataclasses.asdict(cfg), indent=2) + "\n")
    return earlier


def recorded_run(out: Path) -> dict | None:
    """The run an outdir holds (its players, format, seed...), by its run.json, written before
    the first battle, or, from runs before run.json existed, results.json; None where neither is."""
    for name in (RUN_FILE, "results.json"):
        path = out / name
        if path.is_file():
            try:
                return json.loads(path.read_text())
            except ValueError as e:
                raise RunDirError(f"{path}: unreadable ({e})") from e
    return None


def _earlier(cfg: RunConfig, out: Path) -> Earlier:
    """What the sittings before this one finished in `out`: its logged battles, tallied."""
    earlier = Earlier()
    t = earlier.tally
    try:
        for i, battle in read_logs(out):
            if i >= cfg.num_matches or battle.get("error"):
                continue   # a failed battle is played again
            earlier.done.add(i)
            winner = logged_winner(i, battle)
            t.a += winner == "a"
            t.b += winner == "b"
            t.ties += winner == "tie"
            t.turns += battle.get("turns", 0)
    except ValueError as e:   # a log torn by a run from before logs were renamed into place
        raise RunDirError(f"{e}: remove it to play that battle again") from e
    results = out / "results.json"
    if results.is_file():
        try:
            r = json.loads(results.read_text())
        except ValueError as e:
            raise RunDirError(f"{results}: unreadable ({e})") from e
        t.invalid, t.unavailable, t.failed = (r.get("invalid_choices", 0), r.get("unavailable_choices", 0),
                                              r.get("errors", 0))
        t.errors.update(r.get("error_messages", []))
        earlier.seconds = r.get("seconds", 0.0)
    return earlier
