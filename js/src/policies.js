// Scripted players, run where the battle state is: each reads a PlayerView that has a decision
// to make and returns a legal action index. Their rules are documented in the README.
import {writeMask, NUM_ACTIONS} from './actions.js';
import {typesOf, speciesOf} from './encoder.js';

const G = 6;  // gimmicks per slot
const SWITCH = j => (4 + j) * G;
const mask = new Uint8Array(NUM_ACTIONS);
const HAZARDS = {stealthrock: 1, spikes: 3, toxicspikes: 2, stickyweb: 1};

function legal(view) {
  writeMask(view.request, mask, 0);
  const out = [];
  for (let a = 0; a < NUM_ACTIONS; a++) if (mask[a]) out.push(a);
  if (!out.length) out.push(0);  // nothing legal: let the simulator say so
  return out;
}

const MOVES = Array.from({length: 10}, () => new Map());
function moveData(gen, id) {
  const byId = MOVES[gen.num];
  let m = byId.get(id);
  if (m === undefined) {
    m = gen.moves.get(id) || null;
    byId.set(id, m);
  }
  return m;
}

const boostMult = s => (s >= 0 ? (2 + s) / 2 : 2 / (2 - s));

/** One of the player's own Pokemon, from the request (exact stats) and the client (boosts). */
function ownMon(view, i) {
  const r = view.request.side.pokemon[i];
  const p = view.self.team[i];
  const s = r.stats;
  return {level: r.level || 100, hp: r.hp, maxhp: r.maxhp, atk: s.atk, def: s.def, spa: s.spa, spd: s.spd,
    spe: s.spe, types: p ? typesOf(view.battle, p) : [], boosts: (i === 0 && p && p.boosts) || {},  // only the active one has boosts
    ability: r.ability || r.baseAbility, moves: r.moves, fainted: r.fainted, active: r.active, tera: r.teraType};
}

/** The opponent's active Pokemon, estimated from its species as random battles build sets. */
function foeMon(view) {
  const p = view.foe.active[0];
  if (!p) return null;
  const sp = speciesOf(view.battle, p.speciesForme);
  const bs = sp ? sp.baseStats : {hp: 80, atk: 80, def: 80, spa: 80, spd: 80, spe: 80};
  const L = p.level || 100;
  const stat = b => Math.floor((2 * b + 31 + 21) * L / 100) + 5;
  const maxhp = Math.floor((2 * bs.hp + 31 + 21) * L / 100) + L + 10;
  return {level: L, maxhp, hp: maxhp * (p.maxhp ? p.hp / p.maxhp : 1), atk: stat(bs.atk), def: stat(bs.def),
    spa: stat(bs.spa), spd: stat(bs.spd), spe: stat(bs.spe), types: typesOf(view.battle, p), boosts: p.boosts,
    ability: p.ability, moves: p.moves, status: p.status};
}

/** Expected damage of `move` from `att` to `def`, as a fraction of the defender's max HP. */
function damage(gen, att, def, move, teraType) {
  if (!move || move.category === 'Status') return 0;
  if (move.damage === 'level') return att.level / def.maxhp;
  if (typeof move.damage === 'number') return move.damage / def.maxhp;
  if (move.ohko) return 0.3;
  const eff = gen.types.totalEffectiveness(move.type, def.types);
  if (!eff || (move.type === 'Ground' && def.ability === 'levitate')) return 0;
  const physical = move.category === 'Physical';
  const A = (physical ? att.atk : att.spa) * boostMult((att.boosts || {})[physical ? 'atk' : 'spa'] || 0);
  const D = (physical ? def.def : def.spd) * boostMult((def.boosts || {})[physical ? 'def' : 'spd'] || 0);
  const bp = move.basePower || 60;  // variable power (Low Kick, Gyro Ball...): a middling guess
  const types = teraType ? [teraType, ...att.types] : att.types;
  const stab = types.includes(move.type) ? (teraType && teraType === move.type && att.types.includes(move.type) ? 2 : 1.5) : 1;
  const hits = Array.isArray(move.multihit) ? 3 : move.multihit || 1;
  const acc = move.accuracy === true ? 1 : move.accuracy / 100;
  const base = Math.floor(Math.floor(Math.floor(2 * att.level / 5 + 2) * bp * A / D) / 50) + 2;
  return base * stab * eff * hits * acc * 0.925 / def.maxhp;
}

/** The foe's best damage against `mon`: its revealed moves, or else 80-power STAB moves. */
function threat(view, foe, mon) {
  const gen = view.battle.gen;
  const known = foe.moves.map(id => moveData(gen, id)).filter(m => m && m.category !== 'Status');
  const guesses = foe.types.map(type => ({type, basePower: 80, accuracy: 100,
    category: foe.atk >= foe.spa ? 'Physical' : 'Special'}));
  let best = 0;
  for (const m of known.length ? known.concat(guesses.slice(0, known.length >= 2 ? 0 : 1)) : guesses) {
    best = Math.max(best, damage(gen, foe, mon, m) * mon.maxhp / Math.max(mon.hp, 1));
  }
  return best;  // as a fraction of mon's remaining HP
}

function firstOf(actions, pred) { return actions.find(pred); }
const isMove = a => a < 4 * G;

/** MaxDamage: the legal move with the highest base power x type effectiveness x STAB; when no
 * move does damage, the first legal action; switches (forced) to the first legal Pokemon. */
export function maxdamage(view) {
  const actions = legal(view);
  const req = view.request;
  if (req.forceSwitch || req.teamPreview || !req.active) return actions[0];
  const gen = view.battle.gen;
  const me = view.self.active[0];
  const foe = view.foe.active[0];
  const myTypes = me ? typesOf(view.battle, me) : [];
  const foeTypes = foe ? typesOf(view.battle, foe) : [];
  let best = actions[0];
  let bestScore = 0;
  for (const a of actions) {
    if (!isMove(a) || a % G) continue;
    const m = moveData(gen, req.active[0].moves[a / G].id);
    if (!m || m.category === 'Status') continue;
    const score = (m.basePower || 0) * (foe ? gen.types.totalEffectiveness(m.type, foeTypes) : 1) *
      (myTypes.includes(m.type) ? 1.5 : 1);
    if (score > bestScore) { bestScore = score; best = a; }
  }
  return best;
}

/** Heuristic: estimated damage from stats, boosts, STAB, type and accuracy; takes a KO when it
 * has one; switches out of a bad matchup to the Pokemon that fares best; sets up, lays hazards or
 * heals when the foe threatens little; Terastallizes, Dynamaxes or Mega Evolves when it pays. */
export function heuristic(view) {
  const actions = legal(view);
  const req = view.request;
  const gen = view.battle.gen;
  const foe = foeMon(view);
  if (req.teamPreview || !foe) return actions[0];
  const team = req.side.pokemon.map((_, i) => ownMon(view, i));
  // How well team member i does against the foe: our best hit minus the foe's.
  const matchup = i => {
    const mon = team[i];
    const ours = Math.max(0, ...mon.moves.map(id => damage(gen, mon, foe, moveData(gen, id))));
    return Math.min(ours * foe.maxhp / Math.max(foe.hp, 1), 1) - threat(view, foe, mon);
  };
  const switches = actions.filter(a => !isMove(a));
  const bestSwitch = () => switches.reduce((b, a) => (matchup(a / G - 4) > matchup(b / G - 4) ? a : b));
  if (req.forceSwitch) return switches.length ? bestSwitch() : actions[0];

  const me = team[0];
  const active = req.active[0];
  const foeHp = foe.hp / foe.maxhp;
  const danger = threat(view, foe, me);
  const faster = me.spe * boostMult(me.boosts.spe || 0) > foe.spe * boostMult((foe.boosts || {}).spe || 0);
  let best = null;
  let bestDmg = -1;
  for (const a of actions) {
    if (!isMove(a)) continue;
    const g = a % G;
    const m = moveData(gen, active.moves[Math.floor(a / G)].id);
    let dmg = damage(gen, me, foe, m, g === 1 ? me.tera : null);
    if (g === 3 || g === 4) dmg *= 1.5;  // Z-moves and Max Moves hit harder
    if (g === 2 || g === 5) dmg *= 1.1;  // Mega Evolution / Ultra Burst: better stats
    if (m && m.priority > 0 && dmg >= foeHp && !faster) dmg += 1;  // a priority KO beats a slower one
    if (dmg > bestDmg || (dmg === bestDmg && g === 0)) { bestDmg = dmg; best = a; }
  }
  const kills = bestDmg >= foeHp;
  if (!kills && best !== null) {
    // Switch out of a bad matchup to someone clearly better.
    if (switches.length && danger >= 0.6 && bestDmg < 0.35) {
      const s = bestSwitch();
      if (matchup(s / G - 4) > matchup(0) + 0.3) return s;
    }
    const safe = danger < 0.3;
    for (const a of actions) {
      if (!isMove(a) || a % G) continue;
      const m = moveData(gen, active.moves[a / G].id);
      if (!m || m.category !== 'Status') continue;
      const layers = HAZARDS[m.id];
      const up = view.foe.sideConditions[m.id];
      if (layers && (!up || up.level < layers) && view.foe.team.filter(p => !p.fainted).length +
        (view.foe.totalPokemon - view.foe.team.length) >= 3 && danger < 0.5) return a;
      if (safe && m.target === 'self' && m.boosts && me.hp / me.maxhp > 0.6 &&
        Object.entries(m.boosts).some(([k, v]) => v > 0 && (me.boosts[k] || 0) < 2) && ['atk', 'spa', 'spe'].some(k => m.boosts[k])) return a;
      if ((m.heal || m.flags.heal) && m.target === 'self' && me.hp / me.maxhp < 0.45 && danger < 0.4) return a;
    }
  }
  return best === null ? actions[0] : best;
}

export const POLICIES = {maxdamage, heuristic};
