//! A battle played on to its end inside the engine, the search choosing for both sides: from a
//! position (a state both sides know whole), each turn one search (duct.rs) and each side plays
//! its most visited option (in a game's first `sample_turns` decisions, one drawn by its visits,
//! for games that part early); chance is drawn from the engine's branches as the tree draws it.
//! Every decision's state and both sides' visits are kept, so that each can be labelled by how
//! the search's own game ended, the targets AlphaZero gives its value and its policy
//! (`metapvp selfplay`, `metapvp fit-leaf --target games`). Thousands of such games take minutes
//! here, where the simulator's take hours.

use crate::chance::draw_by;
use crate::corrections;
use crate::duct::{search, Settings, SideResult};
use poke_engine::engine::state::MoveChoice;
use poke_engine::state::{Side, State};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// A game the search played: the state at each of its decisions (serialised, the first the one it
/// began from), each decision's options and their visits per side (as the engine names them for
/// that state), and its winner: 1.0 side one, 0.0 side two, None where `max_turns` ran out first.
#[derive(Clone, Debug)]
pub struct Game {
    pub states: Vec<String>,
    pub visits: Vec<[Visits; 2]>,
    pub winner: Option<f32>,
}

/// One side's options at a decision and the search's visits to each.
#[derive(Clone, Debug, PartialEq)]
pub struct Visits {
    pub options: Vec<String>,
    pub visits: Vec<u32>,
}

/// How the search plays its games: `settings` for side one (and for side two without `foe`, a
/// search of its own for side two with it), at most `max_turns` decisions, the first
/// `sample_turns` of them played by drawing each side's option in proportion to its visits.
#[derive(Clone, Debug)]
pub struct Plan<'a> {
    pub settings: &'a Settings,
    pub foe: Option<&'a Settings>,
    pub max_turns: u32,
    pub sample_turns: u32,
}

/// The game the search plays from `state` (left as it was found) as `plan` says (no prior; the
/// seed of `plan.settings` varied by turn). With `plan.foe`, side two chooses by a search of its
/// own with those settings (the same seed), side one by `plan.settings`': two players, for
/// matches inside the engine.
pub fn play(state: &mut State, plan: &Plan) -> Result<Game, String> {
    let (settings, foe) = (plan.settings, plan.foe);
    let mut rng = StdRng::seed_from_u64(settings.seed ^ 0x5e1f);
    let mut played = Vec::new();
    let (mut states, mut visits) = (Vec::new(), Vec::new());
    let mut winner = None;
    for turn in 0..plan.max_turns {
        let over = state.battle_is_over();
        if over != 0.0 {
            winner = Some(if over > 0.0 { 1.0 } else { 0.0 });
            break;
        }
        states.push(state.serialize());
        let seed = settings.seed.wrapping_add(turn as u64);
        let r = search(state, &Settings { seed, ..settings.clone() }, None)?;
        let two = match foe {
            None => r.sides[1].clone(),
            Some(f) => search(state, &Settings { seed, ..f.clone() }, None)?.sides[1].clone(),
        };
        let sampled = turn < plan.sample_turns;
        let m1 = chosen(&r.sides[0], sampled, &mut rng);
        let m2 = chosen(&two, sampled, &mut rng);
        visits.push([named(&r.sides[0], &state.side_one), named(&two, &state.side_two)]);
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
    Ok(Game { states, visits, winner })
}

/// A side's option: its most visited (the first of equals), or with `sampled` one drawn in
/// proportion to the visits; MoveChoice::None where there is none.
fn chosen(side: &SideResult, sampled: bool, rng: &mut StdRng) -> MoveChoice {
    if side.options.is_empty() {
        return MoveChoice::None;
    }
    if sampled {
        return side.options[draw_by(&side.visits, |&v| v as f32, rng)];
    }
    let mut best = 0;
    for (k, &v) in side.visits.iter().enumerate() {
        if v > side.visits[best] {
            best = k;
        }
    }
    side.options[best]
}

fn named(result: &SideResult, side: &Side) -> Visits {
    Visits { options: result.options.iter().map(|m| m.to_string(side)).collect(), visits: result.visits.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;

    fn played(state: &mut State, settings: &Settings, foe: Option<&Settings>, max_turns: u32) -> Result<Game, String> {
        play(state, &Plan { settings, foe, max_turns, sample_turns: 0 })
    }

    #[test]
    fn a_game_is_played_to_its_end_from_the_state_it_leaves_as_found() {
        let mut state = example_state();
        let before = state.serialize();
        let game = played(&mut state, &Settings::budget(300, 1), None, 300).unwrap();
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
        let alone = played(&mut state, &Settings::budget(200, 4), None, 300).unwrap();
        let matched = played(&mut state, &Settings::budget(200, 4), Some(&Settings::budget(200, 4)), 300).unwrap();
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
                played(&mut state, &Settings { seed, ..weak.clone() }, Some(&Settings { seed, ..strong.clone() }), 300)
                    .unwrap();
            strong_won += (g.winner == Some(0.0)) as u32;
            let g =
                played(&mut state, &Settings { seed, ..strong.clone() }, Some(&Settings { seed, ..weak.clone() }), 300)
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
            let game = played(&mut state, &Settings::budget(300, 2), None, 300).unwrap();
            assert_eq!(game.winner, Some(if weak_side_one { 0.0 } else { 1.0 }), "side one weak: {weak_side_one}");
        }
    }

    #[test]
    fn a_game_is_the_same_for_the_same_seed_and_stops_at_its_turns() {
        let mut state = example_state();
        let a = played(&mut state, &Settings::budget(200, 7), None, 300).unwrap();
        let b = played(&mut state, &Settings::budget(200, 7), None, 300).unwrap();
        assert_eq!(a.states, b.states);
        assert_eq!(a.winner, b.winner);
        let short = played(&mut state, &Settings::budget(200, 7), None, 2).unwrap();
        assert_eq!(short.states.len(), 2);
        assert_eq!(short.winner, None);
        assert_eq!(short.states[..], a.states[..2]);
    }

    #[test]
    fn each_decision_keeps_both_sides_options_and_their_visits() {
        let mut state = example_state();
        let game = played(&mut state, &Settings::budget(400, 3), None, 300).unwrap();
        assert_eq!(game.visits.len(), game.states.len());
        for (text, [one, two]) in game.states.iter().zip(&game.visits) {
            let s = State::deserialize(text);
            let (o1, o2) = s.root_get_all_options();
            let names = |os: &[MoveChoice], side: &Side| os.iter().map(|m| m.to_string(side)).collect::<Vec<_>>();
            assert_eq!(one.options, names(&o1, &s.side_one));
            assert_eq!(two.options, names(&o2, &s.side_two));
            assert_eq!((one.visits.len(), two.visits.len()), (one.options.len(), two.options.len()));
            assert_eq!(one.visits.iter().sum::<u32>(), 400, "side one's visits are the search's iterations");
        }
    }

    #[test]
    fn sampled_turns_part_games_and_the_same_seed_samples_alike() {
        let mut state = example_state();
        let mut parted = 0;
        for seed in 0..4 {
            let settings = Settings::budget(200, seed);
            let plan = |sample_turns| Plan { settings: &settings, foe: None, max_turns: 300, sample_turns };
            let (greedy, sampled) = (play(&mut state, &plan(0)).unwrap(), play(&mut state, &plan(6)).unwrap());
            parted += (greedy.states != sampled.states) as u32;
            assert_eq!(play(&mut state, &plan(6)).unwrap().states, sampled.states, "seed {seed} sampled twice");
        }
        assert!(parted > 0, "six sampled decisions, and every game the greedy one");
    }
}
