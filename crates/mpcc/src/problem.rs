//! The MPCC problem type and its validation.

use crate::error::{MpccError, Result};
#[cfg(feature = "symbolic")]
use crate::options::Formulation;
#[cfg(feature = "symbolic")]
use casadi::{Function, Kind, Matrix, Sx};

/// A mathematical program with complementarity constraints
///
/// ```text
/// min f(w, p)  s.t.  lbw ≤ w ≤ ubw,  lbg ≤ g(w, p) ≤ ubg,  0 ≤ G(w, p) ⊥ H(w, p) ≥ 0
/// ```
///
/// with `SX` (default) or `MX` expressions, initial guess `w0` and parameter values `p0`.
#[cfg(feature = "symbolic")]
#[derive(Clone, Debug)]
pub struct Mpcc<K: Kind = Sx> {
    /// Decision variables (column vector of symbols).
    pub w: Matrix<K>,
    /// Parameters (column vector of symbols, may be empty).
    pub p: Matrix<K>,
    /// Scalar objective.
    pub f: Matrix<K>,
    /// General constraints (column vector, may be empty).
    pub g: Matrix<K>,
    /// First complementarity vector.
    pub big_g: Matrix<K>,
    /// Second complementarity vector (same length as `big_g`).
    pub big_h: Matrix<K>,
    /// Lower bounds of w.
    pub lbw: Vec<f64>,
    /// Upper bounds of w.
    pub ubw: Vec<f64>,
    /// Lower bounds of g.
    pub lbg: Vec<f64>,
    /// Upper bounds of g.
    pub ubg: Vec<f64>,
    /// Initial guess of w.
    pub w0: Vec<f64>,
    /// Parameter values.
    pub p0: Vec<f64>,
    /// How the solver relaxes and finishes it: compiled into its kernels when the
    /// solver is built (default [`Formulation::default`]).
    pub formulation: Formulation,
    /// Name of the generated C module, and prefix of its kernels' symbols (a C
    /// identifier; default `fesd_mpcc`). MPCCs whose kernels are linked into one
    /// program need different names.
    pub module: String,
}

/// The bounds and initial data of an MPCC: everything of it but its expressions.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MpccData {
    #[serde(with = "crate::record::floats")]
    pub lbw: Vec<f64>,
    #[serde(with = "crate::record::floats")]
    pub ubw: Vec<f64>,
    #[serde(with = "crate::record::floats")]
    pub lbg: Vec<f64>,
    #[serde(with = "crate::record::floats")]
    pub ubg: Vec<f64>,
    #[serde(with = "crate::record::floats")]
    pub w0: Vec<f64>,
    #[serde(with = "crate::record::floats")]
    pub p0: Vec<f64>,
    pub module: String,
}

impl MpccData {
    #[cfg(feature = "symbolic")]
    pub fn of<K: Kind>(mpcc: &Mpcc<K>) -> Self {
        MpccData {
            lbw: mpcc.lbw.clone(),
            ubw: mpcc.ubw.clone(),
            lbg: mpcc.lbg.clone(),
            ubg: mpcc.ubg.clone(),
            w0: mpcc.w0.clone(),
            p0: mpcc.p0.clone(),
            module: mpcc.module.clone(),
        }
    }
}

/// Name of the generated module of an MPCC that does not choose one ([`Mpcc::module`]).
pub const DEFAULT_MODULE: &str = "fesd_mpcc";

/// Checks that `name` is usable as a generated module's name ([`Mpcc::module`]): a C
/// identifier not in CasADi's reserved `casadi_` namespace.
pub fn check_module_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let reason = match chars.next() {
        None => "it is empty",
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => "it must start with an ASCII letter or '_'",
        _ if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') => "only ASCII letters, digits and '_' are allowed",
        _ if name.starts_with("casadi_") => "the prefix 'casadi_' is CasADi's",
        _ => return Ok(()),
    };
    Err(MpccError::InvalidOption { name: "module", reason: format!("{name:?} is not a C identifier for the generated module: {reason}") })
}

#[cfg(feature = "symbolic")]
fn dim(what: impl Into<String>, expected: impl ToString, got: impl ToString) -> MpccError {
    MpccError::Dimension { what: what.into(), expected: expected.to_string(), got: got.to_string() }
}

#[cfg(feature = "symbolic")]
impl<K: Kind> Mpcc<K> {
    /// An MPCC with unbounded w, no general constraints and no parameters; `w0 = 0`.
    pub fn new(w: Matrix<K>, f: Matrix<K>, big_g: Matrix<K>, big_h: Matrix<K>) -> Self {
        let n = w.nrow();
        Mpcc {
            w,
            p: Matrix::sym("p", 0),
            f,
            g: Matrix::zeros(0, 1),
            big_g,
            big_h,
            lbw: vec![f64::NEG_INFINITY; n],
            ubw: vec![f64::INFINITY; n],
            lbg: vec![],
            ubg: vec![],
            w0: vec![0.0; n],
            p0: vec![],
            formulation: Formulation::default(),
            module: DEFAULT_MODULE.into(),
        }
    }

    /// This MPCC with the formulation `f` (see [`Mpcc::formulation`]).
    pub fn with_formulation(mut self, f: Formulation) -> Self {
        self.formulation = f;
        self
    }

    /// Number of variables.
    pub fn n_w(&self) -> usize {
        self.w.nrow()
    }

    /// Number of complementarity pairs.
    pub fn n_comp(&self) -> usize {
        self.big_g.nrow()
    }

    /// Checks every size, bound order and finiteness; the first problem found is the error.
    pub fn validate(&self) -> Result<()> {
        let col = |what: &str, e: &Matrix<K>| -> Result<()> {
            if e.ncol() != 1 && e.numel() != 0 {
                return Err(dim(format!("{what} must be a column vector"), "n x 1", format!("{}x{}", e.nrow(), e.ncol())));
            }
            Ok(())
        };
        for (what, e) in [("w", &self.w), ("p", &self.p), ("g", &self.g), ("G", &self.big_g), ("H", &self.big_h)] {
            col(what, e)?;
        }
        if self.w.numel() > 0 && !self.w.is_symbolic() {
            return Err(MpccError::Format("w must consist of distinct free symbols".into()));
        }
        if self.p.numel() > 0 && !self.p.is_symbolic() {
            return Err(MpccError::Format("p must consist of distinct free symbols".into()));
        }
        if self.w.numel() == 0 {
            return Err(MpccError::Format("the MPCC has no variables: w is empty".into()));
        }
        check_module_name(&self.module)?;
        if self.f.shape() != (1, 1) {
            return Err(dim("objective f", "1x1", format!("{}x{}", self.f.nrow(), self.f.ncol())));
        }
        if self.big_g.nrow() != self.big_h.nrow() {
            return Err(dim("H (must have as many entries as G)", self.big_g.nrow(), self.big_h.nrow()));
        }
        let (n, m, np) = (self.n_w(), self.g.nrow(), self.p.nrow());
        for (what, v, len) in [
            ("lbw", &self.lbw, n),
            ("ubw", &self.ubw, n),
            ("w0", &self.w0, n),
            ("lbg", &self.lbg, m),
            ("ubg", &self.ubg, m),
            ("p0", &self.p0, np),
        ] {
            if v.len() != len {
                return Err(dim(format!("length of {what}"), len, v.len()));
            }
        }
        for (what, l, u) in [("w", &self.lbw, &self.ubw), ("g", &self.lbg, &self.ubg)] {
            for (index, (&lower, &upper)) in l.iter().zip(u.iter()).enumerate() {
                if lower.is_nan() || upper.is_nan() || lower > upper || lower == f64::INFINITY || upper == f64::NEG_INFINITY {
                    return Err(MpccError::Bounds { what, index, lower, upper });
                }
            }
        }
        for (what, v) in [("w0", &self.w0), ("p0", &self.p0)] {
            if let Some((index, &value)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
                return Err(MpccError::NotFinite { what, index, value });
            }
        }
        self.check_symbols()?;
        self.check_constant_pairs()
    }

    /// f, g, G, H as one function of `(w, p)`: CasADi then names symbols that are
    /// neither (free) and symbols that occur twice in w and p.
    fn check_symbols(&self) -> Result<()> {
        let outs = [("f", &self.f), ("g", &self.g), ("G", &self.big_g), ("H", &self.big_h)];
        match Function::new("mpcc_symbols", &[("w", &self.w), ("p", &self.p)], &outs) {
            Ok(_) => Ok(()),
            Err(e) => {
                if let Some(names) = e.free_symbols() {
                    return Err(MpccError::Format(format!("f, g, G or H use symbols that are neither in w nor in p: {names}")));
                }
                if e.is_repeated_input() {
                    return Err(MpccError::Format("w and p must be distinct symbols: a symbol occurs twice".into()));
                }
                Err(e.into())
            }
        }
    }

    /// A pair whose G_i and H_i are both constants can only hold if one is 0 and the
    /// other non-negative; otherwise no point satisfies it.
    fn check_constant_pairs(&self) -> Result<()> {
        for i in 0..self.n_comp() {
            let (gi, hi) = (self.big_g.at(i)?, self.big_h.at(i)?);
            if !(gi.is_constant() && hi.is_constant()) {
                continue;
            }
            let (a, b) = (gi.evalf()?[0], hi.evalf()?[0]);
            if !(a >= 0.0 && b >= 0.0 && a * b == 0.0) {
                return Err(MpccError::Format(format!(
                    "complementarity pair {i}: G = {a} and H = {b} are constants that violate 0 <= G ⟂ H >= 0: no point satisfies it"
                )));
            }
        }
        Ok(())
    }
}

/// Applies a `Function` of `(w, p)` to the symbols, checking its input sizes first.
#[cfg(feature = "symbolic")]
pub(crate) fn apply<K: Kind>(name: &str, fun: &Function, w: &Matrix<K>, p: &Matrix<K>) -> Result<Matrix<K>> {
    if fun.n_in() != 2 {
        return Err(dim(format!("inputs of {name}"), "2 (w, p)", fun.n_in()));
    }
    if fun.n_out() < 1 {
        return Err(dim(format!("outputs of {name}"), "at least 1", 0));
    }
    for (i, (what, arg)) in [("w", w), ("p", p)].into_iter().enumerate() {
        let sp = fun.sparsity_in(i)?;
        if sp.numel() != arg.numel() {
            return Err(dim(
                format!("input {i} of {name} (must match {what})"),
                format!("{} entries", arg.numel()),
                format!("{}x{}", sp.nrow(), sp.ncol()),
            ));
        }
    }
    let w_in = w.reshape(fun.sparsity_in(0)?.nrow(), fun.sparsity_in(0)?.ncol())?;
    let p_in = p.reshape(fun.sparsity_in(1)?.nrow(), fun.sparsity_in(1)?.ncol())?;
    let out = fun.call(&[&w_in, &p_in])?.swap_remove(0);
    let rows = out.numel();
    Ok(out.reshape(rows, 1)?)
}
