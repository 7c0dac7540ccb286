"""Gymnasium spaces from the environment contract. Observation keys are the contract's feature
names with '_' for '.' ("pokemon_species", "action_mask"): RL libraries build one module per key
and torch refuses dots in module names. obs_key and contract_obs convert between the two."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from metapvp.contract import Contract

FLOAT_RANGE = (-8.0, 8.0)  # normalised features stay well inside this (stats / 500, boosts / 6...)


DEFAULT_CONTRACT = "singles-v2"   # the shipped agent's (tests/test_gym.py checks they agree)


def obs_key(name: str) -> str:
    """A contract feature's key in the environments' observations."""
    return name.replace(".", "_")


def obs_row(obs: dict, row: int) -> dict:
    """One decision's observation from a backend step's views (copied): keys as obs_key says,
    0/1 features as int8 (the dtype gymnasium's masks take)."""
    return {obs_key(k): v[row].astype(np.int8) if v.dtype == np.uint8 else v[row].copy() for k, v in obs.items()}


def contract_obs(obs: dict, contract: Contract) -> dict:
    """An environment observation keyed by the contract's own names again (what the project's
    network and players read)."""
    return {f.name: obs[obs_key(f.name)] for f in contract.features}


def observation_space(contract: Contract) -> spaces.Dict:
    keys = [obs_key(f.name) for f in contract.features]
    if len(set(keys)) != len(keys):
        raise ValueError(f"contract {contract.name}: two features share an observation key")
    out = {}
    for f in contract.features:
        if f.dtype == np.uint8:
            out[obs_key(f.name)] = spaces.Box(0, 1, f.shape, np.int8)
        elif f.dtype == np.int32:
            high = len(contract.vocabs[f.vocab]) - 1 if f.vocab else 9  # battle.gen: 1-9
            out[obs_key(f.name)] = spaces.Box(0, high, f.shape, np.int32)
        else:
            out[obs_key(f.name)] = spaces.Box(*FLOAT_RANGE, f.shape, np.float32)
    return spaces.Dict(out)


def action_space(contract: Contract) -> spaces.Discrete:
    return spaces.Discrete(contract.num_actions)
