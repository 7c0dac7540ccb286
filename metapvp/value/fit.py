"""Fits the value network (network.py) to self-play games (dataset.py) from an experiment file,
and judges it on games it never saw beside the two values the search has today, fitted to the
same games: the engine's evaluation (its scale fitted) and the linear leaf value (features.rs,
refitted). Every `held_out_every`-th game (by its number) is held out.

    metapvp fit-value expts/value/r1.yml runs/value/r1 [--resume] [--epochs 2 ...]

The run directory gets checkpoint.pt after every epoch (--resume goes on from it), metrics.csv
and tb/ (the training loss as it goes, the held-out figures each epoch), value.pt (the network
with its layout, for PyTorch), value.json (the same for the crate: export.py, the search's
`value=`) and result.json: the held-out log-loss, Brier
score and accuracy of each value, and the network's log-loss less each of the others' with a 95%
interval taken by game (network_minus_linear, network_minus_engine_eval), also the last line of
stdout."""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from metapvp.training.config import ConfigError, load_expt

DEFAULTS = {
    "data": [],                 # self-play run directories (metapvp selfplay)
    "positions": None,          # at most this many positions (whole shards, in order); null: all
    "held_out_every": 10,       # games whose number is a multiple of this are held out
    "network": {"width": 64, "species": 32, "small": 16, "dropout": 0.0},
    "batch": 1024,
    "learning_rate": 1.0e-3,
    "weight_decay": 1.0e-4,
    "epochs": 4,
    "seed": 0,
    "threads": 2,               # torch's threads
    "log_every": 200,           # batches between rows of the training loss
}


def check(cfg: dict):
    if not cfg["data"] or not all(isinstance(d, str) for d in cfg["data"]):
        raise ConfigError("data: name the self-play run directories (a list of paths)")
    for key in ("held_out_every", "batch", "epochs", "threads", "log_every"):
        if not isinstance(cfg[key], int) or cfg[key] < 1:
            raise ConfigError(f"{key} must be a whole number of at least 1, not {cfg[key]!r}")
    if cfg["held_out_every"] < 2:
        raise ConfigError("held_out_every must be at least 2 (every game held out leaves nothing to fit)")


def load_config(path: Path, overrides: list[str] = ()) -> dict:
    return load_expt(path, overrides, defaults=DEFAULTS, validate=check)


def baselines(data: dict, train: np.ndarray, held: np.ndarray) -> tuple[dict, float]:
    """The engine's evaluation (its scale fitted) and the linear value (refitted) on the same
    games: ({name: its log-odds on the held-out positions}, the engine's fitted scale)."""
    from metapvp.engine.native import native
    from metapvp.training.leafvalue import fit
    names = native().feature_names()
    x, y = data["x"].astype(np.float64), data["y"].astype(np.float64)
    e = names.index("engine_eval")
    w_eval, w = fit(x[train][:, [e]], y[train]), fit(x[train], y[train])
    return {"engine_eval": x[held][:, [e]] @ w_eval, "linear": x[held] @ w}, float(w_eval[0])


def held_out_table(data: dict, train: np.ndarray, held: np.ndarray, network: np.ndarray) -> dict:
    """The network's held-out log-odds judged beside the two values the search has today, and its
    log-loss less each of theirs with a 95% interval by game (below zero: it predicts better)."""
    from metapvp.training.leafvalue import difference_by_game, log_losses, scored
    y, game = data["y"][held].astype(np.float64), data["game"][held]
    others, scale = baselines(data, train, held)
    mine = log_losses(network, y)
    out = {"network": scored(network, y)}
    for name, logit in others.items():
        out[name] = scored(logit, y)
        out[f"network_minus_{name}"] = difference_by_game(mine, log_losses(logit, y), game)
    out["engine_eval"]["scale"] = scale
    return out


def batches(n: int, size: int, rng: np.random.Generator):
    order = rng.permutation(n)
    return [order[k:k + size] for k in range(0, n, size)]


def tensors(data: dict, idx: np.ndarray):
    import torch
    return (torch.from_numpy(data["ints"][idx].astype(np.int64)),
            torch.from_numpy(data["floats"][idx].astype(np.float32)), torch.from_numpy(data["y"][idx]))


def logits_of(model, data: dict, idx: np.ndarray, size: int = 8192) -> np.ndarray:
    """The model's log-odds on positions `idx`."""
    import torch
    model.eval()
    with torch.no_grad():
        logits = np.concatenate([model(*tensors(data, idx[k:k + size])[:2]).numpy() for k in range(0, len(idx), size)])
    model.train()
    return logits.astype(np.float64)


def evaluate(model, data: dict, idx: np.ndarray) -> dict:
    """The model's held-out figures on positions `idx`."""
    from metapvp.training.leafvalue import scored
    return scored(logits_of(model, data, idx), data["y"][idx].astype(np.float64))


def run(cfg: dict, outdir: Path, resume: bool = False) -> dict:
    import torch
    import torch.nn.functional as F

    from metapvp.training.metrics import Metrics
    from metapvp.value.dataset import layout, load
    from metapvp.value.export import export
    from metapvp.value.network import EngineValue
    outdir = Path(outdir)
    checkpoint = outdir / "checkpoint.pt"
    if checkpoint.exists() and not resume:
        raise ConfigError(f"{outdir} holds a fit already: --resume goes on with it, or give another directory")
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "config.json").write_text(json.dumps(cfg, indent=1) + "\n")
    torch.set_num_threads(cfg["threads"])
    torch.manual_seed(cfg["seed"])
    data = load([Path(d) for d in cfg["data"]], cfg["positions"])
    held = data["game"] % cfg["held_out_every"] == 0
    train_idx, held_idx = np.flatnonzero(~held), np.flatnonzero(held)
    print(f"{len(data['y'])} positions from {len(np.unique(data['game']))} games; "
          f"{len(held_idx)} held out", file=sys.stderr, flush=True)
    lay = layout()
    model = EngineValue(lay, **cfg["network"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["learning_rate"], weight_decay=cfg["weight_decay"])
    epoch, step = 0, 0
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        epoch, step = state["epoch"], state["step"]
        print(f"resumed after epoch {epoch}", file=sys.stderr)
    metrics = Metrics(outdir)
    try:
        while epoch < cfg["epochs"]:
            rng = np.random.default_rng([cfg["seed"], epoch])
            running, t0 = [], time.perf_counter()
            for idx in batches(len(train_idx), cfg["batch"], rng):
                ints, floats, y = tensors(data, train_idx[idx])
                loss = F.binary_cross_entropy_with_logits(model(ints, floats), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                running.append(loss.item())
                step += 1
                if step % cfg["log_every"] == 0:
                    rate = len(running) * cfg["batch"] / (time.perf_counter() - t0)
                    metrics.log(step, {"value/train_log_loss": float(np.mean(running)), "value/positions_per_s": rate})
                    print(f"epoch {epoch + 1} step {step}: train log-loss {np.mean(running):.4f} "
                          f"({rate:.0f} positions/s)", file=sys.stderr, flush=True)
                    running, t0 = [], time.perf_counter()
            epoch += 1
            judged = evaluate(model, data, held_idx)
            metrics.log(step, {"epoch": epoch, **{f"value/held_out_{k}": v for k, v in judged.items()}})
            print(f"epoch {epoch}: held-out log-loss {judged['log_loss']:.4f}, accuracy {judged['accuracy']:.3f}",
                  file=sys.stderr, flush=True)
            tmp = checkpoint.with_suffix(".tmp")
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": step}, tmp)
            os.replace(tmp, checkpoint)
    finally:
        metrics.close()
    torch.save({"model": model.state_dict(), "layout": lay, "network": cfg["network"]}, outdir / "value.pt")
    export(model, lay, cfg["network"], outdir / "value.json")
    result = {"positions": int(len(data["y"])), "games": int(len(np.unique(data["game"]))),
              "held_out_positions": int(len(held_idx)), "epochs": epoch,
              **held_out_table(data, train_idx, held_idx, logits_of(model, data, held_idx))}
    (outdir / "result.json").write_text(json.dumps(result, indent=1) + "\n")
    return result
