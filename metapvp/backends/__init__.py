"""Simulator backends behind one protocol (metapvp.engine.Backend), all feeding the
same headless clients and encoder:

- inprocess (default): Showdown's simulator in the same V8 context as the clients
  (metapvp.engine.Simulator);
- stdio: the official `pokemon-showdown simulate-battle` as a child process per battle
  (metapvp.backends.stdio).
"""
from metapvp.backends.stdio import StdioSimulator
from metapvp.engine import Backend, Simulator

BACKENDS = {"inprocess": Simulator, "stdio": StdioSimulator}


def make_backend(name: str = "inprocess", contract=None) -> Backend:
    if name not in BACKENDS:
        raise ValueError(f"unknown simulator backend {name!r} ({' or '.join(BACKENDS)})")
    return BACKENDS[name](contract)
