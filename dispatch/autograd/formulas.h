// dispatch/autograd/formulas.h - private: the built-in autograd formulas.
/// \file
/// Each operator's formula is an `Autograd` kernel (see support.h for the
/// pattern). Registered by `wick::init()` (plugins/loader/startup.cpp).
#pragma once

#include <memory>
#include <vector>

#include "wick/library.h"

namespace wick::autograd {

// Each adds its registration blocks to `out`.
void register_autograd_elementwise(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_unary(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_shape(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_linalg(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_nn(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_norm(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_loss(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_index(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_reduce(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_scan(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_conv(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_lapack(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_special(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_fft(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick::autograd
