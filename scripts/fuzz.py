"""The suite's fuzzers (metapvp/tests/fuzzing.py), run as long as you like: mutated lines of recorded
battles through Engine.batch, and mutated move API requests through serve_api over TCP.

    ./rp scripts/fuzz.py [--lines 1000000] [--seed 0] [--report fuzz.json]

Prints the counts; exits 1 if any rule was broken (and lists how)."""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

from metapvp.tests.fuzzing import fuzz_api, fuzz_engine


def serve_in_thread():
    """A move API on a fresh small model, on a loopback port; -> the port."""
    from metapvp.api.server import Limits, MoveApi
    from metapvp.api.serving import serve
    from metapvp.contract import load
    from metapvp.models import new_model, save_model
    from metapvp.players.neural import load_player
    path = save_model(Path(tempfile.mkdtemp(prefix="metapvp-fuzz-")) / "model.zip", new_model(load()), load(),
                      format="gen9randombattle")
    api = MoveApi(load_player(path), Limits())
    loop = asyncio.new_event_loop()
    ready = loop.create_future()
    loop.create_task(serve(api, "127.0.0.1", 0, ready))
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def wait():
        return await ready
    return asyncio.run_coroutine_threadsafe(wait(), loop).result(60)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=1_000_000, help="mutated lines for each of the two")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--report", type=Path)
    args = ap.parse_args(argv)
    out = {}
    start = time.perf_counter()
    out["engine"] = fuzz_engine(args.lines, seed=args.seed).__dict__
    out["engine"]["seconds"] = round(time.perf_counter() - start, 1)
    start = time.perf_counter()
    out["api"] = fuzz_api(serve_in_thread(), args.lines, seed=args.seed).__dict__
    out["api"]["seconds"] = round(time.perf_counter() - start, 1)
    for name, r in out.items():
        print(f"{name}: {r['mutated']} mutated lines, {r['errors']} error answers, "
              f"{len(r['problems'])} broken rules, {r['seconds']} s")
        for problem in r["problems"][:20]:
            print(f"  {problem}")
    if args.report:
        args.report.write_text(json.dumps(out, indent=2) + "\n")
    return 1 if any(r["problems"] for r in out.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
