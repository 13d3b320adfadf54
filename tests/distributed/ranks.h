// tests/distributed/ranks.h - starting N ranks of a program on localhost, bounded in time.
/// \file
/// Each rank runs with PyTorch's environment (MASTER_ADDR=127.0.0.1, a free
/// MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK) plus the test's; its stdout
/// and stderr are kept. Ranks still running at the deadline are killed and
/// reported as timed out, so no test can hang.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;  // NOLINT(readability-identifier-naming): POSIX's name

namespace wick_test {

/// A TCP port that was free a moment ago (bound to port 0, then released).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct RankResult {
  int exit_code = -1;  ///< -1 when killed at the deadline or by a signal
  int signal = 0;
  bool timed_out = false;
  std::string out;
  std::string err;
};

struct RanksOptions {
  int world_size = 2;
  std::chrono::seconds deadline{120};
  /// Extra environment for every rank, and per rank (overrides).
  std::map<std::string, std::string> env;
  std::map<int, std::map<std::string, std::string>> rank_env;
  /// Ranks to kill (SIGKILL) once every other rank has ended.
  std::vector<int> kill_when_others_end;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `program args...` as `world_size` ranks and waits for all of them.
inline std::vector<RankResult> run_ranks(const std::string& program, const std::vector<std::string>& args,
                                         const RanksOptions& o) {
  const int port = free_port();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("wick_ranks_" + std::to_string(::getpid()) + "_" + std::to_string(port));
  std::filesystem::create_directories(dir);
  std::vector<pid_t> pids;
  for (int r = 0; r < o.world_size; ++r) {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string kv = *e;
      const auto eq = kv.find('=');
      if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    env["MASTER_ADDR"] = "127.0.0.1";
    env["MASTER_PORT"] = std::to_string(port);
    env["RANK"] = std::to_string(r);
    env["LOCAL_RANK"] = std::to_string(r);
    env["WORLD_SIZE"] = std::to_string(o.world_size);
    for (const auto& [k, v] : o.env) env[k] = v;
    if (auto it = o.rank_env.find(r); it != o.rank_env.end()) {
      for (const auto& [k, v] : it->second) env[k] = v;
    }
    std::vector<std::string> env_text;
    for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : env_text) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_text = {program};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : argv_text) argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string out = (dir / ("out" + std::to_string(r))).string();
    const std::string err = (dir / ("err" + std::to_string(r))).string();
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    if (posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), envp.data()) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    pids.push_back(pid);
  }
  std::vector<RankResult> results(static_cast<std::size_t>(o.world_size));
  std::vector<bool> done(static_cast<std::size_t>(o.world_size), false);
  const auto deadline = std::chrono::steady_clock::now() + o.deadline;
  for (;;) {
    int running = 0;
    int others_running = 0;
    for (int r = 0; r < o.world_size; ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (done[i]) continue;
      if (pids[i] < 0) {
        done[i] = true;
        continue;
      }
      int status = 0;
      if (::waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        done[i] = true;
        if (WIFEXITED(status)) results[i].exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) results[i].signal = WTERMSIG(status);
        continue;
      }
      ++running;
      if (std::find(o.kill_when_others_end.begin(), o.kill_when_others_end.end(), r) == o.kill_when_others_end.end()) ++others_running;
    }
    if (running == 0) break;
    if (others_running == 0) {
      for (const int r : o.kill_when_others_end) {
        if (!done[static_cast<std::size_t>(r)]) ::kill(pids[static_cast<std::size_t>(r)], SIGKILL);
      }
    }
    if (std::chrono::steady_clock::now() > deadline) {
      for (int r = 0; r < o.world_size; ++r) {
        const auto i = static_cast<std::size_t>(r);
        if (!done[i]) {
          results[i].timed_out = true;
          ::kill(pids[i], SIGKILL);
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int r = 0; r < o.world_size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    results[i].out = slurp(dir / ("out" + std::to_string(r)));
    results[i].err = slurp(dir / ("err" + std::to_string(r)));
  }
  std::filesystem::remove_all(dir);
  return results;
}

/// Every rank's outcome, for a failure message.
inline std::string describe(const std::vector<RankResult>& results) {
  std::string s;
  for (std::size_t r = 0; r < results.size(); ++r) {
    s += "--- rank " + std::to_string(r) + ": exit " + std::to_string(results[r].exit_code) +
         (results[r].signal != 0 ? " signal " + std::to_string(results[r].signal) : "") +
         (results[r].timed_out ? " (timed out)" : "") + "\n" + results[r].out + results[r].err;
  }
  return s;
}

}  // namespace wick_test
