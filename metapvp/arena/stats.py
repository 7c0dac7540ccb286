"""Head-to-head statistics: win rate with a Wilson 95% interval, a z score against an even
match, and the Elo difference the win rate implies. A tie counts as half a win."""
from __future__ import annotations

import math

Z95 = 1.959963984540054


def summarize(p1_wins: int, p2_wins: int, ties: int) -> dict:
    n = p1_wins + p2_wins + ties
    if n == 0:
        return {"matches": 0, "p1_win_rate": None, "p1_win_rate_ci95": [None, None], "z": None,
                "elo_diff": None}
    p = (p1_wins + 0.5 * ties) / n
    return {"matches": n, "p1_win_rate": p, "p1_win_rate_ci95": list(wilson(p, n)),
            "z": (p - 0.5) / math.sqrt(0.25 / n), "elo_diff": elo_diff(p)}


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_diff(p: float) -> float:
    """The rating difference at which the expected score is p (capped at +-800 for 0 or 1)."""
    if p <= 0:
        return -800.0
    if p >= 1:
        return 800.0
    return max(-800.0, min(800.0, -400 * math.log10(1 / p - 1)))
