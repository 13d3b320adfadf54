// dispatch/composite/stft_ops.cpp - torch.stft and torch.istft, composed of pad, Tensor.unfold, the DFTs and index_add.
/// \file
/// Note [stft and istft]
/// stft frames the signal with Tensor.unfold (a view: frame f is samples
/// f * hop .. f * hop + n_fft - 1 of the signal, padded by n_fft // 2 on both
/// sides when `center`), multiplies each frame by the window (zero-padded
/// to n_fft on both sides when win_length < n_fft) and takes the DFT of
/// each frame along the last dim: rfft for a real signal and window (the
/// onesided default), fft otherwise; `normalized` is the DFT's "ortho" norm.
/// The result is [batch,] frequencies, frames.
///
/// istft inverts it by overlap-add: the inverse DFT of each frame (irfft of
/// a onesided input), multiplied by the window, is added into the signal at
/// f * hop (index_add over the positions f * hop + k), and the sum is divided
/// by the window's squares added up the same way (the "envelope"), which
/// must not vanish anywhere in the kept part (PyTorch's check). `center`
/// cuts the n_fft // 2 samples stft added on each side; `length` cuts the
/// result, or pads it with zeros, to that length.
///
/// Both are compositions of differentiable operators, so their gradients
/// (first and higher order, reverse and forward mode) are those operators',
/// and every backend with those operators runs them. The argument checks
/// come first, with PyTorch 1.13's messages: they name the call as PyTorch
/// prints it ("stft(torch.FloatTensor[14], n_fft=4, ...) : ...").
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;

// "torch.FloatTensor[2, 14]" (a signal) or "torch.FloatTensor{[4]}" (a window).
std::string described(const Tensor& t, bool braced) {
  std::ostringstream s;
  s << legacy_type_name(t.dtype(), t.device()) << (braced ? "{[" : "[");
  for (I64 d = 0; d < t.dim(); ++d) s << (d > 0 ? ", " : "") << t.size(d);
  s << (braced ? "]}" : "]");
  return s.str();
}

std::string optional_flag(std::optional<bool> b) { return b ? std::to_string(static_cast<int>(*b)) : "None"; }
std::string optional_int(std::optional<I64> v) { return v ? std::to_string(*v) : "None"; }
std::string window_text(const std::optional<Tensor>& w) { return w ? described(*w, true) : "None"; }

// The window as n_fft samples: ones when none is given, centred with zeros
// on both sides when shorter.
std::optional<Tensor> full_window(const std::optional<Tensor>& window, I64 win_length, I64 n_fft,
                                  const Tensor& like) {
  if (!window && win_length == n_fft) return std::nullopt;
  const Tensor w = window ? *window : ones({win_length}, to_real_dtype(like.dtype()), like.device());
  if (win_length == n_fft) return w;
  const I64 left = (n_fft - win_length) / 2;
  return nn::functional::pad(w, {left, n_fft - win_length - left});
}

Tensor stft_kernel(const Tensor& input, I64 n_fft, std::optional<I64> hop_length, std::optional<I64> win_length,
                   const std::optional<Tensor>& window, bool center, std::string_view pad_mode, bool normalized,
                   std::optional<bool> onesided, std::optional<bool> return_complex) {
  const I64 hop = hop_length.value_or(n_fft / 4);
  const I64 win = win_length.value_or(n_fft);
  Tensor x = input;
  if (center && input.dim() <= 3) {
    // PyTorch pads integers and bools only with zeros: reflect and replicate
    // refuse them there, before stft's own dtype check.
    if (!is_floating(input.dtype()) && !is_complex(input.dtype()) && (pad_mode == "reflect" || pad_mode == "replicate")) {
      throw RuntimeError(detail::str_cat("torch.stft: \"", pad_mode == "reflect" ? "reflection" : "replication",
                                         "_pad1d\" not implemented for '", type_title(input.dtype()), "'"));
    }
    // As PyTorch's Python stft: padded as a [1, 1, L] (or [1, B, L]) batch.
    DimVector extended(static_cast<std::size_t>(3 - input.dim()), 1);
    for (const I64 s : input.sizes()) extended.push_back(s);
    const Tensor padded = nn::functional::pad(input.view(extended), {n_fft / 2, n_fft / 2}, pad_mode);
    DimVector kept;
    for (I64 d = padded.dim() - input.dim(); d < padded.dim(); ++d) kept.push_back(padded.size(d));
    x = padded.view(kept);
  }
  const auto fail = [&](const std::string& what) {
    throw RuntimeError(detail::str_cat("torch.stft: stft(", described(x, false), ", n_fft=", n_fft,
                                       ", hop_length=", hop, ", win_length=", win, ", window=", window_text(window),
                                       ", normalized=", static_cast<int>(normalized), ", onesided=",
                                       optional_flag(onesided), ", return_complex=", optional_flag(return_complex),
                                       ") : ", what));
  };
  if (x.dim() != 1 && x.dim() != 2) fail("expected a 1D or 2D tensor");
  if (!is_floating(x.dtype()) && !is_complex(x.dtype())) fail("expected a tensor of floating point or complex values");
  const I64 len = x.size(-1);
  if (n_fft <= 0 || n_fft > len) fail(detail::str_cat("expected 0 < n_fft < ", len, ", but got n_fft=", n_fft));
  if (hop <= 0) fail(detail::str_cat("expected hop_length > 0, but got hop_length=", hop));
  if (win <= 0 || win > n_fft) fail(detail::str_cat("expected 0 < win_length <= n_fft, but got win_length=", win));
  if (window && (window->dim() != 1 || window->size(0) != win)) {
    fail(detail::str_cat("expected a 1D window tensor of size equal to win_length=", win,
                         ", but got window with size ", format_shape(window->sizes())));
  }
  const bool complex_in = is_complex(x.dtype()) || (window && is_complex(window->dtype()));
  const bool one_sided = onesided.value_or(!complex_in);
  WICK_CHECK(!(one_sided && complex_in), RuntimeError,
             "torch.stft: Cannot have onesided output if window or input is complex");
  Tensor frames = x.unfold(-1, n_fft, hop);  // [B,] frames, n_fft
  if (const std::optional<Tensor> w = full_window(window, win, n_fft, x)) frames = frames.mul(*w);
  const std::string_view norm = normalized ? "ortho" : "backward";
  const Tensor spectrum =
      (one_sided ? fft::rfft(frames, std::nullopt, -1, norm) : fft::fft(frames, std::nullopt, -1, norm))
          .transpose(-1, -2);
  return return_complex.value_or(complex_in) ? spectrum : view_as_real(spectrum);
}

Tensor istft_kernel(const Tensor& input, I64 n_fft, std::optional<I64> hop_length, std::optional<I64> win_length,
                    const std::optional<Tensor>& window, bool center, bool normalized, std::optional<bool> onesided,
                    std::optional<I64> length, bool return_complex) {
  const I64 hop = hop_length.value_or(n_fft / 4);
  const I64 win = win_length.value_or(n_fft);
  // PyTorch 1.13 still takes view_as_real's form, with a deprecation warning.
  const Tensor spectrum = is_complex(input.dtype()) ? input : view_as_complex(input);
  const auto message = [&](std::string_view separator, const std::string& what) {
    return detail::str_cat("torch.istft: istft(", described(spectrum, false), ", n_fft=", n_fft,
                           ", hop_length=", hop, ", win_length=", win, ", window=", window_text(window),
                           ", center=", static_cast<int>(center), ", normalized=", static_cast<int>(normalized),
                           ", onesided=", optional_flag(onesided), ", length=", optional_int(length),
                           ", return_complex=", static_cast<int>(return_complex), ")", separator, what);
  };
  const auto fail = [&](const std::string& what) { throw RuntimeError(message(" : ", what)); };
  if (spectrum.numel() == 0) fail("input tensor cannot be empty.");
  if (spectrum.dim() != 2 && spectrum.dim() != 3) {
    fail(detail::str_cat("expected a tensor with 3 or 4 dimensions, but got ", spectrum.dim() + 1));
  }
  const Tensor batched = spectrum.dim() == 2 ? spectrum.unsqueeze(0) : spectrum;
  const I64 n_frames = batched.size(-1);
  const I64 fft_size = batched.size(-2);
  if (hop <= 0 || hop > win) fail("expected 0 < hop_length <= win_length");
  if (win <= 0 || win > n_fft) fail("expected 0 < win_length <= n_fft");
  const bool one_sided = onesided.value_or(fft_size != n_fft);
  if (one_sided && n_fft / 2 + 1 != fft_size) {
    fail(detail::str_cat("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 "
                         "+ 1 when onsided=True, but got ", fft_size));
  }
  if (!one_sided && n_fft != fft_size) {
    fail(detail::str_cat("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                         "onsided=False, but got ", fft_size));
  }
  if (window && (window->dim() != 1 || window->size(0) != win)) {
    fail("Invalid window shape. window has to be 1D and length of `win_length`");
  }
  WICK_CHECK(return_complex || !window || !is_complex(window->dtype()), RuntimeError,
             "torch.istft: Complex windows are incompatible with return_complex=False");
  WICK_CHECK(!(return_complex && one_sided), RuntimeError,
             "torch.istft: Cannot have onesided output if window or input is complex");

  const std::string_view norm = normalized ? "ortho" : "backward";
  const Tensor by_frame = batched.transpose(1, 2);  // B, frames, frequencies
  Tensor frames = return_complex ? fft::ifft(by_frame, std::nullopt, -1, norm)
                  : one_sided    ? fft::irfft(by_frame, n_fft, -1, norm)
                                 : real(fft::ifft(by_frame, std::nullopt, -1, norm));
  const std::optional<Tensor> w = full_window(window, win, n_fft, frames);
  if (w) frames = frames.mul(*w);

  // Overlap-add: sample k of frame f goes to f * hop + k.
  const I64 expected = n_fft + hop * (n_frames - 1);
  const Device device = batched.device();
  const Tensor positions =
      arange(0, n_frames, 1, ScalarType::kInt64, device).mul(hop).unsqueeze(1).add(
          arange(0, n_fft, 1, ScalarType::kInt64, device)).reshape({-1});
  const I64 batch = batched.size(0);
  Tensor y = zeros({batch, expected}, frames.dtype(), device)
                 .index_add(1, positions, frames.reshape({batch, -1}));
  const Tensor squares = w ? w->mul(*w) : ones({n_fft}, to_real_dtype(frames.dtype()), device);
  Tensor envelope = zeros({expected}, squares.dtype(), device).index_add(0, positions, squares.repeat({n_frames}));

  const I64 start = center ? n_fft / 2 : 0;
  const I64 end = length ? start + *length : (center ? expected - n_fft / 2 : expected);
  const I64 kept_end = std::min(end, expected);
  y = aten::slice(y, 1, start, kept_end, 1);
  envelope = aten::slice(envelope, 0, start, kept_end, 1);
  if (!device.is_meta() && envelope.numel() > 0) {
    const bool vanishes = envelope.abs().lt(1e-11).any().item<bool>();
    if (vanishes) throw RuntimeError(message(" ", "window overlap add min: 1"));
  }
  y = y.div(envelope);
  if (spectrum.dim() == 2) y = y.squeeze(0);
  if (end > expected) y = nn::functional::pad(y, {0, end - expected});
  return y;
}

}  // namespace

void register_stft_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("stft", &stft_kernel).impl("istft", &istft_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
