// What the foe's play shows of its hidden sets beyond what the battle names: who moved first
// when both actives used a move of the same priority (its Speed against ours: a Choice Scarf, a
// speed-doubling ability, or neither), and two different moves in one stay on the field (no
// Choice item); and what its play would have shown and did not (silence.js: Boots, Leftovers, Life
// Orb, an entry ability...). A player's view records it line by line (view.js); the worlds a
// search draws keep only the foe's sets it allows (rebuild.js). In random battles a set's Speed follows from its
// species, level, item and ability, so one turn's order can rule a set out.
import {speedOf, fieldOf} from './damage.js';
import {nameOf, ownMon, priorityOf, isOwnMove} from './mons.js';
import {tally} from './sets.js';
import {toID} from '../contract.js';
import {GIMMICKS} from '../actions.js';
import {Silences} from './silence.js';

// An item eaten to act first (Quick Claw and Quick Draw show as an -activate line, which before
// any move leaves the turn unread whatever it is).
const JUMPS = /\|Custap Berry/;
// Sets that move last within their priority whatever their Speed, or whose Speed the recorded
// state cannot tell (Unburden once its item is gone): a turn's order says nothing of them.
const LAST_ITEMS = new Set(['laggingtail', 'fullincense']);
const LAST_ABILITIES = new Set(['stall', 'myceliummight']);
// A move whose priority the field changes (Grassy Glide in Grassy Terrain).
const FIELD_PRIORITY = new Set(['grassyglide']);
// Speed from a state the record leaves out (Protosynthesis or Quark Drive boosting Speed, Slow
// Start halving it, a Transformed Pokemon's copied stats): such a turn is not read.
// (@pkmn/client keeps the first two as one volatile with the boosted stat beside it.)
const speedVolatile = p => {
  const v = p.volatiles || {};
  return !!(v.slowstart || v.transform || (v.protosynthesis && v.protosynthesis.stat === 'spe') ||
    (v.quarkdrive && v.quarkdrive.stat === 'spe'));
};

/** One player's record of the foe's play, fed every line before the client applies it. */
export class PlayEvidence {
  constructor() {
    this.orders = [];             // turns whose order tells: see moved()
    this.unchoiced = new Set();   // foe team indices seen using two different moves in one stay
    this.stay = new Map();        // foe team index -> the moves used since it came in
    this.first = null;            // this turn's first move, while the turn's order can tell
    this.spoiled = false;         // something jumped the order before this turn's first move
    this.narrowed = new Map();    // cache of allowed(): key -> sets
    this.silences = new Silences(); // what its play would have shown of its set, and did not
    this.stayStart = null;        // the record as the foe's active came in: what its stay added
    this.ourUnmasked = false;     // our active's Illusion broke this stay: the client lost its stages
  }

  copy() {
    const c = new PlayEvidence();
    c.orders = this.orders.slice();
    c.unchoiced = new Set(this.unchoiced);
    c.stay = new Map([...this.stay].map(([k, v]) => [k, new Set(v)]));
    c.first = this.first;
    c.spoiled = this.spoiled;
    c.silences = this.silences.copy();
    c.stayStart = this.stayStart;
    c.ourUnmasked = this.ourUnmasked;
    return c;
  }

  /** Reads `line` of `view`'s battle; the client has not applied it yet. */
  see(view, line) {
    if (view.perspective === 'spectator' || !view.request) return;
    if (view.battle.gameType === 'singles') this.silences.see(view, line);
    const kind = line.slice(1, line.indexOf('|', 1));
    if (kind === 'turn') {
      this.first = null;
      this.spoiled = false;
    } else if (kind === 'move') {
      this.moved(view, line.split('|'));
    } else if (kind === 'cant' || kind === 'faint') {
      // ours fell or could not move after the foe's first move: the foe went first, against the
      // move we chose
      const ident = line.split('|')[2];
      if (!this.first) this.spoiled = this.spoiled || kind === 'cant';
      else if (this.first.state && ident === this.first.state.mine) this.second(view, ident, this.first.state.chosen);
    } else if (kind === '-activate' || (kind === '-enditem' && JUMPS.test(line))) {
      // before any move: an action that is no move (hurt by its confusion) or a jump in the order
      if (!this.first) this.spoiled = true;
    } else if (kind === 'switch' || kind === 'drag' || kind === 'replace') {
      // a new stay: what was used before tells nothing of the item now held
      if (!line.slice(line.indexOf('|', 1) + 1).startsWith(view.foe.id)) {
        // ours: an Illusion broken leaves the client a fresh Pokemon, its stat stages lost, so
        // our Speed is not known until it switches
        this.ourUnmasked = kind === 'replace';
        return;
      }
      if (kind === 'replace') this.unmasked(view, line.split('|')[2]);
      this.stay.clear();
      if (kind !== 'replace') {
        this.stayStart = {orders: this.orders.length, unchoiced: new Set(this.unchoiced), silences: this.silences.copy()};
      }
    } else if (kind === '-item' || kind === '-enditem') {
      const k = this.foeIndex(view, line.split('|')[2]);
      if (k >= 0) this.stay.delete(k);
    }
  }

  /** An Illusion broken (|replace|): what this stay showed was the disguised Pokemon's doing, not
   * that of the one it was shown as (the foe in play, `ident`), whose record goes back to what it
   * was when the stay began: its turn orders, its two moves against a Choice item, its silences
   * (`ident`: the replace line's, the Pokemon as it truly is). */
  unmasked(view, ident) {
    // the line names the Pokemon as it truly is: the one shown is the foe active at its position
    const shown = view.foe.active['abc'.indexOf(ident.charAt(2))];
    const k = shown ? view.foe.team.indexOf(shown) : -1, start = this.stayStart;
    if (k < 0 || !start) return;
    this.orders = this.orders.filter((o, i) => i < start.orders || o.foe !== k);
    if (!start.unchoiced.has(k)) this.unchoiced.delete(k);
    this.silences.restore(k, start.silences);
  }

  /** The team index of the foe Pokemon in play that `ident` ('p2a: Altaria') names, else -1. */
  foeIndex(view, ident) {
    const p = view.foe.active.find(q => q && q.ident === ident);
    return p ? view.foe.team.indexOf(p) : -1;
  }

  moved(view, parts) {
    const [, , ident, name, , ...tags] = parts;
    // a move another called (Magic Bounce, Dancer, Sleep Talk...) is not its user's own action;
    // one that does not follow a first move leaves the turn's order unknown
    if (tags.some(t => t.startsWith('[from]') && t.replace(/\s/g, '') !== '[from]lockedmove')) {
      if (!this.first) this.spoiled = true;
      return;
    }
    const id = toID(name);
    const side = ident.slice(0, 2);
    const k = this.foeIndex(view, ident);
    // two moves tell of the item the set brought only while the foe holds one not yet shown, and
    // not Dynamaxed (a Max Move is no move of the set, and no Choice item holds it)
    const p = k >= 0 ? view.foe.team[k] : null;
    const hidden = p && !p.item && !p.lastItem && !p.volatiles.dynamax && isOwnMove(name);
    if (hidden && id !== 'struggle' && id !== 'recharge') {
      const used = this.stay.get(k) || new Set();
      used.add(id);
      this.stay.set(k, used);
      if (used.size > 1) this.unchoiced.add(k);
    }
    // the order is read in gen 9 singles only, where it is checked against the simulator
    // (js/checks/evidencecheck.js): older generations differ in what shows a jump in the order
    if (view.battle.gameType !== 'singles' || view.battle.gen.num < 9 || this.spoiled) return;
    if (!this.first) this.first = {side, ident, id, state: this.ourUnmasked ? null : turnStart(view)};
    else this.second(view, ident, id);
  }

  /** The turn's second action: the move `id` of the Pokemon `ident` (null: not known). */
  second(view, ident, id) {
    const side = ident.slice(0, 2);
    if (!this.first || this.first.side === side || this.first.done) return;
    this.first.done = true;
    const order = this.first.state && id && ordered(view, this.first, {side, ident, id});
    if (order) this.orders.push(order);
  }

  /** `sets` (possibleSets' answer for the foe Pokemon `p` of `view`) with only the drawn sets
   * this record allows; `sets` itself where it rules out none, or all (then the record or the
   * data is wrong, and the data is kept). */
  allowed(view, p, sets) {
    if (!sets || !sets.fitting.length) return sets;
    const k = view.foe.team.indexOf(p);
    const orders = this.orders.filter(o => o.foe === k);
    if (!orders.length && !this.unchoiced.has(k) && !this.silences.knows(k)) return sets;
    const key = `${k}|${orders.length}|${this.unchoiced.has(k)}|${this.silences.facts}|${!!(p.item || p.lastItem)}|${!!p.ability}`;
    const hit = this.narrowed.get(key);
    if (hit && hit.from === sets) return hit.sets;
    const verdicts = new Map();  // a set's Speed profile -> whether the orders allow it
    const kept = sets.fitting.filter(s => this.allows(view, p, s, verdicts));
    const out = !kept.length || kept.length === sets.fitting.length ? sets :
      {...sets, fitting: kept, set: kept[0], items: tally(kept, s => [s.item], []),
        abilities: tally(kept, s => [s.ability], sets.abilities.filter(([, w]) => w === 1).map(([id]) => id))};
    this.narrowed.set(key, {from: sets, sets: out});
    return out;
  }

  /** Whether the foe Pokemon `p` of `view` could have the set `s` ({item, ability, nature,
   * evs, ivs, level} as ids) by what it was seen doing; `verdicts` memoises the orders' verdict
   * by Speed profile. */
  allows(view, p, s, verdicts = new Map()) {
    const k = view.foe.team.indexOf(p);
    if (this.unchoiced.has(k) && s.item.startsWith('choice')) return false;
    if (!this.silences.allows(k, p, s)) return false;
    const profile = `${s.level}|${s.item}|${s.ability}|${s.nature}|${s.evs && s.evs.spe}|${s.ivs && s.ivs.spe}`;
    let ok = verdicts.get(profile);
    if (ok === undefined) {
      ok = this.orders.every(o => o.foe !== k || orderAllows(view.battle.gen, o, s));
      verdicts.set(profile, ok);
    }
    return ok;
  }
}

/** Both actives as they stood at the turn's first move (the foe's as shown, ours exactly from
 * the request), the field, and the move we chose; null where the state does not hold their
 * Speeds. */
function turnStart(view) {
  const mine = view.self.active[0], foe = view.foe.active[0];
  if (!mine || !foe || speedVolatile(mine) || speedVolatile(foe)) return null;
  const j = view.request.side.pokemon.findIndex(r => r.ident === mine.originalIdent);
  if (j < 0 || !view.request.side.pokemon[j].stats) return null;
  // our Illusion: the battle names our active as another of ours, and what befalls it (Sticky
  // Web's drop) the client gives that other; its Speed is not known from the view
  const active = view.request.side.pokemon.find(r => r.active);
  if (active && (active.ident !== view.request.side.pokemon[j].ident || toID(active.ability) === 'illusion')) return null;
  // the request's row, with the state of the one in play (it may have come in this turn)
  const us = {...ownMon(view, j), species: mine.speciesForme, status: mine.status || '', boosts: {...mine.boosts}};
  const item = toID(us.item), ability = toID(us.ability);
  if (LAST_ITEMS.has(item) || LAST_ABILITIES.has(ability) || ability === 'unburden') return null;
  return {mine: mine.ident, foe: foe.ident, foeIndex: view.foe.team.indexOf(foe), chosen: chosenMove(view), us,
    foeMon: {species: foe.speciesForme, level: foe.level || 100, status: foe.status || '', boosts: {...foe.boosts},
      // the item it holds where shown ('' where it lost one): the set's own item only otherwise
      hpFraction: foe.maxhp ? foe.hp / foe.maxhp : 1, item: foe.item || foe.lastItem ? toID(foe.item) : null},
    field: fieldOf(view.battle, view.foe, view.self),  // the foe's side as the "attacker" side
    trickRoom: !!view.battle.field.pseudoWeather.trickroom};
}

/** The move our last choice named (an id), null where it was no move. */
function chosenMove(view) {
  const a = view.lastAction, active = view.request.active && view.request.active[0];
  if (a === null || a === undefined || !active || Math.floor(a / GIMMICKS.length) >= active.moves.length) return null;
  return toID(active.moves[Math.floor(a / GIMMICKS.length)].id);
}

/** What a turn's first two moves, `a` then `b` (from the two sides), tell: the turn's start
 * (turnStart) and who went first; null where one of them was not in at the turn's start or a
 * move's priority follows the field. */
function ordered(view, a, b) {
  const start = a.state;
  const [ours, theirs] = a.side === view.self.id ? [a, b] : [b, a];
  if (ours.ident !== start.mine || theirs.ident !== start.foe) return null;
  if (FIELD_PRIORITY.has(ours.id) || FIELD_PRIORITY.has(theirs.id)) return null;
  const gen = view.battle.gen;
  const ourSpeed = speedOf(gen.num, start.us, start.field, start.field.defenderSide);
  if (ourSpeed === null) return null;
  return {foe: start.foeIndex, foeFirst: a === theirs, ourSpeed, ourPriority: priorityOf(gen, start.us, ours.id),
    foeMove: theirs.id, field: start.field, trickRoom: start.trickRoom, foeMon: start.foeMon};
}

/** Whether the foe with set `s` would have moved as `o` saw: first exactly when faster (slower
 * under Trick Room), where the two moves had the same priority and the Speeds differ. */
function orderAllows(gen, o, s) {
  if (LAST_ABILITIES.has(s.ability)) return true;
  const item = o.foeMon.item === null ? s.item : o.foeMon.item;
  if (LAST_ITEMS.has(item) || (s.ability === 'unburden' && o.foeMon.item === '')) return true;
  const m = {...o.foeMon, item: nameOf(gen.items, item), ability: nameOf(gen.abilities, s.ability),
    nature: s.nature, evs: s.evs, ivs: s.ivs, hp: 1, stats: null, tera: '', dynamax: false};
  if (priorityOf(gen, m, o.foeMove) !== o.ourPriority) return true;
  const speed = speedOf(gen.num, m, o.field, o.field.attackerSide);
  if (speed === null || speed === o.ourSpeed) return true;
  return ((speed > o.ourSpeed) !== o.trickRoom) === o.foeFirst;
}
