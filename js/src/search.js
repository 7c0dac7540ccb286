// Search at decision time: Monte Carlo tree search in which both sides choose at once
// (decoupled PUCT: at each node each side picks by its own statistics and prior, and the joint
// choice is played), over several worlds drawn from what the player cannot see (the foe's sets
// drawn among the possible ones, its unseen Pokemon drawn from the format's generator:
// rebuild.js). The tree is open-loop: a node is a sequence of joint choices from the root, each
// visit restores the root and replays them with fresh chances (damage rolls, accuracy, critical
// hits, secondary effects), so chance is sampled along the way. A new node is valued where it is
// reached, or after `playOn` turns of both sides' hardest hits (greedy.js; no random rollouts):
// by material or worth (evaluation.js), by the network's value of the position as the player would see
// it, or a blend (`net`: a share of each; `odds`: the network's change in win log-odds since the
// root, times `odds`, added to material's log-odds, the root valued by the network first). Where
// the network values a node reached without turns played on it also gives our prior there (in
// singles: below the doubles root our options are hardest-hit pairs);
// elsewhere, and for the foe, a prior from how hard each move hits -- or, with foe 'network', at
// each world's root the network's policy from the foe's seat: the position as the foe would see
// it there (its own team as the world drew it, our side as the battle showed it), so that the
// foe is expected to play as a trained player would (in singles; the doubles foe chooses among
// hardest-hit pairs, which the policy does not name one by one). With foe 'heuristic' or
// 'maxdamage', the foe's prior at each world's root leans on that scripted player's choice from
// the foe's seat (SCRIPTED_SHARE of it; the rest by damage, so the other replies are still tried;
// in doubles the choice joins the foe's hardest-hit pairs there).
// What differs between singles and doubles (the rebuilt battle, our root choices, each side's
// options below the root) is a game's: SINGLES below, DOUBLES in doublessearch.js.
//
// Our choice at the root is searched either like every other (PUCT), or by sequential halving
// (`halve`, rootchoice.js): the budget split into rounds, each visiting every remaining
// candidate alike, the better half by log p + weight * value kept after each.
// With `paired`, each cycle of a round visits every candidate in the same world from the same
// chances (common random numbers), so that candidates are compared on the same ground; without
// it the world goes by the visit's number, and with an even number of candidates and two
// worlds each candidate is only ever visited in one of them.
// With `worst` above 0, a root candidate's value is its mean over the visits less that share of
// its distance to its worst reply: the foe's reply at the root (a world's) after which its mean
// was lowest, over replies visited at least WORST_VISITS times. The foe picks by statistics
// shared by all our candidates, so a reply that punishes one plan alone is diluted in its mean.
// With `steady`, every damage roll inside the search is the mean roll and no hit is critical
// (accuracy and secondary effects stay drawn): a visit's value then varies less with luck, so
// the few visits a candidate gets measure its plan rather than its rolls.
//
// The network runs in Python: a SearchBatch runs its searches until each has `batch` leaves
// waiting, encodes them (a copy of the player's view fed what the simulated turns showed), and
// waits for their values; virtual visits keep the waiting leaves' paths from being chosen again
// meanwhile.
import {Battle as SimBattle, PRNG} from '@pkmn/sim';
import {Protocol} from '@pkmn/protocol';
import {GIMMICKS} from './actions.js';
import {legalChoices} from './actiontable.js';
import {rebuild, ourChoice} from './rebuild.js';
import {DOUBLES} from './doublessearch.js';
import {value, lead, scoring} from './evaluation.js';
import {bestAction, valueScores, Halving} from './rootchoice.js';
import {linesFor} from './perspective.js';
import {playOnce} from './greedy.js';
import {Output} from './output.js';
import {PlayerView} from './view.js';
import {scriptedAction} from './policies.js';

const G = GIMMICKS.length;
const SILENT = () => {};
const MAX_DEPTH = 12;         // joint choices along one visit (a forced switch is one)

// nodes: visits; ms: a time limit (0: none); worlds: drawn worlds; c: exploration; foe: the
// foe's prior; net: the network's share of a leaf's value (0: material alone); batch: leaves a
// search hands the network at once; weight: how the action is chosen (bestAction); halve: our
// root choices searched by sequential halving over this many of the likeliest (0: by PUCT);
// playOn: turns of hardest hits past a new position; paired: halving's cycles each in one world
// from one draw of chance; steady: mean damage rolls and no critical hits (above); score: how a
// leaf is scored, 'material' or 'worth', and boost its weight a stage (null: the scoring's own;
// evaluation.js); odds: the network's change in log-odds added to material's, times this (0:
// none; see the top of this file). (metapvp/players/search.py passes its own, the same.)
export const DEFAULTS = {nodes: 64, ms: 0, worlds: 2, c: 1.5, seed: 0, foe: 'damage', net: 0, odds: 0, batch: 8,
  weight: 16, halve: 4, playOn: 1, paired: false, steady: false, score: 'material', boost: null, worst: 0};
const WORST_VISITS = 2;  // a reply's mean from fewer visits is too much luck to count as the worst
const SCRIPTED_SHARE = 0.5;  // of the foe's root prior on a scripted player's choice (foe 'heuristic', 'maxdamage')

/** The searches of one player's decisions, stepped together (see the top of this file).
 * `views`: functions giving each decision's view; `actions`, `priors`: per decision, our
 * candidate action indices and the policy's probabilities for them; `seeds`: one per decision.
 * A decision whose search fails gets {error} and never stops the others. */
export class SearchBatch {
  constructor(views, actions, priors, seeds, options) {
    this.jobs = views.map((viewOf, i) => {
      try {
        return new Search(viewOf(), actions[i], priors[i], {...options, seed: seeds[i]});
      } catch (e) {
        return {error: e.message};
      }
    });
    this.waiting = [];  // [job, leaf] in the order of the last encoded rows
  }

  /** Gives the network's win probabilities (and our action probabilities, NUM_ACTIONS each) for
   * the leaves encoded last, runs every search on, and encodes the leaves now waiting as rows of
   * `output`; returns how many (0: every search is done). */
  step(values, probs, output) {
    this.waiting.forEach(([job, leaf], k) => guarded(job, () => job.give(leaf, values[k], probs[k])));
    this.waiting = [];
    output.begin();
    for (const job of this.jobs) {
      if (!(job instanceof Search)) continue;
      guarded(job, () => job.run());
      for (const leaf of job.pending) {
        guarded(job, () => {
          output.add(job.leafView(leaf));
          this.waiting.push([job, leaf]);
        });
      }
    }
    // a search that failed while its leaves were being encoded drops them all
    this.waiting = this.waiting.filter(([job]) => !job.error);
    return this.waiting.length;
  }

  results() {
    return this.jobs.map(job => (job instanceof Search && !job.error ? job.result() : {error: job.error}));
  }
}

/** The search methods of an object that has views (view(battle, perspective)) and a contract:
 * the Engine (live play, stdio) and the in-process Simulator. */
export const searchMethods = {
  /** Starts the searches of [battle, perspective] pairs' decisions (SearchBatch); then as
   * searchStep. */
  searchStart(keys, actions, priors, seeds, options) {
    this.searching = new SearchBatch(keys.map(([battle, perspective]) => () => this.view(battle, perspective)),
      actions, priors, seeds, options);
    return this.searchStep([], []);
  },
  /** The network's answers for the last leaves; {leaves: rows of leaves now encoded, 0 when all
   * searches are done, generation: the output buffer's}. */
  searchStep(values, probs) {
    if (!this.searching) throw new Error('no search under way (searchStart first)');
    // leaves go to a buffer of their own: the rows of the step being decided stay as they are
    if (!this.searchOutput) this.searchOutput = new Output(this.contract);
    return {leaves: this.searching.step(values, probs, this.searchOutput), generation: this.searchOutput.generation};
  },
  /** Per decision: {visits, values, nodes, worlds, steps, played_on, ms} (Search.result), null
   * where there was nothing to search, or {error}. */
  searchResults() {
    if (!this.searching) throw new Error('no search under way (searchStart first)');
    const out = this.searching.results();
    this.searching = null;
    return out;
  },
};

function guarded(job, f) {
  if (job.error) return;
  try {
    f();
  } catch (e) {
    job.error = e.message;
  }
}

/** One decision's search with material leaves, run to its budget at once (no network). */
export function search(view, actions, prior, options = {}) {
  const job = new Search(view, actions, prior, {...options, net: 0, odds: 0});
  job.run();
  return job.result();
}

class Search {
  constructor(view, actions, prior, options) {
    const o = this.o = {...DEFAULTS, ...options};
    if (!(o.nodes > 0) && !(o.ms > 0)) throw new Error('search needs a budget: nodes or ms');
    const game = this.game = GAMES[view.battle.gameType];
    if (!game) throw new Error(`the search plays singles and doubles battles, not ${view.battle.gameType}`);
    if (!(o.net >= 0 && o.net <= 1)) throw new Error(`search: net is a share in [0, 1], not ${o.net}`);
    if (!(o.odds >= 0 && o.odds <= 100)) throw new Error(`search: odds is a weight in [0, 100], not ${o.odds}`);
    if (o.net > 0 && o.odds > 0) throw new Error('search: leaves are valued by a share (net) or by odds, not both');
    if (!(o.worst >= 0 && o.worst <= 1)) throw new Error(`search: worst is a share in [0, 1], not ${o.worst}`);
    if (!FOE_PRIORS.includes(o.foe)) throw new Error(`search: the foe's prior is one of ${FOE_PRIORS.join(', ')}, not ${o.foe}`);
    this.networked = o.net > 0 || o.odds > 0;  // leaves valued by the network
    const weights = scoring(o.score, o.boost);  // a bad scoring fails here, named, whatever the decision
    this.view = view;
    this.actions = actions;
    this.prior = prior;
    this.started = Date.now();
    this.random = mulberry32(o.seed);
    this.nodes = this.steps = this.playedOn = 0;
    this.pending = [];
    this.error = null;
    this.worlds = [];
    const req = view.request;
    this.nothing = !req || !req.side || req.teamPreview || req.wait || !(req.active || req.forceSwitch) ||
      !game.faces(view);
    if (this.nothing) return;
    for (let w = 0; w < o.worlds; w++) {
      const world = makeWorld(game, view, actions, prior, mulberry32(o.seed * 7919 + w + 1), weights);
      if (world) this.worlds.push(world);
    }
    this.nothing = !this.worlds.length;
    if (!this.nothing && o.odds > 0) this.pending.push({root: true});  // the root's own win estimate, valued first
    if (!this.nothing && o.foe === 'network' && game.foeSeat) {  // the foe's prior at each world's root, asked first
      for (const world of this.worlds) if (world.foeRequest) this.pending.push({foeRoot: world});
    }
    if (!this.nothing && SCRIPTED_FOES.includes(o.foe)) {
      for (const world of this.worlds) if (world.foeRequest) [world.foePrior, world.foePick] = scriptedFoePrior(game, view, world, o.foe);
    }
    if (this.nothing || !(o.halve > 1)) return;
    if (!(o.weight > 0)) throw new Error('search: halving needs a weight');
    const searchable = actions.map((a, k) => k).filter(k => this.worlds.some(w => w.choices[k] !== null));
    this.halving = new Halving(searchable, prior, o.halve, {nodes: o.nodes, ms: o.ms, started: this.started});
  }

  budgetLeft() {
    const o = this.o;
    return !this.nothing && (!this.halving || !this.halving.done) && (!(o.nodes > 0) || this.nodes < o.nodes) &&
      (!(o.ms > 0) || Date.now() - this.started < o.ms);
  }

  /** Visits until `batch` leaves wait for the network, or the budget is spent. */
  run() {
    const o = this.o;
    if (this.pending.some(leaf => leaf.foeRoot)) return;  // no visit before the foe's priors are known
    while (this.budgetLeft() && this.pending.length < (this.networked ? o.batch : 1)) {
      let world = this.worlds[this.nodes % this.worlds.length], forced = null, random = this.random;
      if (this.halving) {
        // a round ends on every value known: the waiting leaves are valued first
        const k = this.halving.next(() => this.scores(), this.pending.length);
        if (k === null) break;
        const able = this.worlds.filter(w => w.choices[k] !== null);
        world = able[(o.paired ? this.halving.cycle : this.nodes) % able.length];
        forced = world.choices[k];
        if (o.paired) random = this.cycleRandom();
      }
      const leaf = visit(this.game, world, o, random, forced);
      this.nodes++;
      this.steps += leaf.steps;
      this.playedOn += leaf.playedOn;
      if (this.networked && !leaf.battle.ended) {
        addVisit(leaf, 0, true);  // virtual: counted, valued when the network answers
        this.pending.push(leaf);
      } else {
        addVisit(leaf, leaf.material, false);
      }
    }
  }

  /** The chances of a visit in halving's current cycle: the same draw for every candidate in it. */
  cycleRandom() {
    if (this.drawnCycle !== this.halving.cycle) {
      this.drawnCycle = this.halving.cycle;
      this.cycleState = Math.floor(this.random() * 2 ** 32);
    }
    return mulberry32(this.cycleState);
  }

  /** The network's answer for a waiting leaf: its win probability for us, our action
   * probabilities there (the prior of our choices at that node). */
  give(leaf, win, probs) {
    this.pending.splice(this.pending.indexOf(leaf), 1);
    if (leaf.foeRoot) {
      const prior = this.game.networkPrior(leaf.request, probs);
      if ([...prior.values()].some(p => p > 0)) leaf.foeRoot.foePrior = prior;  // else the damage prior stays
      return;
    }
    if (leaf.root) {
      this.rootOdds = logit(win);
      return;
    }
    const v = this.o.odds > 0 ? sigmoid(logit(leaf.material) + this.o.odds * (logit(win) - this.rootOdds))
      : (1 - this.o.net) * leaf.material + this.o.net * win;
    addValue(leaf, v);
    // the network's probabilities are our prior at the leaf's node unless turns were played on
    if (probs && leaf.request && !leaf.playedOn && leaf.node.ourPrior === undefined) {
      leaf.node.ourPrior = this.game.networkPrior(leaf.request, probs);
    }
  }

  leafView(leaf) {
    if (leaf.root) return this.view;
    if (leaf.foeRoot) {
      leaf.request = leaf.foeRoot.foeRequest;
      return foeView(this.view, leaf.request);
    }
    const {view, request} = leafView(this.view, leaf.battle, leaf.world.logStart, leaf.world.me);
    leaf.request = request;
    return view;
  }

  /** Our root choices' visits and values (null: never visited), over every world: the mean, or
   * with `worst` the mean moved that share of the way to the worst reply's (see the top). */
  rootStats() {
    const visits = this.actions.map(() => 0), sums = this.actions.map(() => 0);
    const worst = this.actions.map(() => Infinity);
    for (const world of this.worlds) {
      world.choices.forEach((choice, k) => {
        const s = choice === null ? null : world.root.sides[0].get(choice);
        if (!s) return;
        visits[k] += s.n;
        sums[k] += s.w;
        if (this.o.worst > 0) worst[k] = Math.min(worst[k], worstReply(world.root, choice));
      });
    }
    const values = visits.map((n, k) => {
      if (!n) return null;
      const mean = sums[k] / n;
      return worst[k] < mean ? mean - this.o.worst * (mean - worst[k]) : mean;
    });
    return {visits, values};
  }

  scores({visits, values} = this.rootStats()) {
    return valueScores(visits, values, this.prior, this.o.weight);
  }

  /** {best: the index of the action to play (in `actions`), visits, values, world_visits (per
   * world, each action's visits there), nodes, worlds,
   * steps (turns simulated), played_on (of them, turns played past leaves), ms, foe_visits (per
   * world, the foe's choices at the root and their visits), foe_picks (per world, the scripted
   * player's choice the foe's prior leans on, or null)}; null where
   * there was nothing to search. */
  result() {
    if (this.nothing) return null;
    const stats = this.rootStats(), {visits, values} = stats;
    const best = this.halving ? this.halving.best(this.scores(stats)) : bestAction(visits, values, this.prior, this.o.weight);
    const worldVisits = this.worlds.map(w => w.choices.map(c => (c === null ? 0 : (w.root.sides[0].get(c) || {n: 0}).n)));
    const foeVisits = this.worlds.map(w => Object.fromEntries([...w.root.sides[1]].map(([c, s]) => [c, s.n])));
    return {best, visits, values, world_visits: worldVisits, foe_visits: foeVisits,
      foe_picks: this.worlds.map(w => w.foePick || null), nodes: this.nodes, worlds: this.worlds.length, steps: this.steps,
      played_on: this.playedOn, ms: Date.now() - this.started};
  }
}

/** The player's view of a simulated position: a copy of the real `view` fed what the simulated
 * turns (the battle's log from `logStart`) showed this player, then our side's (`me`)
 * request there (see leafRequest); {view, request}. */
export function leafView(root, battle, logStart, me) {
  const view = root.fork();
  view.feed(linesFor(battle.log.slice(logStart), view.perspective));
  const request = leafRequest(root.request, battle.sides[me].activeRequest);
  if (request) {
    view.pending = request;
    view.flush();
  }
  return {view, request};
}

/** The position as the foe would see it: a fresh client from the foe's seat fed the lines our
 * view `root` was shown (our copy of them: our Pokemon's HP exact where the foe's shows a rounded
 * share), then `request`, the foe's request as the simulator wrote it (in a drawn world, its
 * Pokemon fainted before the root, left out there, stay as the lines left them). */
export function foeView(root, request) {
  const view = new PlayerView(root.key, request.side.id);
  view.feed(root.history.filter(item => typeof item === 'string'));
  view.pending = Protocol.parseRequest(JSON.stringify(request));
  view.flush();
  return view;
}

/** Our request at a leaf, as the real battle would send it: the simulator's, under our real
 * side's name, with the Pokemon fainted before the root that the rebuilt battle left out after
 * the rest. null where none. */
function leafRequest(root, sim) {
  if (!sim || !sim.side) return null;
  const idents = new Set(sim.side.pokemon.map(r => r.ident));
  const missing = root.side.pokemon.filter(r => (r.fainted || !r.hp) && !idents.has(r.ident));
  const req = {...sim, rqid: (root.rqid || 0) + 1,
    side: {...sim.side, name: root.side.name, id: root.side.id, pokemon: [...sim.side.pokemon, ...missing.map(raw)]}};
  return Protocol.parseRequest(JSON.stringify(req));
}

// A parsed request row back as the simulator writes it (parseRequest adds derived fields).
const raw = r => ({ident: r.ident, details: r.details, condition: r.condition, active: false, stats: r.stats,
  moves: r.moves, baseAbility: r.baseAbility, item: r.item, pokeball: r.pokeball, ability: r.ability,
  commanding: r.commanding, reviving: r.reviving, teraType: r.teraType, terastallized: r.terastallized});

/** One drawn world: the rebuilt battle(s), serialised once and restored at every visit, and its
 * tree. At a forced switch each action's Pokemon that could come in have their own start and
 * the root is ours alone. `choices[k]`: action k's choice at the root. */
function makeWorld(game, view, actions, prior, random, weights) {
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
    return {root, starts, choices, priors, me: first.me, weights, rootLead: lead(first.battle, first.me, weights),
      logStart: first.battle.log.length};
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
  const foe = start.battle.sides[1 - start.me].activeRequest;  // the foe's request, for its prior (foe 'network')
  return {root, foePrior: null, foeRequest: foe && foe.side ? foe : null, start: JSON.stringify(start.battle.toJSON()), choices, priors, me: start.me, weights,
    rootLead: lead(start.battle, start.me, weights), logStart: start.battle.log.length};
}

/** Our lowest mean value after root choice `choice` over the foe's replies at `root` visited at
 * least WORST_VISITS times (Infinity: none). A child's key is the joint choice, ours first. */
function worstReply(root, choice) {
  let worst = Infinity;
  for (const [key, node] of root.children) {
    if (node.n >= WORST_VISITS && key.startsWith(`${choice}|`)) worst = Math.min(worst, node.w / node.n);
  }
  return worst;
}

function newNode() {
  return {n: 0, w: 0, sides: [new Map(), new Map()], children: new Map(), ourPrior: undefined};
}

/** One visit: from the root down the tree, both sides picking (side 0 is us, 1 the foe; our
 * root choice `forced` where given), to a new node or the battle's end, then `o.playOn` turns of
 * hardest hits to value it. Returns the leaf: {world, path, node, battle, material (our value by
 * material), steps (turns simulated), playedOn}. */
function visit(game, world, o, random, forced = null) {
  const path = [];
  let node = world.root, battle;
  if (world.starts) {
    const pick = forced ? take(node, 0, forced, world.priors) : choose(node, 0, [...world.starts.keys()], world.priors, o.c);
    battle = restore(world.starts.get(pick), random, o.steady);
    path.push([node, [pick, null]]);
    node = child(node, pick);
  } else {
    battle = restore(world.start, random, o.steady);
  }
  let steps = 0;
  const sideOf = i => battle.sides[i ^ world.me];
  for (;;) {
    if (battle.ended || (node.n === 0 && path.length) || path.length >= MAX_DEPTH) break;
    const picks = [null, null];
    for (let i = 0; i < 2; i++) {
      const atRoot = node === world.root && i === 0;
      const foeRoot = node === world.root && i === 1 && world.foePrior;  // its options are its prior's
      const options = atRoot ? world.choices.filter(c => c !== null) : foeRoot ? [...world.foePrior.keys()] :
        game.options(battle, sideOf(i));
      if (!options.length) continue;
      const priors = atRoot ? world.priors : i === 0 && node.ourPrior ? node.ourPrior : foeRoot ? world.foePrior :
        game.priors(battle, sideOf(i), options, i === 1 && o.foe === 'uniform' ? 'uniform' : 'damage');
      picks[i] = atRoot && forced ? take(node, i, forced, priors) : choose(node, i, options, priors, o.c);
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
  for (; playedOn < o.playOn && !battle.ended && path.length; playedOn++) playOnce(battle);
  return {world, path, node, battle, material: value(battle, world.rootLead, world.me, world.weights), steps: steps + playedOn,
    playedOn};
}

/** Counts a visit along a leaf's path with value `v` (ours; the foe's is 1 - v); a virtual one
 * counts the visit now and its value when addValue gives it. */
function addVisit(leaf, v, virtual) {
  for (const [n, picks] of [...leaf.path, [leaf.node, [null, null]]]) {
    n.n++;
    if (!virtual) n.w += v;
    picks.forEach((pick, i) => {
      if (pick === null) return;
      const s = n.sides[i].get(pick);
      s.n++;
      if (!virtual) s.w += i === 0 ? v : 1 - v;
    });
  }
}

function addValue(leaf, v) {
  for (const [n, picks] of [...leaf.path, [leaf.node, [null, null]]]) {
    n.w += v;
    picks.forEach((pick, i) => {
      if (pick !== null) n.sides[i].get(pick).w += i === 0 ? v : 1 - v;
    });
  }
}

function restore(state, random, steady = false) {
  const battle = SimBattle.fromJSON(state);
  battle.send = SILENT;
  battle.prng = new PRNG([1 + Math.floor(random() * 0xffff), Math.floor(random() * 0xffff),
    Math.floor(random() * 0xffff), Math.floor(random() * 0xffff)]);
  if (steady) steadyChance(battle);
  return battle;
}

/** Damage rolls at their mean (the simulator draws 85 to 100 percent) and no critical hits in
 * `battle`: a crit is vetoed as Battle Armor vetoes it, through the CriticalHit event. */
export function steadyChance(battle) {
  const tr = battle.trunc;
  battle.randomizer = damage => tr(tr(damage * 92.5) / 100);
  battle.onEvent('CriticalHit', battle.format, () => false);
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

/** What singles needs to know (doublessearch.js has doubles'): whether a foe stands to be faced,
 * the rebuilt battle (the foe's sets drawn), at a forced switch the battle with the Pokemon
 * brought in leading, our actions as choices there, each side's options at a node and a prior
 * over them. */
const SINGLES = {
  foeSeat: true,  // the network may give the foe's prior at the root (foe 'network')
  faces: view => !!view.foe.active[0] && !view.foe.active[0].fainted,
  start: (view, random) => rebuild(view, -1, random),
  switchIn(view, a, random) {
    const j = Math.floor(a / G) - 4;
    const r = view.request.side.pokemon[j];
    return j >= 0 && r && !r.fainted && r.hp ? rebuild(view, j, random) : null;
  },
  choice: (req, a, start) => ourChoice(req, a, start.slots),
  options: (battle, side) => optionsOf(side),
  priors: priorsOf,
  /** Action index a of the foe's `request` as its choice (undefined where it is not legal). */
  foeChoice: (request, a) => legalChoices(request)[a],
  /** The network's action probabilities `probs` as a prior over our legal choices at `request`. */
  networkPrior(request, probs) {
    const legal = legalChoices(request);
    let total = 0;
    for (const a of Object.keys(legal)) total += probs[a] || 0;
    return new Map(Object.entries(legal).map(([a, c]) => [c, total > 0 ? (probs[a] || 0) / total : 0]));
  },
};
const GAMES = {singles: SINGLES, doubles: DOUBLES};
const SCRIPTED_FOES = ['heuristic', 'maxdamage'];
const FOE_PRIORS = ['damage', 'uniform', 'network', ...SCRIPTED_FOES];

/** The foe's prior at `world`'s root leaning on scripted player `name`'s choice there, from the
 * foe's seat (foeView): SCRIPTED_SHARE on that choice, the rest by damage over the foe's options
 * there (the choice added to them where they lack it: in doubles, where they are hardest-hit
 * pairs); [prior, the choice or null]. */
function scriptedFoePrior(game, view, world, name) {
  const battle = restore(world.start, mulberry32(0));
  const side = battle.sides[1 - world.me];
  const prior = game.priors(battle, side, game.options(battle, side), 'damage');
  const pick = game.foeChoice(world.foeRequest, scriptedAction(name, foeView(view, world.foeRequest)));
  if (!pick) return [prior, null];  // a choice the simulator would not take here: by damage alone
  if (!prior.has(pick)) prior.set(pick, 0);
  for (const [o, p] of prior) prior.set(o, (1 - SCRIPTED_SHARE) * p + (o === pick ? SCRIPTED_SHARE : 0));
  return [prior, pick];
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

const EDGE = 1e-4;  // a certainty's log-odds are held at those of 1 - EDGE
const logit = p => { const q = Math.min(1 - EDGE, Math.max(EDGE, p)); return Math.log(q / (1 - q)); };
const sigmoid = x => 1 / (1 + Math.exp(-x));

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
