// Checks the battle knowledge (knowledge/) against the simulator, which knows both true teams:
//  - damage: own Pokemon's rows equal @smogon/calc's result for the true set (EVs, IVs, nature,
//    item, ability, boosts, HP) and the simulator's own field, both as attacker and as defender;
//  - possible sets: each foe Pokemon's possible moves only shrink as it reveals more, and always
//    hold every move of its true set;
//  - the damage cache: every row computed afresh equals what the cache gave (its keys hold all a
//    result depends on);
//  - speed: where the encoder is certain who moves first (probability 0 or 1), the turn's log
//    shows the same order, on turns where both sides used a priority-0 move.
import {PRNG, Dex} from '@pkmn/sim';
import {TeamGenerators} from '@pkmn/randoms';
import {calculate, Generations, Pokemon, Move, Field} from '@smogon/calc';
import {Match} from '../src/simulator.js';
import {nextSeed} from './maskcheck.js';
import {writeMask, NUM_ACTIONS, GIMMICKS} from '../src/actions.js';
import {knowledgeOf, knowledgeUncached} from '../src/knowledge/index.js';
import {calcMon, calcSpecies, summarise, damageRow, restartCaches} from '../src/knowledge/damage.js';
import {toID} from '../src/contract.js';
import {possibleSets, moveID} from '../src/knowledge/sets.js';

const G = GIMMICKS.length;
// The simulator's weather and terrain ids as the calculator names them (@pkmn/client already
// names them so, which is what the encoder reads).
const WEATHER = {sunnyday: 'Sun', raindance: 'Rain', sandstorm: 'Sand', hail: 'Hail', snow: 'Snow',
  snowscape: 'Snow', desolateland: 'Harsh Sunshine', primordialsea: 'Heavy Rain', deltastream: 'Strong Winds'};
const TERRAIN = {electricterrain: 'Electric', grassyterrain: 'Grassy', mistyterrain: 'Misty', psychicterrain: 'Psychic'};
// things that change the order of priority-0 moves besides speed
const ORDER_ITEMS = new Set(['quickclaw', 'custapberry', 'laggingtail', 'fullincense']);
const ORDER_ABILITIES = new Set(['prankster', 'galewings', 'triage', 'stall', 'quickdraw', 'myceliummight', 'unburden']);

export function checkKnowledge({format, battles, seed, restartCachesEvery = 0}) {
  const prng = new PRNG(seed);
  const gen = Dex.formats.get(format).mod ? Dex.forFormat(Dex.formats.get(format)).gen : 9;
  const cgen = Generations.get(gen);
  const out = {format, decisions: 0, damage: {compared: 0, mismatches: 0, examples: []},
    sets: {foes: 0, checks: 0, grew: 0, missing_true_move: 0, no_data: 0, impossible_reveals: 0, examples: []},
    speed: {compared: 0, disagreements: 0, examples: []}, cache: {compared: 0, mismatches: 0, restarts: 0, examples: []}};
  const mask = new Uint8Array(NUM_ACTIONS);
  for (let b = 0; b < battles; b++) {
    const match = new Match(`know-${b}`, {format, seed: nextSeed(prng)});
    const previous = new Map();  // foe ident -> its possible moves at the last check
    while (!match.ended) {
      const view = match.views.p1;
      let predicted = null;
      if (view.needsDecision && view.request.active && !view.request.forceSwitch) {
        out.decisions++;
        // the caches restarted as they do when their ids run out: what follows must still agree
        if (restartCachesEvery && out.decisions % restartCachesEvery === 0) {
          restartCaches();
          out.cache.restarts++;
        }
        const k = knowledgeOf(view);
        checkDamage(out.damage, match, view, k, cgen, gen);
        checkCache(out.cache, view, k);
        checkSets(out.sets, match, view, previous, format);
        if (k.switchFirst[0] === 0 || k.switchFirst[0] === 1) predicted = k.switchFirst[0] === 1;
      }
      const logStart = match.sim.log.length;
      for (const side of ['p1', 'p2']) {
        const v = match.views[side];
        if (!v.needsDecision) continue;
        writeMask(v.request, mask, 0);
        const legal = [];
        for (let a = 0; a < NUM_ACTIONS; a++) if (mask[a]) legal.push(a);
        match.act(side, legal.length ? legal[prng.random(legal.length)] : 0);
      }
      if (predicted !== null) checkOrder(out.speed, match, logStart, predicted);
    }
  }
  return out;
}

/** An own Pokemon of the simulator as the calculator's public API builds it from its true set. */
function trueMon(cgen, p) {
  return new Pokemon(cgen, calcSpecies(cgen.num, p.species.name), {level: p.level, item: p.getItem().name || undefined,
    ability: p.getAbility().name, nature: p.set.nature || undefined, evs: p.set.evs, ivs: p.set.ivs,
    boosts: {...p.boosts}, status: p.status || '', curHP: p.hp, teraType: p.terastallized || undefined});
}

function trueField(sim, attacker, defender) {
  const side = s => ({isReflect: !!s.sideConditions.reflect, isLightScreen: !!s.sideConditions.lightscreen,
    isAuroraVeil: !!s.sideConditions.auroraveil, isTailwind: !!s.sideConditions.tailwind,
    isSR: !!s.sideConditions.stealthrock, spikes: (s.sideConditions.spikes || {}).layers || 0});
  const pw = sim.field.pseudoWeather;
  return new Field({weather: WEATHER[sim.field.weather], terrain: TERRAIN[sim.field.terrain],
    isGravity: !!pw.gravity, isMagicRoom: !!pw.magicroom, isWonderRoom: !!pw.wonderroom,
    attackerSide: side(attacker), defenderSide: side(defender)});
}

function checkDamage(stats, match, view, k, cgen, gen) {
  const sim = match.sim;
  const [us, them] = [sim.sides[0], sim.sides[1]];
  const active = us.active[0];
  if (!active || !k.foe || active.transformed || active.volatiles.dynamax || active.illusion) return;
  // a Pokemon the calculator does not know is noted and skipped
  const mon = (make, name) => {
    try {
      return make();
    } catch (e) {
      stats.unknown_species = (stats.unknown_species || []).concat([name]).slice(-10);
      return null;
    }
  };
  const damaging = id => {
    const mv = new Move(cgen, id.replace(/[0-9]+$/, ''));
    return mv.category === 'Status' || !(mv.bp > 0) ? null : mv;
  };
  const compare = (what, got, res, mv, hp) => {
    const want = damageRow(summarise(res.damage, mv), hp);
    stats.compared++;
    if (want.some((x, i) => Math.abs(x - got[i]) > 1e-6)) {
      stats.mismatches++;
      if (stats.examples.length < 5) stats.examples.push({what: `${what}: ${describe(res)}`, got: [...got], want, turn: sim.turn});
    }
  };
  const foe = mon(() => calcMon(gen, k.foe), k.foe.species);
  const att = mon(() => trueMon(cgen, active), active.species.name);
  if (!foe || !att) return;
  view.request.active[0].moves.forEach((m, i) => {
    const mv = !m.disabled && i < 4 && damaging(m.id);
    if (!mv) return;
    const res = calculate(cgen, att, foe, mv, trueField(sim, us, them));
    compare(`move ${m.id}`, k.moveDamage.slice(i * G * 4, i * G * 4 + 4), res, mv, k.foe.hp);
  });
  k.foeMoves.forEach((id, m) => {
    const mv = damaging(id);
    us.pokemon.forEach((p, j) => {
      if (!mv || p.fainted || p.transformed || p.illusion || (j === 0 && p.volatiles.dynamax)) return;
      const def = mon(() => trueMon(cgen, p), p.species.name);
      if (!def) return;
      const res = calculate(cgen, foe, def, mv, trueField(sim, them, us));
      compare(`foe ${id} on ${p.species.name}`, k.foeMoveDamage.slice((m * 6 + j) * 4, (m * 6 + j) * 4 + 4), res, mv, p.hp);
    });
  });
}

const ROWS = ['moveDamage', 'moveFirst', 'switchDealt', 'switchTaken', 'switchFirst', 'foeMoveDamage'];
function checkCache(stats, view, k) {
  const fresh = knowledgeUncached(view);
  for (const name of ROWS) {
    stats.compared += k[name].length;
    const wrong = k[name].findIndex((x, i) => x !== fresh[name][i]);
    if (wrong < 0) continue;
    stats.mismatches += k[name].filter((x, i) => x !== fresh[name][i]).length;
    if (stats.examples.length < 5) {
      const foe = view.foe.active[0];
      stats.examples.push({what: name, index: wrong, cached: k[name][wrong], fresh: fresh[name][wrong], turn: view.battle.turn,
        foe: foe && `${foe.speciesForme} ${foe.ability || foe.baseAbility} ${foe.item} ${JSON.stringify(foe.boosts)}`, foeMoves: k.foeMoves,
        ours: view.request.side.pokemon.map(p => `${p.speciesForme} ${p.ability || p.baseAbility} ${p.item} ${p.condition}`)});
    }
  }
}

function describe(res) {
  try {
    return res.desc();
  } catch (e) {  // the calculator's text fails for some zero-damage results
    return '';
  }
}

/** The possible sets of every Pokemon of `teams` teams from the format's own generator, nothing
 * revealed, against its true set: each true move among the possible moves, the true item and
 * ability among the possible ones, and a possible set at the true level (a doubles format's
 * generator has sets and levels of its own). */
export function checkSetsCoverTeams({format, teams, seed}) {
  const out = {format, pokemon: 0, missing_move: 0, missing_item: 0, missing_ability: 0, wrong_level: 0, no_data: 0, examples: []};
  const generator = TeamGenerators.getTeamGenerator(format, seed);
  for (let t = 0; t < teams; t++) {
    for (const set of generator.getTeam()) {
      out.pokemon++;
      const sets = possibleSets(format, set.species, {moves: [], item: '', ability: '', tera: ''});
      const missing = sets ? set.moves.map(moveID).filter(id => !sets.moves.some(([m]) => m === id)) : [];
      const wrong = !sets ? {no_data: true} : {
        missing_move: missing.length > 0,
        missing_item: !!set.item && !sets.items.some(([i]) => i === toID(set.item)),
        missing_ability: !sets.abilities.some(([a]) => a === toID(set.ability)),
        wrong_level: !sets.fitting.some(s => s.level === set.level),
      };
      const found = Object.keys(wrong).filter(k => wrong[k]);
      for (const k of found) out[k]++;
      if (found.length && out.examples.length < 5) {
        out.examples.push({species: set.species, found, missing, item: set.item, ability: set.ability, level: set.level});
      }
    }
  }
  return out;
}

function checkSets(stats, match, view, previous, format) {
  const trueTeam = match.sim.sides[1].pokemon;
  for (const p of view.foe.team) {
    const t = trueTeam.find(x => x.set.name === p.name || x.name === p.name);
    if (!t || t.illusion) continue;
    const known = {moves: p.moves.filter(m => !Dex.moves.get(m).isMax && !Dex.moves.get(m).isZ).map(moveID), item: toID(p.item),
      ability: toID(p.ability || p.baseAbility), tera: toID(p.terastallized)};
    const sets = possibleSets(format, p.baseSpeciesForme, known);
    if (!sets) { stats.no_data++; continue; }
    if (sets.impossible.length) { stats.impossible_reveals = (stats.impossible_reveals || 0) + 1; continue; }
    stats.checks++;
    const now = new Set(sets.moves.map(([id]) => id));
    const before = previous.get(p.originalIdent);
    if (!before) stats.foes++;
    else if ([...now].some(id => !before.has(id))) {
      stats.grew++;
      if (stats.examples.length < 5) stats.examples.push({what: 'grew', species: p.speciesForme, added: [...now].filter(id => !before.has(id))});
    }
    previous.set(p.originalIdent, now);
    const missing = t.set.moves.map(moveID).filter(id => !now.has(id));
    if (missing.length) {
      stats.missing_true_move++;
      if (stats.examples.length < 5) stats.examples.push({what: 'missing', species: p.speciesForme, missing, known: known.moves});
    }
  }
}

function checkOrder(stats, match, logStart, p1First) {
  const lines = match.sim.log.slice(logStart);
  const moves = [];
  for (const line of lines) {
    if (line.startsWith('|move|p1a') || line.startsWith('|move|p2a')) moves.push(line.split('|'));
    if (line.startsWith('|switch|') || line.startsWith('|drag|') || line.startsWith('|cant|')) return;
    if (moves.length === 2) break;
  }
  if (moves.length < 2 || moves[0][2].slice(0, 2) === moves[1][2].slice(0, 2)) return;
  const sides = match.sim.sides;
  for (const [side, line] of [[sides[0], moves.find(m => m[2].startsWith('p1'))], [sides[1], moves.find(m => m[2].startsWith('p2'))]]) {
    const mon = side.active[0];
    const mv = Dex.moves.get(line[3]);
    if (!mon || mv.priority !== 0 || line.length > 5 && line.slice(5).some(x => x.startsWith('[from]'))) return;
    if (ORDER_ITEMS.has(mon.item) || ORDER_ABILITIES.has(mon.ability)) return;
  }
  stats.compared++;
  const actual = moves[0][2].startsWith('p1');
  if (actual !== p1First) {
    stats.disagreements++;
    if (stats.examples.length < 5) stats.examples.push({turn: match.sim.turn, predicted: p1First, log: moves.map(m => m.join('|'))});
  }
}
