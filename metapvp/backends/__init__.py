"""Simulator backends behind one interface (start / step / scripted / abort), all feeding the
same headless clients and encoder:

- inprocess (default): Showdown's simulator in the same V8 context as the clients
  (metapvp.engine.Simulator);
- stdio: the official `pokemon-showdown simulate-battle` as a child process per battle
  (metapvp.backends.stdio).

Both implement metapvp.backends.protocol.Backend."""


def make_backend(name: str = "inprocess", contract=None):
    if name == "inprocess":
        from metapvp.engine import Simulator
        return Simulator(contract)
    if name == "stdio":
        from metapvp.backends.stdio import StdioSimulator
        return StdioSimulator(contract)
    raise ValueError(f"unknown simulator backend {name!r} (inprocess or stdio)")
