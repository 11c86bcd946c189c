//! CasADi `Function`: named symbolic inputs and outputs, evaluated numerically or
//! symbolically, differentiated, mapped and serialized.

use crate::error::{Error, Result};
use crate::ffi::bridge as ffi;
use crate::kind::Kind;
use crate::matrix::Matrix;
use crate::sparsity::Sparsity;
use cxx::UniquePtr;
use std::fmt;

/// How a mapped function evaluates its copies (CasADi's `parallelization`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Parallelization {
    /// One after the other, in one loop (code size independent of the count).
    #[default]
    Serial,
    /// Unrolled: one call per copy.
    Unroll,
}

impl Parallelization {
    fn as_str(self) -> &'static str {
        match self {
            Parallelization::Serial => "serial",
            Parallelization::Unroll => "unroll",
        }
    }
}

/// A CasADi function object.
pub struct Function {
    pub(crate) inner: UniquePtr<ffi::Function>,
}

impl Function {
    pub(crate) fn wrap(inner: UniquePtr<ffi::Function>) -> Self {
        Function { inner }
    }

    /// Creates `name(inputs…) -> (outputs…)` from `SX` or `MX` expressions; inputs must
    /// be purely symbolic.
    pub fn new<K: Kind>(name: &str, inputs: &[(&str, &Matrix<K>)], outputs: &[(&str, &Matrix<K>)]) -> Result<Function> {
        let _g = crate::lock::guard();
        let in_names: Vec<String> = inputs.iter().map(|(n, _)| n.to_string()).collect();
        let out_names: Vec<String> = outputs.iter().map(|(n, _)| n.to_string()).collect();
        let ins: Vec<&Matrix<K>> = inputs.iter().map(|(_, x)| *x).collect();
        let outs: Vec<&Matrix<K>> = outputs.iter().map(|(_, x)| *x).collect();
        let (ins, outs) = (Matrix::to_vec(&ins), Matrix::to_vec(&outs));
        Ok(Function::wrap(K::function_new(name, &in_names, &ins, &out_names, &outs)?))
    }

    /// The function's name.
    pub fn name(&self) -> String {
        let _g = crate::lock::guard();
        ffi::fn_name(&self.inner).unwrap_or_default()
    }

    /// Number of inputs.
    pub fn n_in(&self) -> usize {
        let _g = crate::lock::guard();
        ffi::fn_n_in(&self.inner).unwrap_or(0)
    }

    /// Number of outputs.
    pub fn n_out(&self) -> usize {
        let _g = crate::lock::guard();
        ffi::fn_n_out(&self.inner).unwrap_or(0)
    }

    fn check_in(&self, i: usize) -> Result<()> {
        if i >= self.n_in() {
            return Err(Error::InvalidArgument(format!("{}: input {i} of {}", self.name(), self.n_in())));
        }
        Ok(())
    }

    fn check_out(&self, i: usize) -> Result<()> {
        if i >= self.n_out() {
            return Err(Error::InvalidArgument(format!("{}: output {i} of {}", self.name(), self.n_out())));
        }
        Ok(())
    }

    /// Name of input `i`.
    pub fn name_in(&self, i: usize) -> Result<String> {
        let _g = crate::lock::guard();
        self.check_in(i)?;
        Ok(ffi::fn_name_in(&self.inner, i)?)
    }

    /// Name of output `i`.
    pub fn name_out(&self, i: usize) -> Result<String> {
        let _g = crate::lock::guard();
        self.check_out(i)?;
        Ok(ffi::fn_name_out(&self.inner, i)?)
    }

    /// Sparsity of input `i`.
    pub fn sparsity_in(&self, i: usize) -> Result<Sparsity> {
        let _g = crate::lock::guard();
        self.check_in(i)?;
        Ok(Sparsity::wrap(ffi::fn_sparsity_in(&self.inner, i)?))
    }

    /// Sparsity of output `i`.
    pub fn sparsity_out(&self, i: usize) -> Result<Sparsity> {
        let _g = crate::lock::guard();
        self.check_out(i)?;
        Ok(Sparsity::wrap(ffi::fn_sparsity_out(&self.inner, i)?))
    }

    fn eval(&self, inputs: &[&[f64]], dense: bool) -> Result<Vec<Vec<f64>>> {
        let _g = crate::lock::guard();
        let lens: Vec<usize> = inputs.iter().map(|v| v.len()).collect();
        let data: Vec<f64> = inputs.iter().flat_map(|v| v.iter().copied()).collect();
        let flat = ffi::fn_eval(&self.inner, &data, &lens, dense)?;
        let mut out = Vec::with_capacity(self.n_out());
        let mut off = 0;
        for i in 0..self.n_out() {
            let sp = self.sparsity_out(i)?;
            let n = if dense { sp.numel() } else { sp.nnz() };
            out.push(flat[off..off + n].to_vec());
            off += n;
        }
        Ok(out)
    }

    /// Evaluates on dense column-major inputs; returns dense column-major outputs.
    pub fn eval_dense(&self, inputs: &[&[f64]]) -> Result<Vec<Vec<f64>>> {
        self.eval(inputs, true)
    }

    /// Evaluates on the nonzeros of each input (CCS order); returns output nonzeros.
    pub fn eval_nonzeros(&self, inputs: &[&[f64]]) -> Result<Vec<Vec<f64>>> {
        self.eval(inputs, false)
    }

    /// Symbolic call with `SX` or `MX` arguments. With `SX`, the function's graph is
    /// inlined; with `MX`, the call stays one node (and one kernel in generated code).
    pub fn call<K: Kind>(&self, args: &[&Matrix<K>]) -> Result<Vec<Matrix<K>>> {
        let _g = crate::lock::guard();
        if args.len() != self.n_in() {
            return Err(Error::InvalidArgument(format!("{} takes {} inputs, {} given", self.name(), self.n_in(), args.len())));
        }
        let res = K::function_call(&self.inner, &Matrix::to_vec(args))?;
        (0..K::list_len(&res)).map(|i| Ok(Matrix::wrap(K::list_get(&res, i)?))).collect()
    }

    /// The Jacobian function: inputs followed by outputs (nominal), outputs `jac_<out>_<in>`.
    pub fn jacobian(&self) -> Result<Function> {
        let _g = crate::lock::guard();
        Ok(Function::wrap(ffi::fn_jacobian(&self.inner)?))
    }

    /// `n` copies evaluated serially; inputs and outputs are horizontally stacked.
    pub fn map(&self, n: usize) -> Result<Function> {
        self.map_with(n, Parallelization::Serial)
    }

    /// `n` copies with the given evaluation strategy.
    pub fn map_with(&self, n: usize, parallelization: Parallelization) -> Result<Function> {
        let _g = crate::lock::guard();
        Ok(Function::wrap(ffi::fn_map(&self.inner, n, parallelization.as_str())?))
    }

    /// The same function with every MX operation expanded into SX (faster to evaluate,
    /// larger generated code).
    pub fn expand(&self) -> Result<Function> {
        let _g = crate::lock::guard();
        Ok(Function::wrap(ffi::fn_expand(&self.inner)?))
    }

    /// Number of nodes of the function's algorithm.
    pub fn n_nodes(&self) -> Result<usize> {
        let _g = crate::lock::guard();
        Ok(ffi::fn_n_nodes(&self.inner)?)
    }

    /// CasADi's string serialization (`Function::serialize`).
    pub fn serialize(&self) -> Result<String> {
        let _g = crate::lock::guard();
        Ok(ffi::fn_serialize(&self.inner)?)
    }

    /// Reads a function serialized by CasADi (any language front-end).
    ///
    /// The text is screened first: payloads that would load native code when read
    /// (`external` functions, plugins such as `nlpsol` or `interpolant`, `jit`) and
    /// payloads of another kind (an `SX`, `DM` or `Sparsity`) are refused with an
    /// error, before CasADi evaluates anything.
    pub fn deserialize(s: &str) -> Result<Function> {
        crate::payload::screen(s, "serialized Function")?;
        let _g = crate::lock::guard();
        Ok(Function::wrap(ffi::fn_deserialize(s)?))
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        let _g = crate::lock::guard();
        drop(std::mem::replace(&mut self.inner, UniquePtr::null()));
    }
}

impl Clone for Function {
    fn clone(&self) -> Self {
        let _g = crate::lock::guard();
        Function::wrap(crate::error::allocated(ffi::fn_clone(&self.inner)))
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _g = crate::lock::guard();
        match ffi::fn_to_string(&self.inner) {
            Ok(s) => f.write_str(&s),
            Err(_) => write!(f, "Function({})", self.name()),
        }
    }
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}
