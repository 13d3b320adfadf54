// tests/differential/signature_test.cpp - each catalog entry's Python signatures against PyTorch 1.13's.
/// \file
/// Issue 18, item 3: torch.X, torch.Tensor.X, torch.nn.functional.X, ... take
/// the arguments PyTorch 1.13 takes: the same names in the same order, the
/// same defaults, the same keyword-only markers. Every overload of every
/// entry (wick::python_signatures, with out= merged in) must be one of the
/// signatures PyTorch 1.13 binds for that name
/// (tests/data/reference/torch-1.13-python-signatures.json, made from
/// PyTorch's own parser strings and inspect.signature by
/// dump_python_signatures.py: not the hand-written testing-override dummies
/// of torch-1.13-signatures.json). A difference fails the test unless an
/// entry of `kSignatureDivergences` gives its reason; the README lists them
/// all, and an entry that matches nothing fails too.
#include <gtest/gtest.h>

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"
#include "wick/catalog.h"
#include "wick/error.h"

namespace {

struct SignatureDivergence {
  /// fnmatch patterns against "qualified.name(signature)".
  std::vector<const char*> patterns;
  const char* reason;
};

const SignatureDivergence kSignatureDivergences[] = {
    {{"torch.distributed.*(*"},
     "torch.distributed's collectives are Python functions in PyTorch 1.13, outside its override lists and their "
     "signature dump; wick's follow their Python signatures (op takes a ReduceOp name, group a ProcessGroup or None)"},
    {{"torch.zeros(*",        "torch.ones(*",         "torch.empty(*",        "torch.full(*",
      "torch.rand(*",         "torch.randn(*",        "torch.randint(*",      "torch.randperm(*",
      "torch.arange(*",       "torch.linspace(*",     "torch.eye(*",          "torch.tensor(*",
      "torch.*_like(*",       "torch.tril_indices(*", "torch.triu_indices(*", "torch.fft.fftfreq(*",
      "torch.fft.rfftfreq(*", "torch.Tensor.new_*(*", "torch.*_window(*",     "torch.empty_strided(*",
      "torch.logspace(*",     "torch.range(*",        "torch.scalar_tensor(*"},
     "creation functions take dtype= and device= but not PyTorch's layout=, pin_memory=, names=, generator=, "
     "memory_format= or out= (wick has strided tensors only, no pinned memory, named tensors or generator objects); "
     "`wick eval` takes requires_grad= as PyTorch does"},
    {{"torch.Tensor.clone(self)", "torch.clone(input)", "torch.Tensor.contiguous(self)", "torch.Tensor.cpu(self)",
      "torch.Tensor.cuda(self, *)", "torch.Tensor.to(self, *", "torch.Tensor.float(self)", "torch.Tensor.double(self)",
      "torch.Tensor.half(self)", "torch.Tensor.bfloat16(self)", "torch.Tensor.cfloat(self)",
      "torch.Tensor.cdouble(self)", "torch.Tensor.bool(self)", "torch.Tensor.byte(self)", "torch.Tensor.char(self)",
      "torch.Tensor.short(self)", "torch.Tensor.int(self)", "torch.Tensor.long(self)"},
     "no memory_format= (wick has no channels-last layouts: every result is strided, contiguous where PyTorch's "
     "default format is)"},
    {{"torch.Tensor.expand(self, size)"}, "no implicit= (a flag of PyTorch's tracer that changes nothing else)"},
    {{"torch.Tensor.__bool__(self)", "torch.Tensor.__float__(self)", "torch.Tensor.__int__(self)",
      "torch.Tensor.__long__(self)"},
     "PyTorch 1.13's dump gives these the signature of the conversion whose slot they share ((self, *, "
     "memory_format=None): x.__float__ is x.float's C function); they take the tensor only, as Python calls them"},
    {{"torch.Tensor.__getitem__(self, key)", "torch.Tensor.__setitem__(self, key, value)"},
     "PyTorch 1.13's dump has none for these slot wrappers; their text signatures are (self, key, /) and (self, key, "
     "value, /): the arguments are positional-only there, and wick also takes them by name"},
    {{"torch.Tensor.apply_(self, callable)"},
     "PyTorch 1.13's dump has none for Tensor.apply_, a method of its C++ binding that takes its one argument "
     "positionally (its docstring: apply_(callable) -> Tensor)"},
    {{"torch.Tensor.resize(self, sizes)"},
     "PyTorch's deprecated Tensor.resize is a Python function of (self, *sizes): given one tuple it fails, even when "
     "the number of elements matches; wick's takes the sizes as ints or as one list, as resize_ does"},
    {{"torch.Tensor.is_contiguous(self)", "torch.Tensor.type(self, dtype=None, non_blocking=False)",
      "torch.Tensor.resize_(self, size)", "torch.Tensor.resize_as_(self, the_template)"},
     "no memory_format= (wick has no channels-last layouts: a tensor is contiguous in the one format it has)"},
    {{"torch.bernoulli(input*", "torch.Tensor.bernoulli(self*", "torch.Tensor.bernoulli_(self*", "torch.normal(*",
      "torch.Tensor.uniform_(self*", "torch.Tensor.normal_(self*", "torch.Tensor.random_(self*",
      "torch.Tensor.exponential_(self*", "torch.Tensor.geometric_(self*", "torch.Tensor.cauchy_(self*",
      "torch.Tensor.log_normal_(self*", "torch.rrelu(input*", "torch.multinomial(input*",
      "torch.Tensor.multinomial(self*", "torch.poisson(input*"},
     "no generator= (random operators draw from the default generator), and no out= for bernoulli, normal and "
     "multinomial"},
    {{"torch.max(input, dim, keepdim=False)",
      "torch.min(input, dim, keepdim=False)",
      "torch.topk(input, k, dim=-1, largest=True, sorted=True)",
      "torch.kthvalue(input, k, dim=-1, keepdim=False)",
      "torch.median(input, dim, keepdim=False)",
      "torch.nanmedian(input, dim, keepdim=False)",
      "torch.mode(input, dim=-1, keepdim=False)",
      "torch.aminmax(input, \\*, dim=None, keepdim=False)",
      "torch.linalg.lu_factor_ex(A, \\*, pivot=True, check_errors=False)",
      "torch.linalg.lu_factor(A, \\*, pivot=True)",
      "torch.linalg.solve_ex(A, B, \\*, left=True, check_errors=False)",
      "torch.linalg.inv_ex(A, \\*, check_errors=False)",
      "torch.linalg.slogdet(A)",
      "torch.slogdet(input)",
      "torch.linalg.cholesky_ex(input, \\*, upper=False, check_errors=False)",
      "torch.linalg.eigh(input, UPLO='L')",
      "torch.linalg.qr(A, mode='reduced')",
      "torch.linalg.svd(A, full_matrices=True, \\*, driver=None)",
      "torch.qr(input, some=True)",
      "torch.svd(input, some=True, compute_uv=True)",
      "torch.triangular_solve(input, A, upper=True, transpose=False, unitriangular=False)",
      "torch.linalg.lu(A, \\*, pivot=True)",
      "torch.linalg.eig(input)",
      "torch.cummax(input, dim)",
      "torch.cummin(input, dim)",
      "torch.geqrf(input)",
      "torch.symeig(input, eigenvectors=False, upper=True)",
      "torch.linalg.ldl_factor_ex(input, \\*, hermitian=False, check_errors=False)",
      "torch.linalg.ldl_factor(input, \\*, hermitian=False)",
      "torch.lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True)",
      "torch.frexp(input)",
      "torch.linalg.lstsq(input, b, rcond=None, \\*, driver=None)",
      "torch.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)",
      "torch.histogram(input, bins=100, \\*, range=None, weight=None, density=False)"},
     "no out=(values, indices) for the named-tuple results yet"},
    {{"torch.einsum(equation, \\*operands)", "torch.functional.einsum(equation, \\*operands)"},
     "the equation first, then the operands (as tensors or one list); PyTorch's (*args) also takes the sublist "
     "format einsum(a, [0, 1], b, [1, 2]), which wick does not"},
    {{"torch.tensordot(a, b, dims=2, \\*, out=None)", "torch.functional.tensordot(a, b, dims=2, \\*, out=None)"},
     "out= is keyword-only (PyTorch's Python tensordot also takes it fourth, positionally)"},
    {{"torch.split(input, split_size_or_sections, dim=0)", "torch.Tensor.split(self, split_size_or_sections, dim=0)",
      "torch.functional.split(input, split_size_or_sections, dim=0)"},
     "one definition serves both: PyTorch names the first argument tensor in torch.split and the second "
     "split_size in Tensor.split"},
    {{"torch.Tensor.norm(self, p='fro', dim=None, keepdim=False, \\*, dtype=None)",
      "torch.norm(input, p='fro', dim=None, keepdim=False, \\*, dtype=None)",
      "torch.functional.norm(input, p='fro', dim=None, keepdim=False, \\*, dtype=None)"},
     "one definition serves both: dtype= is keyword-only (PyTorch's Tensor.norm takes it fifth, torch.norm sixth "
     "after a positional out, which wick does not have)"},
    {{"torch.norm(input, p, dim, keepdim=False)", "torch.Tensor.norm(self, p, dim, keepdim=False)"},
     "norm.ScalarOpt_dim, the kernel overload behind torch.norm, is in the catalog under torch.norm as in "
     "PyTorch's ATen; Python reaches it through the signature above"},
    {{"torch.nonzero(input, \\*, out=None)", "torch.Tensor.nonzero(self)"},
     "no as_tuple= (torch.where(condition) gives the tuple form)"},
    {{"torch.Tensor.__rsub__(self, other, \\*, alpha=1)"},
     "PyTorch 1.13's Tensor.__rsub__ takes no alpha (it returns NotImplemented); wick's computes other - alpha * "
     "self"},
    {{"torch.dropout(input, p, train, inplace=False)"},
     "torch.dropout and F.dropout share one kernel, which takes inplace=; PyTorch's torch.dropout has none"},
    {{"torch.functional.unique(*", "torch.functional.unique_consecutive(*", "torch.unique_consecutive(*",
      "torch.functional.lu(*"},
     "PyTorch's are Python functions behind a wrapper that picks the result's form, so their signature reads "
     "(*args, **kwargs); wick's give the parameters they take"},
    {{"torch.split_copy(input, split_size, dim=0)", "torch.split_with_sizes_copy(input, split_sizes, dim=0)",
      "torch.unbind_copy(input, dim=0)"},
     "no out= for the *_copy functions that return a list of tensors (out= takes one tensor in wick)"},
    {{"torch.binary_cross_entropy_with_logits(*reduction=0)", "torch.kl_div(*reduction=0, \\*, log_target=False)",
      "torch.hinge_embedding_loss(*reduction=0)", "torch.margin_ranking_loss(*reduction=0)",
      "torch.cosine_embedding_loss(*reduction=0)", "torch.triplet_margin_loss(*reduction=0)",
      "torch.ctc_loss(*reduction=0, zero_infinity=False)"},
     "PyTorch 1.13's parser strings of its ATen losses say reduction=Mean (1), but its binding reads the default as 0 "
     "(none): torch.binary_cross_entropy_with_logits(x, y) and torch.kl_div(x, y) are unreduced; wick says what it "
     "does"},
};

bool matches(const SignatureDivergence& d, const std::string& text) {
  for (const char* p : d.patterns)
    if (fnmatch(p, text.c_str(), 0) == 0) return true;
  return false;
}

// PyTorch's parser spells an empty-list default (`int[1] dim=[]`) None.
std::string normalised(std::string sig) {
  for (std::size_t at = sig.find("=[]"); at != std::string::npos; at = sig.find("=[]", at)) sig.replace(at, 3, "=None");
  return sig;
}

// "(a, b=1, *, c=None)" -> {"a", "b=1", "*", "c=None"}.
std::vector<std::string> parameters(const std::string& sig) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (std::size_t i = 1; i + 1 < sig.size(); ++i) {
    const char c = sig[i];
    depth += (c == '[' || c == '(') ? 1 : (c == ']' || c == ')') ? -1 : 0;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else if (!(c == ' ' && cur.empty())) {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string spelled(const std::vector<std::string>& params) {
  std::string out = "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i] == "*" && i + 1 == params.size()) break;  // no keyword-only argument left
    out += (i == 0 ? "" : ", ") + params[i];
  }
  return out + ")";
}

bool among(const std::vector<std::string>& sigs, const std::string& sig) {
  return std::find(sigs.begin(), sigs.end(), sig) != sigs.end();
}

// Whether `sig` is PyTorch's overloads `ref` merged: PyTorch often splits an
// optional argument into two overloads, one without it and one where it has
// no default (div(other) and div(other, *, rounding_mode); squeeze() and
// squeeze(dim)), where wick has one signature with `=None`.
bool merges_overloads(const std::string& sig, const std::vector<std::string>& ref) {
  const std::vector<std::string> params = parameters(sig);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].ends_with("=None")) continue;
    std::vector<std::string> required = params;
    required[i] = params[i].substr(0, params[i].size() - 5);
    std::vector<std::string> without = params;
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
    if (among(ref, spelled(required)) && among(ref, spelled(without))) return true;
  }
  return false;
}

std::map<std::string, std::vector<std::string>> reference_signatures() {
  std::ifstream f(wick_test::reference_dir() + "/torch-1.13-python-signatures.json");
  EXPECT_TRUE(f.good());
  const nlohmann::json j = nlohmann::json::parse(f);
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [name, entry] : j.at("signatures").items()) {
    std::vector<std::string>& sigs = out[name];
    for (const auto& s : entry.at("overloads")) sigs.push_back(normalised(s.get<std::string>()));
  }
  return out;
}

TEST(Signatures, EveryOverloadIsOneOfPyTorchs) {
  const auto reference = reference_signatures();
  ASSERT_GT(reference.size(), 1000u);
  std::vector<std::size_t> used(std::size(kSignatureDivergences), 0);
  std::size_t checked = 0;
  std::size_t same = 0;
  std::vector<std::string> failures;
  for (const wick::CatalogEntry& e : wick::catalog_entries()) {
    if (e.ns != "torch" && !e.ns.starts_with("torch.")) continue;  // internal (aten) and plugin namespaces
    const auto ref = reference.find(e.qualified_name);
    if (e.kind == "property") {
      // PyTorch's dump has no signature for a property: Python reads it as an
      // attribute, and an override sees its getter, which takes the tensor only.
      EXPECT_EQ(wick::python_signatures(e.qualified_name), std::vector<std::string>{"(self)"}) << e.qualified_name;
      EXPECT_TRUE(ref == reference.end()) << e.qualified_name << " has a signature in PyTorch: not a property";
      continue;
    }
    for (const std::string& sig : wick::python_signatures(e.qualified_name)) {
      ++checked;
      const std::string text = e.qualified_name + sig;
      if (ref != reference.end() &&
          (among(ref->second, normalised(sig)) || merges_overloads(normalised(sig), ref->second))) {
        ++same;
        continue;
      }
      bool documented = false;
      for (std::size_t i = 0; i < std::size(kSignatureDivergences); ++i) {
        if (matches(kSignatureDivergences[i], text)) {
          ++used[i];
          documented = true;
        }
      }
      if (documented) continue;
      std::string theirs;
      if (ref == reference.end()) {
        theirs = "(no reference signature)";
      } else {
        for (const std::string& s : ref->second) theirs += (theirs.empty() ? "" : " | ") + s;
      }
      failures.push_back(text + "\n      PyTorch 1.13: " + theirs);
    }
  }
  for (const std::string& f : failures) ADD_FAILURE() << f;
  for (std::size_t i = 0; i < std::size(kSignatureDivergences); ++i)
    EXPECT_GT(used[i], 0u) << "divergence entry " << i << " (" << kSignatureDivergences[i].patterns[0]
                           << ") matches nothing: remove it";
  EXPECT_GT(checked, 400u);
  std::printf("signatures: %zu of %zu overloads are PyTorch 1.13's; %zu differ\n", same, checked, checked - same);
}

// The listing behind the test: every overload, out= merged into its own.
TEST(Signatures, PythonSignaturesListEveryOverloadWithItsOut) {
  EXPECT_EQ(wick::python_signatures("torch.max"),
            (std::vector<std::string>{"(input)", "(input, dim, keepdim=False)", "(input, other, *, out=None)"}));
  EXPECT_EQ(wick::python_signatures("torch.Tensor.add"), (std::vector<std::string>{"(self, other, *, alpha=1)"}));
  EXPECT_EQ(wick::python_signatures("torch.abs"), (std::vector<std::string>{"(input, *, out=None)"}));
  EXPECT_THROW((void)wick::python_signatures("torch.no_such_op"), wick::ValueError);
}

}  // namespace
