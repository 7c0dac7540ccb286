// One player's (or a spectator's) view of one battle: an @pkmn/client Battle fed protocol lines,
// plus the latest |request|. A request is held back until the caller has fed everything that
// arrived with it and calls flush(): servers have sent a turn's request both before its log
// (older versions) and after it (the simulator pinned here), so only the caller knows when the
// log is complete.
import {Battle} from '@pkmn/client';
import {Protocol} from '@pkmn/protocol';
import {Generations} from '@pkmn/data';
import {Dex} from '@pkmn/dex';
import {actionTable} from './actiontable.js';
import {PlayEvidence} from './knowledge/evidence.js';
import {toID} from './contract.js';

// Random battles use formes the default filter hides (Past, Gigantamax...), so keep all that exist.
export const GENS = new Generations(Dex, d => !!d.exists);

export class BattleInputError extends Error {
  constructor(battle, line, message) {
    super(`battle ${battle}: ${message}${line === undefined ? '' : ` (line: ${JSON.stringify(clip(line))})`}`);
    this.battle = battle;
    this.line = line;
    this.detail = message;
  }
}

// One rule for refused choices, wherever the battle runs (the in-process simulator, a stdio
// simulator, a server): a refused action is banned for the rest of its request (the mask leaves
// it out) and the player decides again; after MAX_REFUSALS refusals of one request, the
// simulator's default choice is sent. "Too late" (a choice for a turn that has moved on) is not
// a refusal: that turn's choice was made. An unavailable choice (one refused for what the
// request did not show, such as an unrevealed trapping ability) is followed by an updated
// request that shows it: the player decides on that one, not before it arrives (a choice sent
// in between is answered "too late").
export const MAX_REFUSALS = 4;
const REFUSED = /^\[(Invalid|Unavailable) choice\]/;
const TOO_LATE = 'too late to make a different move';

function clip(s) { return s.length > 300 ? s.slice(0, 300) + '...' : s; }

export class PlayerView {
  /** @param key battle id; @param perspective 'p1', 'p2' or 'spectator' */
  constructor(key, perspective) {
    if (!['p1', 'p2', 'spectator'].includes(perspective)) {
      throw new BattleInputError(key, undefined, `unknown perspective '${perspective}'`);
    }
    this.key = key;
    this.perspective = perspective;
    this.battle = new Battle(GENS, perspective === 'spectator' ? null : perspective);
    this.request = null;        // the request the current state answers to
    this.pending = null;        // a request that arrived before its turn's log
    this.needsDecision = false;
    this.ended = false;
    this.winner = null;         // a player's name, '' for a tie
    this.lastError = '';        // the last |error| line, e.g. an invalid choice
    this.lastAction = null;     // the action index of the last choice made (see choose)
    this.banned = new Set();    // actions refused for the current request
    this.refusals = 0;          // refusals of the current request
    this.invalid = 0;           // refusals over the battle: invalid choices...
    this.unavailable = 0;       // ...and choices refused for what the player could not see
    this.history = [];          // what the client was given, in order: lines and requests (fork)
    this.evidence = new PlayEvidence();  // what the foe's play showed of its hidden sets
  }

  /** A copy of this view made by giving a fresh client the same lines and requests: the search
   * feeds a copy what a simulated turn shows (search.js). */
  fork() {
    const copy = new PlayerView(this.key, this.perspective);
    for (const item of this.history) {
      if (typeof item === 'string') copy.battle.add(item);
      else applyRequest(copy.battle, item);
    }
    copy.history = this.history.slice();
    copy.evidence = this.evidence.copy();
    copy.request = this.request;
    copy.needsDecision = this.needsDecision;
    copy.ended = this.ended;
    copy.winner = this.winner;
    return copy;
  }

  /** Whether side `id` ('p1', 'p2') has Terastallized this battle: the client forgets it when
   * the Pokemon that did faints, the battle's lines do not. */
  terastallizedOnce(id) {
    const mark = `|-terastallize|${id}`;
    return this.history.some(item => typeof item === 'string' && item.startsWith(mark));
  }

  /** Toxic poison's stage of the Pokemon `ident` names ('p1a: Mienshao'): the ends of turn it
   * has been through badly poisoned since it came in or was badly poisoned (the simulator counts
   * one at every end of turn, whether its poison hurts it, heals it with Poison Heal or is stopped
   * by Magic Guard; a Toxic Orb's poison begins after that turn's count). At most 15. */
  toxicStage(ident) {
    let stage = 0, skip = false;
    for (const item of this.history) {
      if (typeof item !== 'string') continue;
      if (item.startsWith(`|switch|${ident}|`) || item.startsWith(`|drag|${ident}|`) ||
          item.startsWith(`|-status|${ident}|tox`)) {
        stage = 0;
        skip = item.includes('[from] item: Toxic Orb');
      } else if (item === '|upkeep') {
        if (skip) skip = false;
        else stage = Math.min(15, stage + 1);
      }
    }
    return stage;
  }

  /** The PP the Pokemon `ident` names ('p2: Jirachi', without its position) has spent on each of
   * its moves, counted from the battle's lines: {move id: PP}, one a use (none for a move another
   * called or a lock's later turns) and one more where the target's ability is Pressure
   * (`pressure(ident)`: whether the Pokemon that ident names has it). The client's own count
   * leaves Pressure out where it has not seen the ability, and keeps a move twice after a
   * request. */
  ppSpent(ident, pressure) {
    const bare = ident.replace(/^(p[1-4])[a-z]?:/, '$1:');
    const side = bare.slice(0, 2);
    const spent = {};
    let foeIn = null;  // the foe's active: Pressure's holder for a move on the whole field
    for (const item of this.history) {
      if (typeof item !== 'string') continue;
      const [, kind, who, move, target, ...tags] = item.split('|');
      if (SWITCHES.test(item) && who.slice(0, 2) !== side) foeIn = who;
      if (kind !== 'move' || who.replace(/^(p[1-4])[a-z]?:/, '$1:') !== bare || tags.some(t => t.startsWith('[from]'))) continue;
      const id = toID(move);
      const on = pressureTarget(Dex.moves.get(id), target && target.slice(0, 2) !== side ? target : null, foeIn);
      spent[id] = (spent[id] || 0) + 1 + (on && pressure(on) ? 1 : 0);
    }
    return spent;
  }

  /** The turns the volatile `name` ('Taunt', 'ability: Slow Start') of the Pokemon `ident` names
   * has left, counted from its last |-start| line: `duration` less the turns ended since, one
   * more where it began after that Pokemon had acted in the turn (`late`: Taunt and Encore,
   * which then last a turn longer); null where no start is seen. */
  volatileLeft(ident, name, duration, late = false) {
    const bare = ident.replace(/^(p[1-4])[a-z]?:/, '$1:');
    const mine = who => who && who.replace(/^(p[1-4])[a-z]?:/, '$1:') === bare;
    let ended = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const item = this.history[i];
      if (typeof item !== 'string') continue;
      if (item === '|upkeep') { ended++; continue; }
      const [, kind, who, what] = item.split('|');
      if (kind !== '-start' || !mine(who) || what.replace(/^move: /, '') !== name) continue;
      let acted = false;
      for (let j = i - 1; j >= 0 && this.history[j] !== '|upkeep' && !String(this.history[j]).startsWith('|turn|'); j--) {
        const [, k, w] = String(this.history[j]).split('|');
        if ((k === 'move' || k === 'cant') && mine(w)) acted = true;
      }
      return duration + (late && acted ? 1 : 0) - ended;
    }
    return null;
  }

  /** Whether the Pokemon `ident` names lost its item since it last came in. */
  lostItemInPlay(ident) {
    const bare = ident.replace(/^(p[1-4])[a-z]?:/, '$1:');
    for (let i = this.history.length - 1; i >= 0; i--) {
      const item = this.history[i];
      if (typeof item !== 'string') continue;
      const [, kind, who] = item.split('|');
      if (!who || who.replace(/^(p[1-4])[a-z]?:/, '$1:') !== bare) continue;
      if (kind === '-enditem') return true;
      if (SWITCHES.test(item)) return false;
    }
    return false;
  }

  /** Whether the sleep of the Pokemon `ident` names ('p1: Snorlax', without its position) is
   * Rest's: the last status it was given, the battle says, came from Rest. */
  restedSleep(ident) {
    const bare = ident.replace(/^(p[1-4])[a-z]?:/, '$1:');
    for (let i = this.history.length - 1; i >= 0; i--) {
      const item = this.history[i];
      if (typeof item !== 'string' || !item.startsWith('|-status|')) continue;
      const [, , who, status, from] = item.split('|');
      if (who.replace(/^(p[1-4])[a-z]?:/, '$1:') === bare && status === 'slp') return from === '[from] move: Rest';
    }
    return false;
  }

  /** Side `id`'s ('p1') Wish still to heal: {turn: the turn it was wished on, wisher: the name of
   * the Pokemon that wished}, or null. It heals at the end of the turn after. */
  pendingWish(id) {
    let turn = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const item = this.history[i];
      if (typeof item !== 'string') continue;
      if (item.startsWith('|turn|')) { if (++turn > 1) return null; continue; }
      if (item.startsWith(`|-heal|${id}`) && item.includes('[from] move: Wish')) return null;
      const parts = item.split('|');
      if (parts[1] === 'move' && parts[2].startsWith(id) && parts[3] === 'Wish' && !item.includes('[still]') &&
          this.history[i + 1] !== `|-fail|${parts[2]}`) {
        return {turn: this.battle.turn - turn, wisher: parts[2].replace(/^p[1-4][a-z]?: /, '')};
      }
    }
    return null;
  }

  /** The action table of this battle's game type (singles until a |gametype| line says). */
  get table() { return actionTable(this.battle.gameType); }

  get self() { return this.perspective === 'p2' ? this.battle.p2 : this.battle.p1; }
  get foe() { return this.self.foe; }

  /** Reads the lines of one message, already split for this perspective. Throws on a bad line. */
  feed(lines) {
    for (const line of lines) {
      if (!line || line === '|') continue;
      if (line.startsWith('|request|')) {
        const json = line.slice(9);
        if (!json) continue;
        try {
          this.pending = Protocol.parseRequest(json);
        } catch (e) {
          throw new BattleInputError(this.key, line, `bad request JSON: ${e.message}`);
        }
        continue;
      }
      if (line.startsWith('|error|')) {
        this.lastError = line.slice(7);
        if (REFUSED.test(this.lastError) && !this.lastError.includes(TOO_LATE)) this.refuse(this.lastAction);
        if (this.lastError.startsWith('[Unavailable choice]')) this.needsDecision = false;  // until the update
        continue;
      }
      checkNames(this.key, line);
      this.evidence.see(this, line);
      try {
        if (SWITCHES.test(line)) keepSwitchedIn(this.battle, line);
        this.battle.add(line);
      } catch (e) {
        throw new BattleInputError(this.key, line, `client could not apply line: ${e.message}`);
      }
      this.history.push(line);
      if (line.startsWith('|win|')) this.end(line.slice(5));
      else if (line === '|tie') this.end('');
    }
  }

  /** The choice string for action index `action` in the current request: 'default' once the
   * request has been refused MAX_REFUSALS times; null when the request has no such action (a
   * refusal, counted here). */
  choose(action) {
    if (!Number.isInteger(action) || action < 0 || action >= this.table.NUM_ACTIONS) {  // a caller's bug, not a refusal
      throw new BattleInputError(this.key, undefined, `action ${action} is out of range`);
    }
    if (this.refusals >= MAX_REFUSALS) return 'default';
    this.lastAction = action;
    try {
      if (this.banned.has(action)) throw new Error(`action ${action} was refused already`);
      return this.table.choiceFor(this.request, action);
    } catch (e) {
      this.lastError = `[Invalid choice] ${e.message}`;
      this.refuse(action);
      return null;
    }
  }

  /** The chooser learns that its last choice was refused. */
  refuse(action) {
    if (action !== null) this.banned.add(action);
    this.refusals++;
    if (this.lastError.startsWith('[Unavailable choice]')) this.unavailable++;
    else this.invalid++;
    this.lastAction = null;
  }

  end(winner) {
    this.ended = true;
    this.winner = winner;
    this.needsDecision = false;
    this.pending = null;
  }

  /** Applies a held-back request; after this the view is ready to be encoded. */
  flush() {
    if (!this.pending || this.ended) return;
    const request = this.pending;
    this.pending = null;
    try {
      applyRequest(this.battle, request);
      this.history.push(request);
    } catch (e) {
      throw new BattleInputError(this.key, undefined, `client could not apply request: ${e.message}`);
    }
    if (request.rqid === undefined || request.rqid !== this.request?.rqid) {
      this.banned.clear();
      this.refusals = 0;
    }
    this.request = request;
    this.needsDecision = request.requestType !== 'wait';
  }
}

function applyRequest(battle, request) {
  keepTerastallized(battle, request);
  battle.update(request);
}

// @pkmn/client finds a request's Pokemon by "ident|details"; after Terastallization the battle log
// adds ", tera:TYPE" to the details it stores while requests leave it out (and for a Morpeko it
// keeps the position in the ident, "p1a: Morpeko"), so the client made a new Pokemon and the
// active one lost its HP, boosts, volatiles and Tera state. The stored key is brought in line
// with the request's first.
function keepTerastallized(battle, request) {
  const side = request.side && battle.getSide(request.side.id);
  if (!side) return;
  for (const r of request.side.pokemon) if (r.searchid) alignKey(side, r.searchid);
}

// the move targets whose Pressure counts on the foe in play though the line names another (a move
// on the whole field names its user: Haze, Trick Room)
const FIELD_TARGETS = new Set(['all', 'allAdjacentFoes', 'allAdjacent']);

/** Whose Pressure a move (`move`, from the dex) answers to, as the simulator asks it: the foe it
 * targets (`foe`: the line's target where it is a foe), the foe in play (`foeIn`) for a move on
 * the field or one that always meets Pressure; none for a move on the foe's side (hazards). */
function pressureTarget(move, foe, foeIn) {
  if (move.flags && move.flags.mustpressure) return foeIn;
  if (move.target === 'foeSide') return null;
  return foe || (FIELD_TARGETS.has(move.target) ? foeIn : null);
}

// The same, the other way: a switch line names a Terastallized Pokemon's details with ", tera:TYPE",
// which the key brought in line with the requests leaves out, so the client made a new Pokemon
// for it, which took what happened at its entry (Sticky Web, Intimidate, its own entry ability)
// until the next request put the old one back in its place, without them.
const SWITCHES = /^\|(switch|drag|replace)\|/;
function keepSwitchedIn(battle, line) {
  const [, , ident, details] = line.split('|');
  const searchid = `${bareIdent(ident)}|${details}`;
  const side = battle.getSide(searchid.slice(0, 2));
  if (side) alignKey(side, searchid);
}

// A Pokemon's key without its position or Tera type: the part every naming of it shares.
const bareIdent = ident => String(ident).replace(/^(p[1-4])[a-z]?:/, '$1:');
const bareKey = key => bareIdent(key).replace(/, tera:[a-z]+/i, '');

/** Gives the Pokemon of `side` that `searchid` names, under another form of it, that key. */
function alignKey(side, searchid) {
  const p = side.team.find(x => x.searchid && x.searchid !== searchid && bareKey(x.searchid) === bareKey(searchid));
  if (p) p.searchid = searchid;
}

// The client accepts any name; a species or move the dex does not know is a bad line.
function checkNames(key, line) {
  const kind = line.slice(1, line.indexOf('|', 1));
  let name, what;
  switch (kind) {
  case 'switch': case 'drag': case 'replace': case 'detailschange':
    name = line.split('|')[3]; what = 'species'; break;
  case 'poke':
    name = line.split('|')[3]; what = 'species'; break;
  case '-formechange':
    name = line.split('|')[3]; what = 'species'; break;
  case 'move':
    name = line.split('|')[3]; what = 'moves'; break;
  default:
    return;
  }
  if (name === undefined) throw new BattleInputError(key, line, `'${kind}' line is missing fields`);
  if (what === 'species') name = name.split(',')[0];
  else if (name.startsWith('Z-')) name = name.slice(2);  // a status move used as a Z-move
  if (!Dex[what].get(name).exists) {
    throw new BattleInputError(key, line, `unknown ${what === 'moves' ? 'move' : 'species'} '${name}'`);
  }
}

/** A batch's error record for a battle that failed: its id, perspective, the line at fault
 * (null where none) and the message, named by battle. */
export function errorRecord(battle, perspective, e) {
  return {battle, perspective, line: e.line === undefined ? null : e.line,
    message: e instanceof BattleInputError ? e.message : `battle ${battle}: ${e.message}`};
}
