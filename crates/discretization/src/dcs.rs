//! The seam between a dynamic complementarity system and what is built on it: a
//! horizon of finite elements whose unknowns, equations and results optimal control
//! (and simulation) read without knowing the system's kind.

use crate::error::{DiscretizationError, Result};
use crate::grid::{Assembly, BlockOrder, ElementBounds, ElementGrid, GridInputs};
use crate::options::IrkRepresentation;
use crate::table::VariableTable;
use casadi::MX;

/// What a horizon's initial guess is predicted from.
#[derive(Clone, Copy, Debug)]
pub struct HorizonGuess<'a> {
    /// The initial state's guess.
    pub x0: &'a [f64],
    /// The controls' guess (one value per control, every interval).
    pub u: &'a [f64],
    /// The model parameters' values.
    pub p: &'a [f64],
    /// The horizon's length (its guess when free).
    pub t_final: f64,
}

/// A dynamic complementarity system discretized on a horizon of N control intervals
/// of `fe()[k]` finite elements each: the switched systems' [`ElementGrid`] and the
/// rigid bodies' FESD-J grid. The state `x` is the system's (a rigid body's is
/// `(q, v)`), and `GridInputs::x0` the horizon's start.
pub trait Dcs {
    /// The kind of system (for messages).
    fn name(&self) -> &str;

    /// States n_x.
    fn n_x(&self) -> usize;

    /// Elements of every interval.
    fn fe(&self) -> &[usize];

    /// Number of elements E = Σ_k `fe()[k]`.
    fn n_elements(&self) -> usize {
        self.fe().iter().sum()
    }

    /// Adds the unknowns of every element to `t`, named by (interval, element), with
    /// `bounds` on the state at the element ends (and at the stages where asked) and a
    /// guess predicted from `guess`.
    fn add_unknowns(&self, t: &mut VariableTable, bounds: &ElementBounds, guess: &HorizonGuess, order: BlockOrder) -> Result<()>;

    /// The element kernels mapped over every element with the couplings between
    /// neighbours; `w` is laid out by `table` (holding the blocks of
    /// [`Dcs::add_unknowns`]).
    fn assemble_horizon(&self, table: &VariableTable, w: &MX, inputs: &GridInputs) -> Result<Assembly>;

    /// Times of the points inside an element where [`Dcs::write_state_guess`] takes
    /// states, as fractions of the element (the RK nodes c_m).
    fn guess_nodes(&self) -> Vec<f64>;

    /// Writes the states of element `(k, n)` (length `h`) into `w`: `start` at its
    /// left end, `nodes[m]` at each of [`Dcs::guess_nodes`], `end` at its right end.
    fn write_state_guess(
        &self,
        table: &VariableTable,
        w: &mut [f64],
        element: (usize, usize),
        h: f64,
        states: (&[f64], &[Vec<f64>], &[f64]),
    ) -> Result<()>;
}

/// The error of a missing or misshaped block.
pub(crate) fn missing_block(name: &str, (k, n): (usize, usize)) -> DiscretizationError {
    DiscretizationError::InvalidOption { name: "variable table", reason: format!("no block {name}({k}, {n}) of the right length") }
}

impl Dcs for ElementGrid {
    fn name(&self) -> &str {
        "switched system"
    }

    fn n_x(&self) -> usize {
        self.sizes().n_x
    }

    fn fe(&self) -> &[usize] {
        ElementGrid::fe(self)
    }

    fn add_unknowns(&self, t: &mut VariableTable, bounds: &ElementBounds, _guess: &HorizonGuess, order: BlockOrder) -> Result<()> {
        self.add_blocks(t, bounds, order);
        Ok(())
    }

    fn assemble_horizon(&self, table: &VariableTable, w: &MX, inputs: &GridInputs) -> Result<Assembly> {
        self.assemble(table, w, inputs)
    }

    fn guess_nodes(&self) -> Vec<f64> {
        self.tableau().c.clone()
    }

    /// The stage states in the integral form or, in the differential form, the stage
    /// derivatives all equal to the element's secant `(end − start) / h`; the `x`
    /// block where the end is not the last stage.
    fn write_state_guess(
        &self,
        table: &VariableTable,
        w: &mut [f64],
        element: (usize, usize),
        h: f64,
        (start, nodes, end): (&[f64], &[Vec<f64>], &[f64]),
    ) -> Result<()> {
        let (k, n) = element;
        let stages: Vec<f64> = match self.options().irk_representation {
            IrkRepresentation::Integral => nodes.concat(),
            IrkRepresentation::Differential => start.iter().zip(end).map(|(a, b)| (b - a) / h).collect::<Vec<f64>>().repeat(nodes.len()),
        };
        table.write(w, "k", Some(k), Some(n), &stages).ok_or_else(|| missing_block("k", element))?;
        if !self.end_is_last_stage() {
            table.write(w, "x", Some(k), Some(n), end).ok_or_else(|| missing_block("x", element))?;
        }
        Ok(())
    }
}
