//! Solving the rigid-body OCP and reading its results.

use super::problem::ClsOcp;
use super::transcribe::{transcribe, Transcription};
use crate::error::{ClsError, Result};
use fesd_discretization::VariableTable;
use fesd_mpcc::{MpccResult, MpccSolver, MpccStatus};
use serde::Serialize;
use std::time::{Duration, Instant};

/// A compiled rigid-body OCP: solve it, change the initial state, solve again
/// (warm-started from the previous solution, nothing recompiled).
pub struct ClsOcpSolver {
    t: Transcription,
    ocp: ClsOcp,
    solver: MpccSolver,
    p0: Vec<f64>,
    build_time: Duration,
}

/// An impulse found by the OCP: element boundary, contact, size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OcpImpact {
    /// Time of the boundary.
    pub time: f64,
    /// Contact index.
    pub contact: usize,
    /// Normal impulse Λ_n.
    pub impulse: f64,
}

/// The solution of a rigid-body OCP.
#[derive(Clone, Debug, Serialize)]
pub struct ClsOcpResult {
    /// How the homotopy ended.
    pub status: MpccStatus,
    /// The OCP's cost (Lagrange + Mayer).
    pub cost: f64,
    /// The NLP objective: the cost plus the tie-break and step-equilibration terms.
    pub objective: f64,
    /// Complementarity residual max |G_i H_i|.
    pub comp_residual: f64,
    /// Times of the element boundaries (N · N_FE + 1 values).
    pub t: Vec<f64>,
    /// Positions at the element boundaries, q0 first.
    pub q: Vec<Vec<f64>>,
    /// Velocities at the element boundaries before any impulse there, v0 first.
    pub v: Vec<Vec<f64>>,
    /// Velocities after the impulse at each element's left boundary.
    pub v_post: Vec<Vec<f64>>,
    /// Normal impulses at each element's left boundary (n_c each).
    pub impulses: Vec<Vec<f64>>,
    /// Control of every interval.
    pub u: Vec<Vec<f64>>,
    /// Start of every control interval, and T.
    pub t_controls: Vec<f64>,
    /// Step size of every element.
    pub h: Vec<f64>,
    /// The MPCC solve: homotopy table, iterations, timings.
    pub mpcc: MpccResult,
    /// The NLP vector, named by `table`.
    pub w: Vec<f64>,
    /// Names and places of the unknowns.
    pub table: VariableTable,
}

impl ClsOcpResult {
    /// The impulses above `tol`, in time order.
    pub fn impacts(&self, tol: f64) -> Vec<OcpImpact> {
        let mut out = Vec::new();
        for (e, lam) in self.impulses.iter().enumerate() {
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
        serde_json::to_string_pretty(self).map_err(|e| ClsError::BadInput { what: "result", reason: e.to_string() })
    }
}

impl ClsOcpSolver {
    /// Validates, transcribes and compiles `ocp` (kernels cached on disk).
    pub fn new(ocp: &ClsOcp) -> Result<ClsOcpSolver> {
        Self::with_compile_options(ocp, &fesd_mpcc::CompileOptions::default())
    }

    /// As [`ClsOcpSolver::new`] with explicit compiler settings (cache directory,
    /// optimization level, which constant tables stay in the C).
    pub fn with_compile_options(ocp: &ClsOcp, compile: &fesd_mpcc::CompileOptions) -> Result<ClsOcpSolver> {
        let start = Instant::now();
        let t = transcribe(ocp)?;
        let solver = MpccSolver::with_kernels(&t.mpcc, ocp.options.homotopy.clone(), compile, ocp.options.kernels)?;
        Ok(ClsOcpSolver { ocp: ocp.clone(), p0: t.mpcc.p0.clone(), solver, t, build_time: start.elapsed() })
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

    /// A new initial state for the following solves.
    pub fn set_initial_state(&mut self, q0: &[f64], v0: &[f64]) -> Result<()> {
        let n_q = self.ocp.model.n_q();
        for (what, x) in [("q0", q0), ("v0", v0)] {
            if x.len() != n_q || x.iter().any(|v| !v.is_finite()) {
                return Err(ClsError::BadInput { what, reason: format!("{} finite values expected", n_q) });
            }
        }
        self.p0[..n_q].copy_from_slice(q0);
        self.p0[n_q..2 * n_q].copy_from_slice(v0);
        Ok(())
    }

    /// Replaces the initial guess by `w`: every unknown in the order of
    /// [`ClsOcpSolver::table`] (e.g. the `w` of a stored [`ClsOcpResult`]); a wrong
    /// length or a non-finite value is the MPCC solver's typed error.
    pub fn set_initial_guess(&mut self, w: &[f64]) -> Result<()> {
        self.solver.set_initial_guess(w)?;
        Ok(())
    }

    /// Replaces the initial guess by a simulation of the guessed controls `u` (one
    /// row per interval) from the current initial state: each interval one piece of
    /// the FESD-J simulator with the OCP's own discretization (the same unknowns,
    /// element by element), so contacts, impacts and slides start where the guessed
    /// controls put them. Returns the number of intervals whose piece did not
    /// converge (their last iterate is used).
    pub fn guess_by_simulation(&mut self, u: &[Vec<f64>]) -> Result<usize> {
        let (n, n_q) = (self.ocp.n_intervals, self.ocp.model.n_q());
        if u.len() != n || u.iter().any(|row| row.len() != self.ocp.n_u()) {
            return Err(ClsError::BadInput { what: "u", reason: format!("{n} rows of {} controls expected", self.ocp.n_u()) });
        }
        // The OCP's discretization (the same unknowns) with the simulator's
        // tie-break, which picks zero impulses and γ = |tᵀv| in each piece.
        let cls = crate::options::ClsOptions { rho_multipliers: 1.0, ..self.ocp.options.cls.clone() };
        let length = self.ocp.horizon / n as f64;
        let opts = crate::simulator::ClsSimulatorOptions { cls, step: length, n_steps: 1, ..Default::default() };
        let mut sim = crate::simulator::ClsSimulator::new(&self.ocp.model, opts)?;
        let (mut q, mut v) = (self.p0[..n_q].to_vec(), self.p0[n_q..2 * n_q].to_vec());
        let p = self.p0[2 * n_q..].to_vec();
        let mut w = self.t.table.guess.clone();
        let mut failed = 0;
        for (k, uk) in u.iter().enumerate() {
            let r = sim.solve_piece(&q, &v, uk, &p, length)?;
            failed += usize::from(!r.status.is_converged());
            let layout = &sim.step_problem().layout;
            let put = |w: &mut Vec<f64>, name: &str, m: Option<usize>, values: &[f64]| {
                if let Some(b) = self.t.table.block(name, Some(k), m) {
                    w[b.offset..b.offset + b.len].copy_from_slice(&values[..b.len]);
                }
            };
            put(&mut w, "u", None, uk);
            let start = layout.tau.as_ref().map_or(0, |t| t.len());
            for m in 0..self.ocp.options.cls.n_fe {
                if let Some(tau) = &layout.tau {
                    put(&mut w, "tau", Some(m), &[r.w[tau[m]]]);
                }
                let n_w = self.t.element_len;
                put(&mut w, "element", Some(m), &r.w[start + m * n_w..start + (m + 1) * n_w]);
            }
            let last = self.ocp.options.cls.n_fe - 1;
            q = r.w[layout.q_end[last]..layout.q_end[last] + n_q].to_vec();
            v = r.w[layout.v_end[last]..layout.v_end[last] + n_q].to_vec();
        }
        self.solver.set_initial_guess(&w)?;
        Ok(failed)
    }

    /// Re-simulates the optimal controls of `r` with the FESD-J simulator
    /// (`steps_per_interval` steps per control interval, the simulator's defaults
    /// otherwise) from `r`'s initial state and returns the terminal error
    /// `max_i |q_i^sim(T) − q_i(T)|, |v_i^sim(T) − v_i(T)|`: the accuracy measure of
    /// the FESD papers.
    pub fn resimulate(&self, r: &ClsOcpResult, steps_per_interval: usize) -> Result<f64> {
        if steps_per_interval == 0 {
            return Err(ClsError::BadInput { what: "steps_per_interval", reason: "needs at least one step".into() });
        }
        let (Some(q0), Some(v0), Some(q_t), Some(v_t)) = (r.q.first(), r.v.first(), r.q.last(), r.v.last()) else {
            return Err(ClsError::BadInput { what: "result", reason: "has no states".into() });
        };
        let length = self.ocp.horizon / self.ocp.n_intervals as f64;
        let mut opts = crate::simulator::ClsSimulatorOptions {
            step: length / steps_per_interval as f64,
            n_steps: steps_per_interval,
            ..Default::default()
        };
        opts.cls.rk_family = self.ocp.options.cls.rk_family;
        opts.cls.n_s = self.ocp.options.cls.n_s;
        let mut sim = crate::simulator::ClsSimulator::new(&self.ocp.model, opts)?;
        let p = self.p0[2 * self.ocp.model.n_q()..].to_vec();
        let (mut q, mut v) = (q0.clone(), v0.clone());
        for u in &r.u {
            let piece = sim.simulate(&q, &v, u, &p)?;
            q = piece.q_final().to_vec();
            v = piece.v_final().to_vec();
        }
        let err = |a: &[f64], b: &[f64]| a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        Ok(err(&q, q_t).max(err(&v, v_t)))
    }

    /// The `count` largest constraint violations at `w` (e.g. a failed solve's last
    /// iterate), each with what the row is: `element e: element.rs:L` (the line of
    /// the element builder that wrote it), `Σh = T/N`, `terminal constraint`, `step
    /// equilibration`. Bounds and complementarity pairs are not included.
    pub fn constraint_violations(&self, w: &[f64], count: usize) -> Result<Vec<(String, f64)>> {
        if w.len() != self.t.table.len() {
            return Err(ClsError::BadInput { what: "w", reason: format!("{} values expected", self.t.table.len()) });
        }
        let g = self.t.g.eval_dense(&[w, &self.p0])?.remove(0);
        let (lb, ub) = (&self.t.mpcc.lbg, &self.t.mpcc.ubg);
        let mut v: Vec<(String, f64)> =
            g.iter().enumerate().map(|(i, x)| (self.t.row_labels[i].clone(), (lb[i] - x).max(x - ub[i]).max(0.0))).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v.truncate(count);
        Ok(v)
    }

    /// Solves from the table's resting guess (first solve) or the previous solution.
    pub fn solve(&mut self) -> Result<ClsOcpResult> {
        self.solver.set_parameters(&self.p0)?;
        let r = self.solver.solve();
        let w = r.w.clone();
        let out = self.t.outputs.eval_dense(&[&w, &self.p0])?;
        let (h, n_q) = (out[0].clone(), self.ocp.model.n_q());
        let columns = |v: &[f64], rows: usize| -> Vec<Vec<f64>> { v.chunks(rows.max(1)).map(<[f64]>::to_vec).collect() };
        let mut t = vec![0.0];
        for hn in &h {
            t.push(t.last().unwrap_or(&0.0) + hn);
        }
        let table = &self.t.table;
        let u = (0..self.ocp.n_intervals).map(|k| table.read(&w, "u", Some(k), None).map(<[f64]>::to_vec).unwrap_or_default()).collect();
        let t_controls = (0..=self.ocp.n_intervals).map(|k| t[k * self.ocp.options.cls.n_fe]).collect();
        self.solver.set_initial_guess(&w)?;
        let impulses = if self.ocp.model.n_c() > 0 { columns(&out[4], self.ocp.model.n_c()) } else { vec![vec![]; self.t.n_elements] };
        Ok(ClsOcpResult {
            status: r.status,
            cost: out[5][0],
            objective: r.objective,
            comp_residual: r.comp_residual,
            q: columns(&out[1], n_q),
            v: columns(&out[2], n_q),
            v_post: columns(&out[3], n_q),
            impulses,
            t,
            u,
            t_controls,
            h,
            mpcc: r,
            w,
            table: table.clone(),
        })
    }
}
