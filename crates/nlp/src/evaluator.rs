//! One function of an NLP, evaluated either by compiled C or by CasADi's own virtual
//! machine (no compiler run: what a first solve can use while its C compiles).

use crate::Result;
#[cfg(feature = "symbolic")]
use casadi::{Function, Sparsity};
use fesd_codegen::{Ccs, Kernel};

/// A function of `(x, p, …)` on input and output nonzeros.
pub enum Evaluator {
    /// Generated C in a loaded shared object.
    Compiled(Kernel),
    /// The symbolic function, evaluated by CasADi (under its lock).
    #[cfg(feature = "symbolic")]
    Interpreted(Interpreted),
}

/// A CasADi function with its sparsity patterns read once.
#[cfg(feature = "symbolic")]
pub struct Interpreted {
    function: Function,
    sparsity_in: Vec<Ccs>,
    sparsity_out: Vec<Ccs>,
}

#[cfg(feature = "symbolic")]
fn ccs(sp: &Sparsity) -> Ccs {
    Ccs { nrow: sp.nrow(), ncol: sp.ncol(), colind: sp.colind(), row: sp.row() }
}

#[cfg(feature = "symbolic")]
impl Interpreted {
    /// Wraps `function`, reading its sparsity patterns.
    pub fn new(function: Function) -> Result<Self> {
        let sparsity_in = (0..function.n_in()).map(|i| function.sparsity_in(i).map(|s| ccs(&s))).collect::<casadi::Result<_>>()?;
        let sparsity_out = (0..function.n_out()).map(|i| function.sparsity_out(i).map(|s| ccs(&s))).collect::<casadi::Result<_>>()?;
        Ok(Interpreted { function, sparsity_in, sparsity_out })
    }
}

impl Evaluator {
    /// The function's name.
    pub fn name(&self) -> String {
        match self {
            Evaluator::Compiled(k) => k.name().to_string(),
            #[cfg(feature = "symbolic")]
            Evaluator::Interpreted(f) => f.function.name(),
        }
    }

    /// Sparsity of input `i` (panics if out of range, like indexing).
    pub fn sparsity_in(&self, i: usize) -> &Ccs {
        match self {
            Evaluator::Compiled(k) => k.sparsity_in(i),
            #[cfg(feature = "symbolic")]
            Evaluator::Interpreted(f) => &f.sparsity_in[i],
        }
    }

    /// Sparsity of output `i` (panics if out of range, like indexing).
    pub fn sparsity_out(&self, i: usize) -> &Ccs {
        match self {
            Evaluator::Compiled(k) => k.sparsity_out(i),
            #[cfg(feature = "symbolic")]
            Evaluator::Interpreted(f) => &f.sparsity_out[i],
        }
    }

    /// Evaluates on input nonzeros and returns every output dense, column-major (the
    /// structural zeros filled in).
    pub fn eval_dense(&mut self, inputs: &[&[f64]]) -> Result<Vec<Vec<f64>>> {
        let n_out = match self {
            Evaluator::Compiled(k) => k.n_out(),
            #[cfg(feature = "symbolic")]
            Evaluator::Interpreted(f) => f.sparsity_out.len(),
        };
        let mut nonzeros: Vec<Vec<f64>> = (0..n_out).map(|i| vec![0.0; self.sparsity_out(i).nnz()]).collect();
        let mut slots: Vec<&mut [f64]> = nonzeros.iter_mut().map(Vec::as_mut_slice).collect();
        self.eval(inputs, &mut slots)?;
        Ok(nonzeros
            .iter()
            .enumerate()
            .map(|(i, nz)| {
                let sp = self.sparsity_out(i);
                let mut dense = vec![0.0; sp.nrow * sp.ncol];
                for c in 0..sp.ncol {
                    for k in sp.colind[c]..sp.colind[c + 1] {
                        dense[c * sp.nrow + sp.row[k]] = nz[k];
                    }
                }
                dense
            })
            .collect())
    }

    /// Evaluates on input nonzeros, writing every output's nonzeros; lengths are
    /// checked against the sparsity patterns.
    pub fn eval(&mut self, inputs: &[&[f64]], outputs: &mut [&mut [f64]]) -> Result<()> {
        match self {
            Evaluator::Compiled(k) => Ok(k.eval(inputs, outputs)?),
            #[cfg(feature = "symbolic")]
            Evaluator::Interpreted(f) => {
                let bad = |what: String| crate::NlpError::Dimension(format!("{}: {what}", f.function.name()));
                if inputs.len() != f.sparsity_in.len() || outputs.len() != f.sparsity_out.len() {
                    return Err(bad(format!("takes {} inputs and {} outputs", f.sparsity_in.len(), f.sparsity_out.len())));
                }
                for (i, (x, sp)) in inputs.iter().zip(&f.sparsity_in).enumerate() {
                    if x.len() != sp.nnz() {
                        return Err(bad(format!("input {i}: {} values, {} nonzeros expected", x.len(), sp.nnz())));
                    }
                }
                for (i, (y, sp)) in outputs.iter().zip(&f.sparsity_out).enumerate() {
                    if y.len() != sp.nnz() {
                        return Err(bad(format!("output {i}: {} slots, {} nonzeros expected", y.len(), sp.nnz())));
                    }
                }
                let values = f.function.eval_nonzeros(inputs)?;
                for (y, v) in outputs.iter_mut().zip(values) {
                    y.copy_from_slice(&v);
                }
                Ok(())
            }
        }
    }
}
