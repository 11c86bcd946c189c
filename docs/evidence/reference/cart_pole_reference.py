#!/usr/bin/env python3
"""The cart-pole swing-up with Coulomb friction on the cart (fesd: `problems::cart_pole`) on the
reference implementation (pip `nosnoc`), timed as its reference_ocps.py times its cases:
N control intervals (default 50) x N_FE = 2, Radau IIA n_s = 2, T = 5, other options default.
Prints one JSON line: {"case", "wall_s", "build_s", "ipopt_iter", "cost", "status"}.
Usage: cart_pole_reference.py [N]
"""
import json, os, sys, time
os.environ.setdefault("MPLBACKEND", "Agg")
import numpy as np
import nosnoc
from casadi import SX, vertcat, horzcat, sin, cos, inv

def cart_pole(n):
    q = SX.sym('q', 2); v = SX.sym('v', 2); x = vertcat(q, v); u = SX.sym('u')
    m1, m2, l, g, F = 1.0, 0.1, 1.0, 9.81, 2.0
    M = vertcat(horzcat(m1 + m2, m2 * l * cos(q[1])), horzcat(m2 * l * cos(q[1]), m2 * l**2))
    C = SX.zeros(2, 2); C[0, 1] = -m2 * l * v[1] * sin(q[1])
    f_all = vertcat(u, -m2 * g * l * sin(q[1])) - C @ v
    f1 = vertcat(v, inv(M) @ (f_all - vertcat(F, 0)))
    f2 = vertcat(v, inv(M) @ (f_all + vertcat(F, 0)))
    model = nosnoc.NosnocModel(x=x, F=[horzcat(f1, f2)], S=[np.array([[1], [-1]])], c=[v[0]],
                               x0=np.array([1.0, 0.0, 0.0, 0.0]), u=u)
    xr = np.array([0.0, np.pi, 0.0, 0.0])
    Q = np.diag([1.0, 100.0, 1.0, 1.0])
    f_q = (x - xr).T @ Q @ (x - xr) + u * u
    ocp = nosnoc.NosnocOcp(lbu=-30 * np.ones(1), ubu=30 * np.ones(1), f_q=f_q, g_terminal=x - xr,
                           lbx=np.array([-5.0, -4.1887902, -20.0, -20.0]), ubx=np.array([5.0, 4.1887902, 20.0, 20.0]))
    opts = nosnoc.NosnocOpts()
    opts.n_s = 2; opts.N_stages = n; opts.N_finite_elements = 2; opts.terminal_time = 5.0; opts.print_level = 0
    return model, ocp, opts

def run(case, model, ocp, opts):
    t0 = time.time(); solver = nosnoc.NosnocSolver(opts, model, ocp); tb = time.time() - t0
    t0 = time.time(); r = solver.solve(); ts = time.time() - t0
    it = r.get("nlp_iter"); it = int(np.sum([i for i in it if i is not None])) if it is not None else None
    st = r.get("status"); st = getattr(st, "name", str(st))
    print(json.dumps({"case": case, "wall_s": round(ts, 4), "build_s": round(tb, 4), "ipopt_iter": it,
                      "cost": float(r["cost_val"]), "status": st}), flush=True)

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    run(f"cart_pole_{n}", *cart_pole(n))
