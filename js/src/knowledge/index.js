// Battle knowledge for one decision, computed where the battle state is: damage of every action
// (our moves with each legal gimmick, each own Pokemon's best hit), what the foe's active Pokemon
// can do to each of ours, who moves first, and the foe's possible sets. The encoder writes it into
// the singles-v2 features; the scripted players read the same numbers.
import {damage, damageRow, speedOf, fieldOf, uncached, cacheSizes} from './damage.js';
import {possibleSets, setCacheSizes} from './sets.js';
import {nameOf, ownMon, revealed, foeMon, moveName, withGimmick, likelyStats, priorityOf, STATS_CACHE} from './mons.js';
import {writeMask, NUM_ACTIONS, GIMMICKS} from '../actions.js';
import {toID} from '../contract.js';
import {formatOf} from '../format.js';

export const DAMAGE_COLUMNS = ['expected', 'min', 'max', 'ko_chance'];
export const FOE_MOVES = 6;       // candidate moves of the foe's active Pokemon
const TEAM = 6, MOVE_SLOTS = 4;   // Pokemon a side, move slots a Pokemon
const ROW = DAMAGE_COLUMNS.length;  // a damage row (damageRow): its columns by name below
const EXPECTED = DAMAGE_COLUMNS.indexOf('expected'), KO = DAMAGE_COLUMNS.indexOf('ko_chance');
const G = GIMMICKS.length;
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
      const pr = priorityOf(battle.gen, ours[0], active.moves[i].id);
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
