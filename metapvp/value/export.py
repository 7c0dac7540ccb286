"""The value network written for the crate (search-rs/src/valuenet.rs reads it): JSON holding
the encoding's layout it was fitted on (the crate refuses another), the network's sizes, whether
the search reads it relative to the root, and each tensor's shape and numbers by its PyTorch name."""
from __future__ import annotations

import json
import os
from pathlib import Path

from metapvp.engine.native import VALUE_NETWORK as FORMAT


def export(model, layout: dict, network: dict, path: Path, relative: bool = False):
    """`model` (an EngineValue) written to `path` whole (a temporary name, then renamed)."""
    tensors = {name: {"shape": list(t.shape), "data": [round(float(v), 7) for v in t.detach().flatten().tolist()]}
               for name, t in model.state_dict().items()}
    text = json.dumps({"format": FORMAT, "layout": layout, "network": network, "relative": relative,
                       "tensors": tensors}, separators=(",", ":"))
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def load(path: Path):
    """(model, its file's contents less the tensors) of an exported network, for PyTorch."""
    import torch

    from metapvp.value.network import EngineValue
    data = json.loads(Path(path).read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not an exported value network (format {data.get('format')!r})")
    model = EngineValue(data["layout"], **data["network"])
    model.load_state_dict({k: torch.tensor(v["data"]).view(v["shape"]) for k, v in data.pop("tensors").items()})
    return model, data
