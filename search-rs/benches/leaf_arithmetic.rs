//! The value network's arithmetic at a leaf, three ways, at batch one on this CPU: the crate's
//! own loop (valuenet::layer, what the search runs), nalgebra's matrix-vector product (both
//! storage orders), and matrixmultiply's sgemm with one column. Every layer of an exported
//! network (`metapvp fit-value` writes value.json) is timed as often as one leaf calls it, for
//! a leaf that computes two Pokémon's codes (most of a search's leaves: the rest are cached) and
//! for one that computes all twelve. Each way's outputs are checked against the crate's first.
//!
//!     cargo bench --no-default-features --bench leaf_arithmetic -- runs/value/r1-small/value.json

use metapvp_search::valuenet::layer;
use nalgebra::{DMatrix, DVector};
use serde_json::Value;
use std::hint::black_box;
use std::time::Instant;

/// One linear layer of the file: its name, W row-major [outputs][inputs], b.
struct Layer {
    name: String,
    outputs: usize,
    inputs: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// How often a leaf calls a layer, computing `codes` Pokémon's codes (4 moves a Pokémon; the two
/// sides' pooling and the head both ways round).
fn calls(name: &str, codes: usize) -> Result<usize, String> {
    match name {
        "move.0" => Ok(4 * codes),
        "pokemon.0" | "pokemon.2" => Ok(codes),
        "side.0" | "head.0" | "head.2" => Ok(2),
        other => Err(format!("layer {other}: not one of the network's (an older or newer export?)")),
    }
}

fn layers(path: &str) -> Result<Vec<Layer>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let file: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: not JSON: {e}"))?;
    let tensors = file["tensors"].as_object().ok_or(format!("{path}: no tensors (not a value.json)"))?;
    let numbers = |name: &str| -> Result<(Vec<usize>, Vec<f32>), String> {
        let t = &tensors[name];
        let shape = t["shape"].as_array().ok_or(format!("{path}: tensor {name} has no shape"))?;
        let data = t["data"].as_array().ok_or(format!("{path}: tensor {name} has no data"))?;
        Ok((
            shape.iter().map(|d| d.as_u64().unwrap_or(0) as usize).collect(),
            data.iter().map(|v| v.as_f64().unwrap_or(f64::NAN) as f32).collect(),
        ))
    };
    let mut out = Vec::new();
    for name in tensors.keys().filter_map(|k| k.strip_suffix(".bias")) {
        let (shape, weight) = numbers(&format!("{name}.weight"))?;
        let (_, bias) = numbers(&format!("{name}.bias"))?;
        if shape.len() != 2 || shape[0] != bias.len() || shape[0] * shape[1] != weight.len() {
            return Err(format!("{path}: layer {name}: weight {shape:?} does not fit its {} biases", bias.len()));
        }
        calls(name, 0)?; // a layer the leaf count does not know is an error, not a row timed as never called
        out.push(Layer { name: name.to_string(), outputs: shape[0], inputs: shape[1], weight, bias });
    }
    Ok(out)
}

/// A way of computing relu?(W x + b) for one layer, set up once, called at every leaf.
trait Way {
    fn apply(&mut self, relu: bool) -> &[f32];
}

struct Own<'a> {
    layer: &'a Layer,
    x: Vec<f32>,
    out: Vec<f32>,
}
impl Way for Own<'_> {
    fn apply(&mut self, relu: bool) -> &[f32] {
        layer(&self.layer.weight, &self.layer.bias, black_box(&self.x), &mut self.out, relu);
        &self.out
    }
}

/// nalgebra: W as its own (column-major) matrix and `gemv`, or W's rows as columns and `gemv_tr`.
struct Nalgebra {
    w: DMatrix<f32>,
    transposed: bool,
    b: DVector<f32>,
    x: DVector<f32>,
    out: DVector<f32>,
}
impl Way for Nalgebra {
    fn apply(&mut self, relu: bool) -> &[f32] {
        self.out.copy_from(&self.b);
        if self.transposed {
            self.out.gemv_tr(1.0, &self.w, black_box(&self.x), 1.0);
        } else {
            self.out.gemv(1.0, &self.w, black_box(&self.x), 1.0);
        }
        if relu {
            self.out.apply(|v| *v = v.max(0.0));
        }
        self.out.as_slice()
    }
}

/// matrixmultiply: sgemm of W (outputs × inputs) by x as one column, onto b.
struct Sgemm<'a> {
    layer: &'a Layer,
    x: Vec<f32>,
    out: Vec<f32>,
}
impl Way for Sgemm<'_> {
    fn apply(&mut self, relu: bool) -> &[f32] {
        let (m, k) = (self.layer.outputs, self.layer.inputs);
        self.out.copy_from_slice(&self.layer.bias);
        let x = black_box(&self.x);
        // SAFETY: the pointers and strides describe W (m × k, row-major), x (k × 1) and out (m × 1),
        // each of exactly that many numbers.
        unsafe {
            matrixmultiply::sgemm(
                m,
                k,
                1,
                1.0,
                self.layer.weight.as_ptr(),
                k as isize,
                1,
                x.as_ptr(),
                1,
                1,
                1.0,
                self.out.as_mut_ptr(),
                1,
                1,
            );
        }
        if relu {
            self.out.iter_mut().for_each(|v| *v = v.max(0.0));
        }
        &self.out
    }
}

const WAYS: [&str; 4] = ["the crate's loop", "nalgebra gemv", "nalgebra gemv_tr", "matrixmultiply sgemm"];

fn ways<'a>(layer: &'a Layer, x: &[f32]) -> Vec<Box<dyn Way + 'a>> {
    let rows = DMatrix::from_row_slice(layer.outputs, layer.inputs, &layer.weight);
    let b = DVector::from_column_slice(&layer.bias);
    let nalgebra = |w: DMatrix<f32>, transposed| {
        Box::new(Nalgebra { w, transposed, b: b.clone(), x: DVector::from_column_slice(x), out: b.clone() })
            as Box<dyn Way>
    };
    vec![
        Box::new(Own { layer, x: x.to_vec(), out: vec![0.0; layer.outputs] }),
        nalgebra(rows.clone(), false),
        nalgebra(rows.transpose(), true),
        Box::new(Sgemm { layer, x: x.to_vec(), out: vec![0.0; layer.outputs] }),
    ]
}

/// Nanoseconds a leaf spends in the layers the given way (calls[i] of layer i), over `leaves` leaves.
fn leaf_ns(ways: &mut [Vec<Box<dyn Way + '_>>], way: usize, calls: &[usize], leaves: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..leaves {
        for (layer, &n) in ways.iter_mut().zip(calls) {
            for _ in 0..n {
                black_box(layer[way].apply(true));
            }
        }
    }
    start.elapsed().as_nanos() as f64 / leaves as f64
}

fn main() {
    let path = std::env::args().skip(1).find(|a| !a.starts_with("--")).unwrap_or_else(|| {
        eprintln!("usage: cargo bench --no-default-features --bench leaf_arithmetic -- PATH/value.json");
        std::process::exit(2)
    });
    let layers = layers(&path).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut rng = 0x2545_f491_4f6c_dd1du64; // inputs as after a ReLU, from a fixed xorshift
    let mut all: Vec<_> = layers
        .iter()
        .map(|layer| {
            let x: Vec<f32> = (0..layer.inputs)
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    (rng >> 40) as f32 / (1u64 << 24) as f32
                })
                .collect();
            ways(layer, &x)
        })
        .collect();
    for (layer, ways) in layers.iter().zip(all.iter_mut()) {
        let own = ways[0].apply(true).to_vec();
        for (k, way) in ways.iter_mut().enumerate().skip(1) {
            let worst = own.iter().zip(way.apply(true)).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
            if worst > 1e-4 * (1.0 + own.iter().fold(0.0f32, |m, v| m.max(v.abs()))) {
                eprintln!("{}: {} differs from the crate's loop by {worst}", layer.name, WAYS[k]);
                std::process::exit(1);
            }
        }
    }
    println!(
        "{path}: layers {}",
        layers.iter().map(|l| format!("{} {}x{}", l.name, l.outputs, l.inputs)).collect::<Vec<_>>().join(", ")
    );
    println!("outputs of every way equal to the crate's loop (to 1e-4)\n");
    println!("{:<22} {:>14} {:>10} {:>15} {:>10}", "way", "2 codes: ns", "ratio", "12 codes: ns", "ratio");
    let per = |codes: usize| -> Vec<usize> { layers.iter().map(|l| calls(&l.name, codes).unwrap()).collect() };
    let (warm, cold) = (per(2), per(12));
    let rounds = 15;
    // Rounds of each way interleaved, so that a change in the machine's speed falls on all alike.
    let mut ns = vec![[Vec::new(), Vec::new()]; WAYS.len()];
    for _ in 0..rounds {
        for (way, times) in ns.iter_mut().enumerate() {
            times[0].push(leaf_ns(&mut all, way, &warm, 20_000));
            times[1].push(leaf_ns(&mut all, way, &cold, 5_000));
        }
    }
    let median = |v: &Vec<f64>| {
        let mut v = v.clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let own = [median(&ns[0][0]), median(&ns[0][1])];
    for (name, times) in WAYS.iter().zip(&ns) {
        let (w, c) = (median(&times[0]), median(&times[1]));
        println!("{name:<22} {w:>14.0} {:>10.2} {c:>15.0} {:>10.2}", w / own[0], c / own[1]);
    }
    println!(
        "\nns a leaf in the layers' arithmetic (medians of {rounds} interleaved rounds); ratio: to the crate's loop"
    );
}
