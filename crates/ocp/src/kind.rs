//! The two model kinds optimal control is written for, behind one trait: switched
//! systems ([`PssModel`], FESD) and rigid bodies with impacts and friction
//! ([`ClsModel`], FESD-J). Each gives its state, its discretization on the horizon
//! (a [`Dcs`]) and its simulator (for a re-simulation and a simulated guess);
//! everything else of an OCP is the same code for both.

use crate::error::{invalid, Result};
use crate::problem::Ocp;
use casadi::SX;
use fesd_cls::{ClsGrid, ClsModel, ClsOptions, ClsSimulator, ClsSimulatorOptions};
use fesd_discretization::{Dcs, ElementGrid, ElementTerms, FesdOptions, IrkRepresentation, StepEquilibrationHessian, VariableTable};
use fesd_model::{PssModel, SubsystemLowering};
use fesd_mpcc::HomotopyOptions;

/// The finite elements' options of a model kind, as an OCP owns them.
pub trait ElementOptions: Clone + std::fmt::Debug + PartialEq + serde::Serialize + serde::de::DeserializeOwned {
    /// The defaults for optimal control.
    fn ocp_default() -> Self;
    /// The optimal-control homotopy of this kind: [`HomotopyOptions::scholtes_direct`]
    /// (direct steering from σ_0 = 1, κ = 0.1) with the superlinear update
    /// σ_{k+1} = min(κ σ_k, σ_k²) (`sigma_exponent = 2`): 1, 0.1, 0.01, 1e-4, 1e-8, …,
    /// fewer Ipopt iterations than the linear update at the same costs.
    /// Evidence: `docs/evidence/ocp.md`, "The optimal-control homotopy".
    fn ocp_homotopy() -> HomotopyOptions;
    /// Finite elements per control interval.
    fn n_fe(&self) -> usize;
    /// Checks every field (once, here).
    fn validate_element(&self) -> Result<()>;
    /// These options for an NLP expanded into one SX graph: the exact
    /// step-equilibration Hessian (see [`FesdOptions::for_expansion`]).
    fn for_expansion(&self) -> Self;
    /// Whether the stage states are unknowns (stage bounds need them).
    fn stage_states_are_unknowns(&self) -> bool;
}

impl ElementOptions for FesdOptions {
    fn ocp_default() -> Self {
        FesdOptions::default()
    }

    fn ocp_homotopy() -> HomotopyOptions {
        HomotopyOptions { sigma_exponent: 2.0, ..HomotopyOptions::scholtes_direct() }
    }

    fn n_fe(&self) -> usize {
        self.n_fe
    }

    fn validate_element(&self) -> Result<()> {
        self.validate()?;
        Ok(())
    }

    fn for_expansion(&self) -> Self {
        FesdOptions::for_expansion(self)
    }

    fn stage_states_are_unknowns(&self) -> bool {
        self.irk_representation == IrkRepresentation::Integral
    }
}

/// Rigid bodies: the simulator's defaults except `rho_multipliers = 0` and
/// `slip_complementarity = true`. In an OCP the full ℓ1 tie-break is a cost on |tᵀv|
/// (through γ) and on approach velocities that competes with the user's cost (on the
/// pushed box it waits 0.6 s stuck and ends at 10.007 instead of the exact 9.2140);
/// the slip pair keeps γ = |tᵀv| where a contact is open. `rho_impulses` stays 0 (it
/// adds weight × impulse to the objective). Evidence: `docs/evidence/cls.md`.
impl ElementOptions for ClsOptions {
    fn ocp_default() -> Self {
        ClsOptions { rho_multipliers: 0.0, slip_complementarity: true, ..ClsOptions::default() }
    }

    /// As for switched systems, with each NLP stopped after 500 Ipopt iterations and
    /// resumed from its last iterate, up to 10 recoveries: resting frictional contacts
    /// stall Ipopt and a resume frees it. Evidence: `docs/evidence/cls.md`, "The
    /// rigid-body OCP homotopy".
    fn ocp_homotopy() -> HomotopyOptions {
        HomotopyOptions { max_iter: 500, max_recoveries: 10, ..FesdOptions::ocp_homotopy() }
    }

    fn n_fe(&self) -> usize {
        self.n_fe
    }

    fn validate_element(&self) -> Result<()> {
        self.validate()?;
        Ok(())
    }

    fn for_expansion(&self) -> Self {
        ClsOptions { step_equilibration_hessian: StepEquilibrationHessian::Exact, ..self.clone() }
    }

    fn stage_states_are_unknowns(&self) -> bool {
        true
    }
}

/// A model kind optimal control is written for.
pub trait ModelKind: Clone + std::fmt::Debug + 'static {
    /// Its finite elements' options.
    type Options: ElementOptions;
    /// The state x as one column of the model's symbols.
    fn state(&self) -> Result<SX>;
    /// States n_x.
    fn n_x(&self) -> usize;
    /// The controls u.
    fn controls(&self) -> &SX;
    /// The parameters p.
    fn parameters(&self) -> &SX;
    /// Checks the model.
    fn validate_model(&self) -> Result<()>;
    /// The horizon of `fe[k]` elements in interval k with `terms` inside every
    /// element; `lowering` writes a switched system's DCS (`None`: the options').
    fn horizon(
        &self,
        opts: &Self::Options,
        fe: Vec<usize>,
        terms: &ElementTerms,
        lowering: Option<&dyn SubsystemLowering>,
    ) -> Result<Box<dyn Dcs>>;
    /// The simulated initial guess: `w` (laid out by `table`) with every interval's
    /// element unknowns from one simulation step of the OCP's own discretization with
    /// the controls `u[k]`, chained from `x0`; and the number of intervals whose step
    /// did not converge (their last iterate is used).
    fn simulated_guess(
        ocp: &Ocp<Self>,
        lowering: Option<&dyn SubsystemLowering>,
        table: &VariableTable,
        w: Vec<f64>,
        x0: &[f64],
        u: &[Vec<f64>],
    ) -> Result<(Vec<f64>, usize)>;
    /// The state at T of a simulation of the controls `u` (piecewise constant on the
    /// intervals starting at `t_controls`) from `x0` at high accuracy with
    /// `steps_per_interval` steps per interval.
    fn simulate_controls(
        ocp: &Ocp<Self>,
        lowering: Option<&dyn SubsystemLowering>,
        x0: &[f64],
        u: &[Vec<f64>],
        p: &[f64],
        t_controls: &[f64],
        steps_per_interval: usize,
    ) -> Result<Vec<f64>>;
}

impl ModelKind for PssModel {
    type Options = FesdOptions;

    fn state(&self) -> Result<SX> {
        Ok(self.x.clone())
    }

    fn n_x(&self) -> usize {
        PssModel::n_x(self)
    }

    fn controls(&self) -> &SX {
        &self.u
    }

    fn parameters(&self) -> &SX {
        &self.p
    }

    fn validate_model(&self) -> Result<()> {
        Ok(self.validate()?)
    }

    fn horizon(
        &self,
        opts: &FesdOptions,
        fe: Vec<usize>,
        terms: &ElementTerms,
        lowering: Option<&dyn SubsystemLowering>,
    ) -> Result<Box<dyn Dcs>> {
        let grid = match lowering {
            Some(l) => ElementGrid::with_lowering(self, opts, fe, terms, l)?,
            None => ElementGrid::new(self, opts, fe, terms)?,
        };
        Ok(Box::new(grid))
    }

    /// One simulator per element count (intervals may differ), each one step of the
    /// OCP's own discretization; its blocks (`tau`, `k`, `z`, `x`) copied by name.
    fn simulated_guess(
        ocp: &Ocp<Self>,
        lowering: Option<&dyn SubsystemLowering>,
        table: &VariableTable,
        mut w: Vec<f64>,
        x0: &[f64],
        u: &[Vec<f64>],
    ) -> Result<(Vec<f64>, usize)> {
        let (mut x, p, horizon) = (x0.to_vec(), ocp.parameter_guess(), ocp.horizon.guess());
        let own = ocp.options.fesd.lowering();
        let lowering = lowering.unwrap_or(own.as_ref());
        let mut simulators: std::collections::BTreeMap<usize, fesd_sim::Simulator> = Default::default();
        let mut failed = 0;
        for (k, &n_fe) in ocp.fe_counts().iter().enumerate() {
            let sim = match simulators.entry(n_fe) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    let fesd = FesdOptions { n_fe, ..ocp.options.fesd.clone() };
                    let opts = fesd_sim::SimulatorOptions { fesd, max_step_halvings: 0, n_steps: 1, ..Default::default() };
                    e.insert(fesd_sim::Simulator::with_lowering(&ocp.model, opts, lowering)?)
                }
            };
            let mut state = sim.start(&x, &u[k], &p)?;
            if !sim.step_with_length(&mut state, &u[k], &p, horizon / ocp.n_intervals as f64)? {
                failed += 1;
            }
            let (sw, from) = (state.solution(), &sim.interval().table);
            for n in 0..n_fe {
                for name in ["tau", "k", "z", "x"] {
                    copy_block(&mut w, table, (name, k, n), sw, from, (name, 0, n))?;
                }
            }
            x = state.x.clone();
        }
        Ok((w, failed))
    }

    /// Radau IIA n_s = 3, steps of 2 elements; a switch exactly on a step boundary can
    /// stall the simulator, so a grid with one or three more steps moves the
    /// boundaries off it.
    fn simulate_controls(
        ocp: &Ocp<Self>,
        lowering: Option<&dyn SubsystemLowering>,
        x0: &[f64],
        u: &[Vec<f64>],
        p: &[f64],
        t_controls: &[f64],
        steps_per_interval: usize,
    ) -> Result<Vec<f64>> {
        let mut opts = fesd_sim::SimulatorOptions::default();
        opts.fesd.n_s = 3;
        opts.fesd.n_fe = 2;
        let own = ocp.options.fesd.lowering();
        let mut sim = fesd_sim::Simulator::with_lowering(&ocp.model, opts, lowering.unwrap_or(own.as_ref()))?;
        let mut x = x0.to_vec();
        for (k, uk) in u.iter().enumerate() {
            let length = t_controls[k + 1] - t_controls[k];
            let mut done = None;
            for m in [steps_per_interval, steps_per_interval + 1, steps_per_interval + 3] {
                let out = sim.simulate_steps(&x, uk, p, length / m as f64, m)?;
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
        Ok(x)
    }
}

/// Copies block `dst` of `table` in `w` from block `src` of `from` in `sw`; a block
/// missing in both is skipped only for `x` (the last stage is the end).
fn copy_block(
    w: &mut [f64],
    table: &VariableTable,
    dst: (&str, usize, usize),
    sw: &[f64],
    from: &VariableTable,
    src: (&str, usize, usize),
) -> Result<()> {
    let (name, k, n) = dst;
    match (from.block(src.0, Some(src.1), Some(src.2)), table.block(name, Some(k), Some(n))) {
        (Some(s), Some(d)) if s.len == d.len => {
            w[d.offset..d.offset + d.len].copy_from_slice(&sw[s.offset..s.offset + s.len]);
            Ok(())
        }
        (Some(s), Some(d)) => {
            invalid("guess_by_simulation", format!("block {name}({k}, {n}) has {} entries, the simulation {}", d.len, s.len))
        }
        (None, None) if name == "x" => Ok(()),
        _ => invalid("guess_by_simulation", format!("no block {name}({k}, {n})")),
    }
}

impl ModelKind for ClsModel {
    type Options = ClsOptions;

    fn state(&self) -> Result<SX> {
        Ok(ClsModel::state(self)?)
    }

    fn n_x(&self) -> usize {
        2 * self.n_q()
    }

    fn controls(&self) -> &SX {
        &self.u
    }

    fn parameters(&self) -> &SX {
        &self.p
    }

    fn validate_model(&self) -> Result<()> {
        Ok(self.validate()?)
    }

    fn horizon(
        &self,
        opts: &ClsOptions,
        fe: Vec<usize>,
        terms: &ElementTerms,
        _lowering: Option<&dyn SubsystemLowering>,
    ) -> Result<Box<dyn Dcs>> {
        Ok(Box::new(ClsGrid::new(self, opts, fe, terms)?))
    }

    /// Each interval one piece of the FESD-J simulator with the OCP's own
    /// discretization (the same unknowns, element by element) and the simulator's
    /// tie-break, which picks zero impulses and γ = |tᵀv| in each piece.
    fn simulated_guess(
        ocp: &Ocp<Self>,
        _lowering: Option<&dyn SubsystemLowering>,
        table: &VariableTable,
        mut w: Vec<f64>,
        x0: &[f64],
        u: &[Vec<f64>],
    ) -> Result<(Vec<f64>, usize)> {
        let n_q = ocp.model.n_q();
        let fe = ocp.fe_counts();
        let (p, horizon) = (ocp.parameter_guess(), ocp.horizon.guess());
        let length = horizon / ocp.n_intervals as f64;
        let mut simulators: std::collections::BTreeMap<usize, ClsSimulator> = Default::default();
        let (mut q, mut v) = (x0[..n_q].to_vec(), x0[n_q..].to_vec());
        let mut failed = 0;
        for (k, uk) in u.iter().enumerate() {
            let n_fe = fe[k];
            let sim = match simulators.entry(n_fe) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    let cls = ClsOptions { rho_multipliers: 1.0, n_fe, ..ocp.options.fesd.clone() };
                    let opts = ClsSimulatorOptions { cls, step: length, n_steps: 1, ..Default::default() };
                    e.insert(ClsSimulator::new(&ocp.model, opts)?)
                }
            };
            let r = sim.solve_piece(&q, &v, uk, &p, length)?;
            failed += usize::from(!r.status.is_converged());
            let step = sim.step_problem();
            for m in 0..n_fe {
                copy_block(&mut w, table, ("tau", k, m), &r.w, &step.table, ("tau", 0, m)).or_else(|e| {
                    if ocp.options.fesd.use_fesd {
                        Err(e)
                    } else {
                        Ok(())
                    }
                })?;
                copy_block(&mut w, table, ("element", k, m), &r.w, &step.table, ("element", 0, m))?;
            }
            let (layout, last) = (&step.layout, n_fe - 1);
            q = r.w[layout.q_end[last]..layout.q_end[last] + n_q].to_vec();
            v = r.w[layout.v_end[last]..layout.v_end[last] + n_q].to_vec();
        }
        Ok((w, failed))
    }

    /// The FESD-J simulator's defaults with the OCP's Runge–Kutta family and stages.
    fn simulate_controls(
        ocp: &Ocp<Self>,
        _lowering: Option<&dyn SubsystemLowering>,
        x0: &[f64],
        u: &[Vec<f64>],
        p: &[f64],
        t_controls: &[f64],
        steps_per_interval: usize,
    ) -> Result<Vec<f64>> {
        let n_q = ocp.model.n_q();
        let (mut q, mut v) = (x0[..n_q].to_vec(), x0[n_q..].to_vec());
        // One simulator per interval length (one for a fixed horizon).
        let mut simulators: std::collections::BTreeMap<i64, ClsSimulator> = Default::default();
        for (k, uk) in u.iter().enumerate() {
            let length = t_controls[k + 1] - t_controls[k];
            let sim = match simulators.entry((length * 1e12).round() as i64) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => {
                    let mut opts =
                        ClsSimulatorOptions { step: length / steps_per_interval as f64, n_steps: steps_per_interval, ..Default::default() };
                    opts.cls.rk_family = ocp.options.fesd.rk_family;
                    opts.cls.n_s = ocp.options.fesd.n_s;
                    e.insert(ClsSimulator::new(&ocp.model, opts)?)
                }
            };
            let piece = sim.simulate(&q, &v, uk, p)?;
            q = piece.q_final().to_vec();
            v = piece.v_final().to_vec();
        }
        Ok([q, v].concat())
    }
}
