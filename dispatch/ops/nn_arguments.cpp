// dispatch/ops/nn_arguments.cpp - how the torch.nn.functional operators read their arguments.
/// \file
/// Shared by the kernels and the formulas of the losses.
#include <string_view>

#include "wick/error.h"
#include "wick/nn_functional.h"
#include "wick/value.h"

namespace wick::nn::functional {

Reduction resolve_reduction(const char* op, std::optional<bool> size_average, std::optional<bool> reduce,
                            std::string_view reduction) {
  if (size_average || reduce) {
    const bool average = size_average.value_or(true);
    if (!reduce.value_or(true)) return Reduction::kNone;
    return average ? Reduction::kMean : Reduction::kSum;
  }
  if (reduction == "mean") return Reduction::kMean;
  if (reduction == "sum") return Reduction::kSum;
  WICK_CHECK(reduction == "none", ValueError, op, ": ", reduction, " is not a valid value for reduction");
  return Reduction::kNone;
}

}  // namespace wick::nn::functional
