// What the battle would have shown of a foe's hidden set and did not: an item or ability that
// announces itself, or acts where the foe was seen, rules out the sets that hold it.
//  - Heavy-Duty Boots: hurt by Stealth Rock or Spikes on entry. And the other way: in over
//    Stealth Rock unhurt, only Boots (or Magic Guard) explains it.
//  - Leftovers or Black Sludge: hurt, it ended a turn in play without their healing.
//  - Life Orb: its attack hit and no recoil followed (Magic Guard takes none; Sheer Force none
//    for a move with added effects).
//  - Assault Vest: it used a status move. Air Balloon: it came in without one shown.
//  - An ability every entry announces (Intimidate, Pressure, Drought...): it came in and said
//    nothing, where nothing excused it (Neutralizing Gas ours in play; its weather or terrain
//    already up).
// Each holds only while the battle has not named the item (or ability): a named one narrows
// the sets by itself (sets.js), and one lost or swapped since tells nothing of the set.
import {Dex} from '@pkmn/sim';
import {toID} from '../contract.js';

// abilities that announce themselves whenever their holder comes in
const ANNOUNCED = new Set(['intimidate', 'pressure', 'moldbreaker', 'turboblaze', 'teravolt', 'unnerve', 'airlock',
  'cloudnine', 'neutralizinggas', 'orichalcumpulse', 'hadronengine']);
// ...and those that do unless their weather (the client's id) or terrain is already up
const WEATHER_SETTERS = {drought: ['sun'], drizzle: ['rain'], sandstream: ['sand'], snowwarning: ['snow', 'hail']};
const TERRAIN_SETTERS = {electricsurge: 'electric', psychicsurge: 'psychic', grassysurge: 'grassy', mistysurge: 'misty'};
const LEFTOVERS = new Set(['leftovers', 'blacksludge']);
// items of ours that may send the foe out before its Life Orb recoils
const FORCING_ITEMS = new Set(['redcard', 'ejectbutton']);
// effects that stop items or healing in play
const NO_ITEMS = new Set(['embargo', 'healblock']);

const bare = ident => String(ident).replace(/^(p[1-4])[a-z]?:/, '$1:');
const hasAddedEffects = id => { const m = Dex.moves.get(id); return !!(m.secondary || (m.secondaries && m.secondaries.length)); };

export class Silences {
  constructor() {
    this.facts = 0;                 // how many facts are recorded: a key for cached verdicts
    this.hurtByHazards = new Set(); // foe team indices: no Heavy-Duty Boots
    this.unhurtOverRocks = new Set(); // ...: Heavy-Duty Boots (or Magic Guard)
    this.unhealed = new Set();      // ...: no Leftovers or Black Sludge
    this.noRecoil = new Map();      // ...: the moves that hit without Life Orb's recoil
    this.statusMove = new Set();    // ...: no Assault Vest
    this.noBalloon = new Set();     // ...: no Air Balloon
    this.silentEntries = new Map(); // ...: [{weather, terrain}] of entries that announced nothing
    this.entry = null;              // the foe's entry under way
    this.attack = null;             // the foe's attack under way
    this.turn = [];                 // this turn's lines so far
  }

  copy() {
    const c = new Silences();
    c.facts = this.facts;
    for (const key of ['hurtByHazards', 'unhurtOverRocks', 'unhealed', 'statusMove', 'noBalloon']) c[key] = new Set(this[key]);
    c.noRecoil = new Map([...this.noRecoil].map(([k, v]) => [k, v.slice()]));
    c.silentEntries = new Map([...this.silentEntries].map(([k, v]) => [k, v.slice()]));
    c.entry = this.entry && {...this.entry};
    c.attack = this.attack && {...this.attack};
    c.turn = this.turn.slice();
    return c;
  }

  /** Foe `k`'s facts as they were in `before` (a copy taken earlier): what was seen since is
   * dropped (an Illusion broken: evidence.js unmasked). */
  restore(k, before) {
    for (const key of ['hurtByHazards', 'unhurtOverRocks', 'unhealed', 'statusMove', 'noBalloon']) {
      if (before[key].has(k)) this[key].add(k);
      else this[key].delete(k);
    }
    for (const key of ['noRecoil', 'silentEntries']) {
      if (before[key].has(k)) this[key].set(k, before[key].get(k).slice());
      else this[key].delete(k);
    }
    this.facts++;   // the cached verdicts no longer hold
  }

  /** Reads `line` of `view`'s battle (singles), before the client applies it. */
  see(view, line) {
    const [, kind, who, what, ...rest] = line.split('|');
    const foeSide = view.foe.id;
    const mine = ident => ident && ident.startsWith(foeSide);
    const acts = kind === 'move' || kind === 'cant' || kind === 'turn' || kind === 'upkeep';
    const switches = kind === 'switch' || kind === 'drag' || kind === 'replace';
    if (acts || switches) this.closeAttack(view);
    // both sides' switches at a turn's start come before either's entry effects
    if (acts || (switches && mine(who))) this.closeEntry(view);
    if (kind === 'upkeep') this.endOfTurn(view);
    if (kind === 'turn') this.turn = [];
    else this.turn.push(line);
    if ((kind === 'switch' || kind === 'drag') && mine(who)) this.openEntry(view, who);
    if (kind === 'move' && mine(who) && !rest.some(t => t.startsWith('[from]'))) this.openAttack(view, who, what);
    if (this.entry) this.readEntry(line, kind, who, what, rest);
    if (this.attack) this.readAttack(view, line, kind, who, what, rest);
  }

  /** The foe Pokemon in play that `ident` names, as the client has it: {p, k} or null. */
  foe(view, ident) {
    const p = view.foe.active.find(q => q && bare(q.ident) === bare(ident));
    return p ? {p, k: view.foe.team.indexOf(p)} : null;
  }

  add(set, k) { if (k >= 0 && !set.has(k)) { set.add(k); this.facts++; } }

  openEntry(view, ident) {
    const f = view.battle.field;
    const ours = view.request && view.request.side.pokemon.find(r => r.active);
    const facing = view.self.active[0];
    this.entry = {ident, weather: f.weather ? f.weatherState.id : '', terrain: f.terrain ? f.terrainState.id : '',
      alone: !facing || facing.fainted || !facing.hp,  // Intimidate says nothing with no foe to face
      gas: !!ours && toID(ours.ability || ours.baseAbility) === 'neutralizinggas',
      rocks: !!view.foe.sideConditions.stealthrock, hurt: false, rocked: false, announced: false, balloon: false,
      magicRoom: !!f.pseudoWeather.magicroom};
  }

  readEntry(line, kind, who, what, rest) {
    const e = this.entry;
    const of = rest.find(t => t.startsWith('[of] '));
    if ((kind === '-ability' && bare(who) === bare(e.ident)) ||
        (of && bare(of.slice(5)) === bare(e.ident) && line.includes('ability:')) ||
        ((kind === '-activate' || kind === '-start') && bare(who) === bare(e.ident) && String(what).startsWith('ability:'))) {
      e.announced = true;
    }
    if (kind === '-item' && bare(who) === bare(e.ident) && what === 'Air Balloon') e.balloon = true;
    if (kind === '-damage' && bare(who) === bare(e.ident)) {
      const from = rest.find(t => t.startsWith('[from]')) || '';
      if (/Stealth Rock|Spikes/.test(from)) e.hurt = true;
      if (/Stealth Rock/.test(from)) e.rocked = true;
    }
  }

  closeEntry(view) {
    const e = this.entry;
    this.entry = null;
    const found = e && this.foe(view, e.ident);
    if (!found) return;
    const {p, k} = found;
    if (p.item || p.lastItem) return void this.entryAbility(e, p, k);
    if (e.hurt) this.add(this.hurtByHazards, k);
    if (e.rocks && !e.rocked && p.hp > 0) this.add(this.unhurtOverRocks, k);
    if (!e.balloon && !e.magicRoom) this.add(this.noBalloon, k);
    this.entryAbility(e, p, k);
  }

  entryAbility(e, p, k) {
    if (e.announced || e.gas || p.ability || p.baseAbility) return;
    const list = this.silentEntries.get(k) || [];
    list.push({weather: e.weather, terrain: e.terrain, alone: e.alone});
    this.silentEntries.set(k, list);
    this.facts++;
  }

  openAttack(view, ident, name) {
    const found = this.foe(view, ident);
    const id = toID(name);
    if (!found || found.p.item || found.p.lastItem || found.p.volatiles.dynamax) return;
    const move = Dex.moves.get(id);
    if (!move.exists || id === 'struggle') return;
    if (move.category === 'Status') { this.add(this.statusMove, found.k); return; }
    const ours = view.request && view.request.side.pokemon.find(r => r.active);
    if (ours && FORCING_ITEMS.has(toID(ours.item))) return;
    this.attack = {ident, k: found.k, id, hit: false, recoil: false, spoiled: false};
  }

  readAttack(view, line, kind, who, what, rest) {
    const a = this.attack;
    const from = rest.find(t => t.startsWith('[from]')) || '';
    if (kind === '-damage' && bare(who) === bare(a.ident)) {
      if (from === '[from] item: Life Orb') a.recoil = true;
    } else if (kind === '-damage' && !bare(who).startsWith(bare(a.ident).slice(0, 2)) && !from) {
      a.hit = true;
    } else if (kind === '-activate' && what === 'move: Substitute' && rest.includes('[damage]')) {
      a.hit = true;
    }
    // its item lost or shown mid-move, or it fell before the recoil: the turn tells nothing
    if ((kind === '-enditem' || kind === '-item' || kind === 'faint') && bare(who) === bare(a.ident)) a.spoiled = true;
  }

  closeAttack(view) {
    const a = this.attack;
    this.attack = null;
    if (!a || !a.hit || a.recoil || a.spoiled || view.battle.field.pseudoWeather.magicroom) return;
    const list = this.noRecoil.get(a.k) || [];
    if (!list.includes(a.id)) { list.push(a.id); this.noRecoil.set(a.k, list); this.facts++; }
  }

  /** At the end of a turn: a hurt foe in play that Leftovers would have healed, and did not. */
  endOfTurn(view) {
    const p = view.foe.active[0];
    if (!p || p.fainted || !p.hp || p.item || p.lastItem || Object.keys(p.volatiles).some(v => NO_ITEMS.has(v))) return;
    if (view.battle.field.pseudoWeather.magicroom || view.battle.field.terrain) return;
    const ident = bare(p.ident);
    // the turn's lines after the last action: the end of turn's effects
    let start = this.turn.length;
    while (start > 0 && !/^\|(move|cant|switch|drag|replace)\|/.test(this.turn[start - 1])) start--;
    if (start === 0) return;
    let hurtBefore = null;  // its HP before the end of turn, as the last line before it showed
    for (let i = start - 1; i >= 0 && hurtBefore === null; i--) {
      const [, kind, who, hp] = this.turn[i].split('|');
      if (bare(who) !== ident) continue;
      if (kind === '-damage' || kind === '-heal' || kind === 'switch' || kind === 'drag' || kind === '-sethp') {
        const shown = kind === 'switch' || kind === 'drag' ? this.turn[i].split('|')[4] : hp;
        hurtBefore = !/^100\/100/.test(shown || '');
      }
    }
    let weathered = false;
    for (const line of this.turn.slice(start)) {
      const [, kind, who, what] = line.split('|');
      if (bare(who) !== ident) continue;
      if (kind === '-heal') return;  // healed at the end of turn, by whatever: not read
      if (kind === '-end' && /Heal Block|Embargo/.test(what)) return;  // blocked until it ended
      if (kind === '-damage' && /\[from\] (Sandstorm|Hail)/.test(line)) weathered = true;
    }
    if (hurtBefore || weathered) this.add(this.unhealed, view.foe.team.indexOf(p));
  }

  /** Whether foe team index `k` could hold the set `s` ({item, ability} as ids) by what its
   * play did not show; `p` the foe Pokemon as the client has it now. */
  allows(k, p, s) {
    if (!p.item && !p.lastItem) {
      if (s.item === 'heavydutyboots' && this.hurtByHazards.has(k)) return false;
      if (this.unhurtOverRocks.has(k) && s.item !== 'heavydutyboots' && s.ability !== 'magicguard') return false;
      if (LEFTOVERS.has(s.item) && this.unhealed.has(k)) return false;
      if (s.item === 'assaultvest' && this.statusMove.has(k)) return false;
      if (s.item === 'airballoon' && this.noBalloon.has(k)) return false;
      const hits = this.noRecoil.get(k);
      if (s.item === 'lifeorb' && hits && s.ability !== 'magicguard' &&
          hits.some(id => !(s.ability === 'sheerforce' && hasAddedEffects(id)))) return false;
    }
    const silent = this.silentEntries.get(k);
    if (silent && !p.ability && !p.baseAbility) {
      for (const e of silent) {
        if (ANNOUNCED.has(s.ability) && !(s.ability === 'intimidate' && e.alone)) return false;
        if (WEATHER_SETTERS[s.ability] && !WEATHER_SETTERS[s.ability].includes(e.weather)) return false;
        if (TERRAIN_SETTERS[s.ability] && TERRAIN_SETTERS[s.ability] !== e.terrain) return false;
      }
    }
    return true;
  }

  /** Whether anything is recorded of foe team index `k`. */
  knows(k) {
    return this.hurtByHazards.has(k) || this.unhurtOverRocks.has(k) || this.unhealed.has(k) || this.statusMove.has(k) ||
      this.noBalloon.has(k) || this.noRecoil.has(k) || this.silentEntries.has(k);
  }
}
