/* Every bad input to an exported solver gets its error code and a message, nothing
 * aborts, and the solver stays usable. Built against the one-state export
 * (x' = (u -/+ 1)/p, x0 fixed, parameters (p, x0)) and its kernels' header (src/);
 * exits 0 when every check holds, else prints the first failed one. Also run under
 * AddressSanitizer with an argument: that many rounds of create, solve and free. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "one_state_solver.h"
#include "one_state_kernels.h"

/* A kernel table claiming 4-byte casadi_int. */
static int four_bytes(void) { return 4; }

#define CHECK(cond) do { if (!(cond)) { printf("FAILED line %d: %s\n", __LINE__, #cond); return 1; } } while (0)
#define EXPECT(call, code) do { int rc_ = (call); if (rc_ != (code)) { \
  printf("FAILED line %d: %s returned %d, expected %d\n", __LINE__, #call, rc_, (code)); return 1; } } while (0)

static int solve_once(fesd_solve_info* info, double x[ONE_STATE_STATES_LEN]) {
  fesd_solver* s = 0;
  EXPECT(one_state_create(0, &s, 0, 0), FESD_OK);
  EXPECT(fesd_solver_solve(s, info), FESD_OK);
  EXPECT(one_state_get_states(s, x, ONE_STATE_STATES_LEN), FESD_OK);
  fesd_solver_free(s);
  return 0;
}

int main(int argc, char** argv) {
  fesd_solver* s = 0;
  fesd_problem problem;
  fesd_solve_info info, want;
  fesd_create_options options;
  char error[256], *record;
  const char* at;
  double x[ONE_STATE_STATES_LEN], want_x[ONE_STATE_STATES_LEN], p[ONE_STATE_NP], w[ONE_STATE_NW];
  double x0_nan[ONE_STATE_NX], value = 0.0;
  int i, rounds = argc > 1 ? atoi(argv[1]) : 0;
  for (i = 0; i < ONE_STATE_NX; i++) x0_nan[i] = NAN;

  /* The reference: a solve without any bad call. */
  if (solve_once(&want, want_x)) return 1;

  /* NULL pointers. */
  EXPECT(one_state_create(0, 0, error, sizeof error), FESD_ERR_NULL);
  EXPECT(fesd_solver_create(0, 0, &s, error, sizeof error), FESD_ERR_NULL);
  CHECK(s == 0);
  EXPECT(fesd_solver_solve(0, &info), FESD_ERR_NULL);
  EXPECT(one_state_get_states(0, x, ONE_STATE_STATES_LEN), FESD_ERR_NULL);
  CHECK(fesd_solver_last_error(0) == 0);
  fesd_solver_free(0);

  /* A glue/runtime ABI mismatch and a record of another version: FESD_ERR_ABI. */
  one_state_problem(&problem);
  problem.abi_version = FESD_ABI_VERSION + 1;
  EXPECT(fesd_solver_create(&problem, 0, &s, error, sizeof error), FESD_ERR_ABI);
  CHECK(strstr(error, "ABI") != 0);
  one_state_problem(&problem);
  record = malloc(problem.record_len);
  CHECK(record != 0);
  memcpy(record, problem.record, problem.record_len);
  at = strstr(record, "record-v1");
  CHECK(at != 0);
  record[at - record + 8] = '9';
  problem.record = record;
  EXPECT(fesd_solver_create(&problem, 0, &s, error, sizeof error), FESD_ERR_ABI);
  CHECK(strlen(error) > 0);
  free(record);
  {
    fesd_kernel_table narrow = *one_state_kernel_table();
    narrow.casadi_int_size = four_bytes;
    one_state_problem(&problem);
    problem.kernel_table = &narrow;
    EXPECT(fesd_solver_create(&problem, 0, &s, error, sizeof error), FESD_ERR_ABI);
    CHECK(strstr(error, "casadi_int") != 0);
  }

  /* A good solver: bad calls leave it as it was. */
  options.tune_process = 0;
  EXPECT(one_state_create(&options, &s, error, sizeof error), FESD_OK);
  EXPECT(one_state_get_states(s, x, ONE_STATE_STATES_LEN), FESD_ERR_STATE);
  EXPECT(one_state_get_t_final(s, &value), FESD_ERR_STATE);
  EXPECT(fesd_solver_get_w(s, w, ONE_STATE_NW), FESD_ERR_STATE);
  EXPECT(fesd_solver_warm_start_from_last_solve(s), FESD_ERR_STATE);
  EXPECT(one_state_set_x0(s, x0_nan, ONE_STATE_NX), FESD_ERR_NOT_FINITE);
  EXPECT(one_state_set_x0(s, 0, ONE_STATE_NX), FESD_ERR_NULL);
  EXPECT(one_state_set_x0(s, x0_nan, ONE_STATE_NX + 1), FESD_ERR_LENGTH);
  EXPECT(fesd_solver_get_parameters(s, p, ONE_STATE_NP), FESD_OK);
  EXPECT(fesd_solver_set_parameters(s, p, ONE_STATE_NP + 1), FESD_ERR_LENGTH);
  CHECK(strstr(fesd_solver_last_error(s), "3 values given, 2 expected") != 0);
  p[0] = INFINITY;
  EXPECT(fesd_solver_set_parameters(s, p, ONE_STATE_NP), FESD_ERR_NOT_FINITE);
  CHECK(strstr(fesd_solver_last_error(s), "inf") != 0);
  w[0] = NAN;
  EXPECT(fesd_solver_set_initial_guess(s, w, ONE_STATE_NW), FESD_ERR_NOT_FINITE);
  for (i = 0; i < ONE_STATE_STATES_LEN; i++) x[i] = i == 3 ? NAN : 1.0;
  EXPECT(one_state_set_state_guess(s, x, ONE_STATE_STATES_LEN), FESD_ERR_NOT_FINITE);
  EXPECT(one_state_set_state_guess(s, x, ONE_STATE_STATES_LEN + 1), FESD_ERR_LENGTH);
  EXPECT(one_state_set_state_guess(s, 0, ONE_STATE_STATES_LEN), FESD_ERR_NULL);
  EXPECT(one_state_set_state_guess(0, x, ONE_STATE_STATES_LEN), FESD_ERR_NULL);
  EXPECT(fesd_solver_set_option(s, "no_such_option", "1"), FESD_ERR_OPTION);
  EXPECT(fesd_solver_set_option(s, "kappa", "\"fast\""), FESD_ERR_OPTION);
  EXPECT(fesd_solver_set_option(s, 0, "1"), FESD_ERR_NULL);
  EXPECT(fesd_solver_set_option(s, "ipopt", "{\"max_iter\": true}"), FESD_ERR_OPTION);
  CHECK(strstr(fesd_solver_last_error(s), "max_iter") != 0);
  /* Ipopt options by name, after the solver's own: the value it has already. */
  EXPECT(fesd_solver_set_option(s, "ipopt", "{\"print_level\": 0}"), FESD_OK);
  EXPECT(fesd_solver_solve(s, &info), FESD_OK);
  CHECK(strcmp(fesd_solver_last_error(s), "") == 0);
  CHECK(info.ipopt_iterations == want.ipopt_iterations && info.objective == want.objective);
  EXPECT(one_state_get_states(s, x, ONE_STATE_STATES_LEN), FESD_OK);
  CHECK(memcmp(x, want_x, sizeof x) == 0);
  EXPECT(one_state_get_states(s, x, ONE_STATE_STATES_LEN - 1), FESD_ERR_LENGTH);
  EXPECT(one_state_get_states(s, 0, ONE_STATE_STATES_LEN), FESD_ERR_NULL);
  EXPECT(fesd_solver_get_output(s, ONE_STATE_OUTPUTS, 99, x, 1), FESD_ERR_OPTION);
  EXPECT(one_state_get_step_sizes(s, x, ONE_STATE_STEP_SIZES_LEN), FESD_OK);
  EXPECT(one_state_get_w(s, w, ONE_STATE_NW - 1), FESD_ERR_LENGTH);
  CHECK(strstr(one_state_last_error(s), "107") != 0);

  /* Calls this OCP cannot take: no tracking term. */
  EXPECT(one_state_set_reference(s, x, 0), FESD_ERR_STATE);
  CHECK(strstr(one_state_last_error(s), "tracking") != 0);
  EXPECT(one_state_set_parameters(s, p, ONE_STATE_NP_MODEL + 1), FESD_ERR_LENGTH);
  CHECK(strstr(one_state_last_error(s), "2 values given, 1 expected") != 0);

  /* Back to the exported guess: the cold solve again. */
  EXPECT(one_state_reset_guess(s), FESD_OK);
  EXPECT(one_state_solve(s, &info), FESD_OK);
  CHECK(info.ipopt_iterations == want.ipopt_iterations && info.objective == want.objective);

  /* p = 0: the dynamics divide by zero. Ipopt reports an invalid number; the last
   * iterate stays readable, and the solver solves again once p is back. */
  p[0] = 0.0;
  EXPECT(one_state_set_parameters(s, p, ONE_STATE_NP_MODEL), FESD_OK);
  EXPECT(one_state_solve(s, &info), FESD_NLP_FAILED);
  printf("p0_ipopt_status = %d\n", info.ipopt_status);
  CHECK(info.ipopt_status == -13); /* Invalid_Number_Detected */
  EXPECT(fesd_solver_get_w(s, w, ONE_STATE_NW), FESD_OK);
  for (i = 0; i < ONE_STATE_NW; i++) CHECK(isfinite(w[i]));
  p[0] = 1.0;
  EXPECT(one_state_set_parameters(s, p, ONE_STATE_NP_MODEL), FESD_OK);
  one_state_free(s);
  one_state_free(0);

  /* Create, solve, free, over and over (run under a leak checker). */
  for (i = 0; i < rounds; i++) {
    if (solve_once(&info, x)) return 1;
    CHECK(info.ipopt_iterations == want.ipopt_iterations);
  }
  printf("bad_input = ok\n");
  return 0;
}
