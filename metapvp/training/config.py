"""Experiment files: YAML, where `import: other.yml` pulls in another file (relative to this one)
whose keys this one overrides, section by section. Every key must be one of DEFAULTS' keys, so
a typo is an error naming the key and the file, never a silently ignored setting. Command-line
overrides (`--ppo.learning_rate 1e-4`) apply last."""
from __future__ import annotations

import copy
import math
import os
from pathlib import Path

import yaml

DEFAULTS = {
    "format": "gen9randombattle",
    "contract": "singles-v1",
    "seed": 0,
    "model": {"preset": "small"},
    # a model file whose weights the main policy starts from (its contract must be this one's);
    # null: a fresh network. `agent`: the model shipped for the format (static/models/)
    "init": None,
    "total_decisions": 1_000_000,     # learner decisions to train on
    "max_minutes": None,              # stop (and checkpoint) after this much wall time
    "workers": 2,                     # rollout processes (Ray actors with ray.enabled), each with its own V8 context
    # rollout workers as Ray actors: address null starts a local Ray instance, 'auto' or
    # 'ray://host:port' joins a running cluster (docs/training.md: "Training on a cluster")
    "ray": {"enabled": False, "address": None},
    "device": "cpu",                  # where learning runs; rollouts always infer on the CPU
    "torch_threads": None,            # threads of the learner's torch (default: see learner_threads)
    # overlap: the workers collect the next rollout (with the weights from before this update)
    # while the learner updates on this one; off, they wait for the update (strictly on-policy)
    "rollout": {"battles_per_worker": 48, "decisions_per_worker": 1024, "overlap": True},
    "ppo": {
        "learning_rate": 3.0e-4, "lr_schedule": "linear", "lr_final_fraction": 0.1,
        "gamma": 0.99, "gae_lambda": 0.95, "clip": 0.2, "epochs": 3, "minibatch_size": 512,
        "grad_accum": 1, "max_grad_norm": 0.5, "value_coef": 0.5, "win_coef": 0.1,
        "entropy_coef": 0.01, "entropy_final": 0.002, "entropy_schedule": "linear",
        "normalize_advantages": True, "normalize_rewards": False, "target_kl": None,
    },
    # zero-sum: +win for a win, -win for a loss; shaping terms are weights on amounts measured
    # in Pokemon (a whole HP bar is 1): dealt terms are added, taken terms subtracted.
    "rewards": {"win": 1.0, "damage_dealt": 0.0, "damage_taken": 0.0, "faint_dealt": 0.0,
                "faint_taken": 0.0},
    # shares of the rollout battles, by kind of opponent (normalised)
    "opponents": {"pure": 1.0, "past": 0.0, "target": 0.0, "baseline": 0.0, "exploiter": 0.0},
    "baselines": ["random", "maxdamage"],   # scripted players for the `baseline` share
    "targets": [],                          # model files for the `target` share
    "league": {"snapshot_every": 10, "max_snapshots": 40, "quality_lr": 0.01, "sample": 4},
    "exploiter": {"snapshot_every": 20},
    "eval": {"every": 10, "battles": 100, "opponents": ["random", "maxdamage"], "league_latest": 2},
    "checkpoint": {"every": 10, "keep": 5},
    # imitation warm start before PPO (off while decisions is 0): the teacher plays the learner's
    # seat against the opponents (equal shares) until `decisions` of its choices are recorded;
    # the policy learns them (cross-entropy), the value and win heads the battles' outcomes, for
    # `epochs` passes; `holdout` of the decisions are kept apart to measure the imitation loss.
    # kl_coef: then, in PPO, a pull towards the teacher's choices (cross-entropy on them, which
    # for a deterministic teacher is the KL divergence up to a constant) that fades to 0 over
    # kl_updates updates. also: earlier rounds' demonstrations (run directories' demonstrations/
    # folders) learned beside this run's, as expert iteration aggregates its rounds.
    # pupil_plays: the share of the teacher's seat's decisions where the pupil (the main policy
    # as it starts, its likeliest action) plays in the teacher's place, the teacher's choice
    # still what is recorded (DAgger: the teacher labels the states the pupil walks into)
    "pretrain": {"decisions": 0, "teacher": "heuristic", "opponents": ["heuristic", "maxdamage", "random"],
                 "epochs": 4, "learning_rate": 1.0e-3, "minibatch_size": 512, "holdout": 0.1,
                 "value_coef": 0.5, "win_coef": 0.5, "max_grad_norm": 1.0, "chunk": 8192,
                 "kl_coef": 0.0, "kl_updates": 100, "also": [], "pupil_plays": 0.0},
}
SCHEDULES = ("constant", "linear", "cosine")


class ConfigError(ValueError):
    """An experiment file or override that is malformed or names an unknown key."""


def load_expt(path, overrides: list[str] = (), defaults: dict = DEFAULTS, validate=None) -> dict:
    """An experiment file read over `defaults` (training's, or another command's: `metapvp
    fit-value`), checked by `validate` (training's checks where none is given)."""
    cfg = copy.deepcopy(defaults)
    _merge(cfg, _read(Path(path), ()), str(path))
    _merge(cfg, parse_overrides(overrides), "the command line")
    (validate or _validate)(cfg)
    return cfg


def _read(path: Path, seen: tuple) -> dict:
    if path.resolve() in seen:
        raise ConfigError(f"{path}: import cycle ({' -> '.join(str(p) for p in seen)})")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except FileNotFoundError:
        raise ConfigError(f"no experiment file {path}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top, got {type(data).__name__}")
    base = data.pop("import", None)
    if base is None:
        return data
    merged = _read(path.parent / base, seen + (path.resolve(),))
    _merge_raw(merged, data)
    return merged


def _merge_raw(into: dict, new: dict):
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge_raw(into[k], v)
        else:
            into[k] = v


def _merge(into: dict, new: dict, where: str, prefix: str = ""):
    for k, v in new.items():
        if k not in into:
            raise ConfigError(f"{where}: unknown setting '{prefix}{k}' (known here: {', '.join(into)})")
        if isinstance(into[k], dict):
            if not isinstance(v, dict):
                raise ConfigError(f"{where}: {prefix}{k} must be a mapping, got {v!r}")
            _merge(into[k], v, where, f"{prefix}{k}.")
        else:
            into[k] = _coerce(into[k], v, where, f"{prefix}{k}")


def _coerce(default, value, where: str, key: str):
    """YAML reads 1e-4 as a string: numbers are numbers wherever a number is expected."""
    numeric = default is None or (isinstance(default, (int, float)) and not isinstance(default, bool))
    if numeric and isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                if default is not None:
                    raise ConfigError(f"{where}: {key} must be a number, got {value!r}") from None
    return value


def parse_overrides(args: list[str]) -> dict:
    """['--ppo.learning_rate', '1e-4', '--seed=3'] -> {'ppo': {'learning_rate': 1e-4}, 'seed': 3}."""
    out, i = {}, 0
    args = list(args)
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            raise ConfigError(f"override {arg!r}: expected --section.key VALUE")
        if "=" in arg:
            key, value = arg[2:].split("=", 1)
        elif i + 1 < len(args):
            key, value = arg[2:], args[i + 1]
            i += 1
        else:
            raise ConfigError(f"override {arg!r} has no value")
        node = out
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = yaml.safe_load(value)
        i += 1
    return out


def _validate(cfg: dict):
    shares = cfg["opponents"]
    if any(not isinstance(v, (int, float)) or v < 0 for v in shares.values()) or sum(shares.values()) <= 0:
        raise ConfigError(f"opponents: shares must be non-negative numbers, not all 0: {shares}")
    if shares["target"] > 0 and not cfg["targets"]:
        raise ConfigError("opponents.target > 0 needs model files in `targets`")
    if shares["baseline"] > 0 and not cfg["baselines"]:
        raise ConfigError("opponents.baseline > 0 needs names in `baselines`")
    for key in ("lr_schedule", "entropy_schedule"):
        if cfg["ppo"][key] not in SCHEDULES:
            raise ConfigError(f"ppo.{key} must be one of {SCHEDULES}, got {cfg['ppo'][key]!r}")
    positive = {"total_decisions": cfg["total_decisions"],
                "rollout.battles_per_worker": cfg["rollout"]["battles_per_worker"],
                "rollout.decisions_per_worker": cfg["rollout"]["decisions_per_worker"],
                "ppo.minibatch_size": cfg["ppo"]["minibatch_size"], "ppo.epochs": cfg["ppo"]["epochs"],
                "ppo.grad_accum": cfg["ppo"]["grad_accum"]}
    for name, v in positive.items():
        if not isinstance(v, int) or v <= 0:
            raise ConfigError(f"{name} must be a positive integer, got {v!r}")
    if not isinstance(cfg["rollout"]["overlap"], bool):
        raise ConfigError(f"rollout.overlap must be true or false, got {cfg['rollout']['overlap']!r}")
    pre = cfg["pretrain"]
    if not isinstance(pre["decisions"], int) or pre["decisions"] < 0:
        raise ConfigError(f"pretrain.decisions must be an integer >= 0, got {pre['decisions']!r}")
    if pre["decisions"] and (not pre["opponents"] or not isinstance(pre["teacher"], str)):
        raise ConfigError("pretrain needs a teacher (a player spec) and at least one opponent")
    if not isinstance(pre["also"], list) or not all(isinstance(d, str) for d in pre["also"]):
        raise ConfigError(f"pretrain.also must be a list of demonstrations folders, got {pre['also']!r}")
    if not 0 <= pre["holdout"] < 1:
        raise ConfigError(f"pretrain.holdout must be in [0, 1), got {pre['holdout']!r}")
    if not 0 <= pre["pupil_plays"] <= 1:
        raise ConfigError(f"pretrain.pupil_plays must be in [0, 1], got {pre['pupil_plays']!r}")
    if cfg["init"] is not None and not isinstance(cfg["init"], str):
        raise ConfigError(f"init must be a model file's path or `agent`, got {cfg['init']!r}")
    if not isinstance(cfg["workers"], int) or cfg["workers"] < 0:
        raise ConfigError(f"workers must be an integer >= 0 (0: roll out in the learner), got {cfg['workers']!r}")
    ray = cfg["ray"]
    if not isinstance(ray["enabled"], bool) or not (ray["address"] is None or isinstance(ray["address"], str)):
        raise ConfigError(f"ray: enabled must be true or false and address a string or null, got {ray}")
    if ray["enabled"] and cfg["workers"] < 1:
        raise ConfigError("ray.enabled needs workers >= 1 (the number of actors)")


def learner_threads(cfg: dict) -> int:
    """Threads for the learner's torch: as set; else, when it updates while the workers collect,
    the cores they leave free (at least 1: torch's threads spin while they wait, and a spinning
    thread on a core a worker needs slows both); else every core this process may use."""
    cores = len(os.sched_getaffinity(0))
    if cfg["torch_threads"]:
        return cfg["torch_threads"]
    if cfg["rollout"]["overlap"] and cfg["workers"] > 0:
        return max(1, cores - cfg["workers"])
    return cores


def schedule(kind: str, start: float, end: float, progress: float) -> float:
    """A value going from start to end as progress goes from 0 to 1."""
    p = min(max(progress, 0.0), 1.0)
    if kind == "constant":
        return start
    if kind == "linear":
        return start + (end - start) * p
    return end + (start - end) * 0.5 * (1 + math.cos(math.pi * p))
