"""The `metapvp` command: one entry for what users run, each subcommand the command line of the
same name in metapvp/exe/ (which keep working on their own: ./rp metapvp/exe/head2head.py ...).

    metapvp head2head --p1 agent --p2 heuristic --num-matches 10
    metapvp train expts/quick.yml runs/quick [--resume]
    metapvp serve --model agent
    metapvp challenge agent --port 8000
    metapvp eval agent --port 8000 --num-matches 50
    metapvp replay RUN_DIR --battle 0 [--thoughts]
    metapvp ship RUN_DIR --model MODEL --evals EVAL_DIR ...
    metapvp runs pool|compare|average ...
    metapvp selfplay runs/selfplay/r1 --positions 2000000 [--resume]
    metapvp fit-value expts/value/r1.yml runs/value/r1 [--resume]
    metapvp bench

`metapvp SUBCOMMAND --help` says all of each. In a checkout, the command first brings the
environment up to date as ./rp does (scripts/install.sh: instant when nothing changed)."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys

from metapvp import ROOT

# subcommand -> (module in metapvp.exe, what it does)
COMMANDS = {
    "head2head": ("head2head", "pit two players against each other, with honest statistics"),
    "train": ("integrated_rl_script", "train a policy by self-play PPO from an experiment file"),
    "serve": ("serve_api", "serve a player's moves to other clients over a socket"),
    "challenge": ("challenge_bot", "accept challenges on a Showdown server"),
    "eval": ("smogon_eval", "ladder, or challenge a user, on a Showdown server"),
    "replay": ("replay", "a run's battles as Showdown replays, or pages of what the players thought"),
    "ship": ("ship_model", "ship a trained model with its card"),
    "fit-leaf": ("fit_leaf", "fit the native search's learned leaf value"),
    "selfplay": ("selfplay", "self-play games inside the engine, written as a dataset"),
    "fit-value": ("fit_value", "fit the value network over the engine's state to self-play games"),
    "bench": ("bench", "the full stack's speed beside the simulator alone"),
}
RUNS = {
    "pool": ("pool_results", "add up head2head runs of one pairing"),
    "compare": ("compare_runs", "compare two head2head runs battle by battle"),
    "average": ("average_checkpoints", "average a run's checkpoints into one model"),
}


def usage() -> str:
    lines = ["usage: metapvp SUBCOMMAND [ARGS...]   (metapvp SUBCOMMAND --help for its own)", "", "subcommands:"]
    lines += [f"  {name:<12} {what}" for name, (_, what) in COMMANDS.items()]
    lines += [f"  runs {name:<7} {what}" for name, (_, what) in RUNS.items()]
    return "\n".join(lines)


class UsageError(Exception):
    """A command line that names no subcommand the command has."""


def resolve(argv: list[str]) -> tuple[str, str, list[str]]:
    """(module, the command's name, its arguments) for a command line."""
    if not argv:
        raise UsageError("name a subcommand")
    name, rest = argv[0], argv[1:]
    if name == "runs":
        if not rest or rest[0] not in RUNS:
            raise UsageError(f"runs: name one of {', '.join(RUNS)}" + (f", not {rest[0]!r}" if rest else ""))
        return RUNS[rest[0]][0], f"metapvp runs {rest[0]}", rest[1:]
    if name not in COMMANDS:
        raise UsageError(f"no subcommand {name!r}")
    return COMMANDS[name][0], f"metapvp {name}", rest


def ensure_installed():
    """In a checkout, scripts/install.sh brings the bundle and the environment up to date, as
    ./rp does before every command (METAPVP_SKIP_INSTALL=1 skips it)."""
    script = ROOT / "scripts" / "install.sh"
    if os.environ.get("METAPVP_SKIP_INSTALL") or not script.is_file():
        return
    if subprocess.run([str(script)]).returncode != 0:
        raise SystemExit(f"metapvp: {script} failed (above)")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(usage())
        return 0
    try:
        module, prog, args = resolve(argv)
    except UsageError as e:
        print(f"metapvp: {e}\n\n{usage()}", file=sys.stderr)
        return 2
    ensure_installed()
    sys.argv = [prog, *args]   # argparse names the command in its usage and errors
    status = importlib.import_module(f"metapvp.exe.{module}").main(args)
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(main())
