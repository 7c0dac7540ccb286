"""Player specs, as given on command lines:

  random | first | maxdamage | heuristic   a built-in baseline
  agent | agent:FORMAT                      the trained model shipped for the format played
                                            (or FORMAT): static/models/FORMAT.zip, guiding a
                                            search of 64 visits (search64x2h4q16p1:agent in
                                            singles, search64x2h8q16p1s:agent in doubles);
                                            agent@0 takes its most probable action, agent@1
                                            samples
  module.Class:path/to/weights              Class(path) from an importable module (trained policies)
  ,module.factory                           factory() from an importable module
  path/to/model.zip                         a saved model (metapvp.models)
  MODEL+MODEL...                            models (files or agent) played as one: their action
                                            probabilities averaged; they must share a contract
  MODEL@T                                   a model (or ensemble) sampled at temperature T:
                                            1 as trained, 0 always its most probable action;
                                            without @T, model files play at 1 and `agent` at 0
  lookahead:MODEL | lookaheadN:MODEL        a model (or ensemble) whose likeliest actions are
                                            played one turn ahead in the simulator (N turns:
                                            the later ones with both sides' hardest hits) and
                                            weighed against its preferences as trained (a
                                            temperature is ignored; metapvp.players.lookahead)
  lookaheadNxK:MODEL                        the same, each outcome averaged over K draws of
                                            chance (damage rolls, accuracy, critical hits)
  lookaheadNwW:MODEL                        the same, weight W on the material against the
                                            policy's log-probabilities (4 without w)
  search:MODEL | searchN:MODEL | searchNms:MODEL
                                            a model (or ensemble) guiding a tree search in the
                                            simulator at every decision: both sides choosing at
                                            once, the unseen drawn; a budget of N visits (64
                                            without one) or N milliseconds a decision
                                            (metapvp.players.search; singles and doubles)
  searchNxW:MODEL                           the same over W drawn worlds (2 without one)
  searchNvV:MODEL                           new positions valued V by the model's value head and
                                            1 - V by material (0 to 1)
  searchNlL:MODEL                           new positions valued by material's log-odds plus L
                                            times the change in the model's win log-odds since
                                            the root (0 to 100)
  searchNfu:MODEL                           the foe's prior uniform over its options (fd, the
                                            default: by how hard each move hits)
  searchNfn:MODEL                           the foe's prior at the root the model's policy from
                                            the foe's seat (singles; deeper, by damage)
  searchNfh:MODEL, searchNfm:MODEL          the foe's prior at the root half on the heuristic's
                                            (maxdamage's) choice from the foe's seat, half by
                                            damage (in doubles the choice joins
                                            the foe's hardest-hit pairs)
  searchNhM:MODEL                           our choices at the root searched by sequential
                                            halving over the M likeliest (4 without h; h0: by
                                            PUCT like every other node)
  searchNqQ:MODEL                           the action kept: the highest log p + Q * its searched
                                            value (16 without q; h0q0: the one visited most)
  searchNqQrR:MODEL                         a root candidate's value its mean moved R (0 to 1)
                                            of the way to its mean after its worst reply (the
                                            foe's reply at the root that hurt it most)
  searchNpP:MODEL                           P turns (0 to 3) of both sides' hardest hits played
                                            past each new position before it is valued (1
                                            without p)
  searchN...c:MODEL                         each cycle of halving visits every candidate in the
                                            same world from the same chances (common random
                                            numbers)
  searchN...e:MODEL                         inside the search every damage roll at its mean
                                            and no critical hit (accuracy and secondary
                                            effects still drawn)
  searchN...w:MODEL                         positions scored by worth (a Pokemon standing,
                                            stat stages, statuses, substitutes, screens, as the
                                            leading open search bot weighs them) rather than
                                            material (js/src/evaluation.js)
  searchN...s:MODEL                         the heuristic's and maxdamage's choices added to our
                                            root candidates, as likely as the policy's
                                            favourite (agent in doubles; it loses in
                                            singles: docs/agent.md)
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

from metapvp import contract as contracts
from metapvp.players.base import Player
from metapvp.players.lookahead import DEFAULT_WEIGHT as DEFAULT_LOOKAHEAD_WEIGHT
from metapvp.players.lookahead import LookaheadPlayer
from metapvp.players.neural import load_player
from metapvp.players.scripted import FirstLegalPlayer, RandomPlayer, ScriptedPlayer
from metapvp.players.search import (DEFAULT_HALVE, DEFAULT_NET, DEFAULT_NODES, DEFAULT_PLAY_ON, DEFAULT_WEIGHT,
                                     DEFAULT_WORLDS, MAX_BOOST, ROOT_SCRIPTS, SearchPlayer)

BUILTIN = {
    "random": lambda seed: RandomPlayer(seed),
    "first": lambda seed: FirstLegalPlayer(),
    "maxdamage": lambda seed: ScriptedPlayer("maxdamage"),
    "heuristic": lambda seed: ScriptedPlayer("heuristic"),
}


SHIPPED_MODELS = Path(__file__).resolve().parents[2] / "static" / "models"
# `agent` is the shipped player at its strongest as measured: in singles the model guiding a
# search of 64 visits (search.py; docs/agent.md), which beat the model with two turns of
# lookahead 0.541 over 1,000 battles and won more than it against heuristic and MaxDamage; in
# doubles the model guiding the doubles search of 64 visits over its eight likeliest pairs
# (docs/doubles.md, "Searching") with the heuristic's and maxdamage's choices among them, which
# over the same 1,000 battles won more than the search without them (`agent` there until
# 2026-11-26) against maxdamage (+0.056) and heuristic (+0.022).
# Each is spelt out in full so that a change of the defaults does not change `agent`
# unmeasured. In an ensemble (agent+MODEL), `agent` plays at its most probable action.
AGENT_SEARCH = "search64x2h4q16p1:"
AGENT_DOUBLES = "search64x2h8q16p1s:"
AGENT_TEMPERATURE = 0.0


def agent_as_played(spec: str, fmt: str) -> str:
    """A bare `agent` (or `agent:FORMAT`) as it plays `fmt` (or FORMAT): with AGENT_SEARCH in
    singles, AGENT_DOUBLES in doubles."""
    doubles = contracts.for_format(spec.partition(":")[2] or fmt) == contracts.DOUBLES
    return (AGENT_DOUBLES if doubles else AGENT_SEARCH) + spec


def as_played(spec: str, fmt: str) -> str:
    """What a spec plays in `fmt`: a bare `agent` spelt out (agent_as_played), any other spec as
    given; results record it, so that `agent` measured today is still known when it changes."""
    spec = spec.strip()
    return agent_as_played(spec, fmt) if bare_agent(spec) else spec


def bare_agent(spec: str) -> bool:
    """`agent` or `agent:FORMAT` alone: the shipped model as `agent` plays it (AGENT_SEARCH,
    AGENT_DOUBLES)."""
    return spec == "agent" or (spec.startswith("agent:") and "+" not in spec and "@" not in spec)


class SpecError(ValueError):
    """A player spec that names nothing loadable."""


def shipped_model(fmt: str) -> Path:
    """The model file shipped for a format; a clear error naming the formats that have one."""
    path = SHIPPED_MODELS / f"{fmt}.zip"
    if not path.is_file():
        have = sorted(p.stem for p in SHIPPED_MODELS.glob("*.zip"))
        raise SpecError(f"player 'agent': no model is shipped for format {fmt!r} (no {path}); "
                        f"shipped: {', '.join(have) or 'none'}. Train one with integrated_rl_script.py "
                        f"and pass its model file instead")
    return path


def make_player(spec: str, seed: int | None = None, fmt: str = "gen9randombattle") -> Player:
    """`fmt` is the format the player will play: `agent` loads the model shipped for it."""
    spec = spec.strip()
    if spec in BUILTIN:
        return BUILTIN[spec](seed)
    spec = as_played(spec, fmt)
    if LOOKAHEAD.match(spec):
        return _lookahead(spec, seed, fmt)
    if SEARCH.match(spec):
        return _search(spec, seed, fmt)
    if re.match(r"lookahead[0-9xw.]*:", spec):   # settings out of order
        raise SpecError(f"player {spec!r}: a lookahead is lookahead[N][xK][wW]:MODEL, its settings in that "
                        f"order, e.g. lookahead2x3w8:agent")
    if re.match(r"search[0-9msxvfudnhqrpcew.]*:", spec):   # settings out of order or range (not module.Class:path)
        raise SpecError(f"player {spec!r}: a search is search[N|Nms][xW][vV|lL][fu|fd|fn|fh|fm][hM][qQ][rR][pP][c][e][w[B]][s]:MODEL, "
                        f"its settings in that order, e.g. search64x2v0.5:agent")
    models, temperature = model_spec(spec, fmt)
    if models:
        return _load_model(spec, models, seed, temperature)
    if spec.startswith(","):
        return _named(spec, spec[1:], ())
    if ":" in spec and not Path(spec).exists():
        target, path = spec.split(":", 1)
        return _named(spec, target, (path,))
    raise SpecError(f"unknown player {spec!r}: use one of {', '.join(BUILTIN)}, agent, module.Class:path, "
                    f",module.factory, a model file, MODEL+MODEL or MODEL@TEMPERATURE")


def model_spec(spec: str, fmt: str) -> tuple[list, float]:
    """The model files a spec names (agent, files, joined by '+', then '@T'), with the
    temperature it plays them at; ([], 1.0) where the spec is not made of models."""
    body, temperature = spec, None
    head, at, tail = spec.rpartition("@")
    if at and not Path(spec).is_file():
        try:
            temperature = float(tail)
        except ValueError:
            raise SpecError(f"player {spec!r}: {tail!r} after '@' is not a temperature (a number >= 0)") from None
        if not temperature >= 0:
            raise SpecError(f"player {spec!r}: the temperature must be a number >= 0, got {tail}")
        body = head
    parts = [body] if Path(body).is_file() else [p.strip() for p in body.split("+")]
    paths = []
    for part in parts:
        if part == "agent" or part.startswith("agent:"):
            paths.append(shipped_model(part.partition(":")[2] or fmt))
        elif Path(part).is_file():
            paths.append(part)
        elif len(parts) > 1 or at:
            raise SpecError(f"player {spec!r}: {part!r} is not a model file or agent[:FORMAT]")
        else:
            return [], 1.0
    if temperature is None:
        temperature = AGENT_TEMPERATURE if all(p == "agent" or p.startswith("agent:") for p in parts) else 1.0
    return paths, temperature


def _load_model(spec: str, paths: list, seed: int | None, temperature: float) -> Player:
    return load_player(paths if len(paths) > 1 else paths[0], seed=seed, temperature=temperature)


LOOKAHEAD = re.compile(r"lookahead([0-9]*)(?:x([0-9]+))?(?:w([0-9.]+))?:")


def lookahead_settings(spec: str) -> tuple[int, int, float] | None:
    """(turns, draws, weight) of a lookahead[N][xK][wW]: spec; None for any other spec."""
    m = LOOKAHEAD.match(spec)
    return (int(m.group(1) or 1), int(m.group(2) or 1), _number(m.group(3), DEFAULT_LOOKAHEAD_WEIGHT)) if m else None


def _lookahead(spec: str, seed: int | None, fmt: str) -> Player:
    """lookahead[N][xK][wW]:MODEL: the models' probabilities as trained, weighed against N turns
    ahead (weight W on the material), each outcome averaged over K draws of chance."""
    m = LOOKAHEAD.match(spec)
    turns, samples, weight = lookahead_settings(spec)
    models, _ = model_spec(spec[m.end():], fmt)
    if not models:
        raise SpecError(f"player {spec!r}: lookahead needs a model after {m.group(0)!r} (agent, a model file, MODEL+MODEL)")
    if not 1 <= turns <= 3:
        raise SpecError(f"player {spec!r}: lookahead plays 1 to 3 turns ahead, not {turns}")
    if not 1 <= samples <= 16:
        raise SpecError(f"player {spec!r}: lookahead averages 1 to 16 draws of chance, not {samples}")
    if not 0 <= weight <= 1000:
        raise SpecError(f"player {spec!r}: the lookahead's weight on material is a number from 0 to 1000")
    return LookaheadPlayer(_load_model(spec, models, seed, 1.0), play_on=turns - 1, samples=samples, weight=weight)


SEARCH = re.compile(r"search(?:(?P<budget>[0-9]+)(?P<ms>ms)?)?(?:x(?P<worlds>[0-9]+))?(?:v(?P<net>[0-9.]+))?"
                    r"(?:l(?P<odds>[0-9.]+))?(?:f(?P<foe>[udnhm]))?(?:h(?P<halve>[0-9]+))?(?:q(?P<weight>[0-9.]+))?"
                    r"(?:r(?P<worst>[0-9.]+))?(?:p(?P<play_on>[0-9]+))?(?P<paired>c)?(?P<steady>e)?"
                    r"(?:(?P<worth>w)(?P<boost>[0-9.]+)?)?(?P<scripted>s)?:")
FOE_PRIORS = {"u": "uniform", "d": "damage", "n": "network", "h": "heuristic", "m": "maxdamage"}


def _search(spec: str, seed: int | None, fmt: str) -> Player:
    """search[N|Nms][xW][vV|lL][fu|fd|fn|fh|fm][hM][qQ][rR][pP][c][e][w[B]][s]:MODEL: the models' probabilities as the prior of a
    search with a budget of N visits or N milliseconds a decision, over W worlds, leaves valued V
    by the network and 1 - V by material (or with lL material's log-odds plus L times the network's
    change in win log-odds since the root), the foe's prior uniform (u), by damage (d) or, at the root in singles, the models' from the foe's seat (n) or leaning on the
    heuristic's (h) or maxdamage's (m) choice from the foe's seat, our root
    choices by sequential halving over the M likeliest (0: PUCT), the action chosen by log p + Q *
    value (0: the most visited; halving needs Q above 0), a root value moved R of the way to its
    worst reply's (0 unless told), P turns of both sides' hardest hits
    played past each new position before it is valued, with c each cycle of halving in one world
    from one draw of chance, with e damage rolls at their mean and no critical hits inside the
    search, with w positions scored by worth rather than material (with wB, B a stage of attack,
    special attack or speed, 0.3 unless told), and with s the heuristic's and maxdamage's choices
    among our root candidates."""
    m = SEARCH.match(spec)
    models, _ = model_spec(spec[m.end():], fmt)
    if not models:
        raise SpecError(f"player {spec!r}: search needs a model after {m.group(0)!r} (agent, a model file, MODEL+MODEL)")
    budget = int(m["budget"] or DEFAULT_NODES)
    nodes, ms = (0, budget) if m["ms"] else (budget, 0)
    worlds = int(m["worlds"] or DEFAULT_WORLDS)
    net = _number(m["net"], DEFAULT_NET)
    odds = _number(m["odds"], 0.0)
    halve = int(m["halve"]) if m["halve"] else DEFAULT_HALVE
    weight = _number(m["weight"], DEFAULT_WEIGHT)
    worst = _number(m["worst"], 0.0)
    play_on = int(m["play_on"]) if m["play_on"] else DEFAULT_PLAY_ON
    boost = _number(m["boost"], None)
    if not 1 <= budget <= 100_000 or not 1 <= worlds <= 64 or not 0 <= net <= 1 or not 0 <= odds <= 100 \
            or (net and odds) or not 0 <= weight <= 1000 or not 0 <= worst <= 1 \
            or halve == 1 or halve > 16 or (halve and not weight) or play_on > 3 \
            or not (boost is None or 0 <= boost <= MAX_BOOST):
        raise SpecError(f"player {spec!r}: a budget of 1 to 100000 visits or milliseconds, 1 to 64 worlds, "
                        f"the network's share of a leaf's value from 0 to 1 or its odds' weight from 0 to 100 (not both), a value weight from 0 to 1000 and "
                        f"halving over 2 to 16 candidates (with a weight above 0), a share of the worst reply from 0 to 1, 0 to 3 turns played on, "
                        f"a weight a stage from 0 to {MAX_BOOST:g}")
    foe = FOE_PRIORS[m["foe"] or "d"]
    score = "worth" if m["worth"] else "material"
    scripted = ROOT_SCRIPTS if m["scripted"] else ()
    return SearchPlayer(_load_model(spec, models, seed, 1.0), nodes=nodes, ms=ms, worlds=worlds, net=net, odds=odds, foe=foe,
                        weight=weight, worst=worst, halve=halve, play_on=play_on, paired=bool(m["paired"]),
                        steady=bool(m["steady"]),
                        score=score, boost=boost, scripted=scripted,
                        seed=seed)


def _number(text: str | None, default: float) -> float:
    """A spec's number; -1 (out of every range) where it is not one ("0.5.1")."""
    try:
        return float(text) if text else default
    except ValueError:
        return -1.0


def _named(spec: str, target: str, args: tuple) -> Player:
    module, _, attr = target.rpartition(".")
    if not module:
        raise SpecError(f"player {spec!r}: expected module.name, got {target!r}")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise SpecError(f"player {spec!r}: {e}") from None
    player = obj(*args)
    if not hasattr(player, "act"):
        raise SpecError(f"player {spec!r}: {target} did not make a player (no act method)")
    return player
