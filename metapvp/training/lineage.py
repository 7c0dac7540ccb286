"""A model's lineage: the runs that made it, oldest first, kept in its metadata ("lineage") so
that its card can say how it was made once the runs' folders are gone (metapvp/exe/ship_model.py).
A run either trains by PPO (with an imitation warm start or none) or, stopped right after its
imitation, is a round of expert iteration (docs/training.md)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from metapvp.models.modelfile import read_metadata
from metapvp.training import imitation


class LineageError(ValueError):
    pass


def decisions(folder: Path) -> int:
    """How many decisions a demonstrations folder holds (its whole chunks)."""
    total = 0
    for f in imitation.chunk_files(folder):
        with np.load(f) as chunk:
            total += len(chunk["actions"])
    return total


def step(run: Path, cfg: dict, meta: dict, state: dict, expt: str, agent: Path | None = None) -> dict:
    """What `run` (its config `cfg` and checkpoint `state`) did to the model it began from, the
    model it made having `meta`. `agent`: the model `agent` was when the run ran, written in its
    place in the players' specs (it names another model once a newer one is shipped)."""
    pre = cfg.get("pretrain") or {}

    def then(spec):
        return spec if agent is None or spec is None else re.sub(r"\bagent\b(?!:)", str(agent), spec)

    imitated = {"teacher": then(pre.get("teacher")), "opponents": [then(o) for o in pre.get("opponents") or []],
                "epochs": pre.get("epochs")}
    if not pre.get("decisions"):     # earlier rounds' demonstrations alone: no teacher played
        imitated.update(teacher=None, opponents=[])
    if meta["updates"] == 0:
        if not (pre.get("decisions") or pre.get("also")):
            raise LineageError(f"{run}: the model had no PPO update and the run no imitation (pretrain.decisions "
                               "or pretrain.also): nothing says how it was made")
        own = 0
        if pre.get("decisions"):
            demos = run / "demonstrations"
            if not imitation.chunk_files(demos):
                raise LineageError(f"{run}: no demonstrations (chunk-NNNNN.npz) in {demos}")
            own = decisions(demos)
        also = [Path(d) for d in pre.get("also") or []]
        try:
            imitation.earlier(also)     # each folder has chunks, or is named
        except ValueError as e:
            raise LineageError(f"{run}: {e}") from None
        return {"kind": "imitation", "date": meta["date"][:10], "experiment": expt, **imitated,
                "decisions": own, "earlier": sum(map(decisions, also))}
    made = {"kind": "ppo", "date": meta["date"][:10], "experiment": expt, "updates": meta["updates"],
            "decisions": meta["steps"], "hours": round(state["seconds"] / 3600, 2), "workers": cfg["workers"]}
    if pre.get("decisions"):
        made["warm_start"] = {**imitated, "decisions": pre["decisions"]}
    elif pre.get("also"):
        made["warm_start"] = {**imitated, "decisions": 0, "also": [str(d) for d in pre["also"]]}
    return made


def of_model(path: Path) -> list[dict]:
    """The lineage a model's metadata keeps; a model from before lineages were kept that was
    trained by PPO is one step, told by its metadata alone (with its card where one lies beside it)."""
    meta = read_metadata(path)
    if "lineage" in meta:
        return meta["lineage"]
    if not meta.get("updates"):
        raise LineageError(f"{path}: its metadata keeps no lineage and no PPO update: nothing says how it was made")
    return [{"kind": "ppo", "date": meta["date"][:10], "updates": meta["updates"], "decisions": meta["steps"],
             "model": str(path)}]


def warm_start(w: dict) -> str:
    """The imitation a PPO run began with (a step's "warm_start"), in words."""
    if w["decisions"]:
        return (f"imitation of `{w['teacher']}` on {w['decisions']:,} of its decisions (against "
                f"{', '.join(w['opponents'])}), {w['epochs']} epochs")
    return f"imitation of earlier rounds' demonstrations alone ({', '.join(w['also'])}), {w['epochs']} epochs"


def described(s: dict, card_folder: Path) -> str:
    """One step of a lineage, as the model card in `card_folder` tells it."""
    if s["kind"] == "imitation":
        if s["teacher"] is None:
            text = (f"imitation of {s['earlier']:,} earlier rounds' demonstrations alone (no teacher's battle "
                    f"played), {s['epochs']} epochs")
        else:
            earlier = f" (and {s['earlier']:,} of earlier rounds')" if s.get("earlier") else ""
            text = (f"imitation of `{s['teacher']}` on {s['decisions']:,} of its decisions{earlier}, "
                    f"against {', '.join(f'`{o}`' for o in s['opponents'])}, {s['epochs']} epochs")
    else:
        text = f"{s['updates']} PPO updates on {s['decisions']:,} learner decisions"
        if "hours" in s:
            text += f", {s['hours']:.2f} h of wall time on {s['workers']} rollout workers + the learner"
        if "warm_start" in s:
            text += ", from an " + warm_start(s["warm_start"])
    where = []
    if s.get("experiment"):
        where.append(f"[`{s['experiment']}`](../../{s['experiment']})")
    if s.get("model"):
        card = Path(s["model"]).with_suffix(".md")
        where.append(f"[its card]({os.path.relpath(card.resolve(), card_folder.resolve())})" if card.is_file()
                     else f"`{s['model']}`")
    return text + (f" ({'; '.join(where)})" if where else "")
