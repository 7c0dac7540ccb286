"""Gymnasium environments. `import metapvp.gym` registers, for every gen 1-9 random-battle
format, "metapvp/Gen{N}RandomBattle-v0", and for random doubles (gens 8 and 9, contract
doubles-v1) "metapvp/Gen{N}RandomDoublesBattle-v0" (any other format: PokemonEnv(format=...,
contract=...)), and the vector form PokemonVectorEnv, which steps many battles of one V8 context
per call.

    import gymnasium, metapvp.gym
    env = gymnasium.make("metapvp/Gen9RandomBattle-v0", opponent="heuristic")
    env = gymnasium.make("metapvp/Gen9RandomDoublesBattle-v0", opponent="maxdamage")
"""
import gymnasium

from metapvp.contract import DOUBLES
from metapvp.gym.env import PokemonEnv
from metapvp.gym.vector import PokemonVectorEnv

for _gen in range(1, 10):
    _id = f"metapvp/Gen{_gen}RandomBattle-v0"
    if _id not in gymnasium.registry:
        gymnasium.register(_id, entry_point="metapvp.gym.env:PokemonEnv",
                           kwargs={"format": f"gen{_gen}randombattle"})

for _gen in (8, 9):
    _id = f"metapvp/Gen{_gen}RandomDoublesBattle-v0"
    if _id not in gymnasium.registry:
        gymnasium.register(_id, entry_point="metapvp.gym.env:PokemonEnv",
                           kwargs={"format": f"gen{_gen}randomdoublesbattle", "contract": DOUBLES})

__all__ = ["PokemonEnv", "PokemonVectorEnv"]
