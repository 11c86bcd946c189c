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

}  // namespace

// ---- SX construction ----
std::unique_ptr<SX> sx_sym(rust::Str name, size_t nrow, size_t ncol) {
  return boxed(SX::sym(std::string(name), casadi_int(nrow), casadi_int(ncol)));
}
std::unique_ptr<SX> sx_constant(size_t nrow, size_t ncol, double value) {
  return boxed(SX(casadi::Sparsity::dense(casadi_int(nrow), casadi_int(ncol)), value));
}
std::unique_ptr<SX> sx_from_column_major(size_t nrow, size_t ncol, rust::Slice<const double> data) {
  if (data.size() != nrow * ncol) {
    std::ostringstream m;
    m << "SX from data: " << data.size() << " values given for a " << nrow << "x" << ncol << " matrix";
    throw std::invalid_argument(m.str());
  }
  std::vector<casadi::SXElem> nz(data.begin(), data.end());
  return boxed(SX(casadi::Sparsity::dense(casadi_int(nrow), casadi_int(ncol)), nz));
}
std::unique_ptr<SX> sx_from_sparsity(const Sparsity& sp, rust::Slice<const double> nonzeros) {
  if (casadi_int(nonzeros.size()) != sp.nnz()) {
    std::ostringstream m;
    m << "SX from nonzeros: " << nonzeros.size() << " values given for a pattern with " << sp.nnz() << " nonzeros";
    throw std::invalid_argument(m.str());
  }
  std::vector<casadi::SXElem> nz(nonzeros.begin(), nonzeros.end());
  return boxed(SX(sp, nz));
}
std::unique_ptr<SX> sx_clone(const SX& a) { return std::make_unique<SX>(a); }

// ---- SX inspection ----
size_t sx_nrow(const SX& a) { return size_t(a.size1()); }
size_t sx_ncol(const SX& a) { return size_t(a.size2()); }
size_t sx_nnz(const SX& a) { return size_t(a.nnz()); }
bool sx_is_symbolic(const SX& a) { return a.is_valid_input(); }
size_t sx_n_nodes(const SX& a) { return size_t(SX::n_nodes(a)); }
rust::String sx_to_string(const SX& a) { return rust::String(a.get_str()); }
std::unique_ptr<Sparsity> sx_sparsity(const SX& a) { return std::make_unique<Sparsity>(a.sparsity()); }
rust::Vec<double> sx_evalf(const SX& a) {
  casadi::DM d = casadi::DM::densify(SX::evalf(a));
  rust::Vec<double> out;
  for (double x : d.nonzeros()) out.push_back(x);
  return out;
}

// ---- SX arithmetic ----
std::unique_ptr<SX> sx_binary(uint8_t op, const SX& a, const SX& b) {
  switch (op) {
    case 0: return boxed(a + b);
    case 1: return boxed(a - b);
    case 2: return boxed(a * b);
    case 3: return boxed(a / b);
    case 4: return boxed(pow(a, b));
    case 5: return boxed(fmin(a, b));
    case 6: return boxed(fmax(a, b));
    case 7: return boxed(SX::mtimes(a, b));
    case 8: return boxed(SX::dot(a, b));
    case 9: return boxed(atan2(a, b));
    case 10: return boxed(a < b);
    case 11: return boxed(a <= b);
    case 12: return boxed(a == b);
    default: throw std::invalid_argument("unknown binary operation code");
  }
}
std::unique_ptr<SX> sx_unary(uint8_t op, const SX& a) {
  switch (op) {
    case 0: return boxed(-a);
    case 1: return boxed(sin(a));
    case 2: return boxed(cos(a));
    case 3: return boxed(tan(a));
    case 4: return boxed(exp(a));
    case 5: return boxed(log(a));
    case 6: return boxed(sqrt(a));
    case 7: return boxed(tanh(a));
    case 8: return boxed(fabs(a));
    case 9: return boxed(a.T());
    case 10: return boxed(SX::sum1(SX::sum2(a)));
    case 11: return boxed(SX::norm_2(a));
    case 12: return boxed(sign(a));
    case 13: return boxed(SX::densify(a));
    case 14: return boxed(SX::tril(a));
    default: throw std::invalid_argument("unknown unary operation code");
  }
}
std::unique_ptr<SX> sx_if_else(const SX& c, const SX& a, const SX& b) { return boxed(SX::if_else(c, a, b)); }

// ---- SX structure ----
std::unique_ptr<SX> sx_vertcat(const SXVec& v) { return boxed(SX::vertcat(v.items)); }
std::unique_ptr<SX> sx_horzcat(const SXVec& v) { return boxed(SX::horzcat(v.items)); }
std::unique_ptr<SX> sx_reshape(const SX& a, size_t nrow, size_t ncol) {
  return boxed(SX::reshape(a, casadi_int(nrow), casadi_int(ncol)));
}
std::unique_ptr<SX> sx_get(const SX& a, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols) {
  SX out;
  a.get(out, false, casadi::Matrix<casadi_int>(to_index(rows)), casadi::Matrix<casadi_int>(to_index(cols)));
  return boxed(std::move(out));
}
std::unique_ptr<SX> sx_get_nz(const SX& a, rust::Slice<const int64_t> idx) {
  SX out;
  a.get_nz(out, false, casadi::Matrix<casadi_int>(to_index(idx)));
  return boxed(std::move(out));
}
void sx_set(SX& a, const SX& value, rust::Slice<const int64_t> rows, rust::Slice<const int64_t> cols) {
  a.set(value, false, casadi::Matrix<casadi_int>(to_index(rows)), casadi::Matrix<casadi_int>(to_index(cols)));
}

// ---- SX calculus ----
std::unique_ptr<SX> sx_jacobian(const SX& f, const SX& x) { return boxed(SX::jacobian(f, x)); }
std::unique_ptr<SX> sx_gradient(const SX& f, const SX& x) { return boxed(SX::gradient(f, x)); }
std::unique_ptr<SX> sx_hessian(const SX& f, const SX& x) {
  SX g;
  return boxed(SX::hessian(f, x, g));
}
std::unique_ptr<SX> sx_jtimes(const SX& f, const SX& x, const SX& v, bool transpose) {
  return boxed(SX::jtimes(f, x, v, transpose));
}
std::unique_ptr<SX> sx_substitute(const SX& ex, const SX& v, const SX& vdef) {
  return boxed(SX::substitute(ex, v, vdef));
}

// ---- SX serialization ----
rust::String sx_serialize(const SX& a) { return rust::String(a.serialize()); }
std::unique_ptr<SX> sx_deserialize(rust::Str s) { return boxed(SX::deserialize(std::string(s))); }

// ---- SX lists ----
std::unique_ptr<SXVec> sxvec_new() { return std::make_unique<SXVec>(); }
void sxvec_push(SXVec& v, const SX& a) { v.items.push_back(a); }
size_t sxvec_len(const SXVec& v) { return v.items.size(); }
std::unique_ptr<SX> sxvec_get(const SXVec& v, size_t i) { return std::make_unique<SX>(v.items.at(i)); }

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
std::unique_ptr<Function> fn_new(rust::Str name, rust::Slice<const rust::String> in_names, const SXVec& inputs,
                                 rust::Slice<const rust::String> out_names, const SXVec& outputs) {
  std::vector<std::string> ni, no;
  for (const auto& s : in_names) ni.emplace_back(std::string(s));
  for (const auto& s : out_names) no.emplace_back(std::string(s));
  return boxed(Function(std::string(name), inputs.items, outputs.items, ni, no));
}
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
std::unique_ptr<SXVec> fn_call_sx(const Function& f, const SXVec& args) {
  auto out = std::make_unique<SXVec>();
  out->items = f(args.items);
  return out;
}
std::unique_ptr<Function> fn_jacobian(const Function& f) { return boxed(f.jacobian()); }
std::unique_ptr<Function> fn_map(const Function& f, size_t n, rust::Str parallelization) {
  return boxed(f.map(casadi_int(n), std::string(parallelization)));
}
size_t fn_n_nodes(const Function& f) { return size_t(f.n_nodes()); }
rust::String fn_serialize(const Function& f) { return rust::String(f.serialize()); }
std::unique_ptr<Function> fn_deserialize(rust::Str s) { return boxed(Function::deserialize(std::string(s))); }
rust::String fn_to_string(const Function& f) { return rust::String(f.get_str()); }

// ---- Code generation ----
std::unique_ptr<CodeGenerator> cg_new(rust::Str name, bool with_header, rust::Str casadi_real, rust::Str casadi_int_t,
                                      rust::Str prefix) {
  casadi::Dict opts;
  opts["with_header"] = with_header;
  opts["casadi_real"] = std::string(casadi_real);
  opts["casadi_int"] = std::string(casadi_int_t);
  if (!prefix.empty()) opts["prefix"] = std::string(prefix);
  return std::make_unique<CodeGenerator>(std::string(name), opts);
}
void cg_add(CodeGenerator& g, const Function& f, bool with_jac_sparsity) { g.add(f, with_jac_sparsity); }
rust::String cg_dump(CodeGenerator& g) { return rust::String(g.dump()); }
rust::String cg_generate(CodeGenerator& g, rust::Str dir) { return rust::String(g.generate(std::string(dir))); }

}  // namespace fesd_casadi
