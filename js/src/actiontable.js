// The action tables, by the battle's game type: singles (actions.js) and doubles (doubles.js).
// Each has NUM_ACTIONS, writeMask(request, mask, at), choiceFor(request, a) and
// legalChoices(request). A contract names the one its records are laid out for; a view plays
// by the one of its battle's game type (the |gametype| line).
import * as singles from './actions.js';
import * as doubles from './doubles.js';

export const ACTION_TABLES = {singles, doubles};

/** The action table `name`; an error naming the known ones for any other. */
export function actionTable(name) {
  const table = ACTION_TABLES[name];
  if (!table) throw new Error(`no action table for ${name} battles (known: ${Object.keys(ACTION_TABLES).join(', ')})`);
  return table;
}
