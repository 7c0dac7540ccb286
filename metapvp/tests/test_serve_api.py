"""serve_api over real TCP: a whole battle from the official simulator (pokemon-showdown
simulate-battle), both sides asking the API for every move, and bad requests answered with
errors while the server goes on."""
import asyncio
import contextlib
import io
import itertools
import json
import queue
import shutil
import socket
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path

import torch

from metapvp import ROOT
from metapvp.api.server import Limits, MoveApi
from metapvp.api.serving import serve
from metapvp.contract import load
from metapvp.engine.native import available
from metapvp.models import new_model, save_model
from metapvp.players.native import NativeConfig, NativeSearchPlayer
from metapvp.players.neural import load_player
from metapvp.players.search import SearchPlayer
from metapvp.players.searchconfig import SearchConfig

PS = ROOT / "js" / "node_modules" / "pokemon-showdown" / "pokemon-showdown"


class ApiClient:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.file = self.sock.makefile("rwb")

    def raw(self, data: bytes) -> dict:
        self.file.write(data)
        self.file.flush()
        return json.loads(self.file.readline())

    def ask(self, obj) -> dict:
        return self.raw((json.dumps(obj) + "\n").encode())

    def close(self):
        self.file.close()
        self.sock.close()


class ServeApiTest(unittest.TestCase):
    FORMAT, CONTRACT = "gen9randombattle", "singles-v1"
    SHARDS = 1

    @classmethod
    def player(cls):
        """The player behind the API: a fresh small model (seeded: the same battle every run)."""
        torch.manual_seed(0)
        contract = load(cls.CONTRACT)
        model = new_model(contract)
        return load_player(save_model(Path(cls.tmp) / "model.zip", model, contract, format=cls.FORMAT), seed=0)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="metapvp-api-")
        api = MoveApi(cls.player(), Limits(max_battles=4, max_line=4000, max_message=100_000), shards=cls.SHARDS)
        cls.api = api
        cls.loop = asyncio.new_event_loop()
        ready = cls.loop.create_future()
        cls.task = cls.loop.create_task(serve(api, "127.0.0.1", 0, ready))
        cls.thread = threading.Thread(target=cls.loop.run_forever, daemon=True)
        cls.thread.start()
        cls.port = asyncio.run_coroutine_threadsafe(_wait(ready), cls.loop).result(30)

    @classmethod
    def tearDownClass(cls):
        asyncio.run_coroutine_threadsafe(_cancel(cls.task), cls.loop).result(10)
        cls.loop.call_soon_threadsafe(cls.loop.stop)
        cls.thread.join(10)
        cls.api.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_answers_a_whole_battle_for_both_sides(self):
        client = ApiClient(self.port)
        sim = subprocess.Popen(["node", str(PS), "simulate-battle", "--skip-build"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, cwd=ROOT)
        output = Lines(sim.stdout)
        try:
            sim.stdin.write(f'>start {{"formatid":"{self.FORMAT}","seed":[1,2,3,4]}}\n'
                            '>player p1 {"name":"Alice"}\n>player p2 {"name":"Bob"}\n')
            sim.stdin.flush()
            pending = {"p1": [], "p2": []}
            started, answered, errors, end = set(), 0, [], None
            while end is None:
                chunk = _read_chunk(output)
                self.assertIsNotNone(chunk, "the simulator stopped before the battle ended")
                kind = chunk[0]
                if kind == "update":
                    for side in pending:
                        pending[side] += chunk[1:]
                elif kind == "sideupdate":
                    side, lines = chunk[1], chunk[2:]
                    errors += [x for x in lines if x.startswith("|error|")]
                    requests = [x[len("|request|"):] for x in lines if x.startswith("|request|")]
                    if not requests:
                        continue
                    reply = client.ask({"battle": f"b-{side}", "new": side not in started,
                                        "lines": pending[side], "request": requests[-1]})
                    started.add(side)
                    pending[side] = []
                    self.assertNotIn("error", reply, reply)
                    if reply["choice"] is not None:
                        answered += 1
                        self.assertAlmostEqual(sum(reply["probs"].values()), 1.0, places=4)
                        self.assertIn(reply["choice"], reply["probs"])
                        self.assertTrue(0.0 <= reply["win"] <= 1.0)
                        sim.stdin.write(f">{side} {reply['choice']}\n")
                        sim.stdin.flush()
                elif kind == "end":
                    end = json.loads("\n".join(chunk[1:]))
            # a switch the request allowed may still be refused when the foe's trapping ability
            # is hidden (the request says only "maybe trapped"); nothing else may be
            self.assertEqual([e for e in errors if "[Unavailable choice] Can't switch" not in e], [])
            self.assertGreater(answered, 10)
            self.assertIn(end["winner"], ("Alice", "Bob", ""))
            # the final log tells the API the battle ended, and it forgets it
            for side in ("p1", "p2"):
                reply = client.ask({"battle": f"b-{side}", "lines": pending[side]})
                self.assertTrue(reply.get("ended"), reply)
                self.assertNotIn(f"b-{side}", self.api.battles)
        finally:
            sim.kill()
            sim.wait()
            for side in ("p1", "p2"):   # a failed run must not leave its battles to the other tests
                if f"b-{side}" in self.api.battles:
                    client.ask({"battle": f"b-{side}", "close": True})
            client.close()

    def test_bad_requests_get_errors_and_serving_goes_on(self):
        client = ApiClient(self.port)
        other = ApiClient(self.port)
        try:
            self.assertIn("not JSON", client.raw(b"{nope\n")["error"])
            self.assertIn("nested too deeply", client.raw(b"[" * 3000 + b"\n")["error"])
            self.assertIn("JSON object", client.ask([1, 2])["error"])
            self.assertIn("unknown battle", client.ask({"battle": "never-started", "lines": []})["error"])
            self.assertIn("unknown battle", client.ask({"battle": "never-started", "close": True})["error"])
            self.assertIn("longer than 4000", client.ask({"battle": "x", "new": True, "perspective": "p1",
                                                          "lines": ["|" + "a" * 5000]})["error"])
            self.assertIn("needs 'perspective'", client.ask({"battle": "x", "new": True})["error"])
            huge = json.dumps({"battle": "x", "lines": ["a" * 1000] * 200}).encode() + b"\n"
            self.assertIn("message longer than", client.raw(huge)["error"])
            # the same connection, and another, still get answers
            self.assertEqual(client.ask({"battle": "ok", "new": True, "perspective": "p1", "lines": ["|init|battle"]}),
                             {"battle": "ok", "choice": None, "ended": False})
            self.assertIn("bad request JSON", other.ask({"battle": "ok", "request": "{broken"})["error"])
            self.assertNotIn("ok", self.api.battles)  # a battle whose input broke is forgotten
            opened = [client.ask({"battle": f"n{i}", "new": True, "perspective": "p2"}) for i in range(5)]
            self.assertTrue(all("error" not in r for r in opened[:4]))
            self.assertIn("too many battles", opened[4]["error"])
            for i in range(4):
                self.assertEqual(client.ask({"battle": f"n{i}", "close": True}), {"battle": f"n{i}", "closed": True})
        finally:
            client.close()
            other.close()

    def test_a_client_gone_mid_request_costs_the_others_nothing(self):
        """Clients that send a request and hang up before its answer: the server goes on, and
        another connection's battle is answered as before."""
        from metapvp.tests.fuzzing import battle_requests, recorded_streams
        (_, side, pumps), *_ = recorded_streams(["gen9randombattle"])
        for i in range(3):
            with socket.create_connection(("127.0.0.1", self.port)) as gone:
                gone.sendall((json.dumps(battle_requests(f"gone{i}", side, pumps)[0]) + "\n").encode())
        client = ApiClient(self.port)
        try:
            replies = [client.ask(r) for r in battle_requests("stays", side, pumps)[:10]]
            self.assertFalse([r for r in replies if "error" in r])
            self.assertTrue(any(r.get("choice") for r in replies))
            for i in range(3):   # what the gone clients opened is theirs to close (or to expire)
                if f"gone{i}" in self.api.battles:
                    self.assertEqual(client.ask({"battle": f"gone{i}", "close": True})["closed"], True)
            client.ask({"battle": "stays", "close": True})
        finally:
            client.close()

    def test_fuzzed_requests_all_get_answers(self):
        """Requests from recorded battles with mutated lines and request JSONs, over one
        connection: every one answered (a choice or an error), none dropped, no internal error."""
        from metapvp.tests.fuzzing import fuzz_api
        stats = fuzz_api(self.port, lines=FUZZ_API_LINES, seed=5)
        self.assertGreaterEqual(stats.mutated, FUZZ_API_LINES)
        self.assertEqual(stats.problems, [])
        self.assertGreater(stats.errors, 0)


FUZZ_API_LINES = 20_000


async def _wait(fut):
    return await fut


async def _cancel(task):
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


class Lines:
    """A child's output lines, read by a thread, each read with a deadline: a stalled child fails
    the test instead of hanging the suite."""

    def __init__(self, stream, timeout: float = 60.0):
        self.queue, self.timeout = queue.Queue(), timeout
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            self.queue.put(line)
        self.queue.put(None)

    def readline(self) -> str:
        try:
            return self.queue.get(timeout=self.timeout) or ""
        except queue.Empty:
            raise AssertionError(f"the simulator sent nothing for {self.timeout:.0f} s") from None


def _read_chunk(stream: Lines):
    """One simulator output block (lines up to a blank line), or None at the end of output."""
    lines = []
    while True:
        line = stream.readline()
        if not line:
            return lines or None
        line = line.rstrip("\n")
        if not line:
            if lines:
                return lines
            continue
        lines.append(line)


class ConcurrentClientsTest(unittest.TestCase):
    """Several clients at once over TCP, each replaying two recorded battles interleaved on its
    connection, against a server with two shards that batches across connections: every request
    answered, in its connection's order, with what the same request gets from a server alone."""
    CLIENTS = 6

    def test_answers_under_load_are_the_answers_alone(self):
        from metapvp.tests.fuzzing import battle_requests, recorded_streams
        streams = recorded_streams(["gen9randombattle", "gen9customgame"])
        sessions = []   # per client, its requests in the order it sends them
        for c in range(self.CLIENTS):
            battles = [battle_requests(f"k{c}-{j}", *streams[(2 * c + j) % len(streams)][1:]) for j in range(2)]
            sessions.append([r for pair in itertools.zip_longest(*battles) for r in pair if r is not None])
        tmp = tempfile.mkdtemp(prefix="metapvp-api-")
        self.addCleanup(shutil.rmtree, tmp, True)
        ServeApiTest.tmp = tmp
        api = MoveApi(ServeApiTest.player(), shards=2)
        self.addCleanup(api.close)
        loop = asyncio.new_event_loop()
        ready = loop.create_future()
        task = loop.create_task(serve(api, "127.0.0.1", 0, ready, wait_ms=20))
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        port = asyncio.run_coroutine_threadsafe(_wait(ready), loop).result(30)
        try:
            replies = [None] * self.CLIENTS

            def replay(c):
                client = ApiClient(port)
                try:
                    replies[c] = [client.ask(r) for r in sessions[c]]
                finally:
                    client.close()
            workers = [threading.Thread(target=replay, args=(c,)) for c in range(self.CLIENTS)]
            for w in workers:
                w.start()
            for w in workers:
                w.join(120)
        finally:
            asyncio.run_coroutine_threadsafe(_cancel(task), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
        self.assertEqual(sum(api.opened), 2 * self.CLIENTS)
        self.assertTrue(all(api.opened), api.opened)  # the battles spread over both shards
        self.assertGreater(api.decided, api.passes, "no forward pass was over more than one request")
        alone = MoveApi(ServeApiTest.player())
        self.addCleanup(alone.close)
        checked = 0
        for c in range(self.CLIENTS):
            self.assertEqual(len(replies[c]), len(sessions[c]))
            for request, got in zip(sessions[c], replies[c]):
                want = alone.answer(json.dumps(request))
                self.assertEqual(got["battle"], request["battle"])   # its own answer, in its order
                self.assertEqual({k: v for k, v in got.items() if k not in ("probs", "win")},
                                 {k: v for k, v in want.items() if k not in ("probs", "win")})
                if "probs" in want:
                    self.assertEqual(got["probs"].keys(), want["probs"].keys())
                    for choice, p in want["probs"].items():
                        self.assertAlmostEqual(got["probs"][choice], p, places=4)
                    self.assertAlmostEqual(got["win"], want["win"], places=4)
                    checked += 1
        self.assertGreater(checked, 100)


class ApiRoundsTest(unittest.TestCase):
    """answer_many() of one battle's successive requests with other battles' between them: each
    reply what the request gets when the requests come one at a time."""

    def test_a_battles_requests_in_one_batch_are_answered_in_turn(self):
        from metapvp.tests.fuzzing import battle_requests, recorded_streams
        (_, side, pumps), (_, other, more) = recorded_streams(["gen9randombattle"])
        a, b = battle_requests("a", side, pumps)[:12], battle_requests("b", other, more)[:12]
        texts = [json.dumps(r) for r in a[:6] + b[:3] + a[6:] + b[3:]]
        ServeApiTest.tmp = tempfile.mkdtemp(prefix="metapvp-api-")
        self.addCleanup(shutil.rmtree, ServeApiTest.tmp, True)
        player = ServeApiTest.player()
        together, alone = MoveApi(player, shards=2), MoveApi(player)
        got = together.answer_many(texts)
        want = [alone.answer(t) for t in texts]
        self.assertEqual([g["battle"] for g in got], [json.loads(t)["battle"] for t in texts])
        self.assertEqual([g.get("choice") for g in got], [w.get("choice") for w in want])
        self.assertGreater(sum(w.get("choice") is not None for w in want), 8)
        self.assertFalse(any("error" in g for g in got), got)


class ServeApiArgumentsTest(unittest.TestCase):
    def test_workers_and_the_batching_wait_out_of_range_are_refused(self):
        from metapvp.exe.serve_api import main
        for bad in (["--workers", "0"], ["--batch-wait-ms", "-1"]):
            with self.subTest(bad=bad), contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(main(["--model", "agent", *bad]), 2)
                self.assertIn("--workers must be at least 1", err.getvalue())


class SearchingOnTwoShards:
    """Mixed into ServeApiTest for a player that searches: the API on two shards, a whole battle
    with p1's battle on one and p2's on the other, its decisions searched and none failed (the
    request handling is the same as ServeApiTest's, not tested again)."""
    SHARDS = 2
    test_fuzzed_requests_all_get_answers = None
    test_bad_requests_get_errors_and_serving_goes_on = None
    test_a_client_gone_mid_request_costs_the_others_nothing = None

    def searches(self) -> tuple[int, int]:
        """(decisions searched, searches failed) of the API's player."""
        raise NotImplementedError

    def test_answers_a_whole_battle_for_both_sides(self):
        super().test_answers_a_whole_battle_for_both_sides()
        searched, failed = self.searches()
        self.assertGreater(searched, 5)
        self.assertEqual(failed, 0)
        self.assertEqual(self.api.opened, [1, 1])


class SearchServeApiTest(SearchingOnTwoShards, ServeApiTest):
    """The search on Showdown's simulator: its searches run on the engine of each battle's shard."""

    @classmethod
    def player(cls):
        return SearchPlayer(ServeApiTest.player.__func__(cls), SearchConfig(visits=8), seed=0)

    def searches(self):
        return self.api.player.searched, self.api.player.failed


@unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
class NativeServeApiTest(SearchingOnTwoShards, ServeApiTest):
    """The native search (poke-engine, search-rs/): its worlds are drawn by the engine of each
    battle's shard and searched there."""

    @classmethod
    def player(cls):
        return NativeSearchPlayer(ServeApiTest.player.__func__(cls), NativeConfig(iterations=500), seed=0)

    def searches(self):
        return self.api.player.search.searched, self.api.player.search.failed


class DoublesServeApiTest(ServeApiTest):
    """The same API with a doubles model behind it: its answers are joint choices
    ("move 1 2, switch 3") for a random doubles battle on the official simulator."""
    FORMAT, CONTRACT = "gen9randomdoublesbattle", "doubles-v1"

    test_fuzzed_requests_all_get_answers = None  # the request handling is the same as above
    test_bad_requests_get_errors_and_serving_goes_on = None
    test_a_client_gone_mid_request_costs_the_others_nothing = None


if __name__ == "__main__":
    unittest.main()
