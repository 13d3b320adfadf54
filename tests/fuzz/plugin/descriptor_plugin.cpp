// tests/fuzz/plugin/descriptor_plugin.cpp - a plugin whose descriptor the fuzz input writes.
/// \file
/// Built as a real plugin `.so` for plugin_descriptor_fuzz. Its entry point
/// `wick_plugin_descriptor` returns a descriptor decoded from the bytes last
/// passed to the exported `wick_fuzz_set_input`: the ABI version (usually
/// the right one), each string null, right, empty, long or random (NULs
/// included), and `init` null or `fuzz_init`, which reads the rest of the
/// bytes as registration commands (defs with random schemas in a few
/// namespaces, kernels, aliases, fallthroughs, conflicts on purpose, a
/// thrown exception, an error string returned).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <wick/plugin.h>
#include <wick/tensor.h>

namespace {

wick::Tensor ident(const wick::Tensor& x) { return x; }
wick::Tensor first(const wick::Tensor& x, const wick::Tensor&) { return x; }

struct FuzzInput {
  std::vector<std::uint8_t> commands;  ///< what is left for fuzz_init
  std::string strings[4];              ///< storage of the descriptor's strings
  wick::PluginDescriptor descriptor{};
  std::string error;
  std::uint64_t init_calls = 0;
};

FuzzInput& input() {
  static FuzzInput in;
  return in;
}

constexpr const char* kNamespaces[] = {"fuzzns", "fuzzns.sub", "torch", "torch.Tensor", "aten", "", "Fuzz Ns"};
constexpr const char* kSchemas[] = {
    "f(Tensor self) -> Tensor",
    "g(Tensor self, Tensor other) -> Tensor",
    "f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    "h(Tensor self, int[2] size=1, float eps=1e-5, str mode='mean') -> (Tensor a, Tensor b)",
    "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "relu(Tensor self) -> Tensor",
    "zeros_fuzz(int[] size, *, ScalarType? dtype=None) -> Tensor",
};
constexpr const char* kOpNames[] = {"f", "g", "f.out", "h", "add", "relu", "torch.add", "fuzzns.f", "nope", ""};
constexpr const char* kAliasTargets[] = {"torch.add", "fuzzns.f", "torch.relu", "nope.nope", ""};

std::string pick(FuzzedDataProvider& in, const char* const* known, std::size_t n) {
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) return in.ConsumeRandomLengthString(48);
  return known[in.ConsumeIntegralInRange<std::size_t>(0, n - 1)];
}
template <std::size_t N>
std::string pick(FuzzedDataProvider& in, const char* const (&known)[N]) {
  return pick(in, known, N);
}

wick::DispatchKey pick_key(FuzzedDataProvider& in) {
  constexpr wick::DispatchKey kKeys[] = {wick::DispatchKey::kCPU, wick::DispatchKey::kCUDA,
                                         wick::DispatchKey::kAutograd, wick::DispatchKey::kOverride,
                                         wick::DispatchKey::kCompositeImplicit};
  return in.PickValueInArray(kKeys);
}

/// Runs the registration commands; returns an error message or nullptr.
const char* run_commands(wick::Registrar& r) {
  FuzzedDataProvider in(input().commands.data(), input().commands.size());
  for (int step = 0; step < 16 && in.remaining_bytes() > 0; ++step) {
    switch (in.ConsumeIntegralInRange<int>(0, 11)) {
      case 0:
      case 1:
      case 2: r.library(pick(in, kNamespaces)).def(pick(in, kSchemas)); break;
      case 3: {  // the same schema twice: a conflict
        auto& lib = r.library(pick(in, kNamespaces));
        const std::string schema = pick(in, kSchemas);
        lib.def(schema);
        lib.def(schema);
        break;
      }
      case 4:
      case 5: {
        const std::string ns = pick(in, kNamespaces);
        const wick::DispatchKey key = pick_key(in);
        const std::string name = pick(in, kOpNames);
        const bool replace = in.ConsumeBool();
        if (in.ConsumeBool())
          r.library(ns, key).impl(name, &ident, replace);
        else
          r.library(ns, key).impl(name, &first, replace);
        break;
      }
      case 6: r.library(pick(in, kNamespaces)).alias(pick(in, kOpNames), pick(in, kAliasTargets)); break;
      case 7: r.library(pick(in, kNamespaces), pick_key(in)).impl_fallthrough(pick(in, kOpNames)); break;
      case 8: {
        // Device types are never unregistered (as in PyTorch): a few fixed
        // names only, so that fuzzing cannot use up the 14 slots.
        constexpr const char* kDevices[] = {"fuzzdev", "cpu", "cuda"};
        (void)r.register_backend(in.PickValueInArray(kDevices));
        break;
      }
      case 9: throw std::runtime_error("fuzz: init throws after " + std::to_string(step) + " commands");
      case 10: throw 42;  // not a std::exception
      default: return "fuzz: init returns an error";
    }
  }
  return nullptr;
}

const char* fuzz_init(wick::Registrar* r) noexcept {
  ++input().init_calls;
  try {
    return run_commands(*r);
  } catch (const std::exception& e) {
    input().error = e.what();
  } catch (...) {
    input().error = "unknown exception";
  }
  return input().error.c_str();
}

/// One descriptor string: null, the right value, empty, long, random bytes,
/// or the right value followed by a NUL and junk.
const char* pick_string(FuzzedDataProvider& in, std::string& keep, const char* right) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return nullptr;
    case 1: keep.clear(); break;
    case 2: keep = in.ConsumeRandomLengthString(64); break;
    case 3: keep.assign(in.ConsumeIntegralInRange<std::size_t>(100, 4000), 'x'); break;
    case 4: keep = std::string(right) + '\0' + in.ConsumeRandomLengthString(8); break;
    default: keep = right; break;
  }
  return keep.c_str();
}

}  // namespace

/// Decodes `data` into the descriptor the entry point returns next.
WICK_PLUGIN_EXPORT void wick_fuzz_set_input(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  FuzzInput& f = input();
  wick::PluginDescriptor& d = f.descriptor;
  d.abi_version = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeIntegral<std::uint32_t>()
                                                             : WICK_PLUGIN_ABI_VERSION;
  // Now and then the name of the CPU backend, which is already loaded.
  const char* name = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? "cpu" : "fuzz_descriptor";
  d.name = pick_string(in, f.strings[0], name);
  d.version = pick_string(in, f.strings[1], "0.0.1");
  d.sdk_version = pick_string(in, f.strings[2], WICK_SDK_VERSION);
  d.abi_fingerprint = pick_string(in, f.strings[3], WICK_ABI_FINGERPRINT);
  d.init = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? nullptr : &fuzz_init;
  f.commands = in.ConsumeRemainingBytes<std::uint8_t>();
}

WICK_PLUGIN_EXPORT const wick::PluginDescriptor* WICK_PLUGIN_ENTRY_POINT() { return &input().descriptor; }

/// How many times the loader has called `init` (the harness checks the
/// catalog only after inputs that got that far).
WICK_PLUGIN_EXPORT std::uint64_t wick_fuzz_init_calls() { return input().init_calls; }
