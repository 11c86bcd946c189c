//! The two model kinds optimal control is written for, behind one trait: switched
//! systems ([`PssModel`], FESD) and rigid bodies with impacts and friction
//! ([`ClsModel`], FESD-J). Each gives its state, its discretization on the horizon
//! (a [`Dcs`]) and its simulator (for a re-simulation and a simulated guess);
//! everything else of an OCP is the same code for both.

use crate::error::{invalid, Result};
use crate::problem::one_state_affine;
use casadi::SX;
use fesd_cls::{ClsGrid, ClsModel, ClsOptions};
use fesd_discretization::{
    Dcs, ElementCounts, ElementGrid, ElementScheme, ElementTerms, FesdOptions, IrkRepresentation, StepEquilibrationHessian, VariableTable,
};
use fesd_model::{PssModel, SubsystemLowering};
use fesd_mpcc::{presets, HomotopyOptions};
use fesd_sim::{Simulator, SimulatorOptions};

/// The finite elements' options of a model kind, as an OCP owns them.
pub trait ElementOptions: Clone + std::fmt::Debug + PartialEq + serde::Serialize + serde::de::DeserializeOwned {
    /// The defaults for optimal control.
    fn ocp_default() -> Self;
    /// The optimal-control homotopy of this kind (a preset of `fesd_mpcc::presets`).
    fn ocp_homotopy() -> HomotopyOptions;
    /// The fields shared by both kinds (`n_fe` among them).
    fn scheme(&self) -> ElementScheme;
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

    /// [`presets::optimal_control`].
    fn ocp_homotopy() -> HomotopyOptions {
        presets::optimal_control()
    }

    fn scheme(&self) -> ElementScheme {
        Self::scheme(self)
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

    /// [`presets::rigid_body_optimal_control`].
    fn ocp_homotopy() -> HomotopyOptions {
        presets::rigid_body_optimal_control()
    }

    fn scheme(&self) -> ElementScheme {
        Self::scheme(self)
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

/// What a simulation of an OCP's controls runs with.
pub struct Simulation<'a, O> {
    /// The OCP's element options.
    pub options: &'a O,
    /// A switched system's DCS of the user's own (`None`: the options').
    pub lowering: Option<&'a dyn SubsystemLowering>,
    /// The model parameters' values.
    pub p: &'a [f64],
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
    /// Per state j, the state k with ẋ_j = x_k in every region (a position and its
    /// velocity), None elsewhere.
    fn velocity_states(&self) -> Result<Vec<Option<usize>>>;
    /// The horizon of `fe[k]` elements in interval k with `terms` inside every
    /// element; `lowering` writes a switched system's DCS (`None`: the options').
    fn horizon(
        &self,
        opts: &Self::Options,
        fe: ElementCounts,
        terms: &ElementTerms,
        lowering: Option<&dyn SubsystemLowering>,
    ) -> Result<Box<dyn Dcs>>;
    /// The simulated initial guess: `w` (laid out by `table`) with every interval's
    /// element unknowns from one simulation step of length `interval` of the OCP's own
    /// discretization (`fe[k]` elements) with the controls `u[k]`, chained from `x0`;
    /// and the number of intervals whose step did not converge (their last iterate is
    /// used).
    fn simulated_guess(
        &self,
        setup: &Simulation<Self::Options>,
        grid: (&[usize], f64),
        x0: &[f64],
        u: &[Vec<f64>],
        guess: (&VariableTable, Vec<f64>),
    ) -> Result<(Vec<f64>, usize)>;
    /// The state at T of a simulation of the controls `u` (piecewise constant on the
    /// intervals starting at `t_controls`) from `x0` at high accuracy with
    /// `steps_per_interval` steps per interval.
    fn simulate_controls(
        &self,
        setup: &Simulation<Self::Options>,
        x0: &[f64],
        u: &[Vec<f64>],
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

    fn velocity_states(&self) -> Result<Vec<Option<usize>>> {
        let n_x = PssModel::n_x(self);
        let x = &self.x;
        let mut out = vec![None; n_x];
        'states: for (j, slot) in out.iter_mut().enumerate() {
            // ẋ_j = f0_j + Σ_s f_s,j when every region of subsystem s has the same f_s,j.
            let mut rate = match &self.f0 {
                Some(f0) => f0.at(j)?,
                None => SX::scalar(0.0),
            };
            for sub in &self.subsystems {
                let Some(first) = sub.f.first() else { continue };
                let fj = first.at(j)?;
                for f in &sub.f[1..] {
                    let difference = &f.at(j)? - &fj;
                    if !(difference.is_constant() && difference.evalf()?.iter().all(|v| *v == 0.0)) {
                        continue 'states;
                    }
                }
                rate = &rate + &fj;
            }
            // A control or parameter in the rate makes it no velocity.
            if let Some((k, 1.0, 0.0)) = one_state_affine(&rate, x)? {
                *slot = Some(k);
            }
        }
        Ok(out)
    }

    fn validate_model(&self) -> Result<()> {
        Ok(self.validate()?)
    }

    fn horizon(
        &self,
        opts: &FesdOptions,
        fe: ElementCounts,
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
        &self,
        setup: &Simulation<FesdOptions>,
        (fe, interval): (&[usize], f64),
        x0: &[f64],
        u: &[Vec<f64>],
        (table, mut w): (&VariableTable, Vec<f64>),
    ) -> Result<(Vec<f64>, usize)> {
        let own = setup.options.lowering();
        let lowering = setup.lowering.unwrap_or(own.as_ref());
        let mut simulators: std::collections::BTreeMap<usize, Simulator> = Default::default();
        let (mut x, mut failed) = (x0.to_vec(), 0);
        for (k, &n_fe) in fe.iter().enumerate() {
            let sim = cached(&mut simulators, n_fe, || {
                let fesd = FesdOptions { n_fe, ..setup.options.clone() };
                let opts = SimulatorOptions { fesd, max_step_halvings: 0, n_steps: 1, ..Default::default() };
                Ok(Simulator::with_lowering(self, opts, lowering)?)
            })?;
            let mut state = sim.start(&x, &u[k], setup.p)?;
            if !sim.step_with_length(&mut state, &u[k], setup.p, interval)? {
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
        &self,
        setup: &Simulation<FesdOptions>,
        x0: &[f64],
        u: &[Vec<f64>],
        t_controls: &[f64],
        steps_per_interval: usize,
    ) -> Result<Vec<f64>> {
        let mut opts = SimulatorOptions::<PssModel>::default();
        opts.fesd.n_s = 3;
        opts.fesd.n_fe = 2;
        let own = setup.options.lowering();
        let mut sim = Simulator::with_lowering(self, opts, setup.lowering.unwrap_or(own.as_ref()))?;
        let mut x = x0.to_vec();
        for (k, uk) in u.iter().enumerate() {
            let length = t_controls[k + 1] - t_controls[k];
            let mut done = None;
            for m in [steps_per_interval, steps_per_interval + 1, steps_per_interval + 3] {
                let out = sim.simulate_steps(&x, uk, setup.p, length / m as f64, m)?;
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

/// The value of `key` in `cache`, made by `make` the first time.
fn cached<K: Ord, V>(cache: &mut std::collections::BTreeMap<K, V>, key: K, make: impl FnOnce() -> Result<V>) -> Result<&mut V> {
    Ok(match cache.entry(key) {
        std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::btree_map::Entry::Vacant(e) => e.insert(make()?),
    })
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

    /// q̇ = v: position i's velocity is state n_q + i.
    fn velocity_states(&self) -> Result<Vec<Option<usize>>> {
        let n_q = self.n_q();
        Ok((0..2 * n_q).map(|j| (j < n_q).then_some(n_q + j)).collect())
    }

    fn validate_model(&self) -> Result<()> {
        Ok(self.validate()?)
    }

    fn horizon(
        &self,
        opts: &ClsOptions,
        fe: ElementCounts,
        terms: &ElementTerms,
        _lowering: Option<&dyn SubsystemLowering>,
    ) -> Result<Box<dyn Dcs>> {
        Ok(Box::new(ClsGrid::new(self, opts, fe, terms)?))
    }

    /// Each interval one piece of the FESD-J simulator with the OCP's own
    /// discretization (the same unknowns, element by element) and the simulator's
    /// tie-break, which picks zero impulses and γ = |tᵀv| in each piece.
    fn simulated_guess(
        &self,
        setup: &Simulation<ClsOptions>,
        (fe, length): (&[usize], f64),
        x0: &[f64],
        u: &[Vec<f64>],
        (table, mut w): (&VariableTable, Vec<f64>),
    ) -> Result<(Vec<f64>, usize)> {
        let mut simulators: std::collections::BTreeMap<usize, Simulator<ClsModel>> = Default::default();
        let (mut x, mut failed) = (x0.to_vec(), 0);
        for (k, uk) in u.iter().enumerate() {
            let n_fe = fe[k];
            let sim = cached(&mut simulators, n_fe, || {
                let fesd = ClsOptions { rho_multipliers: 1.0, n_fe, ..setup.options.clone() };
                let opts = SimulatorOptions { fesd, step: length, n_steps: 1, max_step_halvings: 0, ..Default::default() };
                Ok(Simulator::new(self, opts)?)
            })?;
            let mut state = sim.start(&x, uk, setup.p)?;
            failed += usize::from(!sim.step_with_length(&mut state, uk, setup.p, length)?);
            let (sw, from) = (state.solution(), &sim.step_problem().table);
            for m in 0..n_fe {
                if setup.options.use_fesd {
                    copy_block(&mut w, table, ("tau", k, m), sw, from, ("tau", 0, m))?;
                }
                copy_block(&mut w, table, ("element", k, m), sw, from, ("element", 0, m))?;
            }
            x = state.x.clone();
        }
        Ok((w, failed))
    }

    /// The FESD-J simulator's defaults with the OCP's Runge–Kutta family and stages.
    fn simulate_controls(
        &self,
        setup: &Simulation<ClsOptions>,
        x0: &[f64],
        u: &[Vec<f64>],
        t_controls: &[f64],
        steps_per_interval: usize,
    ) -> Result<Vec<f64>> {
        let mut x = x0.to_vec();
        // One simulator per interval length (one for a fixed horizon).
        let mut simulators: std::collections::BTreeMap<i64, Simulator<ClsModel>> = Default::default();
        for (k, uk) in u.iter().enumerate() {
            let length = t_controls[k + 1] - t_controls[k];
            let sim = cached(&mut simulators, (length * 1e12).round() as i64, || {
                let mut opts = SimulatorOptions::<ClsModel> {
                    step: length / steps_per_interval as f64,
                    n_steps: steps_per_interval,
                    ..Default::default()
                };
                opts.fesd.rk_family = setup.options.rk_family;
                opts.fesd.n_s = setup.options.n_s;
                Ok(Simulator::new(self, opts)?)
            })?;
            let piece = sim.simulate(&x, uk, setup.p)?;
            x = [piece.q_final(), piece.v_final()].concat();
        }
        Ok(x)
    }
}
