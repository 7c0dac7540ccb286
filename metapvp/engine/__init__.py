"""The embedded V8 engine: headless battle clients, the encoder, the in-process simulator, and
the step types and Backend protocol every battle source shares."""
from metapvp.engine.bridge import Engine
from metapvp.engine.simulator import Simulator
from metapvp.engine.types import Backend, Batch, BattleError, Decision, Ended, EngineError, Record, Step
from metapvp.engine.v8 import context

__all__ = ["Backend", "Batch", "BattleError", "Decision", "Ended", "Engine", "EngineError", "Record",
           "Simulator", "Step", "context"]
