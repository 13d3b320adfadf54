// core/distributed/collectives.cpp - the torch.distributed operators' kernels, and the C++ API over them.
/// \file
/// Each kernel checks its arguments on the calling thread (errors name the
/// operator and the argument, as PyTorch's), stages strided tensors through
/// contiguous ones, and hands the engine's work to the group's thread
/// (Note [Collectives run in order], Note [What an engine sees]).
#include "core/distributed/collectives.h"

#include <numeric>

#include "core/distributed/process_group_internal.h"
#include "wick/checked.h"
#include "wick/ops.h"

namespace wick::distributed {

namespace {

constexpr const char* kPrefix = "torch.distributed.";

/// What a collective works on: the tensor itself when contiguous, else a
/// contiguous copy written back when the collective is done.
struct Staged {
  Tensor user;
  Tensor work;
  static Staged of(const Tensor& t) { return {t, t.is_contiguous() ? t : t.contiguous()}; }
  void write_back() const {
    Tensor target = user;
    if (!work.is_same(user)) target.copy_(work);
    target.bump_version();
  }
};

ReduceOp reduce_op_of(const Value& op, const char* name) {
  if (op.is_string()) return reduce_op_from_name(op.to_string());
  if (op.is_int()) {
    const std::int64_t i = op.to_int();
    WICK_CHECK(i >= 0 && i < 8, ValueError, name, "(): argument 'op' is not a ReduceOp: ", i);
    return static_cast<ReduceOp>(i);
  }
  throw TypeError(std::string(name) + "(): argument 'op' must be a ReduceOp name (str), not " + op.type_name());
}

void check_tensor(const Tensor& t, const char* name, const char* arg) {
  WICK_CHECK(t.defined(), ValueError, name, "(): argument '", arg, "' is an undefined tensor");
  WICK_CHECK(!t.device().is_meta(), ValueError, name, "(): argument '", arg, "' is on the meta device, which has no data to send");
}

void check_dtype(Engine& e, const Tensor& t, const char* name, std::optional<ReduceOp> op, int size) {
  WICK_CHECK(e.supports(t.dtype()), TypeError, name, "(): the engine of this group does not support ", dtype_name(t.dtype()),
             " tensors");
  if (!op) return;
  if (*op == ReduceOp::kAvg) {
    WICK_CHECK(is_floating(t.dtype()) || is_complex(t.dtype()), ValueError, name,
               "(): ReduceOp.AVG needs a floating-point tensor, got ", dtype_name(t.dtype()));
    return;
  }
  WICK_CHECK(e.supports(*op, t.dtype()), ValueError, name, "(): ReduceOp.", reduce_op_name(*op), " is not supported for ",
             dtype_name(t.dtype()), " tensors");
  (void)size;
}

/// The group rank of global rank `r` (an argument called `arg`).
int group_rank_of(const ProcessGroup& g, std::int64_t r, const char* name, const char* arg) {
  const int gr = r >= 0 && r <= std::numeric_limits<int>::max() ? g.group_rank(static_cast<int>(r)) : -1;
  WICK_CHECK(gr >= 0, ValueError, name, "(): argument '", arg, "': the global rank ", r, " is not part of the group '", g.name(),
             "'");
  return gr;
}

void check_like(const Tensor& t, const Tensor& like, const char* name, const char* arg, std::size_t i) {
  check_tensor(t, name, arg);
  WICK_CHECK(t.dtype() == like.dtype(), TypeError, name, "(): ", arg, "[", i, "] has dtype ", dtype_name(t.dtype()),
             ", expected ", dtype_name(like.dtype()), " like the other tensors");
  WICK_CHECK(t.device() == like.device(), ValueError, name, "(): ", arg, "[", i, "] is on ", t.device().str(),
             ", expected ", like.device().str());
  WICK_CHECK(t.numel() == like.numel(), ValueError, name, "(): ", arg, "[", i, "] has ", t.numel(), " elements, expected ",
             like.numel(), " (the size of every rank's tensor must match)");
}

void check_list_size(const std::vector<Tensor>& list, int size, const char* name, const char* arg) {
  WICK_CHECK(static_cast<std::int64_t>(list.size()) == size, ValueError, name, "(): argument '", arg, "' must hold one tensor per rank of the group (",
             size, "), got ", list.size());
}

/// One contiguous 1-D tensor holding `list`'s tensors in order.
Tensor flatten(const std::vector<Tensor>& list) {
  std::vector<Tensor> flat;
  flat.reserve(list.size());
  for (const auto& t : list) flat.push_back(t.reshape({-1}));
  return cat(flat);
}

/// Copies consecutive chunks of 1-D `flat` into `list`'s tensors.
void unflatten_into(const Tensor& flat, const std::vector<Tensor>& list) {
  std::int64_t at = 0;
  for (Tensor t : list) {
    const std::int64_t n = t.numel();
    t.copy_(flat.narrow(0, at, n).view(t.sizes()));
    t.bump_version();
    at = checked_add(at, n, "torch.distributed");
  }
}

/// "8 float32 elements": a tensor as a call description names it (Note
/// [Call tags]); ranks may pass different shapes of one size, as in PyTorch.
std::string desc(const Tensor& t) {
  if (!t.defined()) return "None";
  return std::to_string(t.numel()) + " " + std::string(dtype_name(t.dtype())) + " elements";
}

Value finish(const std::shared_ptr<ProcessGroup>& g, const std::string& name, const std::string& call,
             std::function<std::vector<Tensor>()> body, bool async_op) {
  if (async_op) return Value(std::static_pointer_cast<Object>(g->enqueue(name, call, std::move(body))));
  g->run(name, call, std::move(body));
  return {};
}

DeviceType device_of(const Tensor& t) { return t.device().type(); }

// --- the kernels -----------------------------------------------------------------------

Value all_reduce_kernel(const Tensor& tensor, const Value& op, const Value& group, bool async_op) {
  const char* name = "all_reduce";
  auto g = resolve_group(group, name);
  const ReduceOp rop = reduce_op_of(op, name);
  check_tensor(tensor, name, "tensor");
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, rop, g->size());
  const Staged s = Staged::of(tensor);
  return finish(
      g, std::string(kPrefix) + name, desc(tensor) + ", op=" + reduce_op_name(rop),
      [s, rop, &e, size = g->size()] {
        e.all_reduce(s.work, rop == ReduceOp::kAvg ? ReduceOp::kSum : rop);
        if (rop == ReduceOp::kAvg) Tensor(s.work).div_(Scalar(static_cast<double>(size)));
        s.write_back();
        return std::vector<Tensor>{s.user};
      },
      async_op);
}

Value broadcast_kernel(const Tensor& tensor, std::int64_t src, const Value& group, bool async_op) {
  const char* name = "broadcast";
  auto g = resolve_group(group, name);
  check_tensor(tensor, name, "tensor");
  const int root = group_rank_of(*g, src, name, "src");
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, std::nullopt, g->size());
  const Staged s = Staged::of(tensor);
  return finish(
      g, std::string(kPrefix) + name, desc(tensor) + ", src=" + std::to_string(src),
      [s, root, &e] {
        e.broadcast(s.work, root);
        s.write_back();
        return std::vector<Tensor>{s.user};
      },
      async_op);
}

Value reduce_kernel(const Tensor& tensor, std::int64_t dst, const Value& op, const Value& group, bool async_op) {
  const char* name = "reduce";
  auto g = resolve_group(group, name);
  const ReduceOp rop = reduce_op_of(op, name);
  check_tensor(tensor, name, "tensor");
  const int root = group_rank_of(*g, dst, name, "dst");
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, rop, g->size());
  const Staged s = Staged::of(tensor);
  const bool is_root = root == g->rank();
  return finish(
      g, std::string(kPrefix) + name, desc(tensor) + ", dst=" + std::to_string(dst) + ", op=" + reduce_op_name(rop),
      [s, rop, root, is_root, &e, size = g->size()] {
        e.reduce(s.work, root, rop == ReduceOp::kAvg ? ReduceOp::kSum : rop);
        if (is_root && rop == ReduceOp::kAvg) Tensor(s.work).div_(Scalar(static_cast<double>(size)));
        s.write_back();
        return std::vector<Tensor>{s.user};
      },
      async_op);
}

Value all_gather_into_tensor_kernel(const Tensor& output, const Tensor& input, const Value& group, bool async_op) {
  const char* name = "all_gather_into_tensor";
  auto g = resolve_group(group, name);
  check_tensor(output, name, "output_tensor");
  check_tensor(input, name, "input_tensor");
  WICK_CHECK(output.dtype() == input.dtype(), TypeError, name, "(): output_tensor and input_tensor must have one dtype, got ",
             dtype_name(output.dtype()), " and ", dtype_name(input.dtype()));
  WICK_CHECK(output.numel() == checked_mul(input.numel(), static_cast<std::int64_t>(g->size()), "torch.distributed"), ValueError, name,
             "(): output tensor size must be equal to world_size times input tensor size (", g->size(), " * ", input.numel(),
             "), got ", output.numel());
  Engine& e = g->engine(device_of(input));
  check_dtype(e, input, name, std::nullopt, g->size());
  const Staged out = Staged::of(output);
  const Tensor in = input.contiguous();
  return finish(
      g, std::string(kPrefix) + name, desc(output) + ", " + desc(input),
      [out, in, &e] {
        e.all_gather(out.work, in);
        out.write_back();
        return std::vector<Tensor>{out.user};
      },
      async_op);
}

Value all_gather_kernel(const std::vector<Tensor>& list, const Tensor& tensor, const Value& group, bool async_op) {
  const char* name = "all_gather";
  auto g = resolve_group(group, name);
  check_tensor(tensor, name, "tensor");
  check_list_size(list, g->size(), name, "tensor_list");
  for (std::size_t i = 0; i < list.size(); ++i) check_like(list[i], tensor, name, "tensor_list", i);
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, std::nullopt, g->size());
  const Tensor in = tensor.contiguous();
  const Tensor flat = empty({checked_mul(tensor.numel(), static_cast<std::int64_t>(g->size()), "torch.distributed")}, tensor.options());
  return finish(
      g, std::string(kPrefix) + name, desc(tensor),
      [list, in, flat, &e] {
        e.all_gather(flat, in);
        unflatten_into(flat, list);
        return list;
      },
      async_op);
}

Value gather_kernel(const Tensor& tensor, const std::vector<Tensor>& list, std::int64_t dst, const Value& group, bool async_op) {
  const char* name = "gather";
  auto g = resolve_group(group, name);
  check_tensor(tensor, name, "tensor");
  const int root = group_rank_of(*g, dst, name, "dst");
  const bool is_root = root == g->rank();
  if (is_root) {
    check_list_size(list, g->size(), name, "gather_list");
    for (std::size_t i = 0; i < list.size(); ++i) check_like(list[i], tensor, name, "gather_list", i);
  } else {
    WICK_CHECK(list.empty(), ValueError, name, "(): Argument ``gather_list`` must NOT be specified on non-destination ranks.");
  }
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, std::nullopt, g->size());
  const Tensor in = tensor.contiguous();
  const Tensor flat =
      is_root ? empty({checked_mul(tensor.numel(), static_cast<std::int64_t>(g->size()), "torch.distributed")}, tensor.options()) : Tensor();
  return finish(
      g, std::string(kPrefix) + name, desc(tensor) + ", dst=" + std::to_string(dst),
      [list, in, flat, root, is_root, &e] {
        e.gather(flat, in, root);
        if (is_root) unflatten_into(flat, list);
        return list;
      },
      async_op);
}

Value scatter_kernel(const Tensor& tensor, const std::vector<Tensor>& list, std::int64_t src, const Value& group, bool async_op) {
  const char* name = "scatter";
  auto g = resolve_group(group, name);
  check_tensor(tensor, name, "tensor");
  const int root = group_rank_of(*g, src, name, "src");
  const bool is_root = root == g->rank();
  if (is_root) {
    check_list_size(list, g->size(), name, "scatter_list");
    for (std::size_t i = 0; i < list.size(); ++i) check_like(list[i], tensor, name, "scatter_list", i);
  } else {
    WICK_CHECK(list.empty(), ValueError, name, "(): Argument ``scatter_list`` must NOT be specified on non-source ranks.");
  }
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, std::nullopt, g->size());
  const Staged out = Staged::of(tensor);
  const Tensor flat = is_root ? flatten(list) : Tensor();
  return finish(
      g, std::string(kPrefix) + name, desc(tensor) + ", src=" + std::to_string(src),
      [out, flat, root, &e] {
        e.scatter(out.work, flat, root);
        out.write_back();
        return std::vector<Tensor>{out.user};
      },
      async_op);
}

Value reduce_scatter_kernel(const Tensor& output, const std::vector<Tensor>& list, const Value& op, const Value& group,
                            bool async_op) {
  const char* name = "reduce_scatter";
  auto g = resolve_group(group, name);
  const ReduceOp rop = reduce_op_of(op, name);
  check_tensor(output, name, "output");
  check_list_size(list, g->size(), name, "input_list");
  for (std::size_t i = 0; i < list.size(); ++i) check_like(list[i], output, name, "input_list", i);
  Engine& e = g->engine(device_of(output));
  check_dtype(e, output, name, rop, g->size());
  const Staged out = Staged::of(output);
  const Tensor flat = flatten(list);
  return finish(
      g, std::string(kPrefix) + name, desc(output) + ", op=" + reduce_op_name(rop),
      [out, flat, rop, &e, size = g->size()] {
        e.reduce_scatter(out.work, flat, rop == ReduceOp::kAvg ? ReduceOp::kSum : rop);
        if (rop == ReduceOp::kAvg) Tensor(out.work).div_(Scalar(static_cast<double>(size)));
        out.write_back();
        return std::vector<Tensor>{out.user};
      },
      async_op);
}

Value all_to_all_kernel(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, const Value& group, bool async_op) {
  const char* name = "all_to_all";
  auto g = resolve_group(group, name);
  check_list_size(outputs, g->size(), name, "output_tensor_list");
  check_list_size(inputs, g->size(), name, "input_tensor_list");
  std::vector<std::int64_t> out_counts;
  std::vector<std::int64_t> in_counts;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_tensor(inputs[i], name, "input_tensor_list");
    WICK_CHECK(inputs[i].dtype() == inputs[0].dtype() && outputs[i].dtype() == inputs[0].dtype(), TypeError, name,
               "(): every tensor must have one dtype, got ", dtype_name(inputs[i].dtype()), " and ", dtype_name(outputs[i].dtype()));
    check_tensor(outputs[i], name, "output_tensor_list");
    out_counts.push_back(outputs[i].numel());
    in_counts.push_back(inputs[i].numel());
  }
  Engine& e = g->engine(device_of(inputs[0]));
  check_dtype(e, inputs[0], name, std::nullopt, g->size());
  const Tensor in = flatten(inputs);
  std::int64_t total = 0;
  for (const auto n : out_counts) total = checked_add(total, n, "torch.distributed.all_to_all");
  const Tensor out = empty({total}, inputs[0].options());
  return finish(
      g, std::string(kPrefix) + name, std::to_string(inputs.size()) + " tensors of " + std::string(dtype_name(inputs[0].dtype())),
      [outputs, in, out, out_counts, in_counts, &e] {
        e.all_to_all(out, in, out_counts, in_counts);
        unflatten_into(out, outputs);
        return outputs;
      },
      async_op);
}

std::vector<std::int64_t> split_counts(const Tensor& t, std::optional<IntArrayRef> splits, int size, const char* name,
                                       const char* arg) {
  const std::int64_t rows = t.dim() == 0 ? 1 : t.size(0);
  const std::int64_t row = rows == 0 ? 0 : t.numel() / rows;
  std::vector<std::int64_t> out;
  if (!splits || splits->empty()) {
    WICK_CHECK(rows % size == 0, ValueError, name, "(): the first dimension of '", arg, "' (", rows,
               ") must divide evenly among the ", size, " ranks");
    out.assign(static_cast<std::size_t>(size), checked_mul(rows / size, row, name));
    return out;
  }
  WICK_CHECK(static_cast<std::int64_t>(splits->size()) == size, ValueError, name, "(): ", arg, "_split_sizes must have ",
             size, " entries, got ", splits->size());
  std::int64_t sum = 0;
  for (const std::int64_t s : *splits) {
    WICK_CHECK(s >= 0, ValueError, name, "(): split sizes must be non-negative, got ", s);
    sum = checked_add(sum, s, name);
    out.push_back(checked_mul(s, row, name));
  }
  WICK_CHECK(sum == rows, ValueError, name, "(): ", arg, "_split_sizes add up to ", sum, ", but its first dimension is ", rows);
  return out;
}

Value all_to_all_single_kernel(const Tensor& output, const Tensor& input, std::optional<IntArrayRef> output_splits,
                               std::optional<IntArrayRef> input_splits, const Value& group, bool async_op) {
  const char* name = "all_to_all_single";
  auto g = resolve_group(group, name);
  check_tensor(output, name, "output");
  check_tensor(input, name, "input");
  WICK_CHECK(output.dtype() == input.dtype(), TypeError, name, "(): output and input must have one dtype");
  const auto out_counts = split_counts(output, output_splits, g->size(), name, "output");
  const auto in_counts = split_counts(input, input_splits, g->size(), name, "input");
  Engine& e = g->engine(device_of(input));
  check_dtype(e, input, name, std::nullopt, g->size());
  const Staged out = Staged::of(output);
  const Tensor in = input.contiguous();
  return finish(
      g, std::string(kPrefix) + name, std::string(dtype_name(input.dtype())),
      [out, in, out_counts, in_counts, &e] {
        e.all_to_all(out.work, in, out_counts, in_counts);
        out.write_back();
        return std::vector<Tensor>{out.user};
      },
      async_op);
}

Value barrier_kernel(const Value& group, bool async_op, std::optional<IntArrayRef> /*device_ids*/) {
  const char* name = "barrier";
  auto g = resolve_group(group, name);
  Engine& e = g->engine(DeviceType::kCPU);
  return finish(
      g, std::string(kPrefix) + name, std::string(),
      [&e] {
        e.barrier();
        return std::vector<Tensor>{};
      },
      async_op);
}

// Point to point: not ordered with the collectives, as in PyTorch; isend and
// irecv run on threads of their own and hand back a Work.

std::shared_ptr<Work> spawn(const std::shared_ptr<ProcessGroup>& g, const std::string& name, std::function<std::vector<Tensor>()> body) {
  auto work = std::make_shared<Work>(name, 0);
  g->impl().run_aside([work, body = std::move(body)] {
    std::vector<Tensor> result;
    std::exception_ptr error;
    try {
      const NoGradGuard no_grad;
      result = body();
    } catch (const std::exception& ex) {
      error = std::make_exception_ptr(DistributedError(work->op_name() + ": " + ex.what()));
    }
    work->finish(std::move(result), error);
  });
  return work;
}

std::function<std::vector<Tensor>()> send_body(const std::shared_ptr<ProcessGroup>& g, const Tensor& tensor, std::int64_t dst,
                                               std::int64_t tag, const char* name) {
  check_tensor(tensor, name, "tensor");
  const int peer = group_rank_of(*g, dst, name, "dst");
  WICK_CHECK(peer != g->rank(), ValueError, name, "(): Invalid destination rank: should not be the same as the rank of the current process.");
  WICK_CHECK(tag >= 0 && tag <= std::numeric_limits<int>::max(), ValueError, name, "(): tag must be in [0, 2^31), got ", tag);
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, std::nullopt, g->size());
  const Tensor in = tensor.contiguous();
  return [in, peer, tag, &e] {
    e.send(in, peer, static_cast<int>(tag));
    return std::vector<Tensor>{};
  };
}

std::function<std::vector<Tensor>()> recv_body(const std::shared_ptr<ProcessGroup>& g, const Tensor& tensor,
                                               std::optional<std::int64_t> src, std::int64_t tag, const char* name,
                                               const std::shared_ptr<int>& sender) {
  check_tensor(tensor, name, "tensor");
  const int peer = src ? group_rank_of(*g, *src, name, "src") : -1;
  WICK_CHECK(peer != g->rank(), ValueError, name, "(): Invalid source rank: should not be the same as the rank of the current process.");
  WICK_CHECK(tag >= 0 && tag <= std::numeric_limits<int>::max(), ValueError, name, "(): tag must be in [0, 2^31), got ", tag);
  Engine& e = g->engine(device_of(tensor));
  check_dtype(e, tensor, name, std::nullopt, g->size());
  const Staged s = Staged::of(tensor);
  return [s, peer, tag, &e, sender, g] {
    const int from = e.recv(s.work, peer, static_cast<int>(tag));
    *sender = g->global_ranks()[static_cast<std::size_t>(from)];
    s.write_back();
    return std::vector<Tensor>{s.user};
  };
}

void send_kernel(const Tensor& tensor, std::int64_t dst, const Value& group, std::int64_t tag) {
  auto g = resolve_group(group, "send");
  const auto body = send_body(g, tensor, dst, tag, "send");
  const NoGradGuard no_grad;
  body();
}

Value recv_kernel(const Tensor& tensor, std::optional<std::int64_t> src, const Value& group, std::int64_t tag) {
  auto g = resolve_group(group, "recv");
  auto sender = std::make_shared<int>(-1);
  const auto body = recv_body(g, tensor, src, tag, "recv", sender);
  const NoGradGuard no_grad;
  body();
  return Value(static_cast<std::int64_t>(*sender));
}

Value isend_kernel(const Tensor& tensor, std::int64_t dst, const Value& group, std::int64_t tag) {
  auto g = resolve_group(group, "isend");
  return Value(std::static_pointer_cast<Object>(spawn(g, "torch.distributed.isend", send_body(g, tensor, dst, tag, "isend"))));
}

Value irecv_kernel(const Tensor& tensor, std::optional<std::int64_t> src, const Value& group, std::int64_t tag) {
  auto g = resolve_group(group, "irecv");
  auto sender = std::make_shared<int>(-1);
  return Value(std::static_pointer_cast<Object>(spawn(g, "torch.distributed.irecv", recv_body(g, tensor, src, tag, "irecv", sender))));
}

// --- the C++ API (wick/distributed.h) ----------------------------------------------------------

Value group_value(const std::shared_ptr<ProcessGroup>& g) {
  return g == nullptr ? Value() : Value(std::static_pointer_cast<Object>(g));
}

WorkHandle work_of(const Value& v) {
  if (!v.is_object()) return nullptr;
  return std::dynamic_pointer_cast<Work>(v.to_object());
}

Value op_value(ReduceOp op) { return Value(std::string(reduce_op_name(op))); }

}  // namespace

WorkHandle all_reduce(Tensor& tensor, const CollectiveOptions& o) {
  return work_of(ops::all_reduce(tensor, op_value(o.op), group_value(o.group), o.async_op));
}
WorkHandle broadcast(Tensor& tensor, int src, const CollectiveOptions& o) {
  return work_of(ops::broadcast(tensor, src, group_value(o.group), o.async_op));
}
WorkHandle reduce(Tensor& tensor, int dst, const CollectiveOptions& o) {
  return work_of(ops::reduce(tensor, dst, op_value(o.op), group_value(o.group), o.async_op));
}
WorkHandle all_gather(std::vector<Tensor>& outputs, const Tensor& tensor, const CollectiveOptions& o) {
  return work_of(ops::all_gather(outputs, tensor, group_value(o.group), o.async_op));
}
WorkHandle all_gather_into_tensor(Tensor& output, const Tensor& tensor, const CollectiveOptions& o) {
  return work_of(ops::all_gather_into_tensor(output, tensor, group_value(o.group), o.async_op));
}
WorkHandle gather(const Tensor& tensor, std::vector<Tensor>& gather_list, int dst, const CollectiveOptions& o) {
  return work_of(ops::gather(tensor, gather_list, dst, group_value(o.group), o.async_op));
}
WorkHandle scatter(Tensor& tensor, const std::vector<Tensor>& scatter_list, int src, const CollectiveOptions& o) {
  return work_of(ops::scatter(tensor, scatter_list, src, group_value(o.group), o.async_op));
}
WorkHandle reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, const CollectiveOptions& o) {
  return work_of(ops::reduce_scatter(output, inputs, op_value(o.op), group_value(o.group), o.async_op));
}
WorkHandle all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, const CollectiveOptions& o) {
  return work_of(ops::all_to_all(outputs, inputs, group_value(o.group), o.async_op));
}
WorkHandle all_to_all_single(Tensor& output, const Tensor& input, const std::vector<std::int64_t>& output_split_sizes,
                             const std::vector<std::int64_t>& input_split_sizes, const CollectiveOptions& o) {
  return work_of(ops::all_to_all_single(output, input, IntArrayRef(output_split_sizes), IntArrayRef(input_split_sizes),
                                        group_value(o.group), o.async_op));
}
WorkHandle barrier(const CollectiveOptions& o) { return work_of(ops::barrier(group_value(o.group), o.async_op)); }
void send(const Tensor& tensor, int dst, const std::shared_ptr<ProcessGroup>& group, int tag) {
  ops::send(tensor, dst, group_value(group), tag);
}
int recv(Tensor& tensor, int src, const std::shared_ptr<ProcessGroup>& group, int tag) {
  const Value v = ops::recv(tensor, src < 0 ? std::nullopt : std::optional<std::int64_t>(src), group_value(group), tag);
  return static_cast<int>(v.to_int());
}
WorkHandle isend(const Tensor& tensor, int dst, const std::shared_ptr<ProcessGroup>& group, int tag) {
  return work_of(ops::isend(tensor, dst, group_value(group), tag));
}
WorkHandle irecv(Tensor& tensor, int src, const std::shared_ptr<ProcessGroup>& group, int tag) {
  return work_of(ops::irecv(tensor, src < 0 ? std::nullopt : std::optional<std::int64_t>(src), group_value(group), tag));
}

void register_distributed_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch.distributed", DispatchKey::kCompositeImplicit);
  lib->impl("all_reduce", &all_reduce_kernel)
      .impl("broadcast", &broadcast_kernel)
      .impl("reduce", &reduce_kernel)
      .impl("all_gather", &all_gather_kernel)
      .impl("all_gather_into_tensor", &all_gather_into_tensor_kernel)
      .impl("gather", &gather_kernel)
      .impl("scatter", &scatter_kernel)
      .impl("reduce_scatter", &reduce_scatter_kernel)
      .impl("all_to_all", &all_to_all_kernel)
      .impl("all_to_all_single", &all_to_all_single_kernel)
      .impl("barrier", &barrier_kernel)
      .impl("send", &send_kernel)
      .impl("recv", &recv_kernel)
      .impl("isend", &isend_kernel)
      .impl("irecv", &irecv_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick::distributed
