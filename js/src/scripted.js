// Scripted players for singles, run where the battle state is: each reads a PlayerView that has a
// decision to make and returns a legal action index (doublesscripted.js has doubles'). Their
// rules are documented in docs/playing.md.
import {writeMask, NUM_ACTIONS} from './actions.js';
import {typesOf} from './species.js';
import {knowledgeOf} from './knowledge/index.js';

const G = 6;  // gimmicks per slot
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

/** Heuristic: the battle knowledge the encoder writes (knowledge/: @smogon/calc damage, move
 * order, the foe's likely sets) read as rules: takes a KO when it has one, the surest first and a
 * priority one when slower; switches out of a bad matchup to the Pokemon that fares best; sets up,
 * lays hazards or heals when the foe threatens little; uses a gimmick when it hits harder. */
export function heuristic(view) {
  const actions = legal(view);
  const req = view.request;
  if (req.teamPreview || !view.foe.active[0]) return actions[0];
  const k = knowledgeOf(view);
  // How well team member j does against the foe: our best hit minus the foe's on it.
  const matchup = j => k.switchDealt[2 * j] - k.switchTaken[2 * j];
  const switches = actions.filter(a => !isMove(a));
  const bestSwitch = () => switches.reduce((b, a) => (matchup(a / G - 4) > matchup(b / G - 4) ? a : b));
  if (req.forceSwitch) return switches.length ? bestSwitch() : actions[0];

  const gen = view.battle.gen;
  const active = req.active[0];
  const me = req.side.pokemon[0];
  const myHp = me.maxhp ? me.hp / me.maxhp : 1;
  const danger = k.switchTaken[0];
  const row = a => (Math.floor(a / G) * G + a % G) * 4;
  // expected damage, a KO counting in full when we move first
  const value = a => {
    const d = k.moveDamage[row(a)], ko = k.moveDamage[row(a) + 3];
    return d + ko * k.moveFirst[Math.floor(a / G)];
  };
  let best = null;
  let bestValue = -1;
  for (const a of actions) {
    if (!isMove(a)) continue;
    const v = value(a) - (a % G ? 0.05 : 0);  // a gimmick only where it clearly pays
    if (v > bestValue) { bestValue = v; best = a; }
  }
  const kills = best !== null && k.moveDamage[row(best) + 3] * k.moveFirst[Math.floor(best / G)] >= 0.5;
  if (!kills && best !== null) {
    // Switch out of a bad matchup to someone clearly better.
    if (switches.length && danger >= 0.6 && k.moveDamage[row(best)] < 0.35) {
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
      const boosts = (view.self.active[0] || {}).boosts || {};
      if (safe && m.target === 'self' && m.boosts && myHp > 0.6 &&
        Object.entries(m.boosts).some(([s, v]) => v > 0 && (boosts[s] || 0) < 2) && ['atk', 'spa', 'spe'].some(s => m.boosts[s])) return a;
      if ((m.heal || m.flags.heal) && m.target === 'self' && myHp < 0.45 && danger < 0.4) return a;
    }
  }
  return best === null ? actions[0] : best;
}
