// Search at decision time: Monte Carlo tree search in which both sides choose at once
// (decoupled PUCT: at each node each side picks by its own statistics and prior, and the joint
// choice is played), over several worlds drawn from what the player cannot see (the foe's sets
// drawn among the possible ones, its unseen Pokemon drawn from the format's generator:
// rebuild.js). The tree is open-loop: a node is a sequence of joint choices from the root, each
// visit restores the root and replays them with fresh chances (damage rolls, accuracy, critical
// hits, secondary effects), so chance is sampled along the way. A new node is valued where it is
// reached (evaluation.js), not played out. Our prior at the root is the policy's; elsewhere
// (and for the foe) a prior from how hard each move hits.
import {Battle as SimBattle, PRNG} from '@pkmn/sim';
import {legalChoices, GIMMICKS} from './actions.js';
import {rebuild, ourChoice} from './rebuild.js';
import {value, lead} from './evaluation.js';

const G = GIMMICKS.length;
const SILENT = () => {};
const MAX_DEPTH = 12;         // joint choices along one visit (a forced switch is one)

export const DEFAULTS = {nodes: 64, ms: 0, worlds: 2, c: 1.5, seed: 0, foe: 'damage'};

/** Searches one decision of `view`. `actions`: our candidate action indices, `prior`: the
 * policy's probabilities for them. Options (DEFAULTS): `nodes` visits in all (0: no limit),
 * `ms` a time limit (0: none; at least one of the two), `worlds` drawn, `c` the exploration
 * weight, `seed`, `foe` the foe's prior ('damage' or 'uniform').
 * Returns {visits, values (our mean value per action, null where unvisited), nodes, worlds, steps
 * (simulated turns), ms (the time it took)};
 * null where there is nothing to search (team preview, waiting, no known foe). */
export function search(view, actions, prior, options = {}) {
  const o = {...DEFAULTS, ...options};
  if (!(o.nodes > 0) && !(o.ms > 0)) throw new Error('search needs a budget: nodes or ms');
  const req = view.request;
  if (!req || !req.side || req.teamPreview || req.wait || !(req.active || req.forceSwitch)) return null;
  const foeActive = view.foe.active[0];
  if (!foeActive || foeActive.fainted) return null;
  const started = Date.now();
  const random = mulberry32(o.seed);
  const worlds = [];
  for (let w = 0; w < o.worlds; w++) {
    const world = makeWorld(view, actions, prior, mulberry32(o.seed * 7919 + w + 1));
    if (world) worlds.push(world);
  }
  if (!worlds.length) return null;
  let nodes = 0, steps = 0;
  while ((!(o.nodes > 0) || nodes < o.nodes) && (!(o.ms > 0) || Date.now() - started < o.ms)) {
    steps += visit(worlds[nodes % worlds.length], o, random);
    nodes++;
  }
  const visits = actions.map(() => 0), sums = actions.map(() => 0);
  for (const world of worlds) {
    world.choices.forEach((choice, k) => {
      const s = choice === null ? null : world.root.sides[0].get(choice);
      if (!s) return;
      visits[k] += s.n;
      sums[k] += s.w;
    });
  }
  return {visits, values: visits.map((n, k) => (n ? sums[k] / n : null)), nodes, worlds: worlds.length,
    steps, ms: Date.now() - started};
}

/** search() for many decisions: `views` are functions giving each decision's view; a decision
 * whose search fails gets {error} and never stops the others. */
export function searchMany(views, actions, priors, seeds, options) {
  return views.map((viewOf, i) => {
    try {
      return search(viewOf(), actions[i], priors[i], {...options, seed: seeds[i]});
    } catch (e) {
      return {error: e.message};
    }
  });
}

/** One drawn world: the rebuilt battle(s), serialised once and restored at every visit, and its
 * tree. At a forced switch each Pokemon that could come in has its own start (it leads the
 * rebuilt battle) and the root is ours alone. `choices[k]`: action k's choice at the root. */
function makeWorld(view, actions, prior, random) {
  const req = view.request;
  const state = random();  // the same draws for every start of this world
  const draw = () => mulberry32(Math.floor(state * 2 ** 32));
  const root = newNode();
  const priors = new Map();
  const choices = actions.map(() => null);
  if (req.forceSwitch) {
    const starts = new Map();
    actions.forEach((a, k) => {
      const j = Math.floor(a / G) - 4;
      const r = req.side.pokemon[j];
      const start = j >= 0 && r && !r.fainted && r.hp ? rebuild(view, j, draw()) : null;
      if (!start) return;
      choices[k] = `start ${a}`;
      starts.set(choices[k], JSON.stringify(start.battle.toJSON()));
      priors.set(choices[k], prior[k]);
    });
    if (!starts.size) return null;
    const first = SimBattle.fromJSON(starts.values().next().value);
    return {root, starts, choices, priors, rootLead: lead(first)};
  }
  const start = rebuild(view, -1, draw());
  if (!start) return null;
  actions.forEach((a, k) => {
    try {
      choices[k] = ourChoice(req, a, start.slots);
      priors.set(choices[k], (priors.get(choices[k]) || 0) + prior[k]);
    } catch (e) {
      // an action the rebuilt battle cannot take (a fainted Pokemon's slot) is not searched
    }
  });
  return {root, start: JSON.stringify(start.battle.toJSON()), choices, priors, rootLead: lead(start.battle)};
}

function newNode() {
  return {n: 0, w: 0, sides: [new Map(), new Map()], children: new Map()};
}

/** One visit: from the root down the tree, both sides picking, to a new node or the battle's
 * end; the value found is added along the way back. Returns the turns simulated. */
function visit(world, o, random) {
  const path = [];
  let node = world.root, battle;
  if (world.starts) {
    const rootChoices = [...world.starts.keys()];
    const pick = choose(node, 0, rootChoices, world.priors, o.c);
    battle = restore(world.starts.get(pick), random);
    path.push([node, [pick, null]]);
    node = child(node, pick);
  } else {
    battle = restore(world.start, random);
  }
  let v;
  for (;;) {
    if (battle.ended || (node.n === 0 && path.length) || path.length >= MAX_DEPTH) {
      v = value(battle, world.rootLead);
      break;
    }
    const picks = [null, null];
    for (let i = 0; i < 2; i++) {
      const options = node === world.root && i === 0 ? world.choices.filter(c => c !== null) : optionsOf(battle.sides[i]);
      if (!options.length) continue;
      const priors = node === world.root && i === 0 ? world.priors : priorsOf(battle, battle.sides[i], options, i === 1 ? o.foe : 'damage');
      picks[i] = choose(node, i, options, priors, o.c);
    }
    if (picks[0] === null && picks[1] === null) {
      v = value(battle, world.rootLead);
      break;
    }
    for (let i = 0; i < 2; i++) {
      if (picks[i] !== null && !battle.choose(battle.sides[i].id, picks[i])) {
        node.sides[i].get(picks[i]).refused = true;  // not chosen again here
        battle.choose(battle.sides[i].id, 'default');
      }
    }
    path.push([node, picks]);
    node = child(node, picks.join('|'));
  }
  node.n++;
  node.w += v;
  let steps = 0;
  for (const [n, picks] of path) {
    if (picks[0] === null || !picks[0].startsWith('start ')) steps++;
    n.n++;
    n.w += v;
    picks.forEach((pick, i) => {
      if (pick === null) return;
      const s = n.sides[i].get(pick);
      s.n++;
      s.w += i === 0 ? v : 1 - v;
    });
  }
  return steps;
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
  const stats = node.sides[i];
  const mean = node.n ? (i === 0 ? node.w / node.n : 1 - node.w / node.n) : 0.5;
  const total = Math.sqrt(Math.max(1, node.n));
  let best = null, bestScore = -Infinity;
  for (const option of options) {
    let s = stats.get(option);
    if (!s) stats.set(option, s = {n: 0, w: 0, p: priors.get(option) || 0, refused: false});
    if (s.refused) continue;
    const score = (s.n ? s.w / s.n : mean) + c * s.p * total / (1 + s.n);
    if (score > bestScore) { bestScore = score; best = option; }
  }
  return best === null ? options[0] : best;
}

/** What a simulated side may choose now: choice strings, none where it waits. */
function optionsOf(side) {
  const req = side.activeRequest;
  if (!req || req.wait || side.isChoiceDone()) return [];
  return Object.values(legalChoices(req));
}

/** A prior over a simulated side's options: 'uniform', or 'damage', each move weighted by how
 * hard it hits the foe's active Pokemon (base power, type effectiveness, same-type bonus),
 * status moves as a middling hit, a gimmick at half its move, switches a little. */
function priorsOf(battle, side, options, kind) {
  const out = new Map();
  if (kind === 'uniform') {
    for (const o of options) out.set(o, 1 / options.length);
    return out;
  }
  const me = side.active[0], foe = side.foe.active[0];
  const moves = side.activeRequest.active ? side.activeRequest.active[0].moves : [];
  let total = 0;
  for (const o of options) {
    let w = 0.3;
    const m = /^move (\d)( \w+)?/.exec(o);
    if (m && me && foe) {
      const move = battle.dex.moves.get(moves[Number(m[1]) - 1].id);
      w = 0.6;
      if (move.category !== 'Status') {
        const immune = !battle.dex.getImmunity(move.type, foe.getTypes());
        w = immune ? 0.05 : 0.25 + (move.basePower || 60) / 100 * 2 ** battle.dex.getEffectiveness(move.type, foe.getTypes()) *
          (me.hasType(move.type) ? 1.5 : 1);
      }
      if (m[2]) w *= 0.5;
    }
    out.set(o, w);
    total += w;
  }
  for (const o of options) out.set(o, out.get(o) / total);
  return out;
}

/** A small seeded generator of numbers in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
