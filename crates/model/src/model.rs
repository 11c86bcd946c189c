//! The piecewise smooth system (PSS) model and its validation.

use crate::regions::{RegionSet, Regions};
use casadi::SX;

/// Errors in a model definition; each names the subsystem and entry at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A symbolic operation failed (CasADi's message).
    #[error(transparent)]
    Casadi(#[from] casadi::Error),
    /// The state, control or parameter vector is not a column of distinct symbols.
    #[error("{what} must be a column vector of distinct symbols")]
    NotSymbolic {
        /// `x`, `u` or `p`.
        what: &'static str,
    },
    /// The model has no switched subsystem.
    #[error("the model has no subsystem (add at least one set of switching functions and regions)")]
    NoSubsystem,
    /// The switching functions are not a column vector.
    #[error("subsystem {subsystem}: switching functions c must be a column vector, got {rows}x{cols}")]
    SwitchingFunctionShape {
        /// Subsystem index.
        subsystem: usize,
        /// Rows found.
        rows: usize,
        /// Columns found.
        cols: usize,
    },
    /// An entry of S is not −1, 0 or 1.
    #[error("subsystem {subsystem}: S[{row}][{col}] = {value}, entries must be -1, 0 or 1")]
    SignMatrixEntry {
        /// Subsystem index.
        subsystem: usize,
        /// Row.
        row: usize,
        /// Column.
        col: usize,
        /// The value.
        value: i8,
    },
    /// A row of S is all zeros (the region would be the whole space).
    #[error("subsystem {subsystem}: row {row} of S is all zeros")]
    ZeroRow {
        /// Subsystem index.
        subsystem: usize,
        /// Row.
        row: usize,
    },
    /// A row of S has a different length than the number of switching functions.
    #[error("subsystem {subsystem}: row {row} of S has {got} entries, but there are {n_c} switching functions")]
    SignMatrixColumns {
        /// Subsystem index.
        subsystem: usize,
        /// Row.
        row: usize,
        /// Entries found.
        got: usize,
        /// Switching functions.
        n_c: usize,
    },
    /// Number of regions and number of region dynamics disagree.
    #[error("subsystem {subsystem}: {regions} regions but {dynamics} region dynamics")]
    RegionCount {
        /// Subsystem index.
        subsystem: usize,
        /// Regions (rows of S or region sets).
        regions: usize,
        /// Dynamics given.
        dynamics: usize,
    },
    /// A region's dynamics is not an `n_x × 1` vector.
    #[error("subsystem {subsystem}: dynamics of region {region} is {rows}x{cols}, expected {n_x}x1")]
    DynamicsShape {
        /// Subsystem index.
        subsystem: usize,
        /// Region index.
        region: usize,
        /// Rows found.
        rows: usize,
        /// Columns found.
        cols: usize,
        /// State dimension.
        n_x: usize,
    },
    /// The mode-independent part f_0 has the wrong shape.
    #[error("f_0 is {rows}x{cols}, expected {n_x}x1")]
    DriftShape {
        /// Rows found.
        rows: usize,
        /// Columns found.
        cols: usize,
        /// State dimension.
        n_x: usize,
    },
    /// User indicator functions have the wrong length.
    #[error("subsystem {subsystem}: {got} indicator functions for {n_f} regions")]
    IndicatorShape {
        /// Subsystem index.
        subsystem: usize,
        /// Entries found.
        got: usize,
        /// Regions.
        n_f: usize,
    },
    /// A region set refers to a switching function that does not exist.
    #[error("subsystem {subsystem}: region {region} uses the basic set of c_{index}, but there are {n_c} switching functions")]
    RegionSetIndex {
        /// Subsystem index.
        subsystem: usize,
        /// Region index.
        region: usize,
        /// Basic set index used.
        index: usize,
        /// Switching functions.
        n_c: usize,
    },
    /// The regions do not partition the sign patterns of c: a pattern lies in no
    /// region or in several.
    #[error("subsystem {subsystem}: the regions are not a partition: the sign pattern {pattern} lies in {}", in_regions(regions))]
    NotAPartition {
        /// Subsystem index.
        subsystem: usize,
        /// The sign pattern, e.g. `(c_0 > 0, c_1 < 0)`.
        pattern: String,
        /// Regions containing it (empty: none).
        regions: Vec<usize>,
    },
    /// Region sets that partition the sign patterns, but whose θ do not sum to one
    /// inside `(0, 1)^{n_c}` (on sliding modes): the operands of an `Intersection` or
    /// `Union` share a switching function.
    #[error(
        "subsystem {subsystem}: the θ of the region sets sum to {sum} (not 1) at α = {alpha:?}, i.e. on sliding modes; \
             the operands of an Intersection or Union share a switching function: write each region as a union of disjoint pieces"
    )]
    ThetaSum {
        /// Subsystem index.
        subsystem: usize,
        /// The interior point.
        alpha: Vec<f64>,
        /// Σθ there.
        sum: f64,
    },
    /// A region set contains an `Intersection` or `Union` of nothing (the whole space
    /// or the empty set): never what was meant.
    #[error("subsystem {subsystem}: region {region} contains an empty Intersection or Union")]
    EmptySetOperation {
        /// Subsystem index.
        subsystem: usize,
        /// Region index.
        region: usize,
    },
    /// An expression of the model uses symbols that are not among x, u, p.
    #[error("the model's expressions use symbols that are not states, controls or parameters: {names} (add them to x, u or p)")]
    FreeSymbols {
        /// The symbols, as CasADi names them.
        names: String,
    },
    /// The same symbol appears twice among x, u and p.
    #[error("x, u and p must be distinct symbols: {0}")]
    RepeatedSymbol(String),
    /// An expression of the model contains a NaN or infinite constant.
    #[error("{what} evaluates to {value} at every point (a NaN or infinite constant in the expression)")]
    NotFinite {
        /// Which expression.
        what: String,
        /// The value found.
        value: f64,
    },
    /// Stewart's representation needs a sign matrix or indicator functions.
    #[error("subsystem {subsystem}: regions given as set expressions need the Step representation or indicator functions")]
    StewartNeedsIndicators {
        /// Subsystem index.
        subsystem: usize,
    },
    /// A [`SubsystemLowering`](crate::SubsystemLowering) cannot write this subsystem.
    #[error("subsystem {subsystem}: the {lowering} lowering cannot write it: {reason}")]
    UnsupportedSubsystem {
        /// The lowering's name.
        lowering: &'static str,
        /// Subsystem index.
        subsystem: usize,
        /// Why.
        reason: String,
    },
}

fn in_regions(regions: &[usize]) -> String {
    match regions {
        [] => "no region".into(),
        [r] => format!("region {r} only"),
        _ => format!("regions {regions:?} at once"),
    }
}

/// One Filippov system: switching functions, regions and the dynamics in each region.
#[derive(Clone, Debug)]
pub struct Subsystem {
    /// Switching functions `c(x)` (column vector, n_c entries).
    pub c: SX,
    /// The regions.
    pub regions: Regions,
    /// Dynamics `f_i(x, u)` of each region (n_x × 1 each).
    pub f: Vec<SX>,
    /// Optional Stewart indicator functions `g(x)` (n_f entries); default `g = −S c`.
    pub indicators: Option<SX>,
}

impl Subsystem {
    /// Regions from a sign matrix, with one dynamics vector per row of S.
    pub fn new(c: SX, s: Vec<Vec<i8>>, f: Vec<SX>) -> Self {
        Subsystem { c, regions: Regions::SignMatrix(s), f, indicators: None }
    }

    /// Regions from a sign matrix, with the dynamics as columns of `F` (n_x × n_f).
    pub fn from_matrix(c: SX, s: Vec<Vec<i8>>, big_f: &SX) -> Result<Self, ModelError> {
        let f = (0..big_f.ncol()).map(|i| big_f.get(.., i)).collect::<Result<Vec<_>, _>>()?;
        Ok(Self::new(c, s, f))
    }

    /// Regions from set expressions over the basic sets `{c_j > 0}`.
    pub fn from_sets(c: SX, sets: Vec<RegionSet>, f: Vec<SX>) -> Self {
        Subsystem { c, regions: Regions::Sets(sets), f, indicators: None }
    }

    /// Uses these Stewart indicator functions instead of `−S c`.
    pub fn with_indicators(mut self, g: SX) -> Self {
        self.indicators = Some(g);
        self
    }

    /// Number of switching functions.
    pub fn n_c(&self) -> usize {
        self.c.nrow()
    }

    /// Number of regions.
    pub fn n_f(&self) -> usize {
        match &self.regions {
            Regions::SignMatrix(s) => s.len(),
            Regions::Sets(v) => v.len(),
        }
    }
}

/// A piecewise smooth system `ẋ = f_0(x, u) + Σ_k F_k(x, u) θ_k`, one Filippov
/// convexification `θ_k` per subsystem.
#[derive(Clone, Debug)]
pub struct PssModel {
    /// States (column of symbols).
    pub x: SX,
    /// Controls (column of symbols, may be empty).
    pub u: SX,
    /// Parameters (column of symbols, may be empty).
    pub p: SX,
    /// Mode-independent dynamics f_0 (None: zero).
    pub f0: Option<SX>,
    /// The switched subsystems.
    pub subsystems: Vec<Subsystem>,
}

impl PssModel {
    /// A model in the states `x` without controls, parameters or subsystems yet.
    pub fn new(x: SX) -> Self {
        PssModel { x, u: SX::sym("u", 0), p: SX::sym("p", 0), f0: None, subsystems: Vec::new() }
    }

    /// Sets the controls.
    pub fn with_controls(mut self, u: SX) -> Self {
        self.u = u;
        self
    }

    /// Sets the parameters.
    pub fn with_parameters(mut self, p: SX) -> Self {
        self.p = p;
        self
    }

    /// Sets the mode-independent dynamics f_0.
    pub fn with_drift(mut self, f0: SX) -> Self {
        self.f0 = Some(f0);
        self
    }

    /// Adds a switched subsystem.
    pub fn with_subsystem(mut self, s: Subsystem) -> Self {
        self.subsystems.push(s);
        self
    }

    /// Number of states.
    pub fn n_x(&self) -> usize {
        self.x.nrow()
    }

    /// Checks every shape and sign-matrix rule, and that the regions of every
    /// subsystem partition the sign patterns of its switching functions (each pattern
    /// in exactly one region); the first violation is the error.
    pub fn validate(&self) -> Result<(), ModelError> {
        for (what, v) in [("x", &self.x), ("u", &self.u), ("p", &self.p)] {
            if (v.ncol() != 1 && v.numel() != 0) || (v.numel() > 0 && !v.is_symbolic()) {
                return Err(ModelError::NotSymbolic { what });
            }
        }
        if self.x.numel() == 0 {
            return Err(ModelError::NotSymbolic { what: "x" });
        }
        let n_x = self.n_x();
        if let Some(f0) = &self.f0 {
            if f0.shape() != (n_x, 1) {
                return Err(ModelError::DriftShape { rows: f0.nrow(), cols: f0.ncol(), n_x });
            }
        }
        if self.subsystems.is_empty() {
            return Err(ModelError::NoSubsystem);
        }
        for (k, sub) in self.subsystems.iter().enumerate() {
            if sub.c.ncol() != 1 || sub.c.nrow() == 0 {
                return Err(ModelError::SwitchingFunctionShape { subsystem: k, rows: sub.c.nrow(), cols: sub.c.ncol() });
            }
            let n_c = sub.n_c();
            match &sub.regions {
                Regions::SignMatrix(s) => {
                    for (i, row) in s.iter().enumerate() {
                        if row.len() != n_c {
                            return Err(ModelError::SignMatrixColumns { subsystem: k, row: i, got: row.len(), n_c });
                        }
                        if let Some((j, &v)) = row.iter().enumerate().find(|(_, v)| !matches!(v, -1..=1)) {
                            return Err(ModelError::SignMatrixEntry { subsystem: k, row: i, col: j, value: v });
                        }
                        if row.iter().all(|&v| v == 0) {
                            return Err(ModelError::ZeroRow { subsystem: k, row: i });
                        }
                    }
                }
                Regions::Sets(sets) => {
                    for (i, r) in sets.iter().enumerate() {
                        let j = r.max_index();
                        if j >= n_c {
                            return Err(ModelError::RegionSetIndex { subsystem: k, region: i, index: j, n_c });
                        }
                        if r.has_empty_operation() {
                            return Err(ModelError::EmptySetOperation { subsystem: k, region: i });
                        }
                    }
                }
            }
            if sub.n_f() != sub.f.len() {
                return Err(ModelError::RegionCount { subsystem: k, regions: sub.n_f(), dynamics: sub.f.len() });
            }
            for (i, f) in sub.f.iter().enumerate() {
                if f.shape() != (n_x, 1) {
                    return Err(ModelError::DynamicsShape { subsystem: k, region: i, rows: f.nrow(), cols: f.ncol(), n_x });
                }
            }
            if let Some(g) = &sub.indicators {
                if g.nrow() != sub.n_f() || g.ncol() != 1 {
                    return Err(ModelError::IndicatorShape { subsystem: k, got: g.numel(), n_f: sub.n_f() });
                }
            }
            let defect = match &sub.regions {
                Regions::SignMatrix(s) => crate::partition::check_sign_matrix(s, n_c),
                Regions::Sets(sets) => crate::partition::check_sets(sets, n_c),
            };
            not_a_partition(k, defect)?;
            self.check_constants(&format!("subsystem {k}: switching function"), &sub.c)?;
            if let Regions::Sets(sets) = &sub.regions {
                if let Some((alpha, sum)) = crate::partition::theta_sum_defect(sets, n_c) {
                    return Err(ModelError::ThetaSum { subsystem: k, alpha, sum });
                }
            }
        }
        self.check_symbols()
    }
}

impl PssModel {
    /// Every expression of the model as outputs of one function of `(x, u, p)`: CasADi
    /// then names symbols that are neither (free) and repeated inputs.
    fn check_symbols(&self) -> Result<(), ModelError> {
        let mut outs: Vec<SX> = self.f0.iter().cloned().collect();
        for sub in &self.subsystems {
            outs.push(sub.c.clone());
            outs.extend(sub.f.iter().cloned());
            outs.extend(sub.indicators.iter().cloned());
        }
        let named: Vec<(String, &SX)> = outs.iter().enumerate().map(|(i, e)| (format!("e{i}"), e)).collect();
        let outputs: Vec<(&str, &SX)> = named.iter().map(|(n, e)| (n.as_str(), *e)).collect();
        match casadi::Function::new("pss_model", &[("x", &self.x), ("u", &self.u), ("p", &self.p)], &outputs) {
            Ok(_) => Ok(()),
            Err(e) => Err(symbol_error(e)),
        }
    }

    /// A constant entry of `e` (no symbols) that is NaN or infinite.
    fn check_constants(&self, what: &str, e: &SX) -> Result<(), ModelError> {
        for i in 0..e.nrow() {
            let entry = e.at(i)?;
            if entry.is_constant() {
                if let Some(&bad) = entry.evalf()?.iter().find(|v| !v.is_finite()) {
                    return Err(ModelError::NotFinite { what: format!("{what} {i}"), value: bad });
                }
            }
        }
        Ok(())
    }
}

/// Reads CasADi's complaint about a function's symbols into the model's terms.
fn symbol_error(e: casadi::Error) -> ModelError {
    if let Some(names) = e.free_symbols() {
        return ModelError::FreeSymbols { names };
    }
    if e.is_repeated_input() {
        return ModelError::RepeatedSymbol("a symbol occurs twice (e.g. the same SX in x and u, or twice in x)".into());
    }
    ModelError::Casadi(e)
}

fn not_a_partition(subsystem: usize, defect: Option<crate::partition::PartitionDefect>) -> Result<(), ModelError> {
    match defect {
        None => Ok(()),
        Some(d) => Err(ModelError::NotAPartition { subsystem, pattern: crate::partition::describe(&d.pattern), regions: d.regions }),
    }
}
