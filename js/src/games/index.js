// The games, one adapter each (singles.js, doubles.js), by a battle's game type: the one place
// the planners and the scripted players' dispatch choose between them.
import {SINGLES} from './singles.js';
import {DOUBLES} from './doubles.js';

export const GAMES = {singles: SINGLES, doubles: DOUBLES};

/** The adapter of `gameType`; an error naming what needs it (`who`) and the games there are. */
export function gameOf(gameType, who = 'metapvp') {
  const game = GAMES[gameType];
  if (!game) throw new Error(`${who} plays ${Object.keys(GAMES).join(' and ')} battles, not ${gameType}`);
  return game;
}

/** The action scripted player `name` takes in `view`, by the rules of its battle's game type. */
export function scriptedAction(name, view) {
  const rules = (GAMES[view.battle.gameType] || {scripted: {}}).scripted;
  if (!rules[name]) {
    const plays = Object.keys(GAMES).filter(t => GAMES[t].scripted[name]);
    throw new Error(plays.length ? `scripted player '${name}' does not play ${view.battle.gameType} battles (it plays: ` +
      `${plays.join(', ')})` : `no scripted player '${name}'`);
  }
  return rules[name](view);
}
