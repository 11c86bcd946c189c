//! An MPCC solver's build as data: everything a solver needs besides its compiled
//! module, so that it can be rebuilt from the module alone, without CasADi (a program
//! that links the module, a later run).

use crate::error::{MpccError, Result};
use crate::options::{Formulation, HomotopyOptions};
use crate::problem::MpccData;
use crate::relax::RelaxedLayout;
use crate::solver::{module_dims, report_kernels, MpccSolver};
use fesd_codegen::KernelLibrary;
use fesd_nlp::{BuildReport, CompiledNlp, NlpDims};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Version of the record's layout; a record of another version is refused.
const FORMAT: &str = "fesd-mpcc-record-v1";

/// What building an [`MpccSolver`] decided, besides its kernels: the relaxed NLP's
/// layout, the MPCC's bounds, initial guess and parameter values, the formulation its
/// kernels were built for, the module's name and the kernels in it
/// ([`MpccSolver::record`], [`MpccSolver::from_record`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpccRecord {
    pub(crate) format: String,
    pub(crate) module: String,
    pub(crate) formulation: Formulation,
    pub(crate) layout: RelaxedLayout,
    pub(crate) data: MpccData,
    /// True if the module holds the active-set finish's branch NLP.
    pub(crate) branch: bool,
    /// The caller's functions in the module ([`MpccSolver::with_outputs`]).
    pub(crate) outputs: Vec<String>,
    /// The solver's homotopy options when the record was taken.
    pub(crate) options: HomotopyOptions,
}

impl MpccRecord {
    #[cfg(feature = "symbolic")]
    pub(crate) fn new(module: String, formulation: Formulation, layout: RelaxedLayout, data: MpccData, branch: bool) -> Self {
        MpccRecord {
            format: FORMAT.into(),
            module,
            formulation,
            layout,
            data,
            branch,
            outputs: Vec::new(),
            options: HomotopyOptions::default(),
        }
    }

    /// The homotopy options of the solver the record was taken from.
    pub fn options(&self) -> &HomotopyOptions {
        &self.options
    }

    /// The name of the module the record belongs to.
    pub fn module(&self) -> &str {
        &self.module
    }

    /// The NLPs of the module (relaxed NLP, branch NLP) by kernel prefix and size.
    pub(crate) fn dims(&self) -> Vec<NlpDims> {
        module_dims(&self.module, &self.layout, self.data.lbw.len(), self.data.lbg.len(), self.data.p0.len(), self.branch)
    }

    /// The module's kernels besides the NLPs': the report kernel, then the outputs.
    pub(crate) fn extras(&self) -> Vec<String> {
        report_kernels(&self.module).into_iter().chain(self.outputs.iter().cloned()).collect()
    }

    /// The MPCC's numbers of variables w and parameters p.
    pub fn sizes(&self) -> (usize, usize) {
        (self.data.lbw.len(), self.data.p0.len())
    }

    /// Every kernel of the module, by name.
    pub fn kernel_names(&self) -> Vec<String> {
        let mut names: Vec<String> =
            self.dims().iter().flat_map(|d| fesd_nlp::KERNEL_SUFFIXES.iter().map(move |k| format!("{}_{k}", d.prefix))).collect();
        names.extend(self.extras());
        names
    }

    /// The record as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a record serializes (no maps with non-string keys, no non-finite floats in place)")
    }

    /// Reads [`MpccRecord::to_json`]'s text; another format version, a missing or
    /// unknown field, or inconsistent sizes are errors naming the problem.
    pub fn from_json(text: &str) -> Result<Self> {
        let bad = |reason: String| MpccError::Format(format!("MPCC record: {reason}"));
        let record: MpccRecord = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if record.format != FORMAT {
            return Err(bad(format!("format {:?}, this fesd reads {FORMAT:?}", record.format)));
        }
        let d = &record.data;
        let n_w = d.lbw.len();
        let sizes_agree = [d.ubw.len(), d.w0.len()].iter().all(|&n| n == n_w)
            && d.ubg.len() == d.lbg.len()
            && record.layout.pair_variables.len() == record.layout.n_comp
            && record.layout.nonnegative.iter().all(|&j| j < n_w)
            && record.layout.pair_variables.iter().flatten().flatten().all(|&j| j < n_w);
        if !sizes_agree {
            return Err(bad("the sizes of its bounds, guess and layout do not agree".into()));
        }
        crate::problem::check_module_name(&record.module)?;
        record.options.validate()?;
        Ok(record)
    }
}

impl MpccSolver {
    /// A solver from `record` and its module's kernels `library` (loaded from a file or
    /// linked into the program), with the options `opts`: no CasADi call, no compiler.
    /// The options compiled into the kernels (the record's formulation) are the
    /// record's; a module that does not hold the record's NLPs is an error.
    pub fn from_record(record: &MpccRecord, library: &KernelLibrary, opts: HomotopyOptions) -> Result<Self> {
        let started = Instant::now();
        opts.validate()?;
        let report = BuildReport { cache_hit: true, ..BuildReport::default() };
        let mut built = CompiledNlp::from_library(library, &record.dims(), &record.extras(), report)?;
        let compiled = built.remove(0);
        MpccSolver::assemble(compiled, built.pop(), record.clone(), (record.formulation, opts), started)
    }
}

/// Float vectors in JSON with the non-finite values spelled out (`"inf"`, `"-inf"`,
/// `"nan"`), which JSON numbers cannot hold: bounds are often infinite.
pub(crate) mod floats {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Float {
        Number(f64),
        Text(String),
    }

    pub fn serialize<S: Serializer>(values: &[f64], s: S) -> Result<S::Ok, S::Error> {
        let spelled = |v: f64| match v {
            v if v.is_finite() => Float::Number(v),
            v if v.is_nan() => Float::Text("nan".into()),
            v if v > 0.0 => Float::Text("inf".into()),
            _ => Float::Text("-inf".into()),
        };
        s.collect_seq(values.iter().map(|&v| spelled(v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        use serde::de::Error;
        Vec::<Float>::deserialize(d)?
            .into_iter()
            .map(|f| match f {
                Float::Number(v) => Ok(v),
                Float::Text(t) => match t.as_str() {
                    "inf" => Ok(f64::INFINITY),
                    "-inf" => Ok(f64::NEG_INFINITY),
                    "nan" => Ok(f64::NAN),
                    other => Err(D::Error::custom(format!("{other:?} is not a number"))),
                },
            })
            .collect()
    }
}
