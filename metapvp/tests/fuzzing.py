"""Seeded fuzzing of the two doors untrusted text comes in by: Engine.batch (protocol lines and
|request| JSON, as a server sends them) and the move API over TCP. The inputs are recorded
battles (the golden files of every generation) with some of their lines mutated: fields dropped,
swapped, duplicated or replaced, text truncated or corrupted, JSON values of the wrong type.

What must hold, whatever the input: no exception escapes a call, every error names its battle,
and a clean battle fed in the same calls encodes exactly as it does alone. Used by the suite
(bounded) and by scripts/fuzz.py (as long as you like)."""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field

import numpy as np

from metapvp import ROOT

GOLDEN = ROOT / "metapvp" / "tests" / "data" / "golden"
ODD = ["", "|", "p3a: Nobody", "p1a", "-1", "0", "999999999999", "NaN", "1e309", "null", "\u0000",
       "\u202e", "💥", "[", "{", '"', "\\", "100/0", "0/0", "-5/100", "L-3", "Pikachu, L101, shiny",
       "[from] item: Nothing", "??", "a" * 300]


@dataclass
class FuzzStats:
    mutated: int = 0              # lines (or request JSONs) mutated and fed
    errors: int = 0               # battles (engine) or requests (API) answered with an error
    problems: list = field(default_factory=list)   # what broke the rules: must stay empty


def recorded_streams(formats=None) -> list[tuple[str, str, list[list[str]]]]:
    """(name, perspective, pumps) of every golden battle (of `formats`, where given) and side; a
    pump is a list of messages."""
    out = []
    for path in sorted(GOLDEN.glob("*.json.gz")):
        if formats is not None and path.name.rsplit("-", 1)[0] not in formats:
            continue
        with gzip.open(path, "rt") as f:
            battle = json.load(f)
        name = path.name[: -len(".json.gz")]
        for side in ("p1", "p2"):
            out.append((name, side, battle["streams"][side]))
    return out


def mutate_line(line: str, rng: np.random.Generator) -> str:
    if line.startswith("|request|") and len(line) > 9:
        return "|request|" + mutate_json(line[9:], rng)
    parts = line.split("|")
    kind = int(rng.integers(8))
    i = int(rng.integers(len(parts)))
    if kind == 0 and len(parts) > 1:
        del parts[i]
    elif kind == 1:
        parts.insert(i, parts[i])
    elif kind == 2:
        parts[i] = ODD[int(rng.integers(len(ODD)))]
    elif kind == 3 and len(parts) > 2:
        j = int(rng.integers(len(parts)))
        parts[i], parts[j] = parts[j], parts[i]
    elif kind == 4:
        return line[: int(rng.integers(len(line) + 1))]
    elif kind == 5:
        chars = list(line)
        for _ in range(int(rng.integers(1, 4))):
            if chars:
                chars[int(rng.integers(len(chars)))] = chr(int(rng.integers(1, 0x2FF)))
        return "".join(chars)
    elif kind == 6:
        parts[i] = parts[i] + ODD[int(rng.integers(len(ODD)))]
    else:
        parts.append(ODD[int(rng.integers(len(ODD)))])
    return "|".join(parts)


def mutate_json(text: str, rng: np.random.Generator) -> str:
    """A request JSON with one value replaced by one of another type, a key dropped, or the text
    truncated."""
    if rng.random() < 0.2:
        return text[: int(rng.integers(len(text) + 1))]
    try:
        data = json.loads(text)
    except ValueError:
        return text
    nodes = []

    def walk(node):
        if isinstance(node, dict):
            for k in node:
                nodes.append((node, k))
                walk(node[k])
        elif isinstance(node, list):
            for k in range(len(node)):
                nodes.append((node, k))
                walk(node[k])
    walk(data)
    if not nodes:
        return text
    parent, key = nodes[int(rng.integers(len(nodes)))]
    if isinstance(parent, dict) and rng.random() < 0.3:
        del parent[key]
    else:
        parent[key] = [None, -1, 10 ** 12, "x", "", [], {}, [[[]]], True, 1.5][int(rng.integers(10))]
    return json.dumps(data)


def mutate_pump(pump: list[str], rng: np.random.Generator, rate: float) -> tuple[list[str], int]:
    """A pump with each line mutated with probability `rate`; -> (messages, lines mutated)."""
    out, n = [], 0
    for message in pump:
        lines = message.split("\n")
        for k, line in enumerate(lines):
            if rng.random() < rate:
                lines[k] = mutate_line(line, rng)
                n += 1
        out.append("\n".join(lines))
    return out, n


def fuzz_engine(lines: int, seed: int = 0, rate: float = 0.25, engine=None, formats=None) -> FuzzStats:
    """Feeds recorded battles (of `formats`: default the singles golden formats, for the
    default engine's singles contract) with mutated lines through Engine.batch until `lines`
    lines were mutated: every recorded battle fuzzed, beside clean copies of two of them, in
    the same calls."""
    from metapvp.engine import Engine, EngineError
    from metapvp.tests.golden import FORMATS
    engine = engine or Engine()
    streams = recorded_streams(FORMATS if formats is None else formats)
    reference = [list(_clean_rows(engine, name, side, pumps)) for name, side, pumps in streams]
    rng = np.random.default_rng(seed)
    stats = FuzzStats()
    rounds = 0
    while stats.mutated < lines:
        rounds += 1
        fuzzed = {f"fuzz{rounds}-{k}": s for k, s in enumerate(streams)}
        clean = {f"clean{rounds}-{k}": k for k in ((2 * rounds) % len(streams), (2 * rounds + 1) % len(streams))}
        for key, (_, side, _) in fuzzed.items():
            engine.open(key, side)
        for key, k in clean.items():
            engine.open(key, streams[k][1])
        broken = set()
        try:
            for i in range(max(len(p) for _, _, p in streams)):
                feed, encode = [], []
                for key, (_, side, pumps) in fuzzed.items():
                    if i < len(pumps):   # a broken battle is fed on: its view must stay usable
                        messages, n = mutate_pump(pumps[i], rng, rate)
                        stats.mutated += n
                        feed += [(key, side, m) for m in messages]
                        encode.append((key, side))
                for key, k in clean.items():
                    _, side, pumps = streams[k]
                    if i < len(pumps):
                        feed += [(key, side, m) for m in pumps[i]]
                        encode.append((key, side))
                try:
                    batch = engine.batch(feed=feed, encode=encode)
                except EngineError as e:
                    stats.problems.append(f"round {rounds} pump {i}: the whole call failed: {e}")
                    return stats
                for err in batch.errors:
                    if err.battle not in fuzzed:
                        stats.problems.append(f"round {rounds} pump {i}: clean battle {err.battle} failed: {err}")
                    elif f"battle {err.battle}" not in str(err):
                        stats.problems.append(f"round {rounds} pump {i}: error does not name its battle: {err}")
                    elif err.battle not in broken:
                        stats.errors += 1
                        broken.add(err.battle)
                for row, rec in enumerate(batch.records):
                    if rec.battle in clean:
                        want = reference[clean[rec.battle]][i]
                        got = {name: v[row] for name, v in batch.obs.items()}
                        if not all(np.array_equal(got[name], want[name]) for name in want):
                            stats.problems.append(f"round {rounds} pump {i}: clean battle {rec.battle} "
                                                  "encoded differently beside fuzzed ones")
        finally:
            for key, (_, side, _) in fuzzed.items():
                engine.close_view(key, side)
            for key, k in clean.items():
                engine.close_view(key, streams[k][1])
    return stats


def _clean_rows(engine, name: str, side: str, pumps: list):
    key = f"reference-{name}-{side}"
    engine.open(key, side)
    try:
        for pump in pumps:
            batch = engine.batch(feed=[(key, side, m) for m in pump], encode=[(key, side)])
            batch.raise_first()
            yield {n: v[0].copy() for n, v in batch.obs.items()}
    finally:
        engine.close_view(key, side)


def pump_request(battle: str, side: str, first: bool, messages: list[str]) -> dict:
    """The move API request a client sends after one pump of `side`'s messages: its protocol
    lines, and the latest |request| where the pump has one."""
    body = [ln for m in messages for ln in m.split("\n")]
    request = next((ln[9:] for ln in reversed(body) if ln.startswith("|request|")), None)
    obj = {"battle": battle, "lines": [ln for ln in body if not ln.startswith("|request|")]}
    if first:
        obj.update(new=True, perspective=side)
    if request is not None:
        obj["request"] = request
    return obj


def battle_requests(battle: str, side: str, pumps: list[list[str]]) -> list[dict]:
    """Every request of one recorded battle for one side, as a client replaying it sends them
    (the last tells the API the battle ended)."""
    return [pump_request(battle, side, i == 0, pump) for i, pump in enumerate(pumps)]


def api_requests(lines: int, seed: int = 0, rate: float = 0.25):
    """Move API request lines (bytes) built from recorded battles with mutated protocol lines and
    request JSONs, some of them not JSON at all; -> (request lines, protocol lines mutated)."""
    rng = np.random.default_rng(seed)
    streams = recorded_streams()
    out, mutated, rounds = [], 0, 0
    while mutated < lines:
        rounds += 1
        for k, (_, side, pumps) in enumerate(streams):
            battle = f"fuzz{rounds}-{k}"
            for i, pump in enumerate(pumps):
                messages, n = mutate_pump(pump, rng, rate)
                mutated += n
                text = json.dumps(pump_request(battle, side, i == 0, messages))
                if rng.random() < 0.05:      # now and then, text that is no request at all
                    text = mutate_line(text, rng).replace("\n", " ")
                out.append(text.encode() + b"\n")
            out.append(json.dumps({"battle": battle, "close": True}).encode() + b"\n")
    return out, mutated


def fuzz_api(port: int, lines: int, seed: int = 0, timeout: float = 30.0) -> FuzzStats:
    """Sends api_requests over one TCP connection, one at a time: each must get one JSON reply
    (a choice, nothing to decide, or an error naming its battle) and the connection must stay."""
    import socket
    requests, mutated = api_requests(lines, seed)
    stats = FuzzStats(mutated=mutated)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        f = sock.makefile("rwb")
        for n, line in enumerate(requests):
            try:
                f.write(line)
                f.flush()
                reply = f.readline()
            except OSError as e:
                stats.problems.append(f"request {n}: connection failed: {e}")
                return stats
            if not reply:
                stats.problems.append(f"request {n}: connection closed by the server")
                return stats
            try:
                answer = json.loads(reply)
            except ValueError:
                stats.problems.append(f"request {n}: reply is not JSON: {reply[:200]!r}")
                continue
            if "error" in answer:
                stats.errors += 1
                if "internal error" in answer["error"]:
                    stats.problems.append(f"request {n}: {answer['error']}")
            elif not ({"choice", "closed"} & answer.keys()):
                stats.problems.append(f"request {n}: unexpected reply {answer}")
    return stats
