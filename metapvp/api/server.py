"""The move API: newline-delimited JSON over TCP, for clients that track a battle themselves.

Request (one JSON object a line):
  {"battle": "battle-gen9randombattle-1", "new": true,     # "new" on a battle's first request
   "lines": ["|switch|p2a: Pikachu|Pikachu, L84|100/100", ...],   # protocol lines since the last
   "request": {...the |request| JSON, object or string...},       # the latest request, if any
   "perspective": "p1",                                           # optional: else request.side.id
   "sample": false}                                               # optional: sample, not the best
  {"battle": "...", "close": true}                                 # forget a battle
Reply:
  {"battle": ..., "choice": "move 1", "action": 0, "probs": {"move 1": 0.7, ...}, "win": 0.63}
  {"battle": ..., "choice": null, "ended": false}     (nothing to decide: a wait request)
  {"battle": ..., "choice": "default", "action": null, ...}  (a request that allows no action)
  {"battle": ..., "error": "what was wrong"}           (bad input: the server goes on)

Limits: at most max_battles at once; a battle idle for idle_seconds is forgotten; a protocol
line longer than max_line or a message longer than max_message bytes is refused."""
from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field

import torch

from metapvp.engine import Engine
from metapvp.engine.bridge import BattleError, request_side
from metapvp.models import sample
from metapvp.players.base import Decisions, GuidedPlayer, allowed
from metapvp.players.neural import NeuralPlayer

log = logging.getLogger(__name__)


class RequestError(ValueError):
    """A request the API cannot answer; its message goes back to the client."""


@dataclass
class Limits:
    max_battles: int = 256
    idle_seconds: float = 900.0
    max_line: int = 8192
    max_message: int = 1 << 20


@dataclass
class ApiBattle:
    perspective: str
    last_used: float = field(default_factory=time.monotonic)


class MoveApi:
    """The battles and the model; answer() is the whole protocol, transport aside."""

    def __init__(self, player: NeuralPlayer | GuidedPlayer, limits: Limits | None = None, engine: Engine | None = None):
        self.player = player
        self.limits = limits or Limits()
        self.engine = engine or Engine(player.contract)
        self.battles: dict[str, ApiBattle] = {}

    def answer(self, text: str) -> dict:
        battle = None
        try:
            try:
                req = json.loads(text)
            except json.JSONDecodeError as e:
                raise RequestError(f"not JSON: {e}") from None
            except RecursionError:
                raise RequestError("not JSON this server reads: nested too deeply") from None
            if not isinstance(req, dict):
                raise RequestError("a request must be a JSON object")
            battle = req.get("battle")
            if not isinstance(battle, str) or not battle or len(battle) > 200:
                raise RequestError("'battle' must be a non-empty string of at most 200 characters")
            return self._answer(battle, req)
        except RequestError as e:
            return {"battle": battle, "error": str(e)}
        except BattleError as e:
            self._forget(battle)  # its state can no longer be trusted
            return {"battle": battle, "error": str(e)}
        except Exception as e:  # noqa: BLE001 -- every request gets an answer; the server goes on
            log.exception("request for battle %r failed", battle)
            if isinstance(battle, str):
                self._forget(battle)
            return {"battle": battle, "error": f"internal error: {type(e).__name__}: {e}"}

    def _answer(self, battle: str, req: dict) -> dict:
        self.expire()
        if req.get("close"):
            if not self._forget(battle):
                raise RequestError(f"unknown battle {battle!r}")
            return {"battle": battle, "closed": True}
        lines = req.get("lines", [])
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise RequestError("'lines' must be a list of strings")
        for i, line in enumerate(lines):
            if len(line) > self.limits.max_line or "\n" in line:
                raise RequestError(f"line {i} is longer than {self.limits.max_line} characters or has a newline")
        request = req.get("request")
        if request is not None and not isinstance(request, str):
            request = json.dumps(request)
        state = self.battles.get(battle)
        if state is None:
            if not req.get("new"):
                raise RequestError(f"unknown battle {battle!r} (start one with \"new\": true)")
            if len(self.battles) >= self.limits.max_battles:
                raise RequestError(f"too many battles open ({self.limits.max_battles}); close some")
            state = ApiBattle(self._perspective(req, request))
            self.engine.open(battle, state.perspective)
            self.battles[battle] = state
        state.last_used = time.monotonic()
        message = "\n".join(lines + ([f"|request|{request}"] if request else []))
        batch = self.engine.batch(feed=[(battle, state.perspective, message)] if message else [],
                                  encode=[(battle, state.perspective)])
        batch.raise_first()
        rec = batch.records[0]
        if rec.ended:
            self._forget(battle)
            return {"battle": battle, "choice": None, "ended": True, "winner": rec.winner}
        if not rec.decision:
            return {"battle": battle, "choice": None, "ended": False}
        obs = {k: v.copy() for k, v in batch.obs.items()}
        probs, win = self.player.evaluate(obs)
        p = probs[0]
        if req.get("sample"):
            action = int(sample(torch.as_tensor(p)[None], self.player.generator)[0])
        else:  # the player's best: the most probable action, or what a lookahead or search player keeps
            action = int(self.player.choose(Decisions([(battle, state.perspective)], obs, self.engine), probs)[0])
        choices = self.engine.choices(battle, state.perspective)  # the legal ones, one V8 call
        if not choices:  # a request that allows nothing (malformed): the simulator's own pick
            return {"battle": battle, "choice": "default", "action": None, "rqid": rec.rqid, "probs": {},
                    "win": float(win[0])}
        action = allowed(action, obs["action.mask"][0], p)
        return {"battle": battle, "choice": choices[action], "action": action, "rqid": rec.rqid,
                "probs": {c: round(float(p[a]), 6) for a, c in choices.items()}, "win": float(win[0])}

    def _perspective(self, req: dict, request: str | None) -> str:
        side = req.get("perspective")
        if side is None and request:
            try:
                side = request_side(request)
            except (ValueError, RecursionError):
                raise RequestError("'request' is not valid request JSON") from None
        if side not in ("p1", "p2"):
            raise RequestError("a new battle needs 'perspective' (p1 or p2) or a request naming its side")
        return side

    def _forget(self, battle) -> bool:
        state = self.battles.pop(battle, None)
        if state is not None:
            self.engine.close_view(battle, state.perspective)
        return state is not None

    def expire(self):
        now = time.monotonic()
        for battle in [b for b, s in self.battles.items() if now - s.last_used > self.limits.idle_seconds]:
            self._forget(battle)


async def serve(api: MoveApi, host: str = "127.0.0.1", port: int = 5555, ready=None):
    """Serves `api` until cancelled; `ready` (an asyncio.Future) gets the bound port."""
    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as e:
                    if not e.partial.strip():
                        break
                    line = e.partial
                except asyncio.LimitOverrunError:
                    await _discard_line(reader, api.limits.max_message)
                    reply = {"battle": None, "error": f"message longer than {api.limits.max_message} bytes"}
                    writer.write((json.dumps(reply) + "\n").encode())
                    await writer.drain()
                    continue
                if not line.strip():
                    continue
                reply = api.answer(line.decode("utf-8", "replace"))
                writer.write((json.dumps(reply) + "\n").encode())
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(client, host, port, limit=api.limits.max_message)
    if ready is not None:
        ready.set_result(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


async def _discard_line(reader: asyncio.StreamReader, limit: int):
    """Drops the rest of an oversized line, so the next request starts clean."""
    while True:
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as e:
            await reader.readexactly(e.consumed)
        except asyncio.IncompleteReadError:
            return
