"""The page of a battle and what its players thought: one self-contained HTML file (no network,
no server) that draws, from the data embedded in it, the teams as they were, the battle turn by
turn in words with each Pokemon's HP, each decision's options with the policy's prior and the
search's visits and value, what the player believed of the foe in each world it searched beside
the truth, and a chart of its chance to win with the largest falls marked.

The protocol is turned into words in the battle's JavaScript (js/src/narrate.js, @pkmn/view's
formatter); the page's own script (thoughts.html) only lays the data out."""
from __future__ import annotations

import html
import json
from pathlib import Path

from metapvp.engine.v8 import V8, context

TEMPLATE = Path(__file__).with_name("thoughts.html")


def page_data(saved: dict, thoughts: dict | None, battle: int, v8: V8 | None = None) -> dict:
    """What the page draws: the battle's story (narrate), its players, the true teams and the
    recorded decisions (none where no thoughts were kept)."""
    v8 = v8 or context()
    decisions = (thoughts or {}).get("decisions", [])
    players = {"p1": saved.get("p1") or "p1", "p2": saved.get("p2") or "p2"}
    if thoughts:
        players.update(thoughts.get("players", {}))
    story = v8.narrate(saved["log"], perspective(decisions))
    return {"format": saved.get("format", ""), "battle": battle, "players": players,
            "winner": saved.get("winner") or "", "story": story, "decisions": decisions,
            "teams": {side: v8.sets_in_words(saved.get(f"{side}team") or []) for side in ("p1", "p2")}}


def perspective(decisions: list[dict]) -> str:
    """The side the battle is told from: the first whose player saw a chance to win (the one
    whose thoughts the page is for), else p1."""
    return next((d["side"] for d in decisions if d.get("win") is not None), "p1")


def thoughts_page(data: dict) -> str:
    """The page's HTML, `data` (page_data's) embedded where nothing in it can close its element."""
    title = f"{data['players']['p1']} vs. {data['players']['p2']}, battle {data['battle']} ({data['format']})"
    text = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return TEMPLATE.read_text().replace("{{TITLE}}", html.escape(title)).replace("{{DATA}}", text)
