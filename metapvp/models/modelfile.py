"""Model files: a zip holding

  metadata.json   architecture preset, contract name and hash, format, training steps, date
  weights.pt      the network's tensors (torch.save of a state dict)
  obs_norm.pt     the observation-normalisation statistics

Tensors are read with torch.load(weights_only=True): a model file never carries pickled
classes, so loading one cannot run code. A model whose contract hash differs from this
checkout's contract is refused."""
from __future__ import annotations

import io
import json
import os
import time
import zipfile
from pathlib import Path

import torch

from metapvp import contract as contracts
from metapvp.models.architecture import network_class
from metapvp.models.network import PolicyNet

FORMAT_VERSION = 1
NORM_PREFIXES = ("global_norm.", "pokemon_norm.")


class ModelError(ValueError):
    """A model file that cannot be used: missing, malformed, or for another contract."""


def save_model(path, model: PolicyNet, contract, **info) -> Path:
    """Writes `model` to `path` atomically; `info` (format, steps, ...) goes into metadata."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    norm = {k: v for k, v in state.items() if k.startswith(NORM_PREFIXES)}
    weights = {k: v for k, v in state.items() if k not in norm}
    meta = {"format_version": FORMAT_VERSION, "preset": model.preset,
            "contract": {"name": contract.name, "hash": contract.hash},
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **info}
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as z:
        z.writestr("metadata.json", json.dumps(meta, indent=2))
        z.writestr("weights.pt", _tensor_bytes(weights))
        z.writestr("obs_norm.pt", _tensor_bytes(norm))
    os.replace(tmp, path)
    return path


def read_metadata(path) -> dict:
    with _open(path) as z:
        return _metadata(z, path)


def update_metadata(path, **info) -> dict:
    """Rewrites `path`'s metadata with `info` over it (a value None removes its key), the
    tensors as they were, atomically; returns the new metadata."""
    path = Path(path)
    with _open(path) as z:
        meta = _metadata(z, path)
        entries = {name: z.read(name) for name in z.namelist() if name != "metadata.json"}
    meta = {k: v for k, v in {**meta, **info}.items() if v is not None}
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as z:
        z.writestr("metadata.json", json.dumps(meta, indent=2))
        for name, data in entries.items():
            z.writestr(name, data)
    os.replace(tmp, path)
    return meta


def load_model(path, contract=None) -> tuple[PolicyNet, dict]:
    """-> (network in eval mode on the CPU, metadata). `contract`: the contract the caller runs
    (default: the one the model names, as this checkout has it); a different hash is refused."""
    with _open(path) as z:
        meta = _metadata(z, path)
        weights = _tensors(z, "weights.pt", path)
        norm = _tensors(z, "obs_norm.pt", path)
    want = meta.get("contract", {})
    try:
        c = contract or contracts.load(want.get("name", contracts.DEFAULT))
    except contracts.ContractError as e:
        raise ModelError(f"{path}: {e}") from None
    if not c.accepts(want.get("hash")):
        raise ModelError(f"{path} was trained on contract {want.get('name')!r} with hash "
                         f"{str(want.get('hash'))[:12]}…, but contract {c.name!r} here has hash "
                         f"{c.hash[:12]}…: the observation layout differs, so this model cannot "
                         f"play here (retrain it, or check out the contract it was trained on)")
    try:
        model = network_class(c)(c, meta["preset"])
        model.load_state_dict({**weights, **norm})
    except (KeyError, RuntimeError, ValueError) as e:
        raise ModelError(f"{path}: weights do not fit a {meta.get('preset')!r} network: {e}") from None
    return model.eval(), meta


def _tensor_bytes(tensors: dict) -> bytes:
    buf = io.BytesIO()
    torch.save(tensors, buf)
    return buf.getvalue()


def _open(path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ModelError(f"no model file {path}") from None
    except (zipfile.BadZipFile, OSError) as e:
        raise ModelError(f"{path} is not a model file (a zip): {e}") from None


def _metadata(z: zipfile.ZipFile, path) -> dict:
    try:
        meta = json.loads(z.read("metadata.json"))
    except KeyError:
        raise ModelError(f"{path}: no metadata.json in the model file") from None
    except json.JSONDecodeError as e:
        raise ModelError(f"{path}: metadata.json is not JSON: {e}") from None
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"{path}: model file format {meta.get('format_version')!r}, expected {FORMAT_VERSION}")
    return meta


def _tensors(z: zipfile.ZipFile, name: str, path) -> dict:
    try:
        return torch.load(io.BytesIO(z.read(name)), weights_only=True)
    except KeyError:
        raise ModelError(f"{path}: no {name} in the model file") from None
    except Exception as e:  # noqa: BLE001 -- torch raises many kinds for a corrupt file
        raise ModelError(f"{path}: {name} is unreadable: {e}") from None
