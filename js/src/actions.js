// The action table: which joint (slot, gimmick) actions a request allows, and the exact Showdown
// choice string for one. Slots 0-3 are moves of the active Pokemon, 4-9 switch to request row
// 0-5 (at team preview: lead with that row); gimmicks are listed in GIMMICKS.
export const GIMMICKS = ['', 'terastallize', 'mega', 'zmove', 'dynamax', 'ultra'];
export const NUM_SLOTS = 10;
export const NUM_ACTIONS = NUM_SLOTS * GIMMICKS.length;
const G = GIMMICKS.length;

/** Writes 1 for each legal action of `request` into mask[at .. at + NUM_ACTIONS). */
export function writeMask(request, mask, at) {
  mask.fill(0, at, at + NUM_ACTIONS);
  if (!request || request.wait || request.requestType === 'wait') return;
  const team = request.side.pokemon;
  if (request.teamPreview || request.requestType === 'team') {
    for (let j = 0; j < team.length && j < 6; j++) mask[at + (4 + j) * G] = 1;
    return;
  }
  if (request.forceSwitch) {
    const reviving = team.some(p => p.reviving);
    for (let j = 0; j < team.length && j < 6; j++) {
      const p = team[j];
      if (p.active) continue;
      if (reviving ? isFainted(p) : !isFainted(p)) mask[at + (4 + j) * G] = 1;
    }
    return;
  }
  const active = request.active && request.active[0];
  if (!active) return;
  const moves = active.moves;
  for (let i = 0; i < moves.length && i < 4; i++) {
    const base = at + i * G;
    // Dynamax lifts a Choice lock, so a Max Move can be legal where its base move is disabled.
    if (active.canDynamax && active.maxMoves && active.maxMoves[i] && !active.maxMoves[i].disabled) {
      mask[base + 4] = 1;
    }
    if (moves[i].disabled) continue;
    mask[base] = 1;
    if (active.canTerastallize) mask[base + 1] = 1;
    if (active.canMegaEvo || active.canMegaEvoX || active.canMegaEvoY) mask[base + 2] = 1;
    if (active.zMoves && active.zMoves[i]) mask[base + 3] = 1;
    if (active.canUltraBurst) mask[base + 5] = 1;
  }
  if (!active.trapped) {
    for (let j = 1; j < team.length && j < 6; j++) {
      if (!team[j].active && !isFainted(team[j])) mask[at + (4 + j) * G] = 1;
    }
  }
}

function isFainted(p) { return p.fainted || p.condition === '0 fnt' || p.condition?.endsWith(' fnt'); }

/** The Showdown choice string for action index `a`; throws if the request cannot take it. */
export function choiceFor(request, a) {
  if (!Number.isInteger(a) || a < 0 || a >= NUM_ACTIONS) throw new Error(`action ${a} is out of range`);
  const slot = Math.floor(a / G);
  const gimmick = a % G;
  if (slot >= 4 && gimmick) throw new Error(`action ${a}: a gimmick needs a move slot`);
  if (request.teamPreview || request.requestType === 'team') {
    if (slot < 4) throw new Error(`action ${a}: team preview takes a switch slot`);
    const lead = slot - 4;
    let size = request.side.pokemon.length;
    if (request.maxChosenTeamSize) size = Math.min(size, request.maxChosenTeamSize);
    const order = [lead + 1];
    for (let j = 1; j <= request.side.pokemon.length && order.length < size; j++) {
      if (j !== lead + 1) order.push(j);
    }
    return `team ${order.join('')}`;
  }
  if (slot >= 4) return `switch ${slot - 3}`;
  if (!GIMMICKS[gimmick]) return `move ${slot + 1}`;
  if (gimmick === 2) {
    const active = request.active && request.active[0];
    if (active && !active.canMegaEvo && active.canMegaEvoX) return `move ${slot + 1} megax`;
    if (active && !active.canMegaEvo && active.canMegaEvoY) return `move ${slot + 1} megay`;
  }
  return `move ${slot + 1} ${GIMMICKS[gimmick]}`;
}
