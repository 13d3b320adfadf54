// backends/cpu/interpolate_ops.cpp - aten.interpolate_taps (one pass of F.interpolate, a weighted gather along one dim) and its backward.
/// \file
/// F.interpolate computes one spatial dim at a time (Note [Interpolation
/// one dim at a time] in dispatch/composite/interpolate_ops.cpp); each pass
/// is this kernel. Seen as [outer, in, inner] (the dims before `dim`, `dim`,
/// the dims after it), output row i of each outer slice is the sum over k
/// of input row index[k][i] times weight[k][i], each product and partial
/// sum rounded to the dtype, as index_select, mul and add would give, in
/// one pass over the output instead of five. The last dim's pass (inner
/// 1) reads its taps element by element; the others scale whole rows,
/// which vectorise. Threads split the output rows.
///
/// The backward adds each gradient row, times its weight, to the input
/// rows it was read from; threads split the outer slices, whose input rows
/// no other slice touches.
#include <algorithm>
#include <cstring>
#include <optional>

#include <wick/meta.h>
#include <wick/meta_index.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using I64 = std::int64_t;

// The operands of one pass, as flat arrays (contiguous): out [outer, n,
// inner] read from in [outer, rows_in, inner]. The backward's are the other
// way round: out the input's gradient (rows_in rows a slice), in the
// output's (n rows).
template <typename S>
struct TapPass {
  S* out;
  const S* in;
  const I64* index;   // [taps, n]
  const S* weight;    // [taps, n]; null: one tap of weight 1 (the backward of nearest)
  I64 taps, n, rows_in, inner;
};

// Output rows [begin, end) of all outer slices, row r = outer * n + i.
template <typename S>
[[gnu::always_inline]] inline void tap_rows(const TapPass<S>& p, I64 begin, I64 end) {
  using C = compute_type_t<S>;
  auto product = [](S x, S w) { return static_cast<S>(C(x) * C(w)); };
  auto sum = [](S a, S b) { return static_cast<S>(C(a) + C(b)); };
  I64 r = begin;
  while (r < end) {
    const I64 outer = r / p.n;
    const I64 first = r - outer * p.n;
    const I64 last = std::min(p.n, end - outer * p.n);
    const S* src = p.in + outer * p.rows_in * p.inner;
    S* dst = p.out + outer * p.n * p.inner;
    if (p.inner == 1) {
      for (I64 i = first; i < last; ++i) {
        S acc = product(src[p.index[i]], p.weight[i]);
        for (I64 k = 1; k < p.taps; ++k) acc = sum(acc, product(src[p.index[k * p.n + i]], p.weight[k * p.n + i]));
        dst[i] = acc;
      }
    } else {
      for (I64 i = first; i < last; ++i) {
        S* o = dst + i * p.inner;
        const S* row = src + p.index[i] * p.inner;
        const S w0 = p.weight[i];
        for (I64 j = 0; j < p.inner; ++j) o[j] = product(row[j], w0);
        for (I64 k = 1; k < p.taps; ++k) {
          const S* rk = src + p.index[k * p.n + i] * p.inner;
          const S wk = p.weight[k * p.n + i];
          for (I64 j = 0; j < p.inner; ++j) o[j] = sum(o[j], product(rk[j], wk));
        }
      }
    }
    r = outer * p.n + last;
  }
}

// Outer slices [begin, end) of the backward: out[o, index[k][i], :] +=
// grad[o, i, :] * weight[k][i] (weight null: 1), out zeroed.
template <typename S>
[[gnu::always_inline]] inline void tap_rows_back(const TapPass<S>& p, I64 begin, I64 end) {
  using C = compute_type_t<S>;
  for (I64 o = begin; o < end; ++o) {
    const S* g = p.in + o * p.n * p.inner;
    S* dst = p.out + o * p.rows_in * p.inner;
    for (I64 i = 0; i < p.n; ++i) {
      const S* row = g + i * p.inner;
      for (I64 k = 0; k < p.taps; ++k) {
        S* target = dst + p.index[k * p.n + i] * p.inner;
        if (p.weight == nullptr) {
          for (I64 j = 0; j < p.inner; ++j) target[j] = static_cast<S>(C(target[j]) + C(row[j]));
        } else {
          const C w = C(p.weight[k * p.n + i]);
          for (I64 j = 0; j < p.inner; ++j) target[j] = static_cast<S>(C(target[j]) + C(row[j]) * w);
        }
      }
    }
  }
}

// Either pass's loop in a baseline and an AVX2 copy (Note [Vector code
// paths] in loops.h), run over [0, count) in chunks of at least `grain`.
template <bool kBack, typename S>
[[gnu::always_inline]] inline void pass_rows(const TapPass<S>& p, I64 begin, I64 end) {
  if constexpr (kBack) {
    tap_rows_back(p, begin, end);
  } else {
    tap_rows(p, begin, end);
  }
}
template <bool kBack, typename S>
void pass_rows_base(const TapPass<S>& p, I64 begin, I64 end) {
  pass_rows<kBack>(p, begin, end);
}
template <bool kBack, typename S>
[[gnu::target("avx2,fma")]] void pass_rows_avx2(const TapPass<S>& p, I64 begin, I64 end) {
  pass_rows<kBack>(p, begin, end);
}
template <bool kBack, typename S>
void run_pass(const TapPass<S>& p, I64 count, I64 grain) {
  const bool avx2 = kAvx2Copies && cpu_has_avx2();
  parallel_for(count, grain, [&](I64 begin, I64 end) {
    avx2 ? pass_rows_avx2<kBack>(p, begin, end) : pass_rows_base<kBack>(p, begin, end);
  });
}

// `t` seen as [outer, size at d, inner].
struct Slices {
  I64 outer = 1;
  I64 inner = 1;
};
Slices slices_of(const Tensor& t, I64 d) {
  Slices s;
  for (I64 k = 0; k < d; ++k) s.outer *= t.sizes()[k];
  for (I64 k = d + 1; k < t.dim(); ++k) s.inner *= t.sizes()[k];
  return s;
}

// Every index in [0, size), before anything is written.
const I64* checked_taps(const char* op, const Tensor& idx, I64 d, I64 size) {
  const I64* ip = idx.data_ptr<I64>();
  for (I64 k = 0; k < idx.numel(); ++k)
    WICK_CHECK(ip[k] >= 0 && ip[k] < size, IndexError, op, ": index ", ip[k], " is out of bounds for dimension ", d,
               " with size ", size);
  return ip;
}

}  // namespace

void interpolate_taps(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index,
                      const std::optional<Tensor>& weight) {
  const char* op = "aten.interpolate_taps";
  const I64 d = m.dim;
  const Tensor idx = index.contiguous();
  const I64 rows_in = self.sizes()[d];
  const I64* ip = checked_taps(op, idx, d, rows_in);
  if (out.numel() == 0) return;
  const Tensor src = self.contiguous();
  const Slices slices = slices_of(out, d);
  const I64 outer = slices.outer;
  const I64 inner = slices.inner;
  const I64 n = idx.sizes()[1];
  const I64 rows = outer * n;
  const I64 grain = std::max<I64>(1, kGrainSize / inner);
  if (!weight) {  // nearest: one tap, the rows copied
    const auto row = static_cast<std::size_t>(inner) * itemsize(self.dtype());
    const auto* in = static_cast<const char*>(src.data_ptr());
    auto* o = static_cast<char*>(out.data_ptr());
    parallel_for(rows, grain, [&](I64 begin, I64 end) {
      for (I64 r = begin; r < end; ++r) {
        const I64 slice = r / n;
        std::memcpy(o + static_cast<std::size_t>(r) * row,
                    in + static_cast<std::size_t>(slice * rows_in + ip[r - slice * n]) * row, row);
      }
    });
    return;
  }
  const Tensor w = weight->contiguous();
  visit_dtype<dtypes::kFloating>(self.dtype(), "upsample_cpu", [&](auto tag) {
    using S = decltype(tag);
    const TapPass<S> p{static_cast<S*>(out.data_ptr()), static_cast<const S*>(src.data_ptr()), ip,
                       static_cast<const S*>(w.data_ptr()), idx.sizes()[0], n, rows_in, inner};
    run_pass<false>(p, rows, grain);
  });
}

void interpolate_taps_backward(const DimMeta& m, const Tensor& out, const Tensor& grad_output, I64 /*dim*/,
                               const Tensor& index, const std::optional<Tensor>& weight, I64 input_size) {
  const char* op = "aten.interpolate_taps_backward";
  const I64 d = m.dim;
  const Tensor idx = index.contiguous();
  const I64* ip = checked_taps(op, idx, d, input_size);
  if (out.numel() == 0) return;
  Tensor(out).zero_();
  const Tensor g = grad_output.contiguous();
  const Slices slices = slices_of(out, d);
  const I64 outer = slices.outer;
  const I64 inner = slices.inner;
  const I64 n = idx.sizes()[1];
  const Tensor w = weight ? weight->contiguous() : Tensor();
  visit_dtype<dtypes::kFloating>(out.dtype(), "upsample_backward_cpu", [&](auto tag) {
    using S = decltype(tag);
    const TapPass<S> p{static_cast<S*>(out.data_ptr()), static_cast<const S*>(g.data_ptr()), ip,
                       w.defined() ? static_cast<const S*>(w.data_ptr()) : nullptr, idx.sizes()[0], n, input_size,
                       inner};
    run_pass<true>(p, outer, std::max<I64>(1, kGrainSize / std::max<I64>(1, n * inner)));
  });
}

}  // namespace wick::cpu
