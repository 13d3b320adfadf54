// consumer.cpp - checks the out-of-tree template plugin through the installed SDK.
// Exits 0 when every check holds; prints each failure otherwise.
#include <cmath>
#include <iostream>
#include <string>

#include <wick/autograd.h>
#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/override.h>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}

}  // namespace

int main() {
  try {
    wick::init();  // WICK_PLUGIN_PATH names the template's directory
    bool loaded = false;
    for (const auto& p : wick::loaded_plugins()) loaded = loaded || p.name == "myplugin";
    check(loaded, "myplugin is loaded");
    // The operator's CPU kernel.
    wick::Tensor x = wick::ones({3});
    wick::Tensor y = wick::call("myplugin.scale", {x, 2.5}).to_tensor();
    check(std::abs(y.sum().item<double>() - 7.5) < 1e-6, "myplugin.scale(ones(3), 2.5).sum() == 7.5");
    // Its autograd formula.
    x.requires_grad_();
    wick::Tensor z = wick::call("myplugin.scale", {x, 3.0}).to_tensor().sum();
    z.backward();
    check(x.grad().defined() && std::abs(x.grad().sum().item<double>() - 9.0) < 1e-6, "the gradient is 3 per element");
    // The tensor-like type: its handler for torch.sum, the fallback for the rest.
    wick::Value s = wick::new_instance(wick::find_type("Scaled"), {wick::Value(wick::ones({4})), 0.5});
    check(std::abs(wick::call("torch.sum", {s}).to_tensor().item<double>() - 2.0) < 1e-6, "torch.sum(Scaled) == 2");
    check(wick::call("torch.neg", {s}).repr() == "tensor([-0.5000, -0.5000, -0.5000, -0.5000])",
          "torch.neg(Scaled) through the converting fallback");
  } catch (const wick::Error& e) {
    std::cerr << "FAILED: " << e.type_name() << ": " << e.what() << "\n";
    return 1;
  }
  if (failures == 0) std::cout << "consumer: all checks passed\n";
  return failures == 0 ? 0 : 1;
}
