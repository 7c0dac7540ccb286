// Entry point of build/checks.js, loaded by tests and benchmarks only: the product bundle
// (src/index.js) and, on the same `metapvp` global, what checks it against the simulator
// (maskcheck, doublescheck, knowledgecheck, worldcheck, worldtruth, evidencecheck, viewcheck,
// scorecheck) and measures it
// (rawsim, clientonly). None of it ships in build/engine.js.
import {loadedContract} from '../src/index.js';
import {checkMasks} from './maskcheck.js';
import {checkDoubles} from './doublescheck.js';
import {checkKnowledge, checkSetsCoverTeams} from './knowledgecheck.js';
import {checkWorlds} from './worldcheck.js';
import {checkEvidence, checkScarfTurn, checkTrickedScarf, checkSilences} from './evidencecheck.js';
import {checkTeraReentry, checkViewTruth} from './viewcheck.js';
import {checkWorldTruth, checkStagedDurations} from './worldtruth.js';
import {playRaw} from './rawsim.js';
import {scoreChanges} from './scorecheck.js';
import {bestAction, valueScores, Halving} from '../src/rootchoice.js';
import {feedClientOnly, replayEngine} from './clientonly.js';
import {Match} from '../src/simulator.js';
import {gameOf} from '../src/games/index.js';
import {engineStates, engineTurns, engineGames, engineReplays, engineStarts} from './enginecheck.js';

Object.assign(globalThis.metapvp, {
  checkMasks(options) { return JSON.stringify(checkMasks(options)); },
  checkDoubles(options) { return JSON.stringify(checkDoubles(options)); },
  checkKnowledge(options) { return JSON.stringify(checkKnowledge(options)); },
  checkSetsCoverTeams(options) { return JSON.stringify(checkSetsCoverTeams(options)); },
  checkWorlds(options) { return JSON.stringify(checkWorlds(options)); },
  checkEvidence(options) { return JSON.stringify(checkEvidence(options)); },
  checkScarfTurn() { return JSON.stringify(checkScarfTurn()); },
  checkTrickedScarf() { return JSON.stringify(checkTrickedScarf()); },
  checkSilences() { return JSON.stringify(checkSilences()); },
  checkTeraReentry() { return JSON.stringify(checkTeraReentry()); },
  checkViewTruth(options) { return JSON.stringify(checkViewTruth(options)); },
  checkWorldTruth(options) { return JSON.stringify(checkWorldTruth(options)); },
  checkStagedDurations() { return JSON.stringify(checkStagedDurations()); },
  scoreChanges() { return JSON.stringify(scoreChanges()); },
  bestAction({visits, values, prior, weight}) { return JSON.stringify(bestAction(visits, values, prior, weight)); },
  // sequential halving with each candidate's value fixed: {visits per candidate, best}
  halving({prior, m, nodes, values, weight}) {
    const halving = new Halving(prior.map((p, k) => k), prior, m, {visits: nodes});
    const visits = prior.map(() => 0);
    const scores = () => valueScores(visits, values, prior, weight);
    for (let k; (k = halving.next(scores)) !== null;) visits[k]++;
    return JSON.stringify({visits, best: halving.best(scores())});
  },
  playRaw(options) { return JSON.stringify(playRaw(options)); },
  engineStates(options) { return JSON.stringify(engineStates(options)); },
  engineTurns(options) { return JSON.stringify(engineTurns(options)); },
  engineGames(options) { return JSON.stringify(engineGames(options)); },
  engineReplays(options) { return JSON.stringify(engineReplays(options)); },
  engineStarts(options) { return JSON.stringify(engineStarts(options)); },
  // the foe's likely answers the lookahead weighs at p1's first decision of a battle, beside the
  // rebuilt foe's move weights they come from
  lookaheadAnswers({format, seed}) {
    const view = new Match('answers', {format, seed}).views.p1;
    const start = gameOf(view.battle.gameType).start(view);
    return JSON.stringify({answers: gameOf(view.battle.gameType).lookahead.answers(start), weights: start.foeMoves});
  },
  feedClientOnly(streams, perspectives) { return feedClientOnly(streams, perspectives); },
  replayEngine(battles, batch, encode) { return replayEngine(loadedContract(), battles, batch, encode); },
});
