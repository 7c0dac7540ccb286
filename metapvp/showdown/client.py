"""An asyncio Showdown client on `websockets`: connects, logs in, plays battles with a player,
accepts or sends challenges, searches the ladder, and reconnects after a lost connection.

Transport only: battle rooms' messages go to LiveBattles (metapvp/showdown/battles.py), which
feeds them to the headless client in V8; which challenges to accept is Challenges'
(metapvp/showdown/challenges.py). Global messages are routed by their type."""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import websockets

from metapvp.arena.thoughts import thoughts_path, write_thoughts
from metapvp.engine import memory
from metapvp.players import Player
from metapvp.showdown.battles import BattleState, LiveBattles, to_id
from metapvp.showdown.challenges import Challenges
from metapvp.showdown.login import LOGIN_SERVER, LoginError, assertion_for, trn

log = logging.getLogger(__name__)


class ShowdownError(RuntimeError):
    """The server refused something the run needs (a name, a team, a format)."""


@dataclass
class ClientOptions:
    url: str
    username: str
    password: str | None = None             # None: an unregistered name (servers without login security)
    login_server: str = LOGIN_SERVER
    max_concurrent: int = 1
    team: str | None = None                 # packed team for formats with teams (sent with /utm)
    greedy: bool = False
    log_dir: Path | None = None             # each finished battle's messages, one file a battle
    min_send_interval: float = 0.0          # seconds between messages (public servers throttle)
    reconnect_attempts: int = 8
    accept_formats: tuple = ()              # challenge_bot: formats it accepts
    accept_from: tuple = ()                 # challenge_bot: user ids it accepts from (empty: anyone)
    max_queue: int = 16                     # challenge_bot: challenges waiting while at max_concurrent
    timer: bool = False                     # turn the battle timer on in each battle
    memory_every: int = 0                   # sample this process's memory every N finished battles
    thoughts: bool | None = None            # with log_dir: the player's thoughts beside each log (None: if it has some)
    spec: str = ""                          # the player's spec, naming it in its thoughts

NOT_FOUND = "was not found"  # the server's popup for a challenge to a user it does not know


@dataclass
class Finished:
    room: str
    won: bool | None          # None: the battle failed (error) or had no winner
    tie: bool
    error: str | None
    invalid: int              # choices refused as invalid
    unavailable: int          # choices refused for what the request did not show (re-decided)
    recovered: int            # refusals of either kind that the battle got past
    rating: tuple | None
    seconds: float
    timed_out: bool = False   # lost to the battle timer
    decision_ms: list = field(default_factory=list)   # per choice: ms from its message to the send


def decision_times(finished: list) -> dict:
    """Milliseconds from a request's message to our choice, over the finished battles:
    {n, p50, p90, p99, max} (None where no choice was made)."""
    ms = np.asarray([t for f in finished for t in f.decision_ms], dtype=np.float64)
    if not len(ms):
        return {"n": 0, "p50": None, "p90": None, "p99": None, "max": None}
    p50, p90, p99 = np.percentile(ms, [50, 90, 99])
    return {"n": len(ms), "p50": round(p50, 1), "p90": round(p90, 1), "p99": round(p99, 1), "max": round(ms.max(), 1)}


@dataclass
class Stats:
    finished: list = field(default_factory=list)
    reconnects: int = 0
    memory: list = field(default_factory=list)   # {"battles": N, **metapvp.engine.memory.sample()}


class ShowdownClient:
    def __init__(self, options: ClientOptions, player: Player, engine=None):
        self.o = options
        self.userid = to_id(options.username)
        thoughts = bool(options.log_dir) and (options.thoughts if options.thoughts is not None else player.thinks)
        self.battles = LiveBattles(options.username, player, engine, options.greedy, thoughts=thoughts)
        self.stats = Stats()
        self.ws = None
        self.logged_in = asyncio.Event()
        self.changed = asyncio.Event()       # something happened a waiting task may care about
        self.last_send = 0.0
        self.send_lock = asyncio.Lock()
        self.challenge_error: str | None = None
        self.challenging: str | None = None  # the user we have an open challenge to
        self.challenge_closed: float | None = None  # when our last challenge closed
        self.done_rooms: set[str] = set()
        self.rooms_seen: list[str] = []      # every battle room, in the order they began
        self.challenges = Challenges(options.accept_formats, options.accept_from, options.max_concurrent,
                                     options.max_queue)
        self.pms: list[tuple[str, str]] = []   # people's private messages to us (sender id, text)
        self.closing = False

    # --- connection ---------------------------------------------------------------------
    async def run(self):
        """Connects and reads until close(); reconnects with back-off when the connection drops."""
        attempt = 0
        while not self.closing:
            try:
                async with websockets.connect(self.o.url, max_size=2 ** 23, ping_interval=20,
                                              open_timeout=10) as ws:
                    self.ws = ws
                    attempt = 0
                    async for raw in ws:
                        await self.on_message(raw if isinstance(raw, str) else raw.decode())
                        await asyncio.sleep(0)  # let the tasks waiting on battles run between messages
            except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake, asyncio.TimeoutError) as e:
                if self.closing:
                    break
                log.warning("%s: connection lost (%s)", self.o.username, e)
            self.ws = None
            self.logged_in.clear()
            self.wake()
            if self.closing:
                break
            attempt += 1
            if attempt > self.o.reconnect_attempts:
                raise ShowdownError(f"could not reconnect to {self.o.url} after {attempt - 1} attempts")
            self.stats.reconnects += 1
            await asyncio.sleep(min(0.5 * 2 ** (attempt - 1), 15.0))

    async def run_with(self, job):
        """Keeps the connection (run()) going while `job`, a coroutine of this client's (play,
        serve), runs; returns its result. A connection that fails for good raises its error
        instead. The client is closed either way."""
        reader = asyncio.create_task(self.run())
        work = asyncio.ensure_future(job)
        try:
            await asyncio.wait({reader, work}, return_when=asyncio.FIRST_COMPLETED)
            if reader.done() and not work.done():
                work.cancel()
                reader.result()  # raises the connection's error
            return work.result()
        finally:
            await self.close()
            reader.cancel()

    async def close(self):
        self.closing = True
        if self.ws is not None:
            await self.ws.close()

    async def send(self, message: str):
        async with self.send_lock:
            wait = self.o.min_send_interval - (time.monotonic() - self.last_send)
            if wait > 0:
                await asyncio.sleep(wait)
            if self.ws is None:
                return
            try:
                await self.ws.send(message)
            except websockets.ConnectionClosed:
                return
            self.last_send = time.monotonic()

    def wake(self):
        self.changed.set()

    async def wait_change(self, timeout: float):
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    # --- messages -----------------------------------------------------------------------
    async def on_message(self, raw: str):
        room = ""
        if raw.startswith(">"):
            room, _, raw = raw[1:].partition("\n")
        if room.startswith("battle-"):
            await self.on_battle(room, raw)
            return
        for line in raw.split("\n"):
            await self.on_global(line)

    async def on_battle(self, room: str, message: str):
        if room in self.done_rooms:   # what a room says after its battle was reported
            return
        if message.startswith("|deinit") or message.startswith("|noinit"):
            self.finish(self.battles.drop(room, None if message.startswith("|deinit") else
                                          f"room gone: {message.strip()}"))
            await self.accept_queued()
            return
        new = room not in self.battles.battles
        if new:
            self.rooms_seen.append(room)
            self.challenges.room_began()
        for out in self.battles.handle(room, message):
            await self.send(out)
        if new:
            if self.o.timer:
                await self.send(f"{room}|/timer on")
            self.wake()
        b = self.battles.battles[room]
        if b.ended and b.room not in self.done_rooms:
            self.finish(b)
            await self.send(f"|/leave {room}")
            await self.accept_queued()

    async def on_global(self, line: str):
        log.debug("%s < %s", self.o.username, line[:300])
        if line.startswith("|challstr|"):
            await self.login(line[len("|challstr|"):])
        elif line.startswith("|updateuser|"):
            parts = line.split("|")
            name = parts[2].strip().lstrip("+%@*&#~ ").split("@")[0]
            if to_id(name) == self.userid and parts[3] == "1" and not self.logged_in.is_set():
                self.logged_in.set()
                await self.on_login()
        elif line.startswith("|nametaken|"):
            raise ShowdownError(f"the server refused the name {self.o.username!r}: {line.split('|', 3)[-1]}")
        elif line.startswith("|pm|"):
            parts = line.split("|", 4)
            if len(parts) == 5 and parts[4].startswith("/challenge"):
                await self.on_challenge(to_id(parts[2]), to_id(parts[3]), parts[4][len("/challenge"):].strip())
            elif len(parts) == 5 and to_id(parts[3]) == self.userid and not parts[4].startswith("/"):
                self.pms.append((to_id(parts[2]), parts[4]))
                self.wake()
        elif line.startswith("|popup|"):
            text = line[len("|popup|"):]
            if any(w in text.lower() for w in ("challeng", "too quickly", "too fast", "wait", "search", NOT_FOUND)):
                self.challenge_error = text.replace("||", " ")
                self.wake()
        elif "typing too quickly" in line:   # the server dropped a message: slow down
            self.o.min_send_interval = max(0.3, self.o.min_send_interval * 2)
            log.warning("%s: rate-limited; now %.1f s between messages", self.o.username, self.o.min_send_interval)

    async def login(self, challstr: str):
        if self.o.password is None:
            await self.send(trn(self.o.username))
            return
        try:
            assertion = await assertion_for(self.o.username, self.o.password, challstr, self.o.login_server)
        except LoginError as e:
            raise ShowdownError(str(e)) from None
        await self.send(trn(self.o.username, assertion))

    async def on_login(self):
        """After each (re)connection: the team, and a rejoin of every battle still going (a
        room that no longer exists answers |noinit| and its battle ends as an error)."""
        if self.o.team:
            await self.send(f"|/utm {self.o.team}")
        for room, b in list(self.battles.battles.items()):
            if not b.ended:
                await self.send(f"|/join {room}")
        self.wake()

    async def on_challenge(self, sender: str, receiver: str, spec: str):
        """Challenges are private messages: `/challenge FORMAT|...` opens one, `/challenge`
        alone closes it (accepted, rejected or cancelled). What each gets is Challenges': a
        challenge that arrives while max_concurrent battles run waits in a queue (up to
        max_queue), first come first served, and its sender is told where it stands."""
        fmt = spec.split("|")[0]
        if sender == self.userid:
            self.challenging = receiver if fmt else None
            self.challenge_closed = None if fmt else time.monotonic()
            self.wake()
            return
        if receiver != self.userid:
            return
        self.challenges.withdraw(sender)   # withdrawn (or sent again: it goes to the back)
        if not fmt:
            return
        answer = self.challenges.answer(sender, fmt, self.running())
        if answer.kind == "accept":
            await self.accept(sender)
        elif answer.kind == "queue":
            await self.pm(sender, answer.message)
        else:
            await self.reject(sender, answer.message)

    async def accept(self, sender: str):
        if self.o.team:
            await self.send(f"|/utm {self.o.team}")
        self.challenges.accepting()
        await self.send(f"|/accept {sender}")

    async def reject(self, sender: str, why: str):
        await self.send(f"|/reject {sender}")
        await self.pm(sender, why)

    async def pm(self, user: str, text: str):
        await self.send(f"|/pm {user}, {text}")

    async def accept_queued(self):
        """A battle slot came free: the longest-waiting challenge gets it."""
        while (sender := self.challenges.next_waiting(self.running())) is not None:
            await self.accept(sender)

    def finish(self, b: BattleState | None):
        if b is None or b.room in self.done_rooms:
            return
        self.done_rooms.add(b.room)
        won = self.battles.won(b)
        self.stats.finished.append(Finished(b.room, won, b.winner == "" and not b.error, b.error,
                                            b.invalid, b.unavailable, b.recovered, b.rating,
                                            time.monotonic() - b.started, b.timed_out, b.decision_ms))
        if self.o.log_dir:
            Path(self.o.log_dir).mkdir(parents=True, exist_ok=True)
            path = Path(self.o.log_dir) / f"{b.room}.log"
            if self.battles.recorder and b.perspective:
                write_thoughts(thoughts_path(path), b.room, {b.perspective: self.o.spec or self.battles.player.name},
                               self.battles.recorder.take(b.room))
            path.write_text("\n".join(b.log) + "\n")
        self.battles.battles.pop(b.room, None)
        if self.o.memory_every and len(self.stats.finished) % self.o.memory_every == 0:
            self.stats.memory.append({"battles": len(self.stats.finished), **memory.sample()})
        self.wake()

    def running(self) -> int:
        return sum(1 for b in self.battles.battles.values() if not b.ended)

    # --- what a run does --------------------------------------------------------------------
    async def play(self, fmt: str, total: int, opponent: str | None = None, timeout: float = 3600.0,
                   pending_timeout: float = 60.0) -> list[Finished]:
        """Starts `total` battles, keeping at most max_concurrent running: ladder searches
        (`/search`), or challenges to `opponent`. Returns them once all have ended (failed
        ones as errors)."""
        first_room = len(self.rooms_seen)
        pending_since = None              # a search or challenge is out since then
        missing_since = None              # the opponent was not on the server since then
        launched_rooms = 0
        deadline = time.monotonic() + timeout

        def started() -> set[str]:
            return set(self.rooms_seen[first_room:])

        def done():
            rooms = started()
            return [f for f in self.stats.finished if f.room in rooms]
        while len(done()) < total:
            if time.monotonic() > deadline:
                raise ShowdownError(f"{total} battles did not finish within {timeout:.0f} s")
            if not self.logged_in.is_set():
                pending_since = None
                await self.wait_change(1.0)
                continue
            if len(started()) > launched_rooms:   # a battle began: the search or challenge is answered
                launched_rooms = len(started())
                pending_since = missing_since = None
            # a cooldown, a rate limit, an opponent not there yet: back off, then try again
            if self.challenge_error:
                log.info("%s: %s", self.o.username, self.challenge_error)
                if NOT_FOUND in self.challenge_error:
                    missing_since = missing_since or time.monotonic()
                    if time.monotonic() - missing_since > pending_timeout:
                        raise ShowdownError(f"{opponent!r} has not been on the server for {pending_timeout:.0f} s: "
                                            f"{self.challenge_error}")
                self.challenge_error = None
                pending_since = None
                await asyncio.sleep(2.0)
                continue
            if (pending_since is not None and opponent and self.challenging is None and self.challenge_closed
                    and time.monotonic() - self.challenge_closed > 5.0):
                pending_since = None      # closed with no battle: rejected
            if pending_since is not None and time.monotonic() - pending_since > pending_timeout:
                await self.send(f"|/cancelchallenge {opponent}" if opponent else "|/cancelsearch")
                pending_since = None
            if pending_since is None and len(started()) < total and self.running() < self.o.max_concurrent:
                self.challenge_closed = None
                await self.send(f"|/challenge {opponent}, {fmt}" if opponent else f"|/search {fmt}")
                pending_since = time.monotonic()
            await self.wait_change(1.0)
        return done()

    async def serve(self, total: int | None = None):
        """challenge_bot: accepts challenges (see on_challenge) until `total` battles have
        finished, or forever."""
        while total is None or len(self.stats.finished) < total:
            await self.wait_change(5.0)
        return self.stats.finished
