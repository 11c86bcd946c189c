//! Development check of the rigid-body OCP on small problems.
use casadi::SX;
use fesd_cls::{ClsModel, ClsOcp, ClsOcpSolver, Contact};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let mu: f64 = args.get(1).map_or(0.2, |s| s.parse().unwrap());
    let q = SX::sym("q", 2);
    let v = SX::sym("v", 2);
    let u = SX::sym("u", 1);
    let mut c = Contact::new(q.at(1)? - 0.5);
    if mu > 0.0 {
        c = c.friction(mu, SX::from_slice(&[1.0, 0.0]));
    }
    let forces = SX::vertcat(&[&u, &SX::scalar(-9.81)])?;
    let model = ClsModel::new(q.clone(), v.clone()).with_controls(u.clone()).with_forces(forces).with_contact(c);
    let term = SX::vertcat(&[&q.at(0)?, &v])?;
    let mut ocp = ClsOcp::new(model, 2.0, 10, &[0.0, 0.5], &[0.0, 0.0])
        .with_control_bounds(&[-30.0], &[30.0])
        .with_lagrange(&u * &u)
        .with_terminal(term, &[1.0, 0.0, 0.0], &[1.0, 0.0, 0.0]);
    ocp.options.homotopy.verbosity = 1;
    ocp.options.cls.rho_multipliers = args.get(2).map_or(0.0, |s| s.parse().unwrap());
    let mut s = ClsOcpSolver::new(&ocp)?;
    let r = s.solve()?;
    println!("{:?} cost {} comp {:.2e}", r.status, r.cost, r.comp_residual);
    for (k, u) in r.u.iter().enumerate() {
        println!("u[{k}] = {:.4}  q = {:?}", u[0], r.q[k * 2 + 2]);
    }
    Ok(())
}
