/* fesd's C ABI: MPCC solvers rebuilt from a generated module and its record.
 * Generated from crates/capi/src/lib.rs by cbindgen; do not edit. */

#ifndef FESD_H
#define FESD_H

#include <stddef.h>
#include <stdint.h>

// Version of this ABI; [`fesd_problem::abi_version`] must equal it.
#define FESD_ABI_VERSION 2

// Success; after a solve: converged.
#define FESD_OK 0

// The solve ran but stopped above comp_tol (the last iterate is available).
#define FESD_NOT_CONVERGED 1

// A homotopy NLP failed and could not be recovered (the last iterate is available).
#define FESD_NLP_FAILED 2

// A required pointer was NULL.
#define FESD_ERR_NULL -1

// A buffer's length does not match.
#define FESD_ERR_LENGTH -2

// An input value is NaN or infinite.
#define FESD_ERR_NOT_FINITE -3

// The call needs a state the solver is not in (e.g. a result before any solve).
#define FESD_ERR_STATE -4

// The problem's ABI or record version does not match this library.
#define FESD_ERR_ABI -5

// An internal error (a bug: please report the message).
#define FESD_ERR_INTERNAL -6

// An option's name or value was refused.
#define FESD_ERR_OPTION -7

// [`fesd_solve_info::stationarity`]: the active-set finish did not run or could not
// decide.
#define FESD_STATIONARITY_UNKNOWN 0

// Strongly stationary (the biactive pairs' multipliers are nonnegative).
#define FESD_STATIONARITY_S 1

// B-stationary (no feasible descent direction to first order).
#define FESD_STATIONARITY_B 2

// The LPEC found a descent direction its branch NLP did not follow.
#define FESD_STATIONARITY_NOT_B 3

// No branch of the linearized MPCC is feasible near the point (a diagnosis).
#define FESD_STATIONARITY_LOCALLY_INFEASIBLE 4

// A solver: opaque to C.
typedef struct fesd_solver fesd_solver;

// A generated problem: its module's kernel table and constant tables, and its
// solver's record.
typedef struct {
  // [`FESD_ABI_VERSION`] of the headers the program was compiled with.
  int abi_version;
  // What the module's `<module>_kernel_table()` returns.
  const void *kernel_table;
  // The module's `<module>_bind_tables`, or NULL if its C kept every table.
  int (*bind_tables)(const long long*, long long, const double*, long long);
  // The module's constant tables (the bytes its export wrote), or NULL.
  const uint8_t *tables;
  // Length of `tables` in bytes.
  size_t tables_len;
  // The solver's record (JSON text, not necessarily NUL-terminated).
  const char *record;
  // Length of `record` in bytes.
  size_t record_len;
} fesd_problem;

// Options of [`fesd_solver_create`]; NULL means all defaults.
typedef struct {
  // Nonzero: let the solver tune the process (glibc keeps freed memory, OpenBLAS
  // runs one thread), as fesd's own programs do. Zero (the default): leave both to
  // the program.
  int tune_process;
} fesd_create_options;

// What a solve did.
typedef struct {
  // [`FESD_OK`], [`FESD_NOT_CONVERGED`] or [`FESD_NLP_FAILED`].
  int status;
  // Ipopt's status code of the failed NLP (`FESD_NLP_FAILED`), else 0.
  int ipopt_status;
  // Ipopt iterations over the homotopy and the finish.
  int64_t ipopt_iterations;
  // Homotopy NLPs solved.
  int64_t homotopy_steps;
  // max_i |G_i H_i| at the result.
  double comp_residual;
  // The MPCC's objective f(w) at the result.
  double objective;
  // Wall time of the solve in seconds.
  double wall_time;
  // What the active-set finish certified: a `FESD_STATIONARITY_*` value.
  int stationarity;
  // The OCP's cost (without the relaxation's terms) and horizon T: filled by an
  // exported OCP's `<name>_solve`; NaN from [`fesd_solver_solve`], which knows only
  // the MPCC.
  double cost;
  // See `cost`.
  double t_final;
} fesd_solve_info;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// Builds a solver from `problem`; on success `*out` owns it (free it with
// [`fesd_solver_free`]). On failure `*out` is NULL and, where `error` is not NULL and
// `error_len` > 0, the reason is written there (NUL-terminated, truncated).
//
// # Safety
// `problem` and `options` (if not NULL) must point to valid structs whose pointers
// hold what their fields say; the kernel table must be a generated module's.
int fesd_solver_create(const fesd_problem *problem,
                       const fesd_create_options *options,
                       fesd_solver **out,
                       char *error,
                       size_t error_len);

// Frees a solver (NULL is allowed).
//
// # Safety
// `solver` must come from [`fesd_solver_create`] and not be used afterwards.
void fesd_solver_free(fesd_solver *solver);

// The reason of the solver's last failed call ("" after a successful one); valid until
// the next call on the solver. NULL for a NULL solver.
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`].
const char *fesd_solver_last_error(const fesd_solver *solver);

// Sizes of the MPCC: variables w and parameters p (either pointer may be NULL).
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `n_w` and `n_p` NULL or
// writable.
int fesd_solver_sizes(fesd_solver *solver, size_t *n_w, size_t *n_p);

// New parameter values p (`len` = n_p) for the following solves.
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `p` must hold `len`
// doubles.
int fesd_solver_set_parameters(fesd_solver *solver, const double *p, size_t len);

// New values of the parameters `offset .. offset + count` (a block of the header's
// layout, such as x0; `len` = `count`) for the following solves; the others keep
// theirs.
//
// # Safety
// As [`fesd_solver_set_parameters`].
int fesd_solver_set_parameter_range(fesd_solver *solver,
                                    size_t offset,
                                    size_t count,
                                    const double *values,
                                    size_t len);

// The next solve starts from the record's initial guess again (not from the last
// solution, a guess set since, or a warm start).
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`].
int fesd_solver_reset_guess(fesd_solver *solver);

// Records `message` (NULL: none) as the solver's last error and returns `code`: for
// generated wrappers that refuse a call themselves (a solver of an OCP whose x0 is
// free has no `set_x0`).
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `message` NULL or a
// NUL-terminated string.
int fesd_solver_report(fesd_solver *solver, int code, const char *message);

// The next solve starts from `w` (`len` = n_w).
//
// # Safety
// As [`fesd_solver_set_parameters`].
int fesd_solver_set_initial_guess(fesd_solver *solver, const double *w, size_t len);

// Copies the parameter values of the following solves (`len` = n_p) into `p`: the
// record's, or the last ones set.
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `p` must hold `len`
// doubles.
int fesd_solver_get_parameters(fesd_solver *solver, double *p, size_t len);

// Arms the next solve as a warm re-solve from the last solve's final homotopy NLP
// (primal and dual); [`FESD_ERR_STATE`] if there was no solve to start from.
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`].
int fesd_solver_warm_start_from_last_solve(fesd_solver *solver);

// Sets one homotopy option by its name (`kappa`, `comp_tol`, `max_iter`, …) to a JSON
// value (`"0.2"`, `"1e-10"`; for `ipopt` a map of Ipopt options, `"{\"print_level\": 5}"`,
// added after the solver's own); the options compiled into the kernels (relaxation,
// steering, lower bounds, finish) are not among them.
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `key` and `value`
// NUL-terminated strings.
int fesd_solver_set_option(fesd_solver *solver, const char *key, const char *value);

// Solves from the current start; fills `info` (may be NULL). Returns [`FESD_OK`],
// [`FESD_NOT_CONVERGED`] or [`FESD_NLP_FAILED`]; the result (also a failed solve's
// last iterate) is read with [`fesd_solver_get_w`]. Later solves start from it.
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `info` NULL or writable.
int fesd_solver_solve(fesd_solver *solver, fesd_solve_info *info);

// Copies the last solve's w (`len` = n_w) into `w`.
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `w` must hold `len`
// doubles.
int fesd_solver_get_w(fesd_solver *solver, double *w, size_t len);

// Evaluates output `index` of the module's function `name` (one of the record's
// outputs) at the last solve's w and parameters, dense column-major,
// into `values` (`len` = its number of entries).
//
// # Safety
// `solver` must be NULL or come from [`fesd_solver_create`]; `name` a NUL-terminated
// string; `values` must hold `len` doubles.
int fesd_solver_get_output(fesd_solver *solver,
                           const char *name,
                           size_t index,
                           double *values,
                           size_t len);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* FESD_H */
