// The action tables, by the battle's game type: singles (actions.js) and doubles (doubles.js).
// Each has NUM_ACTIONS, writeMask(request, mask, at) and choiceFor(request, a). A contract names
// the one its records are laid out for; a view plays by the one of its battle's game type (the
// |gametype| line).
import * as singles from './actions.js';
import * as doubles from './doubles.js';

export const ACTION_TABLES = {singles, doubles};

/** The action table `name`; an error naming the known ones for any other. */
export function actionTable(name) {
  const table = ACTION_TABLES[name];
  if (!table) throw new Error(`no action table for ${name} battles (known: ${Object.keys(ACTION_TABLES).join(', ')})`);
  return table;
}

/** Every legal action of `request` in `table` (default singles) and its choice string:
 * {action index: choice}. */
export function legalChoices(request, table = singles) {
  const mask = new Uint8Array(table.NUM_ACTIONS);
  table.writeMask(request, mask, 0);
  const legal = {};
  mask.forEach((m, a) => { if (m) legal[a] = table.choiceFor(request, a); });
  return legal;
}
