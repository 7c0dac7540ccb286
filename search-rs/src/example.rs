//! A state of two small gen 9 teams, for the tests and the speed benchmark until states are
//! made from battles (the bridge from a player's view). The stats are level 100 random-battle
//! figures, rounded; the point is a position with real moves, types and switches on both sides.

use poke_engine::choices::Choices;
use poke_engine::pokemon::PokemonName;
use poke_engine::state::{Pokemon, PokemonMoveIndex, PokemonType, State};

struct Mon(PokemonName, (PokemonType, PokemonType), [i16; 6], [Choices; 4]);

fn pokemon(Mon(id, types, [hp, atk, def, spa, spd, spe], moves): Mon) -> Pokemon {
    let mut p = Pokemon {
        id,
        types,
        base_types: types,
        hp,
        maxhp: hp,
        attack: atk,
        defense: def,
        special_attack: spa,
        special_defense: spd,
        speed: spe,
        tera_type: types.0,
        ..Pokemon::default()
    };
    let slots = [PokemonMoveIndex::M0, PokemonMoveIndex::M1, PokemonMoveIndex::M2, PokemonMoveIndex::M3];
    for (slot, m) in slots.iter().zip(moves) {
        p.replace_move(*slot, m);
    }
    p
}

fn absent() -> Pokemon {
    Pokemon { hp: 0, ..Pokemon::default() }
}

/// Garchomp, Corviknight and Pikachu against Corviknight, Pikachu and Garchomp.
pub fn example_state() -> State {
    use PokemonType as T;
    let garchomp = || {
        Mon(
            PokemonName::GARCHOMP,
            (T::DRAGON, T::GROUND),
            [357, 296, 226, 196, 206, 249],
            [Choices::EARTHQUAKE, Choices::DRAGONCLAW, Choices::SWORDSDANCE, Choices::STONEEDGE],
        )
    };
    let corviknight = || {
        Mon(
            PokemonName::CORVIKNIGHT,
            (T::FLYING, T::STEEL),
            [361, 240, 246, 146, 206, 170],
            [Choices::BRAVEBIRD, Choices::ROOST, Choices::BODYPRESS, Choices::UTURN],
        )
    };
    let pikachu = || {
        Mon(
            PokemonName::PIKACHU,
            (T::ELECTRIC, T::TYPELESS),
            [241, 196, 136, 176, 156, 256],
            [Choices::THUNDERBOLT, Choices::VOLTTACKLE, Choices::IRONTAIL, Choices::QUICKATTACK],
        )
    };
    let mut state = State::default();
    let teams = [[garchomp(), corviknight(), pikachu()], [corviknight(), pikachu(), garchomp()]];
    for (side, team) in [&mut state.side_one, &mut state.side_two].into_iter().zip(teams) {
        let mut mons = team.into_iter().map(pokemon).chain(std::iter::repeat_with(absent));
        for slot in side.pokemon.pkmn.iter_mut() {
            *slot = mons.next().unwrap();
        }
    }
    state
}
