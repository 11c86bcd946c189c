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
#define ONE_STATE_NW 108
#define ONE_STATE_NP 2
/* Where the fixed initial state x0 (NX values) starts in the parameter vector
 * (fesd_solver_get_parameters / fesd_solver_set_parameters); -1 if x0 is free. */
#define ONE_STATE_X0_OFFSET 1
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
/* Lengths of the trajectory getters' arrays. */
#define ONE_STATE_STATES_LEN (ONE_STATE_NX * (ONE_STATE_N_ELEMENTS + 1))
#define ONE_STATE_CONTROLS_LEN (ONE_STATE_NU * ONE_STATE_N)
#define ONE_STATE_TIMES_LEN (ONE_STATE_N_ELEMENTS + 1)

/* Fills `problem` for fesd_solver_create: the kernel table, the constant tables and
 * the solver's record, all compiled into this library. */
void one_state_problem(fesd_problem* problem);

/* fesd_solver_create for this problem (options and error may be NULL). */
int one_state_create(const fesd_create_options* options, fesd_solver** out, char* error, size_t error_len);

/* A new fixed initial state (len = ONE_STATE_NX) for the following solves:
 * FESD_ERR_STATE if x0 is free in this OCP, FESD_ERR_LENGTH, FESD_ERR_NOT_FINITE. */
int one_state_set_x0(fesd_solver* solver, const double* x0, size_t len);

/* The horizon T of the last solve. */
int one_state_get_t_final(fesd_solver* solver, double* t_final);

/* The cost of the last solve (the OCP's, without the relaxation's terms). */
int one_state_get_cost(fesd_solver* solver, double* cost);

/* The last solve's trajectory. States: x0, then the state at every finite element's
 * end, NX values per point (len = ONE_STATE_STATES_LEN). Controls: NU values per control
 * interval (len = ONE_STATE_CONTROLS_LEN). Times: 0 and every element's end
 * (len = ONE_STATE_TIMES_LEN). FESD_ERR_STATE before the first solve. */
int one_state_get_states(fesd_solver* solver, double* x, size_t len);
int one_state_get_controls(fesd_solver* solver, double* u, size_t len);
int one_state_get_times(fesd_solver* solver, double* t, size_t len);

#ifdef __cplusplus
}
#endif

#endif
