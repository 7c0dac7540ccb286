// Checks the search (search.js) and the worlds it draws (rebuild.js) against the simulator, over
// battles (singles or doubles) whose p1 plays the search's choices and p2 plays at random:
//  - every drawn world agrees with what p1 has seen: each foe Pokemon seen and not fainted is
//    on the drawn team with its species, every move it revealed (that its data allows), its
//    revealed item, ability and Tera type; none seen fainted is there; the team is no larger than
//    the foe's team size allows; our side is the request's, its HP exactly (in doubles a fainted
//    Pokemon may stand in its empty position, fainted);
//  - the search answers an action the mask allows, and the simulator accepts it (in doubles,
//    searching a few of the allowed joint actions, as the player does);
//  - the same seed and visit budget give the same answer.
import {PRNG, Dex} from '@pkmn/sim';
import {search} from '../src/search.js';
import {actionTable} from '../src/actiontable.js';
import {Match} from '../src/simulator.js';
import {nextSeed} from './maskcheck.js';
import {GIMMICKS} from '../src/actions.js';
import {rebuild, rebuildDoubles} from '../src/rebuild.js';
import {possibleSets, moveID} from '../src/knowledge/sets.js';
import {toID} from '../src/contract.js';

const G = GIMMICKS.length;
const MAX_EXAMPLES = 5;
const DOUBLES_CANDIDATES = 6;  // joint actions a doubles search is given (the player gives up to 9)

/** The actions `request` allows by the battle's action `table` (`mask`: a row to write it in). */
function allowed(table, request, mask) {
  table.writeMask(request, mask, 0);
  const legal = [];
  for (let a = 0; a < table.NUM_ACTIONS; a++) if (mask[a]) legal.push(a);
  return legal;
}

/** One of the `legal` actions at random (0 where there is none). */
const anyOf = (prng, legal) => (legal.length ? legal[prng.random(legal.length)] : 0);

/** Plays `battles` battles of `format`, seeded from `prng`: at each decision of either side
 * `choose(side, view, legal, mask, action, match)` answers, `action` one of `legal` drawn at
 * random;
 * `after(side, view)` runs once the answer is played. */
export function playBattles({format, battles, prng, name}, choose, after = () => {}) {
  for (let b = 0; b < battles; b++) {
    const match = new Match(`${name}-${b}`, {format, seed: nextSeed(prng)});
    const table = actionTable(match.sim.gameType);
    const mask = new Uint8Array(table.NUM_ACTIONS);
    while (!match.ended) {
      for (const side of ['p1', 'p2']) {
        const view = match.views[side];
        if (!view.needsDecision) continue;
        const legal = allowed(table, view.request, mask);
        match.act(side, choose(side, view, legal, mask, anyOf(prng, legal), match));
        after(side, view);
      }
    }
  }
}

/** p1 plays the search's choices (`settings`: the search's, SearchConfig.to_js()), p2 at random;
 * see the top of this file. */
export function checkWorlds({format, battles, seed, settings}) {
  const searchOptions = settings;
  const prng = new PRNG(seed);
  const out = {format, decisions: 0, worlds: 0, disagreements: 0, searched: 0, nothing: 0, failed: 0,
    illegal: 0, refused: 0, not_reproduced: 0, over_budget: 0, examples: []};
  playBattles({format, battles, prng, name: 'world'},
    (side, view, legal, mask, action) => (side === 'p1' && legal.length > 1 ?
      checkDecision(out, view, legal, mask, prng, searchOptions) : action),
    (side, view) => { if (side === 'p1' && view.refusals) out.refused++; });
  return out;
}

function checkDecision(out, view, legal, mask, prng, options) {
  out.decisions++;
  const req = view.request;
  const isDoubles = view.battle.gameType === 'doubles';
  const lead = req.forceSwitch && !isDoubles ? Math.floor(legal[0] / G) - 4 : -1;
  for (let w = 0; w < options.worlds; w++) {
    const draws = new PRNG([w + 1, prng.random(65536), 3, 4]);
    const world = isDoubles ? rebuildDoubles(view, null, () => draws.random()) : rebuild(view, lead, () => draws.random());
    if (!world) continue;
    out.worlds++;
    const problems = disagreements(view, world.battle, world.me, lead);
    if (problems.length) {
      out.disagreements++;
      if (out.examples.length < MAX_EXAMPLES) out.examples.push({battle: view.key, turn: view.battle.turn, problems});
    }
  }
  if (isDoubles) {  // a few of the hundreds of joint actions, as the player gives its likeliest
    legal = [...legal];
    for (let i = legal.length - 1; i > 0; i--) {
      const j = prng.random(i + 1);
      [legal[i], legal[j]] = [legal[j], legal[i]];
    }
    legal = legal.slice(0, DOUBLES_CANDIDATES);
  }
  // a prior that differs between actions, so that halving has an order to start from
  const weights = legal.map(() => 1 + prng.random(8));
  const prior = weights.map(x => x / weights.reduce((a, b) => a + b));
  const s = prng.random(1 << 30);
  let first, again;
  try {
    first = search(view, legal, prior, {...options, seed: s});
    again = search(view, legal, prior, {...options, seed: s});
  } catch (e) {
    out.failed++;
    if (out.examples.length < MAX_EXAMPLES) out.examples.push({battle: view.key, turn: view.battle.turn, error: e.message});
    return legal[0];
  }
  if (!first) { out.nothing++; return legal[0]; }
  out.searched++;
  const same = (x, y) => JSON.stringify([x.best, x.visits, x.values, x.nodes]) === JSON.stringify([y.best, y.visits, y.values, y.nodes]);
  if (!same(first, again)) out.not_reproduced++;
  if (first.nodes > options.visits) out.over_budget++;
  const best = legal[first.best];
  if (!mask[best]) out.illegal++;
  return best;
}

/** What a drawn world gets wrong about what `view` has seen (empty where nothing). Our side is
 * `me` there. In doubles a fainted Pokemon may stand in its position, fainted. */
function disagreements(view, battle, me, lead) {
  const problems = [];
  const format = battle.format.id;
  const isDoubles = battle.gameType === 'doubles';
  const alive = m => m && !m.fainted && m.hp > 0;
  const team = battle.sides[1 - me].pokemon.filter(m => !isDoubles || alive(m));
  const named = name => team.find(m => m.name === name);
  const baseID = name => toID(Dex.species.get(name).baseSpecies);
  let fainted = 0;
  for (const p of view.foe.team) {
    const m = named(p.name);
    if (p.fainted || !p.hp) {
      fainted++;
      if (m) problems.push(`${p.name} fainted but is on the drawn team${isDoubles ? ' alive' : ''}`);
      continue;
    }
    if (!m) { problems.push(`${p.name} seen but not on the drawn team`); continue; }
    if (baseID(m.species.name) !== baseID(p.speciesForme)) problems.push(`${p.name} drawn as ${m.species.name}`);
    const known = {moves: p.moves.map(moveID), item: toID(p.item), ability: toID(p.ability || p.baseAbility), tera: toID(p.terastallized)};
    const sets = possibleSets(format, p.baseSpeciesForme, known);
    const impossible = sets ? sets.impossible : [];
    const has = m.moveSlots.map(s => moveID(s.id));
    for (const move of known.moves) {
      if (!impossible.includes(move) && !has.includes(move)) problems.push(`${p.name} revealed ${move}, drawn with ${has}`);
    }
    if (known.item && toID(m.item) !== known.item) problems.push(`${p.name} revealed item ${known.item}, drawn ${m.item}`);
    if (known.ability && toID(m.ability) !== known.ability && toID(m.baseAbility) !== known.ability) {
      problems.push(`${p.name} revealed ability ${known.ability}, drawn ${m.ability}`);
    }
    if (known.tera && toID(m.terastallized || m.teraType) !== known.tera) problems.push(`${p.name} revealed Tera ${known.tera}, drawn ${m.teraType}`);
  }
  if (view.foe.totalPokemon && team.length > view.foe.totalPokemon - fainted) {
    problems.push(`drawn team of ${team.length}, the foe has ${view.foe.totalPokemon - fainted} left`);
  }
  const rows = view.request.side.pokemon.filter(r => !r.fainted && r.hp);
  const ours = battle.sides[me].pokemon.filter(m => !isDoubles || alive(m));
  if (ours.length !== rows.length) problems.push(`our drawn team has ${ours.length} able, the request ${rows.length}`);
  for (const r of rows) {
    const m = ours.find(o => o.name === (r.name || r.speciesForme));
    if (!m) problems.push(`our ${r.name} missing`);
    else if (m.hp !== r.hp || m.maxhp !== r.maxhp) problems.push(`our ${r.name} at ${m.hp}/${m.maxhp}, the request ${r.hp}/${r.maxhp}`);
  }
  if (lead >= 0 && ours[0] && ours[0].name !== (view.request.side.pokemon[lead].name)) problems.push('the lead is not the one sent in');
  return problems;
}
