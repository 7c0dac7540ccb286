// The in-process backend: Pokemon Showdown's simulator (@pkmn/sim) running in this same V8
// context, many battles at once. Its messages go straight to the two players' views, so a
// decision never leaves the context: Python sends all chosen actions in one call and gets every
// new observation back in one buffer.
import {Battle as SimBattle, Teams, Dex, PRNG} from '@pkmn/sim';
import {TeamGenerators} from '@pkmn/randoms';
import {PlayerView, BattleInputError, errorRecord} from './view.js';
import {linesFor} from './perspective.js';
import {Output} from './output.js';
import {scriptedAction} from './games/index.js';
import {lookaheadMany} from './lookahead.js';
import {searchMethods} from './search.js';
import {engineStateMethods} from './enginestate.js';
import {thoughtMethods} from './thoughts.js';

Teams.setGeneratorFactory(TeamGenerators);

const SIDES = ['p1', 'p2'];
const MAX_TURNS = 1000;     // a battle still going then is ended as a tie

/** One simulated battle and its two players' views. */
export class Match {
  /** spec: {format, seed: "a,b,c,d", p1team?, p2team? (packed), record?} */
  constructor(id, spec) {
    this.id = id;
    this.outbox = [];
    this.log = null;
    this.streams = spec.record ? {p1: [], p2: []} : null;
    const format = Dex.formats.get(spec.format);
    if (!format.exists) throw new BattleInputError(id, undefined, `unknown format '${spec.format}'`);
    // One seed fixes everything: the battle's randomness and both random teams.
    this.seed = spec.seed || PRNG.generateSeed();
    this.sim = new SimBattle({formatid: format.id, seed: this.seed,
      send: (type, data) => this.outbox.push([type, data])});
    this.views = {p1: new PlayerView(id, 'p1'), p2: new PlayerView(id, 'p2')};
    const seeds = teamSeeds(this.seed);
    SIDES.forEach((side, i) => {
      const team = spec[`${side}team`];
      this.sim.setPlayer(side, {name: side, seed: seeds[i], team: team ? importTeam(id, team) : undefined});
    });
    this.pump();
  }

  get ended() { return this.sim.ended || this.views.p1.ended; }

  /** Routes the simulator's pending messages to the views, then applies held-back requests.
   * When recording, each player's messages of one pump are kept together: a pump ends where
   * the player could be asked to decide. */
  pump() {
    if (!this.sim.ended && this.sim.turn > MAX_TURNS) this.sim.tie();
    this.sim.sendUpdates();  // the log of what just happened, then the new requests
    const seen = {p1: [], p2: []};
    for (const [type, data] of this.outbox) {
      if (type === 'update') {
        const lines = Array.isArray(data) ? data : data.split('\n');
        for (const side of SIDES) seen[side].push(linesFor(lines, side));
      } else if (type === 'sideupdate') {
        const nl = data.indexOf('\n');
        seen[data.slice(0, nl)].push(data.slice(nl + 1).split('\n'));
      } else if (type === 'end') {
        this.log = data;
      }
    }
    this.outbox = [];
    for (const side of SIDES) {
      for (const lines of seen[side]) this.views[side].feed(lines);
      this.views[side].flush();
      if (this.streams && seen[side].length) this.streams[side].push(seen[side].map(l => l.join('\n')));
    }
  }

  /** Refusals over the battle, both sides: 'invalid' or 'unavailable' (see PlayerView). */
  refused(kind) { return this.views.p1[kind] + this.views.p2[kind]; }

  /** Plays action index `action` for `side`; a refused one follows the view's rule (view.js):
   * banned for the request, decided again, the default choice after MAX_REFUSALS. */
  act(side, action) {
    const view = this.views[side];
    if (!view.needsDecision) throw new BattleInputError(this.id, undefined, `${side} has no decision to make`);
    view.lastError = '';
    const choice = view.choose(action);
    view.needsDecision = false;
    if (choice !== null && this.sim.choose(side, choice)) {
      this.pump();
      return;
    }
    view.needsDecision = true;  // decide again, on the updated request if the simulator sent one
    this.pump();                // (the simulator's |error| reaches the view here)
  }

  /** Plays `choice`, a choice string as a saved battle's input log holds it, for `side`:
   * replaying a recorded battle. A choice the simulator refuses is an error (the record does
   * not fit this battle). */
  replay(side, choice) {
    const view = this.views[side];
    if (!view.needsDecision) throw new BattleInputError(this.id, undefined, `${side} has no decision to make`);
    if (typeof choice !== 'string' || !choice) throw new BattleInputError(this.id, undefined, `${side}: a choice is a string, got ${JSON.stringify(choice)}`);
    view.needsDecision = false;
    if (!this.sim.choose(side, choice)) {
      const why = this.sim.getSide(side).choice.error;
      throw new BattleInputError(this.id, undefined, `${side} choice '${choice}' refused by the simulator: ${why}`);
    }
    this.pump();
  }

  /** The battle as Showdown's server saves it: the simulator's end record (winner, seed, teams,
   * input log) plus the spectators' log lines. */
  savedLog() {
    const saved = this.log ? JSON.parse(this.log) : {seed: this.seed, inputLog: this.sim.inputLog};
    saved.format = this.sim.format.id;
    saved.log = linesFor(this.sim.log, 'spectator');
    if (this.failed) saved.error = this.failed;
    return JSON.stringify(saved);
  }

  winner() {
    const w = this.sim.winner;
    return w === 'p1' || w === 'p2' ? w : '';
  }
}

/** The seeds of the two players' random teams, drawn from the battle's seed. */
export function teamSeeds(seed) {
  const prng = new PRNG(seed);
  return SIDES.map(() => [0, 0, 0, 0].map(() => prng.random(65536)).join(','));
}

/** A team in Showdown's export format or packed format, as sets. */
export function importTeam(id, team) {
  const sets = team.includes('\n') || !team.includes('|') ? Teams.import(team) : Teams.unpack(team);
  if (!sets || !sets.length) throw new BattleInputError(id, undefined, 'team is neither an exported nor a packed team');
  return sets;
}

/** Many matches, stepped together. */
export class Simulator {
  constructor(contract) {
    this.contract = contract;
    this.matches = new Map();
    this.output = new Output(contract);
  }

  /** Starts battles: specs are {id, format, seed, p1team?, p2team?, record?, keepLog?,
   * privileged?}. A privileged battle adds to each decision the opponent's own record (its
   * true team, as only self-play can know it), for training critics; its row is `priv`. */
  start(specs) {
    return this.step([], specs);
  }

  add(spec, errors) {
    try {
      if (this.matches.has(spec.id)) throw new BattleInputError(spec.id, undefined, 'battle id already in use');
      const match = new Match(spec.id, spec);
      match.keepLog = !!spec.keepLog;
      match.privileged = !!spec.privileged;
      this.matches.set(spec.id, match);
      return match;
    } catch (e) {
      errors.push(errorRecord(spec.id, null, e));
      return null;
    }
  }

  /** Plays [battle id, side, action] triples and starts `specs` (as start() does), then returns
   * every decision now waiting: one call per step of the whole batch. */
  step(actions, specs = []) {
    return this.advance(actions, specs, (match, side, action) => match.act(side, action));
  }

  /** As step(), with recorded choice strings [battle id, side, choice] in place of action
   * indices: a saved battle replayed (Match.replay). */
  replay(choices, specs = []) {
    return this.advance(choices, specs, (match, side, choice) => match.replay(side, choice));
  }

  advance(moves, specs, play) {
    const errors = [];
    const touched = new Set();
    for (const [id, side, move] of moves) {
      const match = this.matches.get(id);
      try {
        if (!match) throw new BattleInputError(id, undefined, 'no such battle running');
        if (!SIDES.includes(side)) throw new BattleInputError(id, undefined, `unknown side '${side}'`);
        play(match, side, move);
      } catch (e) {
        errors.push(errorRecord(id, side, e));
        // A broken match is ended so that it never stalls the others.
        if (match && !match.failed) match.failed = e.message;
      }
      if (match) touched.add(match);
    }
    for (const spec of specs) {
      const match = this.add(spec, errors);
      if (match) touched.add(match);
    }
    return this.collect([...touched], errors);
  }

  collect(matches, errors) {
    this.output.begin();
    const decisions = [];
    const ended = [];
    for (const match of matches) {
      if (match.ended || match.failed) {
        ended.push(this.finish(match));
        continue;
      }
      // In a privileged battle where both players decide, each one's record is also the other's
      // `priv`: each view is encoded once and its row shared.
      const rows = {p1: -1, p2: -1};
      const rowOf = side => rows[side] >= 0 ? rows[side] : (rows[side] = this.output.add(match.views[side]));
      for (const side of SIDES) {
        const view = match.views[side];
        if (!view.needsDecision) continue;
        try {
          const row = rowOf(side);
          const decision = {battle: match.id, side, row, turn: view.battle.turn};
          if (match.privileged) decision.priv = rowOf(side === 'p1' ? 'p2' : 'p1');
          decisions.push(decision);
        } catch (e) {
          errors.push(errorRecord(match.id, side, e));
          match.failed = e.message;
        }
      }
      if (match.failed) ended.push(this.finish(match));
    }
    return {decisions, ended, errors, generation: this.output.generation};
  }

  finish(match) {
    this.matches.delete(match.id);
    const result = {battle: match.id, seed: match.seed, winner: match.failed ? null : match.winner(), turns: match.sim.turn,
      invalid: match.refused('invalid'), unavailable: match.refused('unavailable'), error: match.failed || null};
    if (match.keepLog) result.log = match.savedLog();
    if (match.streams) result.streams = match.streams;
    return result;
  }

  /** Actions of scripted player `name` (games/index.js) for [battle id, side] pairs. */
  scripted(name, keys) {
    return keys.map(([id, side]) => scriptedAction(name, this.view(id, side)));
  }

  /** Lookahead values of candidate actions for [battle id, side] pairs (see
   * lookahead.js). */
  lookahead(keys, candidates, playOn, samples) {
    return lookaheadMany(keys.map(([id, side]) => () => this.view(id, side)), candidates, playOn, samples);
  }

  view(id, side) {
    return this.match(id).views[side];
  }

  /** The battle as the simulator plays it, every set known (engineWorlds' `told`, a diagnostic). */
  trueBattle(id) {
    return this.match(id).sim;
  }

  match(id) {
    const match = this.matches.get(id);
    if (!match) throw new BattleInputError(id, undefined, 'no such battle running');
    return match;
  }

  /** Abandons battles (e.g. on shutdown); returns how many were running. */
  abort(ids) {
    let n = 0;
    for (const id of ids || [...this.matches.keys()]) n += this.matches.delete(id) ? 1 : 0;
    return n;
  }
}

Object.assign(Simulator.prototype, searchMethods, engineStateMethods, thoughtMethods);
