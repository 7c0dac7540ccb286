"""A trained policy as a player: every waiting battle goes through one forward pass."""
from __future__ import annotations

import numpy as np
import torch

from metapvp.models.modelfile import load_model
from metapvp.models.network import PolicyNet
from metapvp.players.base import Decisions, Player


def to_tensors(obs: dict[str, np.ndarray], device="cpu") -> dict[str, torch.Tensor]:
    return {k: torch.as_tensor(np.ascontiguousarray(v), device=device) for k, v in obs.items()}


class NeuralPlayer(Player):
    def __init__(self, model: PolicyNet, name: str = "model", seed: int | None = None,
                 contract: str | None = None):
        self.model = model.eval()
        self.name = name
        self.contract = contract  # the contract the model was trained on: battles are encoded with it
        self.generator = torch.Generator().manual_seed(seed if seed is not None else 0)

    @torch.no_grad()
    def evaluate(self, obs: dict[str, np.ndarray]):
        """-> (probabilities (N, actions), win probability (N,)) as numpy."""
        logits, _, win = self.model(to_tensors(obs))
        return torch.softmax(logits, -1).numpy(), torch.sigmoid(win).numpy()

    @torch.no_grad()
    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        if len(decisions) == 0:
            return np.zeros(0, dtype=np.int64)
        logits, _, _ = self.model(to_tensors(decisions.obs))
        if greedy:
            return logits.argmax(-1).numpy()
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=self.generator).squeeze(-1).numpy()


def load_player(path, seed: int | None = None) -> NeuralPlayer:
    model, meta = load_model(path)
    return NeuralPlayer(model, name=str(path), seed=seed, contract=meta["contract"]["name"])
