//! Solving the transcribed OCP and reading its results by name.

use crate::error::{invalid, OcpError, Result};
use crate::problem::Ocp;
use crate::transcribe::{transcribe, Transcription};
use fesd_discretization::VariableTable;
use fesd_model::SubsystemLowering;
use fesd_mpcc::{MpccResult, MpccSolver, MpccStatus};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A compiled OCP: solve it, change x0 or parameters, solve again (warm-started from
/// the previous solution, nothing recompiled).
pub struct OcpSolver {
    t: Transcription,
    /// The problem, for re-simulation.
    ocp: Ocp,
    solver: MpccSolver,
    p0: Vec<f64>,
    n_p: usize,
    n_intervals: usize,
    build_time: Duration,
    /// The DCS the discretization was built with, for the simulations.
    lowering: Arc<dyn SubsystemLowering>,
}

/// The solution of an OCP, by name.
#[derive(Clone, Debug, Serialize)]
pub struct OcpResult {
    /// How the homotopy ended.
    pub status: MpccStatus,
    /// The OCP's cost: Lagrange + Mayer + time terms.
    pub cost: f64,
    /// The NLP objective: the cost plus the step-equilibration term.
    pub objective: f64,
    /// Complementarity residual max |G_i H_i|.
    pub comp_residual: f64,
    /// The horizon T (fixed, or the optimal one).
    pub t_final: f64,
    /// Times of the element boundaries (N · N_FE + 1 values).
    pub t: Vec<f64>,
    /// States at the element boundaries, x0 first.
    pub x: Vec<Vec<f64>>,
    /// Control of every interval.
    pub u: Vec<Vec<f64>>,
    /// Step size of every element.
    pub h: Vec<f64>,
    /// The model's parameters: given values, and the optimal ones of free parameters.
    pub p: Vec<f64>,
    /// Start time of every control interval, and T.
    pub t_controls: Vec<f64>,
    /// Regions (θ indices, every subsystem's stacked) active in each element: θ above
    /// 1e-5 at some stage.
    pub active_sets: Vec<Vec<usize>>,
    /// Element boundaries where the active set changes.
    pub switch_times: Vec<f64>,
    /// The MPCC solve: homotopy table, iterations, timings, certificate.
    pub mpcc: MpccResult,
    /// The NLP vector and its table.
    pub w: Vec<f64>,
    /// Names and places of the unknowns.
    pub table: VariableTable,
}

impl OcpSolver {
    /// Validates, transcribes and compiles `ocp` (kernels cached on disk).
    pub fn new(ocp: &Ocp) -> Result<OcpSolver> {
        Self::with_compile_options(ocp, &fesd_mpcc::CompileOptions::default())
    }

    /// As [`OcpSolver::new`] with explicit compiler settings (cache directory,
    /// optimization level, which constant tables stay in the C).
    pub fn with_compile_options(ocp: &Ocp, compile: &fesd_mpcc::CompileOptions) -> Result<OcpSolver> {
        let lowering = ocp.options.fesd.lowering();
        Self::build(ocp, compile, Arc::from(lowering))
    }

    /// As [`OcpSolver::new`] with the DCS written by `lowering` (a representation of
    /// your own; `ocp.options.fesd.representation` is then ignored). The
    /// re-simulation and the simulated initial guess use it too.
    pub fn with_lowering(ocp: &Ocp, lowering: Arc<dyn SubsystemLowering>) -> Result<OcpSolver> {
        Self::build(ocp, &fesd_mpcc::CompileOptions::default(), lowering)
    }

    fn build(ocp: &Ocp, compile: &fesd_mpcc::CompileOptions, lowering: Arc<dyn SubsystemLowering>) -> Result<OcpSolver> {
        ocp.validate()?;
        let start = Instant::now();
        let t = transcribe(ocp, lowering.as_ref())?;
        let solver = if ocp.options.expand {
            MpccSolver::interpreted(&expanded(&t.mpcc)?, ocp.options.homotopy.clone())?
        } else {
            MpccSolver::with_kernels(&t.mpcc, ocp.options.homotopy.clone(), compile, ocp.options.kernels)?
        };
        Ok(OcpSolver {
            ocp: ocp.clone(),
            p0: t.mpcc.p0.clone(),
            n_p: ocp.p.len(),
            n_intervals: ocp.n_intervals,
            solver,
            t,
            lowering,
            build_time: start.elapsed(),
        })
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

    /// A new fixed initial state for the following solves.
    pub fn set_x0(&mut self, x0: &[f64]) -> Result<()> {
        let Some(off) = self.t.x0_parameter else { return invalid("x0", "the initial state is free in this OCP") };
        if x0.len() != self.t.sizes.n_x || x0.iter().any(|v| !v.is_finite()) {
            return invalid("x0", format!("{} finite values expected", self.t.sizes.n_x));
        }
        self.p0[off..off + x0.len()].copy_from_slice(x0);
        Ok(())
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

    /// The table's guess with the states taken from the trajectory `x_of_t` on the
    /// nominal grid (every interval T/N long, its elements of equal length h): every
    /// element's end state `x(t_end)`, its stage states `x(t_start + c_m h)` in the
    /// integral form or, in the differential form, its stage derivatives all equal to
    /// the element's secant `(x(t_end) − x(t_start)) / h`, and a free x0's guess
    /// `x(0)`; T is the horizon's guess when it is free. Use it to start from an
    /// interpolation between the initial and a target state, or from a trajectory
    /// known from elsewhere. A value of the wrong size or not finite is an error.
    pub fn state_guess(&self, x_of_t: &dyn Fn(f64) -> Vec<f64>) -> Result<Vec<f64>> {
        let (ocp, n_x) = (&self.ocp, self.t.sizes.n_x);
        let horizon = ocp.horizon.guess();
        let fesd = &ocp.options.fesd;
        let c = fesd_rk::ButcherTableau::new(fesd.rk_family, fesd.n_s).map_err(fesd_discretization::DiscretizationError::Stages)?.c;
        let at = |t: f64| -> Result<Vec<f64>> {
            let x = x_of_t(t);
            if x.len() != n_x || x.iter().any(|v| !v.is_finite()) {
                return invalid("state guess", format!("x({t}) must have {n_x} finite entries, got {x:?}"));
            }
            Ok(x)
        };
        let table = &self.t.table;
        let mut w = table.guess.clone();
        let missing = |name: &str, k: usize, n: usize| OcpError::Invalid {
            what: "state guess",
            reason: format!("no block {name}({k}, {n}) of the right length"),
        };
        let interval = horizon / self.n_intervals as f64;
        if table.block("x0", None, None).is_some() {
            table.write(&mut w, "x0", None, None, &at(0.0)?).ok_or_else(|| missing("x0", 0, 0))?;
        }
        for (k, &n_fe) in self.t.fe.iter().enumerate() {
            let h = interval / n_fe as f64;
            for n in 0..n_fe {
                let t0 = k as f64 * interval + n as f64 * h;
                let (start, end) = (at(t0)?, at(t0 + h)?);
                let stages: Vec<f64> = match fesd.irk_representation {
                    fesd_discretization::IrkRepresentation::Integral => {
                        c.iter().map(|cm| at(t0 + cm * h)).collect::<Result<Vec<_>>>()?.concat()
                    }
                    fesd_discretization::IrkRepresentation::Differential => {
                        start.iter().zip(&end).map(|(a, b)| (b - a) / h).collect::<Vec<f64>>().repeat(c.len())
                    }
                };
                table.write(&mut w, "k", Some(k), Some(n), &stages).ok_or_else(|| missing("k", k, n))?;
                if !self.t.end_is_last_stage {
                    table.write(&mut w, "x", Some(k), Some(n), &end).ok_or_else(|| missing("x", k, n))?;
                }
            }
        }
        Ok(w)
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
        if p.len() != self.n_p {
            return invalid("p", format!("{} values given, {} expected", p.len(), self.n_p));
        }
        self.p0[..self.n_p].copy_from_slice(p);
        Ok(())
    }

    /// Re-simulates the optimal controls of `r` with the FESD simulator at high
    /// accuracy (Radau IIA n_s = 3, `steps_per_interval` steps of 2 elements per control
    /// interval) and returns the terminal error `max_i |x_i^sim(T) − x_i(T)|`: the
    /// accuracy measure of the FESD papers.
    pub fn resimulate(&self, r: &OcpResult, steps_per_interval: usize) -> Result<f64> {
        if steps_per_interval == 0 {
            return invalid("steps_per_interval", "needs at least one step");
        }
        let mut opts = fesd_sim::SimulatorOptions::default();
        opts.fesd.n_s = 3;
        opts.fesd.n_fe = 2;
        let mut sim = fesd_sim::Simulator::with_lowering(&self.ocp.model, opts, self.lowering.as_ref())?;
        let p = &r.p;
        let mut x = r.x.first().cloned().unwrap_or_default();
        for k in 0..self.n_intervals {
            let length = r.t_controls[k + 1] - r.t_controls[k];
            // A switch exactly on a step boundary can stall the simulator; a grid with
            // one or three more steps moves the boundaries off it.
            let mut done = None;
            for m in [steps_per_interval, steps_per_interval + 1, steps_per_interval + 3] {
                let out = sim.simulate_steps(&x, &r.u[k], p, length / m as f64, m)?;
                if out.completed {
                    done = Some(out.x_final().to_vec());
                    break;
                }
            }
            x = match done {
                Some(x) => x,
                None => return invalid("resimulate", format!("the simulation of interval {k} did not complete")),
            };
        }
        let end = r.x.last().cloned().unwrap_or_default();
        Ok(x.iter().zip(&end).fold(0.0f64, |m, (a, b)| m.max((a - b).abs())))
    }

    /// Replaces the initial guess by a simulation of the model with the guessed controls
    /// from the guessed (or fixed) initial state: one step of the OCP's own FESD
    /// discretization per control interval, so element lengths, switch positions and
    /// algebraic variables start consistent with the dynamics instead of constant. Returns
    /// the number of intervals whose step did not converge (their last iterate is used).
    /// Evidence: `docs/evidence/ocp.md`, "guess_by_simulation".
    pub fn guess_by_simulation(&mut self) -> Result<usize> {
        let ocp = &self.ocp;
        let x0 = ocp.x0.guess().to_vec();
        let horizon = ocp.horizon.guess();
        let mut p = ocp.p.clone();
        for fp in &ocp.free_parameters {
            p[fp.index] = fp.guess;
        }
        // One simulator per element count (intervals may differ), each one step of the
        // OCP's own discretization.
        let mut simulators: std::collections::BTreeMap<usize, fesd_sim::Simulator> = Default::default();
        let mut w = self.t.table.guess.clone();
        let (mut x, mut failed) = (x0, 0);
        for (k, &n_fe) in self.t.fe.iter().enumerate() {
            let sim = match simulators.entry(n_fe) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    let mut fesd = ocp.options.fesd.clone();
                    fesd.n_fe = n_fe;
                    let opts = fesd_sim::SimulatorOptions { fesd, max_step_halvings: 0, n_steps: 1, ..Default::default() };
                    e.insert(fesd_sim::Simulator::with_lowering(&ocp.model, opts, self.lowering.as_ref())?)
                }
            };
            let mut state = sim.start(&x, &ocp.u_guess, &p)?;
            if !sim.step_with_length(&mut state, &ocp.u_guess, &p, horizon / self.n_intervals as f64)? {
                failed += 1;
            }
            let (sw, from) = (state.solution(), &sim.interval().table);
            for n in 0..n_fe {
                for name in ["tau", "k", "z", "x"] {
                    let (src, dst) = match (from.block(name, Some(0), Some(n)), self.t.table.block(name, Some(k), Some(n))) {
                        (Some(src), Some(dst)) => (src, dst),
                        // No end-state block in either: the last stage is the end.
                        (None, None) if name == "x" => continue,
                        _ => return invalid("guess_by_simulation", format!("no block {name}({k}, {n})")),
                    };
                    if src.len != dst.len {
                        return invalid(
                            "guess_by_simulation",
                            format!("block {name}({k}, {n}) has {} entries, the simulation {}", dst.len, src.len),
                        );
                    }
                    w[dst.offset..dst.offset + dst.len].copy_from_slice(&sw[src.offset..src.offset + src.len]);
                }
            }
            x = state.x.clone();
        }
        self.solver.set_initial_guess(&w)?;
        Ok(failed)
    }

    /// New tracking references (one row of n_y values per interval) for the following
    /// solves.
    pub fn set_reference(&mut self, reference: &[Vec<f64>]) -> Result<()> {
        if self.t.n_y == 0 {
            return invalid("tracking", "this OCP has no tracking term");
        }
        crate::problem::check_reference(reference, self.n_intervals, self.t.n_y)?;
        let off = self.t.reference_parameter;
        for (k, row) in reference.iter().enumerate() {
            self.p0[off + k * self.t.n_y..off + (k + 1) * self.t.n_y].copy_from_slice(row);
        }
        Ok(())
    }

    /// Solves from the table's guess (first solve) or the previous solution.
    pub fn solve(&mut self) -> Result<OcpResult> {
        self.solver.set_parameters(&self.p0)?;
        let r = self.solver.solve();
        let w = r.w.clone();
        let out = self.t.outputs.eval_dense(&[&w, &self.p0])?;
        let (h, t_final) = (out[2].clone(), out[3][0]);
        let table = &self.t.table;
        let n_x = self.t.sizes.n_x;
        let x0 = match self.t.x0_parameter {
            Some(off) => self.p0[off..off + n_x].to_vec(),
            None => table.read(&w, "x0", None, None).map(<[f64]>::to_vec).unwrap_or_default(),
        };
        let mut x = vec![x0];
        let mut t = vec![0.0];
        let mut u = Vec::new();
        let mut t_controls = Vec::new();
        let mut e = 0;
        for k in 0..self.n_intervals {
            t_controls.push(*t.last().unwrap_or(&0.0));
            u.push(table.read(&w, "u", Some(k), None).map(<[f64]>::to_vec).unwrap_or_default());
            for n in 0..self.t.fe[k] {
                x.push(fesd_discretization::read_end_state(table, &w, (k, n), n_x, self.t.end_is_last_stage).unwrap_or_default());
                t.push(t.last().unwrap_or(&0.0) + h[e]);
                e += 1;
            }
        }
        t_controls.push(*t.last().unwrap_or(&0.0));
        let (n_theta, n_s) = (self.t.sizes.n_theta, self.t.sizes.n_s);
        let active_sets: Vec<Vec<usize>> = out[1]
            .chunks(n_theta * n_s)
            .map(|col| (0..n_theta).filter(|&i| (0..n_s).any(|m| col[m * n_theta + i] > 1e-5)).collect())
            .collect();
        let switch_times = (1..active_sets.len()).filter(|&e| active_sets[e] != active_sets[e - 1]).map(|e| t[e]).collect();
        // Later solves start from this solution.
        self.solver.set_initial_guess(&w)?;
        Ok(OcpResult {
            status: r.status,
            cost: out[4][0],
            p: out[5].clone(),
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
            mpcc: r,
            w,
            table: self.t.table.clone(),
        })
    }
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
    })
}
