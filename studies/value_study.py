"""How well each value predicts who wins, on the positions of saved battles.

The search values its leaves by material (HP left, js/src/evaluation.js) or by the network's win
estimate (`vV`); which one predicts the outcome better is the question under both. This replays
the battles of head2head runs (--outdir folders; metapvp/arena/replay.py), takes every position
each player decided at, as that player saw it, and scores on held-out battles:

- material: a logistic fit of the outcome on the lead in HP (own Pokemon's HP shares less the
  foe's, a foe not yet seen counting as whole), fitted on the other battles;
- the network's win estimate as shipped;
- both together (a logistic fit on the lead and the estimate's logit; the proportion of the
  two, on the scale of material's log-odds in the search, is the search's `lL`);
- the win estimate fine-tuned on the other battles' positions (`--epochs`; 0 to skip).

Battles are split by their seed, so runs that played the same battles never put one battle on
both sides of the split. A battle whose replay fails its record is reported and left out.

    ./rp studies/value_study.py /work/evals/RUN_A /work/evals/RUN_B --epochs 2
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from metapvp import contract as contracts
from metapvp.arena.match import first_seat
from metapvp.arena.replay import replay
from metapvp.arena.rundir import read_logs
from metapvp.models import load_model, to_tensors
from metapvp.players.spec import shipped_model


def positions(dirs, contract: str, limit: int | None, player: str = "both"):
    """-> (obs arrays stacked, outcome per position (1 won, 0 lost), battle key per position,
    number of battles, failures). `player`: whose positions, head2head's --p1 ('p1'), its --p2
    ('p2'), or both seats' ('both'); the two swap seats every battle (first_seat)."""
    rows, outcome, keys, battles, failed = [], [], [], 0, []
    for d in dirs:
        run = list(itertools.islice(read_logs(d), limit))
        seeds = {i: str(b.get("seed")) for i, b in run}
        for r in replay(run, contract=contract):
            if r.error:
                failed.append(f"{d}: {r.error}")
                continue
            if not r.winner:
                continue  # a tie teaches neither side
            battles += 1
            for p in r.positions:
                if player != "both" and (p.side == first_seat(r.index)) != (player == "p1"):
                    continue
                rows.append(p.obs)
                outcome.append(1.0 if p.side == r.winner else 0.0)
                keys.append(seeds[r.index])
    obs = {k: np.stack([o[k] for o in rows]) for k in rows[0]} if rows else {}
    return obs, np.asarray(outcome, np.float32), keys, battles, failed


def hp_lead(obs: dict, c: contracts.Contract) -> np.ndarray:
    """Own HP shares less the foe's, as the player sees them (a foe Pokemon not yet seen is a
    present row at whole HP in the contract)."""
    flags = obs["pokemon.flags"]
    present, fainted = c.column("pokemon.flags", "present"), c.column("pokemon.flags", "fainted")
    alive = (flags[..., present] > 0) & (flags[..., fainted] == 0)
    hp = np.where(alive, obs["pokemon.hp"].astype(np.float64), 0.0)
    return hp[:, 0].sum(-1) - hp[:, 1].sum(-1)


# The search's material value of a lead of x healthy Pokemon is (1 + tanh(1.2 x)) / 2
# (js/src/evaluation.js), whose log-odds are 2.4 x.
MATERIAL_LOGIT_PER_BAR = 2.4


@torch.no_grad()
def win_logits(model, obs: dict, batch: int = 512) -> np.ndarray:
    model.eval()
    n = len(obs["action.mask"])
    out = [model(to_tensors({k: v[i:i + batch] for k, v in obs.items()}))[2] for i in range(0, n, batch)]
    return torch.cat(out).numpy().astype(np.float64)


def fit_logistic(x: np.ndarray, y: np.ndarray, steps: int = 300):
    """Weights (with a bias last) of a logistic regression of y on the columns of x (LBFGS)."""
    X = torch.tensor(np.c_[x, np.ones(len(x))], dtype=torch.float64)
    Y = torch.tensor(y, dtype=torch.float64)
    w = torch.zeros(X.shape[1], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=steps, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(X @ w, Y)
        loss.backward()
        return loss
    opt.step(closure)
    return w.detach().numpy()


def predict(w, x):
    return 1 / (1 + np.exp(-(np.c_[x, np.ones(len(x))] @ w)))


def scores(p: np.ndarray, y: np.ndarray) -> dict:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return {"log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
            "brier": float(np.mean((p - y) ** 2)), "accuracy": float(np.mean((p > 0.5) == (y > 0.5)))}


def fine_tune(model, obs, y, idx, epochs: int, lr: float, seed: int, batch: int = 256):
    """The network trained on the outcome of positions `idx` (BCE on the win logit, so only the
    torso and the win head move); the observation statistics stay as saved."""
    gen = torch.Generator().manual_seed(seed)
    params = list(model.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    for epoch in range(epochs):
        model.train()
        order = idx[torch.randperm(len(idx), generator=gen).numpy()]
        losses = []
        for i in range(0, len(order) - batch + 1, batch):
            b = order[i:i + batch]
            _, _, win = model(to_tensors({k: v[b] for k, v in obs.items()}))
            loss = F.binary_cross_entropy_with_logits(win, torch.tensor(y[b]))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(loss.item())
        print(f"  fine-tune epoch {epoch + 1}: train BCE {np.mean(losses):.4f}", flush=True)
    model.eval()
    return model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="head2head --outdir folders (their logs/)")
    ap.add_argument("--model", help="model file (default: the shipped model of the runs' format)")
    ap.add_argument("--holdout", type=float, default=0.25, help="share of battle seeds held out")
    ap.add_argument("--epochs", type=int, default=2, help="fine-tuning epochs (0: none)")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--limit", type=int, help="battles per run at most")
    ap.add_argument("--player", choices=("both", "p1", "p2"), default="both",
                    help="whose positions: head2head's --p1, its --p2, or both (default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", help="write the fine-tuned model's weights here (a torch state dict)")
    args = ap.parse_args(argv)
    if not 0 < args.holdout < 1:
        ap.error(f"--holdout is a share in (0, 1), got {args.holdout}")
    for d in args.dirs:
        if not (Path(d) / "logs").is_dir():
            ap.error(f"{d}: no logs/ folder (run head2head with --outdir)")
    fmt = next(read_logs(args.dirs[0]))[1].get("format", "gen9randombattle")
    model, meta = load_model(args.model or shipped_model(fmt))
    cname = meta["contract"]["name"]
    c = contracts.load(cname)
    t0 = time.time()
    obs, y, keys, battles, failed = positions(args.dirs, cname, args.limit, args.player)
    for f in failed:
        print("replay failed:", f)
    if not len(y):
        sys.exit("no positions: every replay failed or tied")
    held = np.array([zlib.crc32(f"{args.seed}:{k}".encode()) % 10_000 < args.holdout * 10_000 for k in keys])
    tr, te = np.flatnonzero(~held), np.flatnonzero(held)
    print(f"{fmt}: {battles} battles replayed ({len(failed)} failed), {len(y)} positions of {args.player} "
          f"({len(tr)} to fit, {len(te)} held out, by battle seed), {time.time() - t0:.0f} s")
    lead = hp_lead(obs, c)
    logit = win_logits(model, obs)
    rows = {"base rate": np.full(len(te), y[tr].mean())}
    w_m = fit_logistic(lead[tr, None], y[tr])
    rows["material (HP lead, fitted)"] = predict(w_m, lead[te, None])
    rows["win estimate as shipped"] = 1 / (1 + np.exp(-logit[te]))
    w_b = fit_logistic(np.c_[lead, logit][tr], y[tr])
    rows["both (fitted)"] = predict(w_b, np.c_[lead, logit][te])
    if args.epochs > 0:
        tuned = fine_tune(model, obs, y, tr, args.epochs, args.lr, args.seed)
        tuned_logit = win_logits(tuned, obs)
        rows["win estimate fine-tuned"] = 1 / (1 + np.exp(-tuned_logit[te]))
        w_t = fit_logistic(np.c_[lead, tuned_logit][tr], y[tr])
        rows["material + fine-tuned (fitted)"] = predict(w_t, np.c_[lead, tuned_logit][te])
        if args.save:
            torch.save(tuned.state_dict(), args.save)
    print("\n| value | log loss | Brier | accuracy |\n|---|---:|---:|---:|")
    out = {}
    for name, p in rows.items():
        s = out[name] = scores(p, y[te])
        print(f"| {name} | {s['log_loss']:.4f} | {s['brier']:.4f} | {s['accuracy']:.3f} |")
    print(f"\nmaterial fit: {w_m[0]:.3f} per HP bar; both: {w_b[0]:.3f} per HP bar, {w_b[1]:.3f} per unit of logit "
          f"(the search's lL at that proportion: L = {MATERIAL_LOGIT_PER_BAR * w_b[1] / w_b[0]:.2f})")
    print(json.dumps({"format": fmt, "player": args.player, "battles": battles, "positions": len(y),
                      "held_out": len(te), "scores": out}))


if __name__ == "__main__":
    main()
