"""Which network plays a contract: PolicyNet for singles contracts, DoublesPolicyNet for doubles
ones (the contract's action table says which)."""
from __future__ import annotations

from metapvp.models.doubles import DoublesPolicyNet
from metapvp.models.network import PolicyNet


def network_class(contract) -> type[PolicyNet]:
    return DoublesPolicyNet if contract.game_type == "doubles" else PolicyNet
