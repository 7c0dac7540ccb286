"""The stdio backend: each battle is a child process running the official `pokemon-showdown
simulate-battle`, spoken to in the simulator protocol (`>start`, `>player`, `>p1 move 1`; output
blocks `update`, `sideupdate`, `end`, separated by blank lines). The messages feed the same
headless clients and encoder as the in-process backend, through metapvp.engine.Engine.

Children are reaped when their battle ends, on abort() and close(), and at interpreter exit; a
child that dies or stops answering fails its own battle with a clear error, and the others go
on."""
from __future__ import annotations

import atexit
import json
import os
import selectors
import subprocess
import time
import weakref

from metapvp import ROOT
from metapvp.engine import BattleError, Decision, Ended, Engine, EngineError, Step

SHOWDOWN = ROOT / "js" / "node_modules" / "pokemon-showdown" / "pokemon-showdown"
ANSWER_TIMEOUT = 60.0  # seconds a child may take to answer before its battle is failed
SIDES = ("p1", "p2")
_live = weakref.WeakSet()


@atexit.register
def _reap_all():
    for sim in list(_live):
        sim.close()


class _Battle:
    def __init__(self, spec, proc):
        self.spec, self.proc = spec, proc
        self.buffer = b""
        self.messages: list[str] = []     # read, not yet fed
        self.updates: list[str] = []      # every update message, for the saved log
        self.requested: set[str] = set()  # sides sent a request since our last write
        self.pending = {s: False for s in SIDES}  # a request or error to answer
        self.end: dict | None = None
        self.error: str | None = None
        self.answered_with_error = False  # an |error| answered the last choices: re-decide


class StdioSimulator:
    """A Backend (metapvp/engine/types.py), like metapvp.engine.Simulator."""

    def __init__(self, contract=None, node: str = "node"):
        if not SHOWDOWN.is_file():
            raise FileNotFoundError(f"{SHOWDOWN} is missing: run through ./rp to install npm packages")
        self.engine = Engine(contract)
        self.contract = self.engine.contract
        self.node = node
        self.battles: dict[str, _Battle] = {}
        self.selector = selectors.DefaultSelector()
        _live.add(self)

    # -- the Backend protocol ----------------------------------------------------------------

    def start(self, battles: list[dict]) -> Step:
        return self.step([], battles)

    def step(self, actions, start=()) -> Step:
        errors: list[BattleError] = []
        touched = []
        for b in self.battles.values():
            b.answered_with_error = False
        for battle_id, side, action in actions:
            b = self.battles.get(battle_id)
            if b is None:
                errors.append(BattleError(battle_id, side, f"battle {battle_id}: no such battle running"))
                continue
            self._choose(b, battle_id, side, int(action))
            touched.append(battle_id)
        for spec in start:
            try:
                self._spawn(spec)
                touched.append(spec["id"])
            except (OSError, BattleError, KeyError, ValueError) as e:
                errors.append(e if isinstance(e, BattleError) else
                              BattleError(spec.get("id"), None, f"battle {spec.get('id')}: {e}"))
        self._wait(set(touched))
        return self._collect(set(touched), errors)

    def scripted(self, policy: str, keys) -> list[int]:
        return self.engine.scripted(policy, keys)

    def lookahead(self, keys, candidates, play_on: int = 0, samples: int = 1) -> list:
        """As the in-process simulator's: the battle rebuilt from the player's view (the engine's)
        and played ahead in the bundle's simulator."""
        return self.engine.lookahead(keys, candidates, play_on, samples)

    def search(self, keys, actions, priors, seeds, options: dict) -> list:
        """As the in-process simulator's: over worlds rebuilt from the player's view (the
        engine's), in the bundle's simulator."""
        return self.engine.search(keys, actions, priors, seeds, options)

    def engine_worlds(self, keys, worlds: int, seeds, told: bool | str = False, foes: bool = False) -> list:
        """As the in-process simulator's: worlds drawn from the player's view (the engine's;
        `told` is an error per pair, the true battle being the child simulator's)."""
        return self.engine.engine_worlds(keys, worlds, seeds, told, foes)

    def labels(self, keys) -> list:
        return self.engine.labels(keys)

    def abort(self, ids=None) -> int:
        drop = [i for i in (self.battles if ids is None else ids) if i in self.battles]
        for battle_id in drop:
            self._drop(battle_id)
        return len(drop)

    def close(self):
        self.abort()
        self.engine.close()

    def __del__(self):
        try:
            self.abort()
        except Exception:  # noqa: BLE001 -- interpreter shutdown
            pass

    # -- children ------------------------------------------------------------------------------

    def _spawn(self, spec):
        battle_id = spec["id"]
        if battle_id in self.battles:
            raise BattleError(battle_id, None, f"battle {battle_id}: battle id already in use")
        # One seed fixes the battle and both random teams, drawn as the in-process backend does.
        spec.setdefault("seed", ",".join(str(x) for x in os.urandom(4)))
        lines = [f">start {json.dumps({'formatid': spec['format'], 'seed': spec['seed']})}"]
        seeds = self.engine.v8.team_seeds(spec["seed"])
        for side, seed in zip(SIDES, seeds):
            player = {"name": side, "seed": seed}
            if spec.get(f"{side}team"):
                try:
                    player["team"] = self.engine.v8.pack_team(spec[f"{side}team"])
                except EngineError as e:
                    raise BattleError(battle_id, side, f"battle {battle_id}: {side}'s team: {e}") from None
            lines.append(f">player {side} {json.dumps(player)}")
        proc = subprocess.Popen([self.node, str(SHOWDOWN), "simulate-battle", "--skip-build"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                cwd=SHOWDOWN.parent)
        os.set_blocking(proc.stdout.fileno(), False)
        b = _Battle(spec, proc)
        self.battles[battle_id] = b
        self.selector.register(proc.stdout, selectors.EVENT_READ, battle_id)
        for side in SIDES:
            self.engine.open(battle_id, side)
        self._write(b, battle_id, lines)

    def _choose(self, b: _Battle, battle_id: str, side: str, action: int):
        """Refusals follow the engine's rule, and are counted there (js/src/view.js): a refused
        action is banned for the request, the player decides again, and the default choice comes
        after a few."""
        try:
            choice = self.engine.choice(battle_id, side, action)
        except BattleError:
            choice = None
        b.pending[side] = False
        if choice is None:  # no such choice for this request: invalid, decide again
            b.pending[side] = True
            return
        self._write(b, battle_id, [f">{side} {choice}"])

    def _write(self, b: _Battle, battle_id: str, lines):
        b.requested = set()
        try:
            b.proc.stdin.write(("\n".join(lines) + "\n").encode())
            b.proc.stdin.flush()
        except OSError as e:
            code = b.proc.poll()
            self._fail(b, f"the simulator process exited (code {code})" if code is not None
                       else f"could not write to the simulator process: {e}")

    def _wait(self, ids: set[str]):
        """Reads children's output until every battle in `ids` has answered what it was sent."""
        deadline = time.monotonic() + ANSWER_TIMEOUT
        waiting = {i for i in ids if i in self.battles and not self._settled(self.battles[i])}
        while waiting:
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                for i in waiting:
                    self._fail(self.battles[i], f"no answer from the simulator in {ANSWER_TIMEOUT:.0f} s")
                return
            for key, _ in self.selector.select(timeout):
                battle_id = key.data
                b = self.battles[battle_id]
                try:
                    chunk = b.proc.stdout.read()
                except OSError:
                    chunk = None
                if chunk:
                    self._receive(b, chunk)
                elif chunk == b"":  # end of file: the child has exited
                    self.selector.unregister(b.proc.stdout)
                    if b.end is None:
                        code = b.proc.wait()
                        self._fail(b, f"the simulator process exited (code {code}) before the battle ended")
            waiting = {i for i in waiting if not self._settled(self.battles[i])}

    def _receive(self, b: _Battle, chunk: bytes):
        b.buffer += chunk
        *blocks, b.buffer = b.buffer.split(b"\n\n")
        for raw in blocks:
            block = raw.decode()
            kind, _, data = block.partition("\n")
            if kind == "update":
                b.messages.append(("update", data))
                b.updates.append(data)
            elif kind == "sideupdate":
                side, _, message = data.partition("\n")
                b.messages.append((side, message))
                if message.startswith("|request|"):
                    b.requested.add(side)
                    b.pending[side] = True  # a wait request is dropped once encoded
                elif message.startswith("|error|"):  # (the view counts the refusal)
                    b.pending[side] = True
                    b.answered_with_error = True
            elif kind == "end":
                b.end = json.loads(data)

    @staticmethod
    def _settled(b: _Battle) -> bool:
        # Once a turn is decided the simulator sends both sides a request (possibly "wait"); after
        # an |error| nothing more comes until that side chooses again.
        return (b.end is not None or b.error is not None or b.answered_with_error
                or b.requested == set(SIDES))

    def _fail(self, b: _Battle, message: str):
        if b.error is None:
            b.error = f"battle {b.spec['id']}: {message}"

    # -- results -------------------------------------------------------------------------------

    def _collect(self, ids: set[str], errors: list) -> Step:
        feed, keys = [], []
        for battle_id in ids:
            b = self.battles.get(battle_id)
            if b is None:
                continue
            for target, message in b.messages:
                for side in (SIDES if target == "update" else (target,)):
                    feed.append((battle_id, side, message))
            b.messages = []
            if b.end is None and b.error is None:
                keys += [(battle_id, side) for side in SIDES if b.pending[side]]
        batch = self.engine.batch(feed=feed, encode=keys)
        for err in batch.errors:
            errors.append(err)
            if err.battle in self.battles:
                self._fail(self.battles[err.battle], str(err))
        decisions, rows = [], []
        for rec in batch.records:
            b = self.battles[rec.battle]
            if rec.decision and b.error is None:
                rows.append(rec.row)
                decisions.append(Decision(rec.battle, rec.perspective, len(rows) - 1, rec.turn))
            elif not rec.decision:
                b.pending[rec.perspective] = False  # a wait request
        obs = {k: v[rows] for k, v in batch.obs.items()} if rows else \
            {k: v[:0] for k, v in batch.obs.items()}
        ended = []
        for battle_id in ids:
            b = self.battles.get(battle_id)
            if b is not None and (b.end is not None or b.error is not None):
                ended.append(self._finish(battle_id, b))
        return Step(decisions, obs, ended, errors)

    def _finish(self, battle_id: str, b: _Battle) -> Ended:
        winner = None
        if b.error is None:
            w = b.end.get("winner", "")
            winner = "p1" if w == "p1" else "p2" if w == "p2" else ""
        log = None
        if b.spec.get("keepLog"):
            saved = dict(b.end or {"seed": b.spec.get("seed")})
            saved["format"] = b.spec["format"]
            saved["log"] = self.engine.v8.spectator_lines(b.updates)
            if b.error:
                saved["error"] = b.error
            log = json.dumps(saved)
        turns = (b.end or {}).get("turns", 0)
        refused = self.engine.refused(battle_id, SIDES)
        self._drop(battle_id)
        return Ended(battle_id, b.spec.get("seed") or "", winner, turns, refused["invalid"], refused["unavailable"],
                     b.error, log)

    def _drop(self, battle_id: str):
        b = self.battles.pop(battle_id, None)
        if b is None:
            return
        for side in SIDES:
            self.engine.close_view(battle_id, side)
        try:
            self.selector.unregister(b.proc.stdout)
        except (KeyError, ValueError):
            pass
        if b.proc.poll() is None:
            b.proc.kill()
        b.proc.wait()
        for f in (b.proc.stdin, b.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


