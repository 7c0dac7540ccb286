"""Static dex data for the network, read once from the bundle (js/src/dextables.js)."""
from __future__ import annotations


import torch

from metapvp.engine.v8 import context


def dex_tables(contract) -> tuple[torch.Tensor, torch.Tensor]:
    """(move table (moves vocab, 11), type chart (types vocab, types vocab)) for `contract`."""
    tables = context(contract).dex_tables()
    return (torch.tensor(tables["moves"], dtype=torch.float32),
            torch.tensor(tables["typeChart"], dtype=torch.float32))
