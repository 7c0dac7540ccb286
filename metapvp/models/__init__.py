"""Trained policies: the network, model files, and the player that plays with them."""
from metapvp.models.modelfile import ModelError, load_model, save_model
from metapvp.models.network import PRESETS, PolicyNet

__all__ = ["ModelError", "PRESETS", "PolicyNet", "load_model", "new_model", "save_model"]


def new_model(contract, preset: str = "small") -> PolicyNet:
    """A freshly initialised network for `contract`, with the dex tables from V8."""
    from metapvp.models.tables import dex_tables
    move_table, type_chart = dex_tables(contract)
    return PolicyNet(contract, preset, move_table, type_chart)
