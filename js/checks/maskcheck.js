// Checks the action mask against the simulator itself: at every decision of randomly played
// battles, every joint action is offered to the simulator (with its output muted and its state
// restored afterwards), and the simulator's verdict is compared with the mask.
import {PRNG} from '@pkmn/sim';
import {Match} from '../src/simulator.js';
import {writeMask, choiceFor, NUM_ACTIONS, GIMMICKS} from '../src/actions.js';

// Which flag of side.choice shows that a gimmick was really taken, not silently dropped.
const TAKEN = {terastallize: 'terastallize', mega: 'mega', zmove: 'zMove', dynamax: 'dynamax', ultra: 'ultra'};

export function checkMasks({format, battles, seed, p1team, p2team}) {
  const prng = new PRNG(seed);
  const stats = {format, battles: 0, decisions: 0, offered: 0, legal: 0, mismatches: 0,
    hidden_info: 0, examples: [], situations: {}};
  const mask = new Uint8Array(NUM_ACTIONS);
  for (let b = 0; b < battles; b++) {
    const match = new Match(`check-${b}`, {format, seed: nextSeed(prng), p1team, p2team});
    while (!match.ended) {
      let acted = false;
      for (const side of ['p1', 'p2']) {
        const view = match.views[side];
        if (!view.needsDecision) continue;
        writeMask(view.request, mask, 0);
        stats.decisions++;
        for (const name of situations(view.request, match.sim.getSide(side))) {
          stats.situations[name] = (stats.situations[name] || 0) + 1;
        }
        const legal = [];
        for (let a = 0; a < NUM_ACTIONS; a++) {
          let choice = null;
          try { choice = choiceFor(view.request, a); } catch { /* no choice string: must be masked out */ }
          const verdict = choice === null ? 'rejected' : trial(match.sim, side, choice, [GIMMICKS[a % GIMMICKS.length]]);
          if (choice !== null) stats.offered++;
          if (mask[a]) legal.push(a);
          if (verdict === 'unavailable' && mask[a]) { stats.hidden_info++; continue; }
          if ((verdict === 'accepted') !== !!mask[a]) {
            stats.mismatches++;
            if (stats.examples.length < 10) {
              stats.examples.push({battle: b, turn: match.sim.turn, side, action: a, choice, mask: mask[a],
                verdict, request: JSON.stringify(view.request).slice(0, 2000)});
            }
          }
        }
        stats.legal += legal.length;
        if (!legal.length) throw new Error(`battle ${b}: no legal action for ${side} at turn ${match.sim.turn}`);
        match.act(side, legal[prng.random(legal.length)]);
        acted = true;
      }
      if (!acted && !match.ended) throw new Error(`battle ${b}: stalled at turn ${match.sim.turn}`);
    }
    stats.battles++;
  }
  return stats;
}

/** The special cases a decision involves, so that a check can show it met each of them. */
function situations(request, side) {
  const out = [];
  if (request.teamPreview) out.push('team_preview');
  if (request.forceSwitch) out.push('forced_switch');
  if (request.side.pokemon.some(p => p.reviving)) out.push('revival_blessing');
  const active = request.active && request.active[0];
  const mon = side.active[0];
  if (active && !request.forceSwitch) {
    if (active.trapped) out.push('trapped');
    if (active.maybeTrapped) out.push('maybe_trapped');
    if (active.moves.some(m => m.id === 'struggle')) out.push('struggle');
    else if (active.moves.length === 1) out.push('locked_move');
    if (active.moves.some(m => m.disabled)) out.push('disabled_move');
    if (active.moves.some(m => m.pp === 0)) out.push('zero_pp_move');
    if (active.canTerastallize) out.push('can_terastallize');
    if (active.canDynamax) out.push('can_dynamax');
    if (active.canMegaEvo) out.push('can_mega');
    if (active.zMoves) out.push('can_zmove');
    if (mon && mon.transformed) out.push('transformed');
    if (mon && !mon.transformed && mon.moveSlots.some(m => m.virtual)) out.push('mimic');
    if (mon && mon.illusion) out.push('illusion');
  }
  if (mon && mon.lastMove && ['uturn', 'voltswitch', 'flipturn', 'partingshot', 'shedtail',
    'teleport', 'chillyreception'].includes(mon.lastMove.id) && request.forceSwitch) out.push('pivot');
  return out;
}

/** A battle seed drawn from `prng`: four numbers, as the simulator takes them. */
export function nextSeed(prng) {
  return [0, 0, 0, 0].map(() => prng.random(65536)).join(',');
}

/** Offers `choice` to the simulator and undoes every trace of it: 'accepted', 'unavailable'
 * (refused for what the request did not show) or 'rejected'. `gimmicks`: the gimmicks the choice
 * asks for (names of GIMMICKS; '' for none), each of which must really be taken. */
export function trial(sim, sideId, choice, gimmicks) {
  const side = sim.getSide(sideId);
  const request = side.activeRequest;
  // Choosing can change these: a hidden-information rejection reveals trapping or disabling,
  // and an accepted Revival Blessing target clears switchFlag.
  const flags = side.active.map(p => p && [p.maybeLocked, p.maybeDisabled, p.maybeTrapped, p.trapped, p.switchFlag]);
  const copy = JSON.stringify(request);
  const sent = [];
  const send = sim.send;
  sim.send = (type, data) => sent.push(String(data));
  let ok;
  try {
    ok = side.choose(choice) && side.isChoiceDone();
    // a gimmick accepted but silently dropped (Dynamax while Dynamaxed) is not the gimmick
    for (const gimmick of gimmicks) if (ok && gimmick && !side.choice[TAKEN[gimmick]]) ok = false;
  } finally {
    sim.send = send;
    // A rejection for hidden information rewrites the request and the Pokemon's flags.
    if (sent.some(s => s.includes('|request|'))) side.activeRequest = JSON.parse(copy);
    side.active.forEach((p, i) => {
      if (p) [p.maybeLocked, p.maybeDisabled, p.maybeTrapped, p.trapped, p.switchFlag] = flags[i];
    });
    side.clearChoice();  // after switchFlag is back: it counts the forced switches from it
  }
  if (ok) return 'accepted';
  return sent.some(s => s.includes('[Unavailable choice]')) ? 'unavailable' : 'rejected';
}
