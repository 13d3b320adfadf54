// tests/nn/modules_recurrent_test.cpp - RNN, LSTM, GRU, their cells, MultiheadAttention and the Transformer layers.
/// \file
#include <gtest/gtest.h>

#include "tests/autograd/test_util.h"
#include "tests/nn/module_cases.h"

namespace wick::testing {

void add_recurrent_cases(std::map<std::string, std::function<ModuleCase()>>& /*cases*/) {}

}  // namespace wick::testing
