// The foe's possible sets in random-battle formats, from the format's own generator
// (@pkmn/randoms): its set data bounds which moves a species can have, and sets drawn from the
// generator itself give how likely each move, item, ability and Tera type is. Everything the foe
// has revealed narrows both. Formats without a random generator have no set data: null.
import {TeamGenerators} from '@pkmn/randoms';
import {PRNG, Dex} from '@pkmn/sim';
import {toID} from '../contract.js';
import {BoundedCache} from './cache.js';

const SAMPLES = 64;   // sets drawn per species: move frequencies to about +-6%
// Hidden Power's type is not part of what the battle shows; the vocabulary has it without one.
export const moveID = s => { const id = toID(s).replace(/[0-9]+$/, ''); return id.startsWith('hiddenpower') ? 'hiddenpower' : id; };

const generators = new Map();  // format id -> generator, or null where the format has none
function generator(format) {
  let g = generators.get(format);
  if (g === undefined) {
    try {
      g = TeamGenerators.getTeamGenerator(format, [1, 2, 3, 4]);
    } catch (e) {
      g = null;
    }
    generators.set(format, g);
  }
  return g;
}

/** What the format's generator can give one species: {sets: drawn sets (ids), pools: move pools
 * (ids) the format's data lists for it}, or null where it cannot make the species. A Mega or
 * other battle-only forme is looked up with the species it comes from, and a species with
 * Mega formes includes their sets (the data may list a Mega's sets under the Mega). */
const species = new Map();  // `${format}|${species id}` -> entry or null
export function speciesSets(format, name) {
  const key = `${format}|${toID(name)}`;
  let entry = species.get(key);
  if (entry !== undefined) return entry;
  entry = null;
  const g = generator(format);
  if (g) {
    const parts = relatives(g.dex || Dex, name).map(n => draw(g, n)).filter(Boolean);
    if (parts.length) {
      entry = {sets: parts.flatMap(e => e.sets),
        pools: parts.some(e => e.pools) ? parts.flatMap(e => e.pools || []) : null};
    }
  }
  species.set(key, entry);
  return entry;
}

function relatives(dex, name) {
  let sp = dex.species.get(name);
  if (!sp.exists) return [baseName(name)];
  if (sp.battleOnly) sp = dex.species.get(Array.isArray(sp.battleOnly) ? sp.battleOnly[0] : sp.battleOnly);
  else if (sp.isMega || sp.isPrimal) sp = dex.species.get(sp.changesFrom || sp.baseSpecies);
  // a Mega, a Primal, or a battle-only forme the data keeps sets for (gen 8 doubles: Cherrim-Sunshine)
  const megas = (sp.otherFormes || []).filter(f => { const o = dex.species.get(f); return o.isMega || o.isPrimal || o.battleOnly; });
  const names = [sp.name, ...megas];
  // gen 8 keeps a Gigantamax Pokemon's sets under its Gmax forme, which otherFormes does not list
  const gmax = dex.species.get(`${sp.name}-Gmax`);
  if (gmax.exists && gmax.changesFrom === sp.name) names.push(gmax.name);
  if (sp.name !== sp.baseSpecies) names.push(sp.baseSpecies);  // a cosmetic forme the data keys by its base
  return names;
}

// A battle shows a cosmetic or in-battle forme ("Palafin-Hero"); the data keys the species.
const baseName = name => String(name).split('-')[0];

// A doubles format's generator keeps its own sets (gen 9: randomDoublesSets; gen 8: the doubles
// moves and levels beside the singles ones in randomData) and draws from them only when told.
const isDoubles = g => !!g.format && g.format.gameType === 'doubles';
const setData = g => isDoubles(g) && g.randomDoublesSets ? g.randomDoublesSets : g.randomSets;

function draw(g, name) {
  const id = toID(name);
  const doubles = isDoubles(g);
  const sets = setData(g);
  const data = (sets && sets[id]) || (g.randomData && g.randomData[id]);
  if (!data) return null;
  const drawn = [];
  // Seeded by the species alone, so that what is drawn never depends on what came before.
  const seed = [...id].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 65536, 7);
  for (let i = 0; i < SAMPLES; i++) {
    g.prng = new PRNG([seed, i, 1, 2]);
    let set;
    try {
      set = g.randomSet(id, {}, i % 6 === 0, doubles);
    } catch (e) {
      break;
    }
    drawn.push({moves: set.moves.map(moveID), item: toID(set.item), ability: toID(set.ability),
      tera: toID(set.teraType), evs: set.evs, ivs: set.ivs, nature: set.nature, level: set.level});
  }
  return drawn.length ? finish(drawn, g, id) : null;
}

// Every move list the format's data has for the species, together with the moves drawn: the
// generations keep them in different places (role move pools; move lists with essential,
// exclusive and combination moves), and the union of them all bounds what the species can have.
function finish(sets, g, id) {
  const pools = [];
  const own = setData(g);
  const moveLists = isDoubles(g) ? ['doublesMoves'] : ['moves', 'essentialMoves', 'exclusiveMoves', 'comboMoves'];
  for (const data of [own && own[id], g.randomData && g.randomData[id]]) {
    if (!data) continue;
    for (const s of data.sets || []) if (s.movepool) pools.push(s.movepool.map(moveID));
    const lists = moveLists.filter(k => Array.isArray(data[k]));
    if (lists.length) pools.push(lists.flatMap(k => data[k].map(moveID)));
  }
  const drawn = [...new Set(sets.flatMap(s => s.moves))];
  // a role's pool must hold every move of a drawn set of that role; where one does not, the data
  // is not what the generator reads, and the drawn moves join every pool
  const covered = sets.every(s => pools.some(pool => s.moves.every(m => pool.includes(m))));
  return {sets, pools: pools.length ? (covered ? pools : pools.map(p => [...new Set([...p, ...drawn])])) : null};
}

/** The sets still possible for a foe that revealed `known` = {moves: [ids], item, ability, tera}
 * (ids, '' where unrevealed): {moves, items, abilities, teras: [[id, probability], ...] sorted
 * by probability, revealed ones first at 1; set: the most likely complete set; fitting: the
 * drawn sets that fit what was revealed, each as likely as any other}. null without set data. */
// The same species and revealed facts give the same answer. Live battles use one entry per foe
// Pokemon (under a thousand for 64 battles); narrowing again is cheap next to drawing the sets.
const narrowed = new BoundedCache(5000);
export function possibleSets(format, name, known) {
  const key = `${format}|${name}|${known.moves.join(',')}|${known.item}|${known.ability}|${known.tera}`;
  let out = narrowed.get(key);
  if (out === undefined) narrowed.set(key, out = narrow(format, name, known));
  return out;
}

/** How many entries the set caches hold (for benchmarks and the soak). */
export const setCacheSizes = () => ({species: species.size, narrowed: narrowed.size});

function narrow(format, name, known) {
  const entry = speciesSets(format, name);
  if (!entry) return null;
  // A revealed move no pool allows was not this Pokemon's (an Illusion user's, shown under its
  // disguise): it is listed, but it narrows nothing.
  const fitting = entry.pools ? known.moves.filter(m => entry.pools.some(pool => pool.includes(m))) : known.moves;
  const hasMoves = s => fitting.every(m => s.moves.includes(m));
  const fits = s => hasMoves(s) && (!known.item || s.item === known.item) &&
    (!known.ability || s.ability === known.ability) && (!known.tera || s.tera === known.tera);
  let sets = entry.sets.filter(fits);
  if (!sets.length) sets = entry.sets.filter(hasMoves);
  // The moves the data allows: the pools that hold every revealed move.
  let allowed = null;
  if (entry.pools) {
    allowed = new Set();
    for (const pool of entry.pools) {
      if (fitting.every(m => pool.includes(m))) for (const m of pool) allowed.add(m);
    }
  }
  const moves = tally(sets, s => s.moves, known.moves, allowed);
  if (allowed) {
    // a move its pools allow but no drawn set had: possible, if unlikely
    for (const m of allowed) if (!moves.some(([id]) => id === m)) moves.push([m, 0.5 / SAMPLES]);
  }
  return {
    moves,
    items: tally(sets, s => [s.item], known.item ? [known.item] : []),
    abilities: tally(sets, s => [s.ability], known.ability ? [known.ability] : []),
    teras: tally(sets, s => [s.tera], known.tera ? [known.tera] : []),
    set: sets[0] || entry.sets[0],
    fitting: sets,
    impossible: known.moves.filter(m => !fitting.includes(m)),
  };
}

/** [[id, share of `sets`], ...] of what `pick` gives each set, the `revealed` ids first at 1
 * (and, with `allowed`, only ids it holds). */
export function tally(sets, pick, revealed, allowed = null) {
  const counts = new Map();
  for (const s of sets) for (const id of pick(s)) if (id) counts.set(id, (counts.get(id) || 0) + 1);
  const out = revealed.map(id => [id, 1]);
  const rest = [...counts].filter(([id]) => !revealed.includes(id) && (!allowed || allowed.has(id)))
    .map(([id, n]) => [id, n / sets.length]).sort((a, b) => b[1] - a[1]);
  return out.concat(rest);
}
