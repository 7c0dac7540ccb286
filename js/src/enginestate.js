// A simulated battle (a world rebuild.js drew from a player's view, or the true battle) written
// as poke-engine's serialised state, our side as its side one: the second half of the bridge from
// what the player sees to the engine the native search thinks on (search-rs/). The format is
// poke-engine 0.0.48's (pinned: it is not stable across versions); a name the engine does not
// know becomes nothing there, silently, so the native module's unknown_names() checks every state
// this writes (metapvp/tests/test_native_search.py).
//
// Carried: species, level, types (before Terastallization) and the species' own, HP, ability,
// item, nature, EVs, stats, status, weight, each move with its PP and whether disabled,
// Terastallization and its type; the active Pokemon, its stat stages, the volatile statuses the
// engine has (below) with the durations it keeps, Substitute's HP; hazards, screens, Tailwind,
// Safeguard, Mist, the toxic counter; Wish; a forced switch; weather, terrain and Trick Room with
// their turns. Not yet: sleep and Rest counters, Future Sight, the last move used, and Perish Song's
// count (each left at the engine's neutral value).

import {gameOf} from './games/index.js';
import {legalChoices} from './actiontable.js';
import {mulberry32} from './random.js';

export const ENGINE_STATUS = {'': 'NONE', brn: 'BURN', slp: 'SLEEP', frz: 'FREEZE', par: 'PARALYZE', psn: 'POISON', tox: 'TOXIC'};
const WEATHER = {'': 'NONE', sunnyday: 'SUN', raindance: 'RAIN', sandstorm: 'SAND', hail: 'HAIL', snow: 'SNOW',
  snowscape: 'SNOW', desolateland: 'HARSHSUN', primordialsea: 'HEAVYRAIN'};
const TERRAIN = {'': 'NONE', electricterrain: 'ELECTRICTERRAIN', psychicterrain: 'PSYCHICTERRAIN',
  mistyterrain: 'MISTYTERRAIN', grassyterrain: 'GRASSYTERRAIN'};
// poke-engine's side conditions, in its order: each the simulator's condition, counted by layers
// (hazards) or by the turns it has left (screens and the like); toxic_count is the active
// Pokemon's toxic counter.
const SIDE_CONDITIONS = ['auroraveil', 'craftyshield', 'healingwish', 'lightscreen', 'luckychant', 'lunardance',
  'matblock', 'mist', 'protect', 'quickguard', 'reflect', 'safeguard', 'spikes', 'stealthrock', 'stickyweb',
  'tailwind', 'toxic_count', 'toxicspikes', 'wideguard'];
const LAYERED = new Set(['spikes', 'toxicspikes', 'stealthrock', 'stickyweb']);
// the simulator's volatile statuses that poke-engine has, by the same name
const VOLATILES = new Set(['aquaring', 'attract', 'autotomize', 'banefulbunker', 'bide', 'bounce', 'burningbulwark',
  'charge', 'confusion', 'curse', 'defensecurl', 'destinybond', 'dig', 'disable', 'dive', 'electrify', 'electroshot',
  'embargo', 'encore', 'endure', 'flashfire', 'flinch', 'fly', 'focusenergy', 'followme', 'foresight', 'freezeshock',
  'gastroacid', 'geomancy', 'glaiverush', 'grudge', 'healblock', 'helpinghand', 'iceburn', 'imprison', 'ingrain',
  'kingsshield', 'laserfocus', 'leechseed', 'lockedmove', 'magiccoat', 'magnetrise', 'maxguard', 'meteorbeam',
  'minimize', 'miracleeye', 'mustrecharge', 'nightmare', 'noretreat', 'octolock', 'partiallytrapped', 'phantomforce',
  'powder', 'powershift', 'powertrick', 'protect', 'rage', 'ragepowder', 'razorwind', 'roost', 'saltcure',
  'shadowforce', 'skullbash', 'skyattack', 'skydrop', 'silktrap', 'slowstart', 'smackdown', 'snatch', 'solarbeam',
  'solarblade', 'sparklingaria', 'spikyshield', 'spotlight', 'stockpile', 'substitute', 'syrupbomb', 'tarshot',
  'taunt', 'telekinesis', 'throatchop', 'truant', 'torment', 'typechange', 'unburden', 'uproar', 'yawn']);
const DURATIONS = ['confusion', 'encore', 'lockedmove', 'slowstart', 'taunt', 'yawn'];
export const ENGINE_BOOSTS = ['atk', 'def', 'spa', 'spd', 'spe', 'accuracy', 'evasion'];
// items of gen 9 random battles that poke-engine does not have: written as no item, which is what
// the engine would make of them (unknown_names() would name any other)
export const ITEMS_NOT_IN_ENGINE = new Set(['lightclay', 'scopelens']);
const STATS = ['atk', 'def', 'spa', 'spd', 'spe'];
const ABSENT = pokemonState(null);

/** `battle` (an @pkmn/sim Battle) as poke-engine's state string, side `me` (0: p1) as side one. */
export function engineState(battle, me) {
  const field = battle.field;
  const trickRoom = field.pseudoWeather.trickroom;
  return [sideState(battle.sides[me]), sideState(battle.sides[1 - me]),
    `${WEATHER[field.weather] || 'NONE'};${field.weather ? turnsLeft(field.weatherState, -1) : -1}`,
    `${TERRAIN[field.terrain] || 'NONE'};${field.terrain ? turnsLeft(field.terrainState, 0) : 0}`,
    `${!!trickRoom};${trickRoom ? turnsLeft(trickRoom, 0) : 0}`, 'false'].join('/');
}

function sideState(side) {
  const active = side.active[0];
  const team = side.pokemon.slice(0, 6).map(pokemonState);
  while (team.length < 6) team.push(ABSENT);
  const at = Math.max(0, side.pokemon.indexOf(active));
  const volatiles = active ? Object.keys(active.volatiles).filter(v => VOLATILES.has(v)) : [];
  const durations = DURATIONS.map(v => (active && active.volatiles[v] ? turnsLeft(active.volatiles[v], 0) : 0));
  const wish = side.slotConditions && side.slotConditions[0] && side.slotConditions[0].wish;
  const request = side.activeRequest;
  return [...team, at, sideConditions(side, active), volatiles.map(v => `${v.toUpperCase()}:`).join(''),
    durations.join(';'), (active && active.volatiles.substitute && active.volatiles.substitute.hp) || 0,
    ...ENGINE_BOOSTS.map(b => (active ? active.boosts[b] || 0 : 0)),
    wish ? turnsLeft(wish, 0) : 0, wish ? Math.floor(wish.hp || 0) : 0, 0, 0,
    !!(request && request.forceSwitch && request.forceSwitch[0]), 'NONE', false, false, false, 'move:none', false,
  ].join('=');
}

function sideConditions(side, active) {
  return SIDE_CONDITIONS.map(c => {
    if (c === 'toxic_count') return active && active.status === 'tox' ? active.statusState.stage || 0 : 0;
    const state = side.sideConditions[c];
    if (!state) return 0;
    return LAYERED.has(c) ? state.layers || 1 : turnsLeft(state, 1);
  }).join(';');
}

/** A Pokemon's 29 comma-separated fields; `p` null for an empty team slot (no HP). */
function pokemonState(p) {
  if (!p) {
    return ['NONE', 100, 'NORMAL', 'TYPELESS', 'NORMAL', 'TYPELESS', 0, 1, 'NONE', 'NONE', 'NONE', 'SERIOUS',
      '0;0;0;0;0;0', 100, 100, 100, 100, 100, 'NONE', 0, 0, 1, ...Array(4).fill('NONE;true;0'), false, false,
      'NORMAL'].join(',');
  }
  const types = pair(p.getTypes(false, true));
  const baseTypes = pair(p.species.types);
  const evs = p.set.evs || {};
  const moves = p.moveSlots.slice(0, 4).map(m => `${engineMoveName(m.id)};${!!m.disabled};${Math.max(0, m.pp)}`);
  while (moves.length < 4) moves.push('NONE;true;0');
  return [p.species.id.toUpperCase(), p.level, ...types, ...baseTypes, Math.max(0, p.hp), p.maxhp,
    (p.ability || 'none').toUpperCase(), (p.baseAbility || 'none').toUpperCase(),
    (p.item && !ITEMS_NOT_IN_ENGINE.has(p.item) ? p.item : 'none').toUpperCase(),
    (p.set.nature || 'serious').toUpperCase(), ['hp', ...STATS].map(s => evs[s] || 0).join(';'),
    ...STATS.map(s => p.storedStats[s]), ENGINE_STATUS[p.status] || 'NONE', 0, 0, (p.weighthg || 10) / 10, ...moves,
    false, !!p.terastallized, (p.teraType || 'Normal').toUpperCase()].join(',');
}

function pair(types) {
  const t = types.map(x => x.toUpperCase());
  return [t[0] || 'TYPELESS', t[1] || 'TYPELESS'];
}

// Hidden Power keeps its type and power in poke-engine's name (hiddenpowerfire60); the simulator's
// move id names the type only
export function engineMoveName(id) {
  return (/^hiddenpower[a-z]+$/.test(id) ? `${id}60` : id).toUpperCase();
}

/** Turns a condition has left, by the simulator's `duration`; `none` where it keeps no count. */
function turnsLeft(state, none) {
  return state && typeof state.duration === 'number' ? state.duration : none;
}

/** The engine-state methods of an object that has views (the Engine and the Simulator): the
 * worlds a native search (search-rs/) thinks on. */
export const engineStateMethods = {
  /** Per [battle, perspective] pair: null where there is nothing to search (not a singles
   * decision with a move to choose), else {states: one engine state per drawn world (the foe's
   * sets drawn from `seeds[i]`), options: per world, {the engine's name of one of our options:
   * its action index}}; {error} where it failed, never stopping the others. */
  engineWorlds(keys, worlds, seeds) {
    return keys.map(([battle, perspective], i) => {
      try {
        return worldsOf(this.view(battle, perspective), worlds, seeds[i]);
      } catch (e) {
        return {error: e.message};
      }
    });
  },
};

function worldsOf(view, worlds, seed) {
  const req = view.request;
  if (view.battle.gameType !== 'singles' || !req || !req.side || !req.active || req.wait || req.teamPreview) return null;
  const game = gameOf('singles', 'the native search');
  if (!game.faces(view)) return null;
  const legal = legalChoices(req);
  const random = mulberry32(seed);
  const out = {states: [], options: []};
  for (let w = 0; w < worlds; w++) {
    const start = game.start(view, random);
    if (!start) continue;
    out.states.push(engineState(start.battle, start.me));
    out.options.push(optionNames(legal, start.battle.sides[start.me], req));
  }
  return out.states.length ? out : null;
}

/** {the engine's name of an option: our action index} for each legal action: a move by its id
 * (with "-tera" where it Terastallizes), a switch by the species it brings in. */
function optionNames(legal, side, req) {
  const out = {};
  const active = side.active[0];
  for (const [a, choice] of Object.entries(legal)) {
    const m = /^move (\d)( terastallize)?$/.exec(choice);
    const s = /^switch (\d)$/.exec(choice);
    if (m && active && active.moveSlots[Number(m[1]) - 1]) {
      out[engineMoveName(active.moveSlots[Number(m[1]) - 1].id).toLowerCase() + (m[2] ? '-tera' : '')] = Number(a);
    } else if (s) {
      const row = req.side.pokemon[Number(s[1]) - 1];
      const mon = row && side.pokemon.find(p => p.name === row.name || p.species.name === row.speciesForme);
      if (mon) out[mon.species.id] = Number(a);
    }
  }
  return out;
}
