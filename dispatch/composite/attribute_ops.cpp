// dispatch/composite/attribute_ops.cpp - the torch.Tensor properties and metadata methods
// (dispatch/ops/attributes.ops).
/// \file
/// What a tensor says about itself, as catalog operators (Note [Tensor
/// metadata operators] in dispatch/ops/attributes.ops): each kernel reads
/// class Tensor's own members, so it serves every backend, Meta included.
/// The conversions to Python numbers (__int__, __float__, __index__, ...)
/// read the one element as Python's int() and float() of PyTorch's item()
/// do, with Python's messages.
/// wick::cuda::pin_memory lives here too, with is_pinned and pin_memory
/// (its copy is an operator call, which the data model below cannot make).
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/autograd/autograd_meta.h"
#include "dispatch/composite/composite.h"
#include "wick/autograd.h"
#include "wick/autograd_values.h"
#include "wick/callable.h"
#include "wick/cuda.h"
#include "wick/device_runtime.h"
#include "wick/error.h"
#include "wick/layout.h"
#include "wick/library.h"
#include "wick/log.h"
#include "wick/ops.h"

namespace wick {
namespace {

using T = const Tensor&;

// --- properties ------------------------------------------------------------------

// x.shape and x.size(): the sizes (a torch.Size in Python).
Value sizes_kernel(T self) { return Value(self.sizes().vec()); }
ScalarType dtype_kernel(T self) { return self.dtype(); }
Value device_kernel(T self) { return Value(self.device()); }
std::int64_t ndim_kernel(T self) { return self.dim(); }
bool requires_grad_kernel(T self) { return self.requires_grad(); }
bool is_leaf_kernel(T self) { return self.is_leaf(); }
Value grad_kernel(T self) {
  const Tensor g = self.grad();
  return g.defined() ? Value(g) : Value();
}
std::int64_t output_nr_kernel(T self) { return self.output_nr(); }
std::int64_t version_kernel(T self) { return self.version(); }
bool retains_grad_kernel(T self) { return self.retains_grad(); }

bool is_cpu_kernel(T self) { return self.device().is_cpu(); }
bool is_cuda_kernel(T self) { return self.device().type() == DeviceType::kCUDA; }
bool is_meta_kernel(T self) { return self.device().is_meta(); }
// Devices a plugin may register under PyTorch's names.
template <const char* kName>
bool is_device_kernel(T self) {
  return device_type_name(self.device().type()) == kName;
}
constexpr char kXpu[] = "xpu";
constexpr char kIpu[] = "ipu";
constexpr char kMps[] = "mps";
constexpr char kOrt[] = "ort";
constexpr char kVulkan[] = "vulkan";
// Layouts and kinds of tensor wick does not have (its tensors are strided
// and dense), and the states it does not have (shared memory across
// processes, inference mode, named dims, distributed tensors).
bool false_kernel(T /*self*/) { return false; }

Value names_kernel(T self) {
  return Value::list(std::vector<Value>(static_cast<std::size_t>(self.dim())), /*tuple=*/true);
}
Value none_kernel(T /*self*/) { return Value(); }
Value layout_kernel(T /*self*/) { return strided_layout(); }
Value grad_fn_kernel(T self) { return grad_fn_value(self); }
bool volatile_kernel(T /*self*/) {
  static std::once_flag warned;
  std::call_once(warned, [] { logging::warn("volatile was removed (Variable.volatile is always False)"); });
  return false;
}
std::int64_t cdata_kernel(T self) { return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(self.impl())); }

// The transposes (views). A 0-dim tensor is its own transpose.
Tensor t_property_kernel(T self) {
  std::vector<std::int64_t> dims(static_cast<std::size_t>(self.dim()));
  for (std::size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<std::int64_t>(dims.size() - 1 - d);
  return self.permute(dims);
}

Tensor matrix_transpose(T self, const char* attr) {
  WICK_CHECK(self.dim() >= 2 || self.dim() == 0, RuntimeError, "tensor.", attr,
             " is only supported on matrices or batches of matrices. Got ", self.dim(), "-D tensor.");
  return self.dim() == 0 ? self.permute({}) : self.transpose(-2, -1);
}
Tensor mt_kernel(T self) { return matrix_transpose(self, "mT"); }
// The conjugate transposes: views of a real tensor; wick's conj of a complex
// one is a copy (Note in dispatch/composite/complex_ops.cpp).
Tensor mh_kernel(T self) { return matrix_transpose(self, "mH").conj(); }
Tensor h_kernel(T self) {
  WICK_CHECK(self.dim() == 2 || self.dim() == 0, RuntimeError,
             "tensor.H is only supported on matrices (2-D tensors). "
             "Got ",
             self.dim(), "-D tensor.", self.dim() > 2 ? " For batches of matrices, consider using tensor.mH" : "");
  return (self.dim() == 0 ? self.permute({}) : self.transpose(0, 1)).conj();
}

Tensor real_property_kernel(T self) { return wick::real(self); }
Tensor imag_property_kernel(T self) { return wick::imag(self); }

// --- metadata methods ------------------------------------------------------------------

std::int64_t numel_kernel(T self) { return self.numel(); }
std::int64_t size_int_kernel(T self, std::int64_t dim) { return self.size(dim); }
std::int64_t element_size_kernel(T self) { return static_cast<std::int64_t>(itemsize(self.dtype())); }
std::int64_t storage_offset_kernel(T self) { return self.storage_offset(); }
bool is_contiguous_kernel(T self) { return self.is_contiguous(); }
std::int64_t get_device_kernel(T self) {
  return self.device().type() == DeviceType::kCUDA ? std::max<std::int64_t>(self.device().index(), 0) : -1;
}
std::int64_t data_ptr_kernel(T self) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(self.data_ptr()));
}
bool is_set_to_kernel(T self, T tensor) {
  return self.storage().get() == tensor.storage().get() && self.storage_offset() == tensor.storage_offset() &&
         self.sizes().equals(tensor.sizes()) && self.strides().equals(tensor.strides());
}

// Pinned memory: a device runtime (CUDA's) answers for the address, as
// PyTorch asks CUDA; without one no memory is pinned.
bool is_pinned_kernel(T self, std::optional<Device> /*device*/) {
  const void* memory = self.storage() ? self.storage()->data() : nullptr;  // the block, as PyTorch asks
  if (!self.device().is_cpu() || memory == nullptr) return false;
  DeviceRuntime* rt = device_runtime(DeviceType::kCUDA);
  return rt != nullptr && rt->device_count() > 0 && rt->is_pinned(memory);
}
Tensor pin_memory_kernel(T self, std::optional<Device> device) {
  WICK_CHECK(self.device().is_cpu(), RuntimeError, "cannot pin '", legacy_type_name(self.dtype(), self.device()),
             "' only dense CPU tensors can be pinned");
  return is_pinned_kernel(self, device) ? self : cuda::pin_memory(self);
}

Tensor to_dense_kernel(T self, std::optional<ScalarType> dtype) { return dtype ? self.to(*dtype) : self; }

// Autocast's casts of one tensor (PyTorch's, in wick/autocast.h's terms).
bool autocast_enabled_on(T self, bool cuda_enabled, bool cpu_enabled) {
  return (self.device().type() == DeviceType::kCUDA && cuda_enabled) || (self.device().is_cpu() && cpu_enabled);
}
Tensor autocast_to_reduced_kernel(T self, bool cuda_enabled, bool cpu_enabled, ScalarType cuda_dtype,
                                  ScalarType cpu_dtype) {
  if (self.dtype() != ScalarType::kFloat32 || !autocast_enabled_on(self, cuda_enabled, cpu_enabled)) return self;
  return self.to(self.device().is_cpu() ? cpu_dtype : cuda_dtype);
}
Tensor autocast_to_full_kernel(T self, bool cuda_enabled, bool cpu_enabled) {
  const bool reduced = self.dtype() == ScalarType::kFloat16 || self.dtype() == ScalarType::kBFloat16;
  if (!reduced || !autocast_enabled_on(self, cuda_enabled, cpu_enabled)) return self;
  return self.to(ScalarType::kFloat32);
}

// DLPack's (device type, index): kDLCPU is 1, kDLCUDA 2 (dlpack.h's DLDeviceType).
Value dlpack_device_kernel(T self) {
  const Device d = self.device();
  if (d.is_cpu()) return Value::list({Value(1), Value(0)}, /*tuple=*/true);
  WICK_CHECK(d.type() == DeviceType::kCUDA, ValueError, "Unknown device type ", device_type_name(d.type()),
             " for Dlpack");
  return Value::list({Value(2), Value(static_cast<std::int64_t>(std::max<int>(d.index(), 0)))}, /*tuple=*/true);
}

// Nested lists of Python numbers; a 0-dim tensor gives its number.
Value to_list(T t) {
  if (t.dim() == 0) return Value(t.item());
  std::vector<Value> items;
  items.reserve(static_cast<std::size_t>(t.size(0)));
  for (std::int64_t i = 0; i < t.size(0); ++i) items.push_back(to_list(t.select(0, i)));
  return Value::list(std::move(items));
}
Value tolist_kernel(T self) {
  WICK_CHECK(!self.device().is_meta(), RuntimeError, "Tensor.tolist() cannot be called on meta tensors");
  return to_list(self.device().is_cpu() ? self : self.cpu());
}

// Tensor.type()'s names: torch.<Title>Tensor on the CPU and
// torch.cuda.<Title>Tensor on CUDA ('torch.FloatTensor', 'torch.BoolTensor'),
// for every dtype (unlike the messages' legacy_type_name, composite.h).
std::string type_method_name(ScalarType t, Device d) {
  return detail::str_cat(d.type() == DeviceType::kCUDA ? "torch.cuda." : "torch.", type_title(t), "Tensor");
}

Value type_kernel(T self, const Value& dtype, bool non_blocking) {
  if (dtype.is_none()) return Value(type_method_name(self.dtype(), self.device()));
  if (dtype.is_dtype()) return Value(self.to(dtype.to_dtype()));
  WICK_CHECK(dtype.is_string(), TypeError, "dtype must be a type, str, or dtype object");
  // A name: its dtype; a torch.cuda.* name moves to CUDA, a torch.* name
  // moves a CUDA tensor to the CPU, and other devices (meta) keep theirs.
  const std::string& name = dtype.to_string();
  const bool on_cuda = self.device().type() == DeviceType::kCUDA;
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    for (const Device d : {Device(), Device(DeviceType::kCUDA)}) {
      if (type_method_name(t, d) != name) continue;
      if (on_cuda == (d.type() == DeviceType::kCUDA)) return Value(self.to(t));
      return Value(self.to(d, t, non_blocking));
    }
  }
  throw ValueError(detail::str_cat("invalid type: '", name, "'"));
}

// --- autograd ---------------------------------------------------------------------

Tensor requires_grad__kernel(T self, bool requires_grad) {
  Tensor t = self;
  t.requires_grad_(requires_grad);
  return t;
}
Tensor detach__kernel(T self) {
  Tensor t = self;
  t.detach_();
  return t;
}
// detach, and PyTorch's .data: the same data without autograd history.
Tensor detach_kernel(T self) { return self.detach(); }
void retain_grad_kernel(T self) { self.retain_grad(); }
// The hook is a wick::Callable; like PyTorch, registration takes any value
// and a value that cannot be called fails when the gradient arrives.
Value register_hook_kernel(T self, const Value& hook) {
  WICK_CHECK(self.requires_grad(), RuntimeError, "cannot register a hook on a tensor that doesn't require gradient");
  autograd::RemovableHandle handle = self.register_hook([hook](const Tensor& grad) {
    const Value r = callable_of(hook)({Value(grad)});
    WICK_CHECK(r.is_none() || r.is_tensor(), TypeError, "a hook of torch.Tensor.register_hook returned a ",
               r.type_name(), ": it must return a Tensor or None");
    return r.is_none() ? Tensor() : r.to_tensor();
  });
  return Value(std::static_pointer_cast<Object>(std::make_shared<HookHandleObject>(std::move(handle))));
}
void backward_kernel(T self, const std::optional<Tensor>& gradient, std::optional<bool> retain_graph, bool create_graph,
                     const Value& chosen) {  // inputs: None or a Tensor[]
  if (chosen.is_none()) {
    self.backward(gradient.value_or(Tensor()), retain_graph, create_graph);
    return;
  }
  // Only `inputs` accumulate: their gradients, added into each one's .grad
  // as AccumulateGrad adds them.
  const std::vector<Tensor>& inputs = chosen.to_tensor_list();
  WICK_CHECK(!inputs.empty(), RuntimeError, "'inputs' argument to backward() cannot be empty.");
  const autograd::tensor_list grads =
      autograd::grad({self}, inputs, {gradient.value_or(Tensor())}, retain_graph, create_graph, /*allow_unused=*/true);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!grads[i].defined()) continue;
    Tensor input = inputs[i];
    autograd::accumulate_grad(input.mutable_grad(), grads[i], create_graph);
  }
}

// --- Python's conversions ---------------------------------------------------------------

// The one element, as item(), and Python's float() and int() of it, see it.
Scalar one_element(T self) {
  WICK_CHECK(self.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
  return self.item();
}

// A complex element converts to a real type only without an imaginary part
// (PyTorch's checked conversion).
void check_real(const Scalar& s, const char* type) {
  WICK_CHECK(!s.is_complex() || s.to<std::complex<double>>().imag() == 0, RuntimeError,
             "value cannot be converted to type ", type, " without overflow");
}

double float_kernel(T self) {
  const Scalar s = one_element(self);
  check_real(s, "double");
  return s.to<double>();
}

// int(): a float truncates toward zero; NaN and the infinities are Python's
// errors. wick's ints are 64-bit: a float beyond them is an OverflowError
// (Python would make an arbitrary-size int).
std::int64_t int_kernel(T self) {
  const Scalar s = one_element(self);
  check_real(s, "int64_t");
  if (s.is_integral()) return s.to<std::int64_t>();
  return python_int(s.to<double>());
}

Scalar complex_kernel(T self) { return Scalar(one_element(self).to<std::complex<double>>()); }

std::int64_t index_kernel(T self) {
  WICK_CHECK(self.numel() == 1 && is_integral(self.dtype(), /*include_bool=*/true), TypeError,
             "only integer tensors of a single element can be converted to an index");
  return self.item().to<std::int64_t>();
}

std::int64_t len_kernel(T self) {
  WICK_CHECK(self.dim() > 0, TypeError, "len() of a 0-d tensor");
  return self.size(0);
}

bool contains_kernel(T self, const Value& element) {
  const bool number = element.is_bool() || element.is_int() || element.is_double() || element.is_complex();
  WICK_CHECK(element.is_tensor() || number, RuntimeError,
             "Tensor.__contains__ only supports Tensor or scalar, but you passed in a <class '", element.type_name(),
             "'>.");
  const Tensor hits = element.is_tensor() ? wick::eq(self, element.to_tensor()) : wick::eq(self, element.to_scalar());
  return wick::any(hits).item<bool>();
}

// reversed(x): flipped along its first dim; a 0-dim tensor is itself.
Tensor reversed_kernel(T self) { return self.dim() == 0 ? self : wick::flip(self, {0}); }

Tensor rmatmul_kernel(T self, T other) { return wick::matmul(other, self); }

}  // namespace

void register_attribute_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto tensor = std::make_unique<Library>("torch.Tensor", kComposite);
  tensor->impl("shape", &sizes_kernel)
      .impl("dtype", &dtype_kernel)
      .impl("device", &device_kernel)
      .impl("ndim", &ndim_kernel)
      .impl("requires_grad", &requires_grad_kernel)
      .impl("is_leaf", &is_leaf_kernel)
      .impl("grad", &grad_kernel)
      .impl("output_nr", &output_nr_kernel)
      .impl("_version", &version_kernel)
      .impl("retains_grad", &retains_grad_kernel)
      .impl("data", &detach_kernel)
      .impl("is_cpu", &is_cpu_kernel)
      .impl("is_cuda", &is_cuda_kernel)
      .impl("is_meta", &is_meta_kernel)
      .impl("is_xpu", &is_device_kernel<kXpu>)
      .impl("is_ipu", &is_device_kernel<kIpu>)
      .impl("is_mps", &is_device_kernel<kMps>)
      .impl("is_ort", &is_device_kernel<kOrt>)
      .impl("is_vulkan", &is_device_kernel<kVulkan>)
      .impl("is_sparse", &false_kernel)
      .impl("is_sparse_csr", &false_kernel)
      .impl("is_quantized", &false_kernel)
      .impl("is_mkldnn", &false_kernel)
      .impl("is_nested", &false_kernel)
      .impl("is_shared", &false_kernel)
      .impl("has_names", &false_kernel)
      .impl("names", &names_kernel)
      .impl("name", &none_kernel)
      .impl("layout", &layout_kernel)
      .impl("grad_fn", &grad_fn_kernel)
      .impl("_grad_fn", &grad_fn_kernel)
      .impl("_grad", &grad_kernel)
      .impl("volatile", &volatile_kernel)
      .impl("_cdata", &cdata_kernel)
      .impl("is_pinned", &is_pinned_kernel)
      .impl("pin_memory", &pin_memory_kernel)
      .impl("to_dense", &to_dense_kernel)
      .impl("_autocast_to_reduced_precision", &autocast_to_reduced_kernel)
      .impl("_autocast_to_full_precision", &autocast_to_full_kernel)
      .impl("__dlpack_device__", &dlpack_device_kernel)
      .impl("T", &t_property_kernel)
      .impl("mT", &mt_kernel)
      .impl("mH", &mh_kernel)
      .impl("H", &h_kernel)
      .impl("real", &real_property_kernel)
      .impl("imag", &imag_property_kernel)
      .impl("dim", &ndim_kernel)
      .impl("nelement", &numel_kernel)
      .impl("size", &sizes_kernel)
      .impl("size.int", &size_int_kernel)
      .impl("element_size", &element_size_kernel)
      .impl("storage_offset", &storage_offset_kernel)
      .impl("is_contiguous", &is_contiguous_kernel)
      .impl("get_device", &get_device_kernel)
      .impl("data_ptr", &data_ptr_kernel)
      .impl("is_set_to", &is_set_to_kernel)
      .impl("item", &one_element)
      .impl("tolist", &tolist_kernel)
      .impl("type", &type_kernel)
      .impl("requires_grad_", &requires_grad__kernel)
      .impl("detach_", &detach__kernel)
      .impl("retain_grad", &retain_grad_kernel)
      .impl("register_hook", &register_hook_kernel)
      .impl("backward", &backward_kernel)
      .impl("__float__", &float_kernel)
      .impl("__int__", &int_kernel)
      .impl("__long__", &int_kernel)
      .impl("__complex__", &complex_kernel)
      .impl("__index__", &index_kernel)
      .impl("__len__", &len_kernel)
      .impl("__contains__", &contains_kernel)
      .impl("__reversed__", &reversed_kernel)
      .impl("__rmatmul__", &rmatmul_kernel);
  out.push_back(std::move(tensor));
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("detach", &detach_kernel)
      .impl("numel", &numel_kernel)
      .impl("is_inference", &false_kernel)
      .impl("is_distributed", &false_kernel);
  out.push_back(std::move(torch));
}

// wick::cuda::pin_memory: a CPU tensor copied into the CUDA runtime's pinned host memory.
namespace cuda {

Tensor pin_memory(const Tensor& t) {
  WICK_CHECK(t.device().is_cpu(), RuntimeError, "pin_memory: cannot pin a ", t.device().str(),
             " tensor: only CPU memory can be pinned");
  DeviceRuntime* rt = device_runtime(DeviceType::kCUDA);
  WICK_CHECK(rt != nullptr, RuntimeError, "CUDA is not available: no CUDA backend is loaded");
  WICK_CHECK(rt->device_count() > 0, RuntimeError, "CUDA is not available: the CUDA backend found no device");
  Allocator* pinned = rt->pinned_host_allocator();
  WICK_CHECK(pinned != nullptr, RuntimeError, "pin_memory: the CUDA backend has no pinned host allocator");
  const std::size_t nbytes = static_cast<std::size_t>(t.numel()) * itemsize(t.dtype());
  void* data = pinned->allocate(nbytes);
  auto release = [](void* ctx, void* p) { static_cast<Allocator*>(ctx)->deallocate(p, 0); };
  Storage storage = Storage::make(data, nbytes, Device(), +release, pinned);
  Tensor out(
      IntrusivePtr<TensorImpl>::make(std::move(storage), t.dtype(), t.sizes(), contiguous_strides(t.sizes()), 0));
  out.copy_(t);
  return out;
}

}  // namespace cuda

}  // namespace wick
