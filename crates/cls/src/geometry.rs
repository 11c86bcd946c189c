//! The model's mass matrix, forces and contact geometry as CasADi functions of
//! `(q, p)` (and `v`, `u` for the forces), called on the unknowns of every point.

use crate::blocks::{hcat, vcat};
use crate::error::Result;
use crate::model::ClsModel;
use casadi::{Function, SX};

pub(crate) struct Geometry {
    /// gaps(q, p) -> n_c × 1.
    pub gaps: Function,
    /// normals(q, p) -> n_q × n_c.
    normals: Function,
    /// tangents(q, p) -> n_q × n_c (zero columns for frictionless contacts).
    tangents: Function,
    /// mass(q, p).
    mass: Function,
    /// forces(q, v, u, p).
    forces: Function,
}

impl Geometry {
    pub fn new(m: &ClsModel) -> Result<Geometry> {
        let n_q = m.n_q();
        let gaps: Vec<SX> = m.contacts.iter().map(|c| c.gap.clone()).collect();
        let normals: Vec<SX> = (0..m.n_c()).map(|l| m.normal(l)).collect::<Result<_>>()?;
        let tangents: Vec<SX> = m.contacts.iter().map(|c| c.tangent.clone().unwrap_or_else(|| SX::zeros(n_q, 1))).collect();
        let qp = [("q", &m.q), ("p", &m.p)];
        Ok(Geometry {
            gaps: Function::new("cls_gaps", &qp, &[("gap", &vcat(&gaps)?)])?,
            normals: Function::new("cls_normals", &qp, &[("J_n", &hcat(&normals, n_q)?)])?,
            tangents: Function::new("cls_tangents", &qp, &[("J_t", &hcat(&tangents, n_q)?)])?,
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

    /// Tangent directions at q (n_q × n_c).
    pub fn tangent(&self, q: &SX, p: &SX) -> Result<SX> {
        Self::call(&self.tangents, &[q, p])
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
