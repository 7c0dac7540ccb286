"""Gymnasium spaces from the environment contract."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from metapvp.contract import Contract

FLOAT_RANGE = (-8.0, 8.0)  # normalised features stay well inside this (stats / 500, boosts / 6...)


def observation_space(contract: Contract) -> spaces.Dict:
    out = {}
    for f in contract.features:
        if f.dtype == np.uint8:
            out[f.name] = spaces.Box(0, 1, f.shape, np.uint8)
        elif f.dtype == np.int32:
            high = len(contract.vocabs[f.vocab]) - 1 if f.vocab else 9  # battle.gen: 1-9
            out[f.name] = spaces.Box(0, high, f.shape, np.int32)
        else:
            out[f.name] = spaces.Box(*FLOAT_RANGE, f.shape, np.float32)
    return spaces.Dict(out)


def action_space(contract: Contract) -> spaces.Discrete:
    return spaces.Discrete(contract.num_actions)
