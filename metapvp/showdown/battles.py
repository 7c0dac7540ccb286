"""Battles on a server: each battle room's messages go to a headless client view in V8 (the
Engine), and each request is answered with `/choose CHOICE|RQID` from the player.

A refused choice follows the engine's one rule (js/src/view.js): the action is banned for the
request and the player decides again on the corrected mask; after a few refusals the default
choice is sent. A "too late" answer (a choice for a turn that has moved on) is not a refusal.

One battle's failure (unreadable messages, a player or the engine raising) ends that battle as
an error with a forfeit; the connection's other battles go on."""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field

from metapvp import contract as contracts
from metapvp.arena.thoughts import ThoughtLog
from metapvp.engine import Engine
from metapvp.engine.bridge import BattleError, request_side
from metapvp.players.base import Decisions, Player, allowed

log = logging.getLogger(__name__)
RATING = re.compile(r"^\|raw\|(.+?)'s rating: (\d+) &rarr; <strong>(\d+)</strong>")
TIMED_OUT = re.compile(r"^\|-message\|(.+) lost due to inactivity\.$")   # the battle timer's forfeit


@dataclass
class BattleState:
    room: str
    started: float = field(default_factory=time.monotonic)
    perspective: str | None = None
    early: list = field(default_factory=list)       # messages before we knew our side
    log: list = field(default_factory=list)          # every message of the room, as received
    answered: tuple | None = None                    # (rqid, refusals) last answered
    invalid: int = 0                                 # choices the server refused as invalid
    unavailable: int = 0                             # ...refused for what the request did not show
    refused_before: tuple = (0, 0)                   # (invalid, unavailable) before a rejoin's new view
    recovered: int = 0                               # refusals followed by the battle going on
    winner: str | None = None
    ended: bool = False
    error: str | None = None
    rating: tuple | None = None                      # (before, after) when the server says
    timed_out: bool = False                          # we lost to the battle timer
    decision_ms: list = field(default_factory=list)  # per choice sent: ms from its message to the send
    engine: Engine | None = None                     # the views of its game type's contract


class LiveBattles:
    """The battles of one connection. `handle(room, message)` returns the messages to send."""

    def __init__(self, username: str, player: Player, engine: Engine | None = None, greedy: bool = False,
                 thoughts: bool = False):
        """`thoughts`: keep what the player thought at each decision (self.recorder, by room)."""
        self.username = username
        self.userid = to_id(username)
        self.player = player
        self.engine = engine             # every battle's, where given; else one per contract
        self.engines: dict[str, Engine] = {}
        self.greedy = greedy
        self.battles: dict[str, BattleState] = {}
        self.recorder = ThoughtLog({"a": player}) if thoughts else None

    def handle(self, room: str, message: str) -> list[str]:
        b = self.battles.get(room)
        if b is None:
            b = self.battles[room] = BattleState(room)
        try:
            return self._handle(b, room, message)
        except Exception as e:  # noqa: BLE001 -- one battle's failure must not end the others
            log.exception("%s: battle failed; forfeiting it", room)
            return self.fail(b, f"{type(e).__name__}: {e}")

    def engine_for(self, room: str) -> Engine:
        """The engine of a battle room: the player's contract's, or where the player needs none,
        the one of the room's format (battle-FORMAT-N: singles or doubles)."""
        if self.engine is not None:
            return self.engine
        parts = room.split("-")
        name = getattr(self.player, "contract", None) or contracts.for_format(parts[1] if len(parts) > 2 else "")
        if name not in self.engines:
            self.engines[name] = Engine(name)
        return self.engines[name]

    def _handle(self, b: BattleState, room: str, message: str) -> list[str]:
        arrived = time.perf_counter()  # a decision's time counts from its message's arrival
        if message.startswith("|init|battle") and b.perspective is not None and not b.ended:
            # rejoined after a reconnection: the server replays the whole battle, so start over
            b.engine.close_view(room, b.perspective)
            b.perspective, b.early, b.answered, b.refused_before = None, [], None, (b.invalid, b.unavailable)
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
            b.engine = self.engine_for(room)
            b.engine.open(room, b.perspective)
            messages, b.early = b.early, []
        else:
            messages = [message]
        try:
            batch = b.engine.batch(feed=[(room, b.perspective, m) for m in messages],
                                      encode=[(room, b.perspective)])
            batch.raise_first()
        except BattleError as e:
            return self.fail(b, str(e))
        rec = batch.records[0]
        b.invalid, b.unavailable = b.refused_before[0] + rec.invalid, b.refused_before[1] + rec.unavailable
        if rec.ended:
            b.ended, b.winner = True, rec.winner
            b.engine.close_view(room, b.perspective)
            return []
        if not rec.decision:
            return []
        if (rec.rqid, rec.refusals) == b.answered:
            # answered, and not refused since; the timer's warnings (|inactive|) arrive while
            # the foe decides, and a resend would be answered "too late"
            return []
        if b.answered and rec.rqid != b.answered[0]:
            b.recovered = b.invalid + b.unavailable   # a new request: every refusal before it was got past
        return self.decide(b, rec.rqid, rec.refusals, {k: v.copy() for k, v in batch.obs.items()}, arrived, rec.turn)

    def decide(self, b: BattleState, rqid, refusals: int, obs: dict, arrived: float, turn: int = 0) -> list[str]:
        b.answered = (rqid, refusals)
        mask = obs["action.mask"]  # refused actions are masked out already
        if not mask.any():
            return [f"{b.room}|/choose default|{rqid}"]
        key = (b.room, b.perspective)
        action = int(self.player.act(Decisions([key], obs, b.engine), greedy=self.greedy)[0])
        action = allowed(action, mask[0])  # a scripted player that cannot see our bans
        if self.recorder:
            self.recorder.add(self.player, [key], [turn], [action], b.engine)
        choice = f"{b.room}|/choose {self.choice_for(b, action) or 'default'}|{rqid}"
        b.decision_ms.append((time.perf_counter() - arrived) * 1000)
        return [choice]

    def choice_for(self, b: BattleState, action: int) -> str | None:
        return b.engine.choice(b.room, b.perspective, action)

    def _note(self, b: BattleState, line: str):
        if m := RATING.match(line):
            if to_id(m.group(1)) == self.userid:
                b.rating = (int(m.group(2)), int(m.group(3)))
        elif (m := TIMED_OUT.match(line)) and to_id(m.group(1)) == self.userid:
            b.timed_out = True
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
        if b.perspective and b.engine:
            try:
                b.engine.close_view(b.room, b.perspective)
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
            if b.perspective and b.engine:
                b.engine.close_view(room, b.perspective)
        return b

    def won(self, b: BattleState) -> bool | None:
        if b.error or b.winner is None:
            return None
        return to_id(b.winner) == self.userid


def to_id(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())
