// The battle at a decision, as far as one player knows it, rebuilt in the simulator: our team
// exactly as the request gives it (fainted Pokemon left out), the foe's revealed Pokemon with
// what they have shown and the rest of each set chosen from the format's set data (the likeliest
// set, or one drawn in proportion to how likely each is), HP, status, boosts, Tera, Substitute,
// weather, terrain and side conditions as shown. Lookahead (lookahead.js) plays one rebuilt
// battle; the search (search.js) draws several, the foe's unrevealed Pokemon drawn too.
import {Battle as SimBattle, Dex} from '@pkmn/sim';
import {TeamGenerators} from '@pkmn/randoms';
import {choiceFor, GIMMICKS} from './actions.js';
import {possibleSets, moveID} from './knowledge/sets.js';
import {toID} from './contract.js';
import {formatOf} from './format.js';
import {turnsLeft, setterOf, startsWeather, startsField, startsSide, SIM_WEATHER, simTerrain} from './knowledge/durations.js';

const G = GIMMICKS.length;
const FOE_MOVES = 4;          // the foe's likeliest moves, as many as a set has
const STATS = ['atk', 'def', 'spa', 'spd', 'spe'];
const SILENT = () => {};

/** Our action as a choice in the rebuilt battle, whose team leaves out fainted Pokemon. */
export function ourChoice(req, a, slots) {
  const choice = choiceFor(req, a);
  if (!choice.startsWith('switch ')) return choice;
  const j = Math.floor(a / G) - 4;
  if (slots[j] < 0) throw new Error('no such Pokemon');
  return `switch ${slots[j] + 1}`;
}

/** The battle at this decision, as far as the player knows it: {battle, me: our side's index
 * there (we play the side we play in the real battle, under the same player names), slots:
 * request row -> rebuilt team index (-1 fainted), foeMoves: the foe's moves' weights}; null where the foe's
 * active Pokemon is unknown, fainted or has no moves to play. `lead`: the request row sent in at a forced switch (then
 * it leads, and `slots` follow the reordered rows). `random`: where given (a function giving
 * numbers in [0, 1)), each foe set is drawn among the possible ones instead of the likeliest,
 * and the foe's unrevealed Pokemon are drawn from the format's generator. `truth` (a diagnostic:
 * what the worlds would gain from knowing part of what the foe hides): {side: the foe's side in
 * the true battle, sets: the seen Pokemon's true sets, unseen: the true unseen Pokemon}. */
export function rebuild(view, lead = -1, random = null, truth = null) {
  const req = view.request;
  const format = formatOf(view.battle);
  const ours = [], slots = [];
  const rows = lead < 0 ? req.side.pokemon : [req.side.pokemon[lead], ...req.side.pokemon.filter((_, j) => j !== lead)];
  for (const r of rows) {
    if (r.fainted || !r.hp) { slots.push(-1); continue; }
    slots.push(ours.length);
    ours.push(r);
  }
  const active = view.foe.active[0];
  if (!active || active.fainted || !active.hp) return null;  // nothing known to face
  // a benched foe with no move known or likely is left out: the simulator takes no set without moves
  const fitted = [active, ...view.foe.team.filter(p => p !== active && !p.fainted && p.hp)]
    .map(p => [p, foeSet(format, p, random, view, truth)]).filter(([, set], i) => i === 0 || set.moves.length);
  const foes = fitted.map(([p]) => p), foeSets = fitted.map(([, set]) => set);
  if (!foeSets[0].moves.length) return null;
  if (random) foeSets.push(...(truth && truth.unseen ? trulyUnseen(view.foe, truth.side) : unrevealed(format, view.foe, random)));
  const me = view.perspective === 'p2' ? 1 : 0;
  const teams = me ? [foeSets, ours.map(ownSet)] : [ours.map(ownSet), foeSets];
  const battle = new SimBattle({formatid: format, seed: [1, 2, 3, 4], send: SILENT});
  battle.setPlayer('p1', {name: view.battle.p1.name || 'p1', team: teams[0]});
  battle.setPlayer('p2', {name: view.battle.p2.name || 'p2', team: teams[1]});
  if (battle.requestState === 'teampreview') {  // leads in team order: the active ones come first
    battle.choose('p1', 'default');
    battle.choose('p2', 'default');
  }
  ours.forEach((r, i) => setOwn(battle, battle.sides[me].pokemon[i], r, i === 0 && lead < 0 ? view.self.active[0] : null));
  foes.forEach((p, i) => setFoe(battle, battle.sides[1 - me].pokemon[i], p));
  ours.forEach((r, i) => carryPP(view, battle.sides[me].pokemon[i], r.ident, r.active ? req.active : null));
  foes.forEach((p, i) => carryPP(view, battle.sides[1 - me].pokemon[i], p.originalIdent || p.ident));
  setField(battle, view, me, foeSets);
  battle.turn = view.battle.turn;
  [view.self, view.foe].forEach((side, i) => setWish(battle, battle.sides[i ^ me], view.pendingWish(side.id)));
  return {battle, me, slots, foeMoves: foeSets[0].weights};
}

/** The doubles battle at this decision, as far as the player knows it, each Pokemon at its
 * position: {battle, me}. Our team is the request's rows in order (the first two stand in play),
 * fainted ones kept and marked fainted so that every position stays where it is; `order`, where
 * given, is the rows' order instead (at a forced switch: who comes in where). The foe's Pokemon
 * in play stand at their positions; an empty position (its Pokemon fainted) takes a revealed one
 * still able to fight where there is one, else a fainted one stands there. The foe's sets are
 * the likeliest, or with `random` drawn as rebuild() draws them, the foe's unrevealed Pokemon
 * drawn too. null where a foe position is unknown, or a foe in play has no moves to play. */
export function rebuildDoubles(view, order = null, random = null) {
  const req = view.request;
  const format = formatOf(view.battle);
  const rows = (order || req.side.pokemon.map((_, j) => j)).map(j => req.side.pokemon[j]);
  const live = p => p && !p.fainted && p.hp;
  const bench = view.foe.team.filter(p => live(p) && !view.foe.active.includes(p));
  const fallen = view.foe.team.filter(p => !live(p));  // the client empties a fainted one's position
  const foes = [0, 1].map(k => (live(view.foe.active[k]) ? view.foe.active[k] : bench.shift() || fallen.shift()));
  if (!foes[0] || !foes[1] || !foes.some(live)) return null;
  const foeSets = foes.map(p => foeSet(format, p, random, view));
  if (foes.some((p, k) => live(p) && !foeSets[k].moves.length)) return null;
  for (const p of bench) {
    const set = foeSet(format, p, random, view);
    if (set.moves.length) { foes.push(p); foeSets.push(set); }
  }
  if (random) foeSets.push(...unrevealed(format, view.foe, random));
  for (const set of foeSets) if (!set.moves.length) set.moves = ['splash'];  // a fainted stand-in
  const me = view.perspective === 'p2' ? 1 : 0;
  const teams = me ? [foeSets, rows.map(ownSet)] : [rows.map(ownSet), foeSets];
  const battle = new SimBattle({formatid: format, seed: [1, 2, 3, 4], send: SILENT});
  battle.setPlayer('p1', {name: view.battle.p1.name || 'p1', team: teams[0]});
  battle.setPlayer('p2', {name: view.battle.p2.name || 'p2', team: teams[1]});
  if (battle.requestState === 'teampreview') {  // leads in team order
    battle.choose('p1', 'default');
    battle.choose('p2', 'default');
  }
  const ourSide = battle.sides[me], foeSide = battle.sides[1 - me];
  rows.forEach((r, i) => {
    const p = ourSide.pokemon[i];
    if (r.fainted || !r.hp || String(r.condition).endsWith(' fnt')) return setFainted(p);
    const stayed = order ? order[i] === i : true;  // a Pokemon brought in keeps no boosts
    setOwn(battle, p, r, i < 2 && stayed ? view.self.active[i] : null);
  });
  foes.forEach((p, i) => (live(p) ? setFoe(battle, foeSide.pokemon[i], p) : setFainted(foeSide.pokemon[i])));
  for (const side of battle.sides) side.pokemonLeft = side.pokemon.filter(p => !p.fainted).length;
  setField(battle, view, me, foeSets);
  battle.turn = view.battle.turn;
  return {battle, me};
}

/** A Wish still to heal on `side` (a world's: view.pendingWish's `wish`), with the HP it heals,
 * half its wisher's, as the simulator keeps it; none where the wisher is not in the world. */
function setWish(battle, side, wish) {
  const wisher = wish && side.pokemon.find(p => p.name === wish.wisher);
  if (!wisher) return;
  side.slotConditions[0].wish = battle.initEffectState({id: 'wish', target: side.active[0], source: wisher, hp: wisher.maxhp / 2,
    startingTurn: wish.turn - 1, duration: wish.turn === battle.turn ? 2 : 1});
}

function setFainted(p) {
  p.hp = 0;
  p.fainted = true;
  p.status = 'fnt';
  p.switchFlag = false;
}

// The foe's unseen Pokemon come from teams of the format's own generator, one team a world,
// picked among TEAM_SEEDS seeds by the world's draws: so a world's team follows from its seed
// (the same draws give the same world), and the bench it draws from is thousands of teams wide
// where one fixed set of teams made every battle's unseen foes alike. A team is made once per
// seed (about 2 ms) and kept.
const TEAM_SEEDS = 4096;
const teams = new Map();  // format -> Map(seed -> team), or null where the format has no generator
function generatedTeam(format, k) {
  let made = teams.get(format);
  if (made === undefined) {
    try {
      TeamGenerators.getTeamGenerator(format, [1, 2, 3, 4]);
      made = new Map();
    } catch (e) {
      made = null;  // no generator: the unseen stay unseen
    }
    teams.set(format, made);
  }
  if (!made) return null;
  let team = made.get(k);
  if (!team) made.set(k, team = TeamGenerators.getTeamGenerator(format, [k, 7, 31, 1]).getTeam());
  return team;
}

/** The seen foe Pokemon's species, by their base species' ids. */
const seenSpecies = foe => new Set(foe.team.map(p => toID(Dex.species.get(p.speciesForme).baseSpecies)));

/** The foe Pokemon not seen yet as they truly are (`side`: the foe's side in the true battle). */
function trulyUnseen(foe, side) {
  const seen = seenSpecies(foe);
  return side.pokemon.filter(q => !seen.has(toID(q.baseSpecies.baseSpecies))).map(q => ({...q.set, name: q.set.species}));
}

/** Sets for the foe Pokemon not seen yet (as many as its team size says): the members of a
 * generated team (of another, where too few of it are unlike those seen), no species twice. */
function unrevealed(format, foe, random) {
  const missing = Math.max(0, (foe.totalPokemon || 0) - foe.team.length);
  if (!missing) return [];
  const seen = seenSpecies(foe);
  const out = [];
  for (let tries = 0; out.length < missing && tries < 4; tries++) {
    const team = generatedTeam(format, Math.floor(random() * TEAM_SEEDS));
    if (!team) break;
    for (const set of team) {
      const id = toID(Dex.species.get(set.species).baseSpecies);
      if (out.length >= missing || seen.has(id)) continue;
      seen.add(id);
      out.push({...set, name: set.species});
    }
  }
  return out;
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
  keepItem(p);
  p.maxhp = p.baseMaxhp = r.maxhp;
  p.hp = r.hp;
  for (const s of STATS) if (r.stats && r.stats[s]) p.storedStats[s] = r.stats[s];
  if (r.terastallized) p.terastallized = r.terastallized;
  setStatus(battle, p, r.status);
  if (client) setActive(battle, p, client);
}

/** The foe's Pokemon as a set: what it revealed, the rest from its likeliest set (or, with
 * `random`, from a set drawn among those still possible, and, with `view`, that its play there
 * allows: knowledge/evidence.js) -- in a format without set data, the
 * species' usual options: its sets in its generation's random battles; `weights` are how likely
 * it has each of the moves given (no moves without set data or revealed ones). With `truth.sets`
 * (rebuild's), its true set instead, with the item it holds now. */
function foeSet(format, p, random = null, view = null, truth = null) {
  const t = truth && truth.sets && truth.side.pokemon.find(q => q.name === p.name);
  if (t) {
    return {...t.set, name: p.name, species: p.speciesForme, item: toID(t.item), moves: t.set.moves.map(moveID),
      weights: t.set.moves.map(() => 1)};
  }
  const known = {moves: p.moves.map(moveID), item: toID(p.item), ability: toID(p.ability || p.baseAbility),
    tera: toID(p.terastallized)};
  const usual = `${(/^gen[0-9]+/.exec(format) || ['gen9'])[0]}randombattle`;
  const data = possibleSets(format, p.baseSpeciesForme, known) ||
    (usual !== format ? possibleSets(usual, p.baseSpeciesForme, known) : null);
  const sets = view ? view.evidence.allowed(view, p, data) : data;
  const drawn = random && sets && sets.fitting.length ? sets.fitting[Math.floor(random() * sets.fitting.length)] : null;
  const likely = drawn || (sets && sets.set);
  let moves = sets ? sets.moves.slice(0, FOE_MOVES) : known.moves.map(m => [m, 1]);
  if (drawn) {  // the revealed moves, then the drawn set's others
    const revealed = known.moves.filter(m => !sets.impossible.includes(m));
    moves = [...revealed, ...drawn.moves.filter(m => !revealed.includes(m))].slice(0, FOE_MOVES).map(m => [m, 1]);
  }
  // A Choice item holds the foe to the move it used last (a drawn world keeps the whole set: the
  // lock ends when it switches).
  if (!drawn && toID(p.item).startsWith('choice') && p.lastMove && p.lastMove !== 'struggle') moves = [[p.lastMove, 1]];
  moves = moves.filter(([id]) => Dex.moves.get(id).exists);
  const top = list => (list && list.length ? list[0][0] : '');
  return {name: p.name, species: p.speciesForme, level: p.level || 100, gender: p.gender || '',
    item: toID(p.item) || (p.lastItem ? '' : drawn ? drawn.item : top(sets && sets.items)),
    ability: toID(p.ability || p.baseAbility) || (drawn ? drawn.ability : top(sets && sets.abilities)),
    moves: moves.map(([id]) => id), weights: moves.map(([, w]) => w),
    nature: likely ? likely.nature : 'Hardy', evs: likely ? likely.evs : EVS, ivs: likely ? likely.ivs : undefined,
    teraType: typeName(p.teraType || (likely && likely.tera))};
}

// Set data holds ids ('ground'); the simulator wants a type's name ('Ground') where it
// Terastallizes.
function typeName(id) {
  const type = id ? Dex.types.get(id) : null;
  return type && type.exists ? type.name : undefined;
}

/** The PP a world's Pokemon `p` has left on each move, as the player counts them: an active of
 * ours from its request (`active`: the request's active rows), else what the battle's lines show
 * it spent (view.ppSpent, Pressure counted: ours by the request, the foe's as revealed). */
function carryPP(view, p, ident, active = null) {
  if (!p) return;
  const shown = active && active[0] && active[0].moves;
  const spent = view.ppSpent(ident, target => hasPressure(view, target));
  for (const slot of p.moveSlots) {
    const listed = shown && shown.find(m => m.id === slot.id);
    if (listed && typeof listed.pp === 'number') slot.pp = Math.min(slot.maxpp, listed.pp);
    else if (spent[slot.id]) slot.pp = Math.max(0, slot.maxpp - spent[slot.id]);
  }
}

function hasPressure(view, ident) {
  const {row, client} = known(view, ident);
  const p = row || client;
  return !!p && toID(p.ability || p.baseAbility) === 'pressure';
}

// A Pokemon's name in an ident ('p2a: Pelipper' -> 'Pelipper').
const nameIn = ident => ident.replace(/^p[1-4][a-z]?: /, '');

/** The Pokemon `ident` names as `view`'s player knows it: {row: our request's row} or {client:
 * the foe's as the client has it}; {} where neither has it. */
function known(view, ident) {
  const name = nameIn(ident);
  if (ident.startsWith(view.self.id)) return {row: view.request.side.pokemon.find(r => nameIn(r.ident) === name)};
  return {client: view.foe.team.find(q => q.name === name)};
}

function setFoe(battle, p, client) {
  keepItem(p);
  p.hp = Math.max(1, Math.round((client.maxhp ? client.hp / client.maxhp : 1) * p.maxhp));
  if (client.terastallized) p.terastallized = client.terastallized;
  setStatus(battle, p, client.status);
  if (p.isActive) setActive(battle, p, client);
}

/** The item of `p`'s set back in its hand: the world's start (its leads coming in) may have used
 * one up (Booster Energy, a Seed) that the battle's Pokemon still holds. */
function keepItem(p) {
  const item = toID(p.set.item);
  if (p.item === item) return;
  p.item = item;
  p.itemState = p.battle.initEffectState({id: item, target: p});
}

function setStatus(battle, p, status) {
  p.status = status && status !== 'fnt' ? status : '';
  p.statusState = battle.initEffectState({id: p.status, target: p});
  if (p.status === 'slp') p.statusState.time = p.statusState.startTime = 2;
  // gens 1 and 2 count Toxic's damage on a volatile of the active Pokemon, which must be there
  if (p.status === 'tox' && battle.gen <= 2 && p.isActive && !p.volatiles.residualdmg) {
    p.addVolatile('residualdmg');
    p.volatiles.residualdmg.counter = 1;
  }
}

function setActive(battle, p, client) {
  for (const s of [...STATS, 'accuracy', 'evasion']) p.boosts[s] = (client.boosts && client.boosts[s]) || 0;
  // One that has moved since it came in is past its first turn out: Fake Out and First
  // Impression fail for it (a rebuilt Pokemon would otherwise start fresh), Speed Boost works.
  if (client.lastMove) p.activeMoveActions = p.activeTurns = 1;
  if (client.volatiles && client.volatiles.substitute && !p.volatiles.substitute) p.addVolatile('substitute');
}

/** Weather, terrain, pseudo-weathers and side conditions as the player sees them, each with
 * the turns it has left as the player counts them (knowledge/durations.js); `foeSets`: the sets
 * the world gave the foe's Pokemon, whose items tell how long what they began lasts where the
 * battle has not shown them. */
function setField(battle, view, me, foeSets = []) {
  const f = view.battle.field;
  const itemOf = setterItem(view, foeSets);
  const last = (state, id, started) => {
    const n = turnsLeft(id, state, () => itemOf(setterOf(view, started)));
    return n === null ? null : Math.max(1, n);
  };
  const lasting = (state, n) => { if (state && n !== null) state.duration = n; };
  battle.field.clearWeather();
  battle.field.clearTerrain();
  const weather = f.weather && SIM_WEATHER[f.weatherState.id];
  if (weather) {
    battle.field.setWeather(weather, 'debug');
    lasting(battle.field.weatherState, last(f.weatherState, weather, startsWeather(weather)));
  }
  const terrain = f.terrain && simTerrain(f.terrainState.id);
  if (terrain) {
    battle.field.setTerrain(terrain, 'debug');
    lasting(battle.field.terrainState, last(f.terrainState, terrain, startsField(terrain)));
  }
  for (const [id, state] of Object.entries(f.pseudoWeather)) {
    battle.field.addPseudoWeather(id, 'debug');
    lasting(battle.field.pseudoWeather[id], last(state, id, startsField(id)));
  }
  [view.self, view.foe].forEach((side, i) => {
    const sim = battle.sides[i ^ me];
    for (const key of Object.keys(sim.sideConditions)) delete sim.sideConditions[key];
    for (const [id, c] of Object.entries(side.sideConditions)) {
      for (let n = 0; n < Math.max(1, c.level || 1); n++) sim.addSideCondition(id, 'debug');
      lasting(sim.sideConditions[id], last(c, id, startsSide(side.id, id)));
    }
  });
}

/** ident -> the item id the Pokemon it names holds as `view`'s player knows it: ours from the
 * request, the foe's as shown (or last shown), else the item of the set the world drew for it
 * (`foeSets`, by name); null where none of these says. */
function setterItem(view, foeSets) {
  return ident => {
    if (!ident) return null;
    const {row, client} = known(view, ident);
    if (row) return toID(row.item);
    if (client && (client.item || client.lastItem)) return toID(client.item || client.lastItem);
    const set = !ident.startsWith(view.self.id) && foeSets.find(s => s.name === nameIn(ident));
    return set ? toID(set.item) : null;
  };
}
