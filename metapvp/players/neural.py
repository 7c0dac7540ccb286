"""A trained policy as a player: every waiting battle goes through one forward pass.

Several models can play as one (an ensemble): their action probabilities are averaged (in the
measurements of docs/agent.md a point or two better than either alone, within the noise). A temperature reshapes the
(averaged) probabilities before sampling: 1 samples the policy as trained, 0 always takes its
most probable action."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from metapvp.models import ModelError, PolicyNet, load_model, sample, to_tensors
from metapvp.players.base import Decisions, Player


class NeuralPlayer(Player):
    thinks = True
    def __init__(self, model: PolicyNet | Sequence[PolicyNet], name: str = "model", seed: int | None = None,
                 contract: str | None = None, temperature: float = 1.0):
        if not temperature >= 0:  # (NaN too)
            raise ValueError(f"{name}: temperature must be >= 0, got {temperature}")
        self.models = [m.eval() for m in (model if isinstance(model, (list, tuple)) else [model])]
        self.name = name
        self.contract = contract  # the contract the model was trained on: battles are encoded with it
        self.temperature = temperature
        self.generator = torch.Generator().manual_seed(seed if seed is not None else 0)

    def _forward(self, obs: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
        """-> (the player's action probabilities: the models' mean at the temperature, win
        probability: the models' mean)."""
        t = to_tensors(obs)
        probs, wins = [], []
        for m in self.models:
            logits, _, win = m(t)
            probs.append(torch.softmax(logits, -1))
            wins.append(torch.sigmoid(win))
        p = torch.stack(probs).mean(0)
        if self.temperature == 0:
            p = torch.nn.functional.one_hot(p.argmax(-1), p.shape[-1]).to(p.dtype)
        elif self.temperature != 1:
            p = torch.softmax(torch.log(p.clamp_min(1e-30)) / self.temperature, -1)
        return p, torch.stack(wins).mean(0)

    @torch.inference_mode()  # (a little faster than no_grad: what it returns leaves as numpy)
    def evaluate(self, obs: dict[str, np.ndarray]):
        """-> (probabilities (N, actions), win probability (N,)) as numpy."""
        probs, win = self._forward(obs)
        return probs.numpy(), win.numpy()

    def choose(self, decisions: Decisions, probs: np.ndarray) -> np.ndarray:
        """The best actions, given this player's probabilities for these decisions (evaluate())."""
        return np.asarray(probs).argmax(-1)

    @torch.no_grad()
    def act(self, decisions: Decisions, greedy: bool = False) -> np.ndarray:
        if len(decisions) == 0:
            return np.zeros(0, dtype=np.int64)
        probs, win = self._forward(decisions.obs)
        if self.thinking:
            self.thoughts = {key: {"prior": probs[i].numpy(), "win": float(win[i])}
                             for i, key in enumerate(decisions.keys)}
        if greedy or self.temperature == 0:
            return probs.argmax(-1).numpy()
        return sample(probs, self.generator).numpy()


def load_player(path, seed: int | None = None, temperature: float = 1.0) -> NeuralPlayer:
    """One model file, or several (a list) played as an ensemble; they must share a contract."""
    paths = list(path) if isinstance(path, (list, tuple)) else [path]
    loaded = [load_model(p) for p in paths]
    names = {meta["contract"]["name"] for _, meta in loaded}
    if len(names) > 1:
        raise ModelError("an ensemble's models must share a contract: "
                         + ", ".join(f"{p} reads {meta['contract']['name']}" for p, (_, meta) in zip(paths, loaded)))
    return NeuralPlayer([m for m, _ in loaded], name="+".join(map(str, paths)), seed=seed,
                        contract=names.pop(), temperature=temperature)
