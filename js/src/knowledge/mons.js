// Pokemon as the damage calculator needs them, from what a player's view shows: our own exactly
// (the request), the foe's as revealed with the format's likeliest set for the rest, and with a
// gimmick applied. Shared by the singles knowledge (index.js) and the doubles one (doubles.js).
import {Dex} from '@pkmn/sim';
import {calcMon} from './damage.js';
import {moveID} from './sets.js';
import {BoundedCache} from './cache.js';
import {GIMMICKS} from '../actions.js';
import {toID} from '../contract.js';

const STATS = ['hp', 'atk', 'def', 'spa', 'spd', 'spe'];

// Dex names by id, memoised: @pkmn/data builds a new wrapper object on every lookup.
const NAMES = new Map();
export function nameOf(table, id) {
  if (!id) return '';
  let byId = NAMES.get(table);
  if (!byId) NAMES.set(table, byId = new Map());
  let name = byId.get(id);
  if (name === undefined) byId.set(id, name = table.get(id)?.name || id);
  return name;
}

/** Own Pokemon j (request row j) as the calculator needs it: exact stats from the request,
 * boosts from the client (only active ones have any; rows 0 and 1 stand in positions 0 and 1
 * in doubles). */
export function ownMon(view, j) {
  const r = view.request.side.pokemon[j];
  const gen = view.battle.gen;
  const active = r.active ? view.self.active[j] || null : null;
  return {
    species: active ? active.speciesForme : r.speciesForme, level: r.level || 100,
    item: nameOf(gen.items, r.item), ability: nameOf(gen.abilities, r.ability || r.baseAbility),
    nature: undefined, evs: undefined, ivs: undefined, status: r.status || '',
    boosts: special((active && active.boosts) || {}, gen.num), hp: r.hp, maxhp: r.maxhp,
    stats: {hp: r.maxhp, ...r.stats}, tera: r.terastallized || '', teraType: r.teraType || '',
    dynamax: !!(active && active.volatiles.dynamax), fainted: r.fainted || !r.hp,
    moves: r.moves,
  };
}

/** A move's priority for `mon` (`gen`: an @pkmn/data Generation), with the abilities that
 * change it. */
export function priorityOf(gen, mon, id) {
  const m = gen.moves.get(id);
  if (!m) return 0;
  let p = m.priority || 0;
  const ability = toID(mon.ability);
  const full = mon.stats ? mon.hp === mon.stats.hp : mon.hpFraction === 1;
  if (ability === 'prankster' && m.category === 'Status') p += 1;
  if (ability === 'triage' && (m.flags.heal || m.drain)) p += 3;
  if (ability === 'galewings' && m.type === 'Flying' && (gen.num <= 6 || full)) p += 1;
  return p;
}

// Generation 1 has one Special stat: the log boosts "spa", the simulator both halves.
const special = (boosts, gen) => (gen === 1 && boosts.spa ? {...boosts, spd: boosts.spa} : boosts);

/** What the foe has revealed about `p`, as ids. */
export function revealed(p) {
  return {moves: p.moves.filter(isOwnMove).map(moveID),
    item: toID(p.item), ability: toID(p.ability || p.baseAbility), tera: toID(p.terastallized)};
}

// Max Moves and Z-moves show as used moves, but belong to no set.
export const isOwnMove = name => { const m = Dex.moves.get(name); return !m.isMax && !m.isZ; };

/** The foe's Pokemon `p` as the calculator needs it: its level, HP fraction and boosts as shown,
 * with what it has revealed and, for the rest, the format's likeliest set. */
export function foeMon(view, p, sets) {
  const gen = view.battle.gen;
  const likely = sets && sets.set;
  const top = list => (list && list.length ? list[0][0] : '');
  const itemId = toID(p.item) || (p.lastItem ? '' : top(sets && sets.items));
  const abilityId = toID(p.ability || p.baseAbility) || top(sets && sets.abilities);
  return {
    species: p.speciesForme, level: p.level || 100,
    item: nameOf(gen.items, itemId), ability: nameOf(gen.abilities, abilityId),
    nature: likely ? likely.nature : undefined, evs: likely ? likely.evs : DEFAULT_EVS[gen.num >= 3 ? 1 : 0],
    ivs: likely ? likely.ivs : undefined, status: p.status || '', boosts: special(p.boosts || {}, gen.num),
    hpFraction: p.maxhp ? p.hp / p.maxhp : 1, hp: 0, stats: null,
    tera: p.terastallized || '', dynamax: !!p.volatiles.dynamax,
  };
}
const DEFAULT_EVS = [{hp: 252, atk: 252, def: 252, spa: 252, spd: 252, spe: 252},
  {hp: 84, atk: 84, def: 84, spa: 84, spd: 84, spe: 84}];

// The calculator's names: ids with a trailing power ("return102") stripped.
export const moveName = id => String(id).replace(/[0-9]+$/, '');

/** Our active Pokemon with gimmick g applied: [the attacker, the move variant]. */
export function withGimmick(battle, mon, g) {
  switch (GIMMICKS[g]) {
  case 'terastallize': return [{...mon, tera: mon.teraType}, ''];
  case 'zmove': return [mon, 'z'];
  case 'dynamax': return [{...mon, dynamax: true}, 'max'];
  case 'mega': {
    const forme = battle.gen.items.get(toID(mon.item))?.megaStone;
    return [forme ? {...mon, species: forme, stats: null, ability: ''} : mon, ''];
  }
  case 'ultra': return [{...mon, species: 'Necrozma-Ultra', stats: null, ability: ''}, ''];
  default: return [mon, ''];
  }
}

/** Likely stats (hp..spe, actual values) of a foe Pokemon from its likeliest set, or null
 * where the calculator does not know the species. */
export const STATS_CACHE = new BoundedCache(25000);
export function likelyStats(gen, mon) {
  const key = `${gen}|${mon.species}|${mon.level}|${mon.nature}|${mon.evs ? Object.values(mon.evs).join(',') : ''}|` +
    `${mon.ivs ? Object.values(mon.ivs).join(',') : ''}`;
  let out = STATS_CACHE.get(key);
  if (out !== undefined) return out;
  try {
    const p = calcMon(gen, {...mon, hp: 1});
    out = {};
    for (const st of STATS) out[st] = p.rawStats[st];
  } catch (e) {
    out = null;
  }
  STATS_CACHE.set(key, out);
  return out;
}
