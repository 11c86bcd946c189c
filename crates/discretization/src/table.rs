//! The variable table: every block of unknowns named, with its place in the NLP
//! vector, bounds and initial guess. Plain data, serializable, the single source for
//! initial guesses, warm starts and reading results by name.

use casadi::MX;
use serde::{Deserialize, Serialize};

/// One block of unknowns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// What it holds: `x` (state at the end of an element), `k` (stage unknowns),
    /// `z` (algebraic variables of every point), `tau` (normalized step size), `u`
    /// (control of an interval), `x0` (free initial state), `T` (free horizon).
    pub name: String,
    /// Control interval k, if the block belongs to one.
    pub interval: Option<usize>,
    /// Finite element n within the interval, if the block belongs to one.
    pub element: Option<usize>,
    /// First index in the NLP vector.
    pub offset: usize,
    /// Number of entries.
    pub len: usize,
}

/// All blocks, in NLP order, with the bounds and initial guess of every entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VariableTable {
    /// The blocks.
    pub blocks: Vec<Block>,
    /// Lower bounds.
    pub lb: Vec<f64>,
    /// Upper bounds.
    pub ub: Vec<f64>,
    /// Initial guess.
    pub guess: Vec<f64>,
}

impl VariableTable {
    /// Number of unknowns.
    pub fn len(&self) -> usize {
        self.lb.len()
    }

    /// True if there are no unknowns.
    pub fn is_empty(&self) -> bool {
        self.lb.is_empty()
    }

    /// Appends a block; returns its offset.
    pub fn add(&mut self, name: &str, interval: Option<usize>, element: Option<usize>, lb: &[f64], ub: &[f64], guess: &[f64]) -> usize {
        let offset = self.len();
        self.blocks.push(Block { name: name.to_string(), interval, element, offset, len: lb.len() });
        self.lb.extend_from_slice(lb);
        self.ub.extend_from_slice(ub);
        self.guess.extend_from_slice(guess);
        offset
    }

    /// A table of named blocks of the given lengths, in this order (bounds ±∞, guesses
    /// 0): the layout of a parameter vector.
    pub fn of_blocks(blocks: &[(&str, usize)]) -> VariableTable {
        let mut table = VariableTable::default();
        for &(name, len) in blocks {
            table.add(name, None, None, &vec![f64::NEG_INFINITY; len], &vec![f64::INFINITY; len], &vec![0.0; len]);
        }
        table
    }

    /// A vector laid out by this table with each named block (no interval, no element)
    /// set to its values, the rest zero; `None` if a block is missing or its length
    /// differs.
    pub fn fill(&self, values: &[(&str, &[f64])]) -> Option<Vec<f64>> {
        let mut v = vec![0.0; self.len()];
        for (name, vals) in values {
            self.write(&mut v, name, None, None, vals)?;
        }
        Some(v)
    }

    /// The block `name` of interval `k` and element `n` (either may be `None`).
    pub fn block(&self, name: &str, interval: Option<usize>, element: Option<usize>) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name == name && b.interval == interval && b.element == element)
    }

    /// Every index of every block named `name`, in NLP order.
    pub fn indices(&self, name: &str) -> Vec<usize> {
        self.blocks.iter().filter(|b| b.name == name).flat_map(|b| b.offset..b.offset + b.len).collect()
    }

    /// The values of block `name` (k, n) in the NLP vector `w`.
    pub fn read<'a>(&self, w: &'a [f64], name: &str, interval: Option<usize>, element: Option<usize>) -> Option<&'a [f64]> {
        let b = self.block(name, interval, element)?;
        w.get(b.offset..b.offset + b.len)
    }

    /// Writes `values` into block `name` (k, n) of the NLP vector `w`; `None` (and
    /// nothing written) if there is no such block or the lengths differ.
    pub fn write(&self, w: &mut [f64], name: &str, interval: Option<usize>, element: Option<usize>, values: &[f64]) -> Option<()> {
        let b = self.block(name, interval, element)?;
        (b.len == values.len()).then_some(())?;
        w.get_mut(b.offset..b.offset + b.len)?.copy_from_slice(values);
        Some(())
    }

    /// Every entry of the blocks named `name` in the NLP symbol `w`, reshaped to
    /// `rows × cols` (zeros if there is none); a contiguous run is taken as one slice
    /// (no index list in the generated code).
    pub fn gather(&self, w: &MX, name: &str, rows: usize, cols: usize) -> casadi::Result<MX> {
        let idx = self.indices(name);
        let (Some(&first), Some(&last)) = (idx.first(), idx.last()) else { return Ok(MX::zeros(rows, cols)) };
        let part = if last + 1 - first == idx.len() { w.slice(first..last + 1)? } else { w.slice(idx)? };
        part.reshape(rows, cols)
    }
}
