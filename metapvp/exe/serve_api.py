"""Serves a trained model's moves over TCP, as newline-delimited JSON (see metapvp/api/server.py
for the request and reply shapes, and docs/live.md for an example client).

    ./rp metapvp/exe/serve_api.py --model PATH|agent[:FORMAT] [--host 127.0.0.1] [--port 5555]
        [--workers N] [--batch-wait-ms 2] [--max-battles 256] [--idle-seconds 900]
        [--max-line 8192] [--max-message 1048576]

Requests waiting at once, across connections, are decided together: one forward pass for all,
and the battles spread over --workers engines that work side by side (searches included).

It binds to 127.0.0.1 unless told otherwise."""
from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import torch

from metapvp.api.server import Limits, MoveApi, default_shards
from metapvp.api.serving import serve
from metapvp.models import ModelError
from metapvp.players import SpecError, live_spec, make_player


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True,
                   help="a model file (.zip) from integrated_rl_script.py, or agent[:FORMAT] for a shipped one")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=5555)
    p.add_argument("--workers", type=int, default=None,
                   help="engines working side by side, each with its own V8 (default: the CPUs this process may use, "
                        "at most 8)")
    p.add_argument("--batch-wait-ms", type=float, default=2.0,
                   help="how long a request may wait for others to be decided with it; 0: one at a time")
    p.add_argument("--max-battles", type=int, default=256)
    p.add_argument("--idle-seconds", type=float, default=900.0)
    p.add_argument("--max-line", type=int, default=8192)
    p.add_argument("--max-message", type=int, default=1 << 20)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        args.model = live_spec(args.model, "gen9randombattle")   # `agent` at the search it plays on a server
        player = make_player(args.model, seed=args.seed)
        if not hasattr(player, "evaluate"):  # the API answers with probabilities: a model is needed
            raise SpecError(f"--model {args.model}: not a model file or agent[:FORMAT]")
    except (ModelError, SpecError) as e:
        print(f"serve_api: {e}", file=sys.stderr)
        return 2
    workers = default_shards() if args.workers is None else args.workers
    # a forward pass here is of a batch of requests, small: torch's spare threads would only spin
    # on the cores the engines' threads need
    torch.set_num_threads(1)
    if workers < 1 or args.batch_wait_ms < 0:
        print("serve_api: --workers must be at least 1 and --batch-wait-ms at least 0", file=sys.stderr)
        return 2
    api = MoveApi(player, Limits(args.max_battles, args.idle_seconds, args.max_line, args.max_message),
                  shards=workers)

    async def run():
        ready = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(serve(api, args.host, args.port, ready, wait_ms=args.batch_wait_ms))
        port = await ready
        print(f"serve_api: {args.model} on {args.host}:{port} ({workers} workers)", file=sys.stderr, flush=True)
        await task
    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    except OSError as e:
        print(f"serve_api: {e}", file=sys.stderr)
        return 2
    finally:
        api.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
