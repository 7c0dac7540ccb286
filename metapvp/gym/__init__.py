"""Gymnasium environments. `import metapvp.gym` registers, for every gen 1-9 random-battle
format, "metapvp/Gen{N}RandomBattle-v0" (any other format: PokemonEnv(format=...)), and the
vector form PokemonVectorEnv, which steps many battles of one V8 context per call.

    import gymnasium, metapvp.gym
    env = gymnasium.make("metapvp/Gen9RandomBattle-v0", opponent="heuristic")
"""
import gymnasium

from metapvp.gym.env import PokemonEnv
from metapvp.gym.vector import PokemonVectorEnv

for _gen in range(1, 10):
    _id = f"metapvp/Gen{_gen}RandomBattle-v0"
    if _id not in gymnasium.registry:
        gymnasium.register(_id, entry_point="metapvp.gym.env:PokemonEnv",
                           kwargs={"format": f"gen{_gen}randombattle"})

__all__ = ["PokemonEnv", "PokemonVectorEnv"]
