// The bridge for message sources outside this V8 context (a Showdown server, a stdio simulator,
// recorded logs): many battle views keyed by (battle id, perspective), fed and encoded in batches.
import {PlayerView, BattleInputError, errorRecord} from './view.js';
import {linesFor} from './perspective.js';
import {Output} from './output.js';
import {scriptedAction} from './games/index.js';
import {legalChoices} from './actiontable.js';
import {lookaheadMany} from './lookahead.js';
import {searchMethods} from './search.js';
import {engineStateMethods} from './enginestate.js';
import {thoughtMethods} from './thoughts.js';

export class Engine {
  constructor(contract) {
    this.contract = contract;
    this.views = new Map();
    this.output = new Output(contract);
  }

  view(battle, perspective) {
    const view = this.views.get(`${battle}\n${perspective}`);
    if (!view) throw new BattleInputError(battle, undefined, `no battle '${battle}' open for ${perspective}`);
    return view;
  }

  /** Only the in-process simulator knows a battle's truth (engineWorlds' `told`, a diagnostic):
   * a view fed from outside has its own side's. */
  trueBattle(battle) {
    throw new BattleInputError(battle, undefined, 'the true battle (told worlds) is known only to the in-process simulator');
  }

  open(battle, perspective) {
    const key = `${battle}\n${perspective}`;
    if (this.views.has(key)) throw new BattleInputError(battle, undefined, `already open for ${perspective}`);
    this.views.set(key, new PlayerView(battle, perspective));
  }

  close(battle, perspective) {
    this.views.delete(`${battle}\n${perspective}`);
  }

  /**
   * One batched call. `feed`: [battle, perspective, message] triples, a message being the lines
   * of one Showdown message (|split| pairs are resolved for the perspective); `encode`:
   * [battle, perspective] pairs to write, in order, as the rows of the output buffer; `choices`:
   * each record with a decision also carries {action: choice string} of its legal actions.
   * A failure in one battle is reported in `errors` and never stops the others.
   */
  batch({feed = [], encode = [], choices = false}) {
    const errors = [];
    for (const [battle, perspective, message] of feed) {
      try {
        this.view(battle, perspective).feed(linesFor(message.split('\n'), perspective));
      } catch (e) {
        errors.push(errorRecord(battle, perspective, e));
      }
    }
    this.output.begin();
    const records = [];
    for (const [battle, perspective] of encode) {
      try {
        const view = this.view(battle, perspective);
        view.flush();
        const row = this.output.add(view);
        const record = {battle, perspective, row, decision: view.needsDecision,
          rqid: view.request?.rqid ?? null, ended: view.ended, winner: view.winner,
          turn: view.battle.turn, error: view.lastError, refusals: view.refusals,
          invalid: view.invalid, unavailable: view.unavailable};
        // the legal actions' choice strings, asked for by callers that answer at once (the move API)
        if (choices && view.needsDecision) record.choices = this.choices(battle, perspective);
        records.push(record);
      } catch (e) {
        errors.push(errorRecord(battle, perspective, e));
      }
    }
    return {records, errors, generation: this.output.generation};
  }

  /** Refusals over the battle, summed over the perspectives open on it: {invalid, unavailable}
   * (PlayerView counts them; the one place they are counted). */
  refused(battle, perspectives) {
    const out = {invalid: 0, unavailable: 0};
    for (const p of perspectives) {
      const view = this.views.get(`${battle}\n${p}`);
      if (view) { out.invalid += view.invalid; out.unavailable += view.unavailable; }
    }
    return out;
  }

  /** Actions of scripted player `name` (games/index.js) for [battle, perspective] pairs. */
  scripted(name, keys) {
    return keys.map(([battle, perspective]) => scriptedAction(name, this.view(battle, perspective)));
  }

  /** Lookahead values of candidate actions for [battle, perspective] pairs (see
   * lookahead.js). */
  lookahead(keys, candidates, playOn, samples) {
    return lookaheadMany(keys.map(([battle, perspective]) => () => this.view(battle, perspective)), candidates, playOn, samples);
  }

  /** The choice string for `action` in the view's current request, by the one rule for
   * refusals (PlayerView.choose): null when the request has no such action, 'default' once the
   * request was refused too often. */
  choice(battle, perspective, action) {
    const view = this.view(battle, perspective);
    if (!view.request) throw new BattleInputError(battle, undefined, `no request yet for ${perspective}`);
    return view.choose(action);
  }

  /** Every legal action's choice string in the view's current request, in one call. */
  choices(battle, perspective) {
    return this.withRequest(battle, perspective, request => legalChoices(request, this.view(battle, perspective).table));
  }

  withRequest(battle, perspective, use) {
    const view = this.view(battle, perspective);
    if (!view.request) throw new BattleInputError(battle, undefined, `no request yet for ${perspective}`);
    try {
      return use(view.request);
    } catch (e) {
      throw new BattleInputError(battle, undefined, e.message);
    }
  }
}

Object.assign(Engine.prototype, searchMethods, engineStateMethods, thoughtMethods);
