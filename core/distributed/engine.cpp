// core/distributed/engine.cpp - the registry of collective engines, Engine's defaults, ReduceOp names.
/// \file
#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

#include "core/distributed/process_group_internal.h"
#include "wick/distributed_backend.h"

namespace wick::distributed {

// --- ReduceOp ------------------------------------------------------------------

namespace {
constexpr const char* kReduceOpNames[] = {"sum", "product", "min", "max", "avg", "band", "bor", "bxor"};
}

ReduceOp reduce_op_from_name(const std::string& name) {
  std::string n = name;
  if (n.rfind("ReduceOp.", 0) == 0) n = n.substr(9);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (int i = 0; i < 8; ++i) {
    if (n == kReduceOpNames[i]) return static_cast<ReduceOp>(i);
  }
  throw ValueError("Unknown ReduceOp '" + name + "': expected one of sum, product, min, max, avg, band, bor, bxor");
}

const char* reduce_op_name(ReduceOp op) {
  const auto i = static_cast<int>(op);
  return i >= 0 && i < 8 ? kReduceOpNames[i] : "unknown";
}

// --- Engine ----------------------------------------------------------------------

Engine::~Engine() = default;

bool Engine::supports(ScalarType dtype) const { return dtype != ScalarType::kUndefined; }

bool Engine::supports(ReduceOp op, ScalarType dtype) const {
  const bool bitwise = op == ReduceOp::kBand || op == ReduceOp::kBor || op == ReduceOp::kBxor;
  if (!bitwise) return supports(dtype);
  return dtype == ScalarType::kBool || dtype == ScalarType::kUInt8 || dtype == ScalarType::kInt8 ||
         dtype == ScalarType::kInt16 || dtype == ScalarType::kInt32 || dtype == ScalarType::kInt64;
}

void Engine::reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op) {
  const Tensor all = input.clone();
  all_reduce(all, op);
  const std::int64_t n = output.numel();
  // This rank's chunk of the reduced input.
  Tensor out = output;
  out.copy_(all.view({-1}).narrow(0, checked_mul(n, static_cast<std::int64_t>(rank()), "reduce_scatter"), n).view(output.sizes()));
}

// --- the registry ------------------------------------------------------------------

namespace {

struct Registered {
  std::vector<DeviceType> devices;
  EngineFactory factory;
  std::uint64_t token = 0;
};

struct EngineRegistry {
  std::mutex mutex;
  std::map<std::string, Registered> engines;
  std::uint64_t next_token = 1;
};

EngineRegistry& registry() {
  static auto* r = new EngineRegistry();  // never destroyed: plugins unregister at exit
  return *r;
}

std::string device_type_text(DeviceType t) { return Device(t).str(); }


}  // namespace

void register_engine(Registrar& registrar, const std::string& name, const std::vector<DeviceType>& device_types,
                     EngineFactory factory) {
  WICK_CHECK(!name.empty(), ValueError, "register_engine: the engine needs a name");
  WICK_CHECK(!device_types.empty(), ValueError, "register_engine: engine '", name, "' serves no device type");
  WICK_CHECK(factory != nullptr, ValueError, "register_engine: engine '", name, "' has no factory");
  auto& r = registry();
  std::uint64_t token = 0;
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    WICK_CHECK(r.engines.count(name) == 0, PluginError, "register_engine: a collective engine named '", name,
               "' is already registered (plugin '", registrar.owner(), "')");
    token = r.next_token++;
    r.engines[name] = Registered{device_types, std::move(factory), token};
  }
  registrar.on_clear([name, token] {
    auto& reg = registry();
    const std::lock_guard<std::mutex> lock(reg.mutex);
    auto it = reg.engines.find(name);
    if (it != reg.engines.end() && it->second.token == token) reg.engines.erase(it);
  });
}

std::vector<std::string> registered_engines() {
  auto& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& [name, e] : r.engines) {
    std::string line = name + ":";
    for (std::size_t i = 0; i < e.devices.size(); ++i) line += (i == 0 ? " " : ", ") + device_type_text(e.devices[i]);
    out.push_back(line);
  }
  return out;
}

std::optional<std::pair<std::vector<DeviceType>, EngineFactory>> find_engine(const std::string& name) {
  auto& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.engines.find(name);
  if (it == r.engines.end()) return std::nullopt;
  return std::make_pair(it->second.devices, it->second.factory);
}

}  // namespace wick::distributed
