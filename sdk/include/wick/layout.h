// wick/layout.h - tensor layouts as boxed values: what torch.Tensor.layout gives a boxed caller.
/// \file
/// Every wick tensor is dense and strided: Python's `x.layout` is
/// `torch.strided` for each, and so is wick's (`wick eval` reads
/// `torch.strided` too). PyTorch's other layouts (sparse_coo, sparse_csr,
/// _mkldnn, ...) have no wick tensors.
#pragma once

#include <string>
#include <utility>

#include "wick/export.h"
#include "wick/value.h"

namespace wick {

/// A layout as a Value: an Object of Python's type "layout", printed "torch.strided".
class WICK_API LayoutObject final : public Object {
 public:
  /// The layout of that name ("strided").
  explicit LayoutObject(std::string name) : name_(std::move(name)) {}
  /// The name, without "torch." ("strided").
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// "layout".
  [[nodiscard]] std::string type_name() const override { return "layout"; }
  /// "torch.strided".
  [[nodiscard]] std::string repr() const override { return "torch." + name_; }

 private:
  std::string name_;
};

/// `torch.strided`, the layout of every wick tensor (the same object each call).
[[nodiscard]] WICK_API Value strided_layout();

}  // namespace wick
