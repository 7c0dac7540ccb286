"""The move API's protocol, for clients that track a battle themselves (the transport, newline-
delimited JSON over TCP, is metapvp/api/serving.py).

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

import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from metapvp.engine import Engine
from metapvp.engine.bridge import BattleError, request_side
from metapvp.engine.v8 import own_context
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


def default_shards() -> int:
    """Engines side by side by default: one a CPU this process may use, at most 8 (each adds a V8)."""
    return min(8, len(os.sched_getaffinity(0)))


@dataclass
class ApiBattle:
    perspective: str
    shard: int                       # the engine (MoveApi.engines) that holds its view
    last_used: float = field(default_factory=time.monotonic)


@dataclass
class Job:
    """One request past its checks, waiting for its battle's engine: `slot` its place in the batch."""
    slot: int
    battle: str
    state: ApiBattle
    message: str
    sample: bool
    rqid: int | None = None              # the request's, once encoded
    choices: dict[int, str] | None = None  # its legal actions' choice strings, once encoded


class MoveApi:
    """The battles and the model; answer_many() is the whole protocol, transport aside.

    `shards` engines each hold some of the battles (a new battle goes to the one holding fewest):
    each has a V8 context of its own, so calls for different shards (protocol lines, a search
    player's searches) run side by side from several threads at once (serve() runs one batcher a
    shard, each calling answer_parsed() with its shard's requests). The network sees each call's
    decisions in one forward pass."""

    def __init__(self, player: NeuralPlayer | GuidedPlayer, limits: Limits | None = None, engine: Engine | None = None,
                 shards: int = 1):
        if shards < 1:
            raise ValueError(f"shards must be at least 1, not {shards}")
        self.player = player
        self.limits = limits or Limits()
        self.engine = engine or Engine(player.contract)
        self.engines = [self.engine] + [Engine(player.contract, own_context(player.contract))
                                        for _ in range(shards - 1)]
        self.battles: dict[str, ApiBattle] = {}
        self.lock = threading.Lock()          # over the two tables, shared by the threads
        self.sampling = threading.Lock()
        self.routed: dict[str, list] = {}     # battle -> [requests in flight, shard where it is new]
        self.passes = self.decided = 0        # forward passes, and the decisions they were over
        self.opened = [0] * shards            # battles each shard has opened

    def route(self, battle: str | None) -> int:
        """The shard whose engine holds (or will hold) `battle`, for a request about to be
        answered; done(battle) once it is. A battle is not expired while a request is in flight."""
        if battle is None:
            return 0
        with self.lock:
            if battle in self.routed:
                self.routed[battle][0] += 1
                return self.routed[battle][1]
            state = self.battles.get(battle)
            shard = state.shard if state else self._least_loaded()
            self.routed[battle] = [1, shard]
            return shard

    def done(self, battle: str | None):
        """A request routed to `battle`'s shard was answered."""
        with self.lock:
            flight = self.routed.get(battle)
            if flight is not None:
                flight[0] -= 1
                if flight[0] <= 0:
                    del self.routed[battle]

    def _least_loaded(self) -> int:
        """(with the lock) the shard with the fewest battles open or on their way."""
        load = [0] * len(self.engines)
        for state in self.battles.values():
            load[state.shard] += 1
        for battle, (_, shard) in self.routed.items():
            load[shard] += battle not in self.battles
        return load.index(min(load))

    def answer(self, text: str) -> dict:
        return self.answer_many([text])[0]

    def answer_many(self, texts: list[str]) -> list[dict]:
        """One reply per request line, in order. Requests for different battles are decided
        together (one engine call per shard, one forward pass); a battle's second request among
        them waits for its first's answer. A bad request gets its error and holds up no other."""
        return self.answer_parsed([parse_request(t) for t in texts])

    def answer_parsed(self, parsed: list[tuple]) -> list[dict]:
        """answer_many() of requests parse_request() has read already."""
        replies: list[dict] = []
        while len(replies) < len(parsed):
            seen, end = set(), len(replies)
            while end < len(parsed) and (parsed[end][0] is None or parsed[end][0] not in seen):
                seen.add(parsed[end][0])
                end += 1
            replies += self._answer_round(parsed[len(replies):end])
        return replies

    def _answer_round(self, parsed: list[tuple]) -> list[dict]:
        """Replies to requests (battle, request object or RequestError) for distinct battles."""
        self.expire()
        replies: list[dict | None] = [None] * len(parsed)
        by_shard: dict[int, list[Job]] = {}
        for i, (battle, req) in enumerate(parsed):
            try:
                if isinstance(req, RequestError):
                    raise req
                job = self._job(i, battle, req)
            except RequestError as e:
                replies[i] = {"battle": battle, "error": str(e)}
                continue
            if isinstance(job, dict):
                replies[i] = job
            else:
                by_shard.setdefault(job.state.shard, []).append(job)
        fed = self._each([(jobs, None) for jobs in by_shard.values()], self._feed, replies)
        deciding = [part for part in fed if part[0]]
        if not deciding:
            return replies
        try:
            obs = deciding[0][1] if len(deciding) == 1 else \
                {k: np.concatenate([o[k] for _, o in deciding]) for k in deciding[0][1]}
            probs, win = self.player.evaluate(obs)
            self.passes += 1
            self.decided += len(probs)
        except Exception as e:  # noqa: BLE001 -- every request gets an answer; the server goes on
            log.exception("the forward pass over %d decisions failed", sum(len(j) for j, _ in deciding))
            for jobs, _ in deciding:
                for job in jobs:
                    replies[job.slot] = self._internal(job.battle, e)
            return replies
        parts, at = [], 0
        for jobs, o in deciding:
            parts.append((jobs, (o, probs[at:at + len(jobs)], win[at:at + len(jobs)])))
            at += len(jobs)
        self._each(parts, self._decide, replies)
        return replies

    def _each(self, parts: list[tuple], work, replies: list) -> list[tuple]:
        """work(jobs, extra, replies) for each (jobs, extra) of one shard; where it raises, its
        jobs get internal errors (their battles forgotten). -> what each returned, ([], {})
        where it raised."""
        out = []
        for jobs, extra in parts:
            try:
                out.append(work(jobs, extra, replies))
            except Exception as e:  # noqa: BLE001 -- every request gets an answer; the server goes on
                log.exception("requests for %s failed", [j.battle for j in jobs])
                for job in jobs:
                    replies[job.slot] = self._internal(job.battle, e)
                out.append(([], {}))
        return out

    def _internal(self, battle: str, e: Exception) -> dict:
        self._forget(battle)
        return {"battle": battle, "error": f"internal error: {type(e).__name__}: {e}"}

    def _job(self, slot: int, battle: str, req: dict) -> Job | dict:
        """A request checked, its battle opened if new: a Job, or the reply where it needs no engine."""
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
            perspective = self._perspective(req, request)
            with self.lock:
                shard = self.routed[battle][1] if battle in self.routed else self._least_loaded()
            engine = self.engines[shard]
            try:
                engine.open(battle, perspective)
                self.opened[shard] += 1
            except BattleError as e:
                raise RequestError(str(e)) from None
            state = ApiBattle(perspective, shard)
            with self.lock:  # (another shard's thread may have opened the last place meanwhile)
                full = len(self.battles) >= self.limits.max_battles
                if not full:
                    self.battles[battle] = state
            if full:
                engine.close_view(battle, perspective)
                raise RequestError(f"too many battles open ({self.limits.max_battles}); close some")
        state.last_used = time.monotonic()
        message = "\n".join(lines + ([f"|request|{request}"] if request else []))
        return Job(slot, battle, state, message, bool(req.get("sample")))

    def _feed(self, jobs: list[Job], _, replies: list) -> tuple[list[Job], dict]:
        """One engine call for jobs of one shard: their lines fed, their battles encoded; the
        replies of those with nothing to decide written. -> (the jobs deciding, their obs)."""
        engine = self.engines[jobs[0].state.shard]
        batch = engine.batch(feed=[(j.battle, j.state.perspective, j.message) for j in jobs if j.message],
                             encode=[(j.battle, j.state.perspective) for j in jobs], choices=True)
        failed = {}
        for e in batch.errors:
            failed.setdefault(e.battle, e)
        records = {r.battle: r for r in batch.records}
        deciding, rows = [], []
        for job in jobs:
            rec = records.get(job.battle)
            if job.battle in failed or rec is None:
                self._forget(job.battle)  # its state can no longer be trusted
                replies[job.slot] = {"battle": job.battle, "error": str(failed.get(job.battle, "not encoded"))}
            elif rec.ended:
                self._forget(job.battle)
                replies[job.slot] = {"battle": job.battle, "choice": None, "ended": True, "winner": rec.winner}
            elif not rec.decision:
                replies[job.slot] = {"battle": job.battle, "choice": None, "ended": False}
            else:
                job.rqid = rec.rqid
                job.choices = {int(a): c for a, c in rec.choices.items()}
                deciding.append(job)
                rows.append(rec.row)
        return deciding, {k: v[rows] for k, v in batch.obs.items()}  # (indexing copies out of the buffer)

    def _decide(self, jobs: list[Job], policy: tuple, replies: list) -> None:
        """The choices of one shard's deciding jobs, given (their obs, the policy's probabilities
        and win estimates for them)."""
        obs, probs, win = policy
        actions = probs.argmax(-1)
        best = [i for i, j in enumerate(jobs) if not j.sample]
        if best:  # the player's best: the most probable action, or what a lookahead or search keeps
            engine = self.engines[jobs[0].state.shard]
            keys = [(jobs[i].battle, jobs[i].state.perspective) for i in best]
            some = obs if len(best) == len(jobs) else {k: v[best] for k, v in obs.items()}
            actions[best] = self.player.choose(Decisions(keys, some, engine), probs[best])
        for i, job in enumerate(jobs):
            p = probs[i]
            if job.sample:
                with self.sampling:   # (the generator is the player's, one for every shard's thread)
                    actions[i] = int(sample(torch.as_tensor(p)[None], self.player.generator)[0])
            choices = job.choices  # the legal ones
            if not choices:  # a request that allows nothing (malformed): the simulator's own pick
                replies[job.slot] = {"battle": job.battle, "choice": "default", "action": None, "rqid": job.rqid,
                                     "probs": {}, "win": float(win[i])}
                continue
            action = allowed(int(actions[i]), obs["action.mask"][i], p)
            replies[job.slot] = {"battle": job.battle, "choice": choices[action], "action": action, "rqid": job.rqid,
                                 "probs": {c: round(float(p[a]), 6) for a, c in choices.items()},
                                 "win": float(win[i])}

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
        with self.lock:
            state = self.battles.pop(battle, None)
        if state is not None:
            self.engines[state.shard].close_view(battle, state.perspective)
        return state is not None

    def expire(self):
        """Forgets the battles idle for longer than the limit (none with a request in flight)."""
        now = time.monotonic()
        with self.lock:
            idle = [b for b, s in self.battles.items()
                    if now - s.last_used > self.limits.idle_seconds and b not in self.routed]
        for battle in idle:
            self._forget(battle)

    def close(self):
        """Frees the shards' own engines."""
        for engine in self.engines[1:]:
            engine.close()


def parse_request(text: str) -> tuple[str | None, dict | RequestError]:
    """(battle, request object) of a request line, or (the battle where it names one, the
    RequestError naming what is wrong)."""
    try:
        req = json.loads(text)
    except json.JSONDecodeError as e:
        return None, RequestError(f"not JSON: {e}")
    except RecursionError:
        return None, RequestError("not JSON this server reads: nested too deeply")
    if not isinstance(req, dict):
        return None, RequestError("a request must be a JSON object")
    battle = req.get("battle")
    if not isinstance(battle, str) or not battle or len(battle) > 200:
        return None, RequestError("'battle' must be a non-empty string of at most 200 characters")
    return battle, req
