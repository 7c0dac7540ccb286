// Damage from the field's standard calculator (@smogon/calc, with its own data), for Pokemon
// described as the battle shows them. Results are cached: the same attacker, defender, move and
// field give the same rolls, and most of them repeat from one turn to the next.
import {calculate, Generations, Pokemon, Move, Field} from '@smogon/calc';
import {getFinalSpeed} from '@smogon/calc/dist/mechanics/util.js';
import {toID} from '../contract.js';

const GENS = Array.from({length: 10}, (_, n) => (n ? Generations.get(n) : null));
const CACHE_LIMIT = 100000;
const OBJECT_LIMIT = 100000;
// Moves whose damage follows the attacker's or the defender's exact HP; for every other move only
// full HP (Multiscale, Sturdy...) and a third or less (Blaze, Torrent...) matter, so the cache
// keys HP by those bands and far more results repeat from turn to turn.
const ATTACKER_HP_MOVES = new Set(['eruption', 'waterspout', 'dragonenergy', 'flail', 'reversal']);
const DEFENDER_HP_MOVES = new Set(['crushgrip', 'wringout', 'hardpress', 'superfang', 'ruination',
  'naturesmadness', 'endeavor', 'finalgambit']);
// Which boosts a damage result reads: the attacker's attacking stats and the defender's
// defending ones (Tera Blast and Shell Side Arm compare exactly those), except for the moves
// below, which read other boosts or speed; for them the whole state and the whole field count.
// Everything else in the field (Tailwind, the attacker's own screens and hazards) is speed only.
const BOOSTS_READ = {att: ['atk', 'spa'], def: ['def', 'spd'], all: ['atk', 'def', 'spa', 'spd', 'spe']};
const WHOLE_STATE_MOVES = new Set(['storedpower', 'powertrip', 'punishment', 'foulplay', 'bodypress',
  'gyroball', 'electroball']);

/** A Pokemon as the calculator needs it: {species, level, item, ability, nature, evs, ivs,
 * boosts, status, hp, maxhp (where stats are not exact), stats (exact, own Pokemon) or null, tera
 * (when terastallized), dynamax}. Names as the dex writes them. The key of its state, with HP
 * exact or by bands (see above). */
function monKey(m, exactHP = true, boosts = 'all') {
  const b = m.boosts;
  const max = m.stats ? m.stats.hp : m.maxhp;
  const hp = exactHP || !max ? m.hp : m.hp >= max ? 'full' : m.hp * 3 <= max ? 'third' : 'mid';
  return `${m.species}|${m.level}|${m.item}|${m.ability}|${m.status}|${hp}|${m.tera}|${m.dynamax ? 1 : 0}|` +
    `${BOOSTS_READ[boosts].map(st => b[st] || 0).join(',')}|` +
    (m.stats ? `${m.stats.hp},${m.stats.atk},${m.stats.def},${m.stats.spa},${m.stats.spd},${m.stats.spe}` :
      `${m.nature}|${m.evs ? Object.values(m.evs).join(',') : ''}|${m.ivs ? Object.values(m.ivs).join(',') : ''}`);
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
// The damage key leaves out what only speed reads (Tailwind) and the attacker's own side.
const FIELD_KEYS = new WeakMap();
function fieldKey(f) {
  let k = FIELD_KEYS.get(f);
  if (k === undefined) FIELD_KEYS.set(f, k = intern(JSON.stringify(f)));
  return k;
}
const DAMAGE_FIELD_KEYS = new WeakMap();
function damageFieldKey(f) {
  let k = DAMAGE_FIELD_KEYS.get(f);
  if (k === undefined) {
    const d = f.defenderSide;
    k = intern(JSON.stringify([f.weather, f.terrain, f.isGravity, f.isMagicRoom, f.isWonderRoom,
      d.isReflect, d.isLightScreen, d.isAuroraVeil, d.isSR, d.spikes]));
    DAMAGE_FIELD_KEYS.set(f, k);
  }
  return k;
}

const cache = new Map();
export const stats = {calls: 0, computed: 0, failed: 0};

/** Damage of `move` (a move name or id; `variant`: '', 'z' or 'max') from attacker to defender:
 * {min, max, mean, rolls (sorted), accuracy} in HP, or null where the calculator cannot tell
 * (a status move, a Pokemon or move it does not know). */
export function damage(gen, att, def, move, field, variant = '') {
  stats.calls++;
  const id = move.toLowerCase();
  const whole = WHOLE_STATE_MOVES.has(id);
  const key = `${gen}#${keyOf(att, ATTACKER_HP_MOVES.has(id), whole ? 'all' : 'att')}#` +
    `${keyOf(def, DEFENDER_HP_MOVES.has(id), whole ? 'all' : 'def')}#${move}#${variant}#` +
    `${whole ? fieldKey(field) : damageFieldKey(field)}`;
  let r = cache.get(key);
  if (r !== undefined) return r;
  r = null;
  const mv = moveOf(gen, move, variant);
  if (mv) {
    stats.computed++;
    try {
      const res = calculate(GENS[gen], calcMonCached(gen, att), calcMonCached(gen, def), mv, fieldOfKey(field));
      r = summarise(res.damage, mv);
    } catch (e) {
      stats.failed++;
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, r);
  return r;
}

// Keys and the calculator's objects, built once: a Pokemon's key once per object and kind (a
// WeakMap, so that a changed copy gets its own) and interned as a short number, so that cache keys
// stay short; the calculator's Pokemon, moves and fields once per key (calculate copies them
// before it changes anything).
const KEYS = new Map();        // kind -> WeakMap(object -> interned key)
const INTERNED = new Map();    // key text -> number; a number is never given out twice
let interned = 0;
function intern(text) {
  let n = INTERNED.get(text);
  if (n === undefined) {
    if (INTERNED.size >= CACHE_LIMIT) INTERNED.clear();
    INTERNED.set(text, n = interned++);
  }
  return n;
}
function keyOf(m, exactHP, boosts = 'all') {
  const kind = `${exactHP ? 1 : 0}${boosts}`;
  let keys = KEYS.get(kind);
  if (!keys) KEYS.set(kind, keys = new WeakMap());
  let k = keys.get(m);
  if (k === undefined) keys.set(m, k = intern(monKey(m, exactHP, boosts)));
  return k;
}
const objects = new Map();
function remember(key, make) {
  let o = objects.get(key);
  if (o === undefined) {
    if (objects.size >= OBJECT_LIMIT) objects.clear();
    objects.set(key, o = make());
  }
  return o;
}
const calcMonCached = (gen, m) => remember(`p${gen}#${keyOf(m, true)}`, () => calcMon(gen, m));
const fieldOfKey = field => remember(`f${fieldKey(field)}`, () => new Field(field));

// Fixed-damage moves have no base power but do damage.
const FIXED = ['Seismic Toss', 'Night Shade', 'Super Fang', 'Final Gambit', 'Endeavor', 'Psywave',
  'Counter', 'Mirror Coat', 'Metal Burst', 'Dragon Rage', 'Sonic Boom'];
/** The calculator's move, or null for one that does no direct damage (or that it does not know). */
function moveOf(gen, move, variant) {
  return remember(`m${gen}#${move}#${variant}`, () => {
    try {
      const mv = new Move(GENS[gen], move, {useZ: variant === 'z', useMax: variant === 'max'});
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
  const key = `s${gen}#${keyOf(m, true)}#${fieldKey(field)}#${side.isTailwind}`;
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
