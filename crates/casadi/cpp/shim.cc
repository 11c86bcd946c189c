// Implementations of the bridge functions declared in include/shim.h.
#include "shim.h"
#include <sstream>
#include <stdexcept>

namespace fesd_casadi {
namespace {

template <typename T>
std::unique_ptr<T> boxed(T&& v) {
  return std::make_unique<T>(std::move(v));
}

std::vector<casadi_int> to_index(rust::Slice<const int64_t> s) {
  return std::vector<casadi_int>(s.begin(), s.end());
}

template <typename V>
rust::Vec<int64_t> to_rust_index(const V& v) {
  rust::Vec<int64_t> out;
  out.reserve(v.size());
  for (auto x : v) out.push_back(static_cast<int64_t>(x));
  return out;
}

// A null Function makes every later call throw (or worse); refuse it where it appears.
std::unique_ptr<Function> checked(Function&& f, const char* what) {
  if (f.is_null()) throw std::invalid_argument(std::string(what) + " gave no Function");
  return std::make_unique<Function>(std::move(f));
}

}  // namespace

// ---- Matrix API, once for SX and MX ----

template <typename M>
std::unique_ptr<M> m_from_column_major(size_t nrow, size_t ncol, rust::Slice<const double> data) {
  if (data.size() != nrow * ncol) {
    std::ostringstream m;
    m << "matrix from data: " << data.size() << " values given for a " << nrow << "x" << ncol << " matrix";
    throw std::invalid_argument(m.str());
  }
  std::vector<double> nz(data.begin(), data.end());
  return std::make_unique<M>(casadi::DM(casadi::Sparsity::dense(casadi_int(nrow), casadi_int(ncol)), nz));
}

template <typename M>
std::unique_ptr<M> m_from_sparsity(const Sparsity& sp, rust::Slice<const double> nonzeros) {
  if (casadi_int(nonzeros.size()) != sp.nnz()) {
    std::ostringstream m;
    m << "matrix from nonzeros: " << nonzeros.size() << " values given for a pattern with " << sp.nnz()
      << " nonzeros";
    throw std::invalid_argument(m.str());
  }
  std::vector<double> nz(nonzeros.begin(), nonzeros.end());
  return std::make_unique<M>(casadi::DM(sp, nz));
}

template <typename M>
rust::Vec<double> m_evalf(const M& a) {
  casadi::DM d = casadi::DM::densify(M::evalf(a));
  rust::Vec<double> out;
  for (double x : d.nonzeros()) out.push_back(x);
  return out;
}

template <typename M>
std::unique_ptr<M> m_binary(uint8_t op, const M& a, const M& b) {
  switch (op) {
    case 0: return boxed(M(a + b));
    case 1: return boxed(M(a - b));
    case 2: return boxed(M(a * b));
    case 3: return boxed(M(a / b));
    case 4: return boxed(M(pow(a, b)));
    case 5: return boxed(M(fmin(a, b)));
    case 6: return boxed(M(fmax(a, b)));
    case 7: return boxed(M(mtimes(a, b)));
    case 8: return boxed(M(dot(a, b)));
    case 9: return boxed(M(atan2(a, b)));
    case 10: return boxed(M(a < b));
    case 11: return boxed(M(a <= b));
    case 12: return boxed(M(a == b));
    default: throw std::invalid_argument("unknown binary operation code");
  }
}

template <typename M>
std::unique_ptr<M> m_unary(uint8_t op, const M& a) {
  switch (op) {
    case 0: return boxed(M(-a));
    case 1: return boxed(M(sin(a)));
    case 2: return boxed(M(cos(a)));
    case 3: return boxed(M(tan(a)));
    case 4: return boxed(M(exp(a)));
    case 5: return boxed(M(log(a)));
    case 6: return boxed(M(sqrt(a)));
    case 7: return boxed(M(tanh(a)));
    case 8: return boxed(M(fabs(a)));
    case 9: return boxed(M(a.T()));
    case 10: return boxed(M(sum1(sum2(a))));
    case 11: return boxed(M(norm_2(a)));
    case 12: return boxed(M(sign(a)));
    case 13: return boxed(M(densify(a)));
    case 14: return boxed(M(tril(a)));
    default: throw std::invalid_argument("unknown unary operation code");
  }
}

template <typename M>
std::unique_ptr<M> m_get(const M& a, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols) {
  M out;
  a.get(out, false, casadi::Matrix<casadi_int>(to_index(rows)), casadi::Matrix<casadi_int>(to_index(cols)));
  return boxed(std::move(out));
}

template <typename M>
std::unique_ptr<M> m_get_nz(const M& a, rust::Slice<const int64_t> idx) {
  M out;
  a.get_nz(out, false, casadi::Matrix<casadi_int>(to_index(idx)));
  return boxed(std::move(out));
}

template <typename M, typename V>
std::unique_ptr<V> m_split(const M& a) {
  auto out = std::make_unique<V>();
  if (a.size2() == 1) {
    out->items = vertsplit(a, 1);
  } else if (a.size1() == 1) {
    out->items = horzsplit(a, 1);
  } else {
    throw std::invalid_argument("split needs a vector");
  }
  return out;
}

template <typename M, typename V>
std::unique_ptr<Function> m_fn_new(rust::Str name, rust::Slice<const rust::String> in_names, const V& inputs,
                                   rust::Slice<const rust::String> out_names, const V& outputs) {
  std::vector<std::string> ni, no;
  for (const auto& s : in_names) ni.emplace_back(std::string(s));
  for (const auto& s : out_names) no.emplace_back(std::string(s));
  return boxed(Function(std::string(name), inputs.items, outputs.items, ni, no));
}

#define FESD_MATRIX_IMPL(P, M, V)                                                                          \
  std::unique_ptr<M> P##_sym(rust::Str name, size_t nrow, size_t ncol) {                                   \
    return boxed(M::sym(std::string(name), casadi_int(nrow), casadi_int(ncol)));                           \
  }                                                                                                        \
  std::unique_ptr<M> P##_constant(size_t nrow, size_t ncol, double value) {                               \
    return boxed(M(casadi::DM(casadi::Sparsity::dense(casadi_int(nrow), casadi_int(ncol)), value)));       \
  }                                                                                                        \
  std::unique_ptr<M> P##_from_column_major(size_t nrow, size_t ncol, rust::Slice<const double> data) {    \
    return m_from_column_major<M>(nrow, ncol, data);                                                       \
  }                                                                                                        \
  std::unique_ptr<M> P##_from_sparsity(const Sparsity& sp, rust::Slice<const double> nonzeros) {          \
    return m_from_sparsity<M>(sp, nonzeros);                                                               \
  }                                                                                                        \
  std::unique_ptr<M> P##_clone(const M& a) { return std::make_unique<M>(a); }                              \
  size_t P##_nrow(const M& a) { return size_t(a.size1()); }                                                \
  size_t P##_ncol(const M& a) { return size_t(a.size2()); }                                                \
  size_t P##_nnz(const M& a) { return size_t(a.nnz()); }                                                   \
  bool P##_is_symbolic(const M& a) { return a.is_valid_input(); }                                          \
  bool P##_is_constant(const M& a) { return a.is_constant(); }                                             \
  size_t P##_n_nodes(const M& a) { return size_t(M::n_nodes(a)); }                                                 \
  rust::String P##_to_string(const M& a) { return rust::String(a.get_str()); }                             \
  std::unique_ptr<Sparsity> P##_sparsity(const M& a) { return std::make_unique<Sparsity>(a.sparsity()); }  \
  rust::Vec<double> P##_evalf(const M& a) { return m_evalf<M>(a); }                                        \
  std::unique_ptr<M> P##_binary(uint8_t op, const M& a, const M& b) { return m_binary<M>(op, a, b); }      \
  std::unique_ptr<M> P##_unary(uint8_t op, const M& a) { return m_unary<M>(op, a); }                       \
  std::unique_ptr<M> P##_if_else(const M& c, const M& a, const M& b) { return boxed(M(if_else(c, a, b))); } \
  std::unique_ptr<M> P##_vertcat(const V& v) { return boxed(M::vertcat(v.items)); }                        \
  std::unique_ptr<M> P##_horzcat(const V& v) { return boxed(M::horzcat(v.items)); }                        \
  std::unique_ptr<M> P##_reshape(const M& a, size_t nrow, size_t ncol) {                                   \
    return boxed(M(reshape(a, casadi_int(nrow), casadi_int(ncol))));                                       \
  }                                                                                                        \
  std::unique_ptr<M> P##_get(const M& a, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols) { \
    return m_get<M>(a, rows, cols);                                                                        \
  }                                                                                                        \
  std::unique_ptr<M> P##_get_nz(const M& a, rust::Slice<const int64_t> idx) { return m_get_nz<M>(a, idx); } \
  std::unique_ptr<V> P##_split(const M& a) { return m_split<M, V>(a); } \
  void P##_set(M& a, const M& value, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols) {  \
    a.set(value, false, casadi::Matrix<casadi_int>(to_index(rows)), casadi::Matrix<casadi_int>(to_index(cols))); \
  }                                                                                                        \
  std::unique_ptr<M> P##_jacobian(const M& f, const M& x) { return boxed(M(jacobian(f, x))); }            \
  std::unique_ptr<M> P##_gradient(const M& f, const M& x) { return boxed(M(gradient(f, x))); }            \
  std::unique_ptr<M> P##_hessian(const M& f, const M& x) {                                                 \
    M g;                                                                                                   \
    return boxed(M(hessian(f, x, g)));                                                                     \
  }                                                                                                        \
  std::unique_ptr<M> P##_jtimes(const M& f, const M& x, const M& v, bool transpose) {                     \
    return boxed(M(jtimes(f, x, v, transpose)));                                                           \
  }                                                                                                        \
  std::unique_ptr<M> P##_substitute(const M& ex, const M& v, const M& vdef) {                              \
    return boxed(M(substitute(ex, v, vdef)));                                                              \
  }                                                                                                        \
  std::unique_ptr<M> P##_solve(const M& a, const M& b) {                                                   \
    if (a.size1() != a.size2() || a.size1() != b.size1())                                                  \
      throw std::invalid_argument("solve: A must be square with as many rows as b");                      \
    return boxed(M(solve(a, b)));                                                                          \
  }                                                                                                        \
  std::unique_ptr<M> P##_inv(const M& a) {                                                                 \
    if (a.size1() != a.size2()) throw std::invalid_argument("inv: the matrix must be square");            \
    return boxed(M(inv(a)));                                                                               \
  }                                                                                                        \
  std::unique_ptr<V> P##vec_new() { return std::make_unique<V>(); }                                        \
  void P##vec_push(V& v, const M& a) { v.items.push_back(a); }                                             \
  size_t P##vec_len(const V& v) { return v.items.size(); }                                                 \
  std::unique_ptr<M> P##vec_get(const V& v, size_t i) { return std::make_unique<M>(v.items.at(i)); }       \
  std::unique_ptr<Function> fn_new_##P(rust::Str name, rust::Slice<const rust::String> in_names, const V& inputs, \
                                       rust::Slice<const rust::String> out_names, const V& outputs) {     \
    return m_fn_new<M, V>(name, in_names, inputs, out_names, outputs);                                     \
  }                                                                                                        \
  std::unique_ptr<V> fn_call_##P(const Function& f, const V& args) {                                       \
    auto out = std::make_unique<V>();                                                                      \
    out->items = f(args.items);                                                                            \
    return out;                                                                                            \
  }

FESD_MATRIX_IMPL(sx, SX, SXVec)
FESD_MATRIX_IMPL(mx, MX, MXVec)

// ---- SX serialization ----
rust::String sx_serialize(const SX& a) { return rust::String(a.serialize()); }
std::unique_ptr<SX> sx_deserialize(rust::Str s) { return boxed(SX::deserialize(std::string(s))); }

// ---- Sparsity ----
std::unique_ptr<Sparsity> sp_dense(size_t nrow, size_t ncol) {
  return boxed(Sparsity::dense(casadi_int(nrow), casadi_int(ncol)));
}
std::unique_ptr<Sparsity> sp_triplet(size_t nrow, size_t ncol, rust::Slice<const int64_t> rows,
                                     rust::Slice<const int64_t> cols) {
  return boxed(Sparsity::triplet(casadi_int(nrow), casadi_int(ncol), to_index(rows), to_index(cols)));
}
std::unique_ptr<Sparsity> sp_clone(const Sparsity& s) { return std::make_unique<Sparsity>(s); }
size_t sp_nrow(const Sparsity& s) { return size_t(s.size1()); }
size_t sp_ncol(const Sparsity& s) { return size_t(s.size2()); }
size_t sp_nnz(const Sparsity& s) { return size_t(s.nnz()); }
rust::Vec<int64_t> sp_colind(const Sparsity& s) { return to_rust_index(s.get_colind()); }
rust::Vec<int64_t> sp_row(const Sparsity& s) { return to_rust_index(s.get_row()); }
bool sp_equal(const Sparsity& a, const Sparsity& b) { return a == b; }
rust::String sp_to_string(const Sparsity& s) { return rust::String(s.dim(true)); }

// ---- Function ----
std::unique_ptr<Function> fn_clone(const Function& f) { return std::make_unique<Function>(f); }
rust::String fn_name(const Function& f) { return rust::String(f.name()); }
size_t fn_n_in(const Function& f) { return size_t(f.n_in()); }
size_t fn_n_out(const Function& f) { return size_t(f.n_out()); }
rust::String fn_name_in(const Function& f, size_t i) { return rust::String(f.name_in(casadi_int(i))); }
rust::String fn_name_out(const Function& f, size_t i) { return rust::String(f.name_out(casadi_int(i))); }
std::unique_ptr<Sparsity> fn_sparsity_in(const Function& f, size_t i) {
  return std::make_unique<Sparsity>(f.sparsity_in(casadi_int(i)));
}
std::unique_ptr<Sparsity> fn_sparsity_out(const Function& f, size_t i) {
  return std::make_unique<Sparsity>(f.sparsity_out(casadi_int(i)));
}
rust::Vec<double> fn_eval(const Function& f, rust::Slice<const double> data, rust::Slice<const size_t> lens,
                          bool dense) {
  if (casadi_int(lens.size()) != f.n_in()) {
    std::ostringstream m;
    m << "Function '" << f.name() << "' takes " << f.n_in() << " inputs, " << lens.size() << " given";
    throw std::invalid_argument(m.str());
  }
  std::vector<casadi::DM> args;
  size_t off = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    const Sparsity& sp = f.sparsity_in(casadi_int(i));
    size_t expect = dense ? size_t(sp.numel()) : size_t(sp.nnz());
    if (lens[i] != expect) {
      std::ostringstream m;
      m << "Function '" << f.name() << "' input " << i << " ('" << f.name_in(casadi_int(i)) << "', "
        << sp.dim(true) << "): expected " << expect << (dense ? " dense values" : " nonzeros") << ", got "
        << lens[i];
      throw std::invalid_argument(m.str());
    }
    std::vector<double> v(data.begin() + off, data.begin() + off + lens[i]);
    off += lens[i];
    if (dense) {
      casadi::DM d = casadi::DM::reshape(casadi::DM(v), sp.size1(), sp.size2());
      args.push_back(casadi::DM::project(d, sp));
    } else {
      args.push_back(casadi::DM(sp, v));
    }
  }
  std::vector<casadi::DM> res = f(args);
  rust::Vec<double> out;
  for (auto& r : res) {
    casadi::DM d = dense ? casadi::DM::densify(r) : r;
    for (double x : d.nonzeros()) out.push_back(x);
  }
  return out;
}
std::unique_ptr<MX> mx_stop_diff(const MX& e, int64_t order) { return boxed(MX::stop_diff(e, order)); }
std::unique_ptr<Function> fn_jacobian(const Function& f) { return checked(f.jacobian(), "jacobian"); }
std::unique_ptr<Function> fn_map(const Function& f, size_t n, rust::Str parallelization) {
  return boxed(f.map(casadi_int(n), std::string(parallelization)));
}
std::unique_ptr<Function> fn_expand(const Function& f) { return checked(f.expand(), "expand"); }
size_t fn_n_nodes(const Function& f) { return size_t(f.n_nodes()); }
rust::String fn_serialize(const Function& f) { return rust::String(f.serialize()); }
std::unique_ptr<Function> fn_deserialize(rust::Str s) {
  return checked(Function::deserialize(std::string(s)),
                 "the data is not a serialized Function (an SX, DM or Sparsity?): deserializing it");
}
rust::String fn_to_string(const Function& f) { return rust::String(f.get_str()); }

// ---- Code generation ----
std::unique_ptr<CodeGenerator> cg_new(rust::Str name, bool with_header, bool comments, rust::Str casadi_real,
                                      rust::Str casadi_int_t, rust::Str prefix) {
  casadi::Dict opts;
  opts["with_header"] = with_header;
  opts["verbose"] = comments;
  opts["casadi_real"] = std::string(casadi_real);
  opts["casadi_int"] = std::string(casadi_int_t);
  if (!prefix.empty()) opts["prefix"] = std::string(prefix);
  return std::make_unique<CodeGenerator>(std::string(name), opts);
}
void cg_add(CodeGenerator& g, const Function& f, bool with_jac_sparsity) { g.add(f, with_jac_sparsity); }
rust::String cg_dump(CodeGenerator& g) { return rust::String(g.dump()); }
rust::String cg_generate(CodeGenerator& g, rust::Str dir) { return rust::String(g.generate(std::string(dir))); }

}  // namespace fesd_casadi
