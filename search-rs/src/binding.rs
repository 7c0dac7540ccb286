//! What Python calls of the crate (`metapvp_search`, built by scripts/install.sh with maturin):
//! each function reads poke-engine's serialised state, calls the algorithm, and returns plain
//! Python values. A string the engine cannot read, or a panic of the engine deep in a search, is
//! a ValueError that names it, never a crash of the process; the algorithms know nothing of Python.

use crate::duct::{search as run_search, SearchResult, Settings, SideResult};
use crate::features::{features as state_features, LeafModel, NAMES};
use crate::valuenet::ValueNet;
use poke_engine::mcts::perform_mcts;
use poke_engine::state::State;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use std::time::SystemTime;

/// `f`'s result, or what it panicked with: poke-engine panics on what it cannot handle (an
/// unreadable state, a counter out of its range), which must not take the process with it.
fn unpanicked<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".to_string())
    })
}

/// A panic of the engine deep in a search or a game (`why`) as the error of the call, named
/// with `what` it was doing and the state it started from.
fn failed(what: &str, state: &str, why: String) -> PyErr {
    let shown: String = state.chars().take(80).collect();
    PyValueError::new_err(format!("the engine failed in {what} from {shown:?} ({why})"))
}

/// unpanicked() with the panic's own message silenced (it becomes the error's): for the calls
/// where a panic is an answer about the input, not a fault.
fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = unpanicked(f);
    std::panic::set_hook(hook);
    out
}

/// poke-engine's State from its serialised form; poke-engine panics on a string it cannot
/// read, which becomes a ValueError here.
fn state_of(text: &str) -> PyResult<State> {
    quietly(|| State::deserialize(text)).map_err(|why| {
        let shown: String = text.chars().take(80).collect();
        PyValueError::new_err(format!("not a poke-engine state ({why}): {shown:?}"))
    })
}

fn side_dict<'py>(py: Python<'py>, side: &SideResult, names: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("options", names)?;
    d.set_item("visits", side.visits.clone())?;
    d.set_item("values", side.values.iter().map(|v| if v.is_nan() { None } else { Some(*v) }).collect::<Vec<_>>())?;
    Ok(d)
}

fn result_dict<'py>(py: Python<'py>, state: &State, r: &SearchResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let names = |k: usize| -> Vec<String> {
        let side = if k == 0 { &state.side_one } else { &state.side_two };
        r.sides[k].options.iter().map(|m| m.to_string(side)).collect()
    };
    d.set_item("s1", side_dict(py, &r.sides[0], names(0))?)?;
    d.set_item("s2", side_dict(py, &r.sides[1], names(1))?)?;
    d.set_item("iterations", r.iterations)?;
    d.set_item("root_eval", r.root_eval)?;
    Ok(d)
}

/// search(state, iterations=0, ms=0, seed=0, exploration=1.5, priors=None, leaf=None,
/// leaf_relative=False, leaf_hidden=None) -> {s1, s2: {options, visits, values}, iterations,
/// root_eval}: the search of duct.rs on `state`, run with the GIL released. A budget of
/// iterations (with a seed: the same result every time) or of milliseconds; `priors`: side
/// one's prior over its options, in their order; `leaf`: the learned leaf value's weights, one
/// per feature_names() (None: the engine's evaluation); `leaf_relative`: the learned value of
/// a leaf is its log-odds' lead over the root's; `leaf_hidden`: the learned value's hidden
/// layer, (rows, out) as features.rs's LeafModel::with_hidden takes them; `value`: the path of an
/// exported value network (valuenet.rs) valuing the leaves instead.
#[pyfunction]
#[pyo3(signature = (state, iterations=0, ms=0, seed=0, exploration=1.5, priors=None, leaf=None,
                    leaf_relative=false, leaf_hidden=None, value=None))]
#[allow(clippy::too_many_arguments)]
fn search<'py>(
    py: Python<'py>,
    state: &str,
    iterations: u32,
    ms: u64,
    seed: u64,
    exploration: f32,
    priors: Option<Vec<f32>>,
    leaf: Option<Vec<f32>>,
    leaf_relative: bool,
    leaf_hidden: Option<Hidden>,
    value: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let leaf = leaf.map(|w| leaf_model(w, leaf_relative, leaf_hidden)).transpose()?;
    let settings = Settings::new(iterations, ms, exploration, seed, leaf).map_err(PyValueError::new_err)?;
    let settings = with_value(settings, value)?;
    let mut s = state_of(state)?;
    // a panic of the engine deep in the tree is this decision's error, named with the state
    let r = py
        .allow_threads(|| unpanicked(|| run_search(&mut s, &settings, priors.as_deref())))
        .map_err(|why| failed("the search", state, why))?
        .map_err(PyValueError::new_err)?;
    result_dict(py, &s, &r)
}

#[cfg(feature = "studies")]
/// self_play(state, iterations, seed=0, leaf=None, leaf_relative=False, leaf_hidden=None,
/// max_turns=200, sample_turns=0, foe=False, foe_iterations=None, foe_leaf=None,
/// foe_leaf_relative=False, foe_leaf_hidden=None) -> {states, visits, winner}: the game search()
/// plays on from `state` for both sides (selfplay.rs: no prior, each side its most visited
/// option, drawn by its visits in the first `sample_turns` decisions, `iterations` a decision),
/// with the GIL released: the state at each decision, each decision's [s1, s2] as {options,
/// visits}, and 1.0 where side one won, 0.0 where side two did, None where `max_turns`
/// decisions ran out first. With `foe`, side two chooses by its own search: `foe_iterations`
/// (else `iterations`) and the `foe_leaf` model (None: the engine's evaluation), a match of two
/// settings. `value`, `foe_value`: an exported value network's path valuing that side's leaves.
#[pyfunction]
#[pyo3(signature = (state, iterations, seed=0, leaf=None, leaf_relative=false, leaf_hidden=None, max_turns=200,
                    sample_turns=0, foe=false, foe_iterations=None, foe_leaf=None, foe_leaf_relative=false,
                    foe_leaf_hidden=None, value=None, foe_value=None))]
#[allow(clippy::too_many_arguments)]
fn self_play<'py>(
    py: Python<'py>,
    state: &str,
    iterations: u32,
    seed: u64,
    leaf: Option<Vec<f32>>,
    leaf_relative: bool,
    leaf_hidden: Option<Hidden>,
    max_turns: u32,
    sample_turns: u32,
    foe: bool,
    foe_iterations: Option<u32>,
    foe_leaf: Option<Vec<f32>>,
    foe_leaf_relative: bool,
    foe_leaf_hidden: Option<Hidden>,
    value: Option<String>,
    foe_value: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    if iterations == 0 || foe_iterations == Some(0) {
        return Err(PyValueError::new_err("self_play needs iterations above 0"));
    }
    let player =
        |iterations: u32, leaf: Option<Vec<f32>>, relative: bool, hidden: Option<Hidden>| -> PyResult<Settings> {
            Ok(Settings {
                leaf: leaf.map(|w| leaf_model(w, relative, hidden)).transpose()?,
                ..Settings::budget(iterations, seed)
            })
        };
    let settings = with_value(player(iterations, leaf, leaf_relative, leaf_hidden)?, value)?;
    let foe = if foe {
        let f = player(foe_iterations.unwrap_or(iterations), foe_leaf, foe_leaf_relative, foe_leaf_hidden)?;
        Some(with_value(f, foe_value)?)
    } else {
        None
    };
    let mut s = state_of(state)?;
    let game = py
        .allow_threads(|| {
            let plan = crate::selfplay::Plan { settings: &settings, foe: foe.as_ref(), max_turns, sample_turns };
            unpanicked(|| crate::selfplay::play(&mut s, &plan))
        })
        .map_err(|why| failed("a game played on", state, why))?
        .map_err(PyValueError::new_err)?;
    let d = PyDict::new(py);
    d.set_item("states", game.states)?;
    let sides = |v: &[crate::selfplay::Visits; 2]| -> PyResult<Vec<Bound<'py, PyDict>>> {
        v.iter()
            .map(|side| {
                let s = PyDict::new(py);
                s.set_item("options", &side.options)?;
                s.set_item("visits", &side.visits)?;
                Ok(s)
            })
            .collect()
    };
    d.set_item("visits", game.visits.iter().map(sides).collect::<PyResult<Vec<_>>>()?)?;
    d.set_item("winner", game.winner)?;
    Ok(d)
}

/// encode(states) -> (ints, floats, layout): the value network's reading of each state
/// (encoding.rs), as little-endian int32 and float32 bytes, `len(states)` rows of INTS and of
/// FLOATS (numpy.frombuffer reads them), with the layout's sizes by name. A state the engine
/// cannot read is a ValueError naming it and its place.
#[pyfunction]
fn encode<'py>(
    py: Python<'py>,
    states: Vec<String>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyDict>)> {
    use crate::encoding::{FLOATS, INTS};
    let (mut ints, mut floats) = (vec![0i32; states.len() * INTS], vec![0f32; states.len() * FLOATS]);
    for (k, text) in states.iter().enumerate() {
        let state = state_of(text).map_err(|e| PyValueError::new_err(format!("state {k}: {}", e.value(py))))?;
        crate::encoding::encode(&state, &mut ints[k * INTS..(k + 1) * INTS], &mut floats[k * FLOATS..(k + 1) * FLOATS]);
    }
    let bytes = |v: Vec<u8>| PyBytes::new(py, &v);
    let layout = PyDict::new(py);
    for (name, size) in crate::encoding::layout() {
        layout.set_item(name, size)?;
    }
    Ok((
        bytes(ints.iter().flat_map(|x| x.to_le_bytes()).collect()),
        bytes(floats.iter().flat_map(|x| x.to_le_bytes()).collect()),
        layout,
    ))
}

/// The value networks read so far, by path (each file read once a process, again when it changes).
#[allow(clippy::type_complexity)]
static NETS: Mutex<Option<HashMap<String, (Option<SystemTime>, Arc<ValueNet>)>>> = Mutex::new(None);

/// The exported value network at `path`, read once and kept; a file that is missing or not a
/// network of this crate's encoding is a ValueError naming it.
fn value_net(path: &str) -> PyResult<Arc<ValueNet>> {
    let changed = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let mut nets = NETS.lock().unwrap_or_else(|e| e.into_inner());
    let nets = nets.get_or_insert_with(HashMap::new);
    if let Some((when, net)) = nets.get(path) {
        if *when == changed {
            return Ok(net.clone());
        }
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| PyValueError::new_err(format!("value network {path}: {e}")))?;
    let net =
        Arc::new(ValueNet::from_json(&text).map_err(|e| PyValueError::new_err(format!("value network {path}: {e}")))?);
    nets.insert(path.to_string(), (changed, net.clone()));
    Ok(net)
}

fn with_value(settings: Settings, value: Option<String>) -> PyResult<Settings> {
    match value {
        None => Ok(settings),
        Some(path) => settings.with_net(value_net(&path)?).map_err(PyValueError::new_err),
    }
}

/// value_logits(path, states) -> side one's log-odds of winning in each state by the exported
/// value network at `path` (valuenet.rs), the crate's forward pass: what the search's leaves are
/// valued by, to hold against PyTorch's.
#[pyfunction]
fn value_logits(py: Python<'_>, path: &str, states: Vec<String>) -> PyResult<Vec<f32>> {
    let net = value_net(path)?;
    states
        .iter()
        .enumerate()
        .map(|(k, text)| {
            let state = state_of(text).map_err(|e| PyValueError::new_err(format!("state {k}: {}", e.value(py))))?;
            Ok(net.logit(&state))
        })
        .collect()
}

/// features(state) -> the learned leaf value's features of `state` (features.rs), side one's
/// lead in each, in feature_names()' order.
#[pyfunction]
fn features(state: &str) -> PyResult<Vec<f32>> {
    Ok(state_features(&state_of(state)?))
}

/// leaf_logit(state, leaf, leaf_hidden=None) -> the learned value's log-odds of side one
/// winning from `state` (search()'s `leaf` and `leaf_hidden`).
#[pyfunction]
#[pyo3(signature = (state, leaf, leaf_hidden=None))]
fn leaf_logit(state: &str, leaf: Vec<f32>, leaf_hidden: Option<Hidden>) -> PyResult<f32> {
    Ok(leaf_model(leaf, false, leaf_hidden)?.logit(&state_of(state)?))
}

/// A hidden layer as Python gives it: (rows, out).
type Hidden = (Vec<Vec<f32>>, Vec<f32>);

fn leaf_model(weights: Vec<f32>, relative: bool, hidden: Option<Hidden>) -> PyResult<LeafModel> {
    let model = LeafModel::new(weights, relative).map_err(PyValueError::new_err)?;
    match hidden {
        Some((rows, out)) => model.with_hidden(rows, out).map_err(PyValueError::new_err),
        None => Ok(model),
    }
}

/// feature_names() -> the names of features()' entries, in order.
#[pyfunction]
fn feature_names() -> Vec<&'static str> {
    NAMES.to_vec()
}

/// options(state) -> (side one's options, side two's) at the decision `state` is at, as the
/// search names them.
#[pyfunction]
fn options(state: &str) -> PyResult<(Vec<String>, Vec<String>)> {
    let s = state_of(state)?;
    let (a, b) = s.root_get_all_options();
    Ok((a.iter().map(|m| m.to_string(&s.side_one)).collect(), b.iter().map(|m| m.to_string(&s.side_two)).collect()))
}

/// engine_mcts(state, iterations=0, ms=0) -> {s1_visits, s2_visits, iterations}: poke-engine's
/// own MCTS (UCB1, no prior) on the same state, the speed benchmark's baseline.
#[pyfunction]
#[pyo3(signature = (state, iterations=0, ms=0))]
fn engine_mcts<'py>(py: Python<'py>, state: &str, iterations: u32, ms: u64) -> PyResult<Bound<'py, PyDict>> {
    let mut s = state_of(state)?;
    let (a, b) = s.root_get_all_options();
    // its own search panics where ours would (a stat stage its instructions took past 6)
    let r = py
        .allow_threads(|| unpanicked(|| perform_mcts(&mut s, a, b, Duration::from_millis(ms), iterations)))
        .map_err(|why| failed("poke-engine's own search", state, why))?;
    let d = PyDict::new(py);
    d.set_item("s1_visits", r.s1.iter().map(|x| x.visits).collect::<Vec<_>>())?;
    d.set_item("s2_visits", r.s2.iter().map(|x| x.visits).collect::<Vec<_>>())?;
    d.set_item("iterations", r.iteration_count)?;
    Ok(d)
}

/// unknown_names(state) -> the names in `state` the engine does not know (it reads each as
/// nothing, silently: names.rs). Empty where the engine knows every name.
#[pyfunction]
fn unknown_names(state: &str) -> PyResult<Vec<String>> {
    Ok(crate::names::unknown_names(state, &state_of(state)?.serialize()))
}

/// outcomes(state, s1, s2) -> [{chance (percent), sides: [{active, hp, status, boosts}, side
/// two's]}]: every outcome the engine gives side one choosing `s1` and side two `s2` (options
/// as the search names them; "none" for a side with nothing to choose), for the bridge's truth
/// test (outcomes.rs). A ValueError names an unreadable state or an option it does not have.
#[pyfunction]
fn outcomes<'py>(py: Python<'py>, state: &str, s1: &str, s2: &str) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let mut s = state_of(state)?;
    let found = quietly(|| crate::outcomes::outcomes(&mut s, s1, s2))
        .map_err(|why| PyValueError::new_err(format!("the engine failed on {s1:?} against {s2:?}: {why}")))?
        .map_err(PyValueError::new_err)?;
    found
        .iter()
        .map(|o| {
            let d = PyDict::new(py);
            d.set_item("chance", o.chance)?;
            let sides = o
                .sides
                .iter()
                .map(|v| {
                    let side = PyDict::new(py);
                    side.set_item("active", &v.active)?;
                    side.set_item("species", v.species.clone())?;
                    side.set_item("hp", v.hp.clone())?;
                    side.set_item("status", v.status.clone())?;
                    side.set_item("boosts", v.boosts.to_vec())?;
                    Ok(side)
                })
                .collect::<PyResult<Vec<_>>>()?;
            d.set_item("sides", sides)?;
            Ok(d)
        })
        .collect()
}

/// example_state() -> a serialised state of two gen 9 teams (example.rs), for tests and
/// benchmarks until states are made from battles.
#[pyfunction]
fn example_state() -> String {
    crate::example::example_state().serialize()
}

#[pymodule]
fn metapvp_search(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(search, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(engine_mcts, m)?)?;
    m.add_function(wrap_pyfunction!(example_state, m)?)?;
    m.add_function(wrap_pyfunction!(unknown_names, m)?)?;
    m.add_function(wrap_pyfunction!(outcomes, m)?)?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(feature_names, m)?)?;
    m.add_function(wrap_pyfunction!(leaf_logit, m)?)?;
    #[cfg(feature = "studies")]
    m.add_function(wrap_pyfunction!(self_play, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(value_logits, m)?)?;
    Ok(())
}
