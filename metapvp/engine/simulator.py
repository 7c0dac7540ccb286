"""The in-process backend: Showdown's simulator runs in the same V8 context as the battle
clients, so a step of many battles is one call: the chosen actions in, every new decision's
observation out."""
from __future__ import annotations

from metapvp.engine.types import BattleError, Decision, Ended, Step
from metapvp.engine.v8 import V8Object


class Simulator(V8Object):
    """Many simulated battles in one V8 context, stepped together (a Backend, see
    metapvp/engine/types.py)."""
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

    def replay(self, choices, start: list[dict] = ()) -> Step:
        """As step(), with recorded choice strings (battle id, side, choice) from a saved
        battle's input log in place of action indices (metapvp/arena/replay.py)."""
        return self._step(self.v8.call(self.handle, "replay", [[b, s, str(c)] for b, s, c in choices],
                                       list(start)))

    def abort(self, ids=None) -> int:
        """Drops the running battles `ids` (default: every one); returns how many there were."""
        return self.v8.call(self.handle, "abort", None if ids is None else list(ids))

    def _step(self, out: dict) -> Step:
        decisions = [Decision(**d) for d in out["decisions"]]
        rows = max((max(d.row, d.priv) for d in decisions), default=-1) + 1
        return Step(decisions, self._views(out["generation"], rows),
                    [Ended(**e) for e in out["ended"]], [BattleError.from_js(e) for e in out["errors"]])
