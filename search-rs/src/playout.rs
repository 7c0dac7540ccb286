//! A play-out past a leaf of the search: for a few joint choices both sides use the move that
//! hits the other's active hardest (a forced switch brings in the Pokemon that would), chance
//! drawn from the engine's branches as the tree draws it; the leaf is valued where that leaves
//! the battle. The search in Showdown's simulator measured one such turn stronger than none
//! (docs/agent.md, `play_on`); the static evaluation cannot see who strikes first.

use crate::corrections;
use crate::chance::draw_by;
use crate::features::{best_hit, hit, Stages};
use poke_engine::engine::state::MoveChoice;
use poke_engine::instruction::StateInstructions;
use poke_engine::state::State;
use rand::rngs::StdRng;

/// Side `k`'s (0: side one, 1: side two) hardest-hitting choice among its `options`, by
/// features::hit against the foe's active: a move where there is one (the first of equals), else
/// the switch to the Pokemon with the hardest hit, else the first option (MoveChoice::None).
pub fn hardest(state: &State, k: usize, options: &[MoveChoice]) -> MoveChoice {
    let (me, foe) = if k == 0 { (&state.side_one, &state.side_two) } else { (&state.side_two, &state.side_one) };
    let (active, target) = (me.get_active_immutable(), foe.get_active_immutable());
    let damage = |o: &MoveChoice| match o {
        MoveChoice::Move(i) => Some(hit(active, Stages::of(me), &active.moves[i], target, foe)),
        MoveChoice::Switch(i) => Some(best_hit(&me.pokemon[*i], Stages::NONE, target, foe)),
        _ => None,
    };
    let moves = options.iter().any(|o| matches!(o, MoveChoice::Move(_)));
    let mut best: Option<(f32, &MoveChoice)> = None;
    for o in options.iter().filter(|o| !moves || matches!(o, MoveChoice::Move(_))) {
        if let Some(d) = damage(o) {
            if best.is_none_or(|(b, _)| d > b) {
                best = Some((d, o));
            }
        }
    }
    best.map(|(_, o)| *o).or_else(|| options.first().copied()).unwrap_or(MoveChoice::None)
}

/// `value` of the position reached from `state` by `steps` joint choices of both sides' hardest(),
/// each outcome drawn by its chance (fewer where the battle ends); the state is put back as it was.
pub fn played_out(state: &mut State, steps: u32, rng: &mut StdRng, value: impl FnOnce(&State) -> f32) -> f32 {
    let mut played: Vec<StateInstructions> = Vec::new();
    for _ in 0..steps {
        if state.battle_is_over() != 0.0 {
            break;
        }
        let (s1, s2) = state.get_all_options();
        let (m1, m2) = (hardest(state, 0, &s1), hardest(state, 1, &s2));
        if m1 == MoveChoice::None && m2 == MoveChoice::None {
            break;
        }
        let mut outcomes = corrections::turn(state, &m1, &m2, false);
        if outcomes.is_empty() {
            break;
        }
        let chosen = outcomes.swap_remove(draw_by(&outcomes, |o| o.percentage, rng));
        state.apply_instructions(&chosen.instruction_list);
        played.push(chosen);
    }
    let v = value(state);
    for p in played.iter().rev() {
        state.reverse_instructions(&p.instruction_list);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;
    use rand::SeedableRng;

    #[test]
    fn the_hardest_option_is_the_move_that_hits_hardest() {
        let state = example_state();
        let (s1, _) = state.get_all_options();
        let chosen = hardest(&state, 0, &s1);
        let (me, foe) = (&state.side_one, &state.side_two);
        let (active, target) = (me.get_active_immutable(), foe.get_active_immutable());
        let of = |o: &MoveChoice| match o {
            MoveChoice::Move(i) => hit(active, Stages::of(me), &active.moves[i], target, foe),
            _ => -1.0,
        };
        assert!(matches!(chosen, MoveChoice::Move(_)), "{chosen:?}");
        assert!(s1.iter().all(|o| of(o) <= of(&chosen)), "{chosen:?} is not the hardest of {s1:?}");
        assert!(of(&chosen) > 0.0);
    }

    #[test]
    fn a_play_out_leaves_the_state_as_it_found_it_and_moves_the_battle_on() {
        let mut state = example_state();
        let before = state.serialize();
        let mut rng = StdRng::seed_from_u64(3);
        let hp = |s: &State| s.side_one.get_active_immutable().hp + s.side_two.get_active_immutable().hp;
        let reached = played_out(&mut state, 2, &mut rng, |s| hp(s) as f32);
        assert_eq!(state.serialize(), before);
        assert!(reached < hp(&state) as f32, "two turns of hardest hits left the actives' HP at {reached}");
        assert_eq!(played_out(&mut state, 0, &mut rng, |s| hp(s) as f32), hp(&state) as f32);
    }
}
