// Our choice at the root of a search (search.js): which action to play from what the search
// found, and sequential halving, which decides which of our root choices the next visit takes.
// A few dozen visits estimate each candidate's value better than they rank candidates by visits:
// PUCT spends most of them on the policy's favourite, halving visits the candidates alike in
// rounds and keeps the better half after each (Gumbel AlphaZero's root, without its noise).

/** Which action to play from the root's `visits` and mean `values` (null: not visited) and the
 * policy's `prior`: the most visited (the likeliest breaks ties) where `weight` is 0, else the
 * highest log prior + weight * value (valueScores). */
export function bestAction(visits, values, prior, weight) {
  const score = weight > 0 ? valueScores(visits, values, prior, weight) : visits.map((n, k) => n + 1e-6 * prior[k]);
  return argmax(score);
}

/** log prior + weight * value per action, an action not visited counting the visited ones'
 * mean value: the policy's preference stands where values hardly differ, a clearly better
 * value overrides it. */
export function valueScores(visits, values, prior, weight) {
  let n = 0, w = 0;
  visits.forEach((v, k) => { if (v) { n += v; w += v * values[k]; } });
  const mean = n ? w / n : 0.5;
  return prior.map((p, k) => Math.log(Math.max(p, 1e-12)) + weight * (visits[k] ? values[k] : mean));
}

function argmax(xs) {
  let best = 0;
  xs.forEach((x, k) => { if (x > xs[best]) best = k; });
  return best;
}

/** Sequential halving over the `m` likeliest of the `candidates` (indices into the prior): the
 * budget ({visits} or {ms, started}) split into equal shares, one a round; a round visits every
 * candidate still standing alike, in whole cycles, until its share is spent (at least once
 * each), then the better half by score stays. */
export class Halving {
  constructor(candidates, prior, m, budget) {
    this.alive = [...candidates].sort((a, b) => prior[b] - prior[a]).slice(0, m);
    this.rounds = Math.max(1, Math.ceil(Math.log2(this.alive.length)));
    this.budget = budget;
    this.round = 0;
    this.cycles = 0;     // whole cycles this round
    this.handed = 0;     // visits handed out
    this.queue = [];
    this.done = this.alive.length < 2;
  }

  /** Whether this round's share has room for another cycle. */
  room() {
    const {visits, ms, started} = this.budget, share = (this.round + 1) / this.rounds;
    if (visits > 0) return this.handed + this.alive.length <= Math.floor(visits * share);
    return Date.now() - started < ms * share;
  }

  /** The candidate to visit next; null where halving is done. `scores()`: each candidate's
   * score now. */
  next(scores) {
    if (this.done) return null;
    if (!this.queue.length) {
      if (this.cycles && !this.room()) {
        const score = scores();
        this.alive.sort((a, b) => score[b] - score[a]);
        this.alive = this.alive.slice(0, Math.ceil(this.alive.length / 2));
        this.round++;
        this.cycles = 0;
        if (this.alive.length < 2) {
          this.done = true;
          return null;
        }
      }
      this.queue.push(...this.alive);
      this.cycles++;
    }
    this.handed++;
    return this.queue.shift();
  }

  /** The candidate to play: the best-scoring one still standing. */
  best(score) {
    return this.alive.reduce((a, b) => (score[b] > score[a] ? b : a));
  }
}
