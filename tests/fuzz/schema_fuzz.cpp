// tests/fuzz/schema_fuzz.cpp - libFuzzer target: wick::parse_schema.
/// \file
/// Any input either parses or throws SchemaError (nothing else, no crash).
/// Every accepted schema must survive the round trip that schema.h promises,
/// `parse_schema(s.str()) == s`, compared field by field (defaults by their
/// text and their value's repr), and its Python signature must print.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_util.h"
#include "wick/error.h"
#include "wick/schema.h"

namespace {

using wick::fuzz::fuzz_check;

std::string describe(const wick::SchemaArgument& a) {
  std::string out = a.name + ":" + a.type.str() + (a.kwarg_only ? ":kw" : "");
  if (a.alias) out += ":alias(" + a.alias->set + (a.alias->is_write ? "!" : "") + (a.alias->to_wildcard ? "*" : "") + ")";
  if (a.default_text) out += ":text=" + *a.default_text;
  if (a.default_value) out += ":value=" + a.default_value->repr();
  return out;
}

bool same_arguments(const std::vector<wick::SchemaArgument>& l, const std::vector<wick::SchemaArgument>& r) {
  if (l.size() != r.size()) return false;
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (l[i].name != r[i].name || !(l[i].type == r[i].type) || l[i].alias != r[i].alias ||
        l[i].default_text != r[i].default_text || l[i].kwarg_only != r[i].kwarg_only ||
        l[i].default_value.has_value() != r[i].default_value.has_value() || describe(l[i]) != describe(r[i]))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  wick::FunctionSchema schema;
  try {
    schema = wick::parse_schema(text);
  } catch (const wick::SchemaError&) {
    return 0;
  } catch (const std::exception& e) {
    wick::fuzz::fuzz_unexpected(e, "parse_schema");
  }
  const std::string printed = schema.str();
  wick::FunctionSchema again;
  try {
    again = wick::parse_schema(printed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "input:   %.*s\nprinted: %s\n", static_cast<int>(size), text.data(), printed.c_str());
    fuzz_check(false, std::string("the printed schema does not parse again: ") + e.what());
  }
  const bool same = again.name == schema.name && again.overload == schema.overload &&
                    same_arguments(again.arguments, schema.arguments) && same_arguments(again.returns, schema.returns);
  if (!same || again.str() != printed) {
    std::fprintf(stderr, "input:   %.*s\nprinted: %s\nreprint: %s\n", static_cast<int>(size), text.data(),
                 printed.c_str(), again.str().c_str());
    fuzz_check(false, "parse_schema(s.str()) != s");
  }
  try {
    (void)schema.full_name();
    (void)schema.python_signature(true);
    (void)schema.python_signature(false);
    for (const auto& a : schema.arguments) fuzz_check(schema.find_argument(a.name) >= 0, "find_argument");
  } catch (const std::exception& e) {
    wick::fuzz::fuzz_unexpected(e, "python_signature of an accepted schema");
  }
  return 0;
}
