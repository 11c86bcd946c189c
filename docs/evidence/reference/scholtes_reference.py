#!/usr/bin/env python3
"""The reference Scholtes homotopy on NOSBENCH files, as the reference results of the
development sets were measured (G_i H_i <= sigma from sigma = 1, kappa = 0.1, at most 12
NLPs, each NLP started from the last one's point whatever Ipopt's status; CasADi's
nlpsol('ipopt') with tol 1e-12, acceptable_tol 1e-6, mu_strategy adaptive,
bound_relax_factor 0, max_iter 500, warm_start_init_point yes), writing one JSON line per
file with the same fields plus `primal_infeasibility`: the largest violation of
lbg <= g <= ubg and lbw <= w <= ubw at the final point. `ok` keeps NOSBENCH's
complementarity-only test (max |G_i H_i| <= 1e-7).

Needs `pip install casadi==3.8.2`. Usage: scholtes_reference.py DIR_OR_FILE... > out.jsonl"""
import json
import os
import sys
import time

import casadi as ca
import numpy as np


def violation(values, lower, upper):
    values, lower, upper = (np.asarray(a, dtype=float).ravel() for a in (values, lower, upper))
    if values.size == 0:
        return 0.0
    return float(np.max(np.maximum(np.maximum(lower - values, values - upper), 0.0)))


def run(path):
    with open(path) as fh:
        data = json.load(fh)
    started = time.time()
    w, p = ca.SX.deserialize(data["w"]), ca.SX.deserialize(data["p"])
    call = lambda key: ca.Function.deserialize(data[key])(w, p)
    objective, g, G, H = call("augmented_objective_fun"), call("g_fun"), call("G_fun"), call("H_fun")
    sigma = ca.SX.sym("sigma")
    solver = ca.nlpsol("reference", "ipopt", {"x": w, "p": ca.vertcat(p, sigma), "f": objective, "g": ca.vertcat(g, G * H)}, {
        "print_time": False, "ipopt.print_level": 0, "ipopt.sb": "yes", "ipopt.tol": 1e-12,
        "ipopt.acceptable_tol": 1e-6, "ipopt.mu_strategy": "adaptive", "ipopt.bound_relax_factor": 0,
        "ipopt.max_iter": 500, "ipopt.warm_start_init_point": "yes"})
    build = time.time() - started
    products = ca.Function("products", [w, p], [G * H])
    constraints = ca.Function("constraints", [w, p], [g])
    n_comp = G.shape[0]
    x, s, iterations = data["w0"], 1.0, 0
    for _ in range(12):
        result = solver(x0=x, p=list(data["p0"]) + [s], lbx=data["lbw"], ubx=data["ubw"],
                        lbg=list(data["lbg"]) + [-ca.inf] * n_comp, ubg=list(data["ubg"]) + [s] * n_comp)
        stats = solver.stats()
        iterations += stats.get("iter_count", 0)
        x = result["x"]
        comp = float(np.max(np.abs(products(x, data["p0"]).full()))) if n_comp else 0.0
        if comp <= 1e-9:
            break
        s *= 0.1
    infeasibility = max(violation(constraints(x, data["p0"]).full(), data["lbg"], data["ubg"]),
                        violation(x.full(), data["lbw"], data["ubw"]))
    if not np.isfinite(infeasibility):  # JSON has no NaN or infinity
        infeasibility = 1e300
    return {"file": os.path.basename(path), "f": float(result["f"]), "comp": comp, "ok": comp <= 1e-7,
            "primal_infeasibility": infeasibility, "ipopt_iters": iterations, "build_s": build,
            "total_s": time.time() - started, "status": stats.get("return_status")}


if __name__ == "__main__":
    paths = []
    for arg in sys.argv[1:]:
        paths += sorted(os.path.join(arg, f) for f in os.listdir(arg) if f.endswith(".json")) if os.path.isdir(arg) else [arg]
    for path in paths:
        try:
            print(json.dumps(run(path)), flush=True)
        except Exception as error:  # one unreadable file must not end the run
            print(json.dumps({"file": os.path.basename(path), "error": str(error)[:200]}), flush=True)
