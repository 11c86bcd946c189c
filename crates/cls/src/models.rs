//! Small rigid-body models with known answers, shared by the examples and tests.

use crate::error::Result;
use crate::model::{ClsModel, Contact};
use casadi::SX;

/// Gravitational acceleration used by these models.
pub const G: f64 = 9.81;

/// A 1-D ball of unit mass above the ground: q the height, gap q, restitution `eps`.
pub fn bouncing_ball(eps: f64) -> ClsModel {
    let q = SX::sym("q", 1);
    let v = SX::sym("v", 1);
    ClsModel::new(q.clone(), v).with_forces(SX::scalar(-G)).with_contact(Contact::new(q).restitution(eps))
}

/// A unit point mass in the plane, q = (x, y), above flat ground (gap y) with
/// restitution `eps` and Coulomb friction `mu` along x, and a constant horizontal
/// force `force` (a block on the ground when started at y = 0).
pub fn point_on_plane(eps: f64, mu: f64, force: f64) -> Result<ClsModel> {
    let q = SX::sym("q", 2);
    let v = SX::sym("v", 2);
    let y = q.at(1)?;
    let contact = Contact::new(y).restitution(eps);
    let contact = if mu > 0.0 { contact.friction(mu, SX::from_slice(&[1.0, 0.0])) } else { contact };
    Ok(ClsModel::new(q, v).with_forces(SX::from_slice(&[force, -G])).with_contact(contact))
}

/// A unit point mass in space, q = (x, y, z), above flat ground (gap z) with
/// restitution `eps`, spatial Coulomb friction `mu` (tangents x and y) and a constant
/// horizontal force `force` = (f_x, f_y) (a block on the ground when started at z = 0).
pub fn point_in_space(eps: f64, mu: f64, force: [f64; 2]) -> Result<ClsModel> {
    let q = SX::sym("q", 3);
    let v = SX::sym("v", 3);
    let contact =
        Contact::new(q.at(2)?).restitution(eps).spatial_friction(mu, SX::from_slice(&[1.0, 0.0, 0.0]), SX::from_slice(&[0.0, 1.0, 0.0]));
    Ok(ClsModel::new(q, v).with_forces(SX::from_slice(&[force[0], force[1], -G])).with_contact(contact))
}

/// A unit box of side 1 on the ground, q = (x, y) its centre (gap y − ½, Coulomb
/// friction `mu` along x, no restitution), pushed by a horizontal force u (the control).
pub fn pushed_box(mu: f64) -> Result<ClsModel> {
    let q = SX::sym("q", 2);
    let v = SX::sym("v", 2);
    let u = SX::sym("u", 1);
    let contact = Contact::new(q.at(1)? - 0.5).friction(mu, SX::from_slice(&[1.0, 0.0]));
    let forces = SX::vertcat(&[&u, &SX::scalar(-G)])?;
    Ok(ClsModel::new(q, v).with_controls(u).with_forces(forces).with_contact(contact))
}

/// Two unit-mass balls of radius 0.2 on a vertical line joined by a spring (stiffness
/// `k`, rest length 1): q = (q1, q2) the heights of the lower and the upper ball;
/// the lower one meets the ground (gap q1 − 0.2) with restitution `eps`.
pub fn two_balls(k: f64, eps: f64) -> Result<ClsModel> {
    let q = SX::sym("q", 2);
    let v = SX::sym("v", 2);
    let (q1, q2) = (q.at(0)?, q.at(1)?);
    let stretch = (&q2 - &q1 - 1.0) * k;
    let forces = SX::vertcat(&[&(&stretch - G), &(-&stretch - G)])?;
    Ok(ClsModel::new(q, v).with_forces(forces).with_contact(Contact::new(&q1 - 0.2).restitution(eps)))
}

/// Three unit-mass square boxes of side 1 on flat ground, in the plane:
/// q = (x₁, y₁, x₂, y₂, x₃, y₃) their centres, a horizontal force u on the middle
/// box. Five contacts, in this order: box 1–box 2 (gap x₂ − x₁ − 1, restitution 0,
/// friction 0.1 against vertical sliding of the faces), box 2–box 3 (gap x₃ − x₂ − 1,
/// restitution 0.5, friction 0.1), and each box on the ground (gap yᵢ − ½,
/// restitution 0, friction 0.2).
pub fn three_boxes() -> Result<ClsModel> {
    let q = SX::sym("q", 6);
    let v = SX::sym("v", 6);
    let u = SX::sym("u", 1);
    let unit = |entries: &[(usize, f64)]| {
        let mut d = vec![0.0; 6];
        for &(i, s) in entries {
            d[i] = s;
        }
        SX::from_slice(&d)
    };
    let between = |a: usize, eps: f64| -> Result<Contact> {
        let gap = q.at(2 * a + 2)? - q.at(2 * a)? - 1.0;
        Ok(Contact::new(gap).restitution(eps).friction(0.1, unit(&[(2 * a + 1, -1.0), (2 * a + 3, 1.0)])))
    };
    let ground = |i: usize| -> Result<Contact> { Ok(Contact::new(q.at(2 * i + 1)? - 0.5).friction(0.2, unit(&[(2 * i, 1.0)]))) };
    let (zero, down) = (SX::scalar(0.0), SX::scalar(-G));
    let forces = SX::vertcat(&[&zero, &down, &u, &down, &zero, &down])?;
    let contacts = [between(0, 0.0)?, between(1, 0.5)?, ground(0)?, ground(1)?, ground(2)?];
    Ok(contacts.into_iter().fold(ClsModel::new(q.clone(), v).with_controls(u).with_forces(forces), |m, c| m.with_contact(c)))
}
