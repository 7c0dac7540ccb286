// The doubles action table: what each of our two active positions may do, which pairs of those
// the simulator takes together, and the exact Showdown choice string for a pair.
//
// A position's action p (0 .. POSITION_ACTIONS - 1):
//   p < 120: move slot i with target t and gimmick g, p = (i * TARGETS.length + t) * G + g;
//   120 + j: switch to request row j (at team preview: lead with row j in this position);
//   126: pass (a fainted or commanding position, a forced switch with too few to bring in, or the
//        position that has nothing to do while its partner switches).
// A side's joint action is a = p0 * POSITION_ACTIONS + p1 (p0 for the left position, request row 0).
// The targets follow the simulator's numbering (Showdown's SIM-PROTOCOL): 1 and 2 are the foe's
// left and right positions, -1 and -2 our own; 'ally' and 'self' are turned into those by position.
import {GIMMICKS} from './actions.js';

export const TARGETS = ['', 'foe1', 'foe2', 'ally', 'self'];
const G = GIMMICKS.length;
const T = TARGETS.length;
export const MOVE_ACTIONS = 4 * T * G;
export const SWITCH0 = MOVE_ACTIONS;
export const PASS = SWITCH0 + 6;
export const POSITION_ACTIONS = PASS + 1;
export const NUM_ACTIONS = POSITION_ACTIONS * POSITION_ACTIONS;
const POSITIONS = 2;

// The targets the simulator accepts for each target type it lets the player choose
// (battle.validTargetLoc in doubles, where every position is adjacent to every other); every
// other target type takes none.
const CHOOSABLE = {
  normal: [1, 2, 3], any: [1, 2, 3], adjacentFoe: [1, 2], adjacentAlly: [3], adjacentAllyOrSelf: [3, 4],
};
// Gimmicks a side may use once a turn (and once a battle): two positions never both take one.
const ONCE_A_SIDE = new Set([1, 2, 3, 4, 5]);

const isFainted = p => p.fainted || p.condition === '0 fnt' || String(p.condition).endsWith(' fnt');

/** The position action of move slot i, target index t, gimmick g. */
export const moveAction = (i, t, g) => (i * T + t) * G + g;
/** {slot, target, gimmick} of a position action below SWITCH0. */
export function decodeMove(p) {
  return {slot: Math.floor(p / (T * G)), target: Math.floor(p / G) % T, gimmick: p % G};
}

/** The target type a move slot has with gimmick g (a Z-move or Max Move has its own). */
function targetType(active, i, g) {
  if (g === 3 && active.zMoves && active.zMoves[i]) return active.zMoves[i].target;
  // a Dynamaxed Pokemon (Max Moves listed, no Dynamax left to use) always uses its Max Moves
  if ((g === 4 || (active.maxMoves && !active.canDynamax)) && active.maxMoves && active.maxMoves[i]) {
    return active.maxMoves[i].target;
  }
  return active.moves[i].target;
}

/** The gimmicks move slot i may take: 0 unless it is disabled (a Max Move may be legal where its
 * base move is disabled: Dynamax lifts a Choice lock). */
function gimmicksOf(active, i) {
  const out = [];
  if (!active.moves[i].disabled) {
    out.push(0);
    if (active.canTerastallize) out.push(1);
    if (active.canMegaEvo || active.canMegaEvoX || active.canMegaEvoY) out.push(2);
    if (active.zMoves && active.zMoves[i]) out.push(3);
    if (active.canUltraBurst) out.push(5);
  }
  if (active.canDynamax && active.maxMoves && active.maxMoves[i] && !active.maxMoves[i].disabled) out.push(4);
  return out;
}

/** How many of the positions the simulator asks to switch may pass instead: those it has no
 * Pokemon left to bring in for. */
function forcedPasses(request) {
  const team = request.side.pokemon;
  const flagged = request.forceSwitch.filter(Boolean).length;
  const available = team.filter(p => !p.active && !isFainted(p)).length;
  return flagged - Math.min(flagged, available);
}

/** Writes 1 for each action of each position alone into mask[at .. at + 2 * POSITION_ACTIONS):
 * position k's at at + k * POSITION_ACTIONS. What the two take together is jointAllowed's. */
export function writePositionMasks(request, mask, at) {
  mask.fill(0, at, at + POSITIONS * POSITION_ACTIONS);
  if (!request || request.wait || request.requestType === 'wait') return;
  const team = request.side.pokemon;
  for (let k = 0; k < POSITIONS; k++) {
    const base = at + k * POSITION_ACTIONS;
    if (request.teamPreview || request.requestType === 'team') {
      for (let j = 0; j < team.length && j < 6; j++) mask[base + SWITCH0 + j] = 1;
      continue;
    }
    if (request.forceSwitch) {
      if (!request.forceSwitch[k]) { mask[base + PASS] = 1; continue; }
      const reviving = team[k] && team[k].reviving;
      for (let j = 0; j < team.length && j < 6; j++) {
        if (reviving ? isFainted(team[j]) : !team[j].active && !isFainted(team[j])) mask[base + SWITCH0 + j] = 1;
      }
      if (!reviving && forcedPasses(request) > 0) mask[base + PASS] = 1;
      continue;
    }
    const active = request.active && request.active[k];
    if (!active || !team[k] || isFainted(team[k]) || team[k].commanding) { mask[base + PASS] = 1; continue; }
    for (let i = 0; i < active.moves.length && i < 4; i++) {
      for (const g of gimmicksOf(active, i)) {
        for (const t of CHOOSABLE[targetType(active, i, g)] || [0]) mask[base + moveAction(i, t, g)] = 1;
      }
    }
    if (!active.trapped) {
      for (let j = 0; j < team.length && j < 6; j++) {
        if (!team[j].active && !isFainted(team[j])) mask[base + SWITCH0 + j] = 1;
      }
    }
  }
}

/** Whether the simulator takes position actions p0 and p1 together (each allowed alone): never
 * the same Pokemon brought in twice, a once-a-side gimmick used by one position at most, and no
 * more passes than a forced switch leaves room for. */
export function jointAllowed(request, p0, p1) {
  if (p0 >= SWITCH0 && p0 === p1 && p0 !== PASS) return false;
  if (p0 < SWITCH0 && p1 < SWITCH0) {
    const g0 = p0 % G, g1 = p1 % G;
    if (g0 && g0 === g1 && ONCE_A_SIDE.has(g0)) return false;
  }
  if (request.forceSwitch && p0 === PASS && p1 === PASS) {
    const flagged = request.forceSwitch.filter(Boolean).length;
    if (flagged === 2 && forcedPasses(request) < 2) return false;
  }
  return true;
}

const positionMask = new Uint8Array(POSITIONS * POSITION_ACTIONS);

/** Writes 1 for each legal joint action of `request` into mask[at .. at + NUM_ACTIONS). */
export function writeMask(request, mask, at) {
  mask.fill(0, at, at + NUM_ACTIONS);
  if (!request || request.wait || request.requestType === 'wait') return;
  writePositionMasks(request, positionMask, 0);
  for (let p0 = 0; p0 < POSITION_ACTIONS; p0++) {
    if (!positionMask[p0]) continue;
    for (let p1 = 0; p1 < POSITION_ACTIONS; p1++) {
      if (positionMask[POSITION_ACTIONS + p1] && jointAllowed(request, p0, p1)) mask[at + p0 * POSITION_ACTIONS + p1] = 1;
    }
  }
}

/** One position's part of a choice string. */
function positionChoice(request, k, p) {
  if (!Number.isInteger(p) || p < 0 || p >= POSITION_ACTIONS) throw new Error(`position action ${p} is out of range`);
  if (p === PASS) return 'pass';
  if (p >= SWITCH0) return `switch ${p - SWITCH0 + 1}`;
  const {slot, target, gimmick} = decodeMove(p);
  let s = `move ${slot + 1}`;
  if (TARGETS[target] === 'foe1') s += ' 1';
  else if (TARGETS[target] === 'foe2') s += ' 2';
  else if (TARGETS[target] === 'ally') s += ` -${2 - k}`;
  else if (TARGETS[target] === 'self') s += ` -${k + 1}`;
  if (!gimmick) return s;
  if (gimmick === 2) {
    const active = request.active && request.active[k];
    if (active && !active.canMegaEvo && active.canMegaEvoX) return `${s} megax`;
    if (active && !active.canMegaEvo && active.canMegaEvoY) return `${s} megay`;
  }
  return `${s} ${GIMMICKS[gimmick]}`;
}

/** The Showdown choice string for joint action index `a`, e.g. "move 1 2 terastallize, switch 3". */
export function choiceFor(request, a) {
  if (!Number.isInteger(a) || a < 0 || a >= NUM_ACTIONS) throw new Error(`action ${a} is out of range`);
  const p0 = Math.floor(a / POSITION_ACTIONS), p1 = a % POSITION_ACTIONS;
  if (request.teamPreview || request.requestType === 'team') {
    if (p0 < SWITCH0 || p0 === PASS || p1 < SWITCH0 || p1 === PASS || p0 === p1) {
      throw new Error(`action ${a}: team preview takes two different leads`);
    }
    const team = request.side.pokemon.length;
    const size = request.maxChosenTeamSize ? Math.min(team, request.maxChosenTeamSize) : team;
    const order = [p0 - SWITCH0 + 1, p1 - SWITCH0 + 1];
    for (let j = 1; j <= team && order.length < size; j++) if (!order.includes(j)) order.push(j);
    return `team ${order.join('')}`;
  }
  return `${positionChoice(request, 0, p0)}, ${positionChoice(request, 1, p1)}`;
}


const GIMMICK_WORDS = {terastallize: 1, mega: 2, megax: 2, megay: 2, zmove: 3, dynamax: 4, ultra: 5};

/** The joint action index of a choice string as choiceFor writes it; throws naming what it cannot
 * read. */
export function actionFor(request, choice) {
  const text = String(choice).trim();
  if (text.startsWith('team ')) {
    const order = text.slice(5).replace(/[\s,]/g, '');
    if (order.length < 2) throw new Error(`choice '${choice}': team preview needs two leads`);
    return (SWITCH0 + Number(order[0]) - 1) * POSITION_ACTIONS + SWITCH0 + Number(order[1]) - 1;
  }
  const parts = text.split(',').map(s => s.trim());
  if (parts.length !== POSITIONS) throw new Error(`choice '${choice}': a doubles choice has two parts`);
  const [p0, p1] = parts.map((part, k) => positionAction(part, k, choice));
  return p0 * POSITION_ACTIONS + p1;
}

function positionAction(part, k, choice) {
  const words = part.split(/\s+/);
  const bad = () => new Error(`choice '${choice}': cannot read '${part}'`);
  if (words[0] === 'pass' && words.length === 1) return PASS;
  const n = Number(words[1]);
  if (words[0] === 'switch' && words.length === 2 && n >= 1 && n <= 6) return SWITCH0 + n - 1;
  if (words[0] !== 'move' || !(n >= 1 && n <= 4)) throw bad();
  let target = 0, gimmick = 0;
  for (const w of words.slice(2)) {
    if (w in GIMMICK_WORDS && !gimmick) gimmick = GIMMICK_WORDS[w];
    else if (w === '1' || w === '2') target = TARGETS.indexOf(`foe${w}`);
    else if (w === `-${k + 1}`) target = TARGETS.indexOf('self');
    else if (w === `-${2 - k}`) target = TARGETS.indexOf('ally');
    else throw bad();
  }
  return moveAction(n - 1, target, gimmick);
}
