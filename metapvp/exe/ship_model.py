"""Ships a trained model: copies it to static/models/FORMAT.zip, with its training curve, and
writes the model card (static/models/FORMAT.md, or --card NAME) from two sources alone: the
model's metadata (format, contract, network, lineage, the search `agent` plays) and the card's
data beside it (FORMAT.card.json: the experiment, the command that made it, the evaluations with
the command that prints each), so the card can always be written again.

    metapvp ship RUN_DIR --model RUN_DIR/checkpoints/model-latest.zip \\
        --evals EVAL_DIR [EVAL_DIR ...] [--command "how the run was started"]
    metapvp ship --card-for gen9randombattle [--evals EVAL_DIR ...] [--fresh-evals]

EVAL_DIR: a head2head --outdir (its results.json), the model as --p1 (a file, or `agent` once
shipped; with @T for a temperature, lookaheadN: or lookaheadNxK: before it for lookahead, a
search prefix such as search64x2h4q16p1: before it for the search), e.g.
    metapvp head2head --p1 MODEL --p2 heuristic --num-matches 1000 --outdir EVAL_DIR
Its row takes the place of one against the same opponent played the same way on the same seed. --card-for
FORMAT (or a model file) writes the card of a shipped model again, with any --evals added;
--fresh-evals starts its evaluations anew (after a change that makes them stale); --headline
marks the --evals as `agent`'s headline figures, which the README shows (test_docs.py holds
the two equal).
--live PREFIX writes the native search `agent` plays on a Showdown server (challenge_bot,
smogon_eval, the move API: a budget by the clock, where head2head's is by iterations), e.g.
    metapvp ship --search-only gen9randombattle --live "native(ms=400,worlds=2,exploration=1.5,leaf=search,uniform=0.5)"
--search PREFIX writes the search `agent` plays into the shipped model's metadata (e.g.
--search search64x2h4q16p1, or search(visits=128); a native prefix such as
native(iterations=10000,worlds=2) names the native search, the simulator's search staying as
its fallback); --search-only FORMAT writes --search into the shipped model alone:
    metapvp ship --search-only gen9randombattle --search "native(iterations=10000)"
The shipped model keeps its lineage in its metadata (training/lineage.py): the lineage of the model
the run began from (its init, or --init where that has moved since), then this run's step. A round
of expert iteration kept beside the shipped model gets its own with --lineage-only, so that the
next round, begun from it, can tell how it was made:
    metapvp ship RUN_DIR --model ROUND.zip --expt EXPT --lineage-only
"""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
from pathlib import Path

from metapvp.models.modelfile import ModelError, read_metadata, update_metadata
from metapvp.players.lookahead import DEFAULT_WEIGHT as DEFAULT_LOOKAHEAD_WEIGHT
from metapvp.players.native import NativeConfig
from metapvp.players.spec import (
    LIVE,
    SHIPPED_MODELS,
    SpecError,
    agent_as_played,
    agent_search,
    live_spec,
    parse_spec,
    shipped_model,
)
from metapvp.training import lineage
from metapvp.training.trainer import ended_config


def played(r: dict) -> str:
    """How the model played in a head2head result, as an agent spec: agent@T (T = 0 with
    --play-best-move), lookaheadN:agent / lookaheadNxK:agent or a search (search64...:agent,
    native(...):agent)."""
    try:
        p = parse_spec(r["p1"], r["format"])
    except SpecError:   # a setting since retired, as a results file from before recorded it: as written
        return f"{r['p1'].partition(':')[0]}:agent"
    if p.prefix:
        return f"{p.prefix}:agent"
    if r.get("play_best_move") in ("p1", "both"):
        return "agent@0"
    return f"agent@{p.temperature:g}"


def how(spec: str, fmt: str = "gen9randombattle") -> str:
    """A played() spec in words, for the card's table."""
    try:
        p = parse_spec(spec, fmt)
    except SpecError:   # a setting since retired, as a results file from before recorded it
        return f"search, `{spec.partition(':')[0]}` (a setting since retired)"
    if p.kind == "native":
        budget = f"{p.config.ms} ms" if p.config.ms else f"{p.config.iterations:,} iterations"
        return f"native search, {budget} in each of {p.config.worlds} worlds"
    if p.kind == "search":
        return f"search, {p.config.ms} ms" if p.config.ms else f"search, {p.config.visits} visits"
    if p.kind == "lookahead":
        turns, draws, weight = p.lookahead
        return (f"{turns} turn{'s' if turns > 1 else ''} of lookahead" + (f", {draws} draws" if draws > 1 else "")
                + (f", weight {weight:g}" if weight != DEFAULT_LOOKAHEAD_WEIGHT else ""))
    t = p.temperature
    return "best move" if t == 0 else "sampled" if t == 1 else f"temperature {t:g}"


def evaluation(d: Path) -> dict:
    """One evaluation of the card's data from a head2head --outdir (its results.json): the
    opponent, how the model played, the figures and the command that prints them again."""
    try:
        r = json.loads((d / "results.json").read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"ship: {d}/results.json: {e}") from None
    name = "agent" if played(r) == played({**r, "p1": "agent"}) else played(r)
    workers = f" --workers {r['workers']}" if r.get("workers") else ""
    return {"opponent": r["p2"], "moves": how(played(r), r["format"]), "battles": r["matches"],
            "win_rate": r["p1_win_rate"],
            "ci95": list(r["p1_win_rate_ci95"]), "elo": r["elo_diff"], "errors": r["errors"], "seed": r["seed"],
            "command": f"metapvp head2head --p1 {shlex.quote(name)} --p2 {shlex.quote(r['p2'])} --format {r['format']} "
                       f"--num-matches {r['matches']}{workers} --seed {r['seed']}"}


def eval_rows(evaluations: list[dict]) -> list[str]:
    rows = ["| opponent | agent's moves | battles | win rate | 95% interval | Elo difference | errors |",
            "|---|---|---:|---:|---|---:|---:|"]
    for e in evaluations:
        lo, hi = e["ci95"]
        rows.append(f"| `{e['opponent']}` | {e['moves']} | {e['battles']:,} | **{e['win_rate']:.3f}** | "
                    f"{lo:.3f}–{hi:.3f} | {e['elo']:+.0f} | {e['errors']} |")
    return rows


def card_data_path(card: Path) -> Path:
    """The card's data beside its card: what the card says that the model's metadata does not
    (how it was made, its evaluations), so that the card can be written again."""
    return card.with_suffix(".card.json")


def read_card_data(path: Path) -> dict:
    if not path.is_file():
        return {"evaluations": []}
    try:
        return json.loads(path.read_text())
    except ValueError as e:
        raise SystemExit(f"ship: {path}: not JSON ({e})") from None


def with_evaluations(data: dict, new: list[dict]) -> dict:
    """`data` with `new` evaluations in, each in place of one of the same opponent, moves and seed."""
    key = lambda e: (e["opponent"], e["moves"], e.get("seed"))  # noqa: E731
    fresh = {key(e) for e in new}
    return {**data, "evaluations": [e for e in data["evaluations"] if key(e) not in fresh] + new}


def averaged_weights(run: Path, meta: dict) -> str | None:
    """What the card says of a model that is an average of checkpoints (metapvp/exe/average_checkpoints.py)."""
    names = meta.get("averaged_from")
    if not names:
        return None
    first, last = names[0].removesuffix(".zip").split("-")[-1], names[-1].removesuffix(".zip").split("-")[-1]
    return (f"the average of {len(names)} checkpoints, updates {int(first)}–{int(last)}: "
            f"`metapvp runs average OUT.zip --run {run} --last {len(names)}`")


def strength_intro(fmt: str) -> list[str]:
    agent = parse_spec("agent", fmt)
    prefix = agent.prefix
    if agent.kind == "native":
        search = ["(`metapvp/players/native.py`: both sides choosing at once on poke-engine, over worlds drawn from",
                  "what it cannot see, the model's probabilities the prior at the root; without Rust at set-up",
                  f"`agent` plays `{agent_search(fmt).compact()}`, the search in Showdown's simulator)"]
    else:
        search = ["(`metapvp/players/search.py`: both sides choosing at once in the simulator, over worlds drawn from",
                  "what it cannot see, its likeliest actions weighed by what the search found)"]
    return [f"head2head, seats alternating; `agent` plays the model guiding a search (`{prefix}`, from the model's",
            "metadata)", *search[:-1], search[-1] + "; `agent@0` takes the model's most probable action (best",
            "move), and `agent@1` samples from its policy as in training:"]


def made_rows(step: dict) -> list[str]:
    """How a model trained by PPO in one run (its lineage's one `step`) was made, as rows of the card's table."""
    warm = [f"| warm start | {lineage.warm_start(step['warm_start'])} |"] if "warm_start" in step else []
    compute = ([f"| compute | {step['hours']:.2f} h of wall time on {step['workers']} rollout workers + the learner, "
                f"a 2-core CPU machine: {2 * step['hours']:.1f} CPU-hours, no GPU |"] if "hours" in step else [])
    return [f"| trained | {step['updates']} PPO updates on {step['decisions']:,} learner decisions |", *warm, *compute]


def card(meta: dict, data: dict, curve: str | None, steps: list[dict], name: str) -> str:
    """The model card of the model file `name` (`FORMAT.zip` where it is shipped as `agent`),
    from its metadata (format, contract, network, the search `agent` plays), its lineage
    `steps` and the card's data (how it was made, its evaluations): nothing else."""
    fmt = meta["format"]
    shipped = name == f"{fmt}.zip"
    expt = data.get("experiment", "expts/gen9randombattle.yml")
    evaluations = data["evaluations"]
    lines = [
        "# Shipped models" if shipped else f"# `{name}`",
        "",
        *([f"## `{name}`", "",
           f"Any command that takes a player takes `agent` (the model for the format it plays) or `agent:{fmt}`:",
           "", "```bash", f"metapvp head2head --p1 agent --p2 heuristic --format {fmt}",
           f"metapvp challenge agent --port 8000 --formats {fmt}", f"metapvp serve --model agent:{fmt}", "```", ""]
          if shipped else [data.get("about", "A model kept beside the shipped one."), ""]),
        "| | |",
        "|---|---|",
        f"| format | {fmt} |",
        f"| contract | {meta['contract']['name']} (hash `{meta['contract']['hash'][:16]}`) |",
        f"| network | preset `{meta['preset']}` |",
        *([f"| on a server | `{NativeConfig.from_dict(meta[LIVE]).prefix()}:agent` (challenge_bot, smogon_eval, "
           f"the move API) |"] if LIVE in meta else []),
        *(made_rows(steps[0]) if len(steps) == 1 and steps[0]["kind"] == "ppo" else
          [f"| made | in {len(steps)} steps, oldest first (below, How it was made) |"]),
        *(f"| {k} | {v} |" for k, v in data.get("rows", [])),
        f"| experiment | [`{expt}`]({'../' * (1 + name.count('/'))}../{expt}) |",
        *([f"| made by | `{data['made_by']}` |"] if data.get("made_by") else []),
        *([f"| weights | {data['weights']} |"] if data.get("weights") else []),
        "",
        *([] if len(steps) < 2 else
          ["### How it was made", "", *(f"{i}. {lineage.described(s, SHIPPED_MODELS)}" for i, s in enumerate(steps, 1)),
           ""]),
        "### Strength",
        "",
        *(strength_intro(fmt) if shipped else ["head2head, seats alternating, the model played as each row says:"]),
        "",
        *eval_rows(evaluations),
        "",
        "Each row comes from:",
        "",
        "```bash",
        *dict.fromkeys(e["command"] for e in evaluations),
        "```",
        "",
        *([] if curve is None else
          ["### Training curve", "", "Win rates of the checkpoints in training's own evaluations:",
           "", f"![training curve]({curve})", ""]),
        "### Limits",
        "",
        f"Trained and measured in {fmt} only, against the players above, not against people.",
        "It sees what a player sees (the critic's view of the foe's true team is used in training only).",
        "",
    ]
    return "\n".join(lines)


def prefix_spec(prefix: str, flag: str, ap: argparse.ArgumentParser):
    """The player a search's prefix names guiding `agent` (--search, --live); a bad one ends
    the command naming `flag`."""
    try:
        return parse_spec(prefix.removesuffix(":") + ":agent")
    except SpecError as e:
        ap.error(f"{flag} {prefix!r}: {e}")


def search_entry(prefix: str, ap: argparse.ArgumentParser) -> dict:
    """The metadata entry --search writes: {"native": ...} for a native prefix (the simulator's
    search stays as the fallback without Rust), {"search": ...} for a search in the simulator."""
    p = prefix_spec(prefix, "--search", ap)
    if p.kind == "native":
        return {"native": p.config.to_dict()}
    if p.kind != "search":
        ap.error(f"--search {prefix!r} is not a search prefix (e.g. search64x2h4q16p1 or native(iterations=10000))")
    return {"search": p.config.to_dict()}


def live_entry(prefix: str, ap: argparse.ArgumentParser) -> dict:
    """The metadata entry --live writes: the native search `agent` plays on a Showdown server
    (metapvp.players.spec.LIVE); `none` removes it (a server then gets head2head's search)."""
    if prefix == "none":
        return {LIVE: None}
    p = prefix_spec(prefix, "--live", ap)
    if p.kind != "native":
        ap.error(f"--live {prefix!r} is not a native search's prefix (e.g. native(ms=400,worlds=2))")
    return {LIVE: p.config.to_dict()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, nargs="?", help="the training run (not needed with --search-only or --card-for)")
    ap.add_argument("--model", type=Path)
    ap.add_argument("--evals", type=Path, nargs="+", default=[],
                    help="head2head --outdir folders: their results join the card's evaluations, each in place of "
                         "one against the same opponent played the same way")
    ap.add_argument("--fresh-evals", action="store_true", help="the card's evaluations start anew with --evals")
    ap.add_argument("--headline", action="store_true",
                    help="--evals are `agent`'s headline figures, which the README shows (in place of any other "
                         "headline against the same opponent)")
    ap.add_argument("--expt", default="expts/gen9randombattle.yml")
    ap.add_argument("--command", help="the command that trained it (default: from the experiment file)")
    ap.add_argument("--card-for", metavar="FORMAT",
                    help="write the card of the model shipped for FORMAT again, from its metadata and card data "
                         "(with --evals added): no run, no model copied")
    ap.add_argument("--card", help="the card's file name in static/models/ (default: FORMAT.md)")
    ap.add_argument("--search", nargs="+", default=[],
                    help="the search `agent` plays (a spec's prefix, e.g. search64x2h4q16p1, or "
                         "native(iterations=10000,worlds=2) for the native search; both to give the native "
                         "search and its fallback without Rust), written into the shipped model's metadata")
    ap.add_argument("--live", metavar="PREFIX",
                    help="the native search `agent` plays on a Showdown server (challenge_bot, smogon_eval, the "
                         "move API), e.g. native(ms=400,worlds=2,exploration=1.5,leaf=search,uniform=0.5), "
                         "written into the shipped model's metadata (none: removed); without it a server gets "
                         "head2head's search")
    ap.add_argument("--search-only", metavar="FORMAT",
                    help="write --search and --live into the model shipped for FORMAT and nothing else (no run, "
                         "no card)")
    ap.add_argument("--init", type=Path,
                    help="where the model RUN began from lies now, for the lineage (default: the run's init; "
                         "`agent` is the model shipped before this one)")
    ap.add_argument("--lineage-only", action="store_true",
                    help="write the lineage of --model (the model RUN made) into its metadata, nothing else: "
                         "for a round's model kept beside the shipped one")
    args = ap.parse_args(argv)
    entries = {k: v for prefix in args.search for k, v in search_entry(prefix, ap).items()}
    if args.live:
        entries.update(live_entry(args.live, ap))
    if args.search_only:
        if not entries:
            ap.error("--search-only FORMAT needs --search PREFIX or --live PREFIX")
        path = SHIPPED_MODELS / f"{args.search_only}.zip"
        if not path.is_file():
            ap.error(f"--search-only {args.search_only}: no model is shipped for it (no {path})")
        update_metadata(path, **entries)
        live = live_spec("agent", args.search_only)
        print(f"{path}: agent plays {agent_as_played('agent', args.search_only)}"
              + (f"; on a server {live}" if live != "agent" else ""))
        return 0
    if args.card_for:
        path = Path(args.card_for) if args.card_for.endswith(".zip") else SHIPPED_MODELS / f"{args.card_for}.zip"
        if not path.is_file():
            ap.error(f"--card-for {args.card_for}: no such model (no {path})")
        if entries:
            update_metadata(path, **entries)
        return write_card(path, args, {})
    if not (args.run and args.model and (args.evals or args.lineage_only)):
        ap.error("shipping a model needs RUN, --model and --evals (--lineage-only: RUN and --model; "
                 "--card-for FORMAT: the card alone)")
    try:
        meta = read_metadata(args.model)
    except ModelError as e:
        ap.error(str(e))
    state = json.loads((args.run / "checkpoints" / "state.json").read_text())
    cfg = ended_config(args.run)
    try:
        steps = lineage_of(args, cfg, meta, state)
    except lineage.LineageError as e:
        ap.error(str(e))
    if args.lineage_only:
        update_metadata(args.model, lineage=steps)
        print(f"{args.model}: made in {len(steps)} steps")
        return 0
    SHIPPED_MODELS.mkdir(parents=True, exist_ok=True)
    fmt = meta["format"]
    shipped = SHIPPED_MODELS / f"{fmt}.zip"
    shutil.copyfile(args.model, shipped)
    # a training curve is PPO's: a round of imitation has none (its one evaluation is in its run)
    if steps[-1]["kind"] == "ppo":
        shutil.copyfile(args.run / "winrate.png", SHIPPED_MODELS / f"{fmt}-curve.png")
    else:
        (SHIPPED_MODELS / f"{fmt}-curve.png").unlink(missing_ok=True)   # the model before's, not this one's
    update_metadata(shipped, **entries, lineage=steps)
    made = {"experiment": args.expt,
            "made_by": args.command or f"metapvp train {args.expt} runs/ship",
            "weights": averaged_weights(args.run, meta)}
    return write_card(shipped, args, made, fresh=True)


def write_card(model: Path, args, made: dict, fresh: bool = False) -> int:
    """Writes the card's data (`made` and --evals into what it held) beside `model`, and the
    card from it and the model's metadata."""
    meta = read_metadata(model)
    card_path = model.parent / args.card if args.card else model.with_suffix(".md")
    data_path = card_data_path(card_path)
    data = {**({"evaluations": []} if fresh or args.fresh_evals else read_card_data(data_path)),
            **{k: v for k, v in made.items() if v is not None}}
    new = [{**evaluation(d), **({"headline": True} if args.headline else {})} for d in args.evals]
    if args.headline:   # one headline an opponent
        opponents = {e["opponent"] for e in new}
        data["evaluations"] = [{k: v for k, v in e.items() if k != "headline" or e["opponent"] not in opponents}
                               for e in data["evaluations"]]
    data = with_evaluations(data, new)
    data_path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    curve = model.with_name(f"{model.stem}-curve.png")
    name = str(model.resolve().relative_to(SHIPPED_MODELS.resolve())) if model.resolve().is_relative_to(
        SHIPPED_MODELS.resolve()) else model.name
    card_path.write_text(card(meta, data, curve.name if curve.is_file() else None, lineage.of_model(model), name))
    print(f"wrote {card_path} from {data_path} and {model}'s metadata")
    return 0


def lineage_of(args, cfg: dict, meta: dict, state: dict) -> list[dict]:
    """The runs that made the model, oldest first: those of the model the run began from (read
    before this one is shipped over it, where that was `agent`), then this run's."""
    if "lineage" in meta and not args.lineage_only:   # written before (--lineage-only), this run's step last
        return meta["lineage"]
    init = args.init or cfg.get("init")
    if init is None:
        return [lineage.step(args.run, cfg, meta, state, args.expt)]
    try:
        path = shipped_model(meta["format"]) if str(init) == "agent" else Path(init)
        agent = path if cfg.get("init") == "agent" else None     # what `agent` was when the run ran
        return [*lineage.of_model(path), lineage.step(args.run, cfg, meta, state, args.expt, agent)]
    except (ModelError, SpecError) as e:
        raise lineage.LineageError(f"init {init}: {e}") from None


if __name__ == "__main__":
    sys.exit(main())
