// tests/differential/differential_test.cpp - wick eval against PyTorch 1.13, expression by expression.
/// \file
/// Note [The differential test]
/// `tests/differential/make_cases.py` writes, under PyTorch 1.13, about
/// 10,000 expressions and what PyTorch prints for each (the golden file
/// `golden/differential.json`): every operator definition through every
/// entry derived from it, every pair of the twelve dtypes through the
/// operators, conversions, print formats, errors, the expression grammar,
/// and every operator's samples in every dtype (Note [Dtype coverage]). Each is evaluated here with
/// wick's expression engine, as `wick eval` does, and compared with:
///   - a value: its repr, exactly (a pointer in a repr, `at 0x7f...`, is
///     not compared);
///   - an error: `Type: first line of the message`, exactly, or with wick's
///     documented prefix naming the operator (`RuntimeError: torch.mm: ...`
///     where PyTorch says `RuntimeError: ...`; tools/wick/README.md, "Errors").
/// One allowance: a value computed by OpenBLAS (products and convolutions,
/// `blas_computed`) may differ from the golden one by float rounding. The
/// library picks its kernels, and with them the order of each sum, by the
/// host's CPU (AVX2 here, AVX-512 on the GPU machine), so the last printed
/// digit of a sum that cancels can differ between two hosts running the same
/// wick. Such a case matches when its text and number formats are the same
/// and each number is within one unit of its last printed digit plus 4
/// float32 epsilons of the largest one. The same allowance, with the
/// dtype's epsilon, holds for float16, bfloat16 and complex results (PyTorch
/// sums 16-bit values in float32 in its vector loops' order, and rounds
/// complex products and quotients its own way), there with the numbers'
/// formats free to differ (`without_formats`): a format follows from the
/// values, and a build with or without fused multiply-adds decides whether
/// a part is an exact zero or a residue of 1e-17.
///
/// Note [Dtype coverage]
/// The `dtypes` section runs each operator's samples with their floating
/// inputs converted to each other dtype. It checks the operator's dtype
/// coverage: PyTorch computes a case if and only if wick does. Where both
/// refuse, the messages compare as above, except that two `"kernel" not
/// implemented for 'Half'` refusals match when they name the same dtype:
/// PyTorch's kernel names ("softmax_kernel_impl" or
/// "softmax_lastdim_kernel_impl") depend on its code path, the dtype is what
/// the user needs. Where the coverage differs, a `kDivergences` entry must
/// say why (wick computes float16 and bfloat16 where PyTorch 1.13's CPU has
/// no kernel for them, for one).
/// A case that differs fails the test unless one entry of `kDivergences`
/// matches its expression; each entry gives its reason, and the README
/// lists them all. An entry that no longer matches a differing case fails
/// the test too, so the list stays as short as it can be.
#include <gtest/gtest.h>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"
#include "tools/wick/eval.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/random.h"

namespace {

struct Divergence {
  /// Shell-style patterns (fnmatch: `*` any text, `\\[` a bracket) matched
  /// against the whole expression; an expression matching any of them.
  std::vector<const char*> patterns;
  const char* reason;
  /// When set, the case must also print this (a pattern) under PyTorch.
  const char* torch_output = nullptr;
};

// Every documented divergence from PyTorch 1.13 the generated cases meet
// (tests/README.md, "The differential test", and the divergences noted in sdk/docs/). Keep this list short: fix the
// cause where it can be fixed.
const Divergence kDivergences[] = {
    {{"*.__dlpack_device__()"},
     "wick gives DLPack's device type as a plain int (1 is kDLCPU); PyTorch gives its IntEnum DLDeviceType, which "
     "prints <DLDeviceType.kDLCPU: 1> and equals 1"},
    {{"*.__rsub__(*alpha=*"},
     "PyTorch 1.13's Tensor.__rsub__ returns NotImplemented when given alpha; wick computes other - alpha * self"},
    {{"torch.bitwise_not(*out=*", "torch.nonzero(*out=*", "torch.argmax(*out=*", "torch.argmin(*out=*",
      "torch.all(*out=*", "torch.any(*out=*", "torch.softmax(*torch.float64, out=*",
      "torch.log_softmax(*torch.float64, out=*", "torch.linalg.vector_norm(*dtype=*out=*",
      "torch.linalg.matrix_norm(*dtype=*out=*", "torch.float_power(*out=*", "torch.signbit(*out=*",
      "torch.isin(*out=*"},
     "an out= of another dtype than the result's, where the result's dtype is fixed (an index, a bool, an integer "
     "bitwise result, an explicit dtype=): PyTorch refuses it ('Expected out tensor to have dtype long int, but got "
     "float instead', 'all only supports bool tensor for result, got: Float', 'Found dtype Float but expected "
     "Long'); wick applies the cast rule of every other out= and converts"},
    {{"torch.linalg.ldl_factor(*"},
     "ldl_factor's argument errors: PyTorch 1.13 reports them under the name of ldl_factor_ex, which it calls "
     "('torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got Long'); wick's boxed "
     "calls name no operator but the one called (Note [Error prefixes])",
     "RuntimeError: torch.linalg.ldl_factor_ex: *"},
    {{"torch.sum(*, out=*", "torch.mean(*, out=*"},
     "torch.sum(x, out=o) and torch.mean(x, out=o) without dim: PyTorch has out= only in its overload with dim (an "
     "invalid combination without); wick's one overload takes dim=None and out="},
    {{"F.batch_norm(*", "torch.batch_norm(*", "F.instance_norm(*", "torch.instance_norm(*"},
     "batch_norm (and instance_norm, which is batch_norm of the reshaped input) in training mode where an element "
     "cancels to about 1e-8 of its scale: both fold the statistics into alpha and beta and round x * alpha + beta "
     "once (a fused multiply-add), but PyTorch's CPU kernel sums the batch statistics in float in its own order and "
     "wick in double, mean then squared deviations: 2.5037e-08 in PyTorch, 3.9938e-08 in wick"},
    {{"2 ** 100"}, "Python's ints are unbounded; wick's are int64 and raise OverflowError"},
    {{"*complex*.requires_grad_()).backward()"},
     "backward() of a complex scalar without a gradient: PyTorch 1.13 seeds it with 1; wick refuses it, as PyTorch 2 "
     "does ('grad can be implicitly created only for real scalar outputs'): the gradient of a function that is not "
     "real-valued needs an explicit seed",
     "None"},
    {{"*._version"},
     "the version counter of a fresh result: wick's kernels that build a result by writing into a new tensor (to, "
     "clone, contiguous, zeros, cat) count that write, so it starts above 0 where PyTorch's starts at 0; an in-place "
     "operation moves both by one, and autograd's saved-tensor check compares changes only"},
    {{"*.reshape(*).detach_()"},
     "detach_ of a view: PyTorch refuses every view ('Can't detach views in-place'); wick tracks views only of "
     "tensors with autograd history, and refuses those, so a view of a tensor without history detaches in place "
     "(nothing to drop)",
     "RuntimeError: Can't detach views in-place.*"},
    {{"torch.ones(2, 3).tolist(1)"},
     "extra arguments to a method that takes none: PyTorch's C methods word it '_TensorBase.tolist() takes no "
     "arguments (1 given)'; wick's binder words every method's as PyTorch's argument parser does ('tolist() takes 0 "
     "positional arguments but 1 was given')",
     "TypeError: _TensorBase.tolist() takes no arguments (1 given)"},
    {{"torch.slice_scatter(*", "*.slice_scatter(*"},
     "slice_scatter without an explicit step: PyTorch 1.13's Python binding misreads the slice (a slice of one "
     "element, or 'slice step must be positive', whatever start and end say); wick replaces self[start:end:step] "
     "along dim, as PyTorch 2 does",
     "RuntimeError: *"},
    {{"torch.*_copy(*out=torch.empty(0))"},
     "an out= of another shape for the *_copy functions: PyTorch 1.13's do not resize it ('The size of tensor a (0) "
     "must match the size of tensor b (3) at non-singleton dimension 1'); wick resizes it, as every other out= does",
     "RuntimeError: *"},
    {{"torch.histogramdd(*"},
     "histogramdd prints its two results as a plain tuple (the counts, then the tuple of each dim's edges) where "
     "PyTorch prints torch.return_types.histogramdd(hist=..., bin_edges=(...)): the same tensors",
     "torch.return_types.histogramdd(*"},
    {{"torch.functional.lu(*get_infos=True)"},
     "the old torch.lu with get_infos=True: PyTorch prints its three results as torch.return_types._lu_with_info; "
     "wick's (LU, pivots, info) is a plain tuple (the same three tensors)"},
    {{"torch.stft(*torch.float16*", "torch.stft(*torch.bfloat16*", "torch.istft(*torch.float16*",
      "torch.istft(*torch.bfloat16*"},
     "stft and istft of float16 and bfloat16: both refuse them, in different words (PyTorch: 'expected scalar type "
     "ComplexDouble but found ComplexHalf'; wick: the DFTs' 'Unsupported dtype Half')",
     "RuntimeError: *"},
    {{"torch.istft(*window=*.to(torch.uint8)*", "torch.istft(*window=*.to(torch.int8)*",
      "torch.istft(*window=*.to(torch.int16)*", "torch.istft(*window=*.to(torch.int32)*",
      "torch.istft(*window=*.to(torch.int64)*", "torch.istft(*window=*.to(torch.bool)*"},
     "istft with an integer or bool window: PyTorch 1.13 refuses it in its overlap-add of the window's squares "
     "('\"col2im_out_cpu\" not implemented for 'Long''); wick's window promotes with the frames, as in stft",
     "RuntimeError: *"},
    {{"torch.convolution(*complex*"},
     "torch.convolution of complex tensors: PyTorch 1.13's has no complex kernel (its conv1d/2d/3d split a complex "
     "convolution into real ones before they call it); wick's convolution is conv1d/2d/3d and computes it",
     "RuntimeError: *not implemented for 'Complex*"},
    {{"torch.conv_transpose1d(*torch.bfloat16*", "torch.conv_transpose2d(*torch.bfloat16*",
      "torch.convolution(*torch.bfloat16*, True, *"},
     "bfloat16 conv_transpose on the CPU: PyTorch 1.13 checks the channels of a plain convolution there and refuses "
     "every call ('Given groups=1, weight of size [3, 2, 1, 3], expected input[2, 3, 1, 5] to have 2 channels'); "
     "wick computes it"},
    {{"torch.conv_transpose3d(*torch.bfloat16*", "F.conv_transpose3d(*torch.bfloat16*"},
     "bfloat16 conv_transpose3d on the CPU: PyTorch 1.13 runs a plain convolution there (its result has the shape "
     "of conv3d's, or it refuses the channels as conv_transpose2d does); wick computes the transposed convolution"},
    {{"torch.affine_grid_generator(*torch.*int*", "torch.affine_grid_generator(*torch.bool*"},
     "affine_grid_generator of an integer or bool theta: PyTorch 1.13 builds the grid's -1..1 coordinates in that "
     "dtype (a meaningless grid, or linspace's refusal for bool); wick refuses it, as F.affine_grid does"},
    {{"F.soft_margin_loss(*torch.complex*"},
     "complex soft_margin_loss: PyTorch 1.13 computes it; wick's log1p has no complex kernel yet and says so"},
    {{"F.interpolate(*torch.bfloat16*mode='bicubic'*"},
     "bfloat16 bicubic interpolation: PyTorch 1.13 computes the source positions and weights in bfloat16; wick "
     "computes them in float32 and rounds only the weights, so its result is the more accurate one"},
    {{"torch.bitwise_left_shift(torch.tensor(\\[1, -1, 5\\]), torch.tensor(\\[63, 64, -1\\]))"},
     "a shift count below 0 or of the type's width or more: PyTorch 1.13's CPU kernel leaves it to the hardware "
     "(x86 takes the count modulo the width: -1 << 64 is -1); wick shifts every bit out, on every backend (Note "
     "[Shift counts])"},
    {{"(torch.linspace(-1.57, 1.9, 4)).addbmm_(*"},
     "addbmm_ on a self of another shape than the result's: PyTorch 1.13 resizes self to the result and writes it; "
     "wick refuses it as every other in-place operator does (\"output with shape [4] doesn't match the broadcast "
     "shape [3, 4]\")"},
    {{"(torch.linspace(-1.57, 1.9, 2)).addr_(*"},
     "addr_ on a 1-D self: PyTorch 1.13's message is '2D tensor expected, got 1D tensor for input'; wick's is its "
     "in-place shape message (\"output with shape [2] doesn't match the broadcast shape [3, 2]\")",
     "RuntimeError: 2D tensor expected, got 1D tensor for input"},
    {{"torch.matrix_exp(*torch.bfloat16)*", "torch.linalg.matrix_exp(*torch.bfloat16)*"},
     "matrix_exp of bfloat16: PyTorch 1.13's CPU kernel returns infinities and NaNs for matrices of norm about 2; "
     "wick computes in float32 and rounds the result to bfloat16"},
    {{"torch.frobenius_norm(*.to(torch.*int*), \\[*, *\\])", "torch.frobenius_norm(*.to(torch.bool), \\[*, *\\])"},
     "frobenius_norm of an integer or bool tensor over two dims: PyTorch 1.13 fails an internal assert "
     "(result.scalar_type() == toRealValueType(self.scalar_type())); wick raises norm's error for integer inputs",
     "RuntimeError: result.scalar_type() == toRealValueType*"},
    {{"F.l1_loss(*, 2.0)"},
     "a number where a torch.nn.functional function written in Python uses a tensor: PyTorch fails inside that code "
     "(AttributeError: 'float' object has no attribute 'size'); wick refuses the argument with PyTorch's TypeError "
     "for a tensor argument"},
    {{"torch.ones(2).add()", "torch.add(torch.ones(2))", "torch.eq(2, *"},
     "a bad call of an operator that has one overload in wick but several in PyTorch (add's deprecated (Scalar "
     "alpha, Tensor other) form; eq's Tensor and Scalar forms): PyTorch says 'received an invalid combination of "
     "arguments', wick names the missing or mistyped argument, as PyTorch does for an operator with one overload"},
    {{"*\\[..., ...\\]"}, "PyTorch 1.13 accepts two ellipses in an index; wick raises IndexError, as NumPy does"},
    {{"torch.searchsorted(torch.tensor(*), 0, out=*", "torch.bucketize(0, *out=*"},
     "a number for the values with out=: PyTorch's Scalar overloads have no out= (an invalid combination of "
     "arguments); wick's one definition takes a number or a tensor, with or without out="},
    {{"torch.isposinf(*out=*", "torch.isneginf(*out=*"},
     "an out= of another dtype than bool: PyTorch refuses it ('isposinf does not support non-boolean outputs.'); "
     "wick applies the cast rule of every other out= and converts"},
    {{"torch.histc(*float('nan')*, min=*"},
     "NaN in histc with an explicit range: PyTorch 1.13's range check lets NaN through and its bin of NaN is "
     "undefined behaviour (it lands in the first bin); wick leaves NaN out, as PyTorch documents"},
    {{"*device='nonsense'*"},
     "a bad device string: wick lists the device types it has (cpu, cuda, meta and registered ones), not "
     "PyTorch's nineteen"},
    // Note [Dtype coverage]: where wick computes what PyTorch 1.13 refuses.
    {{"*torch.float16*"},
     "float16 on the CPU: PyTorch 1.13's CPU has float16 kernels for a few operators only ('\"exp_vml_cpu\" not "
     "implemented for 'Half''); wick computes every operator in float16, through float32 and rounded once, as "
     "PyTorch's CUDA backend and its later CPU releases do",
     "*not implemented for 'Half'*"},
    {{"*torch.bfloat16*"},
     "bfloat16 on the CPU where PyTorch 1.13 has no kernel (mse_loss, binary_cross_entropy, prod, reflection and "
     "replication padding): wick computes them through float32, as its other bfloat16 operators",
     "*not implemented for 'BFloat16'*"},
    {{"*_pad(*", "F.pad(*"},
     "reflect and replicate padding of integers and bools: PyTorch 1.13 has no kernel for them; wick pads every dtype "
     "(its padding is an index_select)",
     "*pad*not implemented for*"},
    {{"torch.conv1d(*", "torch.conv2d(*", "torch.conv3d(*", "F.conv1d(*", "F.conv2d(*", "F.conv3d(*"},
     "integer convolutions that PyTorch 1.13 sends to its dilated kernel (unbatched or grouped ones): it has no "
     "integer loop there; wick computes them in exact integer arithmetic, as its other integer convolutions",
     "*slow_conv_dilated<>*"},
    {{"*dtype=torch.float16) ? 1j", "*dtype=torch.float16) ? (1.5-2j)", "1j ? torch.tensor(*dtype=torch.float16)",
      "(1.5-2j) ? torch.tensor(*dtype=torch.float16)",
      "(torch.tensor(*dtype=torch.float16) + torch.tensor(1, dtype=torch.complex*"},
     "float16 with a complex number: PyTorch 1.13 computes in complex32 (ComplexHalf), which has few kernels; wick has "
     "no complex32 and computes in complex64"},
    {{"torch.cholesky_inverse(*complex*"},
     "cholesky_inverse of a complex matrix whose diagonal is not real, so not a Cholesky factor: PyTorch 1.13's "
     "LAPACK path (potri) returns a matrix that is not even Hermitian; wick returns the inverse of L L^H"},
    {{"torch.dot(*complex*", "torch.matmul(*complex*", "torch.vdot(*complex*", "torch.vdot(torch.tensor(*j*"},
     "the dot product of complex vectors (torch.dot, torch.vdot, 1-D torch.matmul): PyTorch 1.13 as Debian builds it "
     "returns 0; "
     "wick computes it",
     "tensor(0.+0.j*"},
    {{"F.group_norm(*bfloat16*", "torch.group_norm(*bfloat16*", "F.nll_loss(*bfloat16*"},
     "bfloat16 group_norm and nll_loss: PyTorch 1.13 rounds intermediate statistics (a group's mean and variance, "
     "the running sum of the loss) to bfloat16; wick keeps them in float32, a bfloat16 step or two more accurate"},
    {{"torch.view_as_complex(*torch.float16))", "torch.view_as_complex_copy(*torch.float16))",
      "torch.complex(*torch.float16)*", "torch.polar(*torch.float16)*"},
     "view_as_complex, complex and polar of float16: PyTorch 1.13 makes complex32 (ComplexHalf); wick has no "
     "complex32 and refuses them"},
    {{"*, out=torch.empty(0))"},
     "out= of a real dtype for a complex result: both refuse it, in different words (PyTorch: 'Found dtype Float "
     "but expected ComplexFloat', 'Expected object of scalar type ComplexFloat ... for argument 'out'', 'fft "
     "expects a complex output tensor, but got Float'; wick: 'result type ComplexFloat can't be cast to the "
     "desired output type Float', its message for every out=)",
     "*omplex*"},
    {{"torch.topk(*torch.*int*", "torch.kthvalue(*torch.*int*"},
     "topk and kthvalue among equal elements: PyTorch 1.13 takes them in the order of its partial sort "
     "(quickselect); wick sorts stably, so equal elements come lowest index first (the values agree, the indices of "
     "ties can differ)"},
    {{"torch.complex32"}, "wick has no complex32 (ComplexHalf) dtype: PyTorch 1.13 has few kernels for it"},
    {{"torch.addmm(*torch.uint8*"},
     "an integer matrix product whose alpha or beta does not fit its dtype (uint8 with a negative alpha): PyTorch "
     "refuses the number; wick converts it as its elementwise operators convert numbers",
     "*without overflow*"},
};

bool matches(const Divergence& d, const std::string& expr, const std::string& torch_output) {
  if (d.torch_output != nullptr && fnmatch(d.torch_output, torch_output.c_str(), 0) != 0) return false;
  for (const char* pattern : d.patterns)
    if (fnmatch(pattern, expr.c_str(), 0) == 0) return true;
  return false;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// What `wick eval` prints for `expr`: the value's repr, or "Type: message".
std::string wick_output(const std::string& expr) {
  try {
    return wick::eval::format(wick::eval::evaluate(expr));
  } catch (const wick::Error& e) {
    return std::string(e.type_name()) + ": " + first_line(e.what());
  } catch (const std::exception& e) {
    return "RuntimeError: " + first_line(e.what());
  }
}

// "<... at 0x7f1e11b908d0>" -> "<... at 0x?>": pointers are not compared.
std::string without_addresses(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "0x") == 0 && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 2])) != 0) {
      out += "0x?";
      i += 2;
      while (i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) != 0) ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

// An operator's name as a prefix gives it: "torch.mm", "torch.nn.functional.nll_loss", "pow_".
bool operator_name(const std::string& s) {
  if (s.empty() || (std::isalpha(static_cast<unsigned char>(s[0])) == 0 && s[0] != '_')) return false;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '.') return false;
  return true;
}

// Equal, or equal once wick's operator prefix ("RuntimeError: torch.mm: ...") is dropped.
bool same_output(const std::string& wick_text, const std::string& torch_text) {
  const std::string w = without_addresses(wick_text);
  const std::string t = without_addresses(torch_text);
  if (w == t) return true;
  const std::size_t type_end = w.find(": ");
  if (type_end == std::string::npos) return false;
  const std::size_t name_end = w.find(": ", type_end + 2);
  if (name_end == std::string::npos || !operator_name(w.substr(type_end + 2, name_end - type_end - 2))) return false;
  return w.substr(0, type_end + 2) + w.substr(name_end + 2) == t;
}

// Whether `expr` calls an operator that wick's CPU backend computes with
// OpenBLAS or its LAPACK (Note [The differential test]).
const char* const kBlasNames[] = {"mm(",
                                  "matmul(",
                                  "conv",
                                  "linear(",
                                  "mv(",
                                  "dot(",
                                  "einsum(",
                                  "bilinear(",
                                  "tensordot(",
                                  " @ ",
                                  "linalg.lu",
                                  "linalg.solve",
                                  "linalg.inv",
                                  "det(",
                                  "inverse(",
                                  "matrix_power(",
                                  "multi_dot(",
                                  "affine_grid",
                                  "multi_head_attention_forward(",
                                  "linalg.lstsq("};
bool blas_computed(const std::string& expr) {
  return std::any_of(std::begin(kBlasNames), std::end(kBlasNames),
                     [&](const char* n) { return expr.find(n) != std::string::npos; });
}

// A DFT's sums run in another order than PyTorch's pocketfft (kissfft's
// radices and twiddles, Note [DFTs on kissfft]): where pocketfft cancels to
// an exact 0, wick may leave a residue of the dtype's epsilon, which also
// turns the print scientific. Returns that epsilon for a torch.fft
// expression (float64's when it computes in double), else 0.
double dft_epsilon(const std::string& expr) {
  if (expr.find("torch.fft.") == std::string::npos) return 0.0;
  const bool dbl = expr.find("float64") != std::string::npos || expr.find("complex128") != std::string::npos;
  return dbl ? 2.220446049250313e-16 : 1.1920929e-07;
}

// `s` split into its numbers and the text around them.
struct Split {
  std::string text;  // each number's digits replaced by 'd': its format stays
  std::vector<double> numbers;
  std::vector<double> last_digit;  // one unit of each number's last printed decimal (0 for none)
};
Split split_numbers(const std::string& s) {
  Split r;
  std::size_t i = 0;
  while (i < s.size()) {
    const bool sign =
        (s[i] == '-' || s[i] == '+') && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]));
    const bool starts = std::isdigit(static_cast<unsigned char>(s[i])) != 0 || sign;
    // A digit inside a word ("int64") is text; a sign after a number is the
    // sign of the next one (a complex number's imaginary part: "1.5-2.j").
    const bool after_number =
        sign && i > 0 && (std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0 || s[i - 1] == '.');
    const bool in_word =
        i > 0 && !after_number && (std::isalnum(static_cast<unsigned char>(s[i - 1])) != 0 || s[i - 1] == '_');
    if (!starts || in_word) {
      r.text += s[i++];
      continue;
    }
    char* end = nullptr;
    r.numbers.push_back(std::strtod(s.c_str() + i, &end));
    const std::string token = s.substr(i, static_cast<std::size_t>(end - s.c_str()) - i);
    const std::size_t e = token.find_first_of("eE");
    const std::size_t dot = token.find('.');
    const std::size_t mantissa_end = e == std::string::npos ? token.size() : e;
    const int decimals = dot == std::string::npos || dot > mantissa_end ? 0 : static_cast<int>(mantissa_end - dot - 1);
    const int exponent = e == std::string::npos ? 0 : std::atoi(token.c_str() + e + 1);
    // "3" and "3." print integral values exactly: no allowance for their last digit.
    r.last_digit.push_back(decimals == 0 ? 0.0 : std::pow(10.0, exponent - decimals));
    // Digits and signs are the number's; the rest is its format ('s' marks a sign).
    for (const char c : token) {
      r.text += std::isdigit(static_cast<unsigned char>(c)) != 0 ? 'd' : c == '-' || c == '+' ? 's' : c;
    }
    i += token.size();
  }
  return r;
}

// The same print but for float rounding of a different summation order:
// the same text and number formats, each number within one unit of its last
// printed digit (of both prints' when the formats may differ) plus 4
// epsilons (float32's unless given) of the largest number.
// `any_format`: the numbers' formats may differ too. A print's format follows
// from its values (PyTorch's formatter turns scientific when a residue of
// 1e-17 stands where the other side has an exact zero), so for results
// whose rounding depends on the build (complex division with or without
// fused multiply-adds) only the text around the numbers must agree.
std::string without_formats(const std::string& format_text) {
  std::string out;
  bool in_number = false;
  for (const char c : format_text) {
    const bool number_char = c == 'd' || c == 's' || c == '.' || (c == 'e' && in_number);
    if (number_char) {
      if (!in_number) out += 'N';
      in_number = true;
      continue;
    }
    in_number = false;
    if (c != ' ' && c != '\n') out += c;
  }
  return out;
}

bool same_up_to_rounding(const std::string& wick_text, const std::string& torch_text, double epsilon = 1.1920929e-07,
                         bool any_format = false) {
  const Split w = split_numbers(wick_text);
  const Split t = split_numbers(torch_text);
  const bool same_text = any_format ? without_formats(w.text) == without_formats(t.text) : w.text == t.text;
  if (!same_text || w.numbers.size() != t.numbers.size() || w.numbers.empty()) return false;
  double largest = 0;
  for (const double v : t.numbers) largest = std::max(largest, std::abs(v));
  for (std::size_t i = 0; i < w.numbers.size(); ++i) {
    // Each side's print rounds to its own last digit (a residue that turns
    // one side scientific also changes how many digits it shows).
    const double tolerance = t.last_digit[i] + (any_format ? w.last_digit[i] : 0.0) + 4 * epsilon * largest;
    if (!(std::abs(w.numbers[i] - t.numbers[i]) <= tolerance)) return false;
  }
  return true;
}

// The epsilon of the dtype whose results an expression may round in
// another order than PyTorch (Note [The differential test]): float16 and
// bfloat16 (sums in float32 in another order), complex64 and complex128
// (PyTorch's vector loops multiply and divide complex numbers with their
// own rounding: residues of 1e-8 in parts that are exactly zero); else 0.
double rounding_epsilon(const std::string& expr) {
  if (expr.find("bfloat16") != std::string::npos) return 0.0078125;    // 2**-7
  if (expr.find("float16") != std::string::npos) return 0.0009765625;  // 2**-10
  if (expr.find("complex64") != std::string::npos) return 1.1920929e-07;
  if (expr.find("complex128") != std::string::npos) return 2.220446049250313e-16;
  return 0.0;
}

// `"kernel" not implemented for 'Title'` -> "Title", else "".
std::string refused_dtype(const std::string& text) {
  const std::string marker = "\" not implemented for '";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos || text.find("Error: ") == std::string::npos) return "";
  return text.substr(at + marker.size());
}

// Note [Dtype coverage]: two refusals of one dtype by differently named kernels.
bool same_refusal(const std::string& wick_text, const std::string& torch_text) {
  const std::string w = refused_dtype(wick_text);
  return !w.empty() && w == refused_dtype(torch_text) &&
         wick_text.substr(0, wick_text.find(": ")) == torch_text.substr(0, torch_text.find(": "));
}

TEST(Differential, WickEvalPrintsWhatPyTorchPrints) {
  wick::init();
  const std::string path = wick_test::reference_dir() + "/golden/differential.json";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  const nlohmann::json& cases = doc.at("cases");
  ASSERT_GE(cases.size(), 1500u);

  std::vector<std::size_t> used(std::size(kDivergences), 0);
  std::size_t same = 0;
  std::size_t rounded = 0;
  std::size_t documented = 0;
  std::vector<std::string> failures;
  // WICK_DIFFERENTIAL_SECTIONS=printing,errors runs only those sections (for debugging).
  const char* only = std::getenv("WICK_DIFFERENTIAL_SECTIONS");
  for (const nlohmann::json& c : cases) {
    if (only != nullptr && std::string(",").append(only).append(",").find("," + c.at("section").get<std::string>() +
                                                                          ",") == std::string::npos)
      continue;
    const std::string expr = c.at("expr").get<std::string>();
    const std::string expected = c.at("torch").get<std::string>();
    const std::string got = wick_output(expr);
    if (same_output(got, expected)) {
      ++same;
      continue;
    }
    if ((blas_computed(expr) && same_up_to_rounding(got, expected)) ||
        (rounding_epsilon(expr) > 0 && same_up_to_rounding(got, expected, rounding_epsilon(expr), true)) ||
        (dft_epsilon(expr) > 0 && same_up_to_rounding(got, expected, dft_epsilon(expr), true))) {
      ++same;
      ++rounded;
      continue;
    }
    if (c.at("section") == "dtypes" && same_refusal(got, expected)) {
      ++same;
      continue;
    }
    bool listed = false;
    for (std::size_t k = 0; k < std::size(kDivergences) && !listed; ++k) {
      if (matches(kDivergences[k], expr, expected)) {
        ++used[k];
        listed = true;
      }
    }
    if (listed) {
      ++documented;
      continue;
    }
    failures.push_back("[" + c.at("section").get<std::string>() + "] " + expr + "\n  torch: " + expected +
                       "\n  wick:  " + got);
  }
  std::printf(
      "%zu cases: %zu print what PyTorch 1.13 prints (%.1f%%; %zu of them up to the rounding of a sum's order), "
      "%zu are documented divergences\n",
      cases.size(), same, 100.0 * static_cast<double>(same) / static_cast<double>(cases.size()), rounded, documented);
  for (const std::string& f : failures) ADD_FAILURE() << f;
  for (std::size_t k = 0; k < used.size(); ++k) {
    EXPECT_GT(used[k], 0u) << "the divergence '" << kDivergences[k].patterns.front()
                           << "' matches no differing case: remove it from kDivergences and the README";
  }
}

// The allowance of Note [The differential test] is float rounding of one
// sum, not a looser comparison: the conv2d print seen on an AVX-512 host
// matches; a wrong digit, a sign, or a changed format does not.
TEST(Differential, RoundingAllowanceIsOnlyFloatRounding) {
  const std::string golden =
      "tensor([[ 3.9194e-02, -1.5756e-03, -8.2802e-01],\n        [ 2.7734e+00,  8.0161e+00,  1.0e+00]])";
  EXPECT_TRUE(same_up_to_rounding(
      "tensor([[ 3.9194e-02, -1.5754e-03, -8.2801e-01],\n        [ 2.7734e+00,  8.0161e+00,  1.0e+00]])", golden));
  EXPECT_FALSE(same_up_to_rounding(
      "tensor([[ 3.9194e-02, -1.5956e-03, -8.2802e-01],\n        [ 2.7734e+00,  8.0161e+00,  1.0e+00]])", golden));
  EXPECT_FALSE(same_up_to_rounding(
      "tensor([[ 3.9194e-02,  1.5756e-03, -8.2802e-01],\n        [ 2.7734e+00,  8.0161e+00,  1.0e+00]])", golden));
  EXPECT_FALSE(
      same_up_to_rounding("tensor([[ 0.0392, -0.0016, -0.8280],\n        [ 2.7734,  8.0161,  1.0000]])", golden));
  EXPECT_FALSE(same_up_to_rounding("tensor([1, 2])", "tensor([1, 3])"));
  EXPECT_TRUE(blas_computed("torch.conv2d(x, w, padding='same')"));
  EXPECT_FALSE(blas_computed("torch.linspace(-1, 1, 5)"));
}

}  // namespace
