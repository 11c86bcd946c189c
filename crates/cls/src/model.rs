//! Complementarity Lagrangian systems: generalized coordinates q, velocities v,
//! `M(q) v̇ = f(q, v, u) + Σ_ℓ (∇f_c^ℓ λ_n^ℓ + t^ℓ λ_t^ℓ)`, unilateral contacts
//! `f_c^ℓ(q) ≥ 0` with Newton restitution and Coulomb friction.

use crate::error::{model_error, ClsError, Result};
use casadi::{Function, SX};

/// One unilateral contact: gap `f_c(q) ≥ 0`, its normal (default `∇f_c`), for
/// friction its tangent directions — one column `t(q)` for a planar contact
/// (tangential velocity `tᵀ v`, friction exact), two columns `(t₁, t₂)` for a spatial
/// one (the friction cone a polyhedron of `friction_directions` directions
/// `cos θ_k t₁ + sin θ_k t₂` or the circular cone, by `ClsOptions::friction_model`) —,
/// restitution ε_r ∈ [0, 1]
/// and friction coefficient μ ≥ 0.
#[derive(Clone, Debug)]
pub struct Contact {
    /// Gap function f_c(q, p), scalar.
    pub gap: SX,
    /// Normal direction J_n(q) (n_q × 1); `None`: the gradient of the gap.
    pub normal: Option<SX>,
    /// Tangent directions J_t(q): n_q × 1 (planar) or n_q × 2 (spatial), needed when
    /// `friction > 0`.
    pub tangent: Option<SX>,
    /// Coefficient of restitution ε_r ∈ [0, 1] (0: plastic, 1: elastic).
    pub restitution: f64,
    /// Coulomb friction coefficient μ ≥ 0.
    pub friction: f64,
}

impl Contact {
    /// A frictionless, plastic contact with gap `gap`.
    pub fn new(gap: SX) -> Self {
        Contact { gap, normal: None, tangent: None, restitution: 0.0, friction: 0.0 }
    }

    /// Sets the coefficient of restitution.
    pub fn restitution(mut self, eps: f64) -> Self {
        self.restitution = eps;
        self
    }

    /// Sets Coulomb friction μ along the tangent direction `tangent` (n_q × 1).
    pub fn friction(mut self, mu: f64, tangent: SX) -> Self {
        self.friction = mu;
        self.tangent = Some(tangent);
        self
    }

    /// Sets Coulomb friction μ of a spatial contact with the tangent directions `t1`,
    /// `t2` (each n_q × 1, spanning the contact plane; directions of other shapes are
    /// reported by [`ClsModel::validate`]).
    pub fn spatial_friction(mut self, mu: f64, t1: SX, t2: SX) -> Self {
        self.friction = mu;
        // Columns of different lengths cannot be joined: an empty n × 2 placeholder
        // that validation names as a tangent of the wrong shape.
        self.tangent = Some(SX::horzcat(&[&t1, &t2]).unwrap_or_else(|_| SX::zeros(0, 2)));
        self
    }

    /// Number of tangent directions given (1 planar, 2 spatial, 0 none).
    pub fn tangent_dim(&self) -> usize {
        self.tangent.as_ref().map_or(0, |t| t.ncol())
    }

    /// Sets the normal direction (instead of the gradient of the gap).
    pub fn normal(mut self, normal: SX) -> Self {
        self.normal = Some(normal);
        self
    }

    /// True if the contact has friction.
    pub fn has_friction(&self) -> bool {
        self.friction > 0.0
    }
}

/// A rigid-body model: `q̇ = v`, `M(q) v̇ = f(q, v, u) + contact forces`.
#[derive(Clone, Debug)]
pub struct ClsModel {
    /// Generalized coordinates (n_q × 1 symbols).
    pub q: SX,
    /// Generalized velocities (n_q × 1 symbols).
    pub v: SX,
    /// Controls (n_u × 1 symbols, may be empty).
    pub u: SX,
    /// Parameters (n_p × 1 symbols, may be empty).
    pub p: SX,
    /// Mass matrix M(q, p), symmetric positive definite (default identity).
    pub mass: SX,
    /// Forces f(q, v, u, p): gravity, springs, damping, B(q) u (default zero).
    pub forces: SX,
    /// The contacts.
    pub contacts: Vec<Contact>,
}

impl ClsModel {
    /// The state x = (q, v) as one column of the model's symbols (what optimal
    /// control's costs, constraints and bounds are written in).
    pub fn state(&self) -> Result<SX> {
        Ok(SX::vertcat(&[&self.q, &self.v])?)
    }

    /// A model in coordinates `q` and velocities `v`, unit mass, no forces.
    pub fn new(q: SX, v: SX) -> Self {
        let n = q.nrow();
        let mass = SX::from_slice(&vec![1.0; n]);
        let mass = diagonal(&mass, n).unwrap_or_else(|_| SX::zeros(n, n));
        ClsModel { q, v, u: SX::zeros(0, 1), p: SX::zeros(0, 1), mass, forces: SX::zeros(n, 1), contacts: Vec::new() }
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

    /// Sets the mass matrix M(q, p).
    pub fn with_mass(mut self, mass: SX) -> Self {
        self.mass = mass;
        self
    }

    /// Sets the forces f(q, v, u, p).
    pub fn with_forces(mut self, forces: SX) -> Self {
        self.forces = forces;
        self
    }

    /// Adds a contact.
    pub fn with_contact(mut self, c: Contact) -> Self {
        self.contacts.push(c);
        self
    }

    /// Number of coordinates.
    pub fn n_q(&self) -> usize {
        self.q.nrow()
    }

    /// Number of contacts.
    pub fn n_c(&self) -> usize {
        self.contacts.len()
    }

    /// The normal direction of contact `l` (its given normal or ∇f_c).
    pub fn normal(&self, l: usize) -> Result<SX> {
        let c = &self.contacts[l];
        match &c.normal {
            Some(n) => Ok(n.clone()),
            None => Ok(SX::gradient(&c.gap, &self.q)?),
        }
    }

    /// Checks sizes, ranges, symmetry and definiteness of M (at sample points), that
    /// gaps and directions depend on positions only, and that every expression uses
    /// only the model's symbols.
    pub fn validate(&self) -> Result<()> {
        let n = self.n_q();
        if n == 0 || self.q.ncol() != 1 || !self.q.is_symbolic() {
            return Err(model_error("q", "needs a column of at least one symbol"));
        }
        if self.v.shape() != (n, 1) || !self.v.is_symbolic() {
            return Err(model_error("v", format!("needs a column of {n} symbols (one velocity per coordinate), got {:?}", self.v.shape())));
        }
        for (name, s) in [("u", &self.u), ("p", &self.p)] {
            if s.numel() > 0 && (s.ncol() != 1 || !s.is_symbolic()) {
                return Err(model_error(name, "needs a column of symbols"));
            }
        }
        if self.mass.shape() != (n, n) {
            return Err(model_error("mass matrix", format!("is {:?}, needs {n} × {n}", self.mass.shape())));
        }
        if self.forces.shape() != (n, 1) {
            return Err(model_error("forces", format!("is {:?}, needs {n} × 1", self.forces.shape())));
        }
        self.check_symbols("mass matrix", &self.mass)?;
        self.check_symbols("forces", &self.forces)?;
        self.check_positions_only("mass matrix", &self.mass)?;
        self.check_mass()?;
        if self.contacts.is_empty() {
            return Err(model_error("contacts", "a rigid-body model needs at least one contact (without contacts it is a smooth ODE)"));
        }
        for (l, c) in self.contacts.iter().enumerate() {
            let what = format!("contact {l}");
            if c.gap.shape() != (1, 1) {
                return Err(model_error(&what, format!("the gap function must be scalar, is {:?}", c.gap.shape())));
            }
            self.check_symbols(&what, &c.gap)?;
            self.check_positions_only(&format!("{what} gap"), &c.gap)?;
            if !(c.restitution.is_finite() && (0.0..=1.0).contains(&c.restitution)) {
                return Err(model_error(&what, format!("restitution {} outside [0, 1]", c.restitution)));
            }
            if !(c.friction.is_finite() && c.friction >= 0.0) {
                return Err(model_error(&what, format!("friction coefficient {} must be finite and ≥ 0", c.friction)));
            }
            for (name, dir, cols) in [("normal", &c.normal, &[1][..]), ("tangent", &c.tangent, &[1, 2][..])] {
                if let Some(d) = dir {
                    if d.nrow() != n || !cols.contains(&d.ncol()) {
                        let need = if cols.len() == 1 { format!("{n} × 1") } else { format!("{n} × 1 (planar) or {n} × 2 (spatial)") };
                        return Err(model_error(&what, format!("the {name} direction is {:?}, needs {need}", d.shape())));
                    }
                    self.check_symbols(&what, d)?;
                    self.check_positions_only(&format!("{what} {name}"), d)?;
                }
            }
            if c.has_friction() && c.tangent.is_none() {
                return Err(model_error(&what, "friction > 0 needs a tangent direction"));
            }
        }
        let dims: Vec<usize> = self.contacts.iter().filter(|c| c.has_friction()).map(Contact::tangent_dim).collect();
        if dims.windows(2).any(|w| w[0] != w[1]) {
            return Err(model_error("contacts", "frictional contacts must be all planar (one tangent) or all spatial (two tangents)"));
        }
        Ok(())
    }

    fn check_symbols(&self, what: &str, e: &SX) -> Result<()> {
        match Function::new("cls_check", &[("q", &self.q), ("v", &self.v), ("u", &self.u), ("p", &self.p)], &[("e", e)]) {
            Ok(_) => Ok(()),
            Err(err) => match err.free_symbols() {
                Some(names) => Err(model_error(what, format!("depends on {names}, which are not symbols of the model (q, v, u, p)"))),
                None if err.is_repeated_input() => Err(model_error("symbols", "q, v, u and p must be distinct symbols")),
                None => Err(ClsError::Casadi(err)),
            },
        }
    }

    fn check_positions_only(&self, what: &str, e: &SX) -> Result<()> {
        let flat = e.reshape(e.numel(), 1)?;
        for (name, s) in [("velocities v", &self.v), ("controls u", &self.u)] {
            if s.numel() > 0 && SX::jacobian(&flat, s)?.nnz() > 0 {
                return Err(model_error(what, format!("may depend on positions q (and parameters) only, but depends on the {name}")));
            }
        }
        Ok(())
    }

    /// M symmetric and positive definite at a few sample positions (parameters at 1).
    fn check_mass(&self) -> Result<()> {
        let n = self.n_q();
        let f = Function::new("cls_mass", &[("q", &self.q), ("p", &self.p)], &[("M", &self.mass)])?;
        let p = vec![1.0; self.p.numel()];
        for sample in [0.0, 0.37, -1.21] {
            let q: Vec<f64> = (0..n).map(|i| sample * (1.0 + 0.5 * i as f64)).collect();
            let m = f.eval_dense(&[&q, &p])?.remove(0);
            let at = |i: usize, j: usize| m[i + j * n];
            let scale = m.iter().fold(0.0f64, |a, b| a.max(b.abs())).max(1e-300);
            for i in 0..n {
                for j in 0..i {
                    if (at(i, j) - at(j, i)).abs() > 1e-12 * scale {
                        return Err(model_error(
                            "mass matrix",
                            format!("not symmetric at q = {q:?}: M[{i},{j}] = {} but M[{j},{i}] = {}", at(i, j), at(j, i)),
                        ));
                    }
                }
            }
            if !cholesky_ok(&m, n) {
                return Err(model_error("mass matrix", format!("not positive definite at q = {q:?}")));
            }
        }
        Ok(())
    }
}

/// An n × n SX with `d` on the diagonal.
pub(crate) fn diagonal(d: &SX, n: usize) -> Result<SX> {
    let mut m = SX::zeros(n, n);
    for i in 0..n {
        m.set(&d.at(i)?, i, i)?;
    }
    Ok(m)
}

/// True if the symmetric column-major matrix `m` has a Cholesky factor.
fn cholesky_ok(m: &[f64], n: usize) -> bool {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = m[j + j * n];
        for k in 0..j {
            d -= l[j + k * n] * l[j + k * n];
        }
        if !(d > 0.0 && d.is_finite()) {
            return false;
        }
        l[j + j * n] = d.sqrt();
        for i in j + 1..n {
            let mut s = m[i + j * n];
            for k in 0..j {
                s -= l[i + k * n] * l[j + k * n];
            }
            l[i + j * n] = s / l[j + j * n];
        }
    }
    true
}
