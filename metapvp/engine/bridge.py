"""Batched access to headless battle clients in V8, for messages from outside it (a Showdown
server, a stdio simulator, recorded logs). Each battle is keyed by (battle id, perspective)."""
from __future__ import annotations

import json

import numpy as np

from metapvp.engine.types import Batch, BattleError, EngineError, Record
from metapvp.engine.v8 import V8Object


def request_side(request_json: str) -> str | None:
    """The side ('p1' or 'p2') a |request| JSON is for, None if it names none; ValueError for
    text that is not a request object. For a client that must open a battle's view before it
    knows its perspective."""
    req = json.loads(request_json)
    side = req.get("side", {}) if isinstance(req, dict) else None
    if not isinstance(side, dict):
        raise ValueError("not a request object")
    return side.get("id") if side.get("id") in ("p1", "p2") else None


class Engine(V8Object):
    """Many battle views in one V8 context, fed and encoded in batched calls."""
    kind = "engine"

    def open(self, battle: str, perspective: str = "p1"):
        self._call_one(battle, perspective, "open", battle, perspective)

    def close_view(self, battle: str, perspective: str = "p1"):
        """Forgets one battle's view (close() frees the whole engine)."""
        self.v8.call(self.handle, "close", battle, perspective)

    def batch(self, feed=(), encode=(), choices: bool = False) -> Batch:
        """feed: (battle, perspective, message) triples, a message being the newline-joined lines
        of one Showdown message; encode: (battle, perspective) pairs, written in that order;
        `choices`: each record with a decision also gets its legal actions' choice strings (as
        choices() gives them). One V8 call for all of it; a bad battle is reported in `errors` and
        the others go on."""
        out = self.v8.call(self.handle, "batch", {"feed": [list(x) for x in feed],
                                                  "encode": [list(x) for x in encode], "choices": choices})
        records = [Record(**r) for r in out["records"]]
        return Batch(records, self._views(out["generation"], len(records)),
                     [BattleError.from_js(e) for e in out["errors"]])

    def feed(self, battle: str, perspective: str, message: str):
        """Feeds one message; raises BattleError for a bad line."""
        self.batch(feed=[(battle, perspective, message)]).raise_first()

    def encode(self, battle: str, perspective: str = "p1") -> tuple[Record, dict[str, np.ndarray]]:
        """The battle's current observation (leading dimension 1), copied out of the buffer."""
        b = self.batch(encode=[(battle, perspective)])
        b.raise_first()
        return b.records[0], {k: v.copy() for k, v in b.obs.items()}

    def choice(self, battle: str, perspective: str, action: int) -> str | None:
        """The exact Showdown choice string for action index `action`; None when the request has
        no such action (a refusal: decide again), 'default' once the request was refused
        MAX_REFUSALS times (js/src/view.js keeps the rule)."""
        return self._call_one(battle, perspective, "choice", battle, perspective, int(action))

    def refused(self, battle: str, perspectives=("p1", "p2")) -> dict[str, int]:
        """{invalid, unavailable}: the battle's refused choices, summed over these perspectives'
        views (js/src/view.js counts them, for every backend and for live play)."""
        return self.v8.call(self.handle, "refused", battle, list(perspectives))

    def choices(self, battle: str, perspective: str) -> dict[int, str]:
        """Every legal action of the current request and its choice string, in one call."""
        return {int(a): c for a, c in self._call_one(battle, perspective, "choices", battle, perspective).items()}

    def _call_one(self, battle, perspective, method, *args):
        try:
            return self.v8.call(self.handle, method, *args)
        except EngineError as e:
            raise BattleError(battle, perspective, str(e)) from None
