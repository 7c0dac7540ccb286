"""Battles on a server: each battle room's messages go to a headless client view in V8 (the
Engine), and each request is answered with `/choose CHOICE|RQID` from the player.

An `|error|[Invalid choice]` bans that action for the request and the player decides again on
the corrected mask; after MAX_RETRIES the server's default choice is sent, so a battle never
loops forever. A "too late" answer (a choice for a turn that has already moved on) is not a
refusal: the turn's choice was made, nothing is re-decided.

One battle's failure (unreadable messages, a player or the engine raising) ends that battle as
an error with a forfeit; the connection's other battles go on."""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field

import numpy as np

from metapvp.engine import Engine
from metapvp.engine.bridge import BattleError, request_side
from metapvp.players import Decisions, Player

log = logging.getLogger(__name__)
MAX_RETRIES = 4
INVALID = ("|error|[Invalid choice]", "|error|[Unavailable choice]")  # the server refused a choice
TOO_LATE = "too late to make a different move"  # Showdown's answer to a choice after the turn moved on
RATING = re.compile(r"^\|raw\|(.+?)'s rating: (\d+) &rarr; <strong>(\d+)</strong>")


@dataclass
class BattleState:
    room: str
    started: float = field(default_factory=time.monotonic)
    perspective: str | None = None
    early: list = field(default_factory=list)       # messages before we knew our side
    log: list = field(default_factory=list)          # every message of the room, as received
    answered: int | None = None                      # the rqid last answered
    banned: set = field(default_factory=set)         # actions refused for the current rqid
    retries: int = 0
    invalid: int = 0                                 # choices the server refused
    recovered: int = 0                               # refusals followed by an accepted choice
    winner: str | None = None
    ended: bool = False
    error: str | None = None
    rating: tuple | None = None                      # (before, after) when the server says
    last_action: int | None = None
    sent: str | None = None                          # the last /choose sent


class LiveBattles:
    """The battles of one connection. `handle(room, message)` returns the messages to send."""

    def __init__(self, username: str, player: Player, engine: Engine | None = None, greedy: bool = False):
        self.username = username
        self.userid = to_id(username)
        self.player = player
        self.engine = engine or Engine(getattr(player, "contract", None))
        self.greedy = greedy
        self.battles: dict[str, BattleState] = {}

    def handle(self, room: str, message: str) -> list[str]:
        b = self.battles.get(room)
        if b is None:
            b = self.battles[room] = BattleState(room)
        try:
            return self._handle(b, room, message)
        except Exception as e:  # noqa: BLE001 -- one battle's failure must not end the others
            log.exception("%s: battle failed; forfeiting it", room)
            return self.fail(b, f"{type(e).__name__}: {e}")

    def _handle(self, b: BattleState, room: str, message: str) -> list[str]:
        if message.startswith("|init|battle") and b.perspective is not None and not b.ended:
            # rejoined after a reconnection: the server replays the whole battle, so start over
            self.engine.close(room, b.perspective)
            b.perspective, b.early, b.answered = None, [], None
        b.log.append(message)
        if b.ended:
            return []
        for line in message.split("\n"):
            self._note(b, line)
        if b.perspective is None:
            b.early.append(message)
            b.perspective = self._side_of(message)
            if b.perspective is None:
                return []
            self.engine.open(room, b.perspective)
            messages, b.early = b.early, []
        else:
            messages = [message]
        try:
            batch = self.engine.batch(feed=[(room, b.perspective, m) for m in messages],
                                      encode=[(room, b.perspective)])
            batch.raise_first()
        except BattleError as e:
            return self.fail(b, str(e))
        rec = batch.records[0]
        if rec.ended:
            b.ended, b.winner = True, rec.winner
            self.engine.close(room, b.perspective)
            return []
        if not rec.decision:
            return []
        invalid = any(refused(line) for line in message.split("\n"))
        if rec.rqid == b.answered and not invalid:
            # answered already; timer warnings (|inactive|) arrive while the foe decides, and a
            # resend would be answered "too late"
            return []
        if rec.rqid != b.answered:
            if b.retries:
                b.recovered += 1
            b.banned, b.retries = set(), 0
        return self.decide(b, rec.rqid, {k: v.copy() for k, v in batch.obs.items()})

    def decide(self, b: BattleState, rqid, obs: dict) -> list[str]:
        b.answered = rqid
        if b.retries >= MAX_RETRIES:
            return [f"{b.room}|/choose default|{rqid}"]
        mask = obs["action.mask"]
        for a in b.banned:
            mask[0, a] = 0
        if not mask.any():
            return [f"{b.room}|/choose default|{rqid}"]
        action = int(self.player.act(Decisions([(b.room, b.perspective)], obs, self.engine), greedy=self.greedy)[0])
        if not mask[0, action]:  # a scripted player that cannot see our bans: first allowed one
            action = int(np.flatnonzero(mask[0])[0])
        b.last_action = action
        b.sent = f"{b.room}|/choose {self.choice_for(b, action)}|{rqid}"
        return [b.sent]

    def choice_for(self, b: BattleState, action: int) -> str:
        return self.engine.choice(b.room, b.perspective, action)

    def _note(self, b: BattleState, line: str):
        if refused(line):
            b.invalid += 1
            b.retries += 1
            if b.last_action is not None:
                b.banned.add(b.last_action)
        elif m := RATING.match(line):
            if to_id(m.group(1)) == self.userid:
                b.rating = (int(m.group(2)), int(m.group(3)))
        elif line.startswith("|win|"):
            b.winner = line[5:]
        elif line == "|tie":
            b.winner = ""

    def _side_of(self, message: str) -> str | None:
        for line in message.split("\n"):
            if line.startswith("|request|") and len(line) > 9:
                try:
                    side = request_side(line[9:])
                except ValueError:
                    continue
                if side:
                    return side
            elif line.startswith("|player|"):
                parts = line.split("|")
                if len(parts) > 3 and to_id(parts[3]) == self.userid and parts[2] in ("p1", "p2"):
                    return parts[2]
        return None

    def fail(self, b: BattleState, error: str) -> list[str]:
        """A battle that could not go on (unreadable messages, a failing player): it ends as an
        error, and we forfeit."""
        if b.ended:
            return []
        b.error, b.ended = error, True
        if b.perspective:
            try:
                self.engine.close(b.room, b.perspective)
            except Exception:  # noqa: BLE001 -- the battle is over either way
                log.exception("%s: could not close the failed battle's view", b.room)
        return [f"{b.room}|/forfeit"]

    def drop(self, room: str, error: str | None = None) -> BattleState | None:
        """The room went away (|deinit|, |noinit|, a lost connection)."""
        b = self.battles.get(room)
        if b is None:
            return None
        if not b.ended:
            b.ended = True
            b.error = error or "the battle room closed before the battle ended"
            if b.perspective:
                self.engine.close(room, b.perspective)
        return b

    def won(self, b: BattleState) -> bool | None:
        if b.error or b.winner is None:
            return None
        return to_id(b.winner) == self.userid


def refused(line: str) -> bool:
    """The server refused a choice (and a new one is due); "too late" is not a refusal."""
    return line.startswith(INVALID) and TOO_LATE not in line


def to_id(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())
