// Checks the worlds the native search thinks on (src/enginestate.js's drawnWorld, from
// src/rebuild.js) against the true battle, field by field of poke-engine's state: at each of p1's
// decisions of battles both sides play at random (mostly moves), `worlds` worlds are drawn from
// p1's view and each is set beside the true battle's engine state (p1 as side one).
//
// Each field is either *counted* (the player could know it: shown by the battle, or counted from
// the protocol since it began) or *guessed* (the foe's hidden set and unseen Pokemon). The check
// tells disagreements of both kinds apart: the counted ones should be 0; the guessed ones say how
// often a drawn world had the truth.
import {PRNG} from '@pkmn/sim';
import {drawnWorld, engineState} from '../src/enginestate.js';
import {revealed} from '../src/knowledge/mons.js';
import {toID} from '../src/contract.js';
import {playBattles} from './worldcheck.js';
import {exportedSet} from './viewcheck.js';
import {Match} from '../src/simulator.js';

const MAX_EXAMPLES = 40;
const EXAMPLES_EACH = 2;  // examples kept of each field
const CONDITIONS = ['auroraveil', 'craftyshield', 'healingwish', 'lightscreen', 'luckychant', 'lunardance',
  'matblock', 'mist', 'protect', 'quickguard', 'reflect', 'safeguard', 'spikes', 'stealthrock', 'stickyweb',
  'tailwind', 'toxic_count', 'toxicspikes', 'wideguard'];
const DURATIONS = ['confusion', 'encore', 'lockedmove', 'slowstart', 'taunt', 'yawn'];
// drawn by the simulator when they begin, so no player can count them: confusion (2 to 5 turns),
// a move locked into (2 or 3)
const DRAWN_DURATIONS = new Set(['confusion', 'lockedmove']);
const BOOSTS = ['atk', 'def', 'spa', 'spd', 'spe', 'accuracy', 'evasion'];

/** poke-engine's state string (enginestate.js's layout) as named fields. */
export function parseEngineState(s) {
  const [one, two, weather, terrain, trickRoom] = s.split('/');
  const pair = x => x.split(';');
  const [w, wt] = pair(weather), [t, tt] = pair(terrain), [tr, trt] = pair(trickRoom);
  return {sides: [parseSide(one), parseSide(two)],
    field: {weather: w, weather_turns: Number(wt), terrain: t, terrain_turns: Number(tt),
      trickroom: tr, trickroom_turns: Number(trt)}};
}

function parseSide(s) {
  const f = s.split('=');
  const mons = f.slice(0, 6).map(parseMon);
  const conditions = Object.fromEntries(f[7].split(';').map((n, i) => [CONDITIONS[i], Number(n)]));
  const volatiles = f[8] ? f[8].split(':').filter(Boolean).map(v => v.toLowerCase()) : [];
  const durations = Object.fromEntries(f[9].split(';').map((n, i) => [DURATIONS[i], Number(n)]));
  const boosts = Object.fromEntries(BOOSTS.map((b, i) => [b, Number(f[11 + i])]));
  return {mons, active: Number(f[6]), conditions, volatiles, durations, substitute_hp: Number(f[10]), boosts,
    wish_turns: Number(f[18]), wish_hp: Number(f[19]), future_turns: Number(f[20]), trapped: f[25],
    force_switch: f[22], last_move: f[26]};
}

function parseMon(s) {
  const f = s.split(',');
  return {species: f[0], level: Number(f[1]), hp: Number(f[6]), maxhp: Number(f[7]), ability: f[8], item: f[10],
    stats: f.slice(13, 18).map(Number), status: f[18], rest_turns: Number(f[19]), sleep_turns: Number(f[20]),
    moves: f.slice(22, 26).map(m => { const [name, disabled, pp] = m.split(';'); return {name, disabled, pp: Number(pp)}; }),
    terastallized: f[27], tera: f[28]};
}

/** {decisions, worlds, counted: {field: disagreements}, guessed: {field: [disagreements,
 * compared]}, compared: how many counted fields were compared, examples}. */
export function checkWorldTruth({format = 'gen9randombattle', battles, seed, worlds = 2}) {
  const prng = new PRNG(seed);
  const out = {decisions: 0, worlds: 0, compared: 0, counted: {}, guessed: {}, examples: []};
  playBattles({format, battles, prng, name: 'worldtruth'}, (side, view, legal, mask, action, match) => {
    const moves = legal.filter(a => a < 4 * 6);
    const pick = moves.length && prng.random(100) < 80 ? moves[prng.random(moves.length)] : action;
    if (side !== 'p1') return pick;
    const truth = parseEngineState(engineState(match.sim, 0));
    // the worlds' draws apart from the battles' (the same battles whatever the worlds draw)
    const draws = new PRNG([out.decisions + 1, 17, 29, 3]);
    let drawn = false;
    for (let w = 0; w < worlds; w++) {
      const world = drawnWorld(view, () => draws.random());
      if (!world) continue;
      drawn = true;
      out.worlds++;
      compareWorld(out, view, parseEngineState(world.state), truth, `${view.key} turn ${view.battle.turn}`);
    }
    if (drawn) out.decisions++;
    return pick;
  });
  return out;
}

function compareWorld(out, view, world, truth, at) {
  at = `${at}: ${view.history.slice(-6).filter(x => typeof x === 'string').join(' ')}`;
  const counted = (what, a, b) => {
    out.compared++;
    if (a === b) return;
    out.counted[what] = (out.counted[what] || 0) + 1;
    if (out.counted[what] <= EXAMPLES_EACH && out.examples.length < MAX_EXAMPLES) {
      out.examples.push(`${what}: world ${a}, truth ${b} (${at})`);
    }
  };
  const guessed = (what, same) => {
    const g = out.guessed[what] || (out.guessed[what] = [0, 0]);
    g[1]++;
    if (!same) g[0]++;
  };
  for (const [k, v] of Object.entries(truth.field)) counted(`field.${k}`, world.field[k], v);
  ['ours', 'foe'].forEach((who, i) => {
    const ws = world.sides[i], ts = truth.sides[i];
    for (const c of CONDITIONS) counted(`${who}.${c}`, ws.conditions[c], ts.conditions[c]);
    // at a forced switch our fainted active stands in no world (the engine's active is an empty slot)
    if (who === 'ours' && [].concat(view.request.forceSwitch || []).some(Boolean)) return;
    const wa = ws.mons[ws.active], ta = ts.mons[ts.active];
    counted(`${who}.active`, wa && wa.species, ta && ta.species);
    if (!wa || !ta || wa.species !== ta.species) return;
    for (const b of BOOSTS) counted(`${who}.boosts.${b}`, ws.boosts[b], ts.boosts[b]);
    for (const d of DURATIONS) {
      if (DRAWN_DURATIONS.has(d)) guessed(`${who}.${d}_turns`, ws.durations[d] === ts.durations[d]);
      else counted(`${who}.${d}_turns`, ws.durations[d], ts.durations[d]);
    }
    const vols = new Set([...ws.volatiles, ...ts.volatiles]);
    for (const v of vols) counted(`${who}.volatile.${v}`, ws.volatiles.includes(v), ts.volatiles.includes(v));
    // a Substitute's HP is known until it is hit (the battle does not say by how much)
    const subHit = (i ? view.foe : view.self).active[0] && subWasHit(view, i ? view.foe.active[0] : view.self.active[0]);
    if (subHit) guessed(`${who}.substitute_hp`, ws.substitute_hp === ts.substitute_hp);
    else counted(`${who}.substitute_hp`, ws.substitute_hp, ts.substitute_hp);
    counted(`${who}.wish`, `${ws.wish_turns};${ws.wish_hp}`, `${ts.wish_turns};${ts.wish_hp}`);
    counted(`${who}.future_sight`, ws.future_turns, ts.future_turns);
  });
  compareMons(world.sides[0].mons, truth.sides[0].mons, null, counted, guessed);
  compareMons(world.sides[1].mons, truth.sides[1].mons, view, counted, guessed);
}

/** Each Pokemon of the world beside the true one of its species; `view` for the foe's side,
 * whose hidden set is guessed where not revealed (null for ours, all of which is known). */
function compareMons(worldMons, trueMons, view, counted, guessed) {
  const who = view ? 'foe' : 'ours';
  const shown = view ? new Map(view.foe.team.map(p => [toID(p.speciesForme), p])) : null;
  for (const t of trueMons) {
    if (t.species === 'NONE' || t.hp <= 0) continue;
    const w = worldMons.find(m => m.species === t.species);
    const client = shown && (shown.get(t.species.toLowerCase()) ||
      view.foe.team.find(p => toID(p.baseSpeciesForme) === t.species.toLowerCase()));
    if (view && !client) {  // unseen: all of it guessed
      guessed('foe.unseen_species', !!w);
      continue;
    }
    if (!w) { counted(`${who}.present`, 'none', t.species); continue; }
    const known = client ? revealed(client) : null;
    // the foe's HP is shown in percent (and a drawn set's maximum may differ from the truth's)
    const close = !view || Math.abs(w.hp / w.maxhp - t.hp / t.maxhp) <= 0.015;
    counted(`${who}.hp`, close ? w.hp : `${w.hp}/${w.maxhp}`, close ? (view ? w.hp : t.hp) : `${t.hp}/${t.maxhp}`);
    counted(`${who}.status`, w.status, t.status);
    counted(`${who}.rest_turns`, w.rest_turns, t.rest_turns);
    counted(`${who}.sleep_turns`, w.sleep_turns, t.sleep_turns);
    counted(`${who}.terastallized`, w.terastallized, t.terastallized);
    const teraShown = !view || client.terastallized;
    if (teraShown) counted(`${who}.tera_type`, w.tera, t.tera); else guessed('foe.tera_type', w.tera === t.tera);
    if (!view || known.item || client.lastItem) counted(`${who}.item`, w.item, t.item); else guessed('foe.item', w.item === t.item);
    if (!view || known.ability) counted(`${who}.ability`, w.ability, t.ability);
    else guessed('foe.ability', w.ability === t.ability);
    guessed(`${who}.stats`, w.stats.join() === t.stats.join());
    for (const tm of t.moves) {
      if (tm.name === 'NONE') continue;
      const wm = w.moves.find(m => m.name === tm.name);
      const seen = !view || known.moves.includes(tm.name.toLowerCase().replace(/[0-9]+$/, ''));
      if (!seen) { guessed('foe.move', !!wm); continue; }
      if (!wm) { counted(`${who}.move_present`, false, true); continue; }
      counted(`${who}.move_pp`, `${tm.name} ${wm.pp}`, `${tm.name} ${tm.pp}`);
    }
  }
}

/** Whether the Substitute of `p` (a client Pokemon in play) has been hit since it was made. */
function subWasHit(view, p) {
  const name = p.name;
  for (let i = view.history.length - 1; i >= 0; i--) {
    const [, kind, who, what, tag] = String(view.history[i]).split('|');
    if (!who || who.replace(/^p[1-4][a-z]?: /, '') !== name || who.slice(0, 2) !== p.side.id) continue;
    if (kind === '-start' && what === 'Substitute') return false;
    if (kind === '-activate' && what === 'move: Substitute' && tag === '[damage]') return true;
  }
  return false;
}

/** A staged battle: our Ninetales-Alola (Light Clay, Snow Warning) sets Aurora Veil while the
 * foe's Porygon2 sets Trick Room, then two more turns pass. {world, truth}: the turns left of
 * snow, Aurora Veil and Trick Room in a drawn world and in the true battle at our next
 * decision; {unclayed}: the same where our Ninetales holds Leftovers. */
export function checkStagedDurations() {
  const run = item => {
    const ours = exportedSet('Ninetales-Alola', item, 'Snow Warning', 80, ['Aurora Veil', 'Moonblast']);
    const foe = exportedSet('Porygon2', 'Eviolite', 'Trace', 80, ['Trick Room', 'Recover']);
    const match = new Match('durations', {format: 'gen9randombattle', seed: '1,2,3,4', p1team: ours, p2team: foe});
    for (const [a, b] of [[0, 0], [6, 6], [6, 6]]) { match.act('p1', a); match.act('p2', b); }
    const pick = s => { const f = parseEngineState(s); return {snow: f.field.weather_turns, trickroom: f.field.trickroom_turns,
      auroraveil: f.sides[0].conditions.auroraveil}; };
    return {world: pick(drawnWorld(match.views.p1, () => 0.5).state), truth: pick(engineState(match.sim, 0))};
  };
  return {clayed: run('Light Clay'), unclayed: run('Leftovers')};
}
