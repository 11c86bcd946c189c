// C++ side of the CasADi bindings: every function the Rust bridge calls.
// Functions that can throw are declared `Result` on the Rust side; cxx catches the
// exception and hands CasADi's message to Rust.
#pragma once
#include <casadi/casadi.hpp>
#include <memory>
#include <vector>
#include "rust/cxx.h"

namespace fesd_casadi {

using SX = casadi::SX;
using Sparsity = casadi::Sparsity;
using Function = casadi::Function;
using CodeGenerator = casadi::CodeGenerator;

// A list of SX matrices (function inputs/outputs, concatenation operands).
struct SXVec {
  std::vector<casadi::SX> items;
};

// SX construction
std::unique_ptr<SX> sx_sym(rust::Str name, size_t nrow, size_t ncol);
std::unique_ptr<SX> sx_constant(size_t nrow, size_t ncol, double value);
std::unique_ptr<SX> sx_from_column_major(size_t nrow, size_t ncol, rust::Slice<const double> data);
std::unique_ptr<SX> sx_from_sparsity(const Sparsity& sp, rust::Slice<const double> nonzeros);
std::unique_ptr<SX> sx_clone(const SX& a);

// SX inspection
size_t sx_nrow(const SX& a);
size_t sx_ncol(const SX& a);
size_t sx_nnz(const SX& a);
bool sx_is_symbolic(const SX& a);
size_t sx_n_nodes(const SX& a);
rust::String sx_to_string(const SX& a);
std::unique_ptr<Sparsity> sx_sparsity(const SX& a);
rust::Vec<double> sx_evalf(const SX& a);

// SX arithmetic and functions (op codes are defined in src/ffi.rs)
std::unique_ptr<SX> sx_binary(uint8_t op, const SX& a, const SX& b);
std::unique_ptr<SX> sx_unary(uint8_t op, const SX& a);
std::unique_ptr<SX> sx_if_else(const SX& c, const SX& a, const SX& b);

// SX structure
std::unique_ptr<SX> sx_vertcat(const SXVec& v);
std::unique_ptr<SX> sx_horzcat(const SXVec& v);
std::unique_ptr<SX> sx_reshape(const SX& a, size_t nrow, size_t ncol);
std::unique_ptr<SX> sx_get(const SX& a, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols);
std::unique_ptr<SX> sx_get_nz(const SX& a, rust::Slice<const int64_t> idx);
void sx_set(SX& a, const SX& value, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols);

// SX calculus
std::unique_ptr<SX> sx_jacobian(const SX& f, const SX& x);
std::unique_ptr<SX> sx_gradient(const SX& f, const SX& x);
std::unique_ptr<SX> sx_hessian(const SX& f, const SX& x);
std::unique_ptr<SX> sx_jtimes(const SX& f, const SX& x, const SX& v, bool transpose);
std::unique_ptr<SX> sx_substitute(const SX& ex, const SX& v, const SX& vdef);

// SX serialization
rust::String sx_serialize(const SX& a);
std::unique_ptr<SX> sx_deserialize(rust::Str s);

// SX lists
std::unique_ptr<SXVec> sxvec_new();
void sxvec_push(SXVec& v, const SX& a);
size_t sxvec_len(const SXVec& v);
std::unique_ptr<SX> sxvec_get(const SXVec& v, size_t i);

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
std::unique_ptr<Function> fn_new(rust::Str name, rust::Slice<const rust::String> in_names, const SXVec& inputs,
                                 rust::Slice<const rust::String> out_names, const SXVec& outputs);
std::unique_ptr<Function> fn_clone(const Function& f);
rust::String fn_name(const Function& f);
size_t fn_n_in(const Function& f);
size_t fn_n_out(const Function& f);
rust::String fn_name_in(const Function& f, size_t i);
rust::String fn_name_out(const Function& f, size_t i);
std::unique_ptr<Sparsity> fn_sparsity_in(const Function& f, size_t i);
std::unique_ptr<Sparsity> fn_sparsity_out(const Function& f, size_t i);
rust::Vec<double> fn_eval(const Function& f, rust::Slice<const double> data, rust::Slice<const size_t> lens, bool dense);
std::unique_ptr<SXVec> fn_call_sx(const Function& f, const SXVec& args);
std::unique_ptr<Function> fn_jacobian(const Function& f);
std::unique_ptr<Function> fn_map(const Function& f, size_t n, rust::Str parallelization);
size_t fn_n_nodes(const Function& f);
rust::String fn_serialize(const Function& f);
std::unique_ptr<Function> fn_deserialize(rust::Str s);
rust::String fn_to_string(const Function& f);

// Code generation
std::unique_ptr<CodeGenerator> cg_new(rust::Str name, bool with_header, rust::Str casadi_real, rust::Str casadi_int,
                                      rust::Str prefix);
void cg_add(CodeGenerator& g, const Function& f, bool with_jac_sparsity);
rust::String cg_dump(CodeGenerator& g);
rust::String cg_generate(CodeGenerator& g, rust::Str dir);

}  // namespace fesd_casadi
