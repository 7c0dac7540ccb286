"""The one way an action is drawn from a policy's probabilities: the neural player, training's
rollouts and the move API all sample through here."""
from __future__ import annotations

import torch


def sample(probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One action index per row of `probs` (N, actions), drawn in proportion to it."""
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
