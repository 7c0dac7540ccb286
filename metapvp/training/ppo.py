"""PPO: generalised advantage estimation and the clipped-surrogate update, top to bottom."""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from metapvp.models.network import PolicyNet


def gae(rewards, values, dones, last_value: float, gamma: float, lam: float):
    """Advantages and returns of one trajectory segment. dones[t] is 1 where the battle ended
    after step t; last_value bootstraps the step after the segment (ignored if it ended)."""
    rewards, values, dones = (np.asarray(x, dtype=np.float64) for x in (rewards, values, dones))
    advantages = np.zeros_like(rewards)
    running = 0.0
    for t in reversed(range(len(rewards))):
        next_value = last_value if t == len(rewards) - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_value * nonterminal - values[t]
        running = delta + gamma * lam * nonterminal * running
        advantages[t] = running
    return advantages, advantages + values


def explained_variance(pred: np.ndarray, target: np.ndarray) -> float:
    var = np.var(target)
    return float("nan") if var == 0 else float(1 - np.var(target - pred) / var)


def ppo_update(model: PolicyNet, optimizer, batch: dict, cfg: dict, entropy_coef: float,
               generator: torch.Generator, device="cpu", teacher_coef: float = 0.0) -> dict:
    """One PPO update on `batch`: obs, priv (feature dicts of tensors), actions, logprobs,
    advantages, returns, values, outcomes (1 win, 0 loss, 0.5 tie, nan unknown), and optionally
    teacher (a teacher's choices, -1 where none): with teacher_coef > 0, the cross-entropy of the
    policy on them is added, a pull towards the teacher. Returns the update's metrics."""
    n = len(batch["actions"])
    mb_size = min(cfg["minibatch_size"], n)
    accum = cfg["grad_accum"]
    stats = {"policy_loss": [], "value_loss": [], "win_loss": [], "entropy": [], "approx_kl": [],
             "clipfrac": [], "grad_norm": [], "teacher_loss": []}
    model.train()
    for epoch in range(cfg["epochs"]):
        order = torch.randperm(n, generator=generator)
        epoch_kl = []
        for start in range(0, n - mb_size + 1, mb_size):
            mb_idx = order[start:start + mb_size]
            optimizer.zero_grad(set_to_none=True)
            for micro in mb_idx.chunk(accum):
                m = take(batch, micro, device)
                logits, value, win = model(m["obs"], m["priv"])
                logp_all = F.log_softmax(logits, -1)
                logp = logp_all.gather(1, m["actions"].unsqueeze(1)).squeeze(1)
                log_ratio = logp - m["logprobs"]
                ratio = log_ratio.exp()
                adv = m["advantages"]
                if cfg["normalize_advantages"] and len(adv) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg["clip"], 1 + cfg["clip"])).mean()
                v_loss = 0.5 * ((value - m["returns"]) ** 2).mean()
                entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
                known = ~torch.isnan(m["outcomes"])
                win_loss = (F.binary_cross_entropy_with_logits(win[known], m["outcomes"][known])
                            if known.any() else torch.zeros((), device=device))
                loss = (pg_loss - entropy_coef * entropy + cfg["value_coef"] * v_loss
                        + cfg["win_coef"] * win_loss)
                if teacher_coef > 0 and "teacher" in m:
                    taught = m["teacher"] >= 0
                    if taught.any():
                        t_loss = F.nll_loss(logp_all[taught], m["teacher"][taught])
                        loss = loss + teacher_coef * t_loss
                        stats["teacher_loss"].append(t_loss.item())
                (loss / accum).backward()
                with torch.no_grad():
                    kl = ((ratio - 1) - log_ratio).mean().item()
                    stats["approx_kl"].append(kl)
                    epoch_kl.append(kl)
                    stats["clipfrac"].append(((ratio - 1).abs() > cfg["clip"]).float().mean().item())
                stats["policy_loss"].append(pg_loss.item())
                stats["value_loss"].append(v_loss.item())
                stats["win_loss"].append(win_loss.item())
                stats["entropy"].append(entropy.item())
            stats["grad_norm"].append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])))
            optimizer.step()
        if cfg["target_kl"] is not None and np.mean(epoch_kl) > cfg["target_kl"]:
            break
    model.eval()
    out = {k: float(np.mean(v)) if v else float("nan") for k, v in stats.items()}
    out["epochs"] = epoch + 1
    out["explained_variance"] = explained_variance(batch["values"].numpy(), batch["returns"].numpy())
    return out


def take(batch: dict, idx: torch.Tensor, device) -> dict:
    """Rows `idx` of a batch (feature dicts and tensors), on `device`."""
    out = {}
    for k, v in batch.items():
        if isinstance(v, dict):
            out[k] = {f: t[idx].to(device) for f, t in v.items()}
        else:
            out[k] = v[idx].to(device)
    return out
