// Ipopt through its C++ application object, behind the same C functions as Ipopt's own
// C interface (IpStdCInterface.h), plus one addition: a symmetric indefinite linear
// solver given as a table of C function pointers replaces the one Ipopt would build
// (its `linear_solver` option), through an AlgorithmBuilder whose
// SymLinearSolverFactory returns a TSymLinearSolver around it. No C++ exception
// crosses these functions.

#include "IpAlgBuilder.hpp"
#include "IpIpoptApplication.hpp"
#include "IpSparseSymLinearSolverInterface.hpp"
#include "IpTNLP.hpp"
#include "IpTNLPAdapter.hpp"
#include "IpTSymLinearSolver.hpp"

#include <atomic>

#include <cstring>
#include <string>
#include <vector>

using namespace Ipopt;

extern "C" {
typedef bool (*fesd_eval_f)(Index, Number*, bool, Number*, void*);
typedef bool (*fesd_eval_grad_f)(Index, Number*, bool, Number*, void*);
typedef bool (*fesd_eval_g)(Index, Number*, bool, Index, Number*, void*);
typedef bool (*fesd_eval_jac_g)(Index, Number*, bool, Index, Index, Index*, Index*, Number*, void*);
typedef bool (*fesd_eval_h)(Index, Number*, bool, Number, Index, Number*, bool, Index, Index*, Index*, Number*, void*);
typedef bool (*fesd_intermediate)(Index, Index, Number, Number, Number, Number, Number, Number, Number, Number, Index,
                                  void*);

// A sparse symmetric indefinite solver: the matrix is the upper triangle in CSR with
// 0 offset (the lower triangle in CSC). Status codes are Ipopt's ESymSolverStatus.
typedef struct {
  void* (*create)(void);
  // The options `ldl_pivtol` and `ldl_pivtolmax`; nonzero if the pair is invalid.
  int (*configure)(void*, double pivtol, double pivtolmax);
  void (*destroy)(void*);
  int (*structure)(void*, int dim, int nonzeros, const int* ia, const int* ja);
  double* (*values)(void*);
  int (*solve)(void*, int new_matrix, int nrhs, double* rhs, int check_neg, int expected_neg);
  int (*negative_eigenvalues)(void*);
  // Nonzero if the next factorizations pivot more strictly (the next solve, with the
  // same matrix, factors it again from the values the solver holds).
  int (*increase_quality)(void*);
  // After SYMSOLVER_SINGULAR: nonzero if the matrix is for Ipopt's own solver (the
  // foreign one gave up on it), zero if it is singular.
  int (*hand_over)(void*);
} fesd_linear_solver;
}

namespace {

class ForeignSolver : public SparseSymLinearSolverInterface {
 public:
  explicit ForeignSolver(const fesd_linear_solver* vt) : vt_(vt), handle_(nullptr) {}
  ~ForeignSolver() override {
    if (handle_ != nullptr) vt_->destroy(handle_);
  }
  bool InitializeImpl(const OptionsList& options, const std::string& prefix) override {
    if (handle_ == nullptr) handle_ = vt_->create();
    if (handle_ == nullptr) return false;
    Number pivtol, pivtolmax;
    options.GetNumericValue("ldl_pivtol", pivtol, prefix);
    options.GetNumericValue("ldl_pivtolmax", pivtolmax, prefix);
    ASSERT_EXCEPTION(vt_->configure(handle_, pivtol, pivtolmax) == 0, OPTION_INVALID,
                     "Option \"ldl_pivtolmax\": must be at least ldl_pivtol.");
    return true;
  }
  ESymSolverStatus InitializeStructure(Index dim, Index nonzeros, const Index* ia, const Index* ja) override {
    return static_cast<ESymSolverStatus>(vt_->structure(handle_, dim, nonzeros, ia, ja));
  }
  Number* GetValuesArrayPtr() override { return vt_->values(handle_); }
  ESymSolverStatus MultiSolve(bool new_matrix, const Index*, const Index*, Index nrhs, Number* rhs_vals,
                              bool check_NegEVals, Index numberOfNegEVals) override {
    return static_cast<ESymSolverStatus>(
        vt_->solve(handle_, new_matrix ? 1 : 0, nrhs, rhs_vals, check_NegEVals ? 1 : 0, numberOfNegEVals));
  }
  Index NumberOfNegEVals() const override { return vt_->negative_eigenvalues(handle_); }
  bool IncreaseQuality() override { return vt_->increase_quality(handle_) != 0; }
  bool HandOver() const { return handle_ == nullptr || vt_->hand_over(handle_) != 0; }
  bool ProvidesInertia() const override { return true; }
  EMatrixFormat MatrixFormat() const override { return CSR_Format_0_Offset; }

 private:
  const fesd_linear_solver* vt_;
  void* handle_;
};

std::atomic<long> g_fallbacks{0};

// The foreign solver first; a matrix it gives up on goes to Ipopt's own solver (MUMPS,
// behind Ipopt's own lock), one it finds singular is reported so; further solves with
// the same matrix go to the solver that factored it. After kMisses matrices handed over
// in a row the matrices go to Ipopt's solver directly, the foreign one retried every
// kRetry-th.
class FallbackSolver : public SymLinearSolver {
 public:
  FallbackSolver(SmartPtr<ForeignSolver> foreign, SmartPtr<SymLinearSolver> first, SmartPtr<SymLinearSolver> fallback)
      : foreign_(foreign), first_(first), fallback_(fallback) {}
  bool InitializeImpl(const OptionsList& options, const std::string& prefix) override {
    return first_->Initialize(Jnlst(), IpNLP(), IpData(), IpCq(), options, prefix) &&
           fallback_->Initialize(Jnlst(), IpNLP(), IpData(), IpCq(), options, prefix);
  }
  ESymSolverStatus MultiSolve(const SymMatrix& A, std::vector<SmartPtr<const Vector> >& rhsV,
                              std::vector<SmartPtr<Vector> >& solV, bool check_NegEVals,
                              Index numberOfNegEVals) override {
    // Another solve with the matrix of the last call goes to the solver that factored it.
    bool same_matrix = have_tag_ && !A.HasChanged(tag_);
    if (same_matrix && on_fallback_) {
      return fallback_->MultiSolve(A, rhsV, solV, check_NegEVals, numberOfNegEVals);
    }
    tag_ = A.GetTag();
    have_tag_ = true;
    bool skip = !same_matrix && misses_ >= kMisses && misses_ % kRetry != 0;
    if (!skip) {
      ESymSolverStatus status = first_->MultiSolve(A, rhsV, solV, check_NegEVals, numberOfNegEVals);
      if (status != SYMSOLVER_SINGULAR || !foreign_->HandOver()) {
        on_fallback_ = false;
        if (status != SYMSOLVER_SINGULAR) misses_ = 0;
        return status;
      }
    }
    ++misses_;
    ++g_fallbacks;
    on_fallback_ = true;
    return fallback_->MultiSolve(A, rhsV, solV, check_NegEVals, numberOfNegEVals);
  }
  Index NumberOfNegEVals() const override {
    return on_fallback_ ? fallback_->NumberOfNegEVals() : first_->NumberOfNegEVals();
  }
  bool IncreaseQuality() override { return on_fallback_ ? fallback_->IncreaseQuality() : first_->IncreaseQuality(); }
  bool ProvidesInertia() const override { return true; }

 private:
  static const long kMisses = 1;
  static const long kRetry = 16;
  SmartPtr<ForeignSolver> foreign_;
  SmartPtr<SymLinearSolver> first_, fallback_;
  long misses_ = 0;
  bool on_fallback_ = false;
  TaggedObject::Tag tag_ = 0;
  bool have_tag_ = false;
};

// The options of fesd's LDLᵀ (`linear_solver = ldl`), checked by Ipopt like its own;
// the defaults are fesd-kkt's DEFAULT_PIVOT_THRESHOLD and DEFAULT_MAX_PIVOT_THRESHOLD.
void RegisterLdlOptions(RegisteredOptions& reg) {
  reg.SetRegisteringCategory("fesd LDL");
  reg.AddBoundedNumberOption("ldl_pivtol", "Pivot threshold u of fesd's LDL^T.", 0.0, true, 1.0, true, 1e-8,
                             "A 1x1 pivot needs |a_cc| >= u max|column|, a 2x2 block the same growth bound; "
                             "a larger u pivots more stably and delays more columns.");
  reg.AddBoundedNumberOption("ldl_pivtolmax", "Largest pivot threshold of fesd's LDL^T.", 0.0, true, 1.0, true, 0.1,
                             "IncreaseQuality raises u to sqrt(u), up to this value.");
}

class Builder : public AlgorithmBuilder {
 public:
  explicit Builder(const fesd_linear_solver* vt) : vt_(vt) {}
  SmartPtr<SymLinearSolver> SymLinearSolverFactory(const Journalist& jnlst, const OptionsList& options,
                                                   const std::string& prefix) override {
    SmartPtr<SymLinearSolver> own = AlgorithmBuilder::SymLinearSolverFactory(jnlst, options, prefix);
    if (vt_ == nullptr) return own;
    SmartPtr<ForeignSolver> solver = new ForeignSolver(vt_);
    SmartPtr<SymLinearSolver> foreign = new TSymLinearSolver(GetRawPtr(solver), nullptr);
    return new FallbackSolver(solver, foreign, own);
  }

 private:
  const fesd_linear_solver* vt_;
};

struct Problem;

class CallbackTNLP : public TNLP {
 public:
  CallbackTNLP(Problem* p, Number* x, Number* g, Number* obj, Number* mult_g, Number* mult_x_L, Number* mult_x_U,
               void* user)
      : p_(p), x_(x), g_(g), obj_(obj), mult_g_(mult_g), mult_x_L_(mult_x_L), mult_x_U_(mult_x_U), user_(user) {}
  bool get_nlp_info(Index& n, Index& m, Index& nnz_jac_g, Index& nnz_h_lag, IndexStyleEnum& index_style) override;
  bool get_bounds_info(Index n, Number* x_l, Number* x_u, Index m, Number* g_l, Number* g_u) override;
  bool get_starting_point(Index n, bool init_x, Number* x, bool init_z, Number* z_L, Number* z_U, Index m,
                          bool init_lambda, Number* lambda) override;
  bool eval_f(Index n, const Number* x, bool new_x, Number& obj_value) override;
  bool eval_grad_f(Index n, const Number* x, bool new_x, Number* grad_f) override;
  bool eval_g(Index n, const Number* x, bool new_x, Index m, Number* g) override;
  bool eval_jac_g(Index n, const Number* x, bool new_x, Index m, Index nele_jac, Index* iRow, Index* jCol,
                  Number* values) override;
  bool eval_h(Index n, const Number* x, bool new_x, Number obj_factor, Index m, const Number* lambda,
              bool new_lambda, Index nele_hess, Index* iRow, Index* jCol, Number* values) override;
  void finalize_solution(SolverReturn status, Index n, const Number* x, const Number* z_L, const Number* z_U,
                         Index m, const Number* g, const Number* lambda, Number obj_value, const IpoptData* ip_data,
                         IpoptCalculatedQuantities* ip_cq) override;
  bool intermediate_callback(AlgorithmMode mode, Index iter, Number obj_value, Number inf_pr, Number inf_du,
                             Number mu, Number d_norm, Number regularization_size, Number alpha_du, Number alpha_pr,
                             Index ls_trials, const IpoptData* ip_data, IpoptCalculatedQuantities* ip_cq) override;

 private:
  Problem* p_;
  Number *x_, *g_, *obj_, *mult_g_, *mult_x_L_, *mult_x_U_;
  void* user_;
};

struct Problem {
  Index n, m, nele_jac, nele_hess, index_style;
  std::vector<Number> x_L, x_U, g_L, g_U;
  fesd_eval_f eval_f;
  fesd_eval_g eval_g;
  fesd_eval_grad_f eval_grad_f;
  fesd_eval_jac_g eval_jac_g;
  fesd_eval_h eval_h;
  fesd_intermediate intermediate = nullptr;
  const fesd_linear_solver* linear_solver = nullptr;
  SmartPtr<IpoptApplication> app;
};

bool CallbackTNLP::get_nlp_info(Index& n, Index& m, Index& nnz_jac_g, Index& nnz_h_lag,
                                IndexStyleEnum& index_style) {
  n = p_->n;
  m = p_->m;
  nnz_jac_g = p_->nele_jac;
  nnz_h_lag = p_->nele_hess;
  index_style = p_->index_style == 0 ? C_STYLE : FORTRAN_STYLE;
  return true;
}

bool CallbackTNLP::get_bounds_info(Index n, Number* x_l, Number* x_u, Index m, Number* g_l, Number* g_u) {
  std::memcpy(x_l, p_->x_L.data(), sizeof(Number) * n);
  std::memcpy(x_u, p_->x_U.data(), sizeof(Number) * n);
  if (m > 0) {
    std::memcpy(g_l, p_->g_L.data(), sizeof(Number) * m);
    std::memcpy(g_u, p_->g_U.data(), sizeof(Number) * m);
  }
  return true;
}

bool CallbackTNLP::get_starting_point(Index n, bool init_x, Number* x, bool init_z, Number* z_L, Number* z_U,
                                      Index m, bool init_lambda, Number* lambda) {
  if (init_x) std::memcpy(x, x_, sizeof(Number) * n);
  if (init_z) {
    if (mult_x_L_ == nullptr || mult_x_U_ == nullptr) return false;
    std::memcpy(z_L, mult_x_L_, sizeof(Number) * n);
    std::memcpy(z_U, mult_x_U_, sizeof(Number) * n);
  }
  if (init_lambda && m > 0) {
    if (mult_g_ == nullptr) return false;
    std::memcpy(lambda, mult_g_, sizeof(Number) * m);
  }
  return true;
}

bool CallbackTNLP::eval_f(Index n, const Number* x, bool new_x, Number& obj_value) {
  return p_->eval_f(n, const_cast<Number*>(x), new_x, &obj_value, user_);
}

bool CallbackTNLP::eval_grad_f(Index n, const Number* x, bool new_x, Number* grad_f) {
  return p_->eval_grad_f(n, const_cast<Number*>(x), new_x, grad_f, user_);
}

bool CallbackTNLP::eval_g(Index n, const Number* x, bool new_x, Index m, Number* g) {
  return p_->eval_g(n, const_cast<Number*>(x), new_x, m, g, user_);
}

bool CallbackTNLP::eval_jac_g(Index n, const Number* x, bool new_x, Index m, Index nele_jac, Index* iRow,
                              Index* jCol, Number* values) {
  return p_->eval_jac_g(n, const_cast<Number*>(x), new_x, m, nele_jac, iRow, jCol, values, user_);
}

bool CallbackTNLP::eval_h(Index n, const Number* x, bool new_x, Number obj_factor, Index m, const Number* lambda,
                          bool new_lambda, Index nele_hess, Index* iRow, Index* jCol, Number* values) {
  return p_->eval_h(n, const_cast<Number*>(x), new_x, obj_factor, m, const_cast<Number*>(lambda), new_lambda,
                    nele_hess, iRow, jCol, values, user_);
}

void CallbackTNLP::finalize_solution(SolverReturn, Index n, const Number* x, const Number* z_L, const Number* z_U,
                                     Index m, const Number* g, const Number* lambda, Number obj_value,
                                     const IpoptData*, IpoptCalculatedQuantities*) {
  if (x_ != nullptr) std::memcpy(x_, x, sizeof(Number) * n);
  if (mult_x_L_ != nullptr) std::memcpy(mult_x_L_, z_L, sizeof(Number) * n);
  if (mult_x_U_ != nullptr) std::memcpy(mult_x_U_, z_U, sizeof(Number) * n);
  if (m > 0 && g_ != nullptr) std::memcpy(g_, g, sizeof(Number) * m);
  if (m > 0 && mult_g_ != nullptr) std::memcpy(mult_g_, lambda, sizeof(Number) * m);
  if (obj_ != nullptr) *obj_ = obj_value;
}

bool CallbackTNLP::intermediate_callback(AlgorithmMode mode, Index iter, Number obj_value, Number inf_pr,
                                         Number inf_du, Number mu, Number d_norm, Number regularization_size,
                                         Number alpha_du, Number alpha_pr, Index ls_trials, const IpoptData*,
                                         IpoptCalculatedQuantities*) {
  if (p_->intermediate == nullptr) return true;
  return p_->intermediate(static_cast<Index>(mode), iter, obj_value, inf_pr, inf_du, mu, d_norm, regularization_size,
                          alpha_du, alpha_pr, ls_trials, user_);
}

}  // namespace

extern "C" {

void* fesd_ipopt_create(Index n, Number* x_L, Number* x_U, Index m, Number* g_L, Number* g_U, Index nele_jac,
                        Index nele_hess, Index index_style, fesd_eval_f eval_f, fesd_eval_g eval_g,
                        fesd_eval_grad_f eval_grad_f, fesd_eval_jac_g eval_jac_g, fesd_eval_h eval_h) {
  if (n < 1 || m < 0 || x_L == nullptr || x_U == nullptr || (m > 0 && (g_L == nullptr || g_U == nullptr)) ||
      (m == 0 && nele_jac != 0) || (m > 0 && nele_jac < 1) || nele_hess < 0 || eval_f == nullptr ||
      eval_grad_f == nullptr || (m > 0 && (eval_g == nullptr || eval_jac_g == nullptr))) {
    return nullptr;
  }
  try {
    Problem* p = new Problem();
    p->n = n;
    p->m = m;
    p->nele_jac = nele_jac;
    p->nele_hess = nele_hess;
    p->index_style = index_style;
    p->x_L.assign(x_L, x_L + n);
    p->x_U.assign(x_U, x_U + n);
    if (m > 0) {
      p->g_L.assign(g_L, g_L + m);
      p->g_U.assign(g_U, g_U + m);
    }
    p->eval_f = eval_f;
    p->eval_g = eval_g;
    p->eval_grad_f = eval_grad_f;
    p->eval_jac_g = eval_jac_g;
    p->eval_h = eval_h;
    p->app = new IpoptApplication();
    RegisterLdlOptions(*p->app->RegOptions());
    return p;
  } catch (...) {
    return nullptr;
  }
}

void fesd_ipopt_free(void* problem) { delete static_cast<Problem*>(problem); }

bool fesd_ipopt_add_str_option(void* problem, const char* key, const char* value) {
  try {
    return static_cast<Problem*>(problem)->app->Options()->SetStringValue(key, value);
  } catch (...) {
    return false;
  }
}

bool fesd_ipopt_add_num_option(void* problem, const char* key, Number value) {
  try {
    return static_cast<Problem*>(problem)->app->Options()->SetNumericValue(key, value);
  } catch (...) {
    return false;
  }
}

bool fesd_ipopt_add_int_option(void* problem, const char* key, Index value) {
  try {
    return static_cast<Problem*>(problem)->app->Options()->SetIntegerValue(key, value);
  } catch (...) {
    return false;
  }
}

void fesd_ipopt_set_intermediate_callback(void* problem, fesd_intermediate cb) {
  static_cast<Problem*>(problem)->intermediate = cb;
}

// Matrices the foreign linear solver handed to Ipopt's own, in this process so far.
long fesd_ipopt_fallbacks(void) { return g_fallbacks.load(); }

// The linear solver for this problem's solves (NULL: Ipopt's own, by `linear_solver`;
// also the fallback for matrices the foreign one gives up on).
void fesd_ipopt_set_linear_solver(void* problem, const fesd_linear_solver* vt) {
  static_cast<Problem*>(problem)->linear_solver = vt;
}

int fesd_ipopt_solve(void* problem, Number* x, Number* g, Number* obj_val, Number* mult_g, Number* mult_x_L,
                     Number* mult_x_U, void* user_data) {
  Problem* p = static_cast<Problem*>(problem);
  try {
    ApplicationReturnStatus status = p->app->Initialize();
    if (status != Solve_Succeeded) return static_cast<int>(status);
    SmartPtr<TNLP> tnlp = new CallbackTNLP(p, x, g, obj_val, mult_g, mult_x_L, mult_x_U, user_data);
    // What OptimizeTNLP does, with our builder.
    SmartPtr<NLP> nlp = new TNLPAdapter(GetRawPtr(tnlp), ConstPtr(p->app->Jnlst()));
    SmartPtr<AlgorithmBuilder> builder = new Builder(p->linear_solver);
    return static_cast<int>(p->app->OptimizeNLP(nlp, builder));
  } catch (...) {
    return static_cast<int>(Unrecoverable_Exception);
  }
}

}  // extern "C"
