//! What the engine makes of one turn: every outcome of a joint choice on a state (the engine's
//! instruction branches, each with its chance), summarised as what Showdown's simulator shows of
//! a turn's result, as the search sees it (corrections.rs) (each side's active Pokemon, every Pokemon's HP and status, the active's
//! stat stages). The bridge's truth test compares them with what the simulator produced.

use crate::corrections;
use poke_engine::engine::state::MoveChoice;
use poke_engine::state::{Side, State};

/// One side after an outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct SideView {
    pub active: String,       // the active Pokemon's species, lower case (as the engine names it)
    pub species: Vec<String>, // each Pokemon's species, in team order
    pub hp: Vec<i16>,         // each Pokemon's HP, in team order
    pub status: Vec<String>,  // each Pokemon's status (NONE, BURN, ...)
    pub boosts: [i8; 7],      // the active's stages: atk, def, spa, spd, spe, accuracy, evasion
}

/// One outcome of a joint choice: its chance (percent) and both sides after it.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub chance: f32,
    pub sides: [SideView; 2],
}

pub fn side_view(side: &Side) -> SideView {
    let active = side.get_active_immutable();
    let mut hp = Vec::new();
    let mut status = Vec::new();
    let mut species = Vec::new();
    for p in side.pokemon.into_iter() {
        species.push(format!("{}", p.id).to_lowercase());
        hp.push(p.hp);
        status.push(format!("{:?}", p.status));
    }
    SideView {
        active: format!("{}", active.id).to_lowercase(),
        species,
        hp,
        status,
        boosts: crate::encoding::stages(side),
    }
}

/// The outcomes of side one choosing `s1` and side two `s2` (options as the search names them,
/// "none" for a side with nothing to choose) on `state`, which is left as it was. Damage
/// branches as the search's do (a roll that may knock out, a critical hit). An error names an
/// option the state does not have.
pub fn outcomes(state: &mut State, s1: &str, s2: &str) -> Result<Vec<Outcome>, String> {
    let c1 = MoveChoice::from_string(s1, &state.side_one).ok_or_else(|| format!("side one has no option {s1:?}"))?;
    let c2 = MoveChoice::from_string(s2, &state.side_two).ok_or_else(|| format!("side two has no option {s2:?}"))?;
    let mut out = Vec::new();
    for branch in corrections::turn(state, &c1, &c2, true) {
        state.apply_instructions(&branch.instruction_list);
        out.push(Outcome {
            chance: branch.percentage,
            sides: [side_view(&state.side_one), side_view(&state.side_two)],
        });
        state.reverse_instructions(&branch.instruction_list);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;

    #[test]
    fn the_outcomes_of_a_turn_add_up_to_certainty_and_leave_the_state() {
        let mut state = example_state();
        let before = state.serialize();
        let (a, b) = state.get_all_options();
        let (s1, s2) = (a[0].to_string(&state.side_one), b[0].to_string(&state.side_two));
        let found = outcomes(&mut state, &s1, &s2).unwrap();
        let total: f32 = found.iter().map(|o| o.chance).sum();
        assert!((total - 100.0).abs() < 0.01, "chances add up to {total}");
        assert_eq!(state.serialize(), before);
        assert_eq!(found[0].sides[0].hp.len(), 6);
    }

    #[test]
    fn an_option_the_state_lacks_is_named() {
        let err = outcomes(&mut example_state(), "splash", "none").unwrap_err();
        assert!(err.contains("\"splash\""), "{err}");
    }
}
