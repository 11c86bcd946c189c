//! The model's mass matrix, forces and contact geometry as CasADi functions of
//! `(q, p)` (and `v`, `u` for the forces), called on the unknowns of every point.

use crate::blocks::{hcat, vcat};
use crate::error::Result;
use crate::model::ClsModel;
use crate::options::FrictionModel;
use casadi::{Function, SX};

pub(crate) struct Geometry {
    /// gaps(q, p) -> n_c × 1.
    pub gaps: Function,
    /// normals(q, p) -> n_q × n_c.
    normals: Function,
    /// directions(q, p) -> n_q × (n_d n_f): the friction directions of the frictional
    /// contacts, direction-major (column `k n_f + i` is direction k of the i-th
    /// frictional contact; k and k + n_d/2 are opposite).
    directions: Function,
    /// Directions per frictional contact (2 planar: ±t; `friction_directions` spatial
    /// polyhedral; 4 conic: t₁, t₂, −t₁, −t₂).
    pub n_d: usize,
    /// The conic friction model on spatial contacts: the multipliers along the four
    /// directions are the split w₊, w₋ of the friction direction w = w₊ − w₋ in the
    /// unit disk (force μ λ_n w).
    pub conic: bool,
    /// mass(q, p).
    mass: Function,
    /// forces(q, v, u, p).
    forces: Function,
}

impl Geometry {
    /// The model's geometry; spatial contacts get `spatial_directions` friction
    /// directions, or their two tangents under the conic model.
    pub fn new(m: &ClsModel, spatial_directions: usize, model: FrictionModel) -> Result<Geometry> {
        let n_q = m.n_q();
        let gaps: Vec<SX> = m.contacts.iter().map(|c| c.gap.clone()).collect();
        let normals: Vec<SX> = (0..m.n_c()).map(|l| m.normal(l)).collect::<Result<_>>()?;
        let frictional: Vec<&SX> = m.contacts.iter().filter(|c| c.has_friction()).filter_map(|c| c.tangent.as_ref()).collect();
        let spatial = frictional.iter().any(|t| t.ncol() == 2);
        let conic = spatial && model == FrictionModel::Conic;
        let n_d = match (spatial, conic) {
            (false, _) => 2,
            (true, true) => 4,
            (true, false) => spatial_directions,
        };
        let mut directions = Vec::with_capacity(n_d * frictional.len());
        for k in 0..n_d {
            for t in &frictional {
                directions.push(if spatial {
                    let theta = 2.0 * std::f64::consts::PI * k as f64 / n_d as f64;
                    t.get(.., 0usize)? * theta.cos() + t.get(.., 1usize)? * theta.sin()
                } else if k == 0 {
                    (*t).clone()
                } else {
                    -(*t)
                });
            }
        }
        let qp = [("q", &m.q), ("p", &m.p)];
        Ok(Geometry {
            gaps: Function::new("cls_gaps", &qp, &[("gap", &vcat(&gaps)?)])?,
            normals: Function::new("cls_normals", &qp, &[("J_n", &hcat(&normals, n_q)?)])?,
            directions: Function::new("cls_friction_directions", &qp, &[("D", &hcat(&directions, n_q)?)])?,
            n_d,
            conic,
            mass: Function::new("cls_mass", &qp, &[("M", &m.mass)])?,
            forces: Function::new("cls_forces", &[("q", &m.q), ("v", &m.v), ("u", &m.u), ("p", &m.p)], &[("f", &m.forces)])?,
        })
    }

    fn call(f: &Function, args: &[&SX]) -> Result<SX> {
        Ok(f.call(args)?.remove(0))
    }

    /// Gaps at q.
    pub fn gap(&self, q: &SX, p: &SX) -> Result<SX> {
        Self::call(&self.gaps, &[q, p])
    }

    /// Normal directions at q (n_q × n_c).
    pub fn normal(&self, q: &SX, p: &SX) -> Result<SX> {
        Self::call(&self.normals, &[q, p])
    }

    /// Friction directions at q (n_q × n_d n_f, direction-major).
    pub fn directions(&self, q: &SX, p: &SX) -> Result<SX> {
        Self::call(&self.directions, &[q, p])
    }

    /// M(q).
    pub fn mass(&self, q: &SX, p: &SX) -> Result<SX> {
        Self::call(&self.mass, &[q, p])
    }

    /// f(q, v, u).
    pub fn force(&self, q: &SX, v: &SX, u: &SX, p: &SX) -> Result<SX> {
        Self::call(&self.forces, &[q, v, u, p])
    }
}
