//! metapvp's decision-time search on poke-engine (duct.rs), and what Python calls of it
//! (`metapvp_search`, built by scripts/install.sh with maturin). A state crosses as
//! poke-engine's own serialised form; a string the engine cannot read is an error that names
//! it, never a crash of the process.

pub mod chance;
pub mod corrections;
pub mod duct;
pub mod example;
pub mod features;
pub mod matrix;
pub mod outcomes;
pub mod playout;
pub mod selfplay;

#[cfg(feature = "python")]
mod python {
    use crate::duct::{search as run_search, SearchResult, Settings, SideResult, ENGINE_TERA_CHARGE};
    use crate::features::{features as state_features, LeafModel, NAMES};
    use poke_engine::mcts::perform_mcts;
    use poke_engine::state::State;
    use pyo3::exceptions::PyValueError;
    use pyo3::prelude::*;
    use pyo3::types::PyDict;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::time::Duration;

    /// `f`'s result, or what it panicked with: poke-engine panics on what it cannot handle (an
    /// unreadable state, a counter out of its range), which must not take the process with it.
    fn unpanicked<T>(f: impl FnOnce() -> T) -> Result<T, String> {
        catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
            e.downcast_ref::<String>().cloned()
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

    /// poke-engine's State from its serialised form; poke-engine panics on a string it cannot
    /// read, which becomes a ValueError here (the panic's own message silenced: it is the error's).
    fn state_of(text: &str) -> PyResult<State> {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let parsed = unpanicked(|| State::deserialize(text));
        std::panic::set_hook(hook);
        parsed.map_err(|why| {
            let shown: String = text.chars().take(80).collect();
            PyValueError::new_err(format!("not a poke-engine state ({why}): {shown:?}"))
        })
    }

    fn side_dict<'py>(py: Python<'py>, side: &SideResult, names: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("options", names)?;
        d.set_item("visits", side.visits.clone())?;
        d.set_item("values", side.values.iter().map(|v| if v.is_nan() { None } else { Some(*v) }).collect::<Vec<_>>())?;
        d.set_item("equilibrium", side.equilibrium.clone())?;
        let _ = &side.options;
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
    /// ucb=sqrt(2), deep_prior=False, tera=75, playout=0, stages_by_hp=False, leaf_relative=False,
    /// leaf_hidden=None, equilibrium=False) -> {s1,
    /// s2: {options, visits, values, equilibrium}, iterations, root_eval}: the search of duct.rs on `state`,
    /// run with the GIL released. A budget of iterations (with a seed: the same result every
    /// time) or of milliseconds; `priors`: side one's prior over its options, in their order;
    /// `leaf`: the learned leaf value's weights, one per feature_names() (None: the engine's
    /// evaluation); `ucb`: UCB1's exploration constant, wherever no prior guides; `deep_prior`:
    /// the prior also guides side one below the root, wherever its options are the root's;
    /// `tera`: the engine's evaluation's charge for having terastallized (its own: 75); `playout`:
    /// joint choices of both sides' hardest hits played past each new node before it is valued;
    /// `stages_by_hp`: each active's stat stages worth in proportion to its HP left;
    /// `leaf_relative`: the learned value of a leaf is its log-odds' lead over the root's;
    /// `leaf_hidden`: the learned value's hidden layer, (rows, out) as features.rs's
    /// LeafModel::with_hidden takes them; `equilibrium`: each side's strategy at the equilibrium
    /// of the root's game, per option (else an empty list).
    #[pyfunction]
    #[pyo3(signature = (state, iterations=0, ms=0, seed=0, exploration=1.5, priors=None, leaf=None,
                        ucb=std::f32::consts::SQRT_2, deep_prior=false, tera=ENGINE_TERA_CHARGE, playout=0,
                        stages_by_hp=false, leaf_relative=false, leaf_hidden=None, equilibrium=false))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(py: Python<'py>, state: &str, iterations: u32, ms: u64, seed: u64, exploration: f32,
                   priors: Option<Vec<f32>>, leaf: Option<Vec<f32>>, ucb: f32, deep_prior: bool, tera: f32, playout: u32,
                   stages_by_hp: bool, leaf_relative: bool, leaf_hidden: Option<Hidden>, equilibrium: bool)
                   -> PyResult<Bound<'py, PyDict>> {
        if iterations == 0 && ms == 0 {
            return Err(PyValueError::new_err("search needs a budget: iterations or ms"));
        }
        #[allow(clippy::neg_cmp_op_on_partial_ord)] // negated, so that NaN is refused too
        if !(exploration > 0.0) || !(ucb > 0.0) {
            return Err(PyValueError::new_err(format!("exploration and ucb must be above 0, not {exploration} and {ucb}")));
        }
        if !tera.is_finite() {
            return Err(PyValueError::new_err(format!("tera must be a number of the evaluation's points, not {tera}")));
        }
        let leaf = leaf.map(|w| leaf_model(w, leaf_relative, leaf_hidden)).transpose()?;
        let mut s = state_of(state)?;
        let settings = Settings { iterations, ms, exploration, ucb, seed, leaf, deep_prior, tera_charge: tera, playout,
                                  stages_by_hp, equilibrium };
        // a panic of the engine deep in the tree is this decision's error, named with the state
        let r = py
            .allow_threads(|| unpanicked(|| run_search(&mut s, &settings, priors.as_deref())))
            .map_err(|why| failed("the search", state, why))?
            .map_err(PyValueError::new_err)?;
        result_dict(py, &s, &r)
    }

    /// self_play(state, iterations, seed=0, leaf=None, leaf_relative=False, leaf_hidden=None,
    /// max_turns=200, foe=False, foe_iterations=None, foe_leaf=None, foe_leaf_relative=False,
    /// foe_leaf_hidden=None) -> {states, winner}: the game search() plays on from `state` for both
    /// sides (selfplay.rs: no prior, each side its most visited option, `iterations` a decision),
    /// with the GIL released: the state at each decision, and 1.0 where side one won, 0.0 where
    /// side two did, None where `max_turns` decisions ran out first. With `foe`, side two chooses
    /// by its own search: `foe_iterations` (else `iterations`) and the `foe_leaf` model (None: the
    /// engine's evaluation), a match of two settings.
    #[pyfunction]
    #[pyo3(signature = (state, iterations, seed=0, leaf=None, leaf_relative=false, leaf_hidden=None, max_turns=200,
                        foe=false, foe_iterations=None, foe_leaf=None, foe_leaf_relative=false, foe_leaf_hidden=None))]
    #[allow(clippy::too_many_arguments)]
    fn self_play<'py>(py: Python<'py>, state: &str, iterations: u32, seed: u64, leaf: Option<Vec<f32>>,
                      leaf_relative: bool, leaf_hidden: Option<Hidden>, max_turns: u32, foe: bool,
                      foe_iterations: Option<u32>, foe_leaf: Option<Vec<f32>>, foe_leaf_relative: bool,
                      foe_leaf_hidden: Option<Hidden>) -> PyResult<Bound<'py, PyDict>> {
        if iterations == 0 || foe_iterations == Some(0) {
            return Err(PyValueError::new_err("self_play needs iterations above 0"));
        }
        let player = |iterations: u32, leaf: Option<Vec<f32>>, relative: bool, hidden: Option<Hidden>| -> PyResult<Settings> {
            Ok(Settings { leaf: leaf.map(|w| leaf_model(w, relative, hidden)).transpose()?,
                          ..Settings::budget(iterations, seed) })
        };
        let settings = player(iterations, leaf, leaf_relative, leaf_hidden)?;
        let foe = if foe {
            Some(player(foe_iterations.unwrap_or(iterations), foe_leaf, foe_leaf_relative, foe_leaf_hidden)?)
        } else {
            None
        };
        let mut s = state_of(state)?;
        let game = py
            .allow_threads(|| unpanicked(|| crate::selfplay::play(&mut s, &settings, foe.as_ref(), max_turns)))
            .map_err(|why| failed("a game played on", state, why))?
            .map_err(PyValueError::new_err)?;
        let d = PyDict::new(py);
        d.set_item("states", game.states)?;
        d.set_item("winner", game.winner)?;
        Ok(d)
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
    /// nothing, silently): every word of the string that does not come back when the state it
    /// reads is written out again. Empty where the engine knows every name.
    #[pyfunction]
    fn unknown_names(state: &str) -> PyResult<Vec<String>> {
        let words = |text: &str| -> Vec<String> {
            text.split(|c: char| "/=,;:".contains(c))
                .filter(|w| w.chars().any(|c| c.is_ascii_alphabetic()))
                .map(|w| w.to_uppercase())
                .collect()
        };
        let mut back: std::collections::HashMap<String, i32> = std::collections::HashMap::new();
        for w in words(&state_of(state)?.serialize()) {
            *back.entry(w).or_insert(0) += 1;
        }
        let mut unknown = Vec::new();
        for w in words(state) {
            match back.get_mut(&w) {
                Some(n) if *n > 0 => *n -= 1,
                _ => unknown.push(w),
            }
        }
        Ok(unknown)
    }

    /// outcomes(state, s1, s2) -> [{chance (percent), sides: [{active, hp, status, boosts}, side
    /// two's]}]: every outcome the engine gives side one choosing `s1` and side two `s2` (options
    /// as the search names them; "none" for a side with nothing to choose), for the bridge's truth
    /// test (outcomes.rs). A ValueError names an unreadable state or an option it does not have.
    #[pyfunction]
    fn outcomes<'py>(py: Python<'py>, state: &str, s1: &str, s2: &str) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let mut s = state_of(state)?;
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let found = unpanicked(|| crate::outcomes::outcomes(&mut s, s1, s2));
        std::panic::set_hook(hook);
        let found = found
            .map_err(|why| PyValueError::new_err(format!("the engine failed on {s1:?} against {s2:?}: {why}")))?
            .map_err(PyValueError::new_err)?;
        found.iter().map(|o| {
            let d = PyDict::new(py);
            d.set_item("chance", o.chance)?;
            let sides = o.sides.iter().map(|v| {
                let side = PyDict::new(py);
                side.set_item("active", &v.active)?;
                side.set_item("species", v.species.clone())?;
                side.set_item("hp", v.hp.clone())?;
                side.set_item("status", v.status.clone())?;
                side.set_item("boosts", v.boosts.to_vec())?;
                Ok(side)
            }).collect::<PyResult<Vec<_>>>()?;
            d.set_item("sides", sides)?;
            Ok(d)
        }).collect()
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
        m.add_function(wrap_pyfunction!(self_play, m)?)?;
        Ok(())
    }
}
