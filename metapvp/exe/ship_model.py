"""Ships a trained model: copies it to static/models/FORMAT.zip, with its training curve, and
writes the model card (static/models/FORMAT.md, or --card NAME) from the run and the head2head
evaluations.
Every figure in the card comes from a file this reads, so the card can be rebuilt.

    ./rp metapvp/exe/ship_model.py RUN_DIR --model RUN_DIR/checkpoints/model-latest.zip \\
        --evals EVAL_DIR [EVAL_DIR ...] [--command "how the run was started"]

EVAL_DIR: a head2head --outdir (its results.json), the model as --p1 (a file, or `agent` once
shipped; with @T for a temperature, lookaheadN: or lookaheadNxK: before it for lookahead, a
search prefix such as search64x2h4q16p1: before it for the search), e.g.
    ./rp metapvp/exe/head2head.py --p1 MODEL --p2 heuristic --num-matches 1000 --outdir EVAL_DIR
--search PREFIX writes the search `agent` plays into the shipped model's metadata (e.g.
--search search64x2h4q16p1, or search(visits=128); a native prefix such as
native(iterations=10000,worlds=2) names the native search, the simulator's search staying as
its fallback); --card-only rewrites the card alone (the model and curve already shipped);
--search-only FORMAT writes --search into the shipped model alone:
    ./rp metapvp/exe/ship_model.py --search-only gen9randombattle --search "native(iterations=10000)"
The shipped model keeps its lineage in its metadata (training/lineage.py): the lineage of the model
the run began from (its init, or --init where that has moved since), then this run's step. A round
of expert iteration kept beside the shipped model gets its own with --lineage-only, so that the
next round, begun from it, can tell how it was made:
    ./rp metapvp/exe/ship_model.py RUN_DIR --model ROUND.zip --expt EXPT --lineage-only
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

from metapvp.models.modelfile import ModelError, read_metadata, update_metadata
from metapvp.players.lookahead import DEFAULT_WEIGHT as DEFAULT_LOOKAHEAD_WEIGHT
from metapvp.players.searchconfig import SEARCH_PREFIX, SearchConfigError, parse_prefix
from metapvp.players.spec import (
    LOOKAHEAD,
    NATIVE,
    SHIPPED_MODELS,
    SpecError,
    agent_as_played,
    agent_search,
    bare_agent,
    lookahead_settings,
    model_spec,
    native_config,
    shipped_model,
)
from metapvp.training import lineage
from metapvp.training.trainer import ended_config


def played(r: dict) -> str:
    """How the model played in a head2head result, as an agent spec: agent@T (T = 0 with
    --play-best-move), lookaheadN:agent / lookaheadNxK:agent or a search (search64...:agent)."""
    spec = r["p1"]
    if bare_agent(spec):
        spec = agent_as_played("agent", r["format"])
    m = LOOKAHEAD.match(spec)
    if m:
        return m.group(0) + "agent"
    search = SEARCH_PREFIX.match(spec) or re.match(r"search\([^()]*\):", spec) or NATIVE.match(spec)
    if search:
        return search.group(0) + "agent"
    if r.get("play_best_move") in ("p1", "both"):
        return "agent@0"
    return f"agent@{model_spec(spec, r['format'])[1]:g}"


def how(spec: str) -> str:
    native = NATIVE.match(spec)
    if native:
        config = native_config(spec, native)
        budget = f"{config.ms} ms" if config.ms else f"{config.iterations:,} iterations"
        return f"native search, {budget} in each of {config.worlds} worlds"
    if spec.startswith("search"):
        try:
            config = parse_prefix(spec)[0]
        except SearchConfigError:   # a setting since retired, as a results file from before recorded it
            return f"search, `{spec.partition(':')[0]}` (a setting since retired)"
        return f"search, {config.ms} ms" if config.ms else f"search, {config.visits} visits"
    settings = lookahead_settings(spec)
    if settings:
        turns, draws, weight = settings
        return (f"{turns} turn{'s' if turns > 1 else ''} of lookahead" + (f", {draws} draws" if draws > 1 else "")
                + (f", weight {weight:g}" if weight != DEFAULT_LOOKAHEAD_WEIGHT else ""))
    t = float(spec.partition("@")[2])
    return "best move" if t == 0 else "sampled" if t == 1 else f"temperature {t:g}"


def eval_rows(dirs: list[Path]) -> list[str]:
    rows = ["| opponent | agent's moves | battles | win rate | 95% interval | Elo difference | errors |",
            "|---|---|---:|---:|---|---:|---:|"]
    for d in dirs:
        r = json.loads((d / "results.json").read_text())
        lo, hi = r["p1_win_rate_ci95"]
        rows.append(f"| `{r['p2']}` | {how(played(r))} | {r['matches']} | **{r['p1_win_rate']:.3f}** | "
                    f"{lo:.3f}–{hi:.3f} | {r['elo_diff']:+.0f} | {r['errors']} |")
    return rows


def eval_commands(dirs: list[Path]) -> list[str]:
    """Each evaluation's command as it reads now: `agent` where it played as agent does."""
    out = []
    for d in dirs:
        r = json.loads((d / "results.json").read_text())
        name = "agent" if played(r) == played({**r, "p1": "agent"}) else played(r)
        out.append(f"./rp metapvp/exe/head2head.py --p1 {shlex.quote(name)} --p2 {shlex.quote(r['p2'])} "
                   f"--format {r['format']} --num-matches {r['matches']} --seed {r['seed']}")
    return out


def averaged_row(run: Path, meta: dict) -> list[str]:
    """The row that says a model is an average of checkpoints (metapvp/exe/average_checkpoints.py)."""
    names = meta.get("averaged_from")
    if not names:
        return []
    first, last = names[0].removesuffix(".zip").split("-")[-1], names[-1].removesuffix(".zip").split("-")[-1]
    return [f"| weights | the average of {len(names)} checkpoints, updates {int(first)}–{int(last)}: "
            f"`./rp metapvp/exe/average_checkpoints.py OUT.zip --run {run} --last {len(names)}` |"]


def strength_intro(fmt: str) -> list[str]:
    prefix = agent_as_played("agent", fmt).removesuffix(":agent")
    if NATIVE.match(prefix + ":"):
        search = ["(`metapvp/players/native.py`: both sides choosing at once on poke-engine, over worlds drawn from",
                  "what it cannot see, the model's probabilities the prior at the root; without Rust at set-up",
                  f"`agent` plays `{agent_search(fmt).compact()}`, the search in Showdown's simulator)"]
    else:
        search = ["(`metapvp/players/search.py`: both sides choosing at once in the simulator, over worlds drawn from",
                  "what it cannot see, its likeliest actions weighed by what the search found)"]
    return [f"head2head, seats alternating; `agent` plays the model guiding a search (`{prefix}`, from the model's",
            "metadata)", *search[:-1], search[-1] + "; `agent@0` takes the model's most probable action (best",
            "move), and `agent@1` samples from its policy as in training:"]


def made_rows(meta: dict, cfg: dict, hours: float, step: dict) -> list[str]:
    """How a model trained by PPO in one run (its lineage's `step`) was made, as rows of the card's table."""
    warm = [f"| warm start | {lineage.warm_start(step['warm_start'])} |"] if "warm_start" in step else []
    return [f"| trained | {meta['date'][:10]}, {meta['updates']} PPO updates on {meta['steps']:,} learner decisions |",
            *warm,
            f"| compute | {hours:.2f} h of wall time on {cfg['workers']} rollout workers + the learner, "
            f"a 2-core CPU machine: {2 * hours:.1f} CPU-hours, no GPU |"]


def card(run: Path, meta: dict, state: dict, cfg: dict, evals: list[Path], command: str, curve: str | None,
         steps: list[dict]) -> str:
    """The model card; `steps` the model's lineage (training/lineage.py)."""
    fmt = meta["format"]
    hours = state["seconds"] / 3600
    expt = cfg.get("_expt", "expts/gen9randombattle.yml")
    lines = [
        "# Shipped models",
        "",
        f"## `{fmt}.zip`",
        "",
        f"Any command that takes a player takes `agent` (the model for the format it plays) or `agent:{fmt}`:",
        "",
        "```bash",
        f"./rp metapvp/exe/head2head.py --p1 agent --p2 heuristic --format {fmt}",
        f"./rp metapvp/exe/challenge_bot.py agent --port 8000 --formats {fmt}",
        f"./rp metapvp/exe/serve_api.py --model agent:{fmt}",
        "```",
        "",
        "| | |",
        "|---|---|",
        f"| format | {fmt} |",
        f"| contract | {meta['contract']['name']} (hash `{meta['contract']['hash'][:16]}`) |",
        f"| network | preset `{meta['preset']}` |",
        *(made_rows(meta, cfg, hours, steps[0]) if len(steps) == 1 and steps[0]["kind"] == "ppo" else
          [f"| made | in {len(steps)} steps, oldest first (below, How it was made) |"]),
        f"| experiment | [`{expt}`](../../{expt}) |",
        f"| made by | `{command}` |",
        *averaged_row(run, meta),
        "",
        *([] if len(steps) == 1 else
          ["### How it was made", "", *(f"{i}. {lineage.described(s, SHIPPED_MODELS)}" for i, s in enumerate(steps, 1)),
           ""]),
        "### Strength",
        "",
        *strength_intro(fmt),
        "",
        *eval_rows(evals),
        "",
        "Each row comes from:",
        "",
        "```bash",
        *eval_commands(evals),
        "```",
        "",
        *([] if curve is None else
          ["### Training curve", "",
           f"Win rates of the checkpoints in training's own evaluations ({cfg['eval']['battles']} battles each):",
           "", f"![training curve]({curve})", ""]),
        "### Limits",
        "",
        f"Trained and measured in {fmt} only, against the scripted baselines above, not against people.",
        "It sees what a player sees (the critic's view of the foe's true team is used in training only).",
        "",
    ]
    return "\n".join(lines)


def search_entry(prefix: str, ap: argparse.ArgumentParser) -> dict:
    """The metadata entry --search writes: {"native": ...} for a native prefix (the simulator's
    search stays as the fallback without Rust), {"search": ...} for a search in the simulator."""
    spec = prefix.removesuffix(":") + ":"
    try:
        native = NATIVE.match(spec)
        if native:
            return {"native": native_config(spec, native).to_dict()}
        found = parse_prefix(spec)
    except (SearchConfigError, SpecError) as e:
        ap.error(f"--search {prefix!r}: {e}")
    if not found:
        ap.error(f"--search {prefix!r} is not a search prefix (e.g. search64x2h4q16p1 or native(iterations=10000))")
    return {"search": found[0].to_dict()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, nargs="?", help="the training run (not needed with --search-only)")
    ap.add_argument("--model", type=Path)
    ap.add_argument("--evals", type=Path, nargs="+")
    ap.add_argument("--expt", default="expts/gen9randombattle.yml")
    ap.add_argument("--command", help="the command that trained it (default: from the experiment file)")
    ap.add_argument("--card-only", action="store_true", help="rewrite the card only")
    ap.add_argument("--card", help="the card's file name in static/models/ (default: FORMAT.md)")
    ap.add_argument("--search", nargs="+", default=[],
                    help="the search `agent` plays (a spec's prefix, e.g. search64x2h4q16p1, or "
                         "native(iterations=10000,worlds=2) for the native search; both to give the native "
                         "search and its fallback without Rust), written into the shipped model's metadata")
    ap.add_argument("--search-only", metavar="FORMAT",
                    help="write --search into the model shipped for FORMAT and nothing else (no run, no card)")
    ap.add_argument("--init", type=Path,
                    help="where the model RUN began from lies now, for the lineage (default: the run's init; "
                         "`agent` is the model shipped before this one)")
    ap.add_argument("--lineage-only", action="store_true",
                    help="write the lineage of --model (the model RUN made) into its metadata, nothing else: "
                         "for a round's model kept beside the shipped one")
    args = ap.parse_args(argv)
    entries = {k: v for prefix in args.search for k, v in search_entry(prefix, ap).items()}
    if args.search_only:
        if not args.search:
            ap.error("--search-only FORMAT needs --search PREFIX")
        path = SHIPPED_MODELS / f"{args.search_only}.zip"
        if not path.is_file():
            ap.error(f"--search-only {args.search_only}: no model is shipped for it (no {path})")
        update_metadata(path, **entries)
        print(f"{path}: agent plays {agent_as_played('agent', args.search_only)}")
        return 0
    if not (args.run and args.model and (args.evals or args.lineage_only)):
        ap.error("shipping a model needs RUN, --model and --evals (--lineage-only: RUN and --model)")
    try:
        meta = read_metadata(args.model)
    except ModelError as e:
        ap.error(str(e))
    state = json.loads((args.run / "checkpoints" / "state.json").read_text())
    cfg = ended_config(args.run)
    cfg["_expt"] = args.expt
    try:
        steps = lineage_of(args, cfg, meta, state)
    except lineage.LineageError as e:
        ap.error(str(e))
    if args.lineage_only:
        update_metadata(args.model, lineage=steps)
        print(f"{args.model}: made in {len(steps)} steps")
        return 0
    command = args.command or f"./rp metapvp/exe/integrated_rl_script.py {args.expt} runs/ship"
    SHIPPED_MODELS.mkdir(parents=True, exist_ok=True)
    fmt = meta["format"]
    # a training curve is PPO's: a round of imitation has none (its one evaluation is in its run)
    curve = f"{fmt}-curve.png" if steps[-1]["kind"] == "ppo" else None
    if not args.card_only:
        shutil.copyfile(args.model, SHIPPED_MODELS / f"{fmt}.zip")
        if curve:
            shutil.copyfile(args.run / "winrate.png", SHIPPED_MODELS / curve)
        else:
            (SHIPPED_MODELS / f"{fmt}-curve.png").unlink(missing_ok=True)   # the model before's, not this one's
    if entries or not args.card_only:
        update_metadata(SHIPPED_MODELS / f"{fmt}.zip", **entries, **({} if args.card_only else {"lineage": steps}))
    card_path = SHIPPED_MODELS / (args.card or f"{fmt}.md")
    card_path.write_text(card(args.run, meta, state, cfg, args.evals, command, curve, steps))
    print(f"shipped {SHIPPED_MODELS / (fmt + '.zip')} and its card {card_path}")
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
