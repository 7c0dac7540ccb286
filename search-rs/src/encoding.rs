//! A state as the value network reads it (issue 83): each side's six Pokémon, the active one
//! first, as ids (species, item, ability, types, Tera type, status, moves: rows of the network's
//! embeddings) and numbers (HP, stats, PP, ...), then what belongs to the side's active slot and
//! side (stages, volatile statuses, hazards, screens, ...), then the field. Side one's half and
//! side two's are laid out alike, so a network that reads (mine, theirs) and (theirs, mine) the
//! same way is the same from either seat by construction. Everything here is the engine's own
//! state: nothing is derived from a search or a simulator.

use poke_engine::choices::Choices;
use poke_engine::engine::abilities::Abilities;
use poke_engine::engine::items::Items;
use poke_engine::engine::state::{PokemonVolatileStatus, Terrain, Weather};
use poke_engine::pokemon::PokemonName;
use poke_engine::state::{Move, Pokemon, PokemonStatus, PokemonType, Side, State};

/// Rows of each embedding: one per variant of the engine's enum (its last variant's number + 1).
pub const SPECIES: usize = PokemonName::RAICHUMEGAY as usize + 1;
pub const ITEMS: usize = Items::RAICHUNITEY as usize + 1;
pub const ABILITIES: usize = Abilities::FIREMANE as usize + 1;
pub const MOVES: usize = Choices::ZIPPYZAP as usize + 1;
pub const TYPES: usize = PokemonType::TYPELESS as usize + 1;
pub const STATUSES: usize = PokemonStatus::TOXIC as usize + 1;
const VOLATILES: usize = PokemonVolatileStatus::YAWN as usize + 1;
const WEATHERS: usize = Weather::HEAVYRAIN as usize + 1;
const TERRAINS: usize = Terrain::GRASSYTERRAIN as usize + 1;

/// The layout's version: a change of what any place holds raises it (datasets encoded before
/// are encoded again).
pub const VERSION: usize = 1;

/// Pokémon a side has, in the layout (the active one first, then the others in the side's order).
pub const SLOTS: usize = 6;
/// Per Pokémon: species, item, ability, type one, type two, Tera type, status, four moves.
pub const POKEMON_INTS: usize = 11;
/// Per Pokémon, of its own: alive, HP share, max HP, level, five stats, Terastallized, Rest's
/// and sleep's turns, weight; then each of its four moves' PP, then whether each is disabled.
pub const POKEMON_OWN_FLOATS: usize = 13;
pub const POKEMON_FLOATS: usize = POKEMON_OWN_FLOATS + 2 * 4;
/// Per side: seven stages, every volatile status, Substitute's HP, six counted volatiles, the
/// side's conditions, Wish, Future Sight, five flags, whether it has used its Tera.
pub const SIDE_FLOATS: usize = 7 + VOLATILES + 1 + 6 + SIDE_CONDITIONS + 2 + 1 + 5 + 1;
/// The field: weather (which, turns), terrain (which, turns), Trick Room (on, turns).
pub const FIELD_FLOATS: usize = WEATHERS + 1 + TERRAINS + 1 + 2;
const SIDE_CONDITIONS: usize = 19;

/// Ids per state: [side][slot][POKEMON_INTS], side one first.
pub const INTS: usize = 2 * SLOTS * POKEMON_INTS;
/// Numbers per state: [side][slot][POKEMON_FLOATS], then [side][SIDE_FLOATS], then the field.
pub const FLOATS: usize = 2 * SLOTS * POKEMON_FLOATS + 2 * SIDE_FLOATS + FIELD_FLOATS;

/// The layout's sizes by name, for the network that reads it (and a check that both agree).
pub fn layout() -> Vec<(&'static str, usize)> {
    vec![
        ("version", VERSION),
        ("species", SPECIES),
        ("items", ITEMS),
        ("abilities", ABILITIES),
        ("moves", MOVES),
        ("types", TYPES),
        ("statuses", STATUSES),
        ("slots", SLOTS),
        ("pokemon_ints", POKEMON_INTS),
        ("pokemon_floats", POKEMON_FLOATS),
        ("pokemon_own_floats", POKEMON_OWN_FLOATS),
        ("side_floats", SIDE_FLOATS),
        ("field_floats", FIELD_FLOATS),
    ]
}

/// `state` written into `ints` (INTS long) and `floats` (FLOATS long).
pub fn encode(state: &State, ints: &mut [i32], floats: &mut [f32]) {
    assert_eq!((ints.len(), floats.len()), (INTS, FLOATS), "the encoding's buffers");
    let pokemon_floats = SLOTS * POKEMON_FLOATS;
    for (k, side) in [&state.side_one, &state.side_two].into_iter().enumerate() {
        for (slot, p) in in_layout_order(side).enumerate() {
            let at = (k * SLOTS + slot) * POKEMON_INTS;
            pokemon_ids(p, &mut ints[at..at + POKEMON_INTS]);
            let at = (k * SLOTS + slot) * POKEMON_FLOATS;
            pokemon_numbers(p, &mut floats[at..at + POKEMON_FLOATS]);
        }
        let at = 2 * pokemon_floats + k * SIDE_FLOATS;
        side_numbers(side, &mut floats[at..at + SIDE_FLOATS]);
    }
    field_numbers(state, &mut floats[2 * pokemon_floats + 2 * SIDE_FLOATS..]);
}

/// The side's Pokémon, the active one first, then the others in the side's order.
fn in_layout_order(side: &Side) -> impl Iterator<Item = &Pokemon> {
    let (all, active) = (&side.pokemon.pkmn, side.active_index as usize);
    std::iter::once(&all[active]).chain(all.iter().enumerate().filter(move |&(i, _)| i != active).map(|(_, p)| p))
}

fn moves(p: &Pokemon) -> [&Move; 4] {
    [&p.moves.m0, &p.moves.m1, &p.moves.m2, &p.moves.m3]
}

fn pokemon_ids(p: &Pokemon, out: &mut [i32]) {
    out[0] = p.id as i32;
    out[1] = p.item as i32;
    out[2] = p.ability as i32;
    out[3] = p.types.0 as i32;
    out[4] = p.types.1 as i32;
    out[5] = p.tera_type as i32;
    out[6] = p.status as i32;
    for (k, m) in moves(p).into_iter().enumerate() {
        out[7 + k] = m.id as i32;
    }
}

fn pokemon_numbers(p: &Pokemon, out: &mut [f32]) {
    let stat = |s: i16| s as f32 / 500.0;
    out[0] = (p.hp > 0) as u8 as f32;
    out[1] = if p.maxhp > 0 { p.hp.max(0) as f32 / p.maxhp as f32 } else { 0.0 };
    out[2] = stat(p.maxhp);
    out[3] = p.level as f32 / 100.0;
    out[4] = stat(p.attack);
    out[5] = stat(p.defense);
    out[6] = stat(p.special_attack);
    out[7] = stat(p.special_defense);
    out[8] = stat(p.speed);
    out[9] = p.terastallized as u8 as f32;
    out[10] = p.rest_turns as f32 / 3.0;
    out[11] = p.sleep_turns as f32 / 3.0;
    out[12] = (1.0 + p.weight_kg.max(0.0)).ln() / 7.0;
    for (k, m) in moves(p).into_iter().enumerate() {
        out[POKEMON_OWN_FLOATS + k] = m.pp.max(0) as f32 / 32.0;
        out[POKEMON_OWN_FLOATS + 4 + k] = m.disabled as u8 as f32;
    }
}

fn side_numbers(side: &Side, out: &mut [f32]) {
    let mut at = 0;
    let mut put = |v: f32| {
        out[at] = v;
        at += 1;
    };
    for stage in stages(side) {
        put(stage as f32 / 6.0);
    }
    for k in 0..VOLATILES {
        put((side.volatile_statuses.0 >> k & 1) as f32);
    }
    let active = &side.pokemon[side.active_index];
    let of_max_hp = |hp: i16| hp as f32 / active.maxhp.max(1) as f32;
    put(of_max_hp(side.substitute_health));
    let d = &side.volatile_status_durations;
    for turns in [d.confusion, d.encore, d.lockedmove, d.slowstart, d.taunt, d.yawn] {
        put(turns as f32 / 5.0);
    }
    let c = &side.side_conditions;
    // (count, its scale): turns left of a screen or Tailwind, layers of a hazard, ...
    for (v, scale) in [
        (c.aurora_veil, 5.0),
        (c.crafty_shield, 1.0),
        (c.healing_wish, 1.0),
        (c.light_screen, 5.0),
        (c.lucky_chant, 5.0),
        (c.lunar_dance, 1.0),
        (c.mat_block, 1.0),
        (c.mist, 5.0),
        (c.protect, 2.0),
        (c.quick_guard, 1.0),
        (c.reflect, 5.0),
        (c.safeguard, 5.0),
        (c.spikes, 3.0),
        (c.stealth_rock, 1.0),
        (c.sticky_web, 1.0),
        (c.tailwind, 4.0),
        (c.toxic_count, 8.0),
        (c.toxic_spikes, 2.0),
        (c.wide_guard, 1.0),
    ] {
        put(v as f32 / scale);
    }
    put(side.wish.0 as f32 / 2.0);
    put(of_max_hp(side.wish.1));
    put(side.future_sight.0 as f32 / 3.0);
    for flag in [side.force_switch, side.force_trapped, side.baton_passing, side.shed_tailing, side.slow_uturn_move] {
        put(flag as u8 as f32);
    }
    put(side.pokemon.pkmn.iter().any(|p| p.terastallized) as u8 as f32);
    debug_assert_eq!(at, SIDE_FLOATS);
}

/// The active slot's stages: attack, defense, special attack, special defense, speed, accuracy,
/// evasion.
pub fn stages(side: &Side) -> [i8; 7] {
    [
        side.attack_boost,
        side.defense_boost,
        side.special_attack_boost,
        side.special_defense_boost,
        side.speed_boost,
        side.accuracy_boost,
        side.evasion_boost,
    ]
}

fn field_numbers(state: &State, out: &mut [f32]) {
    out.fill(0.0);
    // turns left, over 8; -1 (the engine's "until it ends otherwise") stays -1/8
    let turns = |t: i8| t.max(-1) as f32 / 8.0;
    out[state.weather.weather_type as usize] = 1.0;
    out[WEATHERS] = turns(state.weather.turns_remaining);
    out[WEATHERS + 1 + state.terrain.terrain_type as usize] = 1.0;
    out[WEATHERS + 1 + TERRAINS] = turns(state.terrain.turns_remaining);
    out[WEATHERS + TERRAINS + 2] = state.trick_room.active as u8 as f32;
    out[WEATHERS + TERRAINS + 3] = turns(state.trick_room.turns_remaining);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example::example_state;

    fn encoded(state: &State) -> (Vec<i32>, Vec<f32>) {
        let (mut ints, mut floats) = (vec![-7; INTS], vec![f32::NAN; FLOATS]);
        encode(state, &mut ints, &mut floats);
        (ints, floats)
    }

    #[test]
    fn every_place_is_written_and_every_id_has_its_row() {
        let (ints, floats) = encoded(&example_state());
        assert!(floats.iter().all(|f| f.is_finite()), "a number left unwritten");
        let rows = [SPECIES, ITEMS, ABILITIES, TYPES, TYPES, TYPES, STATUSES, MOVES, MOVES, MOVES, MOVES];
        for (k, &id) in ints.iter().enumerate() {
            assert!(id >= 0 && (id as usize) < rows[k % POKEMON_INTS], "id {id} at {k}");
        }
    }

    #[test]
    fn the_active_pokemon_comes_first_and_swapping_sides_swaps_halves() {
        let mut state = example_state();
        state.side_one.active_index = poke_engine::state::PokemonIndex::P2;
        let (ints, floats) = encoded(&state);
        assert_eq!(ints[0], state.side_one.pokemon.pkmn[2].id as i32);
        assert_eq!(ints[POKEMON_INTS], state.side_one.pokemon.pkmn[0].id as i32);
        let mut swapped = state.clone();
        std::mem::swap(&mut swapped.side_one, &mut swapped.side_two);
        let (s_ints, s_floats) = encoded(&swapped);
        let half = SLOTS * POKEMON_INTS;
        assert_eq!((&s_ints[..half], &s_ints[half..]), (&ints[half..], &ints[..half]));
        let (p, s) = (SLOTS * POKEMON_FLOATS, SIDE_FLOATS);
        assert_eq!(&s_floats[..p], &floats[p..2 * p]);
        assert_eq!(&s_floats[2 * p..2 * p + s], &floats[2 * p + s..2 * p + 2 * s]);
        assert_eq!(&s_floats[2 * p + 2 * s..], &floats[2 * p + 2 * s..]);
    }

    #[test]
    fn what_changes_in_a_battle_changes_its_number() {
        let state = example_state();
        let (_, before) = encoded(&state);
        let mut hurt = state.clone();
        let active = hurt.side_two.active_index;
        hurt.side_two.pokemon[active].hp /= 2;
        hurt.side_two.attack_boost = 2;
        hurt.side_two.side_conditions.stealth_rock = 1;
        hurt.weather.weather_type = Weather::RAIN;
        hurt.weather.turns_remaining = 3;
        let (_, after) = encoded(&hurt);
        let changed: Vec<usize> = (0..FLOATS).filter(|&k| before[k] != after[k]).collect();
        let side_two = 2 * SLOTS * POKEMON_FLOATS + SIDE_FLOATS;
        let field = 2 * SLOTS * POKEMON_FLOATS + 2 * SIDE_FLOATS;
        let hp = SLOTS * POKEMON_FLOATS + 1;
        let rock = side_two + 7 + VOLATILES + 1 + 6 + 13;
        assert_eq!(
            changed,
            vec![hp, side_two, rock, field, field + Weather::RAIN as usize, field + WEATHERS],
            "{changed:?}"
        );
    }
}
