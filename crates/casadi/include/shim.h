// C++ side of the CasADi bindings: every function the Rust bridge calls.
// Functions that can throw are declared `Result` on the Rust side; cxx catches the
// exception and hands CasADi's message to Rust. The matrix API exists once as
// templates (shim.cc) and is instantiated for SX and MX by FESD_MATRIX_API.
#pragma once
#include <casadi/casadi.hpp>
#include <memory>
#include <vector>
#include "rust/cxx.h"

namespace fesd_casadi {

using SX = casadi::SX;
using MX = casadi::MX;
using Sparsity = casadi::Sparsity;
using Function = casadi::Function;
using CodeGenerator = casadi::CodeGenerator;

// Lists of matrices (function inputs/outputs, concatenation operands).
struct SXVec {
  std::vector<casadi::SX> items;
};
struct MXVec {
  std::vector<casadi::MX> items;
};

#define FESD_MATRIX_API(P, M, V)                                                                       \
  std::unique_ptr<M> P##_sym(rust::Str name, size_t nrow, size_t ncol);                                \
  std::unique_ptr<M> P##_constant(size_t nrow, size_t ncol, double value);                            \
  std::unique_ptr<M> P##_from_column_major(size_t nrow, size_t ncol, rust::Slice<const double> data); \
  std::unique_ptr<M> P##_from_sparsity(const Sparsity& sp, rust::Slice<const double> nonzeros);       \
  std::unique_ptr<M> P##_clone(const M& a);                                                           \
  size_t P##_nrow(const M& a);                                                                        \
  size_t P##_ncol(const M& a);                                                                        \
  size_t P##_nnz(const M& a);                                                                         \
  bool P##_is_symbolic(const M& a);                                                                   \
  bool P##_is_constant(const M& a);                                                                   \
  size_t P##_n_nodes(const M& a);                                                                     \
  rust::String P##_to_string(const M& a);                                                             \
  std::unique_ptr<Sparsity> P##_sparsity(const M& a);                                                 \
  rust::Vec<double> P##_evalf(const M& a);                                                            \
  std::unique_ptr<M> P##_binary(uint8_t op, const M& a, const M& b);                                  \
  std::unique_ptr<M> P##_unary(uint8_t op, const M& a);                                               \
  std::unique_ptr<M> P##_if_else(const M& c, const M& a, const M& b);                                 \
  std::unique_ptr<M> P##_vertcat(const V& v);                                                         \
  std::unique_ptr<M> P##_horzcat(const V& v);                                                         \
  std::unique_ptr<M> P##_reshape(const M& a, size_t nrow, size_t ncol);                               \
  std::unique_ptr<M> P##_get(const M& a, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols); \
  std::unique_ptr<M> P##_get_nz(const M& a, rust::Slice<const int64_t> idx);                          \
  std::unique_ptr<V> P##_split(const M& a);                                                           \
  void P##_set(M& a, const M& value, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols); \
  std::unique_ptr<M> P##_jacobian(const M& f, const M& x);                                            \
  std::unique_ptr<M> P##_gradient(const M& f, const M& x);                                            \
  std::unique_ptr<M> P##_hessian(const M& f, const M& x);                                             \
  std::unique_ptr<M> P##_jtimes(const M& f, const M& x, const M& v, bool transpose);                  \
  std::unique_ptr<M> P##_substitute(const M& ex, const M& v, const M& vdef);                          \
  std::unique_ptr<M> P##_solve(const M& a, const M& b);                                               \
  std::unique_ptr<M> P##_inv(const M& a);                                                             \
  std::unique_ptr<V> P##vec_new();                                                                    \
  void P##vec_push(V& v, const M& a);                                                                 \
  size_t P##vec_len(const V& v);                                                                      \
  std::unique_ptr<M> P##vec_get(const V& v, size_t i);                                                \
  std::unique_ptr<Function> fn_new_##P(rust::Str name, rust::Slice<const rust::String> in_names, const V& inputs, \
                                       rust::Slice<const rust::String> out_names, const V& outputs);  \
  std::unique_ptr<V> fn_call_##P(const Function& f, const V& args);

FESD_MATRIX_API(sx, SX, SXVec)
FESD_MATRIX_API(mx, MX, MXVec)

// SX serialization (MX expressions are serialized through Functions)
rust::String sx_serialize(const SX& a);
std::unique_ptr<SX> sx_deserialize(rust::Str s);

// Sparsity
std::unique_ptr<Sparsity> sp_dense(size_t nrow, size_t ncol);
std::unique_ptr<Sparsity> sp_triplet(size_t nrow, size_t ncol, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols);
std::unique_ptr<Sparsity> sp_clone(const Sparsity& s);
size_t sp_nrow(const Sparsity& s);
size_t sp_ncol(const Sparsity& s);
size_t sp_nnz(const Sparsity& s);
rust::Vec<int64_t> sp_colind(const Sparsity& s);
rust::Vec<int64_t> sp_row(const Sparsity& s);
bool sp_equal(const Sparsity& a, const Sparsity& b);
rust::String sp_to_string(const Sparsity& s);

// Function
std::unique_ptr<Function> fn_clone(const Function& f);
rust::String fn_name(const Function& f);
size_t fn_n_in(const Function& f);
size_t fn_n_out(const Function& f);
rust::String fn_name_in(const Function& f, size_t i);
rust::String fn_name_out(const Function& f, size_t i);
std::unique_ptr<Sparsity> fn_sparsity_in(const Function& f, size_t i);
std::unique_ptr<Sparsity> fn_sparsity_out(const Function& f, size_t i);
rust::Vec<double> fn_eval(const Function& f, rust::Slice<const double> data, rust::Slice<const size_t> lens, bool dense);
std::unique_ptr<Function> fn_jacobian(const Function& f);
std::unique_ptr<MX> mx_stop_diff(const MX& e, int64_t order);
std::unique_ptr<Function> fn_map(const Function& f, size_t n, rust::Str parallelization);
std::unique_ptr<Function> fn_expand(const Function& f);
size_t fn_n_nodes(const Function& f);
rust::String fn_serialize(const Function& f);
std::unique_ptr<Function> fn_deserialize(rust::Str s);
rust::String fn_to_string(const Function& f);

// Code generation
std::unique_ptr<CodeGenerator> cg_new(rust::Str name, bool with_header, bool comments, rust::Str casadi_real, rust::Str casadi_int,
                                      rust::Str prefix);
void cg_add(CodeGenerator& g, const Function& f, bool with_jac_sparsity);
rust::String cg_dump(CodeGenerator& g);
rust::String cg_generate(CodeGenerator& g, rust::Str dir);

}  // namespace fesd_casadi
