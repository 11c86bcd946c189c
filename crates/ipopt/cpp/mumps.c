/* MUMPS (the SDK's, as Ipopt configures it) on one sparse symmetric matrix: the
 * reference a KKT solver of our own is measured against. Not on any solve path. */

#include <stdlib.h>
#include <string.h>

#include "dmumps_c.h"

#define USE_COMM_WORLD (-987654)

typedef struct {
  DMUMPS_STRUC_C id;
  int analysed;
} fesd_mumps;

/* A solver for an n x n symmetric matrix with nnz entries of one triangle at the
 * 1-based positions (irn, jcn); the arrays must outlive the solver. NULL on failure. */
void* fesd_mumps_new(int n, long long nnz, int* irn, int* jcn, double* a, double pivtol) {
  fesd_mumps* m = (fesd_mumps*)calloc(1, sizeof(fesd_mumps));
  if (m == NULL) return NULL;
  m->id.job = -1;
  m->id.par = 1;
  m->id.sym = 2; /* general symmetric (indefinite) */
  m->id.comm_fortran = USE_COMM_WORLD;
  dmumps_c(&m->id);
  if (m->id.infog[0] < 0) {
    free(m);
    return NULL;
  }
  m->id.icntl[0] = -1; /* no output */
  m->id.icntl[1] = -1;
  m->id.icntl[2] = -1;
  m->id.icntl[3] = 0;
  /* Ipopt's MumpsSolverInterface settings. */
  m->id.icntl[5] = 7;    /* permuting scaling */
  m->id.icntl[6] = 7;    /* pivot order: automatic */
  m->id.icntl[7] = 77;   /* scaling: automatic */
  m->id.icntl[9] = 0;    /* no iterative refinement */
  m->id.icntl[12] = 1;   /* proper inertia */
  m->id.icntl[13] = 1000; /* memory percent */
  m->id.cntl[0] = pivtol;
  m->id.n = n;
  m->id.nnz = nnz;
  m->id.irn = irn;
  m->id.jcn = jcn;
  m->id.a = a;
  return m;
}

/* Analysis (once) and factorization; returns MUMPS's INFOG(1) (< 0 on failure) and
 * the number of negative pivots. */
int fesd_mumps_factor(void* p, int* negative) {
  fesd_mumps* m = (fesd_mumps*)p;
  if (!m->analysed) {
    m->id.job = 1;
    dmumps_c(&m->id);
    if (m->id.infog[0] < 0) return m->id.infog[0];
    m->analysed = 1;
  }
  m->id.job = 2;
  dmumps_c(&m->id);
  *negative = m->id.infog[11];
  return m->id.infog[0];
}

/* Solves in place for one right-hand side; returns INFOG(1). */
int fesd_mumps_solve(void* p, double* rhs) {
  fesd_mumps* m = (fesd_mumps*)p;
  m->id.rhs = rhs;
  m->id.nrhs = 1;
  m->id.lrhs = m->id.n;
  m->id.job = 3;
  dmumps_c(&m->id);
  return m->id.infog[0];
}

/* Entries of the factors (INFOG(29)). */
long long fesd_mumps_factor_entries(void* p) { return ((fesd_mumps*)p)->id.infog[28]; }

void fesd_mumps_free(void* p) {
  fesd_mumps* m = (fesd_mumps*)p;
  if (m == NULL) return;
  m->id.job = -2;
  dmumps_c(&m->id);
  free(m);
}
