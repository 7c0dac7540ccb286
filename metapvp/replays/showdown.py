"""A battle as Showdown's own replay file: an HTML page holding the battle's public log, which
Showdown's replay viewer (a script of Showdown's site, loaded when the page opens) plays back.
It opens in any browser that reaches Showdown's site.

Only the spectator's log goes in: the simulator's saved log (what head2head keeps) is already
what a spectator saw; the lines a player alone was sent (|request|, the private halves of
|split| pairs) never appear in it, and public_lines() refuses a log that holds them."""
from __future__ import annotations

import html

VIEWER = "https://play.pokemonshowdown.com/js/replay-embed.js"
PRIVATE = ("|request|", "|split|")   # what only a player is sent: never in a replay


def public_lines(log: list[str], where: str) -> list[str]:
    """The saved log's lines; a ValueError naming `where` if it holds a player's private lines
    or does not read as a battle log."""
    if not isinstance(log, list) or not all(isinstance(line, str) for line in log):
        raise ValueError(f"{where}: its log is not a list of protocol lines")
    private = next((line for line in log if line.startswith(PRIVATE)), None)
    if private is not None:
        raise ValueError(f"{where}: its log holds a player's private line ({private[:40]}...); only a "
                         f"spectator's log makes a replay")
    if not any(line.startswith("|player|") for line in log):
        raise ValueError(f"{where}: no |player| line: not a battle's log")
    return log


def embedded(text: str) -> str:
    """`text` safe inside a <script> element (nothing in it can close the element); the viewer
    reads "<\\/" back as "</"."""
    return text.replace("</", "<\\/")


def replay_file(log: list[str], fmt: str, players: dict, battle_id: str) -> str:
    """The replay page of a battle: its log (public_lines'), its format's name, `players`
    {'p1': name, 'p2': name} and an id for the viewer."""
    title = f"{fmt}: {players.get('p1', 'p1')} vs. {players.get('p2', 'p2')}"
    esc = html.escape
    return "\n".join([
        "<!DOCTYPE html>",
        '<meta charset="utf-8">',
        f"<title>{esc(title)} (replay)</title>",
        "<style>body{font-family:Verdana,sans-serif;font-size:10pt;margin:0;padding:12px 0}"
        "h1{font-weight:normal;text-align:center;font-size:14pt}</style>",
        '<div class="wrapper replay-wrapper" style="max-width:1180px;margin:0 auto">',
        f'<input type="hidden" name="replayid" value="{esc(battle_id)}">',
        '<div class="battle"></div><div class="battle-log"></div>'
        '<div class="replay-controls"></div><div class="replay-controls-2"></div>',
        f"<h1><strong>{esc(fmt)}</strong><br>{esc(players.get('p1', 'p1'))} vs. {esc(players.get('p2', 'p2'))}</h1>",
        f'<script type="text/plain" class="battle-log-data">{embedded(chr(10).join(log))}</script>',
        "</div>",
        f'<script src="{VIEWER}"></script>',
        "",
    ])
