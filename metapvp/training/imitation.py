"""Imitation warm start: the policy learns a teacher's choices (cross-entropy over the legal
actions), and the value and win heads learn how the teacher's battles went, before PPO goes on
from those weights. The demonstrations come from the same rollout workers, a scripted teacher
playing the learner's seat (rollout.Matchup with a controller)."""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from metapvp.models.network import PolicyNet
from metapvp.training.ppo import take
from metapvp.training.rollout import Matchup

KEPT = ("records", "priv_records", "actions", "raw_returns", "outcomes", "target_actions", "target_probs")
"""What a demonstration keeps of a rollout: enough to imitate the teacher and learn its outcomes."""


def demonstrations(pool, pre: dict, gamma: float, lam: float, store: Path, pupil: bytes | None = None) -> dict:
    """The teacher (pre["teacher"]) playing the learner's seat against pre["opponents"] on the
    pool's workers, in chunks, until pre["decisions"] of its choices are recorded; where
    pre["pupil_plays"] > 0, `pupil` (the main policy's weights) plays that share of the seat's
    decisions in the teacher's place, the teacher's choices still recorded; -> the
    demonstrations' arrays (KEPT). Each chunk is written to `store` as it comes (chunk-N.npz),
    so that a run stopped here goes on with --resume from the chunks it has. The workers'
    battles are reset after: the teacher's must not go on into PPO."""
    store.mkdir(parents=True, exist_ok=True)
    chunks = [dict(np.load(f)) for f in chunk_files(store)]
    recorded = sum(len(c["actions"]) for c in chunks)
    matchups = [Matchup("teacher", "main", opp, controller=pre["teacher"]) for opp in pre["opponents"]]
    bar = tqdm(total=pre["decisions"], initial=min(recorded, pre["decisions"]), unit="dec",
               desc=f"imitating {pre['teacher']}", dynamic_ncols=True)
    while recorded < pre["decisions"]:
        chunk = min(pre["chunk"], pre["decisions"] - recorded)
        plan = {"weights": {"main": pupil} if pre["pupil_plays"] else {}, "pupil": pre["pupil_plays"],
                "matchups": matchups, "shares": [1.0] * len(matchups),
                "decisions": max(1, -(-chunk // pool.size)), "reward_scale": 1.0, "gamma": gamma, "lam": lam}
        got = pool.run("collect", [plan] * pool.size)
        arrays = {k: np.concatenate([getattr(r, k) for r in got]) for k in KEPT}
        tmp = store / f"chunk-{len(chunks):05d}.tmp.npz"
        np.savez_compressed(tmp, **arrays)
        tmp.replace(store / f"chunk-{len(chunks):05d}.npz")   # whole or not at all
        chunks.append(arrays)
        recorded += len(arrays["actions"])
        bar.update(len(arrays["actions"]))
    bar.close()
    pool.run("reset", [None] * pool.size)
    return {k: np.concatenate([c[k] for c in chunks]) for k in KEPT}


def chunk_files(folder: Path) -> list[Path]:
    """The whole chunks a demonstrations folder holds, in the order they were written."""
    return sorted(folder.glob("chunk-?????.npz"))


def earlier(folders: list[Path]) -> list[Path]:
    """The chunk files of earlier rounds' demonstrations (their RUN/demonstrations/ folders);
    a folder with none is named (before any battle of this round's)."""
    files = []
    for folder in folders:
        found = chunk_files(Path(folder))
        if not found:
            raise ValueError(f"pretrain.also: no demonstrations (chunk-NNNNN.npz) in {folder}")
        files += found
    return files


def wanted(pre: dict) -> bool:
    """Whether a run imitates before PPO: new demonstrations to collect (pre["decisions"]), or
    only earlier rounds' to learn (pre["also"])."""
    return bool(pre["decisions"] or pre["also"])


def joined(batch: dict | None, files: list[Path]) -> dict:
    """`batch` (None: none collected) with the demonstrations in chunk `files` after it;
    arrays of other shapes than the first part's (another contract's) are named."""
    parts = [batch] if batch is not None else []
    for f in files:
        chunk = dict(np.load(f))
        first = parts[0] if parts else chunk
        for k in KEPT:
            if k not in chunk or chunk[k].shape[1:] != first[k].shape[1:]:
                got = chunk[k].shape[1:] if k in chunk else "nothing"
                raise ValueError(f"pretrain.also: {f} has {k} of shape {got} where this run's are "
                                 f"{first[k].shape[1:]} (another contract's demonstrations?)")
        parts.append(chunk)
    if not parts:
        raise ValueError("pretrain: no demonstrations to learn (pretrain.decisions is 0 and pretrain.also empty)")
    return {k: np.concatenate([p[k] for p in parts]) for k in KEPT}


def fit(model: PolicyNet, train: dict, held: dict, pre: dict, generator, device, log, started: float):
    """pre["epochs"] epochs of imitation on `train`, each followed by the held-out losses; every
    epoch's figures (and the held-out ones before the first) go to `log(values)`."""
    optimizer = torch.optim.Adam(model.parameters(), lr=pre["learning_rate"], eps=1e-5)
    before = evaluate(model, held, pre, device)
    log({**{f"pretrain/holdout_{k}": v for k, v in before.items()}, "pretrain/epoch": 0})
    for epoch in range(1, pre["epochs"] + 1):
        out = train_epoch(model, optimizer, train, pre, generator, device)
        held_out = evaluate(model, held, pre, device)
        log({**{f"pretrain/{k}": v for k, v in out.items()},
             **{f"pretrain/holdout_{k}": v for k, v in held_out.items()},
             "pretrain/epoch": epoch, "pretrain/decisions": len(train["actions"]),
             "pretrain/seconds": time.perf_counter() - started})
        tqdm.write(f"imitation epoch {epoch}: held-out loss {held_out.get('imitation_loss', float('nan')):.3f} "
                   f"(before {before.get('imitation_loss', float('nan')):.3f}), "
                   f"accuracy {held_out.get('accuracy', float('nan')):.3f}")


def split(n: int, holdout: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the training and the held-out decisions: a random `holdout` fraction (at least
    one decision on each side where there are two or more)."""
    order = rng.permutation(n)
    k = min(max(int(round(n * holdout)), 1 if n > 1 else 0), n - 1) if holdout > 0 else 0
    return np.sort(order[k:]), np.sort(order[:k])


def losses(model: PolicyNet, m: dict, value_coef: float, win_coef: float) -> dict:
    """The imitation losses on one minibatch: obs, priv, actions (the teacher's), returns (value
    targets), outcomes (1 win, 0 loss, 0.5 tie, nan unknown), and where given target_actions with
    target_probs (rollout.imitation_target: a searching teacher's visit distribution), which the
    policy's cross-entropy is taken against instead of the action alone."""
    logits, value, win = model(m["obs"], m["priv"])
    if "target_actions" in m:
        logp = torch.log_softmax(logits, -1).gather(1, m["target_actions"].clamp(min=0))
        ce = -(m["target_probs"] * logp).sum(-1).mean()
    else:
        ce = F.cross_entropy(logits, m["actions"])
    v_loss = 0.5 * ((value - m["returns"]) ** 2).mean()
    known = ~torch.isnan(m["outcomes"])
    win_loss = (F.binary_cross_entropy_with_logits(win[known], m["outcomes"][known])
                if known.any() else torch.zeros((), device=logits.device))
    accuracy = (logits.argmax(-1) == m["actions"]).float().mean()
    return {"loss": ce + value_coef * v_loss + win_coef * win_loss, "imitation_loss": ce,
            "value_loss": v_loss, "win_loss": win_loss, "accuracy": accuracy}


def train_epoch(model: PolicyNet, optimizer, data: dict, cfg: dict, generator: torch.Generator,
                device="cpu") -> dict:
    """One pass over `data` in shuffled minibatches; -> the mean of each loss."""
    n = len(data["actions"])
    size = min(cfg["minibatch_size"], n)
    stats = {}
    model.train()
    order = torch.randperm(n, generator=generator)
    for start in range(0, n - size + 1, size):
        m = take(data, order[start:start + size], device)
        out = losses(model, m, cfg["value_coef"], cfg["win_coef"])
        optimizer.zero_grad(set_to_none=True)
        out["loss"].backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
        optimizer.step()
        for k, v in out.items():
            stats.setdefault(k, []).append(float(v.detach()))
    model.eval()
    return {k: float(np.mean(v)) for k, v in stats.items()}


@torch.no_grad()
def evaluate(model: PolicyNet, data: dict, cfg: dict, device="cpu") -> dict:
    """The losses on held-out decisions, weighted by minibatch size."""
    n = len(data["actions"])
    if n == 0:
        return {}
    model.eval()
    totals: dict[str, float] = {}
    size = cfg["minibatch_size"]
    for start in range(0, n, size):
        idx = torch.arange(start, min(start + size, n))
        out = losses(model, take(data, idx, device), cfg["value_coef"], cfg["win_coef"])
        for k, v in out.items():
            totals[k] = totals.get(k, 0.0) + float(v) * len(idx)
    return {k: v / n for k, v in totals.items()}
