// dispatch/autograd_shape.cpp - Autograd kernels of views, copies, in-place ops, and the fallback.
/// \file
/// View kernels mark their result as a view of the input's base, so an
/// in-place op on it later rewrites the base's history (Note [Views and
/// in-place] in core/autograd/autograd_meta.h). In-place kernels check for leaves
/// that require grad before writing and rebase the history after.
#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>

#include "dispatch/autograd/support.h"
#include "dispatch/ops/definitions.h"
#include "wick/catalog.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;

// --- views -------------------------------------------------------------------------------

// A view's backward: `Fn(grad, state)` maps the view's gradient to the input's.
template <class D>
struct ViewBackward {
  static constexpr const char* kName = D::kName;
  // Views and copies are linear with real coefficients (view_as_real and
  // view_as_complex too): the same formula (Note [Complex gradients]).
  static constexpr bool kComplex = true;
  typename D::State state;
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {D::backward(g[0], state)};
  }
  void release() {}
};

// Records a view op: node, view tracking and tangent.
template <class D, class... A>
Tensor view_autograd(const TypedOperatorHandle<Tensor(T, A...)>& op, DispatchKeySet ks, T self,
                     std::type_identity_t<A>... args) {
  auto node = make_node<ViewBackward<D>>(self);
  Tensor out = call_below(op, ks, self, args...);
  if (out.is_same(self)) return out;  // a no-op (to() of the same dtype): no new history
  if (out.storage().get() == self.storage().get()) set_view_of(out, self);
  if (node) {
    node->f.state = D::save(self, args...);
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, D::forward(fw_grad_of(self), args...));
  }
  return out;
}

struct SizesState {
  DimVector sizes;
};

struct ViewD {
  static constexpr const char* kName = "ViewBackward0";
  using State = SizesState;
  static State save(T self, IntArrayRef) { return {DimVector(self.sizes())}; }
  static Tensor backward(T g, const State& s) { return g.reshape(s.sizes); }
  static Tensor forward(T t, IntArrayRef size) { return t.reshape(size); }
};
struct ReshapeD : ViewD {
  static constexpr const char* kName = "ReshapeAliasBackward0";
};
struct ExpandD {
  static constexpr const char* kName = "ExpandBackward0";
  using State = SizesState;
  static State save(T self, IntArrayRef) { return {DimVector(self.sizes())}; }
  static Tensor backward(T g, const State& s) { return sum_to(g, s.sizes); }
  static Tensor forward(T t, IntArrayRef size) { return t.expand(size); }
};
struct SqueezeD {
  static constexpr const char* kName = "SqueezeBackward0";
  using State = SizesState;
  static State save(T self, std::optional<std::int64_t>) { return {DimVector(self.sizes())}; }
  static Tensor backward(T g, const State& s) { return g.reshape(s.sizes); }
  static Tensor forward(T t, std::optional<std::int64_t> dim) { return t.squeeze(dim); }
};
struct UnsqueezeD {
  static constexpr const char* kName = "UnsqueezeBackward0";
  struct State {
    std::int64_t dim;
  };
  static State save(T self, std::int64_t dim) { return {wrap_dim(dim, self.dim() + 1)}; }
  static Tensor backward(T g, const State& s) { return g.squeeze(s.dim); }
  static Tensor forward(T t, std::int64_t dim) { return t.unsqueeze(dim); }
};
struct TransposeD {
  static constexpr const char* kName = "TransposeBackward0";
  struct State {
    std::int64_t d0, d1;
  };
  static State save(T, std::int64_t d0, std::int64_t d1) { return {d0, d1}; }
  static Tensor backward(T g, const State& s) { return g.transpose(s.d0, s.d1); }
  static Tensor forward(T t, std::int64_t d0, std::int64_t d1) { return t.transpose(d0, d1); }
};
struct TD {
  static constexpr const char* kName = "TBackward0";
  struct State {};
  static State save(T) { return {}; }
  static Tensor backward(T g, const State&) { return g.t(); }
  static Tensor forward(T t) { return t.t(); }
};
struct PermuteD {
  static constexpr const char* kName = "PermuteBackward0";
  struct State {
    DimVector inverse;
  };
  static State save(T self, IntArrayRef dims) {
    State s{DimVector(dims.size())};
    for (std::size_t i = 0; i < dims.size(); ++i)
      s.inverse[wrap_dim(dims[i], self.dim())] = static_cast<std::int64_t>(i);
    return s;
  }
  static Tensor backward(T g, const State& s) { return g.permute(s.inverse); }
  static Tensor forward(T t, IntArrayRef dims) { return t.permute(dims); }
};
// The parts of a complex tensor as a real one (Note [Complex gradients]).
struct ViewAsRealD {
  static constexpr const char* kName = "ViewAsRealBackward0";
  struct State {};
  static State save(T) { return {}; }
  static Tensor backward(T g, const State&) { return wick::view_as_complex(g.contiguous()); }
  static Tensor forward(T t) { return wick::view_as_real(t); }
};
struct ViewAsComplexD {
  static constexpr const char* kName = "ViewAsComplexBackward0";
  struct State {};
  static State save(T) { return {}; }
  static Tensor backward(T g, const State&) { return wick::view_as_real(g); }
  static Tensor forward(T t) { return wick::view_as_complex(t); }
};
// conj is its own adjoint: re - i im has the gradient g_re - i g_im.
struct ConjD {
  static constexpr const char* kName = "ConjBackward0";
  struct State {};
  static State save(T) { return {}; }
  static Tensor backward(T g, const State&) { return wick::conj(g); }
  static Tensor forward(T t) { return wick::conj(t); }
};
struct ConjPhysicalD : ConjD {
  static constexpr const char* kName = "ConjPhysicalBackward0";
};
// The adjoint of a slicing view: places the gradient into zeros of the
// input's shape. Its own derivative slices again, so double backward works.
template <class D>
struct EmbedBackward {
  static constexpr const char* kName = D::kEmbedName;
  static constexpr bool kComplex = true;  // linear with real coefficients: the same formula
  typename D::State state;
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {D::forward_state(g[0], state)};
  }
  void release() {}
};

template <class D>
Tensor embed(const Tensor& g, const typename D::State& s) {
  auto node = GradMode::is_enabled() ? make_node<EmbedBackward<D>>(g) : nullptr;
  Tensor r;
  {
    AutoGradMode off(false);
    r = wick::zeros(s.sizes, g.dtype(), g.device());
    D::forward_state(r, s).copy_(g);
  }
  if (node) {
    node->f.state = s;
    set_history(r, node);
  }
  return r;
}

struct NarrowD {
  static constexpr const char* kName = "SliceBackward0";
  struct State {
    DimVector sizes;
    std::int64_t dim, start, length;
  };
  static State save(T self, std::int64_t dim, std::int64_t start, std::int64_t length) {
    const std::int64_t d = wrap_dim(dim, self.dim());
    return {DimVector(self.sizes()), d, start < 0 ? start + self.sizes()[d] : start, length};
  }
  static constexpr const char* kEmbedName = "SliceBackwardBackward0";
  static Tensor forward_state(T t, const State& s) { return t.narrow(s.dim, s.start, s.length); }
  static Tensor backward(T g, const State& s) { return embed<NarrowD>(g, s); }
  static Tensor forward(T t, std::int64_t dim, std::int64_t start, std::int64_t length) {
    return t.narrow(dim, start, length);
  }
};
struct SliceD {
  static constexpr const char* kName = "SliceBackward0";
  struct State {
    DimVector sizes;
    std::int64_t dim;
    std::optional<std::int64_t> start, end;
    std::int64_t step;
  };
  static State save(T self, std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                    std::int64_t step) {
    return {DimVector(self.sizes()), wrap_dim(dim, self.dim()), start, end, step};
  }
  static constexpr const char* kEmbedName = "SliceBackwardBackward0";
  static Tensor forward_state(T t, const State& s) { return aten::slice(t, s.dim, s.start, s.end, s.step); }
  static Tensor backward(T g, const State& s) { return embed<SliceD>(g, s); }
  static Tensor forward(T t, std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                        std::int64_t step) {
    return aten::slice(t, dim, start, end, step);
  }
};
struct SelectD {
  static constexpr const char* kName = "SelectBackward0";
  struct State {
    DimVector sizes;
    std::int64_t dim, index;
  };
  static State save(T self, std::int64_t dim, std::int64_t index) {
    const std::int64_t d = wrap_dim(dim, self.dim());
    return {DimVector(self.sizes()), d, index < 0 ? index + self.sizes()[d] : index};
  }
  static constexpr const char* kEmbedName = "SelectBackwardBackward0";
  static Tensor forward_state(T t, const State& s) { return t.select(s.dim, s.index); }
  static Tensor backward(T g, const State& s) { return embed<SelectD>(g, s); }
  static Tensor forward(T t, std::int64_t dim, std::int64_t index) { return t.select(dim, index); }
};

struct DiagonalD {
  static constexpr const char* kName = "DiagonalBackward0";
  struct State {
    DimVector sizes;
    std::int64_t offset, dim1, dim2;
  };
  static State save(T self, std::int64_t offset, std::int64_t dim1, std::int64_t dim2) {
    return {DimVector(self.sizes()), offset, wrap_dim(dim1, self.dim()), wrap_dim(dim2, self.dim())};
  }
  static constexpr const char* kEmbedName = "DiagonalBackwardBackward0";
  static Tensor forward_state(T t, const State& s) { return t.diagonal(s.offset, s.dim1, s.dim2); }
  static Tensor backward(T g, const State& s) { return embed<DiagonalD>(g, s); }
  static Tensor forward(T t, std::int64_t offset, std::int64_t dim1, std::int64_t dim2) {
    return t.diagonal(offset, dim1, dim2);
  }
};

// Tensor.unfold's windows overlap when step < size, so its adjoint adds
// (index_add, itself differentiable) each window's gradient into the
// input's elements it covers, instead of embedding it.
struct UnfoldD {
  static constexpr const char* kName = "UnfoldBackward0";
  struct State {
    DimVector sizes;
    std::int64_t dim, size, step;
  };
  static State save(T self, std::int64_t dimension, std::int64_t size, std::int64_t step) {
    return {DimVector(self.sizes()), wrap_dim(dimension, std::max<std::int64_t>(self.dim(), 1)), size, step};
  }
  static Tensor backward(T g, const State& s) {
    if (s.sizes.empty()) return g.sum();  // a 0-dim input: one window of its one element, or none
    const std::int64_t d = s.dim;
    const std::int64_t windows = g.sizes()[d];
    const Tensor starts = arange(0, windows, 1, ScalarType::kInt64, g.device()).mul(s.step).unsqueeze(1);
    const Tensor index = starts.add(arange(0, s.size, 1, ScalarType::kInt64, g.device()).unsqueeze(0)).flatten();
    const Tensor rows = g.movedim({g.dim() - 1}, {d + 1}).flatten(d, d + 1);
    return zeros(s.sizes, g.dtype(), g.device()).index_add(d, index, rows);
  }
  static Tensor forward(T t, std::int64_t dimension, std::int64_t size, std::int64_t step) {
    return t.unfold(dimension, size, step);
  }
};

// Each element's position in its storage: offset + sum of index * stride,
// an int64 tensor of `sizes`.
Tensor storage_positions(IntArrayRef sizes, IntArrayRef strides, std::int64_t offset, Device device) {
  Tensor pos = wick::full({}, offset, ScalarType::kInt64, device);
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    pos = pos.unsqueeze(-1).add(arange(0, sizes[d], 1, ScalarType::kInt64, device).mul(strides[d]));
  }
  return pos;
}

// as_strided reads storage positions, not self's elements: its adjoint adds
// the gradient into a storage-sized buffer at the positions read, and gives
// each element of self its position's sum, shared among the elements of
// self at one position (an expanded self), as PyTorch's as_strided_backward;
// a position outside self's elements gets nothing. Forward mode places the
// tangent at self's positions and reads the view's. Both with index_add,
// index_put and take, so they differentiate again.
struct AsStridedD {
  static constexpr const char* kName = "AsStridedBackward0";
  struct State {
    DimVector in_sizes, in_strides, sizes, strides;
    std::int64_t in_offset, offset, extent;
  };
  static std::int64_t extent_of(T self) {
    return static_cast<std::int64_t>(self.storage()->nbytes() / itemsize(self.dtype()));
  }
  static State save(T self, IntArrayRef size, IntArrayRef stride, std::optional<std::int64_t> storage_offset) {
    return {DimVector(self.sizes()), DimVector(self.strides()), DimVector(size), DimVector(stride),
            self.storage_offset(), storage_offset.value_or(self.storage_offset()), extent_of(self)};
  }
  static Tensor backward(T g, const State& s) {
    const Tensor in = storage_positions(s.in_sizes, s.in_strides, s.in_offset, g.device()).flatten();
    const Tensor out = storage_positions(s.sizes, s.strides, s.offset, g.device()).flatten();
    const Tensor buffer = zeros({s.extent}, g.dtype(), g.device()).index_add(0, out, g.flatten());
    const Tensor shared = zeros({s.extent}, g.dtype(), g.device()).index_add(0, in, ones(in.sizes(), g.dtype(), g.device()));
    return buffer.take(in).div(shared.take(in)).reshape(s.in_sizes);
  }
};

Tensor view_ag(DispatchKeySet ks, T self, IntArrayRef size) {
  static const auto op = op_handle<Tensor(T, IntArrayRef)>("torch.Tensor.view");
  return view_autograd<ViewD>(op, ks, self, size);
}
Tensor reshape_ag(DispatchKeySet ks, T self, IntArrayRef shape) {
  static const auto op = op_handle<Tensor(T, IntArrayRef)>("torch.reshape");
  return view_autograd<ReshapeD>(op, ks, self, shape);
}
Tensor expand_ag(DispatchKeySet ks, T self, IntArrayRef size) {
  static const auto op = op_handle<Tensor(T, IntArrayRef)>("torch.Tensor.expand");
  return view_autograd<ExpandD>(op, ks, self, size);
}
Tensor squeeze_ag(DispatchKeySet ks, T self, std::optional<std::int64_t> dim) {
  static const auto op = op_handle<Tensor(T, std::optional<std::int64_t>)>("torch.squeeze");
  return view_autograd<SqueezeD>(op, ks, self, dim);
}
Tensor unsqueeze_ag(DispatchKeySet ks, T self, std::int64_t dim) {
  static const auto op = op_handle<Tensor(T, std::int64_t)>("torch.unsqueeze");
  return view_autograd<UnsqueezeD>(op, ks, self, dim);
}
Tensor transpose_ag(DispatchKeySet ks, T self, std::int64_t d0, std::int64_t d1) {
  static const auto op = op_handle<Tensor(T, std::int64_t, std::int64_t)>("torch.transpose");
  return view_autograd<TransposeD>(op, ks, self, d0, d1);
}
Tensor t_ag(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>("torch.t");
  return view_autograd<TD>(op, ks, self);
}
Tensor permute_ag(DispatchKeySet ks, T self, IntArrayRef dims) {
  static const auto op = op_handle<Tensor(T, IntArrayRef)>("torch.permute");
  return view_autograd<PermuteD>(op, ks, self, dims);
}
Tensor narrow_ag(DispatchKeySet ks, T self, std::int64_t dim, std::int64_t start, std::int64_t length) {
  static const auto op = op_handle<Tensor(T, std::int64_t, std::int64_t, std::int64_t)>("torch.narrow");
  return view_autograd<NarrowD>(op, ks, self, dim, start, length);
}
Tensor diagonal_ag(DispatchKeySet ks, T self, std::int64_t offset, std::int64_t dim1, std::int64_t dim2) {
  static const auto op = op_handle<Tensor(T, std::int64_t, std::int64_t, std::int64_t)>("torch.diagonal");
  return view_autograd<DiagonalD>(op, ks, self, offset, dim1, dim2);
}
Tensor view_as_real_ag(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>("torch.view_as_real");
  return view_autograd<ViewAsRealD>(op, ks, self);
}
Tensor view_as_complex_ag(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>("torch.view_as_complex");
  return view_autograd<ViewAsComplexD>(op, ks, self);
}
Tensor conj_ag(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>("torch.conj");
  return view_autograd<ConjD>(op, ks, self);
}
Tensor conj_physical_ag(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>("torch.conj_physical");
  return view_autograd<ConjPhysicalD>(op, ks, self);
}
Tensor slice_ag(DispatchKeySet ks, T self, std::int64_t dim, std::optional<std::int64_t> start,
                std::optional<std::int64_t> end, std::int64_t step) {
  static const auto op = op_handle<Tensor(T, std::int64_t, std::optional<std::int64_t>, std::optional<std::int64_t>,
                                          std::int64_t)>("aten.slice");
  return view_autograd<SliceD>(op, ks, self, dim, start, end, step);
}
template <bool kMethod>  // torch.Tensor.as_strided, or the function
Tensor as_strided_ag(DispatchKeySet ks, T self, IntArrayRef size, IntArrayRef stride,
                     std::optional<std::int64_t> storage_offset) {
  static const auto op = op_handle<Tensor(T, IntArrayRef, IntArrayRef, std::optional<std::int64_t>)>(
      kMethod ? "torch.Tensor.as_strided" : "torch.as_strided");
  // The view without view_autograd's tangent (which needs the geometry).
  auto node = make_node<ViewBackward<AsStridedD>>(self);
  Tensor out = call_below(op, ks, self, size, stride, storage_offset);
  if (out.storage().get() == self.storage().get()) set_view_of(out, self);
  const AsStridedD::State s = AsStridedD::save(self, size, stride, storage_offset);  // the kernel checked them
  if (node) {
    node->f.state = s;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor t = fw_grad_of(self);
    const Tensor in = storage_positions(s.in_sizes, s.in_strides, s.in_offset, t.device()).flatten();
    const Tensor at = storage_positions(s.sizes, s.strides, s.offset, t.device());
    set_tangent(out, zeros({s.extent}, t.dtype(), t.device()).scatter(0, in, t.flatten()).take(at));
  }
  return out;
}
Tensor unfold_ag(DispatchKeySet ks, T self, std::int64_t dimension, std::int64_t size, std::int64_t step) {
  static const auto op = op_handle<Tensor(T, std::int64_t, std::int64_t, std::int64_t)>("torch.Tensor.unfold");
  return view_autograd<UnfoldD>(op, ks, self, dimension, size, step);
}
Tensor select_ag(DispatchKeySet ks, T self, std::int64_t dim, std::int64_t index) {
  static const auto op = op_handle<Tensor(T, std::int64_t, std::int64_t)>("torch.select");
  return view_autograd<SelectD>(op, ks, self, dim, index);
}

// --- copies -----------------------------------------------------------------------------------

struct CloneD {
  static constexpr const char* kName = "CloneBackward0";
  struct State {};
  static State save(T) { return {}; }
  static Tensor backward(T g, const State&) { return g; }
  static Tensor forward(T t) { return t.clone(); }
};
Tensor clone_ag(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>("torch.clone");
  return view_autograd<CloneD>(op, ks, self);
}

struct ToD {
  static constexpr const char* kName = "ToCopyBackward0";
  struct State {
    ScalarType dtype;
  };
  static State save(T self, ScalarType) { return {self.dtype()}; }
  static Tensor backward(T g, const State& s) { return g.to(s.dtype); }
  static Tensor forward(T t, ScalarType dtype) { return t.to(dtype); }
};
Tensor to_ag(DispatchKeySet ks, T self, ScalarType dtype) {
  static const auto op = op_handle<Tensor(T, ScalarType)>("torch.Tensor.to");
  return view_autograd<ToD>(op, ks, self, dtype);
}

struct ToDeviceD {
  static constexpr const char* kName = "ToCopyBackward0";
  struct State {
    Device device;
    ScalarType dtype;
  };
  static State save(T self, Device, std::optional<ScalarType>, bool, bool) { return {self.device(), self.dtype()}; }
  static Tensor backward(T g, const State& s) { return g.to(s.device, s.dtype); }
  static Tensor forward(T t, Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy) {
    return t.to(device, dtype, non_blocking, copy);
  }
};
Tensor to_device_ag(DispatchKeySet ks, T self, Device device, std::optional<ScalarType> dtype, bool non_blocking,
                    bool copy) {
  static const auto op = op_handle<Tensor(T, Device, std::optional<ScalarType>, bool, bool)>("torch.Tensor.to.device");
  return view_autograd<ToDeviceD>(op, ks, self, device, dtype, non_blocking, copy);
}

// --- in-place -------------------------------------------------------------------------------------

struct CopyBackward {
  static constexpr const char* kName = "CopyBackwards";
  static constexpr bool kComplex = true;  // a complex gradient for a real source keeps its real part
  // The source's gradient goes back to its device and dtype.
  Device src_device;
  ScalarType src_dtype = ScalarType::kFloat32;
  tensor_list backward(Node& n, tensor_list& g) {
    Tensor gs, gsrc;
    if (n.should_compute_output(0)) gs = wick::mul(g[0], scalar(0.0));
    if (n.should_compute_output(1)) gsrc = g[0].to(src_device, src_dtype);
    return {gs, gsrc};
  }
  void release() {}
};

Tensor copy_ag(DispatchKeySet ks, T self, T src, bool non_blocking) {
  static const auto op = op_handle<Tensor(T, T, bool)>("torch.Tensor.copy_");
  check_inplace(self, "copy_");
  auto node = make_node<CopyBackward>(self, src);
  if (node) {
    node->f.src_device = src.device();
    node->f.src_dtype = src.dtype();
  }
  const bool fw = any_tangent(self, src);
  Tensor tsrc = fw ? fw_grad_of(src) : Tensor();
  Tensor out = call_below(op, ks, self, src, non_blocking);
  if (node) rebase_history(self, node);
  if (fw) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_inplace_fw_grad(self, tsrc.defined() ? tsrc.to(self.dtype()) : wick::mul(self, scalar(0.0)));
  }
  return out;
}

struct FillBackward {
  static constexpr const char* kName = "FillBackward0";
  static constexpr bool kComplex = true;  // linear with real coefficients: the same formula
  tensor_list backward(Node& n, tensor_list& g) {
    return {n.should_compute_output(0) ? wick::mul(g[0], scalar(0.0)) : Tensor()};
  }
  void release() {}
};

Tensor fill_ag(DispatchKeySet ks, T self, const Scalar& value) {
  static const auto op = op_handle<Tensor(T, const Scalar&)>("torch.Tensor.fill_");
  check_inplace(self, "fill_");
  auto node = make_node<FillBackward>(self);
  const bool fw = any_tangent(self);
  Tensor out = call_below(op, ks, self, value);
  if (node) rebase_history(self, node);
  if (fw) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_inplace_fw_grad(self, Tensor());
  }
  return out;
}

// add_/sub_/mul_/div_: the out-of-place formula, with `self` as it was before the write.
template <int kOp>  // 0 add, 1 sub, 2 mul, 3 div
struct InplaceBackward {
  static constexpr const char* kName = kOp == 0   ? "AddBackward0"
                                       : kOp == 1 ? "SubBackward0"
                                       : kOp == 2 ? "MulBackward0"
                                                  : "DivBackward0";
  Scalar alpha = 1;
  bool rounding = false;  // div_ with a rounding_mode: piecewise constant, a zero gradient
  SavedVariable original, other;
  tensor_list backward(FormulaNode<InplaceBackward>& n, tensor_list& g) {
    Tensor gs, go;
    const Tensor& d = g[0];
    if (rounding) {
      if (n.should_compute_output(0)) gs = wick::mul(d, scalar(0.0));
      if (n.should_compute_output(1)) go = wick::mul(d, scalar(0.0));
    } else if constexpr (kOp <= 1) {
      if (n.should_compute_output(0)) gs = d;
      if (n.should_compute_output(1)) go = d * (kOp == 1 ? -alpha.to<double>() : alpha.to<double>());
    } else if constexpr (kOp == 2) {
      if (n.should_compute_output(0)) gs = wick::mul(d, n.unpack(other));
      if (n.should_compute_output(1)) go = wick::mul(d, n.unpack(original));
    } else {
      Tensor b = n.unpack(other);
      if (n.should_compute_output(0)) gs = wick::div(d, b);
      if (n.should_compute_output(1)) go = wick::neg(wick::div(wick::mul(d, n.unpack(original)), wick::mul(b, b)));
    }
    return {gs, go};
  }
  void release() {
    original.reset();
    other.reset();
  }
};

template <int kOp>
Tensor inplace_ag_impl(DispatchKeySet ks, T self, T other, const Scalar& alpha, const char* name,
                       const std::function<Tensor()>& run, bool rounding = false) {
  check_inplace(self, name);
  auto node = make_node<InplaceBackward<kOp>>(self, other);
  const bool fw = any_tangent(self, other);
  Tensor ts, to, before;
  if (fw) {
    ts = fw_grad_of(self);
    to = fw_grad_of(other);
  }
  if ((node && kOp >= 2 && node->should_compute_output(1)) || (fw && kOp >= 2)) {
    before = self.clone();  // recorded: double backward differentiates through it
  }
  (void)ks;
  if (node) {
    node->f.alpha = alpha;
    node->f.rounding = rounding;
    if (kOp >= 2) {  // saved before the write: `other` may share self's storage
      node->f.other = SavedVariable(other, false);
      node->f.original = SavedVariable(before, false);
    }
  }
  Tensor out = run();
  if (node) rebase_history(self, node);
  if (fw) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    Tensor t;
    if (rounding) {
      t = wick::mul(self, scalar(0.0));
    } else if constexpr (kOp <= 1) {
      t = fw_add(ts, to.defined() ? to * (kOp == 1 ? -alpha.to<double>() : alpha.to<double>()) : Tensor());
    } else if constexpr (kOp == 2) {
      t = fw_add(ts.defined() ? wick::mul(ts, other) : Tensor(), to.defined() ? wick::mul(to, before) : Tensor());
    } else {
      t = fw_add(ts.defined() ? wick::div(ts, other) : Tensor(),
                 to.defined() ? wick::neg(wick::div(wick::mul(to, self), other)) : Tensor());
    }
    set_inplace_fw_grad(self, t);
  }
  return out;
}

template <int kOp>
Tensor addsub_inplace_ag(DispatchKeySet ks, T self, T other, const Scalar& alpha) {
  static const auto op = op_handle<Tensor(T, T, const Scalar&)>(kOp == 0 ? "torch.Tensor.add_" : "torch.Tensor.sub_");
  return inplace_ag_impl<kOp>(ks, self, other, alpha, kOp == 0 ? "add_" : "sub_",
                              [&] { return call_below(op, ks, self, other, alpha); });
}
Tensor mul_inplace_ag(DispatchKeySet ks, T self, T other) {
  static const auto op = op_handle<Tensor(T, T)>("torch.Tensor.mul_");
  return inplace_ag_impl<2>(ks, self, other, 1, "mul_", [&] { return call_below(op, ks, self, other); });
}
Tensor div_inplace_ag(DispatchKeySet ks, T self, T other, std::optional<std::string_view> rounding_mode) {
  static const auto op = op_handle<Tensor(T, T, std::optional<std::string_view>)>("torch.Tensor.div_");
  return inplace_ag_impl<3>(
      ks, self, other, 1, "div_", [&] { return call_below(op, ks, self, other, rounding_mode); },
      rounding_mode.has_value());
}

// --- the fallback: operators without a formula ----------------------------------------------

// Runs the operator below Autograd. When an input requires grad, floating
// outputs get a node that fails in backward naming the operator; writing
// into an input that requires grad (out=) is refused up front. Forward mode
// is refused for a floating result (up front when the operator writes an
// input); bool and integer results (eq, argmax) carry no tangent anyway.
// Whether the functional of out= variant `op` (torch.add of torch.add.out,
// torch.max.other of torch.max.other_out) has a derivative: a formula, or a
// composite whose parts record. PyTorch refuses out= with inputs that
// require grad only then: eq.out and argmax.out are not refused.
bool differentiable_functional(const OperatorHandle& op) {
  const std::string& full = op.name();
  const std::string functional =
      full.ends_with(".out") || full.ends_with("_out") ? full.substr(0, full.size() - 4) : full;
  if (!try_find_op(functional)) return true;
  const std::vector<std::string> tags = operator_info(functional).tags;
  if (std::find(tags.begin(), tags.end(), "nondifferentiable") != tags.end()) return false;
  for (const DispatchTableRow& row : dispatch_table(functional))
    if (row.key == DispatchKey::kAutograd) return row.source != "fallback";
  return true;
}

class AutogradFallback final : public BoxedFunctor {
 public:
  void operator()(const OperatorHandle& op, DispatchKeySet ks, Stack& stack) override {
    auto schema = op.schema_ptr();
    const std::size_t n = schema->arguments.size();
    WICK_INTERNAL_ASSERT(stack.size() >= n, "autograd fallback: short stack");
    tensor_list inputs;
    bool any_grad = false;
    bool any_fw = false;
    bool writes_grad_input = false;
    bool writes_input = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Value& v = stack[stack.size() - n + i];
      auto visit = [&](const Tensor& t) {
        inputs.push_back(t);
        const bool rg = t.requires_grad();
        any_grad = any_grad || rg;
        any_fw = any_fw || fw_grad_of(t).defined();
        const auto& alias = schema->arguments[i].alias;
        if (alias && alias->is_write) writes_input = true;
        if (alias && alias->is_write && rg) writes_grad_input = true;
      };
      if (v.is_tensor()) visit(v.to_tensor());
      if (v.is_tensor_list())
        for (const Tensor& t : v.to_tensor_list()) visit(t);
    }
    const auto check_no_forward = [&](bool ok) {
      WICK_CHECK(ok, NotImplementedError, "Trying to use forward AD with ", op.name(),
                 " that does not support it because it has not been implemented yet.");
    };
    check_no_forward(!(any_fw && writes_input));
    if (any_grad) {
      bool has_out = false;
      for (const auto& a : schema->arguments) has_out = has_out || (a.alias && a.alias->is_write && a.kwarg_only);
      WICK_CHECK(!has_out || !differentiable_functional(op), RuntimeError, schema->name,
                 "(): functions with out=... arguments don't support automatic differentiation, but one of the "
                 "arguments requires grad.");
      WICK_CHECK(!writes_grad_input, RuntimeError, op.name(),
                 ": no derivative formula for an in-place operation on a tensor that requires grad");
    }
    {
      ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
      op.redispatch_boxed(next_keys(ks), stack);
    }
    const std::size_t nret = schema->returns.size();
    if (any_fw) {
      for (std::size_t i = stack.size() - nret; i < stack.size(); ++i)
        check_no_forward(!stack[i].is_tensor() || !is_differentiable_type(stack[i].to_tensor().dtype()));
    }
    if (!any_grad) return;
    std::shared_ptr<Node> node;
    const auto record = [&](const Tensor& t) {
      if (!is_differentiable_type(t.dtype())) return;
      // A kernel that hands back an input itself where its schema promises a
      // new tensor (opcheck's aliasing check reports it): giving that tensor
      // this node would make it its own ancestor, a cycle that never frees.
      const auto same = [&](const Tensor& in) { return in.impl() == t.impl(); };
      if (std::any_of(inputs.begin(), inputs.end(), same)) return;
      if (!node) {
        node =
            std::make_shared<ErrorNode>("the derivative for '" + op.name() + "' is not implemented.", "NotImplemented");
        node->mutable_next_edges() = collect_next_edges(inputs);
      }
      set_history(t, node);
    };
    // Tensors, and those inside a tuple or list an `Any` result holds (torch.unique's).
    for (std::size_t i = stack.size() - nret; i < stack.size(); ++i) {
      if (stack[i].is_tensor()) record(stack[i].to_tensor());
      if (stack[i].is_tensor_list())
        for (const Tensor& t : stack[i].to_tensor_list()) record(t);
      if (stack[i].is_tuple() || stack[i].is_list())
        for (const Value& v : stack[i].items())
          if (v.is_tensor()) record(v.to_tensor());
    }
  }
};

// Operators tagged nondifferentiable that compute in backend kernels (the
// Bessel functions, the orthogonal polynomials: non-differentiable in
// PyTorch too): their results never require grad, nor carry a tangent.
class NonDifferentiable final : public BoxedFunctor {
 public:
  void operator()(const OperatorHandle& op, DispatchKeySet ks, Stack& stack) override {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    op.redispatch_boxed(next_keys(ks), stack);
  }
};

}  // namespace

void register_autograd_shape(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  torch->impl("reshape", &reshape_ag)
      .impl("view_as_real", &view_as_real_ag)
      .impl("view_as_complex", &view_as_complex_ag)
      .impl("conj", &conj_ag)
      .impl("conj_physical", &conj_physical_ag)
      .impl("transpose", &transpose_ag)
      .impl("t", &t_ag)
      .impl("permute", &permute_ag)
      .impl("unsqueeze", &unsqueeze_ag)
      .impl("squeeze", &squeeze_ag)
      .impl("narrow", &narrow_ag)
      .impl("select", &select_ag)
      .impl("diagonal", &diagonal_ag)
      .impl("as_strided", &as_strided_ag<false>)
      .impl("clone", &clone_ag);
  auto aten = std::make_unique<Library>("aten", DispatchKey::kAutograd);
  aten->impl("slice", &slice_ag);
  out.push_back(std::move(aten));
  torch->fallback(std::make_shared<AutogradFallback>());
  // An operator tagged no_derivative (scatter with reduce: none in PyTorch
  // either) gets the fallback's node, which fails in backward naming it, even
  // where a composite kernel would otherwise be differentiated through parts
  // that do not record (scatter's multiply runs on host copies).
  // An operator tagged nondifferentiable with backend kernels (a meta
  // function) gets the kernel above; composites are non-differentiable
  // already, their parts running below Autograd.
  for (const CatalogDef& d : torch_catalog().defs) {
    if (d.tags == nullptr) continue;
    const std::string_view tags(d.tags);
    const bool no_derivative = tags.find("no_derivative") != std::string_view::npos;
    const bool nondifferentiable = tags.find("nondifferentiable") != std::string_view::npos && d.glue != nullptr;
    if (!no_derivative && !nondifferentiable) continue;
    const std::string_view schema(d.schema);
    const std::string name = std::string(d.ns) + "." + std::string(schema.substr(0, schema.find('(')));
    if (no_derivative) {
      torch->impl_boxed(name, std::make_shared<AutogradFallback>());
    } else {
      torch->impl_boxed(name, std::make_shared<NonDifferentiable>());
    }
  }

  auto tensor = std::make_unique<Library>("torch.Tensor", DispatchKey::kAutograd);
  tensor->impl("view", &view_ag)
      .impl("unfold", &unfold_ag)
      .impl("as_strided", &as_strided_ag<true>)
      .impl("expand", &expand_ag)
      .impl("to", &to_ag)
      .impl("to.device", &to_device_ag)
      .impl("copy_", &copy_ag)
      .impl("fill_", &fill_ag)
      .impl("add_", &addsub_inplace_ag<0>)
      .impl("sub_", &addsub_inplace_ag<1>)
      .impl("mul_", &mul_inplace_ag)
      .impl("div_", &div_inplace_ag);

  out.push_back(std::move(torch));
  out.push_back(std::move(tensor));
}

}  // namespace wick::autograd
