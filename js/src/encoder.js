// Writes one observation record, laid out by the contract, from a PlayerView's client state and
// its latest request. Each feature has one writer; the contract decides where its values go.
import {RESERVED} from './contract.js';
import {speciesOf, typesOf} from './species.js';
import {BattleInputError} from './view.js';
import {knowledgeOf, DAMAGE_COLUMNS, FOE_MOVES} from './knowledge/index.js';
import {doublesKnowledge} from './knowledge/doubles.js';
import {writePositionMasks, POSITION_ACTIONS, moveAction, TARGETS} from './doubles.js';

const {none: NONE, unknown: UNKNOWN} = RESERVED;
const STATS = ['hp', 'atk', 'def', 'spa', 'spd', 'spe'];
const BOOSTS = ['atk', 'def', 'spa', 'spd', 'spe', 'accuracy', 'evasion'];

/** Output arrays over one ArrayBuffer, shared by every record written into it. */
export class RecordBuffer {
  constructor(contract, capacity) {
    this.contract = contract;
    this.capacity = capacity;
    this.buffer = new ArrayBuffer(contract.recordBytes * capacity);
    this.u8 = new Uint8Array(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.f32 = new Float32Array(this.buffer);
  }
}

/** Encodes `view` into record `row` of `out`. */
export function encode(view, out, row) {
  const c = out.contract;
  const base = row * c.recordBytes;
  out.u8.fill(0, base, base + c.recordBytes);
  if (view.table !== c.table) {
    throw new BattleInputError(view.key, undefined, `contract ${c.name} encodes ${c.gameType} battles, ` +
      `this one is ${view.battle.gameType} (it needs a ${view.battle.gameType} contract)`);
  }
  const ctx = new Context(view);
  for (const f of c.features) {
    const arr = f.dtype === 'int32' ? out.i32 : f.dtype === 'float32' ? out.f32 : out.u8;
    f.writer(ctx, c, f, arr, (base + f.offset) / f.bytes);
  }
}

/** Checks that the encoder can write every feature of `contract` and binds each feature's writer
 * and named columns: `f.col[k]` is where the writer's k-th column goes in the contract's order
 * (-1 where the contract leaves it out). A column name the writer does not know is an error. */
export function bindWriters(contract) {
  for (const f of contract.features) {
    f.writer = WRITERS[f.name];
    if (!f.writer) throw new Error(`contract ${contract.name}: no encoder for feature ${f.name}`);
    const canon = COLUMNS[f.name];
    if (!canon) continue;
    if (!f.columns) throw new Error(`contract ${contract.name}: feature ${f.name} must name its columns (${canon.join(', ')})`);
    for (const name of f.columns) {
      if (!canon.includes(name)) {
        throw new Error(`contract ${contract.name}: feature ${f.name} has no column '${name}' (known: ${canon.join(', ')})`);
      }
    }
    f.col = Int32Array.from(canon, name => f.columns.indexOf(name));
  }
}

const STAT_COLUMNS = ['hp', 'atk', 'def', 'spa', 'spd', 'spe'];
/** The columns each writer knows, in the order it computes them. */
export const COLUMNS = {
  'battle.request': ['move', 'forced_switch', 'team_preview'],
  'side.counts': ['team_size', 'seen', 'fainted'],
  'side.gimmicks_used': ['terastallized', 'mega_evolved'],
  'pokemon.base_stats': STAT_COLUMNS,
  'pokemon.stats': STAT_COLUMNS,
  'pokemon.boosts': ['atk', 'def', 'spa', 'spd', 'spe', 'accuracy', 'evasion'],
  'pokemon.position': ['left', 'right'],
  'doubles.move_damage': ['expected', 'ko_chance'],
  'pokemon.flags': ['present', 'revealed', 'active', 'fainted', 'terastallized', 'transformed', 'stats_known',
    'item_known', 'ability_known', 'status_counter'],
  'move.damage': DAMAGE_COLUMNS,
  'foe.move_damage': DAMAGE_COLUMNS,
  'switch.dealt': ['expected', 'ko_chance'],
  'switch.taken': ['expected', 'ko_chance'],
  'foe.stats': STAT_COLUMNS,
};

/** Writes value `v` in column k (the writer's order) of the row starting at `o`. */
function put(f, a, o, k, v) {
  const p = f.col[k];
  if (p >= 0) a[o + p] = v;
}

/** Everything the writers share: the two sides' rows, in contract order. */
class Context {
  constructor(view) {
    this.view = view;
    this.battle = view.battle;
    this.gen = view.battle.gen.num;
    this.request = view.request;
    const self = view.self;
    // Own rows follow the request's order (row 0 is active); the client's team is kept in that
    // order once a request has been applied.
    this.rows = [rowsOf(self, this.request), rowsOf(self.foe, null)];
    this.sides = [self, self.foe];
    this._knowledge = null;
  }

  /** Damage, speed and possible sets (knowledge/), computed on first use. */
  get knowledge() { return this._knowledge || (this._knowledge = knowledgeOf(this.view)); }

  /** The doubles knowledge (knowledge/doubles.js), computed on first use. */
  get doubles() { return this._doubles || (this._doubles = doublesKnowledge(this.view)); }
}

function rowsOf(side, request) {
  const rows = [];
  for (let i = 0; i < 6; i++) {
    const p = side.team[i];
    const req = request && request.side && request.side.pokemon[i];
    if (p) rows.push({p, req, own: !!request});
    else if (i < side.totalPokemon) rows.push({p: null, req: null, own: false});  // not yet seen
    else rows.push(null);
  }
  return rows;
}

function eachRow(ctx, fn) {
  for (let s = 0; s < 2; s++) {
    for (let i = 0; i < 6; i++) {
      const row = ctx.rows[s][i];
      if (row) fn(row, s, i, s * 6 + i);
    }
  }
}

// An own active Pokemon's part of the request: rows 0 (and 1 in doubles) stand in the positions
// the request's `active` list follows.
const activeRequest = (ctx, row, i) =>
  row.own && ctx.request.active && ctx.request.active[i] ? ctx.request.active[i] : null;

/** The client's slot of move `id` (a request's; Hidden Power's power left off) on Pokemon `p`. */
function slotOf(p, id) {
  const bare = x => String(x).replace(/[0-9]+$/, '');
  return id ? p.moveSlots.find(slot => bare(slot.id) === bare(id)) : undefined;
}

const WRITERS = {
  'battle.gen'(ctx, c, f, a, at) { a[at] = ctx.gen; },
  'battle.turn'(ctx, c, f, a, at) { a[at] = Math.min(ctx.battle.turn / 100, 1); },
  'battle.request'(ctx, c, f, a, at) {
    const r = ctx.request;
    if (!r || !ctx.view.needsDecision) return;
    put(f, a, at, r.teamPreview ? 2 : r.forceSwitch ? 1 : 0, 1);
  },
  'field.weather'(ctx, c, f, a, at) { a[at] = c.lookup('weather', ctx.battle.field.weatherState.id); },
  'field.terrain'(ctx, c, f, a, at) { a[at] = c.lookup('terrain', ctx.battle.field.terrainState.id); },
  'field.pseudo_weather'(ctx, c, f, a, at) {
    for (const id of Object.keys(ctx.battle.field.pseudoWeather)) a[at + c.lookup('pseudo_weather', id)] = 1;
  },
  'side.conditions'(ctx, c, f, a, at) {
    const n = f.shape[1];
    ctx.sides.forEach((side, s) => {
      for (const [id, cond] of Object.entries(side.sideConditions)) {
        a[at + s * n + c.lookup('side_conditions', id)] = (cond.level || 1) / 3;
      }
    });
  },
  'side.counts'(ctx, c, f, a, at) {
    ctx.sides.forEach((side, s) => {
      const size = Math.max(side.totalPokemon, side.team.length);
      const o = at + s * f.shape[1];
      put(f, a, o, 0, size / 6);
      put(f, a, o, 1, side.team.length / 6);
      put(f, a, o, 2, side.team.filter(p => p.fainted).length / 6);
    });
  },
  'side.gimmicks_used'(ctx, c, f, a, at) {
    ctx.sides.forEach((side, s) => {
      const o = at + s * f.shape[1];
      // the battle's lines too: the client forgets a Terastallization when the Pokemon that did faints
      const tera = side.team.some(p => p.terastallized) || ctx.view.terastallizedOnce(`p${side.n + 1}`);
      put(f, a, o, 0, tera ? 1 : 0);
      put(f, a, o, 1, side.team.some(p => speciesOf(ctx.battle, p.baseSpeciesForme)?.mega) ? 1 : 0);
    });
  },
  'active.volatiles'(ctx, c, f, a, at) {
    // [side, volatile] in singles; [side, position, volatile] in doubles
    const positions = f.shape.length === 3 ? f.shape[1] : 1;
    const n = f.width;
    ctx.sides.forEach((side, s) => {
      for (let k = 0; k < positions; k++) {
        const p = side.active[k];
        if (!p) continue;
        const o = at + (s * positions + k) * n;
        for (const id of Object.keys(p.volatiles)) a[o + c.lookup('volatiles', id)] = 1;
      }
    });
  },
  'pokemon.species'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      // identity, permanent formes included; Transform or a stance change is a temporary look
      a[at + k] = row.p ? c.idOf('species', row.p.baseSpeciesForme) : UNKNOWN;
    });
  },
  'pokemon.item'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      if (ctx.gen < 2) return;
      if (row.own) a[at + k] = row.req.item ? c.idOf('items', row.req.item) : NONE;
      else if (row.p && row.p.item) a[at + k] = c.idOf('items', row.p.item);
      else a[at + k] = row.p && row.p.lastItem ? NONE : UNKNOWN;
    });
  },
  'pokemon.ability'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      if (ctx.gen < 3) return;
      const id = row.own ? (row.req.ability || row.req.baseAbility) : row.p && (row.p.ability || row.p.baseAbility);
      a[at + k] = id ? c.idOf('abilities', id) : UNKNOWN;
    });
  },
  'pokemon.tera_type'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      if (ctx.gen < 9) return;
      const t = row.own ? row.req.teraType : row.p && row.p.terastallized;
      a[at + k] = t ? c.idOf('types', t) : UNKNOWN;
    });
  },
  'pokemon.types'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      if (!row.p) { a[at + 2 * k] = UNKNOWN; a[at + 2 * k + 1] = UNKNOWN; return; }
      const types = typesOf(ctx.battle, row.p);
      a[at + 2 * k] = c.idOf('types', types[0]);
      a[at + 2 * k + 1] = c.idOf('types', types[1]);
    });
  },
  'pokemon.status'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      const status = row.own ? row.req.status : row.p && row.p.status;
      a[at + k] = status ? c.lookup('status', status) : (row.p ? NONE : UNKNOWN);
    });
  },
  'pokemon.moves'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      const active = activeRequest(ctx, row, i);
      const ids = active ? active.moves.map(m => m.id) : row.own ? row.req.moves : row.p ? row.p.moves : [];
      for (let m = 0; m < 4; m++) {
        const id = ids[m];
        a[at + 4 * k + m] = id ? c.idOf('moves', id) : (row.own ? NONE : UNKNOWN);
      }
    });
  },
  'pokemon.move_pp'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      const active = activeRequest(ctx, row, i);
      for (let m = 0; m < 4; m++) {
        let left = 1;
        // an own Pokemon's moves are written in the request's order (pokemon.moves), while its
        // client keeps them in the order it learnt them: the slot is found by the move's id
        const slot = !row.p ? null : row.own ? slotOf(row.p, row.req.moves[m]) : row.p.moveSlots[m];
        if (active) {
          const move = active.moves[m];
          if (move && move.maxpp) left = move.pp / move.maxpp;
          else if (!move) left = 0;
        } else if (slot) {
          const max = slot.maxpp || maxPP(ctx, slot.id);
          if (typeof slot.ppUsed === 'number' && max) left = Math.max(0, 1 - slot.ppUsed / max);
        } else if (row.own) {
          left = m < row.req.moves.length ? 1 : 0;
        }
        a[at + 4 * k + m] = left;
      }
    });
  },
  'pokemon.hp'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      const h = row.own ? row.req : row.p;
      a[at + k] = h ? (h.maxhp ? h.hp / h.maxhp : 0) : 1;
    });
  },
  'pokemon.level'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => { a[at + k] = row.p ? row.p.level / 100 : 0; });
  },
  'pokemon.base_stats'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      const sp = row.p && speciesOf(ctx.battle, row.p.speciesForme);
      if (!sp) return;
      const bs = sp.baseStats;
      STATS.forEach((st, j) => put(f, a, at + f.width * k, j, (bs[st] || 0) / 255));
    });
  },
  'pokemon.stats'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      if (!row.own) return;
      put(f, a, at + f.width * k, 0, row.req.maxhp / 500);
      STATS.slice(1).forEach((st, j) => put(f, a, at + f.width * k, 1 + j, (row.req.stats[st] || 0) / 500));
    });
  },
  'pokemon.boosts'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      if (!row.p) return;
      BOOSTS.forEach((b, j) => put(f, a, at + f.width * k, j, (row.p.boosts[b] || 0) / 6));
    });
  },
  'pokemon.flags'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      const o = at + f.width * k;
      const p = row.p;
      put(f, a, o, 0, 1);
      if (!p) return;
      put(f, a, o, 1, 1);
      put(f, a, o, 2, (row.own ? row.req.active : p.isActive()) ? 1 : 0);
      put(f, a, o, 3, (row.own ? row.req.fainted : p.fainted) ? 1 : 0);
      put(f, a, o, 4, p.terastallized ? 1 : 0);
      put(f, a, o, 5, p.volatiles.transform ? 1 : 0);
      put(f, a, o, 6, row.own ? 1 : 0);
      put(f, a, o, 7, row.own || p.item || p.lastItem ? 1 : 0);
      put(f, a, o, 8, row.own || p.ability || p.baseAbility ? 1 : 0);
      const st = p.statusState || {};
      put(f, a, o, 9, Math.min((p.status === 'slp' ? st.sleepTurns : p.status === 'tox' ? st.toxicTurns : 0) || 0, 8) / 8);
    });
  },
  'pokemon.position'(ctx, c, f, a, at) {
    eachRow(ctx, (row, s, i, k) => {
      const position = row.p ? ctx.sides[s].active.indexOf(row.p) : -1;
      if (position >= 0 && !row.p.fainted) put(f, a, at + f.width * k, position, 1);
    });
  },
  // --- battle knowledge (singles-v2) ---
  'move.damage'(ctx, c, f, a, at) {
    if (!ctx.view.needsDecision) return;
    const d = ctx.knowledge.moveDamage;
    for (let r = 0; r < 4 * GIMMICKS_N; r++) {
      for (let k = 0; k < 4; k++) put(f, a, at + r * f.width, k, d[r * 4 + k]);
    }
  },
  'move.first'(ctx, c, f, a, at) {
    if (ctx.view.needsDecision) a.set(ctx.knowledge.moveFirst, at);
  },
  'switch.dealt'(ctx, c, f, a, at) { if (ctx.view.needsDecision) putPairs(f, a, at, ctx.knowledge.switchDealt); },
  'switch.taken'(ctx, c, f, a, at) { if (ctx.view.needsDecision) putPairs(f, a, at, ctx.knowledge.switchTaken); },
  'switch.first'(ctx, c, f, a, at) {
    if (ctx.view.needsDecision) a.set(ctx.knowledge.switchFirst, at);
  },
  'foe.moves'(ctx, c, f, a, at) {
    if (!ctx.view.needsDecision) return;
    ctx.knowledge.foeMoves.forEach((id, m) => { a[at + m] = c.lookup('moves', id); });
  },
  'foe.move_prob'(ctx, c, f, a, at) {
    if (ctx.view.needsDecision) a.set(ctx.knowledge.foeMoveProb, at);
  },
  'foe.move_damage'(ctx, c, f, a, at) {
    if (!ctx.view.needsDecision) return;
    const d = ctx.knowledge.foeMoveDamage;
    for (let r = 0; r < FOE_MOVES * 6; r++) {
      for (let k = 0; k < 4; k++) put(f, a, at + r * f.width, k, d[r * 4 + k]);
    }
  },
  'foe.possible_moves'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'moves', 'moves', true); },
  'foe.possible_move_prob'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'moves', null, true); },
  'foe.possible_items'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'items', 'items', ctx.gen >= 2); },
  'foe.possible_item_prob'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'items', null, ctx.gen >= 2); },
  'foe.possible_abilities'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'abilities', 'abilities', ctx.gen >= 3); },
  'foe.possible_ability_prob'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'abilities', null, ctx.gen >= 3); },
  'foe.possible_tera'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'teras', 'types', ctx.gen >= 9); },
  'foe.possible_tera_prob'(ctx, c, f, a, at) { writePossible(ctx, c, f, a, at, 'teras', null, ctx.gen >= 9); },
  'foe.stats'(ctx, c, f, a, at) {
    ctx.knowledge.foeStats.forEach((st, j) => {
      if (st) STATS.forEach((name, k) => put(f, a, at + j * f.width, k, st[name] / 500));
    });
  },
  // --- battle knowledge (doubles-v2) ---
  'doubles.move_damage'(ctx, c, f, a, at) {
    // [position, move slot, gimmick, target (foe left, foe right, ally), (expected, ko chance)]
    const req = ctx.request;
    if (!ctx.view.needsDecision || !req.active || req.forceSwitch || req.teamPreview) return;
    const k = ctx.doubles;
    writePositionMasks(req, positionMask, 0);
    const [slots, gimmicks, targets] = [f.shape[1], f.shape[2], f.shape[3]];
    for (let pos = 0; pos < f.shape[0]; pos++) {
      for (let slot = 0; slot < slots; slot++) {
        for (let g = 0; g < gimmicks; g++) {
          if (!usable(positionMask, pos, slot, g)) continue;
          const rows = [k.dealt(pos, slot, g, 0), k.dealt(pos, slot, g, 1), k.dealtAlly(pos, slot, g)];
          for (let t = 0; t < targets; t++) {
            const o = at + (((pos * slots + slot) * gimmicks + g) * targets + t) * f.width;
            if (rows[t]) put(f, a, o, 0, rows[t][0]), put(f, a, o, 1, rows[t][3]);
          }
        }
      }
    }
  },
  'doubles.threat'(ctx, c, f, a, at) {
    // [foe position, own row]: the most it is expected to deal to that row with its likely moves
    if (!ctx.view.needsDecision || ctx.request.teamPreview) return;
    for (let fp = 0; fp < f.shape[0]; fp++) {
      for (let j = 0; j < f.shape[1] && j < ctx.request.side.pokemon.length; j++) a[at + fp * f.shape[1] + j] = ctx.doubles.threat(fp, j);
    }
  },
  'doubles.best_hit'(ctx, c, f, a, at) {
    if (!ctx.view.needsDecision || ctx.request.teamPreview) return;
    for (let j = 0; j < f.shape[0] && j < ctx.request.side.pokemon.length; j++) a[at + j] = ctx.doubles.bestHit(j);
  },
  'action.mask'(ctx, c, f, a, at) {
    if (!ctx.view.needsDecision) return;
    c.table.writeMask(ctx.request, a, at);
    for (const x of ctx.view.banned) a[at + x] = 0;
  },
};

const GIMMICKS_N = 6;
const positionMask = new Uint8Array(2 * POSITION_ACTIONS);

/** Whether position pos may use move slot `slot` with gimmick g at any target. */
function usable(mask, pos, slot, g) {
  for (let t = 0; t < TARGETS.length; t++) if (mask[pos * POSITION_ACTIONS + moveAction(slot, t, g)]) return true;
  return false;
}

function putPairs(f, a, at, pairs) {
  for (let j = 0; j < 6; j++) {
    put(f, a, at + j * f.width, 0, pairs[2 * j]);
    put(f, a, at + j * f.width, 1, pairs[2 * j + 1]);
  }
}

/** The foe's possible `what` (moves, items, abilities, teras) per foe row: vocabulary ids where
 * `vocab` is given, else probabilities. Where a row has no set data, what it revealed (the
 * pokemon.* features) is all that is known: <unknown>, probability 0. */
function writePossible(ctx, c, f, a, at, what, vocab, applies) {
  if (!applies) return;
  const width = f.shape[1];
  ctx.knowledge.possible.forEach((sets, j) => {
    const o = at + j * width;
    if (!sets) {
      if (vocab && ctx.rows[1][j]) a.fill(UNKNOWN, o, o + width);
      return;
    }
    const list = sets[what];
    for (let m = 0; m < width && m < list.length; m++) a[o + m] = vocab ? c.lookup(vocab, list[m][0]) : list[m][1];
  });
}

const MAX_PP = Array.from({length: 10}, () => new Map());  // per generation: some PP changed
function maxPP(ctx, id) {
  const byId = MAX_PP[ctx.gen];
  let pp = byId.get(id);
  if (pp === undefined) {
    const move = ctx.battle.gen.moves.get(id);
    pp = !move ? 0 : move.noPPBoosts ? move.pp : Math.floor(move.pp * 8 / 5);
    byId.set(id, pp);
  }
  return pp;
}
