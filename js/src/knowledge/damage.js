// Damage from the field's standard calculator (@smogon/calc, with its own data), for Pokemon
// described as the battle shows them. Results are cached: the same attacker, defender, move and
// field give the same rolls, and most of them repeat from one turn to the next.
import {calculate, Generations, Pokemon, Move, Field} from '@smogon/calc';
import {getFinalSpeed} from '@smogon/calc/dist/mechanics/util.js';
import {toID} from '../contract.js';
import {BoundedCache, BoundedPairCache} from './cache.js';

const GENS = Array.from({length: 10}, (_, n) => (n ? Generations.get(n) : null));
// Entries per cache generation (see cache.js). Results are small and a worker's live battles
// read ~50,000 of them; the calculator's objects are large and reused mostly within a turn.
const RESULTS_LIMIT = 50000;
const OBJECTS_LIMIT = 5000;
// The HP a damage result reads. Moves whose damage follows the attacker's or the defender's exact
// HP key it exactly. Otherwise only a few abilities and one move read it, by bands: the
// attacker's at half (Defeatist) or a third (Blaze, Torrent, Overgrow, Swarm), the defender's
// when full (Multiscale, Shadow Shield, Tera Shell: these also read the hazards on its side) or
// at half (Brine). Every other result is the same at any HP, so the key leaves HP out and the
// results repeat from turn to turn as Pokemon take damage.
const ATTACKER_HP_MOVES = new Set(['eruption', 'waterspout', 'dragonenergy', 'flail', 'reversal',
  'finalgambit', 'endeavor']);
const DEFENDER_HP_MOVES = new Set(['crushgrip', 'wringout', 'hardpress', 'superfang', 'ruination',
  'naturesmadness', 'endeavor', 'guardianofalola']);
const ATTACKER_HP_ABILITIES = new Set(['Defeatist', 'Blaze', 'Torrent', 'Overgrow', 'Swarm']);
const FULL_HP_ABILITIES = new Set(['Multiscale', 'Shadow Shield', 'Tera Shell']);
const HALF_HP_MOVES = new Set(['brine']);
const EXACT = 2, BANDS = 1, NONE = 0;
const attackerHP = (m, id) => (ATTACKER_HP_MOVES.has(id) ? EXACT : ATTACKER_HP_ABILITIES.has(m.ability) ? BANDS : NONE);
const defenderHP = (m, id) => (DEFENDER_HP_MOVES.has(id) ? EXACT :
  FULL_HP_ABILITIES.has(m.ability) || HALF_HP_MOVES.has(id) ? BANDS : NONE);
// Which boosts a damage result reads: the attacker's in the stat its move attacks with and the
// defender's in the stat it defends with, by the move's category (Psyshock and its kin are
// special moves that hit Defense). Moves that pick their category by comparing stats (Tera
// Blast, Shell Side Arm...) read both of each, as does everything under Wonder Room (it swaps
// the defending stats) and against Download (it compares them). The moves in
// WHOLE_STATE_MOVES read other boosts or who moves first, as does Analytic: for them the whole
// state and the whole field count. Everything else in the field (Tailwind, the attacker's own screens and hazards) is
// speed only.
const BOOSTS_READ = {atk: ['atk'], spa: ['spa'], def: ['def'], spd: ['spd'], att: ['atk', 'spa'],
  defs: ['def', 'spd'], all: ['atk', 'def', 'spa', 'spd', 'spe']};
const WHOLE_STATE_MOVES = new Set(['storedpower', 'powertrip', 'punishment', 'foulplay', 'bodypress',
  'gyroball', 'electroball', 'payback', 'boltbeak', 'fishiousrend', 'spectralthief']);
const STAT_COMPARING_MOVES = new Set(['terablast', 'shellsidearm', 'photongeyser', 'lightthatburnsthesky',
  'terastarstorm']);
/** [the attacker's, the defender's] boosts `mv` reads, as keys of BOOSTS_READ. */
function boostsRead(id, mv, att, field) {
  if (WHOLE_STATE_MOVES.has(id) || att.ability === 'Analytic') return ['all', 'all'];
  if (STAT_COMPARING_MOVES.has(id) || att.ability === 'Download') return ['att', 'defs'];
  const physical = mv.category === 'Physical';
  return [physical ? 'atk' : 'spa',
    field.isWonderRoom ? 'defs' : physical || mv.overrideDefensiveStat === 'def' ? 'def' : 'spd'];
}

/** A Pokemon as the calculator needs it: {species, level, item, ability, nature, evs, ivs,
 * boosts, status, hp, maxhp (where stats are not exact), stats (exact, own Pokemon) or null, tera
 * (when terastallized), dynamax}. Names as the dex writes them. The key of its state but HP and
 * boosts. */
function baseKey(m) {
  return `${m.species}|${m.level}|${m.item}|${m.ability}|${m.status}|${m.tera}|${m.dynamax ? 1 : 0}|` +
    (m.stats ? `${m.stats.hp},${m.stats.atk},${m.stats.def},${m.stats.spa},${m.stats.spd},${m.stats.spe}` :
      `${m.nature}|${m.evs ? Object.values(m.evs).join(',') : ''}|${m.ivs ? Object.values(m.ivs).join(',') : ''}`);
}

/** Its HP as a result reads it: exact, by bands or not at all (see above). */
function hpKey(m, hpRead) {
  if (hpRead === NONE) return '';
  const max = m.stats ? m.stats.hp : m.maxhp;
  if (hpRead === EXACT || !max) return m.hp;
  return m.hp >= max ? 'full' : m.hp * 2 > max ? 'high' : m.hp * 3 > max ? 'mid' : 'low';
}

/** The name the calculator knows a species by: cosmetic formes ("Florges-Blue") it lacks are
 * their base species in battle. */
export function calcSpecies(gen, name) {
  const g = GENS[gen];
  if (g.species.get(toID(name))) return name;
  const base = String(name).split('-')[0];
  if (g.species.get(toID(base))) return base;
  throw new Error(`the calculator does not know ${name}`);
}

/** The calculator's Pokemon for `m` in generation `gen`; exact stats replace computed ones. */
export function calcMon(gen, m) {
  const p = new Pokemon(GENS[gen], calcSpecies(gen, m.species), {level: m.level, item: m.item || undefined,
    ability: m.ability || undefined, nature: m.nature, evs: m.evs, ivs: m.ivs, boosts: m.boosts,
    status: m.status || '', teraType: m.tera || undefined, isDynamaxed: !!m.dynamax});
  if (m.stats) {
    for (const st of ['hp', 'atk', 'def', 'spa', 'spd', 'spe']) p.rawStats[st] = p.stats[st] = m.stats[st];
  }
  p.originalCurHP = Math.max(1, Math.min(m.hp, p.rawStats.hp));
  p.clone = keepStatsClone;
  return p;
}

// calculate() works on clones of its Pokemon and move. The calculator's own clones build them
// again: a Pokemon's stats from base stats, EVs and IVs (own Pokemon would lose the exact stats
// the request gives), a move from the dex (a deep copy of its data). These copy every field
// instead: what the mechanics change gets its own object (a Pokemon's stat tables, moves and
// types, a move's flags: its contact flag changes); the rest, species data included, is shared
// and only read.
const keepStatsClone = cloner(c => {
  c.ivs = {...c.ivs};
  c.evs = {...c.evs};
  c.boosts = {...c.boosts};
  c.rawStats = {...c.rawStats};
  c.stats = {...c.stats};
  c.moves = c.moves.slice();
  c.types = c.types.slice();
});
const moveClone = cloner(c => { c.flags = {...c.flags}; });

/** A clone method for objects that have it as their own `clone` field: a copy of every own
 * field, then `separate` gives the copy its own objects where it needs them. The copy is built
 * by a constructor made for the object's field names, one per set of names: V8 builds an object
 * field by field that way ten times faster than Object.assign onto Object.create(prototype). */
function cloner(separate) {
  return function clone() {
    const c = new (copierOf(this))(this);
    separate(c);
    return c;
  };
}
const COPIERS = new Map();  // the fields' names, joined -> constructor
const COPIER_OF = new WeakMap();  // object -> its constructor, once looked up
function copierOf(obj) {
  let C = COPIER_OF.get(obj);
  if (C) return C;
  const keys = Object.keys(obj);
  const names = keys.join(',');
  C = COPIERS.get(names);
  if (!C) {
    C = new Function('s', keys.map(k => `this[${JSON.stringify(k)}] = s[${JSON.stringify(k)}];`).join('\n'));
    C.prototype = Object.getPrototypeOf(obj);
    COPIERS.set(names, C);
  }
  COPIER_OF.set(obj, C);
  return C;
}

/** The calculator's Field from the client's battle, seen from `attacker`'s side. */
export function fieldOf(battle, attackerSide, defenderSide) {
  const f = battle.field;
  const side = s => ({isReflect: !!s.sideConditions.reflect, isLightScreen: !!s.sideConditions.lightscreen,
    isAuroraVeil: !!s.sideConditions.auroraveil, isTailwind: !!s.sideConditions.tailwind,
    isSR: !!s.sideConditions.stealthrock, spikes: (s.sideConditions.spikes || {}).level || 0});
  // @pkmn/client names weather and terrain as the calculator does ("Rain", "Electric")
  return {weather: f.weather, terrain: f.terrain,
    isGravity: !!f.pseudoWeather.gravity, isMagicRoom: !!f.pseudoWeather.magicroom,
    isWonderRoom: !!f.pseudoWeather.wonderroom,
    attackerSide: side(attackerSide), defenderSide: side(defenderSide)};
}

// Keys are numbers, not text: hashing a key text built afresh for every lookup cost more than
// the rest of a cached result's lookup. Every description that a result reads gets a small id
// once: a Pokemon's state as a move reads it (per object: see stateId), a field as a move reads
// it (per object), a move with its generation and variant. A result's key is the pair
// [attacker's id * 2^26 + defender's id, move's id * 2^21 + field's id]. Ids aged out of their
// table are never given again, so the results keyed by them only strand until they age out too;
// when ids near those bounds, every cache starts afresh (restartCaches).
const STATE_BOUND = 2 ** 26, FIELD_BOUND = 2 ** 21;
const HEADROOM = 64;  // ids one call can give out, and then some

/** Small integer ids for texts, in the order first seen; bounded like the caches. */
class Ids {
  constructor(limit) {
    this.known = new BoundedCache(limit);
    this.next = 0;
  }

  of(text) {
    let n = this.known.get(text);
    if (n === undefined) this.known.set(text, n = this.next++);
    return n;
  }
}

// Live battles use a few thousand Pokemon and field descriptions: these fill, and memory stops
// growing, well before the results do.
const IDS_LIMIT = 10000;
const BOOST_SLOTS = {atk: 0, spa: 1, def: 2, spd: 3, att: 4, defs: 5, all: 6};
let bases, states, fields, stateMemo, fieldMemo, damageFieldMemo;
let results, speeds, pokemonObjects, fieldObjects;
/** Empties every cache and id table: when the ids near their bounds, and in the checks. */
export function restartCaches() {
  bases = new Ids(IDS_LIMIT);
  states = new Ids(2 * IDS_LIMIT);
  fields = new Ids(IDS_LIMIT);
  stateMemo = new WeakMap();        // Pokemon object -> {base id, state id per reading}
  fieldMemo = new WeakMap();        // field object -> whole field id
  damageFieldMemo = new WeakMap();  // field object -> [field id as damage reads it, with hazards]
  results = new BoundedPairCache(RESULTS_LIMIT);
  speeds = new BoundedPairCache(RESULTS_LIMIT);
  pokemonObjects = new BoundedPairCache(OBJECTS_LIMIT);
  fieldObjects = new BoundedCache(OBJECTS_LIMIT);
}
restartCaches();
function idsLeft() {
  if (states.next > STATE_BOUND - HEADROOM || fields.next > FIELD_BOUND - HEADROOM) restartCaches();
}

/** The id of `m`'s state as a result reads it: its description, its HP read exactly, by bands
 * or not at all, and the boosts in BOOSTS_READ[boosts]. Once per object and reading (an object
 * is not changed after its first use: a changed copy gets its own). */
function stateId(m, hpRead, boosts = 'all') {
  let memo = stateMemo.get(m);
  if (memo === undefined) stateMemo.set(m, memo = {base: bases.of(baseKey(m)), ids: []});
  const slot = hpRead * 8 + BOOST_SLOTS[boosts];
  let id = memo.ids[slot];
  if (id === undefined) {
    let text = `${memo.base}|${hpKey(m, hpRead)}|`;
    for (const st of BOOSTS_READ[boosts]) text += `${m.boosts[st] || 0},`;
    memo.ids[slot] = id = states.of(text);
  }
  return id;
}

// Every field and side fact fieldOf sets goes into the whole field's id: the calculator reads
// more of them than one might think (Multiscale counts as broken when the defender's side has
// hazards). The damage id leaves out what only speed reads (Tailwind) and the attacker's own
// side, and the defender's hazards unless its ability reads them (see FULL_HP_ABILITIES).
function fieldId(f) {
  let k = fieldMemo.get(f);
  if (k === undefined) fieldMemo.set(f, k = fields.of(JSON.stringify(f)));
  return k;
}
function damageFieldId(f, hazards) {
  let k = damageFieldMemo.get(f);
  if (k === undefined) {
    const d = f.defenderSide;
    const base = [f.weather, f.terrain, f.isGravity, f.isMagicRoom, f.isWonderRoom,
      d.isReflect, d.isLightScreen, d.isAuroraVeil];
    k = [fields.of(JSON.stringify(base)), fields.of(JSON.stringify([...base, d.isSR, d.spikes]))];
    damageFieldMemo.set(f, k);
  }
  return k[hazards ? 1 : 0];
}

export const stats = {calls: 0, computed: 0, failed: 0};
let bypass = false;

/** fn's result with every damage result computed afresh, none read from or left in the cache:
 * for checking that the cache's keys hold everything a result depends on. */
export function uncached(fn) {
  bypass = true;
  try {
    return fn();
  } finally {
    bypass = false;
  }
}

/** Damage of `move` (a move name or id; `variant`: '', 'z' or 'max') from attacker to defender:
 * {min, max, mean, rolls (sorted), accuracy} in HP, or null where the calculator cannot tell
 * (a status move, a Pokemon or move it does not know). */
export function damage(gen, att, def, move, field, variant = '') {
  stats.calls++;
  const entry = moveOf(gen, move, variant);
  if (!entry.move) return null;
  idsLeft();
  const [attBoosts, defBoosts] = boostsRead(entry.id, entry.move, att, field);
  const pair = stateId(att, attackerHP(att, entry.id), attBoosts) * STATE_BOUND +
    stateId(def, defenderHP(def, entry.id), defBoosts);
  const rest = entry.num * FIELD_BOUND +
    (attBoosts === 'all' ? fieldId(field) : damageFieldId(field, FULL_HP_ABILITIES.has(def.ability)));
  let r = bypass ? undefined : results.get(pair, rest);
  if (r !== undefined) return r;
  r = null;
  stats.computed++;
  try {
    const res = calculate(GENS[gen], calcMonCached(gen, att), calcMonCached(gen, def), entry.move, fieldOfCached(field));
    r = summarise(res.damage, entry.move);
  } catch (e) {
    stats.failed++;
  }
  if (!bypass) results.set(pair, rest, r);
  return r;
}

/** How many entries each cache holds (for benchmarks and the soak). */
export const cacheSizes = () => ({results: results.size, speeds: speeds.size, ids: bases.known.size +
  states.known.size + fields.known.size, objects: pokemonObjects.size + fieldObjects.size});

// The calculator's objects, once per state (calculate copies them before it changes anything).
function calcMonCached(gen, m) {
  const id = stateId(m, EXACT);
  let p = pokemonObjects.get(id, gen);
  if (p === undefined) pokemonObjects.set(id, gen, p = calcMon(gen, m));
  return p;
}
function fieldOfCached(field) {
  const id = fieldId(field);
  let f = fieldObjects.get(id);
  if (f === undefined) fieldObjects.set(id, f = new Field(field));
  return f;
}

// Fixed-damage moves have no base power but do damage.
const FIXED = ['Seismic Toss', 'Night Shade', 'Super Fang', 'Final Gambit', 'Endeavor', 'Psywave',
  'Counter', 'Mirror Coat', 'Metal Burst', 'Dragon Rage', 'Sonic Boom'];
/** The calculator's move for `move` in generation `gen` with `variant`, as {move (null for one
 * that does no direct damage, or that it does not know), id, num (its id number)}: once per
 * generation, variant and move name. */
const MOVE_TABLES = {'': [], z: [], max: []};  // variant -> generation -> move name -> entry
let moveNums = 0;
function moveOf(gen, move, variant) {
  const byGen = MOVE_TABLES[variant];
  const table = byGen[gen] || (byGen[gen] = new BoundedCache(OBJECTS_LIMIT));
  let entry = table.get(move);
  if (entry === undefined) {
    table.set(move, entry = {move: damagingMove(gen, move, variant), id: move.toLowerCase(), num: moveNums++});
  }
  return entry;
}

function damagingMove(gen, move, variant) {
  try {
    const mv = new Move(GENS[gen], move, {useZ: variant === 'z', useMax: variant === 'max'});
    mv.clone = moveClone;
    return mv.category !== 'Status' && (mv.bp > 0 || mv.named(...FIXED)) ? mv : null;
  } catch (e) {
    return null;
  }
}

export function summarise(d, mv) {
  let rolls;
  if (typeof d === 'number') rolls = [d];
  else if (Array.isArray(d[0])) {
    // several hits, a roll list each: the total of the i-th lowest rolls (a close enough spread)
    rolls = d[0].map((_, i) => d.reduce((s, hit) => s + hit[i], 0));
  } else rolls = d.slice();
  rolls.sort((a, b) => a - b);
  const mean = rolls.reduce((s, x) => s + x, 0) / rolls.length;
  const accuracy = mv.named('Struggle') || typeof mv.accuracy !== 'number' ? 1 : Math.min(mv.accuracy, 100) / 100;
  return {min: rolls[0], max: rolls[rolls.length - 1], mean, rolls, accuracy};
}

/** [expected, min, max, ko chance] (DAMAGE_COLUMNS of knowledge/index.js) of a damage result
 * against a defender with `hp` HP left: damage as a fraction of that HP (capped at 1), expected
 * and KO chance weighted by accuracy. */
export function damageRow(r, hp) {
  if (!r || hp <= 0) return [0, 0, 0, 0];
  const frac = x => Math.min(x / hp, 1);
  let ko = 0;
  for (const x of r.rolls) if (x >= hp) ko++;
  return [frac(r.mean) * r.accuracy, frac(r.min), frac(r.max), ko / r.rolls.length * r.accuracy];
}

/** The calculator's final speed (boosts, paralysis, item, ability, weather, Tailwind). */
export function speedOf(gen, m, field, side) {
  idsLeft();
  const id = stateId(m, EXACT);
  const rest = (fieldId(field) * 2 + (side.isTailwind ? 1 : 0)) * 16 + gen;
  let s = speeds.get(id, rest);
  if (s === undefined) {
    try {
      const f = new Field(field);
      s = getFinalSpeed(GENS[gen], calcMonCached(gen, m), f, side === field.attackerSide ? f.attackerSide : f.defenderSide);
    } catch (e) {
      s = null;
    }
    speeds.set(id, rest, s);
  }
  return s;
}
