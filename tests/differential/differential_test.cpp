// tests/differential/differential_test.cpp - wick eval against PyTorch 1.13, expression by expression.
/// \file
/// Note [The differential test]
/// `tests/differential/make_cases.py` writes, under PyTorch 1.13, about
/// 2,300 expressions and what PyTorch prints for each (the golden file
/// `golden/differential.json`): every operator definition through every
/// entry derived from it, every dtype pair through the operators, print
/// formats, errors and the expression grammar. Each is evaluated here with
/// wick's expression engine, as `wick eval` does, and compared with:
///   - a value: its repr, exactly (a pointer in a repr, `at 0x7f...`, is
///     not compared);
///   - an error: `Type: first line of the message`, exactly, or with wick's
///     documented prefix naming the operator (`RuntimeError: torch.mm: ...`
///     where PyTorch says `RuntimeError: ...`; README, "Error messages").
/// A case that differs fails the test unless one entry of `kDivergences`
/// matches its expression; each entry gives its reason, and the README
/// lists them all. An entry that no longer matches a differing case fails
/// the test too, so the list stays as short as it can be.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"
#include "tools/wick/eval.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/random.h"

namespace {

struct Divergence {
  const char* pattern;  // ECMAScript regex matched against the whole expression
  const char* reason;
};

// Every documented divergence from PyTorch 1.13 the generated cases meet
// (README, "Divergences from PyTorch"). Keep this list short: fix the cause
// where it can be fixed.
constexpr Divergence kDivergences[] = {
    {R"(.*\.__rsub__\(.*alpha=.*)",
     "PyTorch's Tensor.__rsub__ returns NotImplemented when given alpha; wick computes other - alpha * self"},
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// What `wick eval` prints for `expr`: the value's repr, or "Type: message".
std::string wick_output(const std::string& expr) {
  try {
    return wick::eval::format(wick::eval::evaluate(expr));
  } catch (const wick::Error& e) {
    return std::string(e.type_name()) + ": " + first_line(e.what());
  } catch (const std::exception& e) {
    return "RuntimeError: " + first_line(e.what());
  }
}

std::string without_addresses(const std::string& s) {
  static const std::regex kAddress("0x[0-9a-fA-F]+");
  return std::regex_replace(s, kAddress, "0x?");
}

// Equal, or equal once wick's operator prefix ("torch.mm: ") is dropped.
bool same_output(const std::string& wick_text, const std::string& torch_text) {
  const std::string w = without_addresses(wick_text);
  const std::string t = without_addresses(torch_text);
  if (w == t) return true;
  static const std::regex kPrefixed(R"(^(\w+): [A-Za-z_][\w.]*: (.*)$)");
  std::smatch m;
  return std::regex_match(w, m, kPrefixed) && m[1].str() + ": " + m[2].str() == t;
}

TEST(Differential, WickEvalPrintsWhatPyTorchPrints) {
  wick::init();
  const std::string path = wick_test::reference_dir() + "/golden/differential.json";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  const nlohmann::json& cases = doc.at("cases");
  ASSERT_GE(cases.size(), 1500u);

  std::vector<std::regex> patterns;
  for (const Divergence& d : kDivergences) patterns.emplace_back(d.pattern);
  std::vector<std::size_t> used(std::size(kDivergences), 0);
  std::size_t same = 0;
  std::size_t documented = 0;
  std::vector<std::string> failures;
  for (const nlohmann::json& c : cases) {
    const std::string expr = c.at("expr").get<std::string>();
    const std::string expected = c.at("torch").get<std::string>();
    const std::string got = wick_output(expr);
    if (same_output(got, expected)) {
      ++same;
      continue;
    }
    bool listed = false;
    for (std::size_t k = 0; k < patterns.size() && !listed; ++k) {
      if (std::regex_match(expr, patterns[k])) {
        ++used[k];
        listed = true;
      }
    }
    if (listed) {
      ++documented;
      continue;
    }
    failures.push_back("[" + c.at("section").get<std::string>() + "] " + expr + "\n  torch: " + expected +
                       "\n  wick:  " + got);
  }
  std::printf("%zu cases: %zu print what PyTorch 1.13 prints (%.1f%%), %zu are documented divergences\n",
              cases.size(), same, 100.0 * static_cast<double>(same) / static_cast<double>(cases.size()),
              documented);
  for (const std::string& f : failures) ADD_FAILURE() << f;
  for (std::size_t k = 0; k < used.size(); ++k) {
    EXPECT_GT(used[k], 0u) << "the divergence '" << kDivergences[k].pattern
                           << "' matches no differing case: remove it from kDivergences and the README";
  }
}

}  // namespace
