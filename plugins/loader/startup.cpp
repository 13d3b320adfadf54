// plugins/loader/startup.cpp - libwick's start-up: the builtins, in layer order.
/// \file
/// Note [Start-up]
/// Nothing in libwick registers from a static initialiser. `wick::init()`
/// is the one start-up call: it registers the builtins here (definitions,
/// then composite kernels, the override protocol and the formulas) and then
/// loads the backends and plugins. This file sits in the top layer because
/// it is the only code that needs every layer below it; the dispatch
/// mechanism never calls up into it. Instead it keeps what the start-up
/// sets: a `started` flag, so that looking an operator up before init()
/// says so, and a hint for "no kernel" errors (which backend directories
/// were searched, which plugins were refused); and the data model gets the
/// host copy it reads device tensors through (Note [Host reads]).
#include "plugins/loader/startup.h"

#include <memory>
#include <mutex>
#include <vector>

#include "core/distributed/collectives.h"
#include "core/frontend/frontend_kernels.h"
#include "core/host_read.h"
#include "dispatch/autocast_internal.h"
#include "dispatch/autograd/formulas.h"
#include "dispatch/composite/composite.h"
#include "dispatch/ops/definitions.h"
#include "dispatch/override_internal.h"
#include "dispatch/registry.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"

namespace wick {
namespace {

// The host copy the data model reads device tensors through (Note [Host
// reads]): the tensor's `cpu()`, below Autograd and Override.
Tensor host_copy_through_dispatch(const Tensor& t) {
  static const auto cpu = find_op("torch.Tensor.cpu").typed<Tensor(const Tensor&)>();
  const ExcludeDispatchKeyGuard no_grad(DispatchKey::kAutograd);
  const ExcludeDispatchKeyGuard no_override(DispatchKey::kOverride);
  return cpu.call(t);
}

std::string missing_kernel_hint(DispatchKey /*wanted*/) {
  std::string dirs;
  for (const std::string& d : plugin_search_path()) dirs += (dirs.empty() ? "" : ", ") + d;
  // A backend that was found but refused (trust, allowlist, ABI) is the
  // likelier answer than one that is missing: say which and why.
  const std::vector<PluginLoadError> failed = plugin_errors();
  std::string refused = ". Is the backend plugin installed?";
  if (!failed.empty()) {
    refused = failed.size() == 1 ? ". This plugin file was found but not loaded: "
                                 : ". These plugin files were found but not loaded: ";
    for (std::size_t i = 0; i < failed.size(); ++i) refused += (i ? "; " : "") + failed[i].message;
  }
  return detail::str_cat(" No loaded backend or plugin provides one; plugin directories searched: ",
                         dirs.empty() ? "(none)" : dirs, refused);
}

}  // namespace

void register_builtins() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Owned by the registry, which lives until exit: the builtin operators
    // stay defined for the life of the process.
    std::vector<std::unique_ptr<Library>> libs;
    register_torch_catalog(libs);
    register_composite_kernels(libs);
    register_complex_kernels(libs);
    register_attribute_kernels(libs);
    register_aten_entry_kernels(libs);
    register_fft_kernels(libs);
    register_factory_kernels(libs);
    register_statistics_kernels(libs);
    register_sorting_kernels(libs);
    register_index_kernels(libs);
    register_numeric_kernels(libs);
    register_special_kernels(libs);
    register_random_kernels(libs);
    register_linalg_kernels(libs);
    register_product_kernels(libs);
    register_activation_kernels(libs);
    register_tensor_list_kernels(libs);
    register_scan_kernels(libs);
    register_callable_kernels(libs);
    register_printing_kernels(libs);
    register_nn_composite_kernels(libs);
    register_distance_kernels(libs);
    register_interpolate_kernels(libs);
    register_norm_composite_kernels(libs);
    register_composite_shape(libs);
    register_conv_composite_kernels(libs);
    register_pool_nd_kernels(libs);
    register_fractional_pool_kernels(libs);
    register_grid_kernels(libs);
    register_margin_loss_kernels(libs);
    register_layer_kernels(libs);
    register_ctc_loss_kernels(libs);
    register_lstsq_kernels(libs);
    register_view_copy_kernels(libs);
    register_stft_kernels(libs);
    register_histogram_kernels(libs);
    register_rnn_kernels(libs);
    register_inplace_kernels(libs);
    register_out_copy_kernels(libs);
    distributed::register_distributed_kernels(libs);
    register_override_protocol(libs);
    register_autocast_kernels(libs);
    autograd::register_autograd_elementwise(libs);
    autograd::register_autograd_unary(libs);
    autograd::register_autograd_shape(libs);
    autograd::register_autograd_linalg(libs);
    autograd::register_autograd_nn(libs);
    autograd::register_autograd_norm(libs);
    autograd::register_autograd_loss(libs);
    autograd::register_autograd_index(libs);
    autograd::register_autograd_reduce(libs);
    autograd::register_autograd_scan(libs);
    autograd::register_autograd_conv(libs);
    autograd::register_autograd_lapack(libs);
    autograd::register_autograd_special(libs);
    autograd::register_autograd_fft(libs);
    auto& reg = Registry::get();
    reg.missing_kernel_hint.store(&missing_kernel_hint, std::memory_order_release);
    set_host_copy(&host_copy_through_dispatch);
    std::unique_lock lock(reg.mutex);
    reg.builtins = std::move(libs);
    reg.started.store(true, std::memory_order_release);
  });
}

}  // namespace wick
