"""The types every battle source shares: what a backend's step returns (Decision, Ended, Step),
what the bridge returns (Record, Batch), the error that names one battle (BattleError), and the
Backend protocol that the in-process simulator and the stdio backend both honour. They live at
the bottom so that backends, players and runners all read them from one place."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from metapvp.contract import Contract


class EngineError(RuntimeError):
    """JavaScript raised: the message says which battle and which line where it knows."""


class BattleError(EngineError):
    """Bad input for one battle: names the battle, the perspective and the offending line."""

    def __init__(self, battle, perspective, message, line=None):
        super().__init__(message)
        self.battle, self.perspective, self.line = battle, perspective, line

    @classmethod
    def from_js(cls, err: dict) -> BattleError:
        return cls(err["battle"], err.get("perspective"), err["message"], err.get("line"))


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


@dataclass
class Record:
    battle: str
    perspective: str
    row: int
    decision: bool      # the player has a request to answer
    rqid: int | None    # the request's id, for `/choose ...|rqid`
    ended: bool
    winner: str | None  # the winner's name once ended, '' for a tie
    turn: int
    error: str          # the last |error| line the server sent this player
    refusals: int       # refusals of the current request (see PlayerView.choose in js/src/view.js)
    invalid: int        # choices refused as invalid over the battle, for this perspective
    unavailable: int    # choices refused for hidden information over the battle (re-decided)
    choices: dict | None = None  # {action index (a string, as JSON keys are): choice string}, if asked for


@dataclass
class Batch:
    records: list[Record]
    obs: dict[str, np.ndarray]  # views over the engine's buffer: valid until its next call
    errors: list[BattleError] = field(default_factory=list)

    def raise_first(self):
        if self.errors:
            raise self.errors[0]


@runtime_checkable
class BattleViews(Protocol):
    """What a player may ask of the battles it decides in (Decisions.state): every backend, and
    the bridge (metapvp.engine.Engine) that live play and the move API feed."""

    def scripted(self, policy: str, keys) -> list[int]:
        """Actions of a scripted player ('maxdamage', 'heuristic') for (battle id, side) pairs."""

    def lookahead(self, keys, candidates, play_on: int = 0, samples: int = 1) -> list:
        """Lookahead values of candidate actions for (battle id, side) pairs (js/src/lookahead.js)."""

    def search(self, keys, actions, priors, seeds, options: dict) -> list:
        """A search of each (battle id, side) pair's decision over its candidate actions, from the
        policy's probabilities for them (js/src/search.js; `options`: SearchConfig.to_js())."""

    def engine_worlds(self, keys, worlds: int, seeds, told: bool | str = False, foes: bool = False) -> list:
        """For each (battle id, side) pair, `worlds` worlds drawn from its player's view written as
        poke-engine states, with each world's names of our options (js/src/enginestate.js);
        `told` (a diagnostic the in-process simulator alone can answer): True, each the true
        battle; "sets", "unseen" or "rebuilt", drawn but for the seen foes' true sets, the true
        unseen foes, or both;
        `foes`: with each world's foe team as drawn."""

    def labels(self, keys) -> list:
        """For each (battle id, side) pair, its legal actions in words (js/src/thoughts.js)."""


@runtime_checkable
class Backend(BattleViews, Protocol):
    """Runs many battles; each call returns the decisions now pending (their observations laid
    out by the contract), the battles that ended and the errors of those that failed. Everything
    players and runners call on a backend is here: metapvp.engine.Simulator (in-process) and
    metapvp.backends.stdio.StdioSimulator honour all of it (tests/test_backends.py checks)."""
    contract: Contract

    def start(self, battles: list[dict]) -> Step:
        """battles: dicts with id, format, seed ("a,b,c,d"), optionally p1team / p2team and
        keepLog (return Showdown's saved-battle log at the end)."""

    def step(self, actions, start: list[dict] = ()) -> Step:
        """actions: (battle id, side, action index) for decisions of the last Step; `start`:
        battles to start in the same call."""

    def abort(self, ids=None) -> int:
        """Drops the running battles `ids` (default: every one); -> how many were dropped."""

    def close(self):
        """Frees everything the backend holds (JavaScript objects, child processes)."""
