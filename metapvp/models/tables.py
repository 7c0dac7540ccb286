"""Static dex data for the network, read from the contract's tables (no V8 needed)."""
from __future__ import annotations

import torch

from metapvp import contract as contracts


def dex_tables(contract) -> tuple[torch.Tensor, torch.Tensor]:
    """(move table (moves vocab, columns), type chart (types vocab, types vocab)) for `contract`
    (a Contract or a contract's name)."""
    c = contract if isinstance(contract, contracts.Contract) else contracts.load(contract or contracts.DEFAULT)
    tables = c.dex_tables()
    return (torch.tensor(tables["moves"], dtype=torch.float32),
            torch.tensor(tables["typeChart"], dtype=torch.float32))
