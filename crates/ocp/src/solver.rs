//! Solving the transcribed OCP and reading its results by name.

use crate::error::{invalid, OcpError, Result};
use crate::kind::{ModelKind, Simulation};
use crate::problem::Ocp;
use crate::transcribe::{transcribe, Transcription};
use fesd_discretization::VariableTable;
use fesd_model::{PssModel, SubsystemLowering};
use fesd_mpcc::{Kernels, MpccResult, MpccSolver, MpccStatus};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A compiled OCP: solve it, change x0, parameters or references, solve again
/// (warm-started from the previous solution, nothing recompiled).
pub struct OcpSolver<M: ModelKind = PssModel> {
    t: Transcription,
    /// The problem, for re-simulation.
    ocp: Ocp<M>,
    solver: MpccSolver,
    /// The parameter values (laid out by the transcription's parameter table).
    p0: Vec<f64>,
    build_time: Duration,
    /// A switched system's DCS of the user's own, for the simulations too.
    lowering: Option<Arc<dyn SubsystemLowering>>,
}

/// An impulse found by a rigid-body OCP: element boundary, contact, size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OcpImpact {
    /// Time of the boundary.
    pub time: f64,
    /// Contact index.
    pub contact: usize,
    /// Normal impulse Λ_n.
    pub impulse: f64,
}

/// The solution of an OCP, by name.
#[derive(Clone, Debug, Serialize)]
pub struct OcpResult {
    /// How the homotopy ended.
    pub status: MpccStatus,
    /// The OCP's cost: Lagrange + Mayer + time terms (+ soft terminal penalties).
    pub cost: f64,
    /// The NLP objective: the cost plus the step-equilibration term (and a rigid
    /// body's tie-break terms).
    pub objective: f64,
    /// Complementarity residual max |G_i H_i|.
    pub comp_residual: f64,
    /// The horizon T (fixed, or the optimal one).
    pub t_final: f64,
    /// Times of the element boundaries (N · N_FE + 1 values).
    pub t: Vec<f64>,
    /// States at the element boundaries, x0 first (rigid bodies: `(q, v)` with the
    /// velocity before any impulse there).
    pub x: Vec<Vec<f64>>,
    /// Control of every interval.
    pub u: Vec<Vec<f64>>,
    /// Step size of every element.
    pub h: Vec<f64>,
    /// The model's parameters: given values, and the optimal ones of free parameters.
    pub p: Vec<f64>,
    /// Start time of every control interval, and T.
    pub t_controls: Vec<f64>,
    /// Modes active in each element (a switched system's regions: θ indices, every
    /// subsystem's stacked; a rigid body's contacts carrying a normal force): above
    /// 1e-5 at some stage.
    pub active_sets: Vec<Vec<usize>>,
    /// Element boundaries where the active set changes.
    pub switch_times: Vec<f64>,
    /// The model kind's own results per element, by name (a switched system: `theta`,
    /// `x_stage`, `primal`, `dual_end`; rigid bodies: `v_post`, the velocity after the
    /// impulse at each element's left boundary, `impulse`, the normal impulses there,
    /// and `force`, the normal forces at the stages).
    pub results: BTreeMap<String, Vec<Vec<f64>>>,
    /// The MPCC solve: homotopy table, iterations, timings, certificate.
    pub mpcc: MpccResult,
    /// The NLP vector and its table.
    pub w: Vec<f64>,
    /// Names and places of the unknowns.
    pub table: VariableTable,
}

impl OcpResult {
    /// The normal impulses above `tol` at the element boundaries, in time order (a
    /// rigid-body OCP; none for a switched system).
    pub fn impacts(&self, tol: f64) -> Vec<OcpImpact> {
        let Some(impulses) = self.results.get("impulse") else { return Vec::new() };
        let mut out = Vec::new();
        for (e, lam) in impulses.iter().enumerate() {
            for (l, &x) in lam.iter().enumerate() {
                if x > tol {
                    out.push(OcpImpact { time: self.t[e], contact: l, impulse: x });
                }
            }
        }
        out
    }

    /// The result as pretty JSON.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| OcpError::Invalid { what: "result", reason: e.to_string() })
    }
}

impl OcpSolver<PssModel> {
    /// As [`OcpSolver::new`] with the DCS written by `lowering` (a representation of
    /// your own; `ocp.options.fesd.representation` is then ignored). The
    /// re-simulation and the simulated initial guess use it too.
    pub fn with_lowering(ocp: &Ocp, lowering: Arc<dyn SubsystemLowering>) -> Result<OcpSolver> {
        Self::build(ocp, &fesd_mpcc::CompileOptions::default(), Some(lowering), fesd_mpcc::DEFAULT_MODULE)
    }
}

impl<M: ModelKind> OcpSolver<M> {
    /// Validates, transcribes and compiles `ocp` (kernels cached on disk).
    pub fn new(ocp: &Ocp<M>) -> Result<OcpSolver<M>> {
        Self::with_compile_options(ocp, &fesd_mpcc::CompileOptions::default())
    }

    /// As [`OcpSolver::new`] with explicit compiler settings (cache directory,
    /// optimization level, which constant tables stay in the C).
    pub fn with_compile_options(ocp: &Ocp<M>, compile: &fesd_mpcc::CompileOptions) -> Result<OcpSolver<M>> {
        Self::build(ocp, compile, None, fesd_mpcc::DEFAULT_MODULE)
    }

    /// As [`OcpSolver::with_compile_options`], the generated module named `module` (a C
    /// identifier; the default is `fesd_mpcc`): OCPs whose modules are linked into one
    /// program need different names.
    pub fn with_module(ocp: &Ocp<M>, compile: &fesd_mpcc::CompileOptions, module: &str) -> Result<OcpSolver<M>> {
        fesd_mpcc::check_module_name(module)?;
        Self::build(ocp, compile, None, module)
    }

    fn build(
        ocp: &Ocp<M>,
        compile: &fesd_mpcc::CompileOptions,
        lowering: Option<Arc<dyn SubsystemLowering>>,
        module: &str,
    ) -> Result<OcpSolver<M>> {
        ocp.validate()?;
        let start = Instant::now();
        let mut t = transcribe(ocp, lowering.as_deref(), module)?;
        t.mpcc.formulation = ocp.options.formulation;
        if ocp.options.straight_line_guess {
            if let Some(line) = straight_line(ocp, ocp.x0.guess())? {
                t.table.guess = state_guess_of(ocp, &t, &line)?;
                t.mpcc.w0 = t.table.guess.clone();
            }
        }
        let outputs = [t.outputs.clone()];
        let solver = if ocp.options.expand {
            MpccSolver::with_outputs(&expanded(&t.mpcc)?, ocp.options.homotopy.clone(), compile, Kernels::Interpreted, &outputs)?
        } else {
            MpccSolver::with_outputs(&t.mpcc, ocp.options.homotopy.clone(), compile, ocp.options.kernels, &outputs)?
        };
        Ok(OcpSolver { ocp: ocp.clone(), p0: t.mpcc.p0.clone(), solver, t, lowering, build_time: start.elapsed() })
    }

    /// Time spent transcribing and compiling (or loading) the kernels.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// How the kernels were obtained: derivative and C generation time, compile and
    /// load time, cache hit.
    pub fn build_report(&self) -> fesd_mpcc::BuildReport {
        self.solver.build_report()
    }

    /// The MPCC solver underneath (its NLP's structure, options, build report).
    pub fn mpcc_solver(&self) -> &MpccSolver {
        &self.solver
    }

    /// Waits for kernels compiling beside the first solves (`kernels = auto` on a cold
    /// cache) and makes the following solves evaluate them; true if this solver's
    /// kernels are compiled afterwards (false, e.g., without a C compiler: see
    /// [`MpccSolver::compile_error`]).
    pub fn wait_for_compiled_kernels(&mut self) -> bool {
        self.solver.wait_for_compiled_kernels()
    }

    /// The variable table.
    pub fn table(&self) -> &VariableTable {
        &self.t.table
    }

    /// The parameter table: where `p`, a fixed `x0` and the tracking references are in
    /// the NLP's parameter vector.
    pub fn parameter_table(&self) -> &VariableTable {
        &self.t.parameters
    }

    /// Writes `values` into the parameter block `name` (interval `k`).
    fn set_parameter_block(&mut self, what: &'static str, name: &str, k: Option<usize>, values: &[f64]) -> Result<()> {
        let Some(b) = self.t.parameters.block(name, k, None) else {
            return invalid(what, format!("this OCP has no parameter block {name}"));
        };
        if values.len() != b.len {
            return invalid(what, format!("{} values given, {} expected", values.len(), b.len));
        }
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return invalid(what, format!("entry {i} is {}", values[i]));
        }
        self.t
            .parameters
            .write(&mut self.p0, name, k, None, values)
            .ok_or_else(|| OcpError::Invalid { what, reason: "does not fit".into() })
    }

    /// A new fixed initial state for the following solves (rigid bodies: `(q0, v0)`).
    pub fn set_x0(&mut self, x0: &[f64]) -> Result<()> {
        if self.t.parameters.block("x0", None, None).is_none() {
            return invalid("x0", "the initial state is free in this OCP");
        }
        self.set_parameter_block("x0", "x0", None, x0)
    }

    /// The current initial state: the fixed one, or the free one's guess.
    fn x0_now(&self) -> Vec<f64> {
        self.t.parameters.read(&self.p0, "x0", None, None).map_or_else(|| self.ocp.x0.guess().to_vec(), <[f64]>::to_vec)
    }

    /// The next solve starts from `w`, an NLP vector in the layout of
    /// [`OcpSolver::table`] (start from `table().guess` and write blocks by name with
    /// [`VariableTable::write`]).
    pub fn set_initial_guess(&mut self, w: &[f64]) -> Result<()> {
        if w.len() != self.t.table.len() {
            return invalid("initial guess", format!("{} values expected (the table's layout), {} given", self.t.table.len(), w.len()));
        }
        if let Some(i) = w.iter().position(|v| !v.is_finite()) {
            return invalid("initial guess", format!("entry {i} is {}", w[i]));
        }
        self.solver.set_initial_guess(w)?;
        Ok(())
    }

    /// The next solve starts from [`OcpSolver::state_guess`] of `x_of_t`.
    pub fn set_state_guess(&mut self, x_of_t: &dyn Fn(f64) -> Vec<f64>) -> Result<()> {
        let w = self.state_guess(x_of_t)?;
        self.solver.set_initial_guess(&w)?;
        Ok(())
    }

    /// The next solve starts from states on straight lines from the current x0 to the
    /// values the terminal constraint pins them to (as
    /// [`OcpOptions::straight_line_guess`](crate::OcpOptions::straight_line_guess) does
    /// from the OCP's x0). Returns false, the guess unchanged, where the terminal
    /// constraint pins no state.
    pub fn guess_straight_line(&mut self) -> Result<bool> {
        let Some(line) = straight_line(&self.ocp, &self.x0_now())? else { return Ok(false) };
        self.set_state_guess(&line)?;
        Ok(true)
    }

    /// The table's guess with the states taken from the trajectory `x_of_t` on the
    /// nominal grid (every interval T/N long, its elements of equal length h): every
    /// element's states at its RK nodes and its end (a switched system in the
    /// differential form: its stage derivatives all equal to the element's secant;
    /// rigid bodies: positions and velocities), and a free x0's guess `x(0)`; T is the
    /// horizon's guess when it is free. Use it to start from an interpolation between
    /// the initial and a target state, or from a trajectory known from elsewhere. A
    /// value of the wrong size or not finite is an error.
    pub fn state_guess(&self, x_of_t: &dyn Fn(f64) -> Vec<f64>) -> Result<Vec<f64>> {
        state_guess_of(&self.ocp, &self.t, x_of_t)
    }

    /// The next solve starts from the table's initial guess again, not from the previous
    /// solution.
    pub fn reset_guess(&mut self) -> Result<()> {
        self.solver.set_initial_guess(&self.t.table.guess)?;
        Ok(())
    }

    /// The next solve is a warm re-solve (model predictive control: the same OCP with
    /// a new x0, parameters or references): its first NLP starts from the previous
    /// solve's last homotopy NLP, primal and dual, at σ =
    /// [`HomotopyOptions::warm_sigma_0`](fesd_mpcc::HomotopyOptions::warm_sigma_0), and the homotopy goes on from there.
    /// Without it a re-solve starts from the previous solution's primal point only and
    /// runs the whole homotopy from σ_0, which lets the switching structure change
    /// more freely (a large change of x0) at the price of more iterations. False if
    /// there is no previous solve to start from.
    pub fn warm_start_from_last_solve(&mut self) -> bool {
        self.solver.warm_start_from_last_solve()
    }

    /// New values of the model's parameters for the following solves.
    pub fn set_parameters(&mut self, p: &[f64]) -> Result<()> {
        self.set_parameter_block("p", "p", None, p)
    }

    /// Re-simulates the optimal controls of `r` with the model kind's simulator at high
    /// accuracy (switched systems: Radau IIA n_s = 3, `steps_per_interval` steps of 2
    /// elements per control interval; rigid bodies: the FESD-J simulator's defaults
    /// with the OCP's Runge–Kutta family and stages) and returns the terminal error
    /// `max_i |x_i^sim(T) − x_i(T)|`: the accuracy measure of the FESD papers.
    pub fn resimulate(&self, r: &OcpResult, steps_per_interval: usize) -> Result<f64> {
        if steps_per_interval == 0 {
            return invalid("steps_per_interval", "needs at least one step");
        }
        let (Some(x0), Some(end)) = (r.x.first(), r.x.last()) else { return invalid("result", "has no states") };
        let setup = Simulation { options: &self.ocp.options.fesd, lowering: self.lowering.as_deref(), p: &r.p };
        let x = self.ocp.model.simulate_controls(&setup, x0, &r.u, &r.t_controls, steps_per_interval)?;
        Ok(x.iter().zip(end).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())))
    }

    /// Replaces the initial guess by a simulation of the model with the guessed controls
    /// (`u_guess` in every interval) from the current (or guessed free) initial state:
    /// one step of the OCP's own FESD discretization per control interval, so element
    /// lengths, switch positions, contacts and algebraic variables start consistent
    /// with the dynamics instead of constant. Returns the number of intervals whose
    /// step did not converge (their last iterate is used).
    /// Evidence: `docs/evidence/ocp.md`, "guess_by_simulation".
    pub fn guess_by_simulation(&mut self) -> Result<usize> {
        let u = vec![self.ocp.u_guess.clone(); self.ocp.n_intervals];
        self.guess_by_simulation_of(&u)
    }

    /// As [`OcpSolver::guess_by_simulation`] with the controls `u` (one row per interval).
    pub fn guess_by_simulation_of(&mut self, u: &[Vec<f64>]) -> Result<usize> {
        let (n, n_u) = (self.ocp.n_intervals, self.ocp.model.controls().nrow());
        if u.len() != n || u.iter().any(|row| row.len() != n_u || row.iter().any(|v| !v.is_finite())) {
            return invalid("u", format!("{n} rows of {n_u} finite controls expected"));
        }
        let (ocp, p) = (&self.ocp, self.ocp.parameter_guess());
        let setup = Simulation { options: &ocp.options.fesd, lowering: self.lowering.as_deref(), p: &p };
        let fe = ocp.fe_counts()?;
        let grid = (&fe[..], ocp.horizon.guess() / ocp.n_intervals as f64);
        let (w, failed) = ocp.model.simulated_guess(&setup, grid, &self.x0_now(), u, (&self.t.table, self.t.table.guess.clone()))?;
        self.solver.set_initial_guess(&w)?;
        Ok(failed)
    }

    /// The `count` largest constraint violations at `w` (e.g. a failed solve's last
    /// iterate), each with what the row is (an element's equation, the sum of the steps
    /// of an interval, a path, terminal or step-equilibration row). Bounds and
    /// complementarity pairs are not included.
    pub fn constraint_violations(&self, w: &[f64], count: usize) -> Result<Vec<(String, f64)>> {
        if w.len() != self.t.table.len() {
            return invalid("w", format!("{} values expected", self.t.table.len()));
        }
        let g = self.t.g.eval_dense(&[w, &self.p0])?.remove(0);
        let (lb, ub) = (&self.t.mpcc.lbg, &self.t.mpcc.ubg);
        let mut v: Vec<(String, f64)> =
            g.iter().enumerate().map(|(i, x)| (self.t.row_labels[i].clone(), (lb[i] - x).max(x - ub[i]).max(0.0))).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v.truncate(count);
        Ok(v)
    }

    /// New tracking references (one row of n_y values per interval) for the following
    /// solves.
    pub fn set_reference(&mut self, reference: &[Vec<f64>]) -> Result<()> {
        if self.t.n_y == 0 {
            return invalid("tracking", "this OCP has no tracking term");
        }
        crate::problem::check_reference(reference, self.ocp.n_intervals, self.t.n_y)?;
        for (k, row) in reference.iter().enumerate() {
            self.set_parameter_block("tracking reference", "reference", Some(k), row)?;
        }
        Ok(())
    }

    /// Solves from the table's guess (first solve) or the previous solution.
    pub fn solve(&mut self) -> Result<OcpResult> {
        self.solver.set_parameters(&self.p0)?;
        let r = self.solver.solve();
        let w = r.w.clone();
        let mut out = self.solver.eval_output(&self.t.outputs.name(), &w, &self.p0)?.into_iter();
        let mut next = || out.next().unwrap_or_default();
        let (h, t_final, cost, p, activity) = (next(), next().first().copied().unwrap_or(f64::NAN), next(), next(), next());
        // The trajectory as the exported solver reads it: x at the start and at every
        // element's end, u of every control interval, the element boundary times.
        let (x, u, t) = (next(), next(), next());
        let dcs = &self.t.dcs;
        let fe = dcs.fe();
        let x = columns(&x, t.len());
        let u = columns(&u, fe.len());
        let mut first_element = 0;
        let mut t_controls = Vec::with_capacity(fe.len() + 1);
        for &n_fe in fe {
            t_controls.push(t.get(first_element).copied().unwrap_or(f64::NAN));
            first_element += n_fe;
        }
        t_controls.push(t.last().copied().unwrap_or(f64::NAN));
        let groups = self.t.activity_groups;
        let e_count = dcs.n_elements();
        let active_sets: Vec<Vec<usize>> = columns(&activity, e_count)
            .iter()
            .map(|col| (0..groups).filter(|&i| col.iter().skip(i).step_by(groups.max(1)).any(|&a| a > 1e-5)).collect())
            .collect();
        let switch_times = (1..active_sets.len()).filter(|&e| active_sets[e] != active_sets[e - 1]).map(|e| t[e]).collect();
        let results = self.t.result_names.iter().map(|name| (name.clone(), columns(&next(), e_count))).collect();
        // Later solves start from this solution.
        self.solver.set_initial_guess(&w)?;
        Ok(OcpResult {
            status: r.status,
            cost: cost.first().copied().unwrap_or(f64::NAN),
            p,
            objective: r.objective,
            comp_residual: r.comp_residual,
            t_final,
            t,
            x,
            u,
            h,
            t_controls,
            active_sets,
            switch_times,
            results,
            mpcc: r,
            w,
            table: self.t.table.clone(),
        })
    }
}

/// The straight line from `x0` to the terminal targets over the horizon's guess
/// (untargeted states constant), with velocities that fit it: where ẋ_j = x_k
/// ([`ModelKind::velocity_states`]) and x_j has a target, x_k is x_j's secant slope;
/// where only x_k has one, x_j integrates x_k's line. None where no state has a target.
#[allow(clippy::type_complexity)]
fn straight_line<M: ModelKind>(ocp: &Ocp<M>, x0: &[f64]) -> Result<Option<Box<dyn Fn(f64) -> Vec<f64>>>> {
    let targets = ocp.terminal_state_targets()?;
    if targets.iter().all(Option::is_none) {
        return Ok(None);
    }
    let t_end = ocp.horizon.guess();
    // x_j(t) = a_j + b_j t + c_j t².
    let (mut a, mut b, mut c) = (x0.to_vec(), vec![0.0; x0.len()], vec![0.0; x0.len()]);
    for (j, target) in targets.iter().enumerate() {
        if let Some(target) = target {
            b[j] = (target - x0[j]) / t_end;
        }
    }
    for (j, velocity) in ocp.model.velocity_states()?.into_iter().enumerate() {
        let Some(k) = velocity else { continue };
        match (targets[j], targets[k]) {
            (Some(_), _) => (a[k], b[k], c[k]) = (b[j], 0.0, 0.0),
            (None, Some(_)) => (b[j], c[j]) = (x0[k], b[k] / 2.0),
            (None, None) => {}
        }
    }
    Ok(Some(Box::new(move |t: f64| {
        let t = t.clamp(0.0, t_end);
        (0..a.len()).map(|j| a[j] + t * (b[j] + t * c[j])).collect()
    })))
}

/// [`OcpSolver::state_guess`] for the transcription `t` of `ocp`.
fn state_guess_of<M: ModelKind>(ocp: &Ocp<M>, t: &Transcription, x_of_t: &dyn Fn(f64) -> Vec<f64>) -> Result<Vec<f64>> {
    let dcs = &t.dcs;
    let n_x = dcs.n_x();
    let at = |time: f64| -> Result<Vec<f64>> {
        let x = x_of_t(time);
        if x.len() != n_x || x.iter().any(|v| !v.is_finite()) {
            return invalid("state guess", format!("x({time}) must have {n_x} finite entries, got {x:?}"));
        }
        Ok(x)
    };
    let table = &t.table;
    let mut w = table.guess.clone();
    if table.block("x0", None, None).is_some() {
        table
            .write(&mut w, "x0", None, None, &at(0.0)?)
            .ok_or_else(|| OcpError::Invalid { what: "state guess", reason: "no block x0".into() })?;
    }
    let (interval, nodes) = (ocp.horizon.guess() / ocp.n_intervals as f64, dcs.guess_nodes());
    for (k, &n_fe) in dcs.fe().iter().enumerate() {
        let h = interval / n_fe as f64;
        for n in 0..n_fe {
            let t0 = k as f64 * interval + n as f64 * h;
            let inside = nodes.iter().map(|c| at(t0 + c * h)).collect::<Result<Vec<_>>>()?;
            dcs.write_state_guess(table, &mut w, (k, n), h, (&at(t0)?, &inside, &at(t0 + h)?))?;
        }
    }
    Ok(w)
}

/// `m` as one SX graph (see `OcpOptions::expand`): its expressions in new SX
/// symbols w and p, through the expansion of one function of all of them.
fn expanded(m: &fesd_mpcc::Mpcc<casadi::Mx>) -> Result<fesd_mpcc::Mpcc> {
    let outputs = [("f", &m.f), ("g", &m.g), ("G", &m.big_g), ("H", &m.big_h)];
    let all = casadi::Function::new("ocp_nlp", &[("w", &m.w), ("p", &m.p)], &outputs)?.expand()?;
    let (w, p) = (casadi::SX::sym("w", m.w.nrow()), casadi::SX::sym("p", m.p.nrow()));
    let mut out = all.call(&[&w, &p])?.into_iter();
    let mut next =
        || out.next().ok_or_else(|| OcpError::Invalid { what: "expand", reason: "the expanded NLP returned too few outputs".into() });
    let (f, g, big_g, big_h) = (next()?, next()?, next()?, next()?);
    Ok(fesd_mpcc::Mpcc {
        w,
        p,
        f,
        g,
        big_g,
        big_h,
        lbw: m.lbw.clone(),
        ubw: m.ubw.clone(),
        lbg: m.lbg.clone(),
        ubg: m.ubg.clone(),
        w0: m.w0.clone(),
        p0: m.p0.clone(),
        formulation: m.formulation,
        module: m.module.clone(),
    })
}

/// A column-major matrix of `n` columns as its columns (`n` empty ones when `v` is
/// empty: a model without controls).
fn columns(v: &[f64], n: usize) -> Vec<Vec<f64>> {
    match v.len().checked_div(n) {
        Some(rows) if rows > 0 => v.chunks(rows).map(<[f64]>::to_vec).collect(),
        _ => vec![Vec::new(); n],
    }
}
