//! The search: Monte Carlo tree search on one poke-engine state in which both sides choose at
//! once at every node (decoupled: each side picks by its own statistics, and the joint choice is
//! played): side one at the root by PUCT over the prior it is given (a policy's, or uniform),
//! every other side and node by UCB1 (with uniform priors PUCT hardly explores: PUCT everywhere
//! cost a search without a network 0.05 against `heuristic`, docs/lab/native-search.md), with
//! chance taken from the engine's instruction branches (each
//! outcome of a joint choice drawn in proportion to its percentage; the turn as corrections.rs
//! puts it right). One state is mutated along
//! a visit by the outcomes' instruction lists and put back by reversing them: nothing is copied.
//! A new node is valued by the engine's evaluation relative to the root's, squashed to [0, 1],
//! or by a learned model of the chance to win (features.rs) where the settings carry one; an
//! ended battle by its result. The design follows js/src/search.js (the search on Showdown's
//! simulator), which it is to replace where the agent thinks.

use crate::chance::draw_by;
use crate::corrections;
use crate::features::LeafModel;
use crate::valuenet::ValueNet;
use poke_engine::engine::evaluate::evaluate;
use poke_engine::engine::state::MoveChoice;
use poke_engine::instruction::StateInstructions;
use poke_engine::state::State;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// How a search runs: a budget of `iterations` (0: the time budget `ms` instead), PUCT's
/// `exploration` constant (where a prior guides), and the `seed` of its draws (an iteration
/// budget with a seed gives the same search every time); `leaf`: the learned value of new nodes
/// (None: the engine's evaluation), or `net`: the value network (valuenet.rs) in its place. UCB1's constant is sqrt(2) wherever no prior guides (the
/// textbook's, poke-engine's MCTS's). Other settings measured and not kept (UCB1's constant
/// elsewhere, the prior below the root, the charge for Terastallization, play-outs past the
/// leaves, stages weighed by HP, the root's equilibrium) are recorded in docs/lab/native-agent.md.
#[derive(Clone, Debug)]
pub struct Settings {
    pub iterations: u32,
    pub ms: u64,
    pub exploration: f32,
    pub seed: u64,
    pub leaf: Option<LeafModel>,
    pub net: Option<Arc<ValueNet>>,
}

impl Settings {
    /// The settings of a search, checked here where they are made: a budget of iterations or
    /// of milliseconds, and PUCT's exploration above 0; an error says which is wrong.
    pub fn new(
        iterations: u32,
        ms: u64,
        exploration: f32,
        seed: u64,
        leaf: Option<LeafModel>,
    ) -> Result<Settings, String> {
        if iterations == 0 && ms == 0 {
            return Err("search needs a budget: iterations or ms".to_string());
        }
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // negated, so that NaN is refused too
        if !(exploration > 0.0) {
            return Err(format!("exploration must be above 0, not {exploration}"));
        }
        Ok(Settings { iterations, ms, exploration, seed, leaf, net: None })
    }

    /// `iterations` a search with `seed`, the rest as search() takes them by default (the Python
    /// binding's): PUCT's 1.5 and the engine's evaluation.
    pub fn budget(iterations: u32, seed: u64) -> Settings {
        Settings { iterations, ms: 0, exploration: 1.5, seed, leaf: None, net: None }
    }

    /// These settings with the value network valuing new nodes; refused beside a learned leaf
    /// model (one value a search).
    pub fn with_net(self, net: Arc<ValueNet>) -> Result<Settings, String> {
        if self.leaf.is_some() {
            return Err("a search values its leaves by a leaf model or by a value network, not both".to_string());
        }
        Ok(Settings { net: Some(net), ..self })
    }
}

/// UCB1's exploration constant, wherever no prior guides.
const UCB: f32 = std::f32::consts::SQRT_2;

/// Per side, at the root: each option, its visits and its mean value for that side.
#[derive(Clone, Debug)]
pub struct SideResult {
    pub options: Vec<MoveChoice>,
    pub visits: Vec<u32>,
    pub values: Vec<f32>,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    pub sides: [SideResult; 2],
    pub iterations: u32,
    pub root_eval: f32,
}

/// An evaluation lead of about 200 points (a healthy Pokemon and some) is worth ~0.92.
const EVAL_SCALE: f32 = 0.0125;
/// Joint choices along one visit, at most (a visit stops at its first new node anyway).
const MAX_DEPTH: usize = 64;

struct Arm {
    choice: MoveChoice,
    prior: f32,
    visits: u32,
    total: f32,
}

struct Outcome {
    instructions: StateInstructions,
    node: usize,
}

#[derive(Default)]
struct Node {
    visits: u32,
    total: f32, // side one's values, summed
    arms: Option<[Vec<Arm>; 2]>,
    guided: bool, // side one picks by PUCT over its arms' priors (else UCB1)
    children: HashMap<(u16, u16), Vec<Outcome>>,
}

/// Searches `state` (left as it was found). `root_priors`: side one's prior over its root
/// options in the order `state.root_get_all_options()` gives them, 0 for an option never to be
/// searched (None: no prior, UCB1 there too);
/// side two and every other node choose by UCB1. An error names a prior of the wrong length.
pub fn search(state: &mut State, settings: &Settings, root_priors: Option<&[f32]>) -> Result<SearchResult, String> {
    grow(state, settings, root_priors).map(|(_, result)| result)
}

/// The search's tree and its result (search() keeps the result only).
fn grow(
    state: &mut State,
    settings: &Settings,
    root_priors: Option<&[f32]>,
) -> Result<(Vec<Node>, SearchResult), String> {
    // the root's options as the engine gives them at a decision (a side held in by the state's
    // force_trapped, or only to move after a slow U-turn); below, as it gives them within a turn
    let (s1, s2) = state.root_get_all_options();
    let mut root = Node::default();
    let ones = |n: usize| vec![1.0 / n.max(1) as f32; n];
    let p1 = match root_priors {
        Some(p) if p.len() != s1.len() => {
            return Err(format!("{} root priors for side one's {} options", p.len(), s1.len()))
        }
        Some(p) => normalised(p),
        None => ones(s1.len()),
    };
    let p2 = ones(s2.len());
    root.arms = Some([arms(s1, &p1), arms(s2, &p2)]);
    root.guided = root_priors.is_some();
    let mut nodes = vec![root];
    let (model, net) = (settings.leaf.as_ref(), settings.net.as_deref());
    let root_eval = evaluate(state);
    let root_logit = match (model, net) {
        (Some(m), _) => m.baseline(state),
        (None, Some(n)) if n.relative => n.logit(state),
        _ => 0.0,
    };
    let leaf = Leaf { root_eval, root_logit, model, net };
    let rules = Rules { leaf: &leaf, exploration: settings.exploration };
    let mut rng = StdRng::seed_from_u64(settings.seed);
    let started = Instant::now();
    let mut iterations = 0u32;
    loop {
        if settings.iterations > 0 {
            if iterations >= settings.iterations {
                break;
            }
        } else if iterations.is_multiple_of(16) && started.elapsed().as_millis() as u64 >= settings.ms {
            break;
        }
        visit(&mut nodes, state, &rules, &mut rng);
        iterations += 1;
    }
    let root = &nodes[0];
    let arms = root.arms.as_ref().unwrap();
    let side = |k: usize| SideResult {
        options: arms[k].iter().map(|a| a.choice).collect(),
        visits: arms[k].iter().map(|a| a.visits).collect(),
        values: arms[k].iter().map(|a| if a.visits > 0 { a.total / a.visits as f32 } else { f32::NAN }).collect(),
    };
    let result = SearchResult { sides: [side(0), side(1)], iterations, root_eval };
    Ok((nodes, result))
}

fn normalised(p: &[f32]) -> Vec<f32> {
    let total: f32 = p.iter().map(|x| x.max(0.0)).sum();
    if total > 0.0 {
        p.iter().map(|x| x.max(0.0) / total).collect()
    } else {
        vec![1.0 / p.len().max(1) as f32; p.len()]
    }
}

fn arms(choices: Vec<MoveChoice>, priors: &[f32]) -> Vec<Arm> {
    choices.into_iter().zip(priors).map(|(choice, &prior)| Arm { choice, prior, visits: 0, total: 0.0 }).collect()
}

/// Side `k`'s pick at `node`: by PUCT where `guided` (its mean value, plus exploration `c` in
/// proportion to its prior; an arm never tried counts the node's mean; an arm of prior 0 never),
/// else by UCB1 (every arm tried once, then its mean plus UCB sqrt(ln N / n)).
fn pick(node: &Node, k: usize, guided: bool, c: f32) -> usize {
    let arms = &node.arms.as_ref().unwrap()[k];
    if !guided {
        return ucb1(arms, node.visits);
    }
    let mean = if node.visits > 0 {
        let m = node.total / node.visits as f32;
        if k == 0 {
            m
        } else {
            1.0 - m
        }
    } else {
        0.5
    };
    let sqrt_n = (node.visits.max(1) as f32).sqrt();
    let mut best = 0;
    let mut best_score = f32::MIN;
    for (i, a) in arms.iter().enumerate() {
        if a.prior <= 0.0 {
            // an option the player cannot choose (normalised() leaves some prior elsewhere); at the
            // root its first-play value, the node's mean, never beats the best arm's (the root's
            // mean is its arms'), but below it a node's mean also holds the visit that made it
            continue;
        }
        let q = if a.visits > 0 { a.total / a.visits as f32 } else { mean };
        let score = q + c * a.prior * sqrt_n / (1.0 + a.visits as f32);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

fn ucb1(arms: &[Arm], visits: u32) -> usize {
    let log_n = (visits.max(1) as f32).ln();
    let mut best = 0;
    let mut best_score = f32::MIN;
    for (i, a) in arms.iter().enumerate() {
        if a.visits == 0 {
            return i;
        }
        let score = a.total / a.visits as f32 + UCB * (log_n / a.visits as f32).sqrt();
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

/// How a visit goes: new nodes valued by `leaf`; side one by PUCT over its prior (with
/// `exploration`) at the root where it has one; every other pick by UCB1.
struct Rules<'a> {
    leaf: &'a Leaf<'a>,
    exploration: f32,
}

/// How new nodes are valued: the learned model or the value network where there is one (a
/// relative one by its lead over `root_logit`), else the engine's evaluation less the root's.
struct Leaf<'a> {
    root_eval: f32,
    root_logit: f32,
    model: Option<&'a LeafModel>,
    net: Option<&'a ValueNet>,
}

/// The value of the position `state` is in, for side one: an ended battle's result, else the
/// leaf's value.
fn value(state: &State, leaf: &Leaf) -> f32 {
    let over = state.battle_is_over();
    if over > 0.0 {
        1.0
    } else if over < 0.0 {
        0.0
    } else if let Some(model) = leaf.model {
        model.value(state, leaf.root_logit)
    } else if let Some(net) = leaf.net {
        1.0 / (1.0 + (leaf.root_logit - net.logit(state)).exp())
    } else {
        1.0 / (1.0 + (-EVAL_SCALE * (evaluate(state) - leaf.root_eval)).exp())
    }
}

/// One visit: from the root down, both sides picking, to a new node (expanded here) or the
/// battle's end; its value backed up along the path, and the state put back as it was.
fn visit(nodes: &mut Vec<Node>, state: &mut State, rules: &Rules, rng: &mut StdRng) {
    let mut path: Vec<(usize, usize, usize, usize)> = Vec::new(); // (node, side one's arm, side two's, outcome)
    let mut at = 0usize;
    while path.len() < MAX_DEPTH {
        if at != 0 && state.battle_is_over() != 0.0 {
            break;
        }
        if nodes[at].arms.is_none() {
            let (s1, s2) = state.get_all_options();
            let (u1, u2) = (vec![1.0 / s1.len().max(1) as f32; s1.len()], vec![1.0 / s2.len().max(1) as f32; s2.len()]);
            nodes[at].arms = Some([arms(s1, &u1), arms(s2, &u2)]);
        }
        let c = rules.exploration;
        let (i, j) = (pick(&nodes[at], 0, nodes[at].guided, c), pick(&nodes[at], 1, false, c));
        let key = (i as u16, j as u16);
        let expanded = nodes[at].children.contains_key(&key);
        if !expanded {
            let (m1, m2) = {
                let a = nodes[at].arms.as_ref().unwrap();
                (a[0][i].choice, a[1][j].choice)
            };
            if m1 == MoveChoice::None && m2 == MoveChoice::None {
                break;
            }
            // damage rolls branch near the root, where the choice is made; deeper, the average
            let branch_on_damage = path.len() <= 1;
            let outcomes: Vec<Outcome> = corrections::turn(state, &m1, &m2, branch_on_damage)
                .into_iter()
                .map(|instructions| {
                    nodes.push(Node::default());
                    Outcome { instructions, node: nodes.len() - 1 }
                })
                .collect();
            nodes[at].children.insert(key, outcomes);
        }
        let o = draw_by(&nodes[at].children[&key], |o| o.instructions.percentage, rng);
        let next = nodes[at].children[&key][o].node;
        state.apply_instructions(&nodes[at].children[&key][o].instructions.instruction_list);
        path.push((at, i, j, o));
        at = next;
        if !expanded {
            break;
        }
    }
    let v = value(state, rules.leaf);
    nodes[at].visits += 1;
    nodes[at].total += v;
    for &(n, i, j, o) in path.iter().rev() {
        state.reverse_instructions(&nodes[n].children[&(i as u16, j as u16)][o].instructions.instruction_list);
        let node = &mut nodes[n];
        node.visits += 1;
        node.total += v;
        let arms = node.arms.as_mut().unwrap();
        arms[0][i].visits += 1;
        arms[0][i].total += v;
        arms[1][j].visits += 1;
        arms[1][j].total += 1.0 - v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;

    #[test]
    fn a_search_leaves_the_state_as_it_found_it() {
        let mut state = example_state();
        let before = state.serialize();
        search(&mut state, &Settings::budget(3000, 7), None).unwrap();
        assert_eq!(state.serialize(), before);
    }

    #[test]
    fn an_iteration_budget_with_a_seed_gives_the_same_search() {
        let a = search(&mut example_state(), &Settings::budget(1500, 3), None).unwrap();
        let b = search(&mut example_state(), &Settings::budget(1500, 3), None).unwrap();
        assert_eq!(a.sides[0].visits, b.sides[0].visits);
        assert_eq!(a.sides[1].visits, b.sides[1].visits);
        assert_eq!(a.sides[0].visits.iter().sum::<u32>(), 1500);
    }

    #[test]
    fn a_side_the_state_holds_in_is_searched_without_its_switches() {
        let mut state = example_state();
        let free = search(&mut state, &Settings::budget(300, 1), None).unwrap();
        assert!(free.sides[0].options.iter().any(|c| matches!(c, MoveChoice::Switch(_))));
        state.side_one.force_trapped = true; // trapped as the player's request says
        let held = search(&mut state, &Settings::budget(300, 1), None).unwrap();
        assert!(!held.sides[0].options.is_empty());
        assert!(
            held.sides[0].options.iter().all(|c| !matches!(c, MoveChoice::Switch(_))),
            "{:?}",
            held.sides[0].options
        );
    }

    #[test]
    fn an_option_of_prior_zero_is_never_searched() {
        let n = example_state().root_get_all_options().0.len();
        let mut prior = vec![1.0; n];
        prior[0] = 0.0;
        let r = search(&mut example_state(), &Settings::budget(2000, 4), Some(&prior)).unwrap();
        assert_eq!(r.sides[0].visits[0], 0);
        assert_eq!(r.sides[0].visits.iter().sum::<u32>(), 2000);
    }

    #[test]
    fn a_prior_of_the_wrong_length_is_named() {
        let err = search(&mut example_state(), &Settings::budget(10, 0), Some(&[1.0, 2.0])).unwrap_err();
        assert!(err.contains("2 root priors"), "{err}");
    }

    #[test]
    fn without_a_prior_every_option_is_tried_and_with_one_the_favourite_is_searched_most() {
        // UCB1 keeps trying every option (PUCT over uniform priors left some at ~1% of visits)
        let unguided = search(&mut example_state(), &Settings::budget(2000, 1), None).unwrap();
        for side in &unguided.sides {
            assert!(side.visits.iter().all(|&n| n >= 50), "UCB1 keeps trying every option: {:?}", side.visits);
        }
        let n = unguided.sides[0].options.len();
        let mut prior = vec![0.001; n];
        prior[n - 1] = 1.0;
        let guided = search(&mut example_state(), &Settings::budget(2000, 1), Some(&prior)).unwrap();
        let most = guided.sides[0].visits.iter().max().unwrap();
        assert_eq!(guided.sides[0].visits[n - 1], *most, "{:?}", guided.sides[0].visits);
        assert!(guided.sides[1].visits.iter().all(|&n| n > 0), "side two has no prior: UCB1");
    }

    #[test]
    fn a_learned_leaf_value_steers_the_search() {
        // a model that values only side one's own HP lead: side one's best is what costs it least
        let mut weights = vec![0.0; crate::features::NAMES.len()];
        weights[1] = 8.0;
        let mut with = Settings::budget(1500, 3);
        with.leaf = Some(LeafModel::new(weights.clone(), false).unwrap());
        let a = search(&mut example_state(), &with, None).unwrap();
        let b = search(&mut example_state(), &Settings::budget(1500, 3), None).unwrap();
        assert_ne!(a.sides[0].visits, b.sides[0].visits);
        let mut state = example_state();
        let before = state.serialize();
        search(&mut state, &with, None).unwrap();
        assert_eq!(state.serialize(), before);
    }

    #[test]
    fn a_relative_leaf_value_is_the_lead_over_the_root() {
        // side one well behind: an absolute model values every leaf near 0, a relative one about
        // 0.5, so that the search still tells a leaf a little better from one a little worse
        let mut weights = vec![0.0; crate::features::NAMES.len()];
        weights[1] = 8.0;
        let mut state = example_state();
        for p in state.side_one.pokemon.pkmn.iter_mut().skip(1) {
            p.hp = 1;
        }
        let mut absolute = Settings::budget(1500, 3);
        absolute.leaf = Some(LeafModel::new(weights.clone(), false).unwrap());
        let mut relative = Settings::budget(1500, 3);
        relative.leaf = Some(LeafModel::new(weights, true).unwrap());
        let a = search(&mut state, &absolute, None).unwrap();
        let r = search(&mut state, &relative, None).unwrap();
        let mean = |s: &SearchResult| {
            let n: u32 = s.sides[0].visits.iter().sum();
            s.sides[0]
                .values
                .iter()
                .zip(&s.sides[0].visits)
                .map(|(v, k)| if *k > 0 { v * *k as f32 } else { 0.0 })
                .sum::<f32>()
                / n as f32
        };
        assert!(mean(&a) < 0.2, "absolute: {}", mean(&a));
        assert!((mean(&r) - 0.5).abs() < 0.2, "relative: {}", mean(&r));
    }
}
