//! Unknowns and constraints of the discretization as they are created: each block of
//! unknowns with bounds and a predicted value, each constraint with its bounds.

use crate::error::Result;
use casadi::{Function, SX};
use fesd_discretization::VariableTable;

/// The unknowns `w`, block by block.
#[derive(Default)]
pub(crate) struct Blocks {
    pub items: Vec<SX>,
    /// Every block by name with its bounds (guess 0: the MPCC's default start).
    pub table: VariableTable,
    /// The predicted value of every block: an expression in the parameters and in
    /// other blocks (resolved by substitution, see [`Blocks::prediction`]).
    pub predicted: Vec<SX>,
}

impl Blocks {
    /// A new block of `n` unknowns in `[lo, hi]` with the predicted value `predicted`
    /// (n × 1); returns its symbol and offset.
    pub fn add(&mut self, name: &str, n: usize, lo: f64, hi: f64, predicted: SX) -> (SX, usize) {
        let v = SX::sym(name, n);
        self.predicted.push(predicted);
        let off = self.table.add(name, None, None, &vec![lo; n], &vec![hi; n], &vec![0.0; n]);
        self.items.push(v.clone());
        (v, off)
    }

    /// All unknowns as one column.
    pub fn vector(&self) -> Result<SX> {
        vcat(&self.items)
    }

    /// `predict(params) -> w`: the predicted values resolved into the parameters alone
    /// by substituting the blocks' predictions into each other (chains are short: a
    /// lifted gap depends on a stage state, which depends on the previous element's
    /// end).
    pub fn prediction(&self, params: &SX) -> Result<Function> {
        let w = self.vector()?;
        let mut g = vcat(&self.predicted)?;
        for _ in 0..16 {
            if SX::jacobian(&g, &w)?.nnz() == 0 {
                break;
            }
            g = SX::substitute(&g, &w, &g)?;
        }
        Ok(Function::new("cls_predict", &[("params", params)], &[("w", &g)])?)
    }
}

/// Equality and inequality constraints collected with their bounds.
#[derive(Default)]
pub(crate) struct Constraints {
    pub g: Vec<SX>,
    pub lb: Vec<f64>,
    pub ub: Vec<f64>,
    /// Source line of every row (where it was written), for diagnostics.
    pub origin: Vec<u32>,
}

impl Constraints {
    /// `e = 0`.
    #[track_caller]
    pub fn eq(&mut self, e: SX) {
        self.origin.extend(std::iter::repeat_n(std::panic::Location::caller().line(), e.nrow()));
        self.lb.extend(std::iter::repeat_n(0.0, e.nrow()));
        self.ub.extend(std::iter::repeat_n(0.0, e.nrow()));
        self.g.push(e);
    }

    /// `e ≥ 0`.
    #[track_caller]
    pub fn nonneg(&mut self, e: SX) {
        self.origin.extend(std::iter::repeat_n(std::panic::Location::caller().line(), e.nrow()));
        self.lb.extend(std::iter::repeat_n(0.0, e.nrow()));
        self.ub.extend(std::iter::repeat_n(f64::INFINITY, e.nrow()));
        self.g.push(e);
    }
}

/// A new nonnegative unknown `y` with the constraint `y = e` (predicted as `e`).
#[track_caller]
pub(crate) fn lift(w: &mut Blocks, con: &mut Constraints, name: &str, e: SX) -> SX {
    let (y, _) = w.add(name, e.nrow(), 0.0, f64::INFINITY, e.clone());
    con.eq(&y - e);
    y
}

/// The items stacked into one column (0 × 1 if none).
pub(crate) fn vcat(items: &[SX]) -> Result<SX> {
    if items.is_empty() {
        return Ok(SX::zeros(0, 1));
    }
    Ok(SX::vertcat(&items.iter().collect::<Vec<_>>())?)
}

/// The columns side by side (`rows` × 0 if none).
pub(crate) fn hcat(items: &[SX], rows: usize) -> Result<SX> {
    if items.is_empty() {
        return Ok(SX::zeros(rows, 0));
    }
    Ok(SX::horzcat(&items.iter().collect::<Vec<_>>())?)
}

/// The sum of the items (each n × 1).
pub(crate) fn sum(items: &[SX], n: usize) -> SX {
    items.iter().fold(SX::zeros(n, 1), |a, b| a + b)
}
