"""Live play against a real Pokemon Showdown server started from the pinned npm package on
loopback, and the login flow against a stand-in that answers like the real login server."""
import asyncio
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from metapvp import ROOT
from metapvp.arena.thoughts import read_thoughts, thoughts_path
from metapvp.engine.native import available
from metapvp.players import make_player
from metapvp.replays.run import battle_logs, page, replay
from metapvp.showdown.battles import LiveBattles
from metapvp.showdown.client import ClientOptions, ShowdownClient, ShowdownError
from metapvp.showdown.login import USER_AGENT, LoginError, assertion_for, post_login, read_password
from metapvp.showdown.server import LocalServer

FORMAT = "gen9randombattle"


def bot(url, name, player, seed, **options):
    return ShowdownClient(ClientOptions(url, name, **options), make_player(player, seed))


async def with_clients(clients, body):
    """Runs the clients' connections while `body` runs; closes them after."""
    readers = [asyncio.create_task(c.run()) for c in clients]
    try:
        return await body()
    finally:
        for c in clients:
            await c.close()
        await asyncio.gather(*readers, return_exceptions=True)


class InvalidFirstChoice:
    """Sends a choice the server must refuse (there is no move 9) at the first decision."""

    def __init__(self, battles):
        self.battles, self.forced = battles, 0
        self.real = battles.choice_for

    def __call__(self, b, action):
        if self.forced == 0:
            self.forced += 1
            return "move 9"
        return self.real(b, action)


class FailsInOneBattle:
    """A player that raises at its third decision in the first battle it sees, and plays
    randomly everywhere else."""

    def __init__(self):
        self.inner = make_player("random", 3)
        self.contract = None
        self.first_room, self.calls = None, 0

    def act(self, decisions, greedy=False):
        room = decisions.keys[0][0]
        self.first_room = self.first_room or room
        if room == self.first_room:
            self.calls += 1
            if self.calls == 3:
                raise RuntimeError("a broken policy")
        return self.inner.act(decisions, greedy)


class LiveServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="metapvp-live-")
        cls.server = LocalServer(root=Path(cls.tmp) / "server").start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_two_bot_processes_finish_20_battles(self):
        """challenge_bot.py accepts, smogon_eval.py challenges: 20 battles, 4 at a time."""
        out = Path(self.tmp) / "eval"
        common = ["--port", str(self.server.port), "--max-concurrent", "4"]
        acceptor = subprocess.Popen([sys.executable, str(ROOT / "metapvp/exe/challenge_bot.py"), "random",
                                     "--username", "acceptor", "--num-battles", "20", "--outdir",
                                     str(Path(self.tmp) / "bot"), *common],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            evaluator = subprocess.run(
                [sys.executable, str(ROOT / "metapvp/exe/smogon_eval.py"), "heuristic", "--username", "evaluator",
                 "--challenge", "acceptor", "--num-matches", "20", "--outdir", str(out), "--quiet",
                 "--memory-every", "10", *common],
                capture_output=True, text=True, timeout=600)
            self.assertEqual(evaluator.returncode, 0, evaluator.stderr[-3000:])
            result = json.loads(evaluator.stdout.strip().splitlines()[-1])
            bot_out, bot_err = acceptor.communicate(timeout=120)
        finally:
            if acceptor.poll() is None:
                acceptor.kill()
                acceptor.wait()
        self.assertEqual((result["played"], result["errors"]), (20, 0), result)
        self.assertEqual(result["invalid_choices"] + result["unavailable_choices"], result["refusals_recovered"])
        self.assertEqual(result["wins"] + result["losses"] + result["ties"], 20)
        logs = sorted((out / "logs").glob("battle-*.log"))
        self.assertEqual(len(logs), 20)
        for path in logs:
            text = path.read_text()
            self.assertTrue("|win|" in text or "|tie" in text, path)
        summary = json.loads(bot_out.strip().splitlines()[-1])
        self.assertEqual((summary["battles"], summary["errors"]), (20, 0), bot_err[-2000:])
        self.assertEqual(summary["wins"], result["losses"])
        # --memory-every 10: the process's memory after battles 10 and 20, V8's included
        self.assertEqual([m["battles"] for m in result["memory"]], [10, 20])
        for m in result["memory"]:
            self.assertGreater(m["rss_mib"], 50)
            [v8] = m["v8"].values()
            self.assertGreater(v8["heap_used_mib"], 1)
            self.assertGreater(v8["cached"]["results"], 0)
        self.assertNotIn("memory", summary)   # only where asked for
        # decision times: one per choice sent, over all 20 battles, from each side's process
        for times in (result["decision_ms"], summary["decision_ms"]):
            self.assertGreater(times["n"], 20 * 5)
            self.assertTrue(0 < times["p50"] <= times["p90"] <= times["p99"] <= times["max"], times)
        self.assertEqual((result["lost_on_time"], summary["lost_on_time"]), (0, 0))

    def test_forced_invalid_choice_is_recovered(self):
        url = self.server.url
        a = bot(url, "patient", "random", 1, accept_formats=(FORMAT,), max_concurrent=2)
        b = bot(url, "clumsy", "random", 2)
        forced = InvalidFirstChoice(b.battles)
        b.battles.choice_for = forced
        results = asyncio.run(with_clients([a, b], lambda: b.play(FORMAT, 1, opponent="patient", timeout=120)))
        self.assertEqual(forced.forced, 1)
        [r] = results
        self.assertIsNone(r.error)
        self.assertGreaterEqual(r.invalid, 1)
        # a random player may also pick what the request could not show (a hidden trap): refused
        # as unavailable, and got past like the forced one
        self.assertEqual(r.recovered, r.invalid + r.unavailable)
        self.assertIsNotNone(r.won)

    def test_battle_timer_on_gives_no_refused_choices(self):
        """The foe turns the timer on: its `|inactive|` warnings come every turn, and answering
        them by sending the choice again was refused as "too late" ~10 times a battle. A choice
        refused for what the request did not show (a switch into an unrevealed trap) is re-decided
        on the updated request, not before it: nothing is ever answered "too late"."""
        url = self.server.url
        a = bot(url, "timekeeper", "random", 11, accept_formats=(FORMAT,), max_concurrent=2, timer=True,
                log_dir=Path(self.tmp) / "timer")
        b = bot(url, "hurried", "maxdamage", 12, max_concurrent=2)
        results = asyncio.run(with_clients([a, b], lambda: b.play(FORMAT, 4, opponent="timekeeper", timeout=300)))
        self.assertEqual(len(results), 4)
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(r.invalid for r in results), 0)
        self.assertEqual(sum(f.invalid for f in a.stats.finished), 0)
        self.assertTrue(all(f.recovered == f.unavailable for f in a.stats.finished))
        self.assertFalse(any(f.timed_out for f in a.stats.finished + results))
        logs = [p.read_text() for p in (Path(self.tmp) / "timer").glob("*.log")]
        self.assertTrue(logs and all("|inactive|" in t for t in logs))  # the timer was on
        self.assertEqual([t.count("too late") for t in logs], [0] * len(logs))

    @unittest.skipUnless(available(), "the native search is not built here (no Rust toolchain at set-up)")
    def test_the_native_search_plays_live_with_the_timer_on(self):
        """The network-guided search on poke-engine (native:agent) over the server, the foe's
        timer on: every battle finished, no refused choice, none lost on time, and its decisions
        searched (none failed). Its thoughts are kept beside each log, and a battle's replay is
        what a spectator saw (no request, its own HP in percent) and its page holds the searches."""
        url = self.server.url
        logs = Path(self.tmp) / "thinker" / "logs"
        a = bot(url, "deepthinker", "native(iterations=2000):agent", 13, accept_formats=(FORMAT,), max_concurrent=2,
                timer=True, log_dir=logs, spec="native(iterations=2000):agent")
        b = bot(url, "hasty", "maxdamage", 14, max_concurrent=2)
        results = asyncio.run(with_clients([a, b], lambda: b.play(FORMAT, 2, opponent="deepthinker", timeout=300)))
        self.assertEqual(len(results), 2)
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(f.invalid for f in a.stats.finished), 0)
        self.assertFalse(any(f.timed_out for f in a.stats.finished + results))
        search = a.battles.player.search
        self.assertGreater(search.searched, 10)
        self.assertEqual(search.failed, 0)
        found = battle_logs(logs.parent)
        self.assertEqual(len(found), 2)
        for n, log in found.items():
            thoughts = read_thoughts(thoughts_path(log))
            side, = thoughts["players"]
            self.assertEqual(thoughts["players"][side], "native(iterations=2000):agent")
            searched = [d for d in thoughts["decisions"] if any("visits" in o for o in d["options"])]
            self.assertGreater(len(searched), 3)
            shown = replay(log, n)
            self.assertNotIn("|request|", shown)
            hp = re.findall(r"\|(?:switch|-damage|-heal)\|[^|\n]*\|(?:[^|\n]*\|)?\d+/(\d+)", shown)
            self.assertEqual(set(hp), {"100"}, "every HP as a spectator sees it")
            self.assertIn('"visits":', page(log, n))

    def test_a_failing_player_forfeits_only_its_battle(self):
        url = self.server.url
        a = bot(url, "sturdy", "random", 13, accept_formats=(FORMAT,), max_concurrent=3)
        player = FailsInOneBattle()
        b = ShowdownClient(ClientOptions(url, "fragile", max_concurrent=3), player)
        results = asyncio.run(with_clients([a, b], lambda: b.play(FORMAT, 4, opponent="sturdy", timeout=300)))
        self.assertEqual(len(results), 4)
        failed = [r for r in results if r.error]
        self.assertEqual([(r.room, r.error) for r in failed], [(player.first_room, "RuntimeError: a broken policy")])
        self.assertTrue(all(r.won is not None or r.tie for r in results if not r.error))
        won_by_a = {f.room: f.won for f in a.stats.finished}
        self.assertIs(won_by_a[player.first_room], True)  # the failed battle was forfeited

    def test_teams_go_with_utm_in_formats_with_teams(self):
        from metapvp.engine.v8 import context
        packed = [context().pack_team((ROOT / 'static/teams' / name).read_text())
                  for name in ("sample-a.txt", "sample-b.txt")]
        a = bot(self.server.url, "teamhost", "maxdamage", 6, accept_formats=("gen9customgame",), team=packed[0])
        b = bot(self.server.url, "teamguest", "maxdamage", 7, team=packed[1], log_dir=Path(self.tmp) / "teams")
        [r] = asyncio.run(with_clients([a, b], lambda: b.play("gen9customgame", 1, opponent="teamhost", timeout=120)))
        self.assertIsNone(r.error)
        log = (Path(self.tmp) / "teams" / f"{r.room}.log").read_text()
        first_species = packed[1].split("|")[1] or packed[1].split("|")[0]
        self.assertIn("|poke|", log)  # team preview shows both user teams
        self.assertIn(first_species.split("-")[0], log)

    def test_doubles_over_the_server_random_doubles_and_vgc_with_team_preview(self):
        agent = make_player("agent", 21, fmt="gen9randomdoublesbattle")   # the model guiding its search
        a = ShowdownClient(ClientOptions(self.server.url, "doublehost", accept_formats=("gen9randomdoublesbattle",),
                                        max_concurrent=2), agent)
        b = bot(self.server.url, "doubleguest", "maxdamage", 22)
        results = asyncio.run(with_clients([a, b], lambda: b.play("gen9randomdoublesbattle", 4, opponent="doublehost",
                                                                   timeout=300)))
        self.assertEqual(len(results), 4)
        self.assertEqual([r.error for r in results if r.error], [])
        self.assertEqual(sum(r.invalid for r in results), 0)
        self.assertTrue(all(r.won is not None or r.tie for r in results))
        self.assertGreater(agent.searched, 5)   # it searched over the server's battles
        self.assertEqual(agent.failed, 0)
        from metapvp.engine.v8 import context
        packed = [context().pack_team((ROOT / "static/teams" / f"gen9vgc2025regi-{x}.txt").read_text()) for x in "ab"]
        a = bot(self.server.url, "vgchost", "heuristic", 23, accept_formats=("gen9vgc2025regi",), team=packed[0])
        b = bot(self.server.url, "vgcguest", "maxdamage", 24, team=packed[1], log_dir=Path(self.tmp) / "vgc")
        [r] = asyncio.run(with_clients([a, b], lambda: b.play("gen9vgc2025regi", 1, opponent="vgchost", timeout=180)))
        self.assertIsNone(r.error)
        self.assertEqual(r.invalid, 0)
        log = (Path(self.tmp) / "vgc" / f"{r.room}.log").read_text()
        self.assertIn("|gametype|doubles", log)
        self.assertIn("|teampreview|4", log)   # bring four of six
        self.assertRegex(log, r"\|switch\|p1b: ")  # two Pokemon a side in play

    def test_a_challenge_to_a_user_not_yet_on_the_server_is_sent_again_until_they_come(self):
        """The server answers a challenge to a user it does not know with a popup; the
        challenger tries again every few seconds rather than waiting out its pending timeout
        (here longer than the whole run may take), and names the user if they never come."""
        early = bot(self.server.url, "early", "random", 5)
        late = bot(self.server.url, "late", "random", 6, accept_formats=(FORMAT,))

        async def body():
            run = asyncio.create_task(early.play(FORMAT, 1, opponent="late", timeout=120, pending_timeout=600))
            await asyncio.sleep(5.0)   # challenged (and refused) before `late` is there
            self.assertFalse(run.done())
            return await with_clients([late], lambda: run)
        [r] = asyncio.run(with_clients([early], body))
        self.assertIsNone(r.error)

        lonely = bot(self.server.url, "lonely", "random", 7)
        with self.assertRaises(ShowdownError) as e:
            asyncio.run(with_clients([lonely],
                                     lambda: lonely.play(FORMAT, 1, opponent="nobodyhere", pending_timeout=6)))
        self.assertIn("'nobodyhere' has not been on the server", str(e.exception))
        self.assertIn("was not found", str(e.exception))

    def test_server_restart_reconnects_and_the_run_completes(self):
        server = LocalServer(root=Path(self.tmp) / "restart").start()
        try:
            a = bot(server.url, "steady", "random", 3, accept_formats=(FORMAT,), max_concurrent=3)
            b = bot(server.url, "restless", "random", 4, max_concurrent=3)

            async def body():
                run = asyncio.create_task(b.play(FORMAT, 8, opponent="steady", timeout=300))
                while len(b.battles.battles) < 2 and not run.done():  # battles are under way
                    await b.wait_change(1.0)
                await asyncio.to_thread(server.stop)
                await asyncio.to_thread(server.start)
                return await run
            results = asyncio.run(with_clients([a, b], body))
        finally:
            server.stop()
        self.assertEqual(len(results), 8)
        lost = [r for r in results if r.error]
        self.assertGreaterEqual(len(lost), 1)          # the restart ended battles in progress...
        self.assertTrue(all("room gone" in r.error or "closed" in r.error for r in lost), lost)
        self.assertGreaterEqual(len(results) - len(lost), 1)  # ...and play went on after it
        self.assertGreaterEqual(b.stats.reconnects, 1)
        self.assertGreaterEqual(a.stats.reconnects, 1)

    def test_registered_login_succeeds_on_a_server_that_trusts_the_login_server(self):
        """challstr from the real server -> assertion from the stand-in -> /trn: a server
        configured with the stand-in's public key verifies the signatures and logs both bots in
        as registered users, which then play a battle."""
        with LoginStandIn() as login:
            server = LocalServer(root=Path(self.tmp) / "trusting",
                                 config={"loginserverpublickey": login.public_key}).start()
            try:
                a = bot(server.url, "Registered", "random", 8, password="hunter2", login_server=login.url,
                        accept_formats=(FORMAT,))
                b = bot(server.url, "SecondAccount", "random", 9, password="correct horse",
                        login_server=login.url)

                async def body():
                    await asyncio.wait_for(a.logged_in.wait(), 60)
                    return await b.play(FORMAT, 1, opponent="registered", timeout=120)
                [r] = asyncio.run(with_clients([a, b], body))
            finally:
                server.stop()
        self.assertIsNone(r.error)
        self.assertEqual(sorted(r["name"][0] for r in login.requests), ["Registered", "SecondAccount"])

    def test_registered_login_reaches_the_server_with_the_assertion(self):
        """The whole flow against a server that trusts only the real login server's key: it
        checks the stand-in's signature and refuses it, and the client reports why."""
        with LoginStandIn() as login:
            c = bot(self.server.url, "registered", "random", 5, password="hunter2", login_server=login.url)
            with self.assertRaisesRegex(ShowdownError, "refused the name 'registered'"):
                asyncio.run(asyncio.wait_for(c.run(), 60))
            self.assertEqual(login.requests[0]["name"], ["registered"])
            self.assertTrue(login.requests[0]["challstr"][0].startswith("4|"))


SIGN = """const c = require('crypto'); let d = '';
process.stdin.on('data', x => d += x).on('end', () => {
  const {key, data} = JSON.parse(d);
  const s = c.createSign('RSA-SHA1'); s.update(data); process.stdout.write(s.sign(key, 'hex'));
});"""
KEYGEN = """const k = require('crypto').generateKeyPairSync('rsa', {modulusLength: 2048,
  publicKeyEncoding: {type: 'spki', format: 'pem'}, privateKeyEncoding: {type: 'pkcs8', format: 'pem'}});
process.stdout.write(JSON.stringify(k));"""


class LoginStandIn:
    """The login server's POST /api/login as the real one answers it (read from its source):
    form fields name, pass, challstr; the reply is ']' and JSON. A registered name with its
    password gets actionsuccess, an assertion "challenge,userid,2,date,host" signed with RSA-SHA1
    (with a key of its own: a server configured with `public_key` accepts them) and curuser; a
    wrong password gets {"actionerror": "Wrong password."}; an unregistered name logs in with any
    password (its assertion says usertype 1). For the error paths: a name in FAILING gets that
    many HTTP 503s first, and names in BROKEN get a reply that breaks the protocol."""
    PASSWORDS = {"registered": "hunter2", "secondaccount": "correct horse"}
    BROKEN = {"nobracket": b'{"assertion": "x"}', "badjson": b"]{not json", "notfound": None}

    def __init__(self):
        keys = json.loads(subprocess.run(["node", "-e", KEYGEN], capture_output=True, text=True,
                                         check=True).stdout)
        self.public_key, private_key = keys["publicKey"], keys["privateKey"]
        self.failing: dict[str, int] = {}

        def sign(data: str) -> str:
            return subprocess.run(["node", "-e", SIGN], input=json.dumps({"key": private_key, "data": data}),
                                  capture_output=True, text=True, check=True).stdout
        self.sign = sign

    def __enter__(self):
        sign, failing = self.sign, self.failing
        requests = self.requests = []
        agents = self.agents = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                if self.path != "/api/login":
                    self.send_error(404)
                    return
                form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
                requests.append(form)
                agents.append(self.headers.get("User-Agent"))
                name = form.get("name", [""])[0]
                userid = "".join(ch for ch in name.lower() if ch.isalnum())
                if failing.get(userid, 0) > 0:
                    failing[userid] -= 1
                    self.send_error(503)
                    return
                if userid in LoginStandIn.BROKEN:
                    if LoginStandIn.BROKEN[userid] is None:
                        self.send_error(404)
                    else:
                        self._reply(LoginStandIn.BROKEN[userid])
                    return
                registered = userid in LoginStandIn.PASSWORDS
                if registered and LoginStandIn.PASSWORDS[userid] != form.get("pass", [""])[0]:
                    body = {"actionerror": "Wrong password."}
                else:
                    challenge = form["challstr"][0].split("|", 1)[1]
                    data = f"{challenge},{userid},{2 if registered else 1},{int(time.time())},localhost"
                    body = {"actionsuccess": True, "assertion": f"{data};{sign(data)}",
                            "curuser": {"loggedin": True, "username": name, "userid": userid}}
                self._reply(("]" + json.dumps(body)).encode())

            def _reply(self, data: bytes):
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.http.shutdown()
        self.http.server_close()


class ChallengeQueueTest(unittest.TestCase):
    """challenge_bot's queue, on a server whose users are registered (through the login
    stand-in): private messages, which tell a challenger its place, are for registered users."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="metapvp-queue-")
        cls.stand_in = LoginStandIn().__enter__()
        cls.server = LocalServer(root=Path(cls.tmp) / "server",
                                 config={"loginserverpublickey": cls.stand_in.public_key}).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.stand_in.__exit__(None, None, None)

    def login(self, name):
        LoginStandIn.PASSWORDS[name] = "pw"
        return {"password": "pw", "login_server": self.stand_in.url}

    def test_a_challenge_to_a_busy_bot_waits_its_turn(self):
        url = self.server.url
        host = bot(url, "onebyone", "random", 14, **self.login("onebyone"), accept_formats=(FORMAT,), max_concurrent=1,
                   max_queue=4)
        guests = [bot(url, f"visitor{i}", "random", 15 + i, **self.login(f"visitor{i}")) for i in range(3)]

        async def body():
            await asyncio.wait_for(host.logged_in.wait(), 60)
            return await asyncio.gather(*(g.play(FORMAT, 1, opponent="onebyone", timeout=300) for g in guests))
        results = asyncio.run(with_clients([host, *guests], body))
        self.assertEqual([len(r) for r in results], [1, 1, 1])
        self.assertEqual([r[0].error for r in results], [None] * 3)
        told = sorted(text for g in guests for sender, text in g.pms if sender == "onebyone")
        self.assertEqual(len(told), 2, told)  # the two who came while it played were queued, not rejected
        self.assertIn("number 1 in the queue", told[0])
        self.assertIn("number 2 in the queue", told[1])
        self.assertEqual(len(host.stats.finished), 3)

    def test_a_full_queue_rejects_with_a_reason(self):
        url = self.server.url
        host = bot(url, "fullhouse", "random", 18, **self.login("fullhouse"), accept_formats=(FORMAT,),
                   max_concurrent=1, max_queue=0)
        first = bot(url, "early", "random", 19, **self.login("early"))
        late = bot(url, "late", "random", 20, **self.login("late"))

        async def body():
            await asyncio.wait_for(host.logged_in.wait(), 60)
            run = asyncio.create_task(first.play(FORMAT, 1, opponent="fullhouse", timeout=300))
            while host.running() == 0:
                await host.wait_change(1.0)
            await asyncio.wait_for(late.logged_in.wait(), 60)
            await late.send(f"|/challenge fullhouse, {FORMAT}")
            while not late.pms:
                await late.wait_change(1.0)
            await run
        asyncio.run(asyncio.wait_for(with_clients([host, first, late], body), 300))
        [(sender, text)] = late.pms
        self.assertEqual(sender, "fullhouse")
        self.assertIn("queue is full", text)


class BattleTimerTest(unittest.TestCase):
    def test_a_battle_lost_to_the_timer_is_counted_as_such(self):
        """The server's forfeit for inactivity (`|-message|NAME lost due to inactivity.`), ours
        and the foe's, as the room sends them (the timer's shortest wait is minutes, too long for
        a test against the server)."""
        battles = LiveBattles("Time Keeper", make_player("random", 1))
        start = ("|init|battle\n|title|a vs b\n|player|p1|Time Keeper|1|\n|player|p2|Other|2|\n"
                 "|teamsize|p1|6\n|teamsize|p2|6\n|gen|9\n|tier|[Gen 9] Random Battle\n|\n|start")
        for room, loser, winner in (("battle-x-1", "Time Keeper", "Other"), ("battle-x-2", "Other", "Time Keeper")):
            battles.handle(room, start)
            battles.handle(room, f"|\n|-message|{loser} lost due to inactivity.\n|\n|win|{winner}")
        mine, theirs = battles.battles["battle-x-1"], battles.battles["battle-x-2"]
        self.assertEqual((mine.timed_out, battles.won(mine)), (True, False))
        self.assertEqual((theirs.timed_out, battles.won(theirs)), (False, True))


class LoginFlowTest(unittest.TestCase):
    def test_assertion_request_and_reply_shapes(self):
        with LoginStandIn() as login:
            assertion = asyncio.run(assertion_for("Registered", "hunter2", "4|abcdef", login.url))
            self.assertTrue(assertion.startswith("abcdef,registered,2,"))
            self.assertEqual(login.requests[0], {"name": ["Registered"], "pass": ["hunter2"], "challstr": ["4|abcdef"]})
            self.assertEqual(login.agents[0], USER_AGENT)
            self.assertIn("metapvp", USER_AGENT)
            # a wrong password: the login server's own words reach the person
            with self.assertRaisesRegex(LoginError, r"refused 'Registered': Wrong password\.$"):
                asyncio.run(assertion_for("Registered", "nope", "4|abcdef", login.url))
            # an unregistered name logs in with any password (usertype 1)
            said = asyncio.run(assertion_for("Newcomer", "any", "4|abc", login.url))
            self.assertTrue(said.startswith("abc,newcomer,1,"))

    def test_replies_that_break_the_protocol_are_named(self):
        with LoginStandIn() as login:
            for name, message in (("nobracket", "unexpected reply"), ("badjson", "not JSON after"),
                                  ("notfound", "HTTP 404")):
                with self.subTest(name=name), self.assertRaisesRegex(LoginError, message):
                    post_login(login.url, name, "x", "4|abc", delays=(0.01, 0.01))
            # none of those is tried again: one request each
            self.assertEqual(len(login.requests), 3)

    def test_transient_failures_are_tried_again_then_given_up(self):
        with LoginStandIn() as login:
            login.failing["registered"] = 2   # two 503s, then the answer
            assertion = post_login(login.url, "Registered", "hunter2", "4|abc", delays=(0.01, 0.01))
            self.assertTrue(assertion.startswith("abc,registered,2,"))
            self.assertEqual(len(login.requests), 3)
            login.failing["registered"] = 5   # more than the tries
            with self.assertRaisesRegex(LoginError, r"HTTP 503 \(after 3 tries\)"):
                post_login(login.url, "Registered", "hunter2", "4|abc", delays=(0.01, 0.01))
        with self.assertRaisesRegex(LoginError, "unreachable.*after 2 tries"):
            post_login("http://127.0.0.1:9", "x", "y", "4|z", timeout=2, delays=(0.01,))

    def test_password_comes_from_a_file_or_the_environment(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write("s3cret\n")
            f.flush()
            self.assertEqual(read_password(f.name), "s3cret")
        self.assertEqual(read_password(None, env="METAPVP_TEST_NO_SUCH_VARIABLE"), None)
        with self.assertRaisesRegex(LoginError, "password file"):
            read_password("/nonexistent/password")


if __name__ == "__main__":
    unittest.main()
