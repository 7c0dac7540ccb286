"""Starts the Pokemon Showdown server from the pinned npm package on 127.0.0.1 and keeps it in
the foreground until Ctrl-C, which stops it.

    ./rp scripts/showdown_server.py [--port 8000] [--root data/showdown-server] [--no-throttle]

Its state (config/config.js, logs/, databases/) lives in the root folder, which git ignores.
Open http://127.0.0.1:PORT in a browser... only if you also run a client; bots connect to
ws://127.0.0.1:PORT/showdown/websocket."""
import argparse
import signal
import sys

from metapvp.showdown.server import LocalServer, ServerError


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--root", default=None, help="the server's state folder (default data/showdown-server)")
    p.add_argument("--no-throttle", action="store_true", help="turn off the server's rate limits")
    args = p.parse_args()
    server = LocalServer(args.port, args.root, throttle=not args.no_throttle)
    try:
        server.start()
    except ServerError as e:
        print(f"showdown_server: {e}", file=sys.stderr)
        return 1
    print(f"Pokemon Showdown listening on {server.url} (log: {server.log_path}); Ctrl-C stops it", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
