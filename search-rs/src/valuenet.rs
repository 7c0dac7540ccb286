//! The value network (metapvp/value/network.py) evaluated here, at the search's leaves: its
//! weights read from the value.json `metapvp fit-value` writes (metapvp/value/export.py: the
//! encoding's layout, the network's sizes, each tensor's shape and numbers), the forward pass the same arithmetic as
//! PyTorch's on encoding.rs's reading of the state. Embeddings are rows looked up, every layer a
//! matrix-vector product and ReLU: at batch one the plain loop over contiguous rows below is level
//! with nalgebra's and six times faster than matrixmultiply's (benches/leaf_arithmetic.rs; the
//! figures in docs/lab/engine-value.md), so the crate takes no dependency for it.

use crate::encoding::{self, FLOATS, INTS, POKEMON_FLOATS, POKEMON_INTS, POKEMON_OWN_FLOATS, SIDE_FLOATS, SLOTS};
use poke_engine::state::State;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

const MOVES: usize = 4;

/// An embedding: `rows` rows of `dim` numbers.
#[derive(Clone, Debug)]
struct Table {
    dim: usize,
    data: Vec<f32>,
}

impl Table {
    fn row(&self, id: i32) -> &[f32] {
        let at = id.max(0) as usize * self.dim;
        &self.data[at..at + self.dim]
    }
}

/// A linear layer: y = W x + b, W row-major [outputs][inputs].
#[derive(Clone, Debug)]
struct Linear {
    inputs: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Linear {
    fn outputs(&self) -> usize {
        self.bias.len()
    }

    /// W x + b into `out` (ReLU'd where `relu`).
    fn apply_into(&self, x: &[f32], out: &mut [f32], relu: bool) {
        debug_assert_eq!((x.len(), out.len()), (self.inputs, self.outputs()));
        layer(&self.weight, &self.bias, x, out, relu);
    }

    fn apply(&self, x: &[f32], relu: bool) -> Vec<f32> {
        let mut out = vec![0.0; self.outputs()];
        self.apply_into(x, &mut out, relu);
        out
    }
}

/// One layer at batch one: `out` = W x + `bias` (ReLU'd where `relu`), W row-major with a row
/// per output. Public for the arithmetic's benchmark (benches/leaf_arithmetic.rs).
pub fn layer(weight: &[f32], bias: &[f32], x: &[f32], out: &mut [f32], relu: bool) {
    for ((y, row), b) in out.iter_mut().zip(weight.chunks_exact(x.len())).zip(bias) {
        let v = b + dot(row, x);
        *y = if relu { v.max(0.0) } else { v };
    }
}

/// a · b over eight lanes at once (the compiler makes them one vector register's work).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// A Pokémon as the network reads it: its ids and its numbers' bits.
type PokemonKey = (usize, [i32; POKEMON_INTS], [u32; POKEMON_FLOATS]);

thread_local! {
    /// Each Pokémon's code as this thread last computed it (by network and the Pokémon's
    /// reading): in a search most leaves change one or two Pokémon of the twelve.
    static CODES: RefCell<HashMap<PokemonKey, Rc<[f32]>>> = RefCell::new(HashMap::new());
}
/// Codes kept a thread before they are forgotten at once (a search's positions hold far fewer).
const CODES_KEPT: usize = 1 << 18;
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

#[derive(Clone, Debug)]
pub struct ValueNet {
    species: Table,
    items: Table,
    abilities: Table,
    types: Table,
    statuses: Table,
    moves: Table,
    move_layer: Linear,
    pokemon: [Linear; 2],
    side: Linear,
    head: [Linear; 2],
    /// The search values a leaf by its lead over the root's log-odds, not by its own.
    pub relative: bool,
    /// This network among those read (its codes cached apart from another's).
    id: usize,
}

impl ValueNet {
    /// The network of an exported file's text; an error names what is missing or of the wrong
    /// shape, and a file written for another encoding.
    pub fn from_json(text: &str) -> Result<ValueNet, String> {
        let file: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let layout = &file["layout"];
        for (name, size) in encoding::layout() {
            if layout[name].as_u64() != Some(size as u64) {
                return Err(format!(
                    "written for another encoding: its {name} is {}, this crate's {size} (export the network again)",
                    layout[name]
                ));
            }
        }
        let tensors = &file["tensors"];
        let tensor = |name: &str, rows: Option<usize>| -> Result<(Vec<usize>, Vec<f32>), String> {
            let t = &tensors[name];
            let shape: Vec<usize> = t["shape"]
                .as_array()
                .ok_or(format!("tensor {name} missing"))?
                .iter()
                .map(|d| d.as_u64().map(|d| d as usize).ok_or(format!("tensor {name}: a dimension is not a count")))
                .collect::<Result<_, _>>()?;
            let data: Vec<f32> = t["data"]
                .as_array()
                .ok_or(format!("tensor {name}: no data"))?
                .iter()
                .map(|v| v.as_f64().map(|v| v as f32).ok_or(format!("tensor {name}: a value is not a number")))
                .collect::<Result<_, _>>()?;
            if shape.iter().product::<usize>() != data.len() {
                return Err(format!(
                    "tensor {name}: shape {shape:?} holds {} numbers, not {}",
                    shape.iter().product::<usize>(),
                    data.len()
                ));
            }
            if let Some(r) = rows {
                if shape.first() != Some(&r) {
                    return Err(format!("tensor {name}: {shape:?}, where the encoding has {r} rows"));
                }
            }
            Ok((shape, data))
        };
        let table = |name: &str, rows: usize| -> Result<Table, String> {
            let (shape, data) = tensor(&format!("{name}.weight"), Some(rows))?;
            Ok(Table { dim: *shape.get(1).ok_or(format!("tensor {name}.weight is not a table"))?, data })
        };
        let linear = |name: &str, inputs: usize| -> Result<Linear, String> {
            let (shape, weight) = tensor(&format!("{name}.weight"), None)?;
            if shape.len() != 2 || shape[1] != inputs {
                return Err(format!("tensor {name}.weight: {shape:?}, where {inputs} inputs come in"));
            }
            let (_, bias) = tensor(&format!("{name}.bias"), Some(shape[0]))?;
            Ok(Linear { inputs, weight, bias })
        };
        let species = table("species", encoding::SPECIES)?;
        let items = table("items", encoding::ITEMS)?;
        let abilities = table("abilities", encoding::ABILITIES)?;
        let types = table("types", encoding::TYPES)?;
        let statuses = table("statuses", encoding::STATUSES)?;
        let moves = table("moves", encoding::MOVES)?;
        let move_layer = linear("move.0", moves.dim + 2)?;
        let pokemon_in = species.dim
            + items.dim
            + abilities.dim
            + 3 * types.dim
            + statuses.dim
            + move_layer.bias.len()
            + POKEMON_OWN_FLOATS;
        let first = linear("pokemon.0", pokemon_in)?;
        let width = first.bias.len();
        let second = linear("pokemon.2", width)?;
        let side = linear("side.0", 2 * width + SIDE_FLOATS)?;
        let head_first = linear("head.0", 2 * side.bias.len() + encoding::FIELD_FLOATS)?;
        let head_out = linear("head.2", head_first.bias.len())?;
        if head_out.bias.len() != 1 {
            return Err(format!("tensor head.2: {} outputs, not one", head_out.bias.len()));
        }
        Ok(ValueNet {
            species,
            items,
            abilities,
            types,
            statuses,
            moves,
            move_layer,
            pokemon: [first, second],
            side,
            head: [head_first, head_out],
            relative: file["relative"].as_bool().unwrap_or(false),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// Side one's log-odds of winning from `state`.
    pub fn logit(&self, state: &State) -> f32 {
        let (mut ints, mut floats) = ([0i32; INTS], [0f32; FLOATS]);
        encoding::encode(state, &mut ints, &mut floats);
        self.logit_of(&ints, &floats)
    }

    /// The log-odds of an encoded state (encoding.rs's INTS and FLOATS).
    pub fn logit_of(&self, ints: &[i32], floats: &[f32]) -> f32 {
        let pokemon_floats = SLOTS * POKEMON_FLOATS;
        let width = self.pokemon[1].outputs();
        let mut sides = [vec![0.0; self.side.outputs()], vec![0.0; self.side.outputs()]];
        let mut x = vec![0.0; self.side.inputs];
        for (k, out) in sides.iter_mut().enumerate() {
            x.fill(0.0);
            for slot in 0..SLOTS {
                let at = k * SLOTS + slot;
                let numbers = &floats[at * POKEMON_FLOATS..(at + 1) * POKEMON_FLOATS];
                let alive = numbers[0];
                if slot > 0 && alive == 0.0 {
                    continue; // a fainted Pokémon on the bench counts for nothing
                }
                let code = self.pokemon_code(&ints[at * POKEMON_INTS..(at + 1) * POKEMON_INTS], numbers);
                let (into, weight) = if slot == 0 { (&mut x[..width], 1.0) } else { (&mut x[width..2 * width], alive) };
                for (a, c) in into.iter_mut().zip(code.iter()) {
                    *a += c * weight;
                }
            }
            let at = 2 * pokemon_floats + k * SIDE_FLOATS;
            x[2 * width..].copy_from_slice(&floats[at..at + SIDE_FLOATS]);
            self.side.apply_into(&x, out, true);
        }
        let field = &floats[2 * pokemon_floats + 2 * SIDE_FLOATS..];
        let mut input = Vec::with_capacity(self.head[0].inputs);
        let mut hidden = vec![0.0; self.head[0].outputs()];
        let mut head = |a: &[f32], b: &[f32]| {
            input.clear();
            input.extend_from_slice(a);
            input.extend_from_slice(b);
            input.extend_from_slice(field);
            self.head[0].apply_into(&input, &mut hidden, true);
            self.head[1].bias[0] + dot(&self.head[1].weight, &hidden)
        };
        head(&sides[0], &sides[1]) - head(&sides[1], &sides[0])
    }

    /// A Pokémon's code, from this thread's cache where it was computed before.
    fn pokemon_code(&self, ids: &[i32], numbers: &[f32]) -> Rc<[f32]> {
        let mut key: PokemonKey = (self.id, [0; POKEMON_INTS], [0; POKEMON_FLOATS]);
        key.1.copy_from_slice(ids);
        for (b, v) in key.2.iter_mut().zip(numbers) {
            *b = v.to_bits();
        }
        if let Some(code) = CODES.with_borrow(|codes| codes.get(&key).cloned()) {
            return code;
        }
        let code: Rc<[f32]> = self.compute_pokemon_code(ids, numbers).into();
        CODES.with_borrow_mut(|codes| {
            if codes.len() >= CODES_KEPT {
                codes.clear();
            }
            codes.insert(key, code.clone());
        });
        code
    }

    fn compute_pokemon_code(&self, ids: &[i32], numbers: &[f32]) -> Vec<f32> {
        let mut moves = vec![0.0; self.move_layer.outputs()];
        let (mut x, mut y) = (vec![0.0; self.move_layer.inputs], vec![0.0; self.move_layer.outputs()]);
        for k in 0..MOVES {
            let row = self.moves.row(ids[7 + k]);
            x[..row.len()].copy_from_slice(row);
            x[row.len()] = numbers[POKEMON_OWN_FLOATS + k];
            x[row.len() + 1] = numbers[POKEMON_OWN_FLOATS + MOVES + k];
            self.move_layer.apply_into(&x, &mut y, true);
            for (m, v) in moves.iter_mut().zip(&y) {
                *m += v;
            }
        }
        let mut x = Vec::with_capacity(self.pokemon[0].inputs);
        x.extend_from_slice(self.species.row(ids[0]));
        x.extend_from_slice(self.items.row(ids[1]));
        x.extend_from_slice(self.abilities.row(ids[2]));
        for t in &ids[3..6] {
            x.extend_from_slice(self.types.row(*t));
        }
        x.extend_from_slice(self.statuses.row(ids[6]));
        x.extend(moves);
        x.extend_from_slice(&numbers[..POKEMON_OWN_FLOATS]);
        self.pokemon[1].apply(&self.pokemon[0].apply(&x, true), true)
    }
}
