"""Trained policies: the network and model files (metapvp.players.neural plays them)."""
from metapvp.models.architecture import network_class
from metapvp.models.modelfile import ModelError, load_model, save_model
from metapvp.models.network import PRESETS, PolicyNet, to_tensors
from metapvp.models.sampling import sample
from metapvp.models.tables import dex_tables

__all__ = ["ModelError", "PRESETS", "PolicyNet", "load_model", "network_class", "new_model", "sample", "save_model",
           "to_tensors"]


def new_model(contract, preset: str = "small") -> PolicyNet:
    """A freshly initialised network for `contract`, with the contract's dex tables."""
    move_table, type_chart = dex_tables(contract)
    return network_class(contract)(contract, preset, move_table, type_chart)
