//! A learned value of a position for the search's leaves: a logistic model over features of the
//! engine's state, P(side one wins) = sigmoid(w · features(state)). Each feature is side one's
//! measure less side two's (and the engine's own evaluation, already side one's lead), so the
//! model is the same from either seat: swapping the sides turns p into 1 - p. The weights are
//! fitted to the outcomes of played battles (`metapvp fit-leaf`) and shipped in
//! static/models/native-value.json. A model may instead be `relative`: fitted to what the search
//! itself makes of positions (`metapvp fit-leaf --target search`), its log-odds are a
//! position's worth in the search's own scale, and a leaf is valued by its lead over the root's.

use poke_engine::choices::MoveCategory;
use poke_engine::engine::damage_calc::type_effectiveness_modifier;
use poke_engine::engine::evaluate::evaluate;
use poke_engine::engine::items::Items;
use poke_engine::engine::state::PokemonVolatileStatus;
use poke_engine::state::{Move, Pokemon, PokemonStatus, Side, State};

/// The features' names, in order: each side's measure (`side_measures`) as a lead, then the
/// engine's evaluation.
pub const NAMES: [&str; 34] = [
    "alive",
    "hp",
    "active_hp",
    "burned",
    "frozen",
    "asleep",
    "paralysed",
    "toxic",
    "poisoned",
    "items",
    "attack_stage",
    "defense_stage",
    "special_attack_stage",
    "special_defense_stage",
    "speed_stage",
    "leech_seed",
    "substitute",
    "confusion",
    "reflect",
    "light_screen",
    "aurora_veil",
    "tailwind",
    "safeguard",
    "stealth_rock",
    "spikes",
    "toxic_spikes",
    "sticky_web",
    "used_tera",
    "faster",
    "best_hit",
    "can_ko",
    "ko_first",
    "bench_best_hit",
    "engine_eval",
];
const PER_SIDE: usize = NAMES.len() - 1;

/// The model's weights, checked against the features' count.
#[derive(Clone, Debug)]
pub struct LeafModel {
    weights: Vec<f32>,
    /// A hidden layer beside the linear term, each unit (its weights over the features, its
    /// weight out) adding out · tanh(row · features). It has no biases, so it is odd in the
    /// features and the model stays the same from either seat.
    hidden: Vec<(Vec<f32>, f32)>,
    /// Whether the model weighs the bench's answer anywhere (else it is not measured).
    bench: bool,
    /// The search values a leaf by sigmoid(logit(leaf) - logit(root)), not sigmoid(logit(leaf)).
    pub relative: bool,
}

/// `weights` checked: one per feature, each a number.
fn checked(weights: &[f32], what: &str) -> Result<(), String> {
    if weights.len() != NAMES.len() {
        return Err(format!(
            "{} {what} for the value's {} features ({})",
            weights.len(),
            NAMES.len(),
            NAMES.join(", ")
        ));
    }
    finite(weights)
}

/// `weights` checked: each a number.
fn finite(weights: &[f32]) -> Result<(), String> {
    match weights.iter().find(|w| !w.is_finite()) {
        Some(w) => Err(format!("a leaf weight is {w}")),
        None => Ok(()),
    }
}

impl LeafModel {
    pub fn new(weights: Vec<f32>, relative: bool) -> Result<LeafModel, String> {
        checked(&weights, "leaf weights")?;
        let bench = weights[BENCH] != 0.0;
        Ok(LeafModel { weights, hidden: Vec::new(), bench, relative })
    }

    /// The model with a hidden layer: `rows` (each one weight per feature) and `out` (one weight
    /// per row).
    pub fn with_hidden(mut self, rows: Vec<Vec<f32>>, out: Vec<f32>) -> Result<LeafModel, String> {
        if rows.len() != out.len() {
            return Err(format!("{} hidden rows with {} weights out", rows.len(), out.len()));
        }
        for row in &rows {
            checked(row, "hidden weights")?;
        }
        finite(&out)?;
        self.bench |= rows.iter().any(|r| r[BENCH] != 0.0);
        self.hidden = rows.into_iter().zip(out).collect();
        Ok(self)
    }

    /// What the search measures leaves against at the root `root`: a relative model's log-odds
    /// there, 0 for an absolute one.
    pub fn baseline(&self, root: &State) -> f32 {
        if self.relative {
            self.logit(root)
        } else {
            0.0
        }
    }

    /// The value of `state` for side one: P(side one wins) for an absolute model, its lead over
    /// `baseline` (baseline()'s, at the root) squashed for a relative one.
    pub fn value(&self, state: &State, baseline: f32) -> f32 {
        1.0 / (1.0 + (baseline - self.logit(state)).exp())
    }

    /// The model's log-odds of side one winning from `state`. The bench's answer, the dearest
    /// feature by far, is measured only where the model weighs it.
    pub fn logit(&self, state: &State) -> f32 {
        let x = measured(state, self.bench);
        let dot = |w: &[f32]| -> f32 { x.iter().zip(w).map(|(a, b)| a * b).sum() };
        dot(&self.weights) + self.hidden.iter().map(|(row, out)| out * dot(row).tanh()).sum::<f32>()
    }
}

/// NAMES' index of the bench's answer (bench_best_hit).
const BENCH: usize = 32;

/// The features of `state` (NAMES' order), side one's lead in each.
pub fn features(state: &State) -> Vec<f32> {
    measured(state, true)
}

/// features(), with the bench's answer left at 0 unless `bench`.
fn measured(state: &State, bench: bool) -> Vec<f32> {
    let one = side_measures(state, &state.side_one, &state.side_two, bench);
    let two = side_measures(state, &state.side_two, &state.side_one, bench);
    let mut out: Vec<f32> = one.iter().zip(&two).map(|(a, b)| a - b).collect();
    out.push(evaluate(state) / 100.0);
    out
}

/// A stat stage as a multiplier's logarithm in quarters: +6 (x4) is 1, -6 is -1.
fn stage(boost: i8) -> f32 {
    stage_multiplier(boost).ln() / 4f32.ln()
}

/// A stat stage's multiplier: +1 is x1.5, -1 is x2/3.
fn stage_multiplier(boost: i8) -> f32 {
    let b = boost.clamp(-6, 6) as f32;
    if b >= 0.0 {
        (2.0 + b) / 2.0
    } else {
        2.0 / (2.0 - b)
    }
}

/// What `me` has, measured against `foe` where a measure is about the two actives.
fn side_measures(state: &State, me: &Side, foe: &Side, bench: bool) -> [f32; PER_SIDE] {
    let mut m = [0.0f32; PER_SIDE];
    let active = me.get_active_immutable();
    let mut grounded_exposed = 0.0;
    let mut exposed = 0.0;
    for p in me.pokemon.into_iter().filter(|p| p.hp > 0) {
        m[0] += 1.0 / 6.0;
        m[1] += p.hp as f32 / p.maxhp.max(1) as f32 / 6.0;
        let status = match p.status {
            PokemonStatus::BURN => Some(3),
            PokemonStatus::FREEZE => Some(4),
            PokemonStatus::SLEEP => Some(5),
            PokemonStatus::PARALYZE => Some(6),
            PokemonStatus::TOXIC => Some(7),
            PokemonStatus::POISON => Some(8),
            PokemonStatus::NONE => None,
        };
        if let Some(k) = status {
            m[k] += 1.0 / 6.0;
        }
        if p.item != Items::NONE {
            m[9] += 1.0 / 6.0;
        }
        if p.item != Items::HEAVYDUTYBOOTS {
            exposed += 1.0 / 6.0;
            if p.is_grounded() {
                grounded_exposed += 1.0 / 6.0;
            }
        }
        if p.terastallized {
            m[27] = 1.0;
        }
    }
    if active.hp > 0 {
        m[2] = active.hp as f32 / active.maxhp.max(1) as f32;
        m[10] = stage(me.attack_boost);
        m[11] = stage(me.defense_boost);
        m[12] = stage(me.special_attack_boost);
        m[13] = stage(me.special_defense_boost);
        m[14] = stage(me.speed_boost);
        let has = |v: PokemonVolatileStatus| if me.volatile_statuses.contains(&v) { 1.0 } else { 0.0 };
        m[15] = has(PokemonVolatileStatus::LEECHSEED);
        m[16] = has(PokemonVolatileStatus::SUBSTITUTE);
        m[17] = has(PokemonVolatileStatus::CONFUSION);
    }
    let sc = &me.side_conditions;
    let on = |turns: i8| if turns > 0 { 1.0 } else { 0.0 };
    m[18] = on(sc.reflect);
    m[19] = on(sc.light_screen);
    m[20] = on(sc.aurora_veil);
    m[21] = on(sc.tailwind);
    m[22] = on(sc.safeguard);
    m[23] = on(sc.stealth_rock) * exposed;
    m[24] = sc.spikes as f32 / 3.0 * grounded_exposed;
    m[25] = sc.toxic_spikes as f32 / 2.0 * grounded_exposed;
    m[26] = on(sc.sticky_web) * grounded_exposed;
    let theirs = foe.get_active_immutable();
    if active.hp > 0 && theirs.hp > 0 {
        let (mine, other) = (speed(active, me), speed(theirs, foe));
        let faster = if state.trick_room.active { mine < other } else { mine > other };
        m[28] = if mine == other {
            0.5
        } else if faster {
            1.0
        } else {
            0.0
        };
        let hit = best_hit(active, Stages::of(me), theirs, foe);
        m[29] = (hit / theirs.hp.max(1) as f32).min(1.0);
        m[30] = if hit >= theirs.hp as f32 { 1.0 } else { 0.0 };
        // the two actives' exchange, which a sum of leads cannot see: a knock-out struck first
        m[31] = m[30] * m[28];
        if bench {
            // the answer waiting on the bench: its hardest hit on the foe's active
            let answer = me
                .pokemon
                .into_iter()
                .enumerate()
                .filter(|(i, p)| *i != me.active_index as usize && p.hp > 0)
                .map(|(_, p)| best_hit(p, Stages::NONE, theirs, foe))
                .fold(0.0, f32::max);
            m[BENCH] = (answer / theirs.hp.max(1) as f32).min(1.0);
        }
    }
    m
}

/// The active's speed with its stage, paralysis and Tailwind.
fn speed(p: &Pokemon, side: &Side) -> f32 {
    let mut s = p.speed as f32 * stage_multiplier(side.speed_boost);
    if p.status == PokemonStatus::PARALYZE {
        s *= 0.5;
    }
    if side.side_conditions.tailwind > 0 {
        s *= 2.0;
    }
    s
}

/// The attack stages a hit is dealt with: the active's (its side's), or none for a Pokemon on the
/// bench, which leaves its side's stages behind when it comes in.
#[derive(Clone, Copy, Debug)]
pub struct Stages {
    pub attack: i8,
    pub special_attack: i8,
}

impl Stages {
    pub const NONE: Stages = Stages { attack: 0, special_attack: 0 };

    pub fn of(side: &Side) -> Stages {
        Stages { attack: side.attack_boost, special_attack: side.special_attack_boost }
    }
}

/// A rough estimate of the most damage `p`'s moves deal `target` (hit() of each usable move): a
/// feature, not a calc.
pub fn best_hit(p: &Pokemon, stages: Stages, target: &Pokemon, target_side: &Side) -> f32 {
    p.moves
        .into_iter()
        .filter(|m| !m.disabled && m.pp > 0)
        .map(|m| hit(p, stages, m, target, target_side))
        .fold(0.0, f32::max)
}

/// A rough estimate of the damage `mv` of `p` deals `target` (the damage formula's core with
/// stages, STAB, type and burn; no items, abilities, weather or rolls); 0 for a status move.
pub fn hit(p: &Pokemon, stages: Stages, mv: &Move, target: &Pokemon, target_side: &Side) -> f32 {
    let c = &mv.choice;
    let (attack, defense) = match c.category {
        MoveCategory::Physical => {
            let burn = if p.status == PokemonStatus::BURN { 0.5 } else { 1.0 };
            (
                p.attack as f32 * stage_multiplier(stages.attack) * burn,
                target.defense as f32 * stage_multiplier(target_side.defense_boost),
            )
        }
        MoveCategory::Special => (
            p.special_attack as f32 * stage_multiplier(stages.special_attack),
            target.special_defense as f32 * stage_multiplier(target_side.special_defense_boost),
        ),
        _ => return 0.0,
    };
    if c.base_power <= 0.0 {
        return 0.0;
    }
    let stab = if p.has_type(&c.move_type) { 1.5 } else { 1.0 };
    let base = (2.0 * p.level as f32 / 5.0 + 2.0) * c.base_power * attack / defense.max(1.0) / 50.0 + 2.0;
    base * stab * type_effectiveness_modifier(&c.move_type, target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;

    fn swapped(state: &State) -> State {
        let mut s = state.clone();
        std::mem::swap(&mut s.side_one, &mut s.side_two);
        s
    }

    #[test]
    fn the_features_turn_with_the_sides() {
        let mut state = example_state();
        state.side_one.get_active().hp /= 3;
        state.side_two.attack_boost = 2;
        let (a, b) = (features(&state), features(&swapped(&state)));
        assert_eq!(a.len(), NAMES.len());
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!((x + y).abs() < 1e-5, "{} is {x} one way and {y} the other", NAMES[k]);
        }
        assert!(a[2] < 0.0 && a[10] < 0.0, "side one's weaker active and side two's stage are side two's lead");
    }

    #[test]
    fn a_model_values_a_lead_above_an_even_position() {
        let mut weights = vec![0.0; NAMES.len()];
        weights[1] = 4.0;
        let model = LeafModel::new(weights, false).unwrap();
        let even = example_state();
        let mut ahead = even.clone();
        ahead.side_two.get_active().hp /= 4;
        assert!(model.value(&ahead, 0.0) > model.value(&even, 0.0));
        assert!((model.value(&ahead, 0.0) + model.value(&swapped(&ahead), 0.0) - 1.0).abs() < 1e-5);
    }

    #[test]
    fn a_knock_out_struck_first_and_the_benchs_answer_are_seen() {
        let at = |name: &str| NAMES.iter().position(|n| *n == name).unwrap();
        let (ko_first, bench) = (at("ko_first"), at("bench_best_hit"));
        let mut state = example_state(); // Garchomp against Corviknight
        state.side_two.get_active().hp = 1;
        state.side_one.get_active().speed = 400;
        let first = features(&state);
        state.side_one.get_active().speed = 100;
        let second = features(&state);
        assert_eq!((first[ko_first], second[ko_first]), (1.0, 0.0), "side one's knock-out, struck first then not");
        // the bench's answer to the foe's active is dealt without the active's stages
        let mut state = example_state();
        let mine = |s: &State| side_measures(s, &s.side_one, &s.side_two, true);
        let before = mine(&state);
        state.side_one.attack_boost = 6;
        state.side_one.special_attack_boost = 6;
        let boosted = mine(&state);
        assert!(before[bench] > 0.0, "Pikachu's Thunderbolt on Corviknight is an answer");
        assert_eq!(boosted[bench], before[bench]);
        assert!(boosted[at("best_hit")] > before[at("best_hit")]);
    }

    #[test]
    fn a_model_that_does_not_weigh_the_bench_values_as_one_that_measures_it() {
        assert_eq!(NAMES[BENCH], "bench_best_hit");
        let state = example_state();
        let weights: Vec<f32> = (0..NAMES.len()).map(|k| if k == BENCH { 0.0 } else { 0.1 * k as f32 }).collect();
        let full: f32 = features(&state).iter().zip(&weights).map(|(x, w)| x * w).sum();
        assert!((LeafModel::new(weights.clone(), false).unwrap().logit(&state) - full).abs() < 1e-5);
        let mut weighed = weights;
        weighed[BENCH] = 1.0;
        let with_bench = LeafModel::new(weighed, false).unwrap().logit(&state);
        assert!((with_bench - full - features(&state)[BENCH]).abs() < 1e-5);
    }

    #[test]
    fn a_hidden_layer_adds_its_units_and_turns_with_the_sides() {
        let mut state = example_state();
        state.side_two.get_active().hp /= 3;
        let x = features(&state);
        let mut row = vec![0.0; NAMES.len()];
        row[1] = 2.0;
        row[BENCH] = 0.5;
        let weights = (0..NAMES.len()).map(|k| if k == BENCH { 0.0 } else { 0.1 }).collect();
        let linear = LeafModel::new(weights, false).unwrap(); // which alone leaves the bench unmeasured
        let deep = linear.clone().with_hidden(vec![row.clone()], vec![3.0]).unwrap();
        let unit = 3.0 * (2.0 * x[1] + 0.5 * x[BENCH]).tanh();
        assert!((deep.logit(&state) - linear.logit(&state) - unit).abs() < 1e-5);
        assert!(x[BENCH] != 0.0, "the hidden row weighs the bench: it must be measured for the unit to match");
        assert!((deep.logit(&state) + deep.logit(&swapped(&state))).abs() < 1e-5);
        let err = linear.clone().with_hidden(vec![row], vec![1.0, 2.0]).unwrap_err();
        assert!(err.contains("1 hidden rows with 2 weights out"), "{err}");
        let err = linear.with_hidden(vec![vec![1.0; 3]], vec![1.0]).unwrap_err();
        assert!(err.contains("3 hidden weights"), "{err}");
    }

    #[test]
    fn weights_of_the_wrong_count_are_named() {
        let err = LeafModel::new(vec![1.0; 3], false).unwrap_err();
        assert!(err.contains("3 leaf weights") && err.contains("alive"), "{err}");
    }
}
