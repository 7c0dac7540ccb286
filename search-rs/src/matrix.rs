//! The root as a game of one turn in which both sides choose at once: side one's mean value of
//! each joint choice the search tried, and the equilibrium of that matrix game. The search's
//! visits answer a foe that keeps exploring (UCB1 tries its every option over and over), so an
//! option that only pays against the foe's poor replies gathers visits; the equilibrium answers
//! the foe's best replies, mixed where a guess is part of the game.

/// A payoff matrix for side one (rows) against side two (columns), each cell side one's mean
/// value in [0, 1] and how many visits made it.
pub struct Matrix {
    pub values: Vec<Vec<f32>>,
    pub visits: Vec<Vec<u32>>,
}

/// A cell with fewer visits than this leans on its row's mean value (by this many visits' worth):
/// a joint choice tried twice says little of what it is worth.
const SHRINK: f32 = 8.0;
/// Rounds of regret matching: a 13 by 13 game settles within a few hundred.
const ROUNDS: usize = 2000;

impl Matrix {
    /// Each side's strategy at equilibrium over the options in `rows` and `columns` (the arms
    /// each side considered: those the search visited enough), a probability per option of the
    /// whole matrix, 0 outside those considered.
    pub fn equilibrium(&self, rows: &[bool], columns: &[bool]) -> (Vec<f32>, Vec<f32>) {
        let r: Vec<usize> = (0..rows.len()).filter(|&i| rows[i]).collect();
        let c: Vec<usize> = (0..columns.len()).filter(|&j| columns[j]).collect();
        let mut one = vec![0.0; rows.len()];
        let mut two = vec![0.0; columns.len()];
        if r.is_empty() || c.is_empty() {
            return (one, two);
        }
        let payoff: Vec<Vec<f32>> = r.iter().map(|&i| c.iter().map(|&j| self.shrunk(i, j)).collect()).collect();
        let (x, y) = solve(&payoff);
        for (k, &i) in r.iter().enumerate() {
            one[i] = x[k];
        }
        for (k, &j) in c.iter().enumerate() {
            two[j] = y[k];
        }
        (one, two)
    }

    /// Cell (i, j)'s value, drawn toward row i's mean where it has few visits.
    fn shrunk(&self, i: usize, j: usize) -> f32 {
        let n: u32 = self.visits[i].iter().sum();
        let row = if n > 0 {
            self.values[i].iter().zip(&self.visits[i]).map(|(v, &k)| v * k as f32).sum::<f32>() / n as f32
        } else {
            0.5
        };
        let k = self.visits[i][j] as f32;
        (self.values[i][j] * k + row * SHRINK) / (k + SHRINK)
    }
}

/// The equilibrium of the zero-sum game `payoff` (side one's values; side two's are 1 less
/// them): both sides' average strategies over ROUNDS of regret matching+ (regrets kept at 0 or
/// above, later rounds weighed more), which close on an equilibrium in a two-player zero-sum game.
pub fn solve(payoff: &[Vec<f32>]) -> (Vec<f32>, Vec<f32>) {
    let (m, n) = (payoff.len(), payoff[0].len());
    let (mut regret1, mut regret2) = (vec![0.0f32; m], vec![0.0f32; n]);
    let (mut sum1, mut sum2) = (vec![0.0f32; m], vec![0.0f32; n]);
    for t in 1..=ROUNDS {
        let x = strategy(&regret1);
        let y = strategy(&regret2);
        // each pure option's value against the other's current strategy
        let u1: Vec<f32> = (0..m).map(|i| (0..n).map(|j| payoff[i][j] * y[j]).sum()).collect();
        let u2: Vec<f32> = (0..n).map(|j| (0..m).map(|i| (1.0 - payoff[i][j]) * x[i]).sum()).collect();
        let v1: f32 = (0..m).map(|i| u1[i] * x[i]).sum();
        let v2: f32 = (0..n).map(|j| u2[j] * y[j]).sum();
        for i in 0..m {
            regret1[i] = (regret1[i] + u1[i] - v1).max(0.0);
            sum1[i] += t as f32 * x[i];
        }
        for j in 0..n {
            regret2[j] = (regret2[j] + u2[j] - v2).max(0.0);
            sum2[j] += t as f32 * y[j];
        }
    }
    (normalised(&sum1), normalised(&sum2))
}

/// Regret matching's strategy: in proportion to the positive regrets, uniform where none is.
fn strategy(regret: &[f32]) -> Vec<f32> {
    let total: f32 = regret.iter().sum();
    if total > 0.0 {
        regret.iter().map(|r| r / total).collect()
    } else {
        vec![1.0 / regret.len() as f32; regret.len()]
    }
}

fn normalised(p: &[f32]) -> Vec<f32> {
    let total: f32 = p.iter().sum();
    p.iter().map(|x| x / total).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_pennies_is_mixed_half_and_half() {
        let (x, y) = solve(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        for p in x.iter().chain(&y) {
            assert!((p - 0.5).abs() < 0.02, "{x:?} {y:?}");
        }
    }

    #[test]
    fn a_dominant_option_is_played_alone() {
        // row 0 beats row 1 against every column; column 1 is the foe's best reply to it
        let (x, y) = solve(&[vec![0.7, 0.6], vec![0.5, 0.4]]);
        assert!(x[0] > 0.99, "{x:?}");
        assert!(y[1] > 0.99, "{y:?}");
    }

    #[test]
    fn an_option_that_pays_only_against_poor_replies_is_not_chosen() {
        // a set-up move (row 1) is worth most against a foe that plays its weak column often, as
        // UCB1's exploring foe does; against its best reply (column 0) the safe move is better
        let payoff = vec![vec![0.55, 0.60, 0.60], vec![0.30, 0.95, 0.95]];
        let visits = vec![vec![100, 100, 100], vec![100, 100, 100]];
        let m = Matrix { values: payoff.clone(), visits };
        let explored_mean = |i: usize| payoff[i].iter().sum::<f32>() / 3.0;
        assert!(explored_mean(1) > explored_mean(0), "the exploring foe makes the set-up look better");
        let (x, _) = m.equilibrium(&[true, true], &[true, true, true]);
        assert!(x[0] > 0.99, "{x:?}");
    }

    #[test]
    fn options_left_out_get_nothing_and_a_lone_lucky_cell_leans_on_its_row() {
        let m = Matrix { values: vec![vec![0.5, 0.5], vec![0.2, 1.0]], visits: vec![vec![50, 50], vec![50, 1]] };
        let (x, y) = m.equilibrium(&[true, true], &[true, false]);
        assert_eq!(y[1], 0.0);
        assert!(x[0] > 0.99, "against column 0 alone, row 0: {x:?}");
        assert!(m.shrunk(1, 1) < 0.35, "one visit of 1.0 in a row of mean {}", m.shrunk(1, 1));
    }
}
