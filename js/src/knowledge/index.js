// Battle knowledge for one decision, computed where the battle state is: damage of every action
// (our moves with each legal gimmick, each own Pokemon's best hit), what the foe's active Pokemon
// can do to each of ours, who moves first, and the foe's possible sets. The encoder writes it into
// the singles-v2 features; the scripted players read the same numbers.
import {damage, damageRow, speedOf, fieldOf, calcMon, uncached, cacheSizes} from './damage.js';
import {possibleSets, moveID, setCacheSizes} from './sets.js';
import {BoundedCache} from './cache.js';
import {Dex} from '@pkmn/sim';
import {writeMask, NUM_ACTIONS, GIMMICKS} from '../actions.js';
import {toID} from '../contract.js';
import {formatOf} from '../format.js';

export const DAMAGE_COLUMNS = ['expected', 'min', 'max', 'ko_chance'];
export const FOE_MOVES = 6;       // candidate moves of the foe's active Pokemon
const TEAM = 6, MOVE_SLOTS = 4;   // Pokemon a side, move slots a Pokemon
const ROW = DAMAGE_COLUMNS.length;  // a damage row (damageRow): its columns by name below
const EXPECTED = DAMAGE_COLUMNS.indexOf('expected'), KO = DAMAGE_COLUMNS.indexOf('ko_chance');
const G = GIMMICKS.length;
const STATS = ['hp', 'atk', 'def', 'spa', 'spd', 'spe'];
const legalMask = new Uint8Array(NUM_ACTIONS);

/** The knowledge of `view`'s current decision, computed once per request. */
export function knowledgeOf(view) {
  if (view._knowledge && view._knowledge.request === view.request && view._knowledge.turn === view.battle.turn) {
    return view._knowledge;
  }
  const k = compute(view);
  view._knowledge = k;
  return k;
}

/** How many entries each of the knowledge's caches holds. */
export const knowledgeCacheSizes = () => ({...cacheSizes(), ...setCacheSizes(), likelyStats: STATS_CACHE.size});

/** The same knowledge computed again with no cached damage result (for checks). */
export const knowledgeUncached = view => uncached(() => compute(view));

// Dex names by id, memoised: @pkmn/data builds a new wrapper object on every lookup.
const NAMES = new Map();
function nameOf(table, id) {
  if (!id) return '';
  let byId = NAMES.get(table);
  if (!byId) NAMES.set(table, byId = new Map());
  let name = byId.get(id);
  if (name === undefined) byId.set(id, name = table.get(id)?.name || id);
  return name;
}

/** Own Pokemon j as the calculator needs it: exact stats from the request, boosts from the
 * client (only the active one has any). */
function ownMon(view, j) {
  const r = view.request.side.pokemon[j];
  const gen = view.battle.gen;
  const active = j === 0 && r.active ? view.self.active[0] : null;
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

// Generation 1 has one Special stat: the log boosts "spa", the simulator both halves.
const special = (boosts, gen) => (gen === 1 && boosts.spa ? {...boosts, spd: boosts.spa} : boosts);

/** What the foe has revealed about `p`, as ids. */
function revealed(p) {
  return {moves: p.moves.filter(isOwnMove).map(moveID),
    item: toID(p.item), ability: toID(p.ability || p.baseAbility), tera: toID(p.terastallized)};
}

// Max Moves and Z-moves show as used moves, but belong to no set.
const isOwnMove = name => { const m = Dex.moves.get(name); return !m.isMax && !m.isZ; };

/** The foe's Pokemon `p` as the calculator needs it: its level, HP fraction and boosts as shown,
 * with what it has revealed and, for the rest, the format's likeliest set. */
function foeMon(view, p, sets) {
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

function compute(view) {
  const battle = view.battle;
  const gen = battle.gen.num;
  const req = view.request;
  const k = {request: req, turn: battle.turn,
    moveDamage: new Float32Array(MOVE_SLOTS * G * ROW), moveFirst: new Float32Array(MOVE_SLOTS),
    // [expected, ko_chance] per own Pokemon
    switchDealt: new Float32Array(TEAM * 2), switchTaken: new Float32Array(TEAM * 2), switchFirst: new Float32Array(TEAM),
    foeMoves: [], foeMoveProb: new Float32Array(FOE_MOVES), foeMoveDamage: new Float32Array(FOE_MOVES * TEAM * ROW),
    possible: [], foeStats: []};
  const format = formatOf(battle);
  // the foe's rows, in the order the encoder writes them
  for (let j = 0; j < TEAM; j++) {
    const p = view.foe.team[j];
    const sets = p ? possibleSets(format, p.baseSpeciesForme, revealed(p)) : null;
    k.possible.push(sets);
    k.foeStats.push(p ? likelyStats(gen, foeMon(view, p, sets)) : null);
  }
  if (!req || !req.side || req.teamPreview || req.requestType === 'wait') return k;
  const foeP = view.foe.active[0];
  if (!foeP || foeP.fainted) return k;
  const foeIndex = view.foe.team.indexOf(foeP);
  const foeSets = foeIndex >= 0 ? k.possible[foeIndex] : null;
  const foe = foeMon(view, foeP, foeSets);
  const foeMax = foeIndex >= 0 && k.foeStats[foeIndex] ? k.foeStats[foeIndex].hp : 0;
  foe.maxhp = foeMax || 100;
  foe.hp = Math.max(1, Math.round(foe.hpFraction * foe.maxhp));
  const ours = req.side.pokemon.map((_, j) => ownMon(view, j));
  k.foe = foe;
  const us = fieldOf(battle, view.self, view.foe);
  const them = fieldOf(battle, view.foe, view.self);

  // our active Pokemon's moves, with each gimmick the request allows
  const active = req.active && req.active[0];
  if (active && ours[0] && !req.forceSwitch) {
    writeMask(req, legalMask, 0);
    for (let i = 0; i < MOVE_SLOTS && i < active.moves.length; i++) {
      const id = active.moves[i].id;
      for (let g = 0; g < G; g++) {
        if (!legalMask[i * G + g]) continue;
        const [att, variant] = withGimmick(battle, ours[0], g);
        const row = damageRow(damage(gen, att, foe, moveName(id), us, variant), foe.hp);
        k.moveDamage.set(row, (i * G + g) * ROW);
      }
    }
  }
  // each own Pokemon's best hit on the foe, and who moves first
  const foeSpeeds = speedsOf(battle, foe, foeP, foeSets, them);
  const trickRoom = !!battle.field.pseudoWeather.trickroom;
  ours.forEach((mon, j) => {
    if (mon.fainted) return;
    const moves = j === 0 && active ? active.moves.map(m => m.id) : mon.moves;
    let best = new Array(ROW).fill(0);
    for (const id of moves) {
      const row = damageRow(damage(gen, mon, foe, moveName(id), us), foe.hp);
      if (row[EXPECTED] > best[EXPECTED]) best = row;
    }
    k.switchDealt[2 * j] = best[EXPECTED];
    k.switchDealt[2 * j + 1] = best[KO];
    k.switchFirst[j] = fasterChance(speedOf(gen, mon, us, us.attackerSide), foeSpeeds, trickRoom);
  });
  if (active) {
    for (let i = 0; i < MOVE_SLOTS && i < active.moves.length; i++) {
      const pr = priorityOf(battle, ours[0], active.moves[i].id);
      k.moveFirst[i] = pr > 0 ? 1 : pr < 0 ? 0 : k.switchFirst[0];
    }
  }
  // the foe's candidate moves against each of ours
  const candidates = foeSets ? foeSets.moves : revealed(foeP).moves.map(m => [m, 1]);
  candidates.slice(0, FOE_MOVES).forEach(([id, prob], m) => {
    k.foeMoves.push(id);
    k.foeMoveProb[m] = prob;
    ours.forEach((mon, j) => {
      if (mon.fainted) return;
      const row = damageRow(damage(gen, foe, mon, moveName(id), them), mon.hp);
      k.foeMoveDamage.set(row, (m * TEAM + j) * ROW);
      const threat = row[EXPECTED] * Math.min(1, prob * 2);  // a move it likely has counts in full
      if (threat > k.switchTaken[2 * j]) {
        k.switchTaken[2 * j] = threat;
        k.switchTaken[2 * j + 1] = row[KO] * Math.min(1, prob * 2);
      }
    });
  });
  return k;
}

// The calculator's names: ids with a trailing power ("return102") stripped.
const moveName = id => String(id).replace(/[0-9]+$/, '');

/** Our active Pokemon with gimmick g applied: [the attacker, the move variant]. */
function withGimmick(battle, mon, g) {
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

/** A move's priority for `mon`, with the abilities that change it. */
function priorityOf(battle, mon, id) {
  const m = battle.gen.moves.get(id);
  if (!m) return 0;
  let p = m.priority || 0;
  const ability = toID(mon.ability);
  if (ability === 'prankster' && m.category === 'Status') p += 1;
  if (ability === 'triage' && (m.flags.heal || m.drain)) p += 3;
  if (ability === 'galewings' && m.type === 'Flying' && (battle.gen.num <= 6 || mon.hp === mon.stats.hp)) p += 1;
  return p;
}

/** The foe's possible final speeds, [speed, weight] pairs: with its item where revealed, else
 * one per likely item (a Choice Scarf changes everything). */
function speedsOf(battle, foe, foeP, sets, field) {
  const gen = battle.gen.num;
  const items = toID(foeP.item) || foeP.lastItem || !sets ? [[toID(foe.item), 1]] : sets.items.slice(0, 3);
  const out = [];
  for (const [itemId, prob] of items) {
    const s = speedOf(gen, {...foe, item: nameOf(battle.gen.items, itemId)}, field, field.attackerSide);
    if (s !== null) out.push([s, prob]);
  }
  return out;
}

function fasterChance(ours, foes, trickRoom) {
  if (ours === null || !foes.length) return 0.5;
  let p = 0, total = 0;
  for (const [s, w] of foes) {
    total += w;
    p += w * (ours === s ? 0.5 : (ours > s) !== trickRoom ? 1 : 0);
  }
  return total ? p / total : 0.5;
}

/** Likely stats (hp..spe, actual values) of a foe Pokemon from its likeliest set, or null
 * where the calculator does not know the species. */
const STATS_CACHE = new BoundedCache(25000);
function likelyStats(gen, mon) {
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
