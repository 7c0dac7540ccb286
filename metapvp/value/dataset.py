"""Self-play shards (selfplay.py) read as the value network reads them: each position of a game
with a winner as the crate's encoding (search-rs/src/encoding.rs: ids as int16, numbers as
float16), the game's winner for side one, the game's number (the held-out split is by game), and
the linear leaf value's features (features.rs), its baseline. Kept beside each shard as
shard-NNNNNN.enc<version>.npz, the version the crate's encoding and feature count, so a second
fit reads no game again and a changed encoding is written afresh."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from metapvp.value.selfplay import finished_shards, read_shard, shard_path


def layout() -> dict:
    """The crate's encoding layout (sizes by name, with its version)."""
    from metapvp.engine.native import native
    return dict(native().encode([])[2])


def cache_path(shard: Path, key: str) -> Path:
    return shard.with_name(shard.name.replace(".jsonl.gz", f".enc{key}.npz"))


def encoded(states: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(ids [N, INTS] int32, numbers [N, FLOATS] float32) of engine states."""
    from metapvp.engine.native import native
    ints, floats, _ = native().encode(states)
    n = len(states)
    return np.frombuffer(ints, np.int32).reshape(n, -1), np.frombuffer(floats, np.float32).reshape(n, -1)


def encoded_shard(shard: Path) -> dict[str, np.ndarray]:
    """{ints, floats, y, game, x} of a shard's positions (games with a winner), from its cache
    where it has one."""
    from metapvp.engine.native import native
    engine = native()
    key = f"v{layout()['version']}f{len(engine.feature_names())}"
    cached = cache_path(shard, key)
    if cached.exists():
        with np.load(cached) as z:
            return {k: z[k] for k in z.files}
    games = [g for g in read_shard(shard) if g["winner"] is not None]
    states = [s for g in games for s in g["states"]]
    ints, floats = encoded(states)
    out = {"ints": ints.astype(np.int16), "floats": floats.astype(np.float16),
           "y": np.concatenate([[g["winner"]] * len(g["states"]) for g in games]).astype(np.float32)
           if games else np.zeros(0, np.float32),
           "game": np.concatenate([[g["game"]] * len(g["states"]) for g in games]).astype(np.int32)
           if games else np.zeros(0, np.int32),
           "x": np.array([engine.features(s) for s in states], np.float32).reshape(len(states), -1)}
    tmp = cached.with_name(cached.name + ".tmp.npz")
    np.savez(tmp, **out)
    os.replace(tmp, cached)
    return out


def load(runs: list[Path], positions: int | None = None) -> dict[str, np.ndarray]:
    """Every position of the runs' shards (at most `positions`, whole shards in order), arrays
    joined; a run with no shard is an error naming it."""
    parts, total = [], 0
    for run in runs:
        shards = finished_shards(run)
        if not shards:
            raise ValueError(f"{run}: no self-play shards (metapvp selfplay {run} --positions N)")
        for k in shards:
            if positions is not None and total >= positions:
                break
            parts.append(encoded_shard(shard_path(run, k)))
            total += len(parts[-1]["y"])
            if len(parts) % 20 == 0:
                print(f"  read {len(parts)} shards, {total} positions", file=sys.stderr, flush=True)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
