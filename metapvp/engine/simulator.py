"""The in-process backend: Showdown's simulator runs in the same V8 context as the battle
clients, so a step of many battles is one call: the chosen actions in, every new decision's
observation out."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from metapvp.engine.bridge import BattleError
from metapvp.engine.v8 import V8Object, context


@dataclass
class Decision:
    battle: str
    side: str   # 'p1' or 'p2'
    row: int    # its row in Step.obs
    turn: int
    priv: int = -1  # privileged battles: the row of the opponent's own record (its true team)


@dataclass
class Ended:
    battle: str
    seed: str
    winner: str | None  # 'p1', 'p2', '' for a tie, None if the battle failed
    turns: int
    invalid: int        # choices the simulator refused as invalid
    unavailable: int    # choices refused for hidden information (an unrevealed trap), re-decided
    error: str | None
    log: str | None = None          # Showdown's end-of-battle JSON log, when asked for
    streams: dict | None = None     # every message each player saw, when recording


@dataclass
class Step:
    decisions: list[Decision]
    obs: dict[str, np.ndarray]      # views over the simulator's buffer: valid until its next call;
                                    # index them by Decision.row (and .priv)
    ended: list[Ended] = field(default_factory=list)
    errors: list[BattleError] = field(default_factory=list)


class Simulator(V8Object):
    """Many simulated battles in one V8 context, stepped together."""
    kind = "simulator"

    def start(self, battles: list[dict]) -> Step:
        """battles: dicts with id, format, seed ("a,b,c,d"), and optionally p1team / p2team
        (exported or packed teams), keepLog (return the log at the end), record (return every
        message each player saw), privileged (add the opponent's own record to each decision)."""
        return self._step(self.v8.call(self.handle, "start", battles))

    def step(self, actions, start: list[dict] = ()) -> Step:
        """actions: (battle id, side, action index) for decisions of the last Step; `start`:
        battles to start in the same call (as in start())."""
        return self._step(self.v8.call(self.handle, "step", [[b, s, int(a)] for b, s, a in actions],
                                       list(start)))

    def abort(self, ids=None) -> int:
        """Drops the running battles `ids` (default: every one); returns how many there were."""
        return self.v8.call(self.handle, "abort", None if ids is None else list(ids))

    def _step(self, out: dict) -> Step:
        decisions = [Decision(**d) for d in out["decisions"]]
        rows = max((max(d.row, d.priv) for d in decisions), default=-1) + 1
        return Step(decisions, self._views(out["generation"], rows),
                    [Ended(**e) for e in out["ended"]], [BattleError.from_js(e) for e in out["errors"]])


def check_masks(format: str, battles: int, seed: str = "1,2,3,4", contract=None, **teams) -> dict:
    """Plays `battles` random battles in JS and offers the simulator every action at every
    decision; returns the counts (see js/src/maskcheck.js). teams: p1team / p2team."""
    v8 = context(contract)
    opts = {"format": format, "battles": battles, "seed": seed, **teams}
    return json.loads(v8.eval(f"metapvp.checkMasks({json.dumps(opts)})"))
