//! A turn as the engine plays it, put right where poke-engine 0.0.48 is known to differ from
//! Showdown's simulator (docs/lab/engine-truth.md, the misses by mechanic). The search and the
//! bridge's truth test both take a turn's outcomes from here, so they think on the same rules.
//!
//! Each correction edits the engine's own instruction lists, never the engine:
//! - Spikes deal 1/8, 1/6, 1/4 of max HP for 1, 2, 3 layers (the engine: layers / 8);
//! - a Pokemon under Heal Block is not healed (the engine blocks healing moves only: Leftovers,
//!   Grassy Terrain and draining still heal it);
//! - Rest at full HP fails (the engine puts the Pokemon to sleep);
//! - Yawn does not put a Pokemon to sleep while another of its side sleeps (Sleep Clause).
//!
//! A list is read by applying it to the state one instruction at a time, so each correction sees
//! the battle as it was at that point; the state is put back after. A corrected list is given up
//! for the engine's own where what follows a correction was built on what it undid: a Pokemon's
//! HP out of [0, max], or an instruction whose record of the state before it no longer holds
//! (a Chesto Berry waking a Pokemon from the Rest that was taken out), which reversing would
//! write into the search's state.

use poke_engine::engine::abilities::Abilities;
use poke_engine::engine::generate_instructions::generate_instructions_from_move_pair;
use poke_engine::engine::items::Items;
use poke_engine::engine::state::{MoveChoice, PokemonVolatileStatus};
use poke_engine::instruction::{ChangeStatusInstruction, Instruction, StateInstructions};
use poke_engine::state::{PokemonStatus, SideReference, State};

/// The outcomes of side one choosing `m1` and side two `m2` on `state` (left as it was found),
/// each with its chance, corrected as this module says; `branch_on_damage` as the engine's.
pub fn turn(state: &mut State, m1: &MoveChoice, m2: &MoveChoice, branch_on_damage: bool) -> Vec<StateInstructions> {
    let mut branches = generate_instructions_from_move_pair(state, m1, m2, branch_on_damage);
    for branch in branches.iter_mut() {
        if !may_need(state, &branch.instruction_list) {
            continue;
        }
        if let Some(list) = corrected(state, &branch.instruction_list) {
            branch.instruction_list = list;
        }
    }
    branches
}

/// Whether `list` holds anything a correction could touch: a switch (Spikes), a Rest counter set,
/// a Pokemon put to sleep (Yawn), or a heal where Heal Block is or may come into play. Most lists hold none, and are not walked.
fn may_need(state: &State, list: &[Instruction]) -> bool {
    let blocked = |side: &poke_engine::state::Side| side.volatile_statuses.contains(&PokemonVolatileStatus::HEALBLOCK);
    let heal_block = blocked(&state.side_one) || blocked(&state.side_two)
        || list.iter().any(|i| matches!(i, Instruction::ApplyVolatileStatus(v) if v.volatile_status == PokemonVolatileStatus::HEALBLOCK));
    list.iter().any(|i| match i {
        Instruction::Switch(_) | Instruction::SetRestTurns(_) => true,
        Instruction::ChangeStatus(c) => c.new_status == PokemonStatus::SLEEP, // Yawn and Sleep Clause
        Instruction::Heal(_) => heal_block,
        _ => false,
    })
}

/// Spikes' share of max HP for 1, 2 and 3 layers, in 24ths (the simulator's).
const SPIKES_24THS: [i16; 4] = [0, 3, 4, 6];

/// `list` corrected, or None where nothing changed or the correction would not hold.
fn corrected(state: &mut State, list: &[Instruction]) -> Option<Vec<Instruction>> {
    let mut out: Vec<Instruction> = Vec::with_capacity(list.len());
    let mut changed = false;
    let mut valid = true; // false: stop, nothing more applied (reversing it would not be exact)
    let mut spikes_due: Option<(SideReference, usize)> = None; // (side, hazard hits before spikes')
    let mut k = 0;
    while valid && k < list.len() {
        if rest_at_full_hp(state, &list[k..]) {
            changed = true;
            k += 3; // Rest's sleep, its counter and its heal of nothing: none of them
            continue;
        }
        let mut ins = list[k].clone();
        k += 1;
        let mut switched = None; // the side whose Pokemon comes in with this instruction
        match &mut ins {
            Instruction::Switch(s) => switched = Some(s.side_ref),
            Instruction::Damage(d) => {
                if let Some((side_ref, before)) = spikes_due {
                    if d.side_ref == side_ref {
                        if before == 0 {
                            spikes_due = None;
                            changed |= spikes_as_simulator(state, side_ref, &mut d.damage_amount);
                        } else {
                            spikes_due = Some((side_ref, before - 1));
                        }
                    }
                }
            }
            Instruction::Heal(h) => {
                let side = state.get_side_immutable(&h.side_ref);
                if h.heal_amount > 0 && side.volatile_statuses.contains(&PokemonVolatileStatus::HEALBLOCK) {
                    changed = true;
                    continue; // neither applied nor kept
                }
            }
            Instruction::ChangeStatus(c) if yawn_against_sleep_clause(state, out.last(), c) => {
                changed = true;
                continue; // the Pokemon stays awake
            }
            // what the engine writes between a switch and its hazards' damage
            Instruction::SetLastUsedMove(_)
            | Instruction::ChangeStatus(_)
            | Instruction::ChangeSideCondition(_)
            | Instruction::Boost(_) => {}
            _ => spikes_due = None,
        }
        valid = !changed || holds(state, &ins);
        if valid {
            state.apply_one_instruction(&ins);
            out.push(ins);
            valid = !changed || hp_in_range(state);
            if let Some(side_ref) = switched {
                spikes_due = spikes_after_switch(state, side_ref);
            }
        }
    }
    for ins in out.iter().rev() {
        state.reverse_one_instruction(ins);
    }
    if changed && valid {
        Some(out)
    } else {
        None
    }
}

/// Whether `rest` begins with Rest used at full HP as the engine writes it: the user put to sleep,
/// its Rest counter set, and healed by nothing.
fn rest_at_full_hp(state: &State, rest: &[Instruction]) -> bool {
    match rest {
        [Instruction::ChangeStatus(c), Instruction::SetRestTurns(t), Instruction::Heal(h), ..] => {
            let pokemon = &state.get_side_immutable(&c.side_ref).pokemon[c.pokemon_index];
            c.new_status == PokemonStatus::SLEEP
                && t.side_ref == c.side_ref
                && t.pokemon_index == c.pokemon_index
                && h.side_ref == c.side_ref
                && h.heal_amount == 0
                && pokemon.hp == pokemon.maxhp
        }
        _ => false,
    }
}

/// Whether `change` is Yawn putting its Pokemon to sleep (the engine writes it just after Yawn's
/// count runs out) where Sleep Clause forbids it: another of the side's Pokemon is asleep, not
/// by Rest. The engine holds to Sleep Clause for sleep moves, not for Yawn.
fn yawn_against_sleep_clause(state: &State, before: Option<&Instruction>, change: &ChangeStatusInstruction) -> bool {
    let yawn_ran_out = matches!(before, Some(Instruction::ChangeVolatileStatusDuration(d))
        if d.volatile_status == PokemonVolatileStatus::YAWN && d.side_ref == change.side_ref && d.amount < 0);
    yawn_ran_out
        && change.new_status == PokemonStatus::SLEEP
        && state.get_side_immutable(&change.side_ref).has_alive_non_rested_sleeping_pkmn()
}

/// Where the Pokemon that just came in on `side_ref` takes Spikes' damage of two or three layers
/// (the engine's is wrong only there), the side and how many of its Damage instructions come
/// first (Stealth Rock's, as the engine orders them).
fn spikes_after_switch(state: &State, side_ref: SideReference) -> Option<(SideReference, usize)> {
    let side = state.get_side_immutable(&side_ref);
    let active = side.get_active_immutable();
    let hazards_reach = active.item != Items::HEAVYDUTYBOOTS && active.ability != Abilities::MAGICGUARD;
    if !hazards_reach || side.side_conditions.spikes < 2 || !active.is_grounded() {
        return None;
    }
    Some((side_ref, if side.side_conditions.stealth_rock == 1 { 1 } else { 0 }))
}

/// Rewrites the engine's Spikes damage `amount` on `side_ref`'s active as the simulator deals it;
/// whether it changed. The amount is checked against the engine's own rule first. Where the
/// engine's damage knocks the Pokemon out and the simulator's does not, it stands with what HP is
/// left: what follows in the list was built on the faint (the Pokemon misses that turn's
/// end-of-turn effects), which is nearer the truth than a faint.
fn spikes_as_simulator(state: &State, side_ref: SideReference, amount: &mut i16) -> bool {
    let side = state.get_side_immutable(&side_ref);
    let active = side.get_active_immutable();
    let layers = side.side_conditions.spikes.clamp(0, 3) as usize;
    let engines = (active.maxhp * layers as i16 / 8).min(active.hp);
    if *amount != engines {
        return false;
    }
    let simulators = ((active.maxhp as i32 * SPIKES_24THS[layers] as i32 / 24) as i16).max(1).min(active.hp);
    let changed = simulators != *amount;
    *amount = simulators;
    changed
}

/// Whether what `ins` records of the state before it (a status, a sleep or Rest counter, the
/// active Pokemon) is what `state` holds, so that applying and reversing it are exact.
fn holds(state: &State, ins: &Instruction) -> bool {
    match ins {
        Instruction::ChangeStatus(c) => {
            state.get_side_immutable(&c.side_ref).pokemon[c.pokemon_index].status == c.old_status
        }
        Instruction::SetRestTurns(t) => {
            state.get_side_immutable(&t.side_ref).pokemon[t.pokemon_index].rest_turns == t.previous_turns
        }
        Instruction::SetSleepTurns(t) => {
            state.get_side_immutable(&t.side_ref).pokemon[t.pokemon_index].sleep_turns == t.previous_turns
        }
        Instruction::DecrementRestTurns(d) => {
            state.get_side_immutable(&d.side_ref).get_active_immutable().rest_turns > 0
        }
        Instruction::Switch(w) => state.get_side_immutable(&w.side_ref).active_index == w.previous_index,
        _ => true,
    }
}

fn hp_in_range(state: &State) -> bool {
    [&state.side_one, &state.side_two].iter().all(|side| side.pokemon.into_iter().all(|p| p.hp >= 0 && p.hp <= p.maxhp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;
    use poke_engine::choices::Choices;
    use poke_engine::state::PokemonMoveIndex;

    fn switch_to_last(state: &State) -> MoveChoice {
        let (s1, _) = state.get_all_options();
        s1.into_iter().rfind(|c| matches!(c, MoveChoice::Switch(_))).expect("a switch")
    }

    fn hp_after_switch(layers: i8) -> (i16, i16) {
        let mut state = example_state();
        state.side_one.side_conditions.spikes = layers;
        let choice = switch_to_last(&state);
        let branches = turn(&mut state, &choice, &MoveChoice::None, false);
        let index = match choice {
            MoveChoice::Switch(i) => i,
            _ => unreachable!(),
        };
        let maxhp = state.side_one.pokemon[index].maxhp;
        let mut damage = 0;
        for ins in &branches[0].instruction_list {
            if let Instruction::Damage(d) = ins {
                if d.side_ref == SideReference::SideOne {
                    damage += d.damage_amount;
                }
            }
        }
        (damage, maxhp)
    }

    #[test]
    fn spikes_deal_the_simulators_shares() {
        for (layers, share) in [(1, 8), (2, 6), (3, 4)] {
            let (damage, maxhp) = hp_after_switch(layers);
            assert_eq!(damage, maxhp / share, "{layers} layers on {maxhp} HP");
        }
    }

    fn heals_of_side_one(heal_blocked: bool) -> usize {
        let mut state = example_state();
        let active = state.side_one.get_active();
        active.item = Items::LEFTOVERS;
        active.hp = active.maxhp / 2;
        if heal_blocked {
            state.side_one.volatile_statuses.insert(PokemonVolatileStatus::HEALBLOCK);
        }
        let branches = turn(&mut state, &MoveChoice::None, &MoveChoice::None, false);
        branches
            .iter()
            .flat_map(|b| b.instruction_list.iter())
            .filter(|i| matches!(i, Instruction::Heal(h) if h.side_ref == SideReference::SideOne && h.heal_amount > 0))
            .count()
    }

    #[test]
    fn heal_block_stops_leftovers() {
        assert!(heals_of_side_one(false) > 0, "Leftovers heals where nothing blocks it");
        assert_eq!(heals_of_side_one(true), 0);
    }

    fn asleep_after_rest(hp_lost: i16) -> bool {
        let mut state = example_state();
        let active = state.side_one.get_active();
        active.replace_move(PokemonMoveIndex::M0, Choices::REST);
        active.hp -= hp_lost;
        let branches = turn(&mut state, &MoveChoice::Move(PokemonMoveIndex::M0), &MoveChoice::None, false);
        assert_eq!(branches.len(), 1);
        state.apply_instructions(&branches[0].instruction_list);
        state.side_one.get_active_immutable().status == PokemonStatus::SLEEP
    }

    #[test]
    fn rest_at_full_hp_with_a_chesto_berry_after_it_leaves_a_state_that_reverses_exactly() {
        let mut state = example_state();
        let active = state.side_one.get_active();
        active.replace_move(PokemonMoveIndex::M0, Choices::REST);
        active.item = Items::CHESTOBERRY;
        let before = state.serialize();
        let branches = turn(&mut state, &MoveChoice::Move(PokemonMoveIndex::M0), &MoveChoice::None, false);
        assert_eq!(state.serialize(), before, "the turn leaves the state as it found it");
        for branch in branches {
            state.apply_instructions(&branch.instruction_list);
            state.reverse_instructions(&branch.instruction_list);
            assert_eq!(state.serialize(), before);
        }
    }

    #[test]
    fn rest_fails_at_full_hp() {
        assert!(asleep_after_rest(10), "Rest below full HP puts its user to sleep");
        assert!(!asleep_after_rest(0));
    }

    /// Whether side one's active falls asleep as its Yawn runs out, with its second Pokemon
    /// asleep (not by Rest) or awake.
    fn asleep_after_yawn(teammate_asleep: bool) -> bool {
        let mut state = example_state();
        state.side_one.volatile_statuses.insert(PokemonVolatileStatus::YAWN);
        state.side_one.volatile_status_durations.yawn = 1;
        if teammate_asleep {
            state.side_one.pokemon.pkmn[1].status = PokemonStatus::SLEEP;
        }
        let before = state.serialize();
        let branches = turn(&mut state, &MoveChoice::None, &MoveChoice::None, false);
        assert_eq!(state.serialize(), before, "the turn leaves the state as it found it");
        assert_eq!(branches.len(), 1);
        state.apply_instructions(&branches[0].instruction_list);
        state.side_one.get_active_immutable().status == PokemonStatus::SLEEP
    }

    #[test]
    fn yawn_holds_to_sleep_clause() {
        assert!(asleep_after_yawn(false), "Yawn puts its Pokemon to sleep where none of its side sleeps");
        assert!(!asleep_after_yawn(true));
    }

    #[test]
    fn a_corrected_turn_leaves_the_state_as_it_found_it() {
        let mut state = example_state();
        state.side_one.side_conditions.spikes = 3;
        let before = state.serialize();
        let choice = switch_to_last(&state);
        turn(&mut state, &choice, &MoveChoice::None, true);
        assert_eq!(state.serialize(), before);
    }
}
