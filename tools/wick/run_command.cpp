// tools/wick/run_command.cpp - `wick run`: start the ranks of a distributed program, in the manner of torchrun.
/// \file
/// Note [wick run]
/// `wick run --nproc-per-node N [--nnodes M --node-rank K --master-addr A
/// --master-port P] program args...` starts N copies of `program` on this
/// node with PyTorch's environment: RANK (node_rank * N + local rank),
/// LOCAL_RANK, WORLD_SIZE (M * N), LOCAL_WORLD_SIZE, GROUP_RANK (the node
/// rank), MASTER_ADDR and MASTER_PORT, and OMP_NUM_THREADS=1 when the
/// environment sets none and N > 1 (as torchrun: N processes of all the
/// cores each would fight). Rank 0 (on node 0) serves the store at
/// MASTER_ADDR:MASTER_PORT; every node must reach it there, and the ranks
/// reach each other on ports the collective engine picks.
///
/// SIGINT, SIGTERM and SIGHUP are passed on to every rank. When a rank
/// fails (a non-zero exit, or a signal), the launcher says which and how,
/// stops the others (SIGTERM, then SIGKILL after 10 s), and exits with that
/// rank's code (128 + the signal for a signal), as torchrun does. It exits
/// 0 when every rank does.
#include "run_command.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

extern char** environ;  // NOLINT(readability-identifier-naming): POSIX's name

namespace wick::cli {

namespace {

std::atomic<int> g_forward_signal{0};

extern "C" void on_signal(int sig) { g_forward_signal.store(sig); }

struct RunOptions {
  int nproc = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::vector<std::string> command;
};

constexpr const char* kUsage =
    "usage: wick run [--nproc-per-node N] [--nnodes M] [--node-rank K] [--master-addr ADDR] [--master-port PORT] "
    "program [args...]\n"
    "Starts N ranks of program on this node with RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set "
    "(torchrun's environment).\n";

int parse_int(const std::string& flag, const std::string& text, int low, int high) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size() && v >= low && v <= high) return v;
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): reported below
  }
  throw std::invalid_argument(flag + " must be an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
                              "], got '" + text + "'");
}

RunOptions parse(const std::vector<std::string>& args) {
  RunOptions o;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (!a.starts_with("--")) break;
    std::string value;
    if (const auto eq = a.find('='); eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else if (a != "--help") {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      value = args[++i];
    }
    // torchrun spells them with underscores too.
    for (auto& c : a) c = c == '_' ? '-' : c;
    if (a == "--help") throw std::invalid_argument("");
    if (a == "--nproc-per-node") {
      o.nproc = parse_int(a, value, 1, 4096);
    } else if (a == "--nnodes") {
      o.nnodes = parse_int(a, value, 1, 65536);
    } else if (a == "--node-rank") {
      o.node_rank = parse_int(a, value, 0, 65535);
    } else if (a == "--master-addr") {
      o.master_addr = value;
    } else if (a == "--master-port") {
      o.master_port = parse_int(a, value, 1, 65535);
    } else {
      throw std::invalid_argument("unknown option " + a);
    }
  }
  o.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (o.command.empty()) throw std::invalid_argument("no program to run");
  if (o.node_rank >= o.nnodes) {
    throw std::invalid_argument("--node-rank " + std::to_string(o.node_rank) + " must be below --nnodes " +
                                std::to_string(o.nnodes));
  }
  return o;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) + (name != nullptr ? std::string(" (SIG") + name + ")" : "");
  }
  return "ended with status " + std::to_string(status);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int run_distributed(const std::vector<std::string>& args) {
  RunOptions o;
  try {
    o = parse(args);
  } catch (const std::invalid_argument& e) {
    if (*e.what() != '\0') std::cerr << "wick run: " << e.what() << "\n";
    std::cerr << kUsage;
    return *e.what() != '\0' ? 2 : 0;
  }
  const int world = o.nnodes * o.nproc;
  // The environment every rank shares, then each one's own.
  std::map<std::string, std::string> base;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (const auto eq = kv.find('='); eq != std::string::npos) base[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (o.nproc > 1 && base.count("OMP_NUM_THREADS") == 0) {
    std::cerr << "wick run: setting OMP_NUM_THREADS=1 for each of the " << o.nproc
              << " processes (set it yourself to choose another value)\n";
    base["OMP_NUM_THREADS"] = "1";
  }
  base["MASTER_ADDR"] = o.master_addr;
  base["MASTER_PORT"] = std::to_string(o.master_port);
  base["WORLD_SIZE"] = std::to_string(world);
  base["LOCAL_WORLD_SIZE"] = std::to_string(o.nproc);
  base["GROUP_RANK"] = std::to_string(o.node_rank);

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);

  std::vector<pid_t> pids(static_cast<std::size_t>(o.nproc), -1);
  std::vector<int> ranks(static_cast<std::size_t>(o.nproc));
  for (int local = 0; local < o.nproc; ++local) {
    auto env = base;
    const int rank = o.node_rank * o.nproc + local;
    ranks[static_cast<std::size_t>(local)] = rank;
    env["RANK"] = std::to_string(rank);
    env["LOCAL_RANK"] = std::to_string(local);
    std::vector<std::string> env_text;
    for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : env_text) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_text = o.command;
    std::vector<char*> argv;
    for (auto& s : argv_text) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
    if (rc != 0) {
      std::cerr << "wick run: cannot start rank " << rank << ": " << o.command[0] << ": " << std::strerror(rc) << "\n";
      for (const pid_t p : pids) {
        if (p > 0) ::kill(p, SIGTERM);
      }
      for (const pid_t p : pids) {
        if (p > 0) ::waitpid(p, nullptr, 0);
      }
      return 127;
    }
    pids[static_cast<std::size_t>(local)] = pid;
  }

  int running = o.nproc;
  int first_failure = -1;  // local rank
  int failure_status = 0;
  auto stop_deadline = std::chrono::steady_clock::time_point::max();
  std::vector<bool> done(static_cast<std::size_t>(o.nproc), false);
  while (running > 0) {
    if (const int sig = g_forward_signal.exchange(0); sig != 0) {
      for (int l = 0; l < o.nproc; ++l) {
        if (!done[static_cast<std::size_t>(l)]) ::kill(pids[static_cast<std::size_t>(l)], sig);
      }
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (int l = 0; l < o.nproc; ++l) {
        const auto i = static_cast<std::size_t>(l);
        if (pids[i] != pid || done[i]) continue;
        done[i] = true;
        --running;
        const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!ok && first_failure < 0) {
          first_failure = l;
          failure_status = status;
          std::cerr << "wick run: rank " << ranks[i] << " (local rank " << l << ", pid " << pid << ") "
                    << describe_status(status) << "; stopping the other ranks\n";
          for (int m = 0; m < o.nproc; ++m) {
            if (!done[static_cast<std::size_t>(m)]) ::kill(pids[static_cast<std::size_t>(m)], SIGTERM);
          }
          stop_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        } else if (!ok) {
          std::cerr << "wick run: rank " << ranks[i] << " (local rank " << l << ") " << describe_status(status) << "\n";
        }
      }
      continue;
    }
    if (std::chrono::steady_clock::now() > stop_deadline) {
      for (int m = 0; m < o.nproc; ++m) {
        if (!done[static_cast<std::size_t>(m)]) ::kill(pids[static_cast<std::size_t>(m)], SIGKILL);
      }
      stop_deadline = std::chrono::steady_clock::time_point::max();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (first_failure >= 0) {
    std::cerr << "wick run: failed: rank " << ranks[static_cast<std::size_t>(first_failure)] << " "
              << describe_status(failure_status) << "\n";
    return exit_code_of(failure_status);
  }
  return 0;
}

}  // namespace wick::cli
