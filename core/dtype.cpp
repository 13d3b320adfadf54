// core/dtype.cpp - dtype names and the promotion table.
/// \file
#include "wick/dtype.h"

#include <array>
#include <string>

#include "wick/error.h"

namespace wick {

namespace {

struct DtypeNames {
  const char* name;   // torch.<name>
  const char* title;  // kernel messages
};
constexpr std::array<DtypeNames, kNumScalarTypes> kNames = {{
    {"bool", "Bool"},
    {"int32", "Int"},
    {"int64", "Long"},
    {"float32", "Float"},
    {"float64", "Double"},
    {"float16", "Half"},
    {"bfloat16", "BFloat16"},
    {"uint8", "Byte"},
    {"int8", "Char"},
    {"int16", "Short"},
    {"complex64", "ComplexFloat"},
    {"complex128", "ComplexDouble"},
}};

struct DtypeAlias {
  std::string_view name;
  ScalarType type;
};
constexpr DtypeAlias kAliases[] = {
    {"float32", ScalarType::kFloat32},     {"float", ScalarType::kFloat32},     {"float64", ScalarType::kFloat64},
    {"double", ScalarType::kFloat64},      {"float16", ScalarType::kFloat16},   {"half", ScalarType::kFloat16},
    {"bfloat16", ScalarType::kBFloat16},   {"int64", ScalarType::kInt64},       {"long", ScalarType::kInt64},
    {"int32", ScalarType::kInt32},         {"int", ScalarType::kInt32},         {"int16", ScalarType::kInt16},
    {"short", ScalarType::kInt16},         {"int8", ScalarType::kInt8},         {"uint8", ScalarType::kUInt8},
    {"bool", ScalarType::kBool},           {"complex64", ScalarType::kComplex64}, {"cfloat", ScalarType::kComplex64},
    {"complex128", ScalarType::kComplex128}, {"cdouble", ScalarType::kComplex128},
};

// Note [Promotion table]
// PyTorch 1.13's torch.promote_types for every pair, row and column in
// ScalarType order (bool int32 int64 float32 float64 float16 bfloat16 uint8
// int8 int16 complex64 complex128). It is not a
// chain: uint8 with int8 is int16, float16 with bfloat16 is float32, and a
// complex dtype with float64 is complex128. tests/core/dtype_test.cpp
// checks it against the table PyTorch prints (tests/data/reference).
constexpr ScalarType kBo = ScalarType::kBool, kI4 = ScalarType::kInt32, kI8 = ScalarType::kInt64,
                     kF4 = ScalarType::kFloat32, kF8 = ScalarType::kFloat64, kF2 = ScalarType::kFloat16,
                     kBf = ScalarType::kBFloat16, kU1 = ScalarType::kUInt8, kC1 = ScalarType::kInt8,
                     kI2 = ScalarType::kInt16, kC8 = ScalarType::kComplex64, kCd = ScalarType::kComplex128;
constexpr ScalarType kPromote[kNumScalarTypes][kNumScalarTypes] = {
    /* kBo */ {kBo, kI4, kI8, kF4, kF8, kF2, kBf, kU1, kC1, kI2, kC8, kCd},
    /* kI4 */ {kI4, kI4, kI8, kF4, kF8, kF2, kBf, kI4, kI4, kI4, kC8, kCd},
    /* kI8 */ {kI8, kI8, kI8, kF4, kF8, kF2, kBf, kI8, kI8, kI8, kC8, kCd},
    /* kF4 */ {kF4, kF4, kF4, kF4, kF8, kF4, kF4, kF4, kF4, kF4, kC8, kCd},
    /* kF8 */ {kF8, kF8, kF8, kF8, kF8, kF8, kF8, kF8, kF8, kF8, kCd, kCd},
    /* kF2 */ {kF2, kF2, kF2, kF4, kF8, kF2, kF4, kF2, kF2, kF2, kC8, kCd},
    /* kBf */ {kBf, kBf, kBf, kF4, kF8, kF4, kBf, kBf, kBf, kBf, kC8, kCd},
    /* kU1 */ {kU1, kI4, kI8, kF4, kF8, kF2, kBf, kU1, kI2, kI2, kC8, kCd},
    /* kC1 */ {kC1, kI4, kI8, kF4, kF8, kF2, kBf, kI2, kC1, kI2, kC8, kCd},
    /* kI2 */ {kI2, kI4, kI8, kF4, kF8, kF2, kBf, kI2, kI2, kI2, kC8, kCd},
    /* kC8 */ {kC8, kC8, kC8, kC8, kCd, kC8, kC8, kC8, kC8, kC8, kC8, kCd},
    /* kCd */ {kCd, kCd, kCd, kCd, kCd, kCd, kCd, kCd, kCd, kCd, kCd, kCd},
};

bool known(ScalarType t) noexcept { return itemsize(t) != 0; }

}  // namespace

std::string_view dtype_name(ScalarType t) noexcept {
  return known(t) ? kNames[static_cast<std::size_t>(t)].name : "undefined";
}

const char* type_title(ScalarType t) noexcept {
  return known(t) ? kNames[static_cast<std::size_t>(t)].title : "Undefined";
}

ScalarType parse_dtype(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (const DtypeAlias& a : kAliases)
    if (a.name == name) return a.type;
  throw TypeError(detail::str_cat("unknown dtype 'torch.", name,
                                  "' (wick supports bool, uint8, int8, int16, int32, int64, float16, bfloat16, "
                                  "float32, float64, complex64, complex128)"));
}

ScalarType promote_types(ScalarType a, ScalarType b) noexcept {
  if (!known(a) || !known(b)) return ScalarType::kUndefined;
  return kPromote[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
}

void throw_not_implemented_for(const char* kernel, ScalarType t) {
  throw RuntimeError(detail::str_cat("\"", kernel, "\" not implemented for '", type_title(t), "'"));
}

}  // namespace wick
