/* one_state: an optimal control problem exported by fesd 0.1.0.
 * Generated; do not edit. */
#ifndef ONE_STATE_SOLVER_H
#define ONE_STATE_SOLVER_H

#include "fesd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* States, controls, control intervals, finite elements and NLP variables. */
#define ONE_STATE_NX 1
#define ONE_STATE_NU 1
#define ONE_STATE_N 4
#define ONE_STATE_N_ELEMENTS 8
/* The element boundary that ends the first control interval (index into the points
 * of _get_states). */
#define ONE_STATE_FIRST_INTERVAL_END 2
#define ONE_STATE_NW 108
#define ONE_STATE_NP 2
/* The parameter vector (fesd_solver_get_parameters / fesd_solver_set_parameters): the
 * model's NP_MODEL parameters, then the fixed initial state x0 (NX values; offset -1 if
 * x0 is free), then the tracking references (N rows of NY values; offset -1 without
 * tracking). */
#define ONE_STATE_NP_MODEL 1
#define ONE_STATE_P_OFFSET 0
#define ONE_STATE_X0_OFFSET 1
#define ONE_STATE_NY 0
#define ONE_STATE_REFERENCE_OFFSET -1
/* The module's function of the solution: outputs h (step sizes), T, cost, p_model,
 * activity, x, u, t and the model kind's results, in this order
 * (fesd_solver_get_output). */
#define ONE_STATE_OUTPUTS "one_state_outputs"
#define ONE_STATE_OUTPUT_H 0
#define ONE_STATE_OUTPUT_T 1
#define ONE_STATE_OUTPUT_COST 2
#define ONE_STATE_OUTPUT_X 5
#define ONE_STATE_OUTPUT_U 6
#define ONE_STATE_OUTPUT_TIMES 7
/* Lengths of the getters' arrays. */
#define ONE_STATE_STEP_SIZES_LEN ONE_STATE_N_ELEMENTS
#define ONE_STATE_STATES_LEN (ONE_STATE_NX * (ONE_STATE_N_ELEMENTS + 1))
#define ONE_STATE_CONTROLS_LEN (ONE_STATE_NU * ONE_STATE_N)
#define ONE_STATE_TIMES_LEN (ONE_STATE_N_ELEMENTS + 1)

/* Fills `problem` for fesd_solver_create: the kernel table, the constant tables and
 * the solver's record, all compiled into this library. */
void one_state_problem(fesd_problem* problem);

/* A solver of this problem (fesd.h's solver; the wrappers below fix the lengths). */
typedef fesd_solver one_state_solver;

/* fesd_solver_create for this problem (options and error may be NULL). */
int one_state_create(const fesd_create_options* options, one_state_solver** out, char* error, size_t error_len);

/* Frees the solver (NULL allowed). */
void one_state_free(one_state_solver* solver);

/* Solves from the current start (the last solution after a first solve); info (may
 * be NULL) also gets the OCP's cost and T. FESD_OK, FESD_NOT_CONVERGED or
 * FESD_NLP_FAILED (the last iterate stays readable), or a negative FESD_ERR_*. */
int one_state_solve(one_state_solver* solver, fesd_solve_info* info);

/* A new fixed initial state (len = ONE_STATE_NX) for the following solves:
 * FESD_ERR_STATE if x0 is free in this OCP, FESD_ERR_LENGTH, FESD_ERR_NOT_FINITE. */
int one_state_set_x0(one_state_solver* solver, const double* x0, size_t len);

/* New values of the model's parameters (len = ONE_STATE_NP_MODEL); a free parameter's
 * value is only its initial guess. */
int one_state_set_parameters(one_state_solver* solver, const double* p, size_t len);

/* New tracking references, N rows of NY values (len = ONE_STATE_N * ONE_STATE_NY):
 * FESD_ERR_STATE if the OCP tracks nothing. */
int one_state_set_reference(one_state_solver* solver, const double* reference, size_t len);

/* The next solve starts from w (len = ONE_STATE_NW). */
int one_state_set_initial_guess(one_state_solver* solver, const double* w, size_t len);

/* The next solve starts from a state trajectory: x holds the states at x0 and every
 * element's end on the nominal grid (T/N per interval, equal elements), NX values
 * per point (len = ONE_STATE_STATES_LEN, as _get_states); between them the states are
 * interpolated linearly, and the rest of w is the exported guess (the Rust solver's
 * set_state_guess). FESD_ERR_STATE where that guess is not affine in the states. */
int one_state_set_state_guess(one_state_solver* solver, const double* x, size_t len);

/* The next solve starts from the last solve's final homotopy NLP, primal and dual
 * (model predictive control); FESD_ERR_STATE before the first solve. */
int one_state_warm_start_from_last_solve(one_state_solver* solver);

/* The next solve starts from the exported initial guess again. */
int one_state_reset_guess(one_state_solver* solver);

/* Sets a homotopy option (kappa, comp_tol, max_iter, …) to a JSON value; options
 * compiled into the kernels are refused with FESD_ERR_OPTION. */
int one_state_set_option(one_state_solver* solver, const char* key, const char* value);

/* Why the last call failed ("" after a successful one). */
const char* one_state_last_error(const one_state_solver* solver);

/* The horizon T of the last solve. */
int one_state_get_t_final(one_state_solver* solver, double* t_final);

/* The cost of the last solve (the OCP's, without the relaxation's terms). */
int one_state_get_cost(one_state_solver* solver, double* cost);

/* The last solve's finite element lengths h (len = ONE_STATE_STEP_SIZES_LEN) and its
 * MPCC variables w (len = ONE_STATE_NW). */
int one_state_get_step_sizes(one_state_solver* solver, double* h, size_t len);
int one_state_get_w(one_state_solver* solver, double* w, size_t len);

/* The last solve's trajectory. States: x0, then the state at every finite element's
 * end, NX values per point (len = ONE_STATE_STATES_LEN). Controls: NU values per control
 * interval (len = ONE_STATE_CONTROLS_LEN). Times: 0 and every element's end
 * (len = ONE_STATE_TIMES_LEN). FESD_ERR_STATE before the first solve. */
int one_state_get_states(one_state_solver* solver, double* x, size_t len);
int one_state_get_controls(one_state_solver* solver, double* u, size_t len);
int one_state_get_times(one_state_solver* solver, double* t, size_t len);

#ifdef __cplusplus
}
#endif

#endif
