// tests/fuzz/eval_fuzz.cpp - libFuzzer target: the `wick eval` expression parser.
/// \file
/// Parses only (evaluating arbitrary expressions could allocate huge
/// tensors): any input either parses or throws wick::eval::SyntaxError,
/// nothing else, no crash, no stack overflow. An accepted tree printed with
/// `to_string` must parse again to the same tree, unless it is so deep that
/// the printed parentheses pass the nesting cap, or holds a float literal
/// that prints as a name (`1e999` is `inf`).
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_util.h"
#include "wick/error.h"
#include "tools/wick/eval.h"

namespace {

using wick::eval::Node;

bool has_non_finite_float(const Node& n) {
  if (n.kind == Node::Kind::kFloat && !std::isfinite(n.float_value)) return true;
  for (const auto& c : n.children)
    if (has_non_finite_float(*c)) return true;
  for (const auto& [name, c] : n.kwargs)
    if (has_non_finite_float(*c)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view expr(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<Node> tree;
  try {
    tree = wick::eval::parse(expr);
  } catch (const wick::eval::SyntaxError& e) {
    wick::fuzz::fuzz_check(e.column() <= expr.size(), "SyntaxError's column is past the end of the expression");
    return 0;
  } catch (const std::exception& e) {
    wick::fuzz::fuzz_unexpected(e, "wick::eval::parse (only SyntaxError is allowed)");
  }
  wick::fuzz::fuzz_check(tree != nullptr, "parse returned no tree");
  const std::string printed = wick::eval::to_string(*tree);
  if (tree->height > 60 || has_non_finite_float(*tree)) return 0;
  try {
    const std::string again = wick::eval::to_string(*wick::eval::parse(printed));
    if (again != printed) {
      std::fprintf(stderr, "printed: %s\nreprint: %s\n", printed.c_str(), again.c_str());
      wick::fuzz::fuzz_check(false, "to_string(parse(to_string(tree))) != to_string(tree)");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "printed: %s\n", printed.c_str());
    wick::fuzz::fuzz_unexpected(e, "parsing the printed tree again");
  }
  return 0;
}
