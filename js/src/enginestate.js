// A simulated battle (a world rebuild.js drew from a player's view, or the true battle) written
// as poke-engine's serialised state, our side as its side one: the second half of the bridge from
// what the player sees to the engine the native search thinks on (search-rs/). The format is
// poke-engine 0.0.48's (pinned: it is not stable across versions); a name the engine does not
// know becomes nothing there, silently, so the native module's unknown_names() checks every state
// this writes (metapvp/tests/test_native_search.py).
//
// Carried: species, level, types (before Terastallization) and the species' own, HP, ability,
// item, nature, EVs, stats, status, weight, each move with its PP and whether disabled,
// Terastallization and its type; the active Pokemon, its stat stages, the volatile statuses the
// engine has (below) with the durations it keeps, Substitute's HP; hazards, screens, Tailwind,
// Safeguard, Mist, the toxic counter; Wish; a forced switch; weather, terrain and Trick Room with
// their turns; sleep and Rest counters, Future Sight, Perish Song's count, the last action (a
// switch, for Fake Out, or the move slot), whether the active is trapped, and the move still to
// come from a side whose foe pivoted out mid-turn.

import {gameOf} from './games/index.js';
import {legalChoices} from './actiontable.js';
import {mulberry32} from './random.js';
import {teamAsDrawn} from './thoughts.js';

export const ENGINE_STATUS = {'': 'NONE', brn: 'BURN', slp: 'SLEEP', frz: 'FREEZE', par: 'PARALYZE', psn: 'POISON', tox: 'TOXIC'};
const WEATHER = {'': 'NONE', sunnyday: 'SUN', raindance: 'RAIN', sandstorm: 'SAND', hail: 'HAIL', snow: 'SNOW',
  snowscape: 'SNOW', desolateland: 'HARSHSUN', primordialsea: 'HEAVYRAIN'};
const TERRAIN = {'': 'NONE', electricterrain: 'ELECTRICTERRAIN', psychicterrain: 'PSYCHICTERRAIN',
  mistyterrain: 'MISTYTERRAIN', grassyterrain: 'GRASSYTERRAIN'};
// poke-engine's side conditions, in its order: each the simulator's condition, counted by layers
// (hazards) or by the turns it has left (screens and the like); toxic_count is the active
// Pokemon's toxic counter.
const SIDE_CONDITIONS = ['auroraveil', 'craftyshield', 'healingwish', 'lightscreen', 'luckychant', 'lunardance',
  'matblock', 'mist', 'protect', 'quickguard', 'reflect', 'safeguard', 'spikes', 'stealthrock', 'stickyweb',
  'tailwind', 'toxic_count', 'toxicspikes', 'wideguard'];
const LAYERED = new Set(['spikes', 'toxicspikes', 'stealthrock', 'stickyweb']);
// the simulator's volatile statuses that poke-engine has, by the same name
const VOLATILES = new Set(['aquaring', 'attract', 'autotomize', 'banefulbunker', 'bide', 'bounce', 'burningbulwark',
  'charge', 'confusion', 'curse', 'defensecurl', 'destinybond', 'dig', 'disable', 'dive', 'electrify', 'electroshot',
  'embargo', 'encore', 'endure', 'flashfire', 'flinch', 'fly', 'focusenergy', 'followme', 'foresight', 'freezeshock',
  'gastroacid', 'geomancy', 'glaiverush', 'grudge', 'healblock', 'helpinghand', 'iceburn', 'imprison', 'ingrain',
  'kingsshield', 'laserfocus', 'leechseed', 'lockedmove', 'magiccoat', 'magnetrise', 'maxguard', 'meteorbeam',
  'minimize', 'miracleeye', 'mustrecharge', 'nightmare', 'noretreat', 'octolock', 'partiallytrapped', 'phantomforce',
  'powder', 'powershift', 'powertrick', 'protect', 'rage', 'ragepowder', 'razorwind', 'roost', 'saltcure',
  'shadowforce', 'skullbash', 'skyattack', 'skydrop', 'silktrap', 'slowstart', 'smackdown', 'snatch', 'solarbeam',
  'solarblade', 'sparklingaria', 'spikyshield', 'spotlight', 'stockpile', 'substitute', 'syrupbomb', 'tarshot',
  'taunt', 'telekinesis', 'throatchop', 'truant', 'torment', 'typechange', 'unburden', 'uproar', 'yawn']);
const DURATIONS = ['confusion', 'encore', 'lockedmove', 'slowstart', 'taunt', 'yawn'];
export const ENGINE_BOOSTS = ['atk', 'def', 'spa', 'spd', 'spe', 'accuracy', 'evasion'];
// items of gen 9 random battles that poke-engine does not have: written as no item, which is what
// the engine would make of them (unknown_names() would name any other)
export const ITEMS_NOT_IN_ENGINE = new Set(['lightclay', 'scopelens']);
const STATS = ['atk', 'def', 'spa', 'spd', 'spe'];
const ABSENT = pokemonState(null);

/** `battle` (an @pkmn/sim Battle) as poke-engine's state string, side `me` (0: p1) as side one. */
export function engineState(battle, me) {
  const field = battle.field;
  const trickRoom = field.pseudoWeather.trickroom;
  return [sideState(battle, battle.sides[me]), sideState(battle, battle.sides[1 - me]),
    `${WEATHER[field.weather] || 'NONE'};${field.weather ? turnsLeft(field.weatherState, -1) : -1}`,
    `${TERRAIN[field.terrain] || 'NONE'};${field.terrain ? turnsLeft(field.terrainState, 0) : 0}`,
    `${!!trickRoom};${trickRoom ? turnsLeft(trickRoom, 0) : 0}`, 'false'].join('/');
}

function sideState(battle, side) {
  const active = side.faintedOut ? null : side.active[0];
  const team = side.pokemon.slice(0, 6);
  const written = team.map(pokemonState);
  while (written.length < 6) written.push(ABSENT);
  // the engine reads a side's Terastallization as spent where one of its Pokemon is
  // terastallized; where the one that did has fainted (the simulator forgets it then) or is left
  // out of a drawn world, the first fainted Pokemon or empty slot carries the mark
  if (!team.some(p => p.canTerastallize || p.terastallized)) {
    const k = written.findIndex((_, i) => !team[i] || team[i].hp <= 0);
    if (k >= 0) written[k] = written[k].replace(/,false,([A-Z]+)$/, ',true,$1');
  }
  const at = side.faintedOut ? team.length : Math.max(0, side.pokemon.indexOf(active));
  const volatiles = active ? Object.keys(active.volatiles).filter(v => VOLATILES.has(v)) : [];
  // the simulator counts Slow Start on the ability, the engine as a volatile
  const slowStart = active && active.ability === 'slowstart' && active.abilityState.counter;
  if (slowStart && !volatiles.includes('slowstart')) volatiles.push('slowstart');
  const perish = active && active.volatiles.perishsong;
  if (perish && perish.duration >= 1 && perish.duration <= 4) volatiles.push(`perish${perish.duration}`);
  const durations = DURATIONS.map(v => (active && active.volatiles[v] ? engineCount(v, active.volatiles[v]) :
    v === 'slowstart' && slowStart ? slowStart : 0));
  const wish = slotCondition(side, 'wish');
  // the simulator counts Wish by the turn it was wished on (it heals at the end of the next
  // turn); the engine counts down the ends of turn to go, healing at 1
  const wishTurns = wish ? (battle.turn > wish.startingTurn ? 1 : 2) : 0;
  // the foe's Future Sight (or Doom Desire) on this side's position, cast by one of this side's
  // Pokemon: the engine keeps it on the caster's side, with the same count of turns
  const future = slotCondition(battle.sides[1 - side.n], 'futuremove');
  const caster = future && future.source ? team.indexOf(future.source) : -1;
  const request = side.activeRequest;
  const trapped = !!(request && request.active && request.active[0] && request.active[0].trapped);
  return [...written, at, sideConditions(side, active), volatiles.map(v => `${v.toUpperCase()}:`).join(''),
    durations.join(';'), (active && active.volatiles.substitute && active.volatiles.substitute.hp) || 0,
    ...ENGINE_BOOSTS.map(b => (active ? active.boosts[b] || 0 : 0)),
    wishTurns, wish ? Math.floor(wish.hp || 0) : 0,
    caster >= 0 ? turnsLeft(future, 0) : 0, Math.max(0, caster),
    !!(request && request.forceSwitch && request.forceSwitch[0]), pendingMove(battle, side), false, false, trapped,
    lastUsedMove(active, at), false,
  ].join('=');
}

// poke-engine counts Taunt and Encore up from 0 as the Pokemon moves (they end at 2) and Yawn up
// from 0 as turns end (sleep at 1), where the simulator counts the turns left (3, 3 and 2 at
// most); a count past the end makes the engine panic
const COUNTED_UP = {taunt: 3, encore: 3, yawn: 2};

function engineCount(id, state) {
  const left = turnsLeft(state, 0);
  const most = COUNTED_UP[id];
  return most ? Math.max(0, Math.min(most - 1, most - left)) : left;
}

function slotCondition(side, id) {
  return side.slotConditions && side.slotConditions[0] && side.slotConditions[0][id];
}

/** The move this side's active is still to use this turn (the foe pivoted out first, with U-turn
 * or the like, and is choosing what comes in): the engine plays it once the switch is chosen. */
export function pendingMove(battle, side) {
  const action = battle.queue.list.find(a => a.choice === 'move' && a.pokemon && a.pokemon.side === side);
  return action ? engineMoveName(action.move.id) : 'NONE';
}

/** What the engine keeps of the active's last action: a switch until it has moved since coming
 * in (Fake Out and First Impression work then), else the move slot it last used. A move with no
 * PP left is none: Encore fails on it, and the engine's Encore reads only this. */
function lastUsedMove(active, at) {
  if (!active) return 'move:none';
  if (!active.activeMoveActions) return `switch:${at}`;
  const slot = active.lastMove ? active.moveSlots.findIndex(m => m.id === active.lastMove.id) : -1;
  const spent = slot >= 0 && active.moveSlots[slot].pp <= 0 && !active.volatiles.encore; // (the engine's Encore needs a move)
  return slot >= 0 && slot < 4 && !spent ? `move:${slot}` : 'move:none';
}

function sideConditions(side, active) {
  return SIDE_CONDITIONS.map(c => {
    if (c === 'toxic_count') return active && active.status === 'tox' ? active.statusState.stage || 0 : 0;
    const state = side.sideConditions[c];
    if (!state) return 0;
    return LAYERED.has(c) ? state.layers || 1 : turnsLeft(state, 1);
  }).join(';');
}

/** A Pokemon's 29 comma-separated fields; `p` null for an empty team slot (no HP). */
function pokemonState(p) {
  if (!p) {
    return ['NONE', 100, 'NORMAL', 'TYPELESS', 'NORMAL', 'TYPELESS', 0, 1, 'NONE', 'NONE', 'NONE', 'SERIOUS',
      '0;0;0;0;0;0', 100, 100, 100, 100, 100, 'NONE', 0, 0, 1, ...Array(4).fill('NONE;true;0'), false, false,
      'NORMAL'].join(',');
  }
  const types = pair(p.getTypes(false, true));
  const baseTypes = pair(p.species.types);
  const evs = p.set.evs || {};
  const moves = p.moveSlots.slice(0, 4).map(m => `${engineMoveName(m.id)};${!!m.disabled};${Math.max(0, m.pp)}`);
  while (moves.length < 4) moves.push('NONE;true;0');
  return [p.species.id.toUpperCase(), p.level, ...types, ...baseTypes, Math.max(0, p.hp), p.maxhp,
    (p.ability || 'none').toUpperCase(), (p.baseAbility || 'none').toUpperCase(),
    (p.item && !ITEMS_NOT_IN_ENGINE.has(p.item) ? p.item : 'none').toUpperCase(),
    (p.set.nature || 'serious').toUpperCase(), ['hp', ...STATS].map(s => evs[s] || 0).join(';'),
    ...STATS.map(s => p.storedStats[s]), ENGINE_STATUS[p.status] || 'NONE', ...sleepCounters(p), (p.weighthg || 10) / 10,
    ...moves,
    false, !!p.terastallized, (p.teraType || 'Normal').toUpperCase()].join(',');
}

/** [rest_turns, sleep_turns] as the engine counts them: Rest's sleep by the turns it has left
 * (the simulator's own count, which Rest sets to 3), any other by the turns slept so far (the
 * engine draws the waking from it). */
function sleepCounters(p) {
  if (p.status !== 'slp' || !p.statusState) return [0, 0];
  const {time = 0, startTime = 0, source} = p.statusState;
  if (source === p && startTime === 3) return [Math.max(0, time), 0];
  return [0, Math.max(0, Math.min(3, startTime - time))];
}

function pair(types) {
  const t = types.map(x => x.toUpperCase());
  return [t[0] || 'TYPELESS', t[1] || 'TYPELESS'];
}

// Hidden Power keeps its type and power in poke-engine's name (hiddenpowerfire60); the simulator's
// move id names the type only
export function engineMoveName(id) {
  return (/^hiddenpower[a-z]+$/.test(id) ? `${id}60` : id).toUpperCase();
}

/** Turns a condition has left, by the simulator's `duration`; `none` where it keeps no count. */
function turnsLeft(state, none) {
  return state && typeof state.duration === 'number' ? state.duration : none;
}

/** The engine-state methods of an object that has views (the Engine and the Simulator): the
 * worlds a native search (search-rs/) thinks on. */
export const engineStateMethods = {
  /** Per [battle, perspective] pair: null where there is nothing to search (not a singles
   * decision with a move to choose), else {states: one engine state per drawn world (the foe's
   * sets drawn from `seeds[i]`), options: per world, {the engine's name of one of our options:
   * its action index}}; {error} where it failed, never stopping the others. `told`: a
   * diagnostic, not a player, from the true battle (`this.trueBattle`, which only the in-process
   * simulator has), to measure what drawing the foe's sets costs: true, every world is the true
   * battle; 'sets', 'unseen' or 'rebuilt', worlds drawn as the player draws them but for the seen
   * Pokemon's true sets, the true unseen Pokemon, or both. `foes`: each result
   * also has `foes`, per world the foe's team as drawn (thoughts.js teamAsDrawn), for a reader
   * of the player's thoughts. */
  engineWorlds(keys, worlds, seeds, told = false, foes = false) {
    return keys.map(([battle, perspective], i) => {
      try {
        const view = this.view(battle, perspective);
        if (told === true) return toldWorlds(view, this.trueBattle(battle), worlds, foes);
        return worldsOf(view, worlds, seeds[i], foes, told ? partlyTold(view, this.trueBattle(battle), told) : null);
      } catch (e) {
        return {error: e.message};
      }
    });
  },
};

/** Whether a singles `view` has a decision the native search can think on. */
function searchable(view) {
  const req = view.request;
  if (view.battle.gameType !== 'singles' || !req || !req.side || req.wait || req.teamPreview) return false;
  if (!req.active && !forcedSwitch(req)) return false;
  return gameOf('singles', 'the native search').faces(view);
}

/** What drawn worlds are told of the true battle `sim` (rebuild's `truth`): `what` is 'sets',
 * 'unseen' or 'rebuilt' (both). */
function partlyTold(view, sim, what) {
  if (!['sets', 'unseen', 'rebuilt'].includes(what)) throw new Error(`told is true, sets, unseen or rebuilt, not ${what}`);
  const side = sim.sides.find(s => s.id !== view.request.side.id);
  return {side, sets: what !== 'unseen', unseen: what !== 'sets'};
}

function worldsOf(view, worlds, seed, foes, truth = null) {
  if (!searchable(view)) return null;
  const random = mulberry32(seed);
  const out = {states: [], options: [], ...(foes ? {foes: []} : {})};
  for (let w = 0; w < worlds; w++) {
    const world = drawnWorld(view, random, truth);
    if (!world) continue;
    out.states.push(world.state);
    out.options.push(world.options);
    if (foes) out.foes.push(teamAsDrawn(world.foe));
  }
  return out.states.length ? out : null;
}

/** `worlds` copies of the true battle `sim` (an @pkmn/sim Battle) as `view`'s side sees it
 * with every set known (engineWorlds' `told`). */
function toldWorlds(view, sim, worlds, foes) {
  if (!searchable(view)) return null;
  const side = sim.sides.find(s => s.id === view.request.side.id);
  if (!side) throw new Error(`no side ${view.request.side.id} in the true battle`);
  const world = {state: engineState(sim, side.n), options: optionNames(legalChoices(view.request), side, view.request)};
  return {states: Array(worlds).fill(world.state), options: Array(worlds).fill(world.options),
    ...(foes ? {foes: Array(worlds).fill(teamAsDrawn(sim.sides[1 - side.n]))} : {})};
}

function forcedSwitch(req) {
  return !!(req.forceSwitch && req.forceSwitch[0]);
}

/** One world drawn from a singles `view` (`random`: numbers in [0, 1)) as the native search
 * thinks on it: {state: the engine's state, options: {the engine's name of one of our options:
 * its action index}, foe: the world's foe side (a simulated side)}; null where none can be drawn.
 * `truth`: rebuild's (a diagnostic). */
export function drawnWorld(view, random, truth = null) {
  const start = gameOf('singles', 'the native search').start(view, random, truth);
  if (!start) return null;
  // the world's side answers the player's request: trapped, or a forced switch; at one after a
  // faint no Pokemon stands in (a world leaves the fainted out), and the engine's active is an
  // empty slot that one of the rest replaces
  const ours = start.battle.sides[start.me];
  ours.activeRequest = view.request;
  const row = view.request.side.pokemon[0];
  ours.faintedOut = forcedSwitch(view.request) && !!row && (row.fainted || !row.hp);
  const theirs = start.battle.sides[1 - start.me];
  carryLimits(start.battle, start.me, view);
  carryVolatiles(ours.active[0], view.self.active[0], view);
  carryVolatiles(theirs.active[0], view.foe.active[0], view);
  carryCounters(ours, view.self, view);
  carryCounters(theirs, view.foe, view);
  return {state: engineState(start.battle, start.me),
    options: optionNames(legalChoices(view.request), ours, view.request), foe: theirs};
}

/** What limits each side's choices, carried into a drawn world (whose Pokemon start fresh): the
 * moves each active is held to, which the engine keeps as the others disabled until it switches
 * out (ours as the request has them: a Choice lock, Encore, Disable, a move it is locked into; the
 * foe's Choice lock where the world gives it a Choice item and it has moved since it came in);
 * each active's last move since it came in (the engine's Encore and the moves that cannot be used
 * twice in a row read it); and a side's Terastallization spent by a Pokemon that has fainted (a
 * world leaves the fainted out). Without them the search spent most of its visits on options the
 * player could not choose, and let the foe choose options it no longer had. (Trapping and a forced
 * switch come with the request, drawnWorld().) */
function carryLimits(battle, me, view) {
  const req = view.request;
  const ours = battle.sides[me].active[0], foe = battle.sides[1 - me].active[0];
  const offered = req.active && req.active[0] && req.active[0].moves;
  if (ours && offered) {
    for (const slot of ours.moveSlots) slot.disabled = !offered.some(m => m.id === slot.id && !m.disabled);
  }
  lastMoveOf(ours, view.self.active[0]);
  const used = lastMoveOf(foe, view.foe.active[0]);
  if (used && /^choice/.test(foe.item)) {
    for (const slot of foe.moveSlots) slot.disabled = slot.id !== used.id;
  }
  [view.self, view.foe].forEach((side, i) => {
    if (!view.terastallizedOnce(`p${side.n + 1}`)) return;
    for (const p of battle.sides[i ^ me].pokemon) if (!p.terastallized) p.canTerastallize = null;
  });
}

// Volatile statuses a player sees whose weight a world needs but cannot rebuild: a type changed
// (the world's types are the species'), a Disable of a move the foe's set may not hold, a move
// locked into (its turns unseen); Substitute the world carries itself, with its HP.
const NOT_CARRIED = new Set(['typechange', 'disable', 'lockedmove', 'substitute']);
// the turns each volatile the player counts lasts from its start (view.volatileLeft), the
// protocol's name for it, and whether it lasts a turn longer begun after its target acted;
// where no start is seen, halfway
const COUNTED = {taunt: [3, 'Taunt', true], encore: [3, 'Encore', true], yawn: [2, 'Yawn', false]};
const SLOW_START = 5;

/** The volatile statuses `client` (an active Pokemon as the player sees it) shows, on `p` (the
 * same Pokemon in a drawn world, which starts without them) as the engine state reads them:
 * Leech Seed, Salt Cure, confusion, Yawn, Taunt, Encore (where its move is known) with the
 * turns `view`'s player counted, Perish Song's count and the rest the engine has; and Slow
 * Start's turns (an ability's count, which the world's Pokemon began afresh). Only the records
 * are written: the world is not played on. */
function carryVolatiles(p, client, view) {
  if (!p || !client || !client.volatiles) return;
  const ident = client.originalIdent || client.ident;
  for (const id of Object.keys(client.volatiles)) {
    const perish = /^perish([0-3])$/.exec(id);
    if (perish) p.volatiles.perishsong = {id: 'perishsong', duration: Number(perish[1]) || 1};
    if (!VOLATILES.has(id) || NOT_CARRIED.has(id) || p.volatiles[id] || id === 'slowstart') continue;
    if (id === 'encore' && !p.lastMove) continue;  // the engine holds it to its last move
    const [lasts, name, late] = COUNTED[id] || [];
    const left = lasts ? view.volatileLeft(ident, name, lasts, late) : null;
    p.volatiles[id] = {id, duration: left === null ? (lasts ? Math.ceil(lasts / 2) : undefined) : Math.max(1, left)};
  }
  if (p.abilityState && p.ability === 'slowstart') {
    // the end of the turn it came in does not count (it has not been in a whole turn)
    const left = Math.min(SLOW_START, view.volatileLeft(ident, 'ability: Slow Start', SLOW_START + 1) || 0);
    if (left > 0 && client.volatiles.slowstart) p.abilityState.counter = left; else delete p.abilityState.counter;
  }
  // Unburden doubles the Speed of one that lost its item since it came in
  if (p.ability === 'unburden' && !p.item && view.lostItemInPlay(ident)) p.volatiles.unburden = {id: 'unburden'};
}

/** The turns each sleeping Pokemon has slept (a Rest's sleep as Rest counts it) and the
 * active's stage of toxic poison, as the player counts them (`client`: the side as the player
 * sees it in `view`), on the same Pokemon of a drawn world's `side`, whose statuses start
 * fresh: the engine draws the waking and the toxic damage from them. */
function carryCounters(side, client, view) {
  for (const p of side.pokemon) {
    const q = client.team.find(c => c.name === p.name);
    if (!q || !q.statusState || q.status !== p.status) continue;
    if (p.status === 'slp') {
      p.statusState.startTime = 3;
      p.statusState.time = 3 - Math.min(3, q.statusState.sleepTurns || 0);
      // Rest's sleep, which the battle names, counts its own turns left (the engine reads it so)
      if (view.restedSleep(`p${client.n + 1}: ${q.name}`)) p.statusState.source = p;
    }
    if (p.status === 'tox' && p.isActive) p.statusState.stage = view.toxicStage(`p${client.n + 1}a: ${q.name}`);
  }
}

/** Sets `p`'s (a world's Pokemon) last move to `client`'s (the same Pokemon as the player sees
 * it) where it has one of that id; returns its move slot, or null. */
function lastMoveOf(p, client) {
  const id = client && client.lastMove;
  const slot = p && id && id !== 'struggle' ? p.moveSlots.find(m => m.id === id) : null;
  if (slot) p.lastMove = p.battle.dex.getActiveMove(id);
  return slot || null;
}

/** {the engine's name of an option: our action index} for each legal action the engine can name. */
function optionNames(legal, side, req) {
  const out = {};
  for (const [a, choice] of Object.entries(legal)) {
    const name = optionName(choice, side, req);
    if (name) out[name] = Number(a);
  }
  return out;
}

/** A choice string as the engine names the option on `side` (a simulated side: a world's or the
 * true battle's), `req` the request it answers: a move by its id ("-tera" where it
 * Terastallizes; the request lists a move it is locked into first, whatever its slot), a switch by
 * the species it brings in. null where the engine has no name for it: a move not among the
 * Pokemon's own (Struggle, a recharge), a Pokemon not on the side. */
export function optionName(choice, side, req) {
  const m = /^move (\d)( terastallize)?$/.exec(choice);
  if (m) {
    const active = side.active[0];
    const listed = req.active && req.active[0] && req.active[0].moves[Number(m[1]) - 1];
    const slot = active && (listed ? active.moveSlots.find(s => s.id === listed.id) : active.moveSlots[Number(m[1]) - 1]);
    if (!slot) return null;
    return engineMoveName(slot.id).toLowerCase() + (m[2] ? '-tera' : '');
  }
  const s = /^switch (\d)$/.exec(choice);
  const row = s && req.side.pokemon[Number(s[1]) - 1];
  const mon = row && side.pokemon.find(p => p.name === row.name || p.species.name === row.speciesForme);
  return mon ? mon.species.id : null;
}
