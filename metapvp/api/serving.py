"""The move API's transport: newline-delimited JSON over TCP (asyncio), the requests of many
connections gathered into batches for the API (metapvp/api/server.py holds the protocol)."""
from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from metapvp.api.server import MoveApi, parse_request

log = logging.getLogger(__name__)


@dataclass
class Traffic:
    """What the batchers of one server share: connections open, requests not yet answered."""
    connections: int = 0
    pending: int = 0


class Batcher:
    """Gathers the requests waiting for one shard of the API (across connections and battles) and
    has the API answer them together on a thread of its own, beside the other shards' batchers;
    the event loop keeps reading requests meanwhile. A request waits at most `wait_ms` for
    company, and not at all once every open connection has a request pending (each connection
    has one request in flight at most). `wait_ms` 0 turns batching off: one request at a time,
    on the event loop, as the server answered before it batched. A batch that holds every open
    connection's request is answered on the loop too: no one else can be waiting, and a lone
    client saves the thread's hand-off."""

    def __init__(self, api: MoveApi, wait_ms: float, traffic: Traffic):
        if not wait_ms >= 0:
            raise ValueError(f"the batching wait must be at least 0 ms, not {wait_ms}")
        self.api = api
        self.wait = wait_ms / 1000
        self.traffic = traffic
        self.waiting: list[tuple[tuple, asyncio.Future]] = []
        self.arrived = asyncio.Event()
        self.thread = ThreadPoolExecutor(1, "api-batch")

    async def answer(self, parsed: tuple) -> dict:
        """The reply to one request (parse_request()'s reading of it)."""
        future = asyncio.get_running_loop().create_future()
        self.waiting.append((parsed, future))
        self.traffic.pending += 1
        self.arrived.set()
        try:
            return await future
        finally:
            self.traffic.pending -= 1

    async def run(self):
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self.arrived.wait()
                if self.wait > 0:
                    deadline = loop.time() + self.wait
                    while self.traffic.pending < self.traffic.connections and loop.time() < deadline:
                        self.arrived.clear()
                        try:
                            await asyncio.wait_for(self.arrived.wait(), deadline - loop.time())
                        except TimeoutError:
                            break
                    batch, self.waiting = self.waiting, []
                else:
                    batch, self.waiting = self.waiting[:1], self.waiting[1:]
                if not self.waiting:
                    self.arrived.clear()
                parsed = [p for p, _ in batch]
                try:
                    if self.wait == 0 or len(batch) >= self.traffic.connections:  # no one else to read meanwhile
                        replies = self.api.answer_parsed(parsed)
                    else:
                        replies = await loop.run_in_executor(self.thread, self.api.answer_parsed, parsed)
                except Exception as e:  # noqa: BLE001 -- answer_parsed answers everything; if not, say so
                    log.exception("a batch of %d requests failed", len(batch))
                    replies = [{"battle": None, "error": f"internal error: {type(e).__name__}: {e}"}] * len(batch)
                for (_, future), reply in zip(batch, replies):
                    if not future.done():  # (its connection may be gone)
                        future.set_result(reply)
        finally:
            self.thread.shutdown(wait=False)


async def serve(api: MoveApi, host: str = "127.0.0.1", port: int = 5555, ready=None, wait_ms: float = 2.0):
    """Serves `api` until cancelled; `ready` (an asyncio.Future) gets the bound port. `wait_ms`:
    how long a request may wait for others to be decided with (Batcher); one batcher a shard."""
    traffic = Traffic()
    batchers = [Batcher(api, wait_ms, traffic) for _ in api.engines]

    async def answer(text: str) -> dict:
        parsed = parse_request(text)
        shard = api.route(parsed[0])
        try:
            return await batchers[shard].answer(parsed)
        finally:
            api.done(parsed[0])

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        traffic.connections += 1
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
                reply = await answer(line.decode("utf-8", "replace"))
                writer.write((json.dumps(reply) + "\n").encode())
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            traffic.connections -= 1
            writer.close()

    server = await asyncio.start_server(client, host, port, limit=api.limits.max_message)
    tasks = [asyncio.create_task(b.run()) for b in batchers]
    if ready is not None:
        ready.set_result(server.sockets[0].getsockname()[1])
    try:
        async with server:
            await server.serve_forever()
    finally:
        for task in tasks:
            task.cancel()


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
