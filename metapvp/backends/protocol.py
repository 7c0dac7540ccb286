"""What every simulator backend is, and the step types they share: a backend runs many battles,
and each call returns the decisions now pending (their observations laid out by the contract),
the battles that ended and the errors of those that failed."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from metapvp.contract import Contract


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


class Backend(Protocol):
    """metapvp.engine.Simulator (in-process) and metapvp.backends.stdio.StdioSimulator."""
    contract: Contract

    def start(self, battles: list[dict]) -> Step:
        """battles: dicts with id, format, seed ("a,b,c,d"), optionally p1team / p2team and
        keepLog (return Showdown's saved-battle log at the end)."""

    def step(self, actions, start: list[dict] = ()) -> Step:
        """actions: (battle id, side, action index) for decisions of the last Step; `start`:
        battles to start in the same call."""

    def scripted(self, policy: str, keys) -> list[int]:
        """Actions of a scripted policy ('maxdamage', 'heuristic') for (battle id, side) pairs."""

    def abort(self, ids=None) -> int:
        """Drops running battles (default: all); -> how many there were."""

    def close(self):
        """Frees everything the backend holds (JavaScript objects, child processes)."""
