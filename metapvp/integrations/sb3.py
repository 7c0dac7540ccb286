"""The project's network as a Stable-Baselines3 policy: sb3-contrib's Maskable PPO learns with
its embeddings, its pointer head over actions and its value head, on the gymnasium
environments (metapvp.gym) as they are.

    import gymnasium, metapvp.gym
    from sb3_contrib import MaskablePPO
    from metapvp.integrations.sb3 import MetapvpPolicy
    env = gymnasium.make("metapvp/Gen9RandomBattle-v0", opponent="random")
    model = MaskablePPO(MetapvpPolicy, env, policy_kwargs={"weights": "agent"})   # or preset=...
    model.learn(10_000)

`weights`: a model file (or "agent", the shipped model for gen9randombattle) whose weights
(and observation normalisation) the policy starts from; without it a fresh network of `preset`.
The observation normalisation statistics follow the training data, as in the project's own
trainer."""
from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces

try:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
except ImportError:
    raise ImportError("metapvp.integrations.sb3 needs Stable-Baselines3 and sb3-contrib, an optional part: "
                      "pip install 'metapvp[sb3]' (./rp installs every optional part)") from None

from metapvp import contract as contracts
from metapvp.gym.spaces import obs_key
from metapvp.models import load_model, new_model
from metapvp.players.spec import shipped_model


class ContractFeatures(BaseFeaturesExtractor):
    """Hands the network the observation as the contract names it (no learned layers here:
    the network reads the features itself)."""

    def __init__(self, observation_space: spaces.Dict, contract: str = "singles-v2"):
        super().__init__(observation_space, features_dim=1)
        self.contract = contracts.load(contract)
        self.keys = {f.name: obs_key(f.name) for f in self.contract.features}

    def forward(self, obs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {name: obs[key] for name, key in self.keys.items()}


class MetapvpPolicy(MaskableActorCriticPolicy):
    """Maskable actor-critic whose actor and critic are metapvp's PolicyNet (models/network.py)."""

    def __init__(self, observation_space: spaces.Dict, action_space: spaces.Discrete, lr_schedule,
                 contract: str = "singles-v2", preset: str = "small", weights: str | None = None,
                 **kwargs: Any):
        self.contract_name, self.preset, self.weights = contract, preset, weights
        kwargs.update(features_extractor_class=ContractFeatures, features_extractor_kwargs={"contract": contract},
                      ortho_init=False, net_arch=[])
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule) -> None:
        contract = contracts.load(self.contract_name)
        if self.weights:
            path = shipped_model("gen9randombattle") if self.weights == "agent" else self.weights
            self.net, _ = load_model(path, contract)
        else:
            self.net = new_model(contract, self.preset)
        if self.net.num_actions != self.action_space.n:
            raise ValueError(f"the network chooses among {self.net.num_actions} actions, the environment "
                             f"{self.action_space.n}: is the environment's contract {self.contract_name}?")
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(contract=self.contract_name, preset=self.preset, weights=self.weights)
        for key in ("features_extractor_class", "features_extractor_kwargs", "ortho_init", "net_arch"):
            data.pop(key, None)
        return data

    def _run(self, obs, action_masks=None):
        logits, value, _ = self.net(self.extract_features(obs))
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution, value.unsqueeze(-1)

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        distribution, values = self._run(obs, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        return actions, values, distribution.log_prob(actions)

    def evaluate_actions(self, obs, actions, action_masks=None):
        # (called on each training minibatch: the normalisation follows the data, as in the
        # project's own trainer)
        with torch.no_grad():
            self.net.update_norms(self.extract_features(obs))
        distribution, values = self._run(obs, action_masks)
        return values, distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs, action_masks=None):
        return self._run(obs, action_masks)[0]

    def predict_values(self, obs):
        return self._run(obs)[1]
