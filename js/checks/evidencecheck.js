// Checks what the foe's play is taken to show of its hidden set (src/knowledge/evidence.js)
// against the simulator, which knows the true sets:
//  - over battles both sides play at random (mostly moves), at each of p1's decisions the foe's
//    true set is allowed by every turn order, every pair of moves and everything its play did
//    not show (silence.js) that p1 has seen, and how often the drawn sets were narrowed;
//  - in one staged turn, a foe whose Choice Scarf alone lets it outspeed ours keeps only its
//    Choice Scarf sets, and the same foe without one keeps none of them.
import {PRNG} from '@pkmn/sim';
import {Match} from '../src/simulator.js';
import {possibleSets} from '../src/knowledge/sets.js';
import {revealed} from '../src/knowledge/mons.js';
import {toID} from '../src/contract.js';
import {playBattles} from './worldcheck.js';
import {exportedSet} from './viewcheck.js';

const MAX_EXAMPLES = 20;

/** {decisions, orders, unchoiced, silences: {what the foe's play did not show: foe Pokemon with
 * each fact, silence.js}, checks, narrowed, kept_share, ruled_out, behind_illusion (true sets
 * ruled out while the foe's Illusion user could be disguised), examples}. */
export function checkEvidence({format, battles, seed}) {
  const prng = new PRNG(seed);
  const out = {decisions: 0, orders: 0, unchoiced: 0, checks: 0, narrowed: 0, before: 0, after: 0, ruled_out: 0,
    behind_illusion: 0, examples: []};
  const views = new Set();
  playBattles({format, battles, prng, name: 'evidence'}, (side, view, legal, mask, action, match) => {
    if (side !== 'p1') return mostlyMoves(prng, legal, action);
    out.decisions++;
    views.add(view);
    view.foe.team.forEach(p => checkFoe(out, format, view, p, match));
    return mostlyMoves(prng, legal, action);
  });
  out.silences = {};
  for (const view of views) {
    out.orders += view.evidence.orders.length;
    out.unchoiced += view.evidence.unchoiced.size;
    const s = view.evidence.silences;
    for (const key of ['hurtByHazards', 'unhurtOverRocks', 'unhealed', 'statusMove', 'noBalloon', 'noRecoil', 'silentEntries']) {
      out.silences[key] = (out.silences[key] || 0) + s[key].size;
    }
  }
  out.kept_share = out.before ? out.after / out.before : 1;
  return out;
}

// Random play that mostly attacks, as players do: a turn where both use a move shows an order.
function mostlyMoves(prng, legal, action) {
  const moves = legal.filter(a => a < 4 * 6);
  return moves.length && prng.random(100) < 85 ? moves[prng.random(moves.length)] : action;
}

function checkFoe(out, format, view, p, match) {
  const data = possibleSets(format, p.baseSpeciesForme, revealed(p));
  const truth = match.sim.sides[view.foe.n].pokemon.find(q => q.name === p.name);
  if (!data || !truth) return;
  out.checks++;
  const kept = view.evidence.allowed(view, p, data);
  out.before += data.fitting.length;
  out.after += kept.fitting.length;
  if (kept !== data) out.narrowed++;
  const t = truth.set;
  const set = {item: toID(t.item), ability: toID(t.ability), nature: t.nature, evs: t.evs, ivs: t.ivs, level: t.level};
  if (view.evidence.allows(view, p, set)) return;
  // a foe team with an Illusion user can show one Pokemon's play as another's: no record can tell
  // until the Illusion breaks (evidence.js unmasked() then takes it back)
  if (match.sim.sides[view.foe.n].pokemon.some(q => q.ability === 'illusion' && !q.fainted)) {
    out.behind_illusion++;
    return;
  }
  out.ruled_out++;
  if (out.examples.length < MAX_EXAMPLES && !out.examples.some(e => e.battle === view.key && e.species === p.speciesForme)) {
    out.examples.push({battle: view.key, turn: view.battle.turn, species: p.speciesForme, item: t.item, ability: t.ability,
      by: view.evidence.silences.allows(view.foe.team.indexOf(p), p, set) ? 'orders or moves' : 'silence'});
  }
}

/** The staged turn: ours (Jolteon, Speed 254) and the foe's Chi-Yu (199, or 298 with a Choice
 * Scarf) both attack; {scarf: the foe's kept items with a Choice Scarf, boots: without}. */
export function checkScarfTurn() {
  const set = exportedSet;
  const ours = set('Jolteon', 'Heavy-Duty Boots', 'Volt Absorb', 80, ['Calm Mind', 'Thunderbolt']);
  const foe = item => set('Chi-Yu', item, 'Beads of Ruin', 77, ['Dark Pulse', 'Flamethrower']);
  const kept = item => {
    const match = new Match('scarf', {format: 'gen9randombattle', seed: '1,2,3,4', p1team: ours, p2team: foe(item)});
    match.act('p1', 0);  // Calm Mind: it neither knocks the foe out nor moves first by priority
    match.act('p2', 0);  // Dark Pulse
    const view = match.views.p1;
    const p = view.foe.active[0];
    const sets = view.evidence.allowed(view, p, possibleSets('gen9randombattle', p.baseSpeciesForme, revealed(p)));
    return {orders: view.evidence.orders.map(o => ({foeFirst: o.foeFirst, ourSpeed: o.ourSpeed})),
      items: [...new Set(sets.fitting.map(s => s.item))].sort()};
  };
  return {scarf: kept('Choice Scarf'), boots: kept('Heavy-Duty Boots')};
}

/** A foe that gave its Choice Scarf away by Trick and then used two different moves: {item: the
 * item the view shows it holding, unchoiced: whether the record took the moves against a
 * Choice item, allowed: whether its true set (the scarf) is still allowed}. */
export function checkTrickedScarf() {
  const ours = exportedSet('Chansey', 'Leftovers', 'Natural Cure', 80, ['Soft-Boiled', 'Seismic Toss']);
  const foe = exportedSet('Rotom-Wash', 'Choice Scarf', 'Levitate', 80, ['Trick', 'Hydro Pump', 'Thunderbolt']);
  const match = new Match('tricked', {format: 'gen9randombattle', seed: '1,2,3,4', p1team: ours, p2team: foe});
  for (const move of [0, 1, 2]) {  // Trick, Hydro Pump, Thunderbolt; Chansey heals
    match.act('p1', 0);
    match.act('p2', move * 6);
  }
  const view = match.views.p1;
  const p = view.foe.active[0];
  const t = match.sim.sides[1].pokemon[0].set;
  const set = {item: 'choicescarf', ability: 'levitate', nature: t.nature, evs: t.evs, ivs: t.ivs, level: t.level};
  return {item: toID(p.item), unchoiced: view.evidence.unchoiced.has(view.foe.team.indexOf(p)),
    allowed: view.evidence.allows(view, p, set)};
}

const G = 6;  // the gimmicks an action holds: a move is k * G, a switch to row j (4 + j) * G
const CHANSEY = exportedSet('Chansey', 'Eviolite', 'Natural Cure', 80, ['Soft-Boiled', 'Seismic Toss']);

/** Staged battles for what the foe's play did not show (src/knowledge/silence.js). The foe leads
 * Chansey and switches to a second Pokemon after our lead sets Stealth Rock, which then acts:
 * {case: {items, abilities: those still allowed for the foe's second Pokemon, allowed: whether
 * its true set is}}. */
export function checkSilences() {
  // the foe's second Pokemon comes in over our lead's Stealth Rock, and uses its `move`
  const rocks = move => [[0, 0], [0, (4 + 1) * G], [0, move * G]];
  const stage = (ours, foe, turns) => {
    const match = new Match('silence', {format: 'gen9randombattle', seed: '1,2,3,4', p1team: ours,
      p2team: [CHANSEY, foe].join('\n\n')});
    for (const [a, b] of turns) { match.act('p1', a); match.act('p2', b); }
    const view = match.views.p1;
    const p = view.foe.active[0];
    const sets = view.evidence.allowed(view, p, possibleSets('gen9randombattle', p.baseSpeciesForme, revealed(p)));
    const t = match.sim.sides[1].pokemon.find(q => q.name === p.name).set;
    const truth = {item: toID(t.item), ability: toID(t.ability), nature: t.nature, evs: t.evs, ivs: t.ivs, level: t.level};
    return {items: [...new Set(sets.fitting.map(s => s.item))].sort(),
      abilities: [...new Set(sets.fitting.map(s => s.ability))].sort(), allowed: view.evidence.allows(view, p, truth)};
  };
  const chomp = exportedSet('Garchomp', 'Leftovers', 'Rough Skin', 80, ['Stealth Rock', 'Dragon Claw']);
  const guarded = (species, ability) => exportedSet(species, 'Leftovers', ability, 80, ['Protect', 'Stealth Rock']);
  const sheer = exportedSet('Landorus-Therian', 'Life Orb', 'Sheer Force', 80, ['Earth Power', 'Stone Edge']);
  const knocking = exportedSet('Landorus-Therian', 'Life Orb', 'Sheer Force', 80, ['Knock Off', 'Earth Power']);
  const darkrai = exportedSet('Darkrai', 'Leftovers', 'Bad Dreams', 80, ['Dark Pulse', 'Sludge Bomb']);
  const guard = exportedSet('Clefable', 'Life Orb', 'Magic Guard', 80, ['Moonblast', 'Soft-Boiled']);
  const vest = exportedSet('Incineroar', 'Assault Vest', 'Intimidate', 80, ['Knock Off', 'Flare Blitz']);
  const boots = exportedSet('Incineroar', 'Heavy-Duty Boots', 'Intimidate', 80, ['Parting Shot', 'Knock Off']);
  return {
    // in silent over the rocks, then Earth Power (added effects: Sheer Force takes no recoil)
    sheerForce: stage(chomp, sheer, rocks(0)),
    // in silent (no rocks, and unhurt: no item shows or not) with and without Neutralizing Gas
    // ours in play, whose silence then says nothing
    silent: stage(guarded('Garchomp', 'Rough Skin'), knocking, [[0, (4 + 1) * G], [0, 0]]),
    underGas: stage(guarded('Weezing-Galar', 'Neutralizing Gas'), knocking, [[0, (4 + 1) * G], [0, 0]]),
    // Dark Pulse hits with no recoil: no Life Orb
    noLifeOrb: stage(guarded('Garchomp', 'Rough Skin'), darkrai, [[0, (4 + 1) * G], [G, 0]]),
    // Magic Guard: in over the rocks unhurt, and Moonblast with no recoil
    magicGuard: stage(chomp, guard, rocks(0)),
    // hurt by the rocks: no Heavy-Duty Boots
    hurtByRocks: stage(chomp, vest, rocks(0)),
    // a status move: no Assault Vest
    statusMove: stage(chomp, boots, rocks(0)),
  };
}
