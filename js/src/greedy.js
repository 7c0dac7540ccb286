// Turns played on past a looked-at position, both sides taking their hardest-hitting move: what
// a turn set up (a switch, a boost, a status) shows in what follows. The lookahead
// (lookahead.js) plays them after each candidate's turn, the search (search.js) at its leaves.

/** One more turn, both sides taking their hardest-hitting move (replacing fainted Pokemon with
 * the first able one). */
export function playOnce(battle) {
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

/** Side's hardest-hitting move on the foe's active Pokemon (base power, type effectiveness,
 * same-type bonus) as a choice; 'default' where it has none. */
export function hardestHit(battle, side) {
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


