"""The embedded V8 engine: headless battle clients, the encoder, and the in-process simulator."""
from metapvp.engine.bridge import Batch, BattleError, Engine, Record
from metapvp.engine.simulator import Decision, Ended, Simulator, Step, check_masks
from metapvp.engine.v8 import EngineError, context

__all__ = ["Batch", "BattleError", "Decision", "Ended", "Engine", "EngineError", "Record",
           "Simulator", "Step", "check_masks", "context"]
