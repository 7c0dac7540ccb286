// Lookahead from what a player can see. The battle is rebuilt in the simulator: our team exactly
// as the request gives it, the foe's revealed Pokemon with what they have shown and, for the
// rest, the format's likeliest set (knowledge/sets.js); HP, status, boosts, Tera, Substitute,
// weather, terrain and side conditions as shown. Then one turn is played for each candidate
// action of ours against each move the foe's active Pokemon likely has (at a forced switch: for
// each Pokemon that could come in), optionally more turns of both sides' hardest hits, and each
// outcome is scored by what both sides have left (material). Players weigh these values against
// a policy's own preferences (metapvp/players/lookahead.py).
import {Battle as SimBattle, Dex, PRNG} from '@pkmn/sim';
import {choiceFor, GIMMICKS} from './actions.js';
import {possibleSets, moveID} from './knowledge/sets.js';
import {toID} from './contract.js';
import {formatOf} from './format.js';

const G = GIMMICKS.length;
const FOE_MOVES = 4;          // the foe's likeliest moves, as many as a set has
const STATS = ['atk', 'def', 'spa', 'spd', 'spe'];
const BOOST_WORTH = 0.04;     // material per stage of attack, special attack or speed
const STATUS_WORTH = {slp: 0.25, frz: 0.25, par: 0.12, brn: 0.12, tox: 0.12, psn: 0.08};
const SILENT = () => {};

/** For each action in `candidates` (action indices of view's request): the expected material
 * after one turn, [mean over the foe's likely moves, the worst of them]; NaN where the
 * simulator refused the action. At a forced switch, the turn looked at is the one after it,
 * the Pokemon sent in taking its hardest hit. null where there is nothing to look ahead at
 * (team preview, waiting, no known foe). */
export function lookahead(view, candidates, playOn = 0, samples = 1) {
  const req = view.request;
  if (!req || !req.side || req.teamPreview || req.wait || !(req.active || req.forceSwitch)) return null;
  const foeActive = view.foe.active[0];
  if (!foeActive || foeActive.fainted) return null;
  if (req.forceSwitch) return switchIns(view, candidates, playOn, samples);
  const start = rebuild(view);
  if (!start) return null;
  const foeMoves = start.foeMoves;
  const out = [];
  for (const a of candidates) {
    let choice;
    try {
      choice = ourChoice(req, a, start.slots);
    } catch (e) {
      out.push([NaN, NaN]);
      continue;
    }
    out.push(againstFoe(view, foeMoves, () => rebuild(view).battle, choice, playOn, samples));
  }
  return out;
}

function switchIns(view, candidates, playOn, samples) {
  const out = [];
  for (const a of candidates) {
    const j = Math.floor(a / G) - 4;
    const r = view.request.side.pokemon[j];
    const start = j >= 0 && r && !r.fainted && r.hp ? rebuild(view, j) : null;
    if (!start) {
      out.push([NaN, NaN]);
      continue;
    }
    out.push(againstFoe(view, start.foeMoves, () => rebuild(view, j).battle, hardestHit, playOn, samples));
  }
  return out;
}

/** [mean, worst] material after our `choice` against each of the foe's likely moves, each
 * outcome averaged over `samples` draws of the battle's chances (damage rolls, accuracy,
 * critical hits). The draws' seeds do not depend on our choice, so candidates are compared
 * under the same luck as far as their turns use the same chances. */
function againstFoe(view, foeMoves, start, choice, playOn, samples) {
  let mean = 0, total = 0, worst = Infinity;
  for (let m = 0; m < foeMoves.length; m++) {
    let v = 0;
    for (let s = 0; s < samples && !Number.isNaN(v); s++) {
      v += playTurn(start, choice, `move ${m + 1}`, playOn, [view.battle.turn & 0xffff, m, s, 17]) / samples;
    }
    if (Number.isNaN(v)) continue;
    mean += foeMoves[m] * v;
    total += foeMoves[m];
    worst = Math.min(worst, v);
  }
  return total ? [mean / total, worst] : [NaN, NaN];
}

/** lookahead() for many decisions: `views` are functions giving each decision's view. A
 * decision whose lookahead fails gets {error} and never stops the others. */
export function lookaheadMany(views, candidates, playOn, samples) {
  return views.map((viewOf, i) => {
    try {
      return lookahead(viewOf(), candidates[i], playOn, samples);
    } catch (e) {
      return {error: e.message};
    }
  });
}

/** Material after one turn from a freshly rebuilt start: our material minus the foe's; NaN
 * where a choice is refused. `ours`: a choice, or a rule giving one for the battle. */
function playTurn(start, ours, theirs, playOn, seed) {
  const battle = start();
  battle.prng = new PRNG(seed);
  const own = typeof ours === 'function' ? ours(battle, battle.sides[0]) : ours;
  if (!battle.choose('p1', own) || !battle.choose('p2', theirs)) return NaN;
  for (let t = 0; t < playOn; t++) playOnce(battle);
  return material(battle.sides[0]) - material(battle.sides[1]);
}

/** One more turn, both sides taking their hardest-hitting move (replacing fainted Pokemon with
 * the first able one): what a turn set up (a switch, a boost, a status) shows in what follows. */
function playOnce(battle) {
  const turn = battle.turn;
  for (let guard = 0; guard < 6 && !battle.ended && battle.turn === turn; guard++) {
    for (const side of battle.sides) {
      const req = side.activeRequest;
      if (!req || req.wait || side.isChoiceDone()) continue;
      const choice = req.forceSwitch ? 'default' : hardestHit(battle, side);
      if (!battle.choose(side.id, choice)) battle.choose(side.id, 'default');
      if (battle.ended) return;
    }
  }
}

function hardestHit(battle, side) {
  const req = side.activeRequest;
  const me = side.active[0], foe = side.foe.active[0];
  if (!me || !foe || !req.active) return 'default';
  const types = foe.getTypes();
  let best = 'default', bestScore = 0;
  req.active[0].moves.forEach((m, i) => {
    if (m.disabled) return;
    const move = battle.dex.moves.get(m.id);
    if (!move.exists || move.category === 'Status' || !battle.dex.getImmunity(move.type, types)) return;
    const score = (move.basePower || 0) * 2 ** battle.dex.getEffectiveness(move.type, types) *
      (me.hasType(move.type) ? 1.5 : 1);
    if (score > bestScore) { bestScore = score; best = `move ${i + 1}`; }
  });
  return best;
}

function material(side) {
  let m = 0;
  for (const p of side.pokemon) {
    if (p.fainted || !p.hp) continue;
    m += p.hp / p.maxhp - (STATUS_WORTH[p.status] || 0);
    if (p.isActive) for (const s of ['atk', 'spa', 'spe']) m += BOOST_WORTH * p.boosts[s];
  }
  return m;
}

/** Our action as a choice in the rebuilt battle, whose team leaves out fainted Pokemon. */
function ourChoice(req, a, slots) {
  const choice = choiceFor(req, a);
  if (!choice.startsWith('switch ')) return choice;
  const j = Math.floor(a / G) - 4;
  if (slots[j] < 0) throw new Error('no such Pokemon');
  return `switch ${slots[j] + 1}`;
}

/** The battle at this decision, as far as the player knows it: {battle, slots: request row ->
 * rebuilt team index (-1 fainted), foeMoves: the foe's moves' weights}; null where the foe's
 * active Pokemon has no moves to play. `lead`: the request row sent in at a forced switch (then
 * it leads, and `slots` follow the reordered rows). */
function rebuild(view, lead = -1) {
  const req = view.request;
  const format = formatOf(view.battle);
  const ours = [], slots = [];
  const rows = lead < 0 ? req.side.pokemon : [req.side.pokemon[lead], ...req.side.pokemon.filter((_, j) => j !== lead)];
  for (const r of rows) {
    if (r.fainted || !r.hp) { slots.push(-1); continue; }
    slots.push(ours.length);
    ours.push(r);
  }
  const foes = [view.foe.active[0], ...view.foe.team.filter(p => p !== view.foe.active[0] && !p.fainted && p.hp)];
  const foeSets = foes.map(p => foeSet(format, p));
  if (!foeSets[0] || !foeSets[0].moves.length) return null;
  const battle = new SimBattle({formatid: format, seed: [1, 2, 3, 4], send: SILENT});
  battle.setPlayer('p1', {name: 'p1', team: ours.map(ownSet)});
  battle.setPlayer('p2', {name: 'p2', team: foeSets});
  if (battle.requestState === 'teampreview') {  // leads in team order: the active ones come first
    battle.choose('p1', 'default');
    battle.choose('p2', 'default');
  }
  ours.forEach((r, i) => setOwn(battle, battle.sides[0].pokemon[i], r, i === 0 && lead < 0 ? view.self.active[0] : null));
  foes.forEach((p, i) => setFoe(battle, battle.sides[1].pokemon[i], p));
  setField(battle, view);
  battle.turn = view.battle.turn;
  return {battle, slots, foeMoves: foeSets[0].weights};
}

// Stats are set from the request afterwards; these only have to make a legal Pokemon.
const EVS = {hp: 84, atk: 84, def: 84, spa: 84, spd: 84, spe: 84};

function ownSet(r) {
  return {name: r.name || r.speciesForme, species: r.speciesForme, level: r.level || 100,
    gender: r.gender || '', item: r.item || '', ability: r.ability || r.baseAbility || '',
    moves: r.moves.map(id => String(id).replace(/[0-9]+$/, '')), nature: 'Hardy', evs: EVS,
    teraType: r.teraType || undefined};
}

function setOwn(battle, p, r, client) {
  p.maxhp = p.baseMaxhp = r.maxhp;
  p.hp = r.hp;
  for (const s of STATS) if (r.stats && r.stats[s]) p.storedStats[s] = r.stats[s];
  if (r.terastallized) p.terastallized = r.terastallized;
  setStatus(battle, p, r.status);
  if (client) setActive(battle, p, client);
}

/** The foe's Pokemon as a set: what it revealed, the rest from its likeliest set; `weights`
 * are how likely it has each of the moves given (no moves without set data or revealed ones). */
function foeSet(format, p) {
  const known = {moves: p.moves.map(moveID), item: toID(p.item), ability: toID(p.ability || p.baseAbility),
    tera: toID(p.terastallized)};
  const sets = possibleSets(format, p.baseSpeciesForme, known);
  const likely = sets && sets.set;
  let moves = sets ? sets.moves.slice(0, FOE_MOVES) : known.moves.map(m => [m, 1]);
  // A Choice item holds the foe to the move it used last.
  if (toID(p.item).startsWith('choice') && p.lastMove && p.lastMove !== 'struggle') moves = [[p.lastMove, 1]];
  moves = moves.filter(([id]) => Dex.moves.get(id).exists);
  const top = list => (list && list.length ? list[0][0] : '');
  return {name: p.name, species: p.speciesForme, level: p.level || 100, gender: p.gender || '',
    item: toID(p.item) || (p.lastItem ? '' : top(sets && sets.items)),
    ability: toID(p.ability || p.baseAbility) || top(sets && sets.abilities),
    moves: moves.map(([id]) => id), weights: moves.map(([, w]) => w),
    nature: likely ? likely.nature : 'Hardy', evs: likely ? likely.evs : EVS, ivs: likely ? likely.ivs : undefined,
    teraType: p.teraType || (likely && likely.tera) || undefined};
}

function setFoe(battle, p, client) {
  p.hp = Math.max(1, Math.round((client.maxhp ? client.hp / client.maxhp : 1) * p.maxhp));
  if (client.terastallized) p.terastallized = client.terastallized;
  setStatus(battle, p, client.status);
  if (p.isActive) setActive(battle, p, client);
}

function setStatus(battle, p, status) {
  p.status = status && status !== 'fnt' ? status : '';
  p.statusState = battle.initEffectState({id: p.status, target: p});
  if (p.status === 'slp') p.statusState.time = p.statusState.startTime = 2;
}

function setActive(battle, p, client) {
  for (const s of [...STATS, 'accuracy', 'evasion']) p.boosts[s] = (client.boosts && client.boosts[s]) || 0;
  if (client.volatiles && client.volatiles.substitute && !p.volatiles.substitute) p.addVolatile('substitute');
}

function setField(battle, view) {
  const f = view.battle.field;
  battle.field.clearWeather();
  battle.field.clearTerrain();
  if (f.weather && f.weatherState.id) battle.field.setWeather(f.weatherState.id, 'debug');
  if (f.terrain && f.terrainState.id) battle.field.setTerrain(f.terrainState.id, 'debug');
  for (const id of Object.keys(f.pseudoWeather)) battle.field.addPseudoWeather(id, 'debug');
  [view.self, view.foe].forEach((side, i) => {
    const sim = battle.sides[i];
    for (const key of Object.keys(sim.sideConditions)) delete sim.sideConditions[key];
    for (const [id, c] of Object.entries(side.sideConditions)) {
      for (let n = 0; n < Math.max(1, c.level || 1); n++) sim.addSideCondition(id, 'debug');
    }
  });
}
