// Search at decision time: Monte Carlo tree search in which both sides choose at once
// (decoupled PUCT: at each node each side picks by its own statistics and prior, and the joint
// choice is played), over several worlds drawn from what the player cannot see (the foe's sets
// drawn among the possible ones, its unseen Pokemon drawn from the format's generator:
// rebuild.js). The tree is open-loop: a node is a sequence of joint choices from the root, each
// visit restores the root and replays them with fresh chances (damage rolls, accuracy, critical
// hits, secondary effects), so chance is sampled along the way. A new node is valued where it is
// reached, or after `play_on` turns of both sides' hardest hits (playon.js; no random rollouts),
// by material (evaluation.js). Our prior at the root is the policy's; elsewhere, and for the foe,
// a prior from how hard each move hits.
// What differs between singles and doubles (the rebuilt battle, our root choices, each side's
// options below the root and their prior) is a game's: its adapter in games/.
//
// Our choice at the root is searched either like every other (PUCT), or by sequential halving
// (`halve`, rootchoice.js): the budget split into rounds, each visiting every remaining
// candidate alike, the better half by log p + weight * value kept after each.
//
// The settings are the Python package's SearchConfig (players), which holds their defaults
// and validates them; this file takes them as that class's to_js() writes them.
import {Battle as SimBattle, PRNG} from '@pkmn/sim';
import {gameOf} from './games/index.js';
import {value, lead} from './evaluation.js';
import {bestAction, valueScores, Halving} from './rootchoice.js';
import {playOnce} from './playon.js';
import {mulberry32} from './random.js';

const SILENT = () => {};
const MAX_DEPTH = 12;         // joint choices along one visit (a forced switch is one)

// The settings a search reads (SearchConfig.to_js()); a missing one is an error naming it.
const SETTINGS = ['visits', 'ms', 'worlds', 'exploration', 'halve', 'weight', 'play_on', 'seed'];

/** The search methods of an object that has views (view(battle, perspective)): the Engine
 * (live play, stdio) and the in-process Simulator. */
export const searchMethods = {
  /** Searches the decisions of [battle, perspective] pairs, one after another: `actions`,
   * `priors`: per decision, our candidate action indices and the policy's probabilities for
   * them; `seeds`: one per decision, over `options`' seed. Per decision: Search.result(), null
   * where there was nothing to search, or {error}: one that fails never stops the others. */
  search(keys, actions, priors, seeds, options) {
    return keys.map(([battle, perspective], i) => {
      try {
        return search(this.view(battle, perspective), actions[i], priors[i], {...options, seed: seeds[i]});
      } catch (e) {
        return {error: e.message};
      }
    });
  },
};

/** One decision's search, run to its budget. */
export function search(view, actions, prior, options) {
  const job = new Search(view, actions, prior, options);
  job.run();
  return job.result();
}

class Search {
  constructor(view, actions, prior, options) {
    const o = this.o = options;
    const missing = SETTINGS.filter(k => o[k] === undefined);
    if (missing.length) throw new Error(`search: no ${missing.join(', ')} in its settings (SearchConfig.to_js())`);
    if (!(o.visits > 0) && !(o.ms > 0)) throw new Error('search needs a budget: visits or ms');
    const game = this.game = gameOf(view.battle.gameType, 'the search');
    this.view = view;
    this.actions = actions;
    this.prior = prior;
    this.started = Date.now();
    this.random = mulberry32(o.seed);
    this.nodes = this.steps = this.playedOn = 0;
    this.worlds = [];
    const req = view.request;
    this.nothing = !req || !req.side || req.teamPreview || req.wait || !(req.active || req.forceSwitch) ||
      !game.faces(view);
    if (this.nothing) return;
    for (let w = 0; w < o.worlds; w++) {
      const world = makeWorld(game, view, actions, prior, mulberry32(o.seed * 7919 + w + 1));
      if (world) this.worlds.push(world);
    }
    this.nothing = !this.worlds.length;
    if (this.nothing || !(o.halve > 1)) return;
    if (!(o.weight > 0)) throw new Error('search: halving needs a weight');
    const searchable = actions.map((a, k) => k).filter(k => this.worlds.some(w => w.choices[k] !== null));
    this.halving = new Halving(searchable, prior, o.halve, {visits: o.visits, ms: o.ms, started: this.started});
  }

  budgetLeft() {
    const o = this.o;
    return !this.nothing && (!this.halving || !this.halving.done) && (!(o.visits > 0) || this.nodes < o.visits) &&
      (!(o.ms > 0) || Date.now() - this.started < o.ms);
  }

  /** Visits until the budget is spent. */
  run() {
    while (this.budgetLeft()) {
      let world = this.worlds[this.nodes % this.worlds.length], forced = null;
      if (this.halving) {
        const k = this.halving.next(() => this.scores());
        if (k === null) break;
        const able = this.worlds.filter(w => w.choices[k] !== null);
        world = able[this.nodes % able.length];
        forced = world.choices[k];
      }
      const leaf = visit(this.game, world, this.o, this.random, forced);
      this.nodes++;
      this.steps += leaf.steps;
      this.playedOn += leaf.playedOn;
      addVisit(leaf, leaf.material);
    }
  }

  /** Our root choices' visits and mean values (null: never visited), over every world. */
  rootStats() {
    const visits = this.actions.map(() => 0), sums = this.actions.map(() => 0);
    for (const world of this.worlds) {
      world.choices.forEach((choice, k) => {
        const s = choice === null ? null : world.root.sides[0].get(choice);
        if (!s) return;
        visits[k] += s.n;
        sums[k] += s.w;
      });
    }
    return {visits, values: visits.map((n, k) => (n ? sums[k] / n : null))};
  }

  scores({visits, values} = this.rootStats()) {
    return valueScores(visits, values, this.prior, this.o.weight);
  }

  /** {best: the index of the action to play (in `actions`), visits, values, world_visits (per
   * world, each action's visits there), foe_visits (per world, the foe's choices at the root and
   * their visits), nodes, worlds, steps (turns simulated), played_on (of them, turns played past
   * leaves), ms}; null where there was nothing to search. */
  result() {
    if (this.nothing) return null;
    const stats = this.rootStats(), {visits, values} = stats;
    const best = this.halving ? this.halving.best(this.scores(stats)) : bestAction(visits, values, this.prior, this.o.weight);
    const worldVisits = this.worlds.map(w => w.choices.map(c => (c === null ? 0 : (w.root.sides[0].get(c) || {n: 0}).n)));
    const foeVisits = this.worlds.map(w => Object.fromEntries([...w.root.sides[1]].map(([c, s]) => [c, s.n])));
    return {best, visits, values, world_visits: worldVisits, foe_visits: foeVisits, nodes: this.nodes,
      worlds: this.worlds.length, steps: this.steps, played_on: this.playedOn, ms: Date.now() - this.started};
  }
}

/** One drawn world: the rebuilt battle(s), serialised once and restored at every visit, and its
 * tree. At a forced switch each action's Pokemon that could come in have their own start and
 * the root is ours alone. `choices[k]`: action k's choice at the root. */
function makeWorld(game, view, actions, prior, random) {
  const req = view.request;
  const state = random();  // the same draws for every start of this world
  const draw = () => mulberry32(Math.floor(state * 2 ** 32));
  const root = newNode();
  const priors = new Map();
  const choices = actions.map(() => null);
  if (req.forceSwitch) {
    const starts = new Map();
    let first = null;
    actions.forEach((a, k) => {
      const start = game.switchIn(view, a, draw());
      if (!start) return;
      first = first || start;
      choices[k] = `start ${a}`;
      starts.set(choices[k], JSON.stringify(start.battle.toJSON()));
      priors.set(choices[k], prior[k]);
    });
    if (!starts.size) return null;
    return {root, starts, choices, priors, me: first.me, rootLead: lead(first.battle, first.me)};
  }
  const start = game.start(view, draw());
  if (!start) return null;
  actions.forEach((a, k) => {
    try {
      choices[k] = game.choice(req, a, start);
      priors.set(choices[k], (priors.get(choices[k]) || 0) + prior[k]);
    } catch (e) {
      // an action the rebuilt battle cannot take (a fainted Pokemon's slot) is not searched
    }
  });
  return {root, start: JSON.stringify(start.battle.toJSON()), choices, priors, me: start.me,
    rootLead: lead(start.battle, start.me)};
}

function newNode() {
  return {n: 0, w: 0, sides: [new Map(), new Map()], children: new Map()};
}

/** One visit: from the root down the tree, both sides picking (side 0 is us, 1 the foe; our
 * root choice `forced` where given), to a new node or the battle's end, then `o.play_on` turns of
 * hardest hits to value it. Returns the leaf: {world, path, node, battle, material (our value by
 * material), steps (turns simulated), playedOn}. */
function visit(game, world, o, random, forced = null) {
  const path = [];
  let node = world.root, battle;
  if (world.starts) {
    const pick = forced ? take(node, 0, forced, world.priors) : choose(node, 0, [...world.starts.keys()], world.priors, o.exploration);
    battle = restore(world.starts.get(pick), random);
    path.push([node, [pick, null]]);
    node = child(node, pick);
  } else {
    battle = restore(world.start, random);
  }
  let steps = 0;
  const sideOf = i => battle.sides[i ^ world.me];
  for (;;) {
    if (battle.ended || (node.n === 0 && path.length) || path.length >= MAX_DEPTH) break;
    const picks = [null, null];
    for (let i = 0; i < 2; i++) {
      const atRoot = node === world.root && i === 0;
      const options = atRoot ? world.choices.filter(c => c !== null) : game.options(battle, sideOf(i));
      if (!options.length) continue;
      const priors = atRoot ? world.priors : game.priors(battle, sideOf(i), options);
      picks[i] = atRoot && forced ? take(node, i, forced, priors) : choose(node, i, options, priors, o.exploration);
    }
    if (picks[0] === null && picks[1] === null) break;
    for (let i = 0; i < 2; i++) {
      if (picks[i] !== null && !battle.choose(sideOf(i).id, picks[i])) {
        node.sides[i].get(picks[i]).refused = true;  // not chosen again here
        battle.choose(sideOf(i).id, 'default');
      }
    }
    steps++;
    path.push([node, picks]);
    node = child(node, picks.join('|'));
  }
  // played on past the leaf to value it; the tree keeps the leaf's own position
  let playedOn = 0;
  for (; playedOn < o.play_on && !battle.ended && path.length; playedOn++) playOnce(battle);
  return {world, path, node, battle, material: value(battle, world.rootLead, world.me), steps: steps + playedOn, playedOn};
}

/** Counts a visit along a leaf's path with value `v` (ours; the foe's is 1 - v). */
function addVisit(leaf, v) {
  for (const [n, picks] of [...leaf.path, [leaf.node, [null, null]]]) {
    n.n++;
    n.w += v;
    picks.forEach((pick, i) => {
      if (pick === null) return;
      const s = n.sides[i].get(pick);
      s.n++;
      s.w += i === 0 ? v : 1 - v;
    });
  }
}

function restore(state, random) {
  const battle = SimBattle.fromJSON(state);
  battle.send = SILENT;
  battle.prng = new PRNG([1 + Math.floor(random() * 0xffff), Math.floor(random() * 0xffff),
    Math.floor(random() * 0xffff), Math.floor(random() * 0xffff)]);
  return battle;
}

function child(node, key) {
  let c = node.children.get(key);
  if (!c) node.children.set(key, c = newNode());
  return c;
}

/** Side i's pick at `node` by PUCT over `options` (those legal on this visit): its mean value,
 * plus exploration in proportion to its prior; an unvisited option counts the node's mean. */
function choose(node, i, options, priors, c) {
  const mean = node.n ? (i === 0 ? node.w / node.n : 1 - node.w / node.n) : 0.5;
  const total = Math.sqrt(Math.max(1, node.n));
  let best = null, bestScore = -Infinity;
  for (const option of options) {
    const s = stat(node, i, option, priors);
    if (s.refused) continue;
    const score = (s.n ? s.w / s.n : mean) + c * s.p * total / (1 + s.n);
    if (score > bestScore) { bestScore = score; best = option; }
  }
  return best === null ? options[0] : best;
}

/** Side i's pick of `option` at `node`, chosen by the caller. */
function take(node, i, option, priors) {
  stat(node, i, option, priors);
  return option;
}

/** Side i's statistics of `option` at `node`, made on first sight. */
function stat(node, i, option, priors) {
  let s = node.sides[i].get(option);
  if (!s) node.sides[i].set(option, s = {n: 0, w: 0, p: priors.get(option) || 0, refused: false});
  return s;
}
