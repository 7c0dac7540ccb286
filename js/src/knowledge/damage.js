// Damage from the field's standard calculator (@smogon/calc, with its own data), for Pokemon
// described as the battle shows them. Results are cached: the same attacker, defender, move and
// field give the same rolls, and most of them repeat from one turn to the next.
import {calculate, Generations, Pokemon, Move, Field} from '@smogon/calc';
import {getFinalSpeed} from '@smogon/calc/dist/mechanics/util.js';
import {toID} from '../contract.js';
import {BoundedCache} from './cache.js';

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

// The calculator's own Move clone builds the move again from the dex (a deep copy of its data);
// the mechanics only change its top-level fields and its contact flag, so a shallow copy with
// its own flags serves, at a fraction of the cost.
function moveClone() {
  const c = Object.assign(Object.create(Move.prototype), this);
  c.flags = {...this.flags};
  return c;
}

// calculate() works on clones, and the calculator's own clone recomputes stats from base stats,
// EVs and IVs: own Pokemon would lose the exact stats the request gives. This clone copies every
// field (the state the mechanics change gets its own object; the species data is shared, read only).
function keepStatsClone() {
  const c = Object.assign(Object.create(Pokemon.prototype), this);
  c.ivs = {...this.ivs};
  c.evs = {...this.evs};
  c.boosts = {...this.boosts};
  c.rawStats = {...this.rawStats};
  c.stats = {...this.stats};
  c.moves = this.moves.slice();
  c.types = this.types.slice();
  return c;
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

// Every field and side fact fieldOf sets goes into the whole key: the calculator reads more of
// them than one might think (Multiscale counts as broken when the defender's side has hazards).
// The damage key leaves out what only speed reads (Tailwind) and the attacker's own side, and
// the defender's hazards unless its ability reads them (see FULL_HP_ABILITIES).
const FIELD_KEYS = new WeakMap();
function fieldKey(f) {
  let k = FIELD_KEYS.get(f);
  if (k === undefined) FIELD_KEYS.set(f, k = intern(JSON.stringify(f)));
  return k;
}
const DAMAGE_FIELD_KEYS = new WeakMap();
function damageFieldKey(f, hazards) {
  let k = DAMAGE_FIELD_KEYS.get(f);
  if (k === undefined) {
    const d = f.defenderSide;
    const base = [f.weather, f.terrain, f.isGravity, f.isMagicRoom, f.isWonderRoom,
      d.isReflect, d.isLightScreen, d.isAuroraVeil];
    k = [intern(JSON.stringify(base)), intern(JSON.stringify([...base, d.isSR, d.spikes]))];
    DAMAGE_FIELD_KEYS.set(f, k);
  }
  return k[hazards ? 1 : 0];
}

const cache = new BoundedCache(RESULTS_LIMIT);
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
  const mv = moveOf(gen, move, variant);
  if (!mv) return null;
  const id = move.toLowerCase();
  const [attBoosts, defBoosts] = boostsRead(id, mv, att, field);
  const key = `${gen}#${keyOf(att, attackerHP(att, id), attBoosts)}#` +
    `${keyOf(def, defenderHP(def, id), defBoosts)}#${move}#${variant}#` +
    `${attBoosts === 'all' ? fieldKey(field) : damageFieldKey(field, FULL_HP_ABILITIES.has(def.ability))}`;
  let r = bypass ? undefined : cache.get(key);
  if (r !== undefined) return r;
  r = null;
  stats.computed++;
  try {
    const res = calculate(GENS[gen], calcMonCached(gen, att), calcMonCached(gen, def), mv, fieldOfKey(field));
    r = summarise(res.damage, mv);
  } catch (e) {
    stats.failed++;
  }
  if (!bypass) cache.set(key, r);
  return r;
}

// Keys and the calculator's objects, built once: a Pokemon's key but HP and boosts once per
// object (a WeakMap, so that a changed copy gets its own), interned as a short number so that
// cache keys stay short; the calculator's Pokemon, moves and fields once per key (calculate copies them
// before it changes anything).
const BASE_KEYS = new WeakMap();  // object -> interned base key
// key text -> number, never given out twice. Bounded near what live battles use (a few thousand
// Pokemon descriptions), not at the results' bound: it fills, and memory stops growing, sooner.
// A number that ages out only strands the old results keyed by it until they age out too.
const INTERNED = new BoundedCache(10000);
let interned = 0;
function intern(text) {
  let n = INTERNED.get(text);
  if (n === undefined) INTERNED.set(text, n = interned++);
  return n;
}
function keyOf(m, hpRead, boosts = 'all') {
  let base = BASE_KEYS.get(m);
  if (base === undefined) BASE_KEYS.set(m, base = intern(baseKey(m)));
  let out = `${base}|${hpKey(m, hpRead)}|`;
  for (const st of BOOSTS_READ[boosts]) out += `${m.boosts[st] || 0},`;
  return out;
}
const objects = new BoundedCache(OBJECTS_LIMIT);
function remember(key, make) {
  let o = objects.get(key);
  if (o === undefined) objects.set(key, o = make());
  return o;
}

/** How many entries each cache holds (for benchmarks and the soak). */
export const cacheSizes = () => ({results: cache.size, interned: INTERNED.size, objects: objects.size});
const calcMonCached = (gen, m) => remember(`p${gen}#${keyOf(m, EXACT)}`, () => calcMon(gen, m));
const fieldOfKey = field => remember(`f${fieldKey(field)}`, () => new Field(field));

// Fixed-damage moves have no base power but do damage.
const FIXED = ['Seismic Toss', 'Night Shade', 'Super Fang', 'Final Gambit', 'Endeavor', 'Psywave',
  'Counter', 'Mirror Coat', 'Metal Burst', 'Dragon Rage', 'Sonic Boom'];
/** The calculator's move, or null for one that does no direct damage (or that it does not know). */
function moveOf(gen, move, variant) {
  return remember(`m${gen}#${move}#${variant}`, () => {
    try {
      const mv = new Move(GENS[gen], move, {useZ: variant === 'z', useMax: variant === 'max'});
      mv.clone = moveClone;
      return mv.category !== 'Status' && (mv.bp > 0 || mv.named(...FIXED)) ? mv : null;
    } catch (e) {
      return null;
    }
  });
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

/** [expected, min, max, ko chance] of a damage result against a defender with `hp` HP left:
 * damage as a fraction of that HP (capped at 1), expected and KO chance weighted by accuracy. */
export function damageRow(r, hp) {
  if (!r || hp <= 0) return [0, 0, 0, 0];
  const frac = x => Math.min(x / hp, 1);
  let ko = 0;
  for (const x of r.rolls) if (x >= hp) ko++;
  return [frac(r.mean) * r.accuracy, frac(r.min), frac(r.max), ko / r.rolls.length * r.accuracy];
}

/** The calculator's final speed (boosts, paralysis, item, ability, weather, Tailwind). */
export function speedOf(gen, m, field, side) {
  const key = `s${gen}#${keyOf(m, EXACT)}#${fieldKey(field)}#${side.isTailwind}`;
  let s = cache.get(key);
  if (s === undefined) {
    try {
      const f = new Field(field);
      s = getFinalSpeed(GENS[gen], calcMonCached(gen, m), f, side === field.attackerSide ? f.attackerSide : f.defenderSide);
    } catch (e) {
      s = null;
    }
    cache.set(key, s);
  }
  return s;
}
