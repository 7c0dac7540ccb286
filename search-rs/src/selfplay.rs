//! A battle played on to its end inside the engine, the search choosing for both sides: from a
//! position (a state both sides know whole), each turn one search (duct.rs) and each side plays
//! its most visited option; chance is drawn from the engine's branches as the tree draws it. Every
//! decision's state is kept, so that each can be labelled by how the search's own game ended: the
//! target AlphaZero gives its value (`metapvp fit-leaf --target games`). Thousands of such
//! games take minutes here, where the simulator's take hours.

use crate::chance::draw_by;
use crate::corrections;
use crate::duct::{search, Settings};
use poke_engine::engine::state::MoveChoice;
use poke_engine::state::State;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// A game the search played: the state at each of its decisions (serialised, the first the one it
/// began from) and its winner: 1.0 side one, 0.0 side two, None where `max_turns` ran out first.
#[derive(Clone, Debug)]
pub struct Game {
    pub states: Vec<String>,
    pub winner: Option<f32>,
}

/// The game the search plays from `state` (left as it was found) with `settings` (no prior; its
/// seed varied by turn), at most `max_turns` decisions. With `foe`, side two chooses by a search
/// of its own with those settings (the same seed), side one by `settings`': two players, for
/// matches inside the engine.
pub fn play(state: &mut State, settings: &Settings, foe: Option<&Settings>, max_turns: u32) -> Result<Game, String> {
    let mut rng = StdRng::seed_from_u64(settings.seed ^ 0x5e1f);
    let mut played = Vec::new();
    let mut states = Vec::new();
    let mut winner = None;
    for turn in 0..max_turns {
        let over = state.battle_is_over();
        if over != 0.0 {
            winner = Some(if over > 0.0 { 1.0 } else { 0.0 });
            break;
        }
        states.push(state.serialize());
        let seed = settings.seed.wrapping_add(turn as u64);
        let r = search(state, &Settings { seed, ..settings.clone() }, None)?;
        let m1 = most_visited(&r.sides[0].options, &r.sides[0].visits);
        let m2 = match foe {
            None => most_visited(&r.sides[1].options, &r.sides[1].visits),
            Some(f) => {
                let r2 = search(state, &Settings { seed, ..f.clone() }, None)?;
                most_visited(&r2.sides[1].options, &r2.sides[1].visits)
            }
        };
        let mut outcomes = corrections::turn(state, &m1, &m2, false);
        if outcomes.is_empty() {
            return Err(format!("the engine gave no outcome of {m1:?} against {m2:?}"));
        }
        let outcome = outcomes.swap_remove(draw_by(&outcomes, |o| o.percentage, &mut rng));
        state.apply_instructions(&outcome.instruction_list);
        played.push(outcome);
    }
    if winner.is_none() {
        let over = state.battle_is_over();
        if over != 0.0 {
            winner = Some(if over > 0.0 { 1.0 } else { 0.0 });
        }
    }
    for p in played.iter().rev() {
        state.reverse_instructions(&p.instruction_list);
    }
    Ok(Game { states, winner })
}

/// The option with the most visits (the first of equals); MoveChoice::None where there is none.
fn most_visited(options: &[MoveChoice], visits: &[u32]) -> MoveChoice {
    let mut best: Option<(u32, MoveChoice)> = None;
    for (o, &v) in options.iter().zip(visits) {
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, *o));
        }
    }
    best.map_or(MoveChoice::None, |(_, o)| o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;

    #[test]
    fn a_game_is_played_to_its_end_from_the_state_it_leaves_as_found() {
        let mut state = example_state();
        let before = state.serialize();
        let game = play(&mut state, &Settings::budget(300, 1), None, 300).unwrap();
        assert_eq!(state.serialize(), before);
        assert_eq!(game.states[0], before);
        assert!(game.states.len() > 3, "a six-a-side battle over in {} decisions", game.states.len());
        let winner = game.winner.expect("300 decisions and no winner");
        // the last decision's state is not over; the state after it is, for the winner's side
        let last = State::deserialize(game.states.last().unwrap());
        assert_eq!(last.battle_is_over(), 0.0);
        assert!(winner == 1.0 || winner == 0.0);
    }

    #[test]
    fn a_foe_with_the_same_settings_plays_the_same_game() {
        let mut state = example_state();
        let alone = play(&mut state, &Settings::budget(200, 4), None, 300).unwrap();
        let matched = play(&mut state, &Settings::budget(200, 4), Some(&Settings::budget(200, 4)), 300).unwrap();
        assert_eq!(alone.states, matched.states);
        assert_eq!(alone.winner, matched.winner);
    }

    #[test]
    fn a_foe_that_searches_far_more_wins_most_games_from_either_seat() {
        // side two's own search at 3,000 iterations against side one's at 3, and the other way
        let (weak, strong) = (Settings::budget(3, 0), Settings::budget(3000, 0));
        let mut strong_won = 0;
        for seed in 0..6 {
            let mut state = example_state();
            let g =
                play(&mut state, &Settings { seed, ..weak.clone() }, Some(&Settings { seed, ..strong.clone() }), 300)
                    .unwrap();
            strong_won += (g.winner == Some(0.0)) as u32;
            let g =
                play(&mut state, &Settings { seed, ..strong.clone() }, Some(&Settings { seed, ..weak.clone() }), 300)
                    .unwrap();
            strong_won += (g.winner == Some(1.0)) as u32;
        }
        assert!(strong_won >= 9, "the stronger search won {strong_won} of 12");
    }

    #[test]
    fn the_side_left_whole_wins_its_game() {
        // one side's Pokemon all at 1 HP: the other side wins, whichever side it is
        for weak_side_one in [false, true] {
            let mut state = example_state();
            let weak = if weak_side_one { &mut state.side_one } else { &mut state.side_two };
            for p in weak.pokemon.pkmn.iter_mut() {
                p.hp = 1;
            }
            let game = play(&mut state, &Settings::budget(300, 2), None, 300).unwrap();
            assert_eq!(game.winner, Some(if weak_side_one { 0.0 } else { 1.0 }), "side one weak: {weak_side_one}");
        }
    }

    #[test]
    fn a_game_is_the_same_for_the_same_seed_and_stops_at_its_turns() {
        let mut state = example_state();
        let a = play(&mut state, &Settings::budget(200, 7), None, 300).unwrap();
        let b = play(&mut state, &Settings::budget(200, 7), None, 300).unwrap();
        assert_eq!(a.states, b.states);
        assert_eq!(a.winner, b.winner);
        let short = play(&mut state, &Settings::budget(200, 7), None, 2).unwrap();
        assert_eq!(short.states.len(), 2);
        assert_eq!(short.winner, None);
        assert_eq!(short.states[..], a.states[..2]);
    }
}
