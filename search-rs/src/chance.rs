//! Chance as the engine gives it: a joint choice's outcomes, each with its percentage, one drawn
//! in proportion (the search's tree, duct.rs, and self-play, selfplay.rs, draw alike).

use rand::rngs::StdRng;
use rand::Rng;

/// One of `items` drawn in proportion to its `percentage` (an outcome of a joint choice: the
/// engine's chance of that branch); the first where none has any.
pub fn draw_by<T>(items: &[T], percentage: impl Fn(&T) -> f32, rng: &mut StdRng) -> usize {
    let total: f32 = items.iter().map(|o| percentage(o).max(0.0)).sum();
    if total <= 0.0 {
        return 0;
    }
    let mut threshold = rng.random_range(0.0..total);
    for (i, o) in items.iter().enumerate() {
        threshold -= percentage(o).max(0.0);
        if threshold <= 0.0 {
            return i;
        }
    }
    items.len() - 1
}
