"""The embedded V8 context: build/engine.js loaded once per process into mini-racer.

Every call into V8 costs ~0.25 ms whatever its size, so callers batch: one call carries the work
of many battles and returns a small JSON string, while observations are read in place from
ArrayBuffers that JavaScript owns (mini-racer hands them to Python as live memoryviews)."""
from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
import weakref
from pathlib import Path

import numpy as np
from py_mini_racer import JSEvalException, JSTimeoutException, MiniRacer, init_mini_racer

from metapvp import ROOT
from metapvp.contract import Contract, load
from metapvp.engine.types import EngineError

log = logging.getLogger(__name__)
BUNDLE = ROOT / "build" / "engine.js"
CHECKS_BUNDLE = ROOT / "build" / "checks.js"   # the same plus what tests and benchmarks call (js/checks)

# mini-racer starts V8 with --single-threaded unless told otherwise: GC marking and JIT
# compilation then run on the JS thread, and the simulator runs ~30% slower (measured by
# metapvp/exe/bench.py). metapvp starts every process that uses V8 with `spawn` and never forks
# one, so V8 keeps its background threads. A program that forks (without exec) after loading V8
# should set METAPVP_V8_FLAGS=--single-threaded.
V8_FLAGS = os.environ.get("METAPVP_V8_FLAGS", "").split()
# No call into V8 may take longer: a stuck context is an error, never a hang. Generous, since
# one call may play a whole batch of battles (or a whole check, like checkKnowledge).
CALL_TIMEOUT_S = float(os.environ.get("METAPVP_V8_TIMEOUT", "600"))


class V8:
    """One mini-racer context with the bundle and a contract loaded."""

    def __init__(self, contract: Contract, bundle: Path = BUNDLE):
        if not bundle.is_file():
            raise EngineError(f"{bundle} is missing: run any command through ./rp to build it")
        start = time.perf_counter()
        init_mini_racer(flags=V8_FLAGS, ignore_duplicate_init=True)  # no-op once V8 is up
        self.ctx = MiniRacer()
        self._eval_lock = threading.Lock()
        self.stuck: str | None = None   # why this context can no longer be used
        # JS objects whose Python owners are gone, destroyed at the next call: a finalizer can run
        # in the middle of a call (the garbage collector, while mini-racer converts its result)
        # and must not wait for the lock that call holds
        self._doomed: list[int] = []
        self.ctx.eval(bundle.read_text())
        # eval(code) for code written once; invoke(text) for every call, its arguments a value
        self._eval, self._invoke = _direct_paths(self.ctx) or _public_paths(self.ctx)
        self.contract = contract
        info = json.loads(self.eval(f"metapvp.init({contract.js_args()})"))  # (args already JSON)
        if info["recordBytes"] != contract.record_bytes:
            raise EngineError(f"contract {contract.name}: JS lays records out in {info['recordBytes']}"
                              f" bytes, Python in {contract.record_bytes}")
        self.load_seconds = time.perf_counter() - start
        log.info("loaded %s into V8 in %.2f s", bundle.name, self.load_seconds)

    def eval(self, code: str):
        """Runs source code: for code that is the same every time (V8 keeps every distinct
        script it compiles, so calls with changing arguments go through _fn)."""
        return self._guarded(self._eval, code)

    def _guarded(self, run, text: str):
        if self.stuck:
            raise EngineError(self.stuck)
        try:
            with self._eval_lock:
                self._destroy_doomed()
                return run(text)
        except (JSTimeoutException, queue.Empty):
            # the call may still be running (the fast path cannot interrupt it) and its late
            # answer would pass for the next call's: this context is done with
            self.stuck = f"a call into V8 ran past {CALL_TIMEOUT_S:.0f} s ({text[:80]!r}); the context is unusable"
            raise EngineError(self.stuck) from None
        except JSEvalException as e:
            raise EngineError(_js_message(e)) from None

    def _destroy_doomed(self):
        while self._doomed:
            handle = self._doomed.pop()
            try:
                self._invoke(json.dumps(["destroy", [handle]]))
            except JSEvalException:
                log.debug("could not destroy JS object %d", handle, exc_info=True)

    def free_later(self, handle: int):
        """Destroys JS object `handle` at the next call (safe from a finalizer: takes no lock)."""
        self._doomed.append(handle)

    # --- the JavaScript API (the `metapvp` object of js/src/index.js), one method per function.
    # Arguments go in as JSON text (metapvp.invoke); functions that return JSON text are parsed here.

    def _fn(self, name: str, *args):
        return self._guarded(self._invoke, json.dumps([name, list(args)]))

    def call(self, handle: int, method: str, *args):
        """Calls a method of a JS object (an Engine or a Simulator); its JSON result, parsed."""
        return json.loads(self._fn("call", handle, method, list(args)))

    def create(self, kind: str) -> int:
        return int(self._fn("create", kind))

    def destroy(self, handle: int):
        self._fn("destroy", handle)

    def buffer(self, handle: int) -> memoryview:
        return self._fn("buffer", handle)

    def live_objects(self) -> int:
        return int(self._fn("liveObjects"))

    def pack_team(self, text: str) -> str:
        """A team in Showdown's export or packed format, packed; EngineError names what is wrong."""
        return self._fn("packTeam", text)

    def team_seeds(self, seed: str) -> list[str]:
        """The two random-team seeds a battle seed gives (as the in-process simulator draws them)."""
        return json.loads(self._fn("teamSeeds", seed))

    def spectator_lines(self, messages: list[str]) -> list[str]:
        return json.loads(self._fn("spectatorLines", messages))

    def narrate(self, lines: list[str], perspective: str = "p1") -> dict:
        """A battle's spectator log told turn by turn as `perspective` reads it: {turns: [{turn,
        lines: [sentences], sides: {p1: [...], p2: [...]}}], players, winner} (js/src/narrate.js);
        EngineError names the line it cannot read."""
        return json.loads(self._fn("narrate", lines, perspective))

    def spectator_of(self, lines: list[str]) -> dict:
        """A player's own log of a live battle as a spectator saw it: {log: its public lines (its
        own HP as percentages), side: the player's, team: its sets} (js/src/narrate.js)."""
        return json.loads(self._fn("spectatorOf", lines))

    def sets_in_words(self, sets: list[dict]) -> list[dict]:
        """Saved sets (moves by id) as a reader reads them: species, level, item, ability, tera and
        moves by name (js/src/narrate.js)."""
        return json.loads(self._fn("setsInWords", sets))

    def dex_tables(self) -> dict:
        return json.loads(self._fn("dexTables"))

    def legal_actions(self, request_json: str) -> dict:
        return json.loads(self._fn("legalActions", request_json))

    def checks(self, name: str, *args):
        """A function of the checks bundle (js/checks/index.js: checkMasks, checkKnowledge,
        playRaw, ...), in a context made by checks_context(); its JSON result, parsed."""
        return json.loads(self._fn(name, *args))

    def knowledge_stats(self) -> dict:
        """The damage calculator's counters and, under "cached", each knowledge cache's size."""
        return json.loads(self._fn("knowledgeStats"))

    def heap_stats(self) -> dict:
        """V8's heap: used_heap_size, total_heap_size, heap_size_limit... in bytes."""
        return self.ctx.heap_stats()


class OutputViews:
    """Numpy views over a JS object's output buffer, refetched only when JS replaced the buffer
    (its `generation` changed) because a batch outgrew it."""

    def __init__(self, v8: V8, handle: int):
        self.v8, self.handle = v8, handle
        self.generation = None
        self.buffer = None

    def __call__(self, generation: int, count: int):
        if generation != self.generation:
            self.buffer = self.v8.buffer(self.handle)
            self.generation = generation
        return self.v8.contract.views(self.buffer, count)

    def records(self, rows) -> np.ndarray:
        """Copies of whole records (len(rows), record_bytes) as raw bytes, valid after the next
        call (contract.views reads them back)."""
        size = self.v8.contract.record_bytes
        raw = np.frombuffer(self.buffer, dtype=np.uint8)
        return raw[: (max(rows, default=-1) + 1) * size].reshape(-1, size)[rows]


class V8Object:
    """Base of the Python handles on JS objects (Engine, Simulator): the object of `kind` made in
    this process's context, and its output buffer read in place."""
    kind = ""

    def __init__(self, contract: Contract | str | None = None, v8: V8 | None = None):
        """`v8`: the context to make it in (own_context() for one that runs beside the others);
        by default the process's shared one for `contract`."""
        self.v8 = v8 or context(contract)
        self.contract = self.v8.contract
        self.handle = self.v8.create(self.kind)
        self._views = OutputViews(self.v8, self.handle)
        # the JS object goes when close() is called, or else when this one is garbage-collected
        self._free = weakref.finalize(self, _free, self.v8, self.handle)

    def close(self):
        """Frees the JS object, its battles and its output buffer, at the context's next call
        (views of it must not be read after). Calling it again does nothing."""
        self._free()

    def scripted(self, policy: str, keys) -> list[int]:
        """Actions of a scripted player running in JS ('maxdamage', 'heuristic') for
        (battle id, side) pairs with decisions pending, in one call."""
        return self.v8.call(self.handle, "scripted", policy, [list(k) for k in keys])

    def lookahead(self, keys, candidates, play_on: int = 0, samples: int = 1) -> list:
        """Lookahead (js/src/lookahead.js) of candidate actions, one list of action indices per
        (battle id, side) pair: a turn, then `play_on` turns of both sides' hardest hits, each
        outcome averaged over `samples` draws of the battle's chances. Per pair: [mean, worst]
        material per candidate (None where the simulator refused it), None where there is
        nothing to look ahead at, or {"error": message} where it failed."""
        return self.v8.call(self.handle, "lookahead", [list(k) for k in keys],
                            [[int(a) for a in c] for c in candidates], int(play_on), int(samples))

    def search(self, keys, actions, priors, seeds, options: dict) -> list:
        """Searches (js/src/search.js) one decision per (battle id, side) pair, in one call:
        `actions` its candidate action indices, `priors` the policy's probabilities for them,
        `seeds` one per pair, `options` the budget and settings (SearchConfig.to_js(), whose
        seed each pair's replaces). Per pair: {best, visits, values, world_visits, foe_visits,
        nodes, worlds, steps, played_on, ms}, None where there is nothing to search, or
        {"error": message}."""
        return self.v8.call(self.handle, "search", [list(k) for k in keys], [[int(a) for a in c] for c in actions],
                            [[float(p) for p in c] for c in priors], [int(s) for s in seeds], dict(options))

    def engine_worlds(self, keys, worlds: int, seeds, told: bool | str = False, foes: bool = False) -> list:
        """Per (battle id, side) pair, in one call: {states: poke-engine states of `worlds` worlds
        drawn from the player's view (seeded by its seed), options: per world {the engine's name
        of one of our options: its action index}}, None where there is nothing to search (not a
        singles decision), or {"error": message} (js/src/enginestate.js). `told`: a diagnostic
        (the in-process simulator only), as BattleViews.engine_worlds says; `foes`: also, per world,
        the foe's team as drawn (for a reader of the player's thoughts)."""
        return self.v8.call(self.handle, "engineWorlds", [list(k) for k in keys], int(worlds), [int(s) for s in seeds],
                            told if isinstance(told, str) else bool(told), bool(foes))

    def labels(self, keys) -> list:
        """Per (battle id, side) pair, in one call: {action index (a string): the action in
        words, e.g. "Thunderbolt + Tera"} for every legal action of its request, or {"error":
        message} (js/src/thoughts.js)."""
        return self.v8.call(self.handle, "labels", [list(k) for k in keys])

    def records(self, rows) -> np.ndarray:
        """Raw copies of rows of the last call's records, (len(rows), record_bytes) uint8."""
        return self._views.records(rows)


def _free(v8: V8, handle: int):
    v8.free_later(handle)


def _public_paths(ctx: MiniRacer):
    """mini-racer's public eval and function call (each through its asyncio loop thread)."""
    invoke = ctx.eval("metapvp.invoke")

    def public_eval(code: str):
        return ctx.eval(code, timeout_sec=CALL_TIMEOUT_S)

    def public_invoke(text: str):
        return invoke(text, timeout_sec=CALL_TIMEOUT_S)
    return public_eval, public_invoke


def _direct_paths(ctx: MiniRacer):
    """MiniRacer.eval hands each call to an asyncio loop thread, which hands it to V8's thread and
    waits for a callback: ~0.2 ms a call. Posting the task to V8 straight from the calling thread
    and waiting on the queue that mini-racer's own uncancelable tasks use costs ~0.07 ms. These are
    internals of mini-racer 0.14.0 (pinned exactly); if they moved, None: the public paths are
    used, and a warning says so. -> (eval(code), invoke(text)): invoke calls metapvp.invoke with
    `text` as its argument, set into an arguments array kept for the purpose."""
    try:
        from py_mini_racer import JSUndefined
        from py_mini_racer._context import _UNCANCELABLE_TASK_CALLBACK_ID as task_id
        c = ctx._ctx
        dll, handle, results = c._dll, c._ctx, c._non_cancelable_mr_task_results_queue
        to_js, to_py, wrap = c._python_to_value_handle, c._value_handle_to_python, c._wrap_raw_handle
        invoke_fn, this, argv, first = (to_js(ctx.eval("metapvp.invoke")), to_js(JSUndefined),
                                        to_js(ctx.eval("[]")), to_js(0))
        dll.mr_call_function, dll.mr_set_object_item  # noqa: B018 -- present in this version?
    except (ImportError, AttributeError) as e:
        log.warning("mini-racer's internals moved (%s): V8 calls take the public path, ~3x slower", e)
        return None

    def finish(task):
        try:
            value = results.get(timeout=CALL_TIMEOUT_S)
        except queue.Empty:
            dll.mr_cancel_task(handle, task)  # stop the JavaScript (else exiting waits for it)
            try:
                results.get(timeout=5.0)      # and take its answer out of the way
            except queue.Empty:
                pass
            raise
        out = to_py(value)
        if isinstance(out, memoryview):
            # mini-racer's memoryview points into the ArrayBuffer's memory but keeps only the
            # context alive; the value handle holds the buffer itself. Tied to the view, a buffer
            # JS has replaced (Output.grow) stays valid while any view of it is in use.
            out.obj.value_handle = value
        return out

    def direct_eval(code: str):
        code_handle = to_js(code)
        return finish(dll.mr_eval(handle, code_handle.raw, task_id))

    def direct_invoke(text: str):
        arg = to_js(text)
        to_py(wrap(dll.mr_set_object_item(handle, argv.raw, first.raw, arg.raw)))  # raises what JS raised
        return finish(dll.mr_call_function(handle, invoke_fn.raw, this.raw, argv.raw, task_id))
    return direct_eval, direct_invoke


def _js_message(e: JSEvalException) -> str:
    # mini-racer prefixes the source position and appends a stack; keep the "Error: ..." line.
    for line in str(e).splitlines():
        if "Error: " in line:
            return line.split("Error: ", 1)[1]
    return str(e)


_contexts: dict[tuple[str, Path], V8] = {}
_lock = threading.Lock()


def context(contract: Contract | str | None = None, bundle: Path = BUNDLE) -> V8:
    """This process's V8 context for `contract` (default: the default contract)."""
    c = _contract(contract)
    with _lock:
        if (c.hash, bundle) not in _contexts:
            _contexts[c.hash, bundle] = V8(c, bundle)
        return _contexts[c.hash, bundle]


def own_context(contract: Contract | str | None = None) -> V8:
    """A context of its own for `contract`, shared with no one: a separate V8 isolate, so calls
    into it run beside calls into the others, from another Python thread (mini-racer waits for
    V8 without holding the GIL). It costs a load of the bundle (V8.load_seconds) and its memory."""
    return V8(_contract(contract))


def _contract(contract: Contract | str | None) -> Contract:
    """A contract given, by name, or the default one."""
    return contract if isinstance(contract, Contract) else load(contract or "singles-v1")


def checks_context(contract: Contract | str | None = None) -> V8:
    """A context with the checks bundle (build/checks.js), for tests and benchmarks: the product
    bundle plus the mask check, the knowledge check and the raw simulator (V8.checks)."""
    return context(contract, CHECKS_BUNDLE)


def contexts() -> list[V8]:
    """The V8 contexts this process has started, one per contract."""
    with _lock:
        return list(_contexts.values())
