// core/printing.cpp - PyTorch-style repr of tensors, Python numbers and floats.
/// \file
/// `Tensor::repr()` reproduces PyTorch 1.13's `repr(tensor)` with the default
/// print options (Python's number reprs are in core/number_repr.cpp).
///
/// Note [Tensor printing]
/// ~~~~~~~~~~~~~~~~~~~~~~
/// Printing is two passes over the (possibly summarised) elements:
///
/// 1. A `Formatter` looks at every element that will be printed and picks one
///    style for the whole tensor, so that columns line up:
///    - integers and bools: `str(value)`, right-aligned to the widest;
///    - floats whose nonzero finite values are all integral ("int mode"):
///      "7.", "10." — unless the values span more than 1000x or exceed 1e8,
///      which switches to scientific "1.0000e+10";
///    - other floats: fixed "0.1235" (4 decimals), or scientific when the
///      nonzero finite magnitudes span more than 1000x, exceed 1e8 or go
///      below 1e-4.
///    Zeros, nan and inf never influence the choice.
/// 2. The elements are laid out recursively: the innermost dim is a row of
///    "elem, elem" wrapped so no line exceeds 80 columns (continuation lines
///    are indented past "tensor(" -- or "SubTensor(" for a subclass -- and
///    the open brackets); outer dims join
///    their slices with ",\n" plus one blank line per extra dim.
///
/// More than 1000 elements are summarised: every dim longer than 6 shows its
/// first and last 3 entries around "..." — and the formatter only sees the
/// entries that are shown.
///
/// Elements are read straight from memory through sizes and strides (views,
/// transposes and zero-stride expands print without a copy), so only CPU
/// tensors can be printed; other devices need a copy to the CPU first.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "wick/autograd.h"
#include "wick/dtype.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/override.h"
#include "wick/scalar.h"
#include "wick/tensor.h"
#include "wick/value.h"

#include "core/frontend/frontend_kernels.h"
#include "core/host_read.h"
#include "core/number_repr.h"

namespace wick {
namespace {

// PyTorch's default print options (torch.set_printoptions(profile="default")).
constexpr int kPrecision = 4;
constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;
constexpr std::int64_t kLineWidth = 80;

// --- number formatting (Python's str.format semantics) ----------------------

/// `'{:.Nf}'.format(v)` / `'{:.Ne}'.format(v)`.
std::string format_double(double v, std::chars_format style, int precision) {
  std::string out;
  if (format_nonfinite(v, out)) return out;
  // Fixed notation of a double needs at most ~310 integral digits.
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof buf, v, style, precision);
  WICK_INTERNAL_ASSERT(res.ec == std::errc(), "to_chars failed");
  return std::string(buf, res.ptr);
}

std::string format_fixed(double v, int precision) { return format_double(v, std::chars_format::fixed, precision); }
std::string format_sci(double v, int precision) { return format_double(v, std::chars_format::scientific, precision); }

std::string pad_left(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

// --- reading elements -------------------------------------------------------

/// Strided element access to one CPU tensor; offsets are in elements and
/// relative to the tensor's first element (its storage offset included).
class ElementReader final {
 public:
  /// `imag`: read the imaginary parts of a complex tensor (else the real parts).
  explicit ElementReader(const Tensor& t, bool imag = false)
      : base_(static_cast<const char*>(t.data_ptr())),
        dtype_(t.dtype()),
        itemsize_(itemsize(t.dtype())),
        part_(imag ? itemsize(t.dtype()) / 2 : 0) {}

  [[nodiscard]] ScalarType dtype() const noexcept { return dtype_; }

  [[nodiscard]] double as_double(std::int64_t offset) const {
    const char* p = at(offset);
    switch (dtype_) {
      case ScalarType::kFloat32:
        return static_cast<double>(load<float>(p));
      case ScalarType::kFloat64:
        return load<double>(p);
      case ScalarType::kFloat16:
        return static_cast<double>(static_cast<float>(load<Half>(p)));
      case ScalarType::kBFloat16:
        return static_cast<double>(static_cast<float>(load<BFloat16>(p)));
      case ScalarType::kComplex64:
        return static_cast<double>(load<float>(p + part_));
      case ScalarType::kComplex128:
        return load<double>(p + part_);
      default:
        return static_cast<double>(as_int(offset));
    }
  }

  [[nodiscard]] std::int64_t as_int(std::int64_t offset) const {
    const char* p = at(offset);
    switch (dtype_) {
      case ScalarType::kBool:
        return load<std::uint8_t>(p) != 0 ? 1 : 0;
      case ScalarType::kUInt8:
        return load<std::uint8_t>(p);
      case ScalarType::kInt8:
        return load<std::int8_t>(p);
      case ScalarType::kInt16:
        return load<std::int16_t>(p);
      case ScalarType::kInt32:
        return load<std::int32_t>(p);
      case ScalarType::kInt64:
        return load<std::int64_t>(p);
      default:
        WICK_INTERNAL_ASSERT(false, "as_int on ", dtype_name(dtype_));
    }
    return 0;
  }

 private:
  [[nodiscard]] const char* at(std::int64_t offset) const {
    return base_ + offset * static_cast<std::int64_t>(itemsize_);
  }
  template <typename T>
  static T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  const char* base_;
  ScalarType dtype_;
  std::size_t itemsize_;
  std::size_t part_;  // byte offset of the part read within a complex element
};

/// The shape being printed and the walk over the elements that are shown.
struct Layout {
  IntArrayRef sizes;
  IntArrayRef strides;
  bool summarize;

  [[nodiscard]] std::int64_t ndim() const noexcept { return static_cast<std::int64_t>(sizes.size()); }

  /// Whether dim `d` shows only its edges around "...".
  [[nodiscard]] bool elided(std::int64_t d) const noexcept {
    return summarize && sizes[static_cast<std::size_t>(d)] > 2 * kEdgeItems;
  }

  /// Calls `fn(i)` for each index of dim `d` that is shown; `fn(-1)` stands
  /// for the "..." between the edges.
  template <typename Fn>
  void for_each_shown(std::int64_t d, Fn&& fn) const {
    const std::int64_t n = sizes[static_cast<std::size_t>(d)];
    if (!elided(d)) {
      for (std::int64_t i = 0; i < n; ++i) fn(i);
      return;
    }
    for (std::int64_t i = 0; i < kEdgeItems; ++i) fn(i);
    fn(-1);
    for (std::int64_t i = n - kEdgeItems; i < n; ++i) fn(i);
  }

  [[nodiscard]] std::int64_t child_offset(std::int64_t d, std::int64_t offset, std::int64_t i) const {
    return offset + i * strides[static_cast<std::size_t>(d)];
  }

  /// Calls `fn(offset)` for every element that is shown.
  template <typename Fn>
  void for_each_element(std::int64_t d, std::int64_t offset, Fn& fn) const {
    if (d == ndim()) {
      fn(offset);
      return;
    }
    for_each_shown(d, [&](std::int64_t i) {
      if (i >= 0) for_each_element(d + 1, child_offset(d, offset, i), fn);
    });
  }
};

// --- the formatter: one style for the whole tensor ---------------------------

class Formatter final {
 public:
  Formatter(const ElementReader& reader, const Layout& layout) : reader_(reader) {
    floating_ = is_floating(reader.dtype()) || is_complex(reader.dtype());
    if (floating_) {
      scan_floats(layout);
    } else {
      auto widest = [&](std::int64_t offset) { max_width_ = std::max(max_width_, format_integral(offset).size()); };
      layout.for_each_element(0, 0, widest);
    }
  }

  [[nodiscard]] std::size_t width() const noexcept { return max_width_; }

  [[nodiscard]] std::string format(std::int64_t offset) const {
    if (!floating_) return pad_left(format_integral(offset), max_width_);
    const double v = reader_.as_double(offset);
    std::string s;
    if (sci_mode_) {
      s = format_sci(v, kPrecision);
    } else if (int_mode_) {
      s = format_fixed(v, 0);
      if (std::isfinite(v)) s += '.';
    } else {
      s = format_fixed(v, kPrecision);
    }
    return pad_left(std::move(s), max_width_);
  }

 private:
  [[nodiscard]] std::string format_integral(std::int64_t offset) const {
    const std::int64_t v = reader_.as_int(offset);
    if (reader_.dtype() == ScalarType::kBool) return v ? "True" : "False";
    return std::to_string(v);
  }

  void scan_floats(const Layout& layout) {
    std::vector<double> vals;  // the nonzero finite values that are shown
    auto collect = [&](std::int64_t offset) {
      const double v = reader_.as_double(offset);
      if (std::isfinite(v) && v != 0) vals.push_back(v);
    };
    layout.for_each_element(0, 0, collect);
    if (vals.empty()) return;  // only zeros, nan and inf: "0.", "nan"

    double min_abs = std::abs(vals.front());
    double max_abs = min_abs;
    for (double v : vals) {
      min_abs = std::min(min_abs, std::abs(v));
      max_abs = std::max(max_abs, std::abs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }

    const bool wide_range = max_abs / min_abs > 1000.0 || max_abs > 1.0e8;
    sci_mode_ = int_mode_ ? wide_range : wide_range || min_abs < 1.0e-4;
    for (double v : vals) {
      std::size_t w;
      if (sci_mode_) {
        w = format_sci(v, kPrecision).size();
      } else if (int_mode_) {
        w = format_fixed(v, 0).size() + 1;  // the trailing '.'
      } else {
        w = format_fixed(v, kPrecision).size();
      }
      max_width_ = std::max(max_width_, w);
    }
  }

  const ElementReader& reader_;
  bool floating_ = false;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  std::size_t max_width_ = 1;
};

// --- layout ------------------------------------------------------------------

/// The text of one element: a real number, or a complex one as PyTorch
/// writes it: the real part padded, then the imaginary part with its sign
/// and "j" and no padding ("1.0000e+10+2.j").
class ElementFormat final {
 public:
  ElementFormat(const Formatter& real, const Formatter* imag) : real_(real), imag_(imag) {}

  /// The width PyTorch counts per element when wrapping rows.
  [[nodiscard]] std::size_t width() const noexcept {
    return real_.width() + (imag_ != nullptr ? imag_->width() + 1 : 0);
  }
  [[nodiscard]] std::string format(std::int64_t offset) const {
    if (imag_ == nullptr) return real_.format(offset);
    std::string im = imag_->format(offset);
    im.erase(0, im.find_first_not_of(' '));
    if (im.front() != '+' && im.front() != '-') im.insert(0, "+");
    return real_.format(offset) + im + "j";
  }

 private:
  const Formatter& real_;
  const Formatter* imag_;
};

class Printer final {
 public:
  Printer(const Layout& layout, const ElementFormat& formatter) : layout_(layout), fmt_(formatter) {}

  /// The elements of dims `d..` at `offset`; `indent` is the column of the
  /// opening bracket.
  [[nodiscard]] std::string str(std::int64_t d, std::int64_t offset, std::int64_t indent) const {
    const std::int64_t rank = layout_.ndim() - d;
    if (rank == 0) return fmt_.format(offset);
    if (rank == 1) return row(d, offset, indent);

    std::string sep = ",";
    sep.append(static_cast<std::size_t>(rank - 1), '\n');
    sep.append(static_cast<std::size_t>(indent + 1), ' ');
    std::string out = "[";
    bool first = true;
    layout_.for_each_shown(d, [&](std::int64_t i) {
      if (!first) out += sep;
      first = false;
      out += i < 0 ? std::string("...") : str(d + 1, layout_.child_offset(d, offset, i), indent + 1);
    });
    out += ']';
    return out;
  }

 private:
  /// The innermost dim: "elem, elem, ..." wrapped at the line width.
  [[nodiscard]] std::string row(std::int64_t d, std::int64_t offset, std::int64_t indent) const {
    const auto element_width = static_cast<std::int64_t>(fmt_.width()) + 2;  // ", "
    const std::int64_t per_line = std::max<std::int64_t>(1, (kLineWidth - indent) / element_width);

    std::string line_break = ",\n";
    line_break.append(static_cast<std::size_t>(indent + 1), ' ');
    std::string out = "[";
    std::int64_t count = 0;
    layout_.for_each_shown(d, [&](std::int64_t i) {
      if (count > 0) out += count % per_line == 0 ? line_break : std::string(", ");
      ++count;
      out += i < 0 ? std::string(" ...") : fmt_.format(layout_.child_offset(d, offset, i));
    });
    out += ']';
    return out;
  }

  const Layout& layout_;
  const ElementFormat& fmt_;
};

/// Appends ", suffix" for each suffix, moving one to its own line (indented
/// under the contents) when it would pass the line width.
std::string add_suffixes(std::string text, std::size_t prefix_size, const std::vector<std::string>& suffixes) {
  const std::size_t nl = text.rfind('\n');
  // PyTorch's measure: the characters after the last newline plus two (also
  // when there is no newline).
  auto last_line = static_cast<std::int64_t>(nl == std::string::npos ? text.size() + 2 : text.size() - nl + 1);
  const auto indent = static_cast<std::int64_t>(prefix_size);
  for (const std::string& suffix : suffixes) {
    const auto len = static_cast<std::int64_t>(suffix.size());
    if (last_line + len + 2 > kLineWidth) {
      text += ",\n";
      text.append(static_cast<std::size_t>(indent), ' ');
      last_line = indent + len;
    } else {
      text += ", ";
      last_line += len + 2;
    }
    text += suffix;
  }
  text += ')';
  return text;
}

std::string shape_tuple(IntArrayRef sizes) {
  std::string out = "(";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) out += ',';
  out += ')';
  return out;
}

std::string dtype_repr(ScalarType t) { return detail::str_cat("torch.", dtype_name(t)); }

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.repr(); }

namespace {

// Tensor.__format__, as PyTorch's Python method: a 0-dim plain tensor
// formats its item() as Python formats the number (Note [Python's format
// spec]); anything else is str(x) with the empty spec, and PyTorch's
// TypeError with another.
Value format_kernel(const Tensor& self, std::string_view format_spec) {
  const TypeInfo* subclass = type_of(self.impl()->type_id());
  if (self.dim() == 0 && !self.device().is_meta() && subclass == nullptr)
    return Value(python_format(self.item(), format_spec));
  WICK_CHECK(format_spec.empty(), TypeError, "unsupported format string passed to ",
             subclass != nullptr ? subclass->name() : "Tensor", ".__format__");
  return Value(self.repr());
}

}  // namespace

namespace {

// The repr, with `custom` in place of the elements when given (PyTorch's
// Tensor.__repr__(tensor_contents=...)): the suffixes are the tensor's still.
std::string repr_of(const Tensor& self, const std::optional<std::string>& custom) {
  WICK_CHECK(self.defined(), RuntimeError, "repr() called on an undefined tensor");
  // A subclass prints under its own name: SubTensor([5.]).
  const TypeInfo* type = type_of(self.impl()->type_id());
  const std::string prefix = type != nullptr ? type->name() + "(" : "tensor(";
  const Device dev = self.device();
  std::vector<std::string> suffixes;
  if (!dev.is_cpu()) suffixes.push_back(detail::str_cat("device='", dev.str(), "'"));

  std::string contents;
  if (self.numel() == 0) {
    // Nothing to infer the dtype from, so anything but the default float
    // dtype is spelled out; so is any shape other than (0,).
    if (self.dim() != 1) suffixes.push_back("size=" + shape_tuple(self.sizes()));
    if (self.dtype() != kDefaultFloat) suffixes.push_back("dtype=" + dtype_repr(self.dtype()));
    contents = "[]";
  } else if (dev.is_meta()) {
    // No elements to print (Note [Meta tensors] in wick/meta.h). PyTorch
    // 1.13 spells out the size, and any dtype other than the default float one.
    const ScalarType t = self.dtype();
    suffixes.push_back("size=" + shape_tuple(self.sizes()));
    if (t != kDefaultFloat) suffixes.push_back("dtype=" + dtype_repr(t));
    contents = "...";
  } else {
    const ScalarType t = self.dtype();
    if (t != kDefaultFloat && t != kDefaultComplex && t != ScalarType::kInt64 && t != ScalarType::kBool) {
      suffixes.push_back("dtype=" + dtype_repr(t));
    }
  }
  if (custom) {
    contents = *custom;
  } else if (self.numel() != 0 && !dev.is_meta()) {
    // Elements on a device are read from a host copy (Note [Streams and
    // host reads] in wick/cuda.h), made below Autograd and Override.
    const Tensor host = dev.is_cpu() ? self : host_copy(self);
    const ScalarType t = self.dtype();
    const Layout layout{host.sizes(), host.strides(), self.numel() > kThreshold};
    const ElementReader reader(host);
    const Formatter formatter(reader, layout);
    // Complex elements: the real and imaginary parts each get a formatter.
    const ElementReader imag_reader(host, true);
    std::optional<Formatter> imag_formatter;
    if (wick::is_complex(t)) imag_formatter.emplace(imag_reader, layout);
    const ElementFormat element(formatter, imag_formatter ? &*imag_formatter : nullptr);
    contents = Printer(layout, element).str(0, 0, static_cast<std::int64_t>(prefix.size()));
  }
  if (auto fn = self.grad_fn()) {
    suffixes.push_back("grad_fn=<" + fn->name() + ">");
  } else if (self.requires_grad()) {
    suffixes.emplace_back("requires_grad=True");
  }
  return add_suffixes(prefix + contents, prefix.size(), suffixes);
}

}  // namespace

std::string Tensor::repr() const { return repr_of(*this, std::nullopt); }

namespace {

// Tensor.__repr__: PyTorch's, whose tensor_contents replaces the elements'
// text and keeps the suffixes (dtype=, grad_fn=, ...).
Value repr_kernel(const Tensor& self, const Value& tensor_contents) {
  if (tensor_contents.is_none()) return Value(self.repr());
  WICK_CHECK(tensor_contents.is_string(), TypeError, "can only concatenate str (not \"", tensor_contents.type_name(),
             "\") to str");
  return Value(repr_of(self, tensor_contents.to_string()));
}

}  // namespace

void register_printing_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto tensor = std::make_unique<Library>("torch.Tensor", DispatchKey::kCompositeImplicit);
  tensor->impl("__format__", &format_kernel).impl("__repr__", &repr_kernel);
  out.push_back(std::move(tensor));
}

}  // namespace wick
