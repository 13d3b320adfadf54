// plugins/loader/file_checks.cpp - checks on a plugin file before it is opened: ELF sanity and trust.
/// \file
/// Note [Plugin trust]
/// Loading a plugin runs its code in the host, so a file that anyone but its
/// owner could have replaced is refused, as ssh's StrictModes refuses such
/// key files: the file and its directory must be owned by root or by the
/// user running wick and be writable by nobody else (no group or other
/// write bit). `WICK_PLUGIN_INSECURE=1` loads such files anyway, with a
/// warning. `WICK_PLUGIN_ALLOWLIST=FILE` further restricts loading to files
/// listed there, one per line as `sha256sum` prints them: the SHA-256
/// digest, blanks, and the file's name (or path); `#` starts a comment.
/// Every decision is logged.
#include "plugins/loader/file_checks.h"

#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugins/loader/sha256.h"
#include "wick/error.h"
#include "wick/log.h"

namespace wick::detail {
namespace {

namespace fs = std::filesystem;

std::string at(const std::string& path, const std::string& what) { return path + ": " + what; }

std::string octal_mode(mode_t mode) {
  std::ostringstream s;
  s << "0" << std::oct << (mode & 07777);
  return s.str();
}

// Why `what` (the plugin file or its directory) could be changed by another
// user, or empty when it could not.
std::string untrusted(const std::string& what, const char* kind) {
  struct stat st {};
  if (::stat(what.c_str(), &st) != 0) return str_cat("cannot stat the ", kind, " ", what, ": ", std::strerror(errno));
  if ((st.st_mode & S_IWOTH) != 0)
    return str_cat("the ", kind, " ", what, " is writable by every user (mode ", octal_mode(st.st_mode), ")");
  if ((st.st_mode & S_IWGRP) != 0)
    return str_cat("the ", kind, " ", what, " is writable by its group (mode ", octal_mode(st.st_mode), ")");
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return str_cat("the ", kind, " ", what, " is owned by another user (uid ", st.st_uid, ")");
  return {};
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == "1";
}

void check_allowlist(const std::string& file, const std::string& path, const std::string& list) {
  std::ifstream in(list);
  if (!in.good())
    throw PluginError(at(path, "refused: cannot read the allowlist " + list + " (WICK_PLUGIN_ALLOWLIST)"));
  const std::string digest = sha256_file_hex(file);
  const std::string name = fs::path(path).filename().string();
  std::string line;
  while (std::getline(in, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string listed_digest;
    std::string listed_name;
    if (!(fields >> listed_digest)) continue;
    std::getline(fields >> std::ws, listed_name);
    if (!listed_name.empty() && listed_name.front() == '*') listed_name.erase(0, 1);  // sha256sum's binary mark
    const bool same_name = listed_name == name || listed_name == path ||
                           (!listed_name.empty() && fs::path(listed_name).filename().string() == name);
    if (listed_digest == digest && same_name) {
      logging::info(path, ": on the allowlist ", list);
      return;
    }
  }
  throw PluginError(at(path, "refused: not on the allowlist " + list + " (its SHA-256 is " + digest + ")"));
}

// Refuses (or, with WICK_PLUGIN_INSECURE=1, warns about) `file` and its
// directory when another user could change them.
void check_owner_only(const std::string& path, const fs::path& file, const char* kind) {
  for (const auto& [what, what_kind] :
       {std::pair{file.string(), kind}, std::pair{file.parent_path().string(), "directory"}}) {
    const std::string why = untrusted(what, what_kind);
    if (why.empty()) continue;
    if (!env_flag("WICK_PLUGIN_INSECURE"))
      throw PluginError(at(path, "refused: " + why + "; fix its permissions or set WICK_PLUGIN_INSECURE=1"));
    logging::warn(path, ": loading although ", why, " (WICK_PLUGIN_INSECURE=1)");
  }
}

}  // namespace

// Note [Checking the ELF file first]
// glibc's dlopen trusts the file: a shared library cut short maps segments
// past the end of the file and the process dies of SIGBUS on first touch.
// So the loader reads the ELF and program headers itself and refuses a file
// whose headers or loadable segments do not fit inside it, or that is not a
// shared library for this machine, before dlopen ever sees it.
void check_elf_file(const std::string& file, const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec) throw PluginError(at(path, "cannot read the file: " + ec.message()));
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    throw PluginError(at(path, "cannot load as a shared library: not an ELF file"));
  if (eh.e_ident[EI_CLASS] != ELFCLASS64)
    throw PluginError(at(path, "cannot load as a shared library: not a 64-bit ELF file"));
#if defined(__x86_64__)
  constexpr Elf64_Half kMachine = EM_X86_64;
#elif defined(__aarch64__)
  constexpr Elf64_Half kMachine = EM_AARCH64;
#else
  constexpr Elf64_Half kMachine = 0;
#endif
  if (kMachine != 0 && eh.e_machine != kMachine)
    throw PluginError(at(path, detail::str_cat("cannot load as a shared library: built for another machine (ELF "
                                               "machine ",
                                               eh.e_machine, ", this host is ", kMachine, ")")));
  if (eh.e_type != ET_DYN)
    throw PluginError(at(path, "cannot load as a shared library: an ELF file but not a shared library"));
  auto truncated = [&](const char* what) {
    return PluginError(at(path, detail::str_cat("cannot load as a shared library: truncated (the file has ", size,
                                                " bytes; its ", what, " lie beyond them)")));
  };
  auto malformed = [&](const char* what) {
    return PluginError(at(path, detail::str_cat("cannot load as a shared library: malformed ELF (", what, ")")));
  };
  // [offset, offset + count * entry) within the file, without overflow.
  auto fits = [&](std::uint64_t offset, std::uint64_t count, std::uint64_t entry) {
    return offset <= size && count <= (size - offset) / (entry == 0 ? 1 : entry);
  };
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) throw malformed("program header entry size");
  if (!fits(eh.e_phoff, eh.e_phnum, eh.e_phentsize)) throw truncated("program headers");
  if (eh.e_shoff != 0) {
    if (eh.e_shentsize != sizeof(Elf64_Shdr)) throw malformed("section header entry size");
    if (!fits(eh.e_shoff, eh.e_shnum, eh.e_shentsize)) throw truncated("section headers");
  }
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) throw truncated("program headers");
    if (ph.p_type == PT_NULL) continue;
    if (!fits(ph.p_offset, ph.p_filesz, 1)) throw truncated("segments");
  }
}

std::string check_trust(const std::string& path) {
  std::error_code ec;
  const fs::path file = fs::canonical(path, ec);
  if (ec) throw PluginError(at(path, "cannot resolve the path: " + ec.message()));
  check_owner_only(path, file, "plugin file");
  if (const char* list = std::getenv("WICK_PLUGIN_ALLOWLIST"); list != nullptr && *list != '\0') {
    const fs::path list_file = fs::canonical(list, ec);
    if (ec)
      throw PluginError(
          at(path, std::string("refused: cannot read the allowlist ") + list + " (WICK_PLUGIN_ALLOWLIST)"));
    check_owner_only(path, list_file, "allowlist");  // a list others can edit protects nothing
    check_allowlist(file.string(), path, list_file.string());
  }
  return file.string();
}

}  // namespace wick::detail
