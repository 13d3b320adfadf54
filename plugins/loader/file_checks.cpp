// plugins/loader/file_checks.cpp - checks on a plugin file before it is opened: ELF sanity and trust.
/// \file
/// Note [Plugin trust]
/// Loading a plugin runs its code in the host, so a file that anyone but its
/// owner could have replaced is refused, as ssh's StrictModes refuses such
/// key files: the file and its directory must be owned by root or by the
/// user running wick and be writable by nobody else (no group or other
/// write bit). `WICK_PLUGIN_INSECURE=1` (or true, yes, on) loads such files
/// anyway, with a warning; a value that is none of those nor 0, false, no,
/// off or empty refuses every file, so that a typo is never read as "off".
/// `WICK_PLUGIN_ALLOWLIST=FILE` further restricts loading to files listed
/// there, one per line as `sha256sum` prints them: the SHA-256 digest,
/// blanks, and the file's name (or path); `#` starts a comment. The same
/// checks apply to libraries a plugin loads (wick::load_plugin_library).
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

#include "plugins/loader/digest.h"
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

// WICK_PLUGIN_INSECURE as a boolean; PluginError naming `path` for a value
// that is not one.
bool insecure_allowed(const std::string& path) {
  const char* v = std::getenv("WICK_PLUGIN_INSECURE");
  if (v == nullptr) return false;
  std::string value = v;
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* yes : {"1", "true", "yes", "on"})
    if (value == yes) return true;
  for (const char* no : {"", "0", "false", "no", "off"})
    if (value == no) return false;
  throw PluginError(at(path, str_cat("refused: WICK_PLUGIN_INSECURE='", v,
                                     "' is not a boolean (use 1, true, yes or on to load files other users could "
                                     "change; 0, false, no, off or empty for the default)")));
}

// Returns the file's SHA-256 (it was computed anyway).
std::string check_allowlist(const std::string& file, const std::string& path, const std::string& list) {
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
      return digest;
    }
  }
  throw PluginError(at(path, "refused: not on the allowlist " + list + " (its SHA-256 is " + digest + ")"));
}

// Refuses (or, with WICK_PLUGIN_INSECURE=1, warns about) `file` and its
// directory when another user could change them.
void check_owner_only(const std::string& path, const fs::path& file, const char* kind, bool insecure) {
  for (const auto& [what, what_kind] :
       {std::pair{file.string(), kind}, std::pair{file.parent_path().string(), "directory"}}) {
    const std::string why = untrusted(what, what_kind);
    if (why.empty()) continue;
    if (!insecure)
      throw PluginError(at(path, "refused: " + why + "; fix its permissions or set WICK_PLUGIN_INSECURE=1"));
    logging::warn(path, ": loading although ", why, " (WICK_PLUGIN_INSECURE is set)");
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

std::vector<std::string> unique_symbols(const std::string& file, std::size_t max) {
  std::vector<std::string> names;
  std::ifstream in(file, std::ios::binary);
  auto read_at = [&](std::uint64_t offset, void* out, std::size_t n) {
    in.seekg(static_cast<std::streamoff>(offset));
    return static_cast<bool>(in.read(static_cast<char*>(out), static_cast<std::streamsize>(n)));
  };
  Elf64_Ehdr eh{};
  if (!read_at(0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
    return names;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    if (!read_at(eh.e_shoff + std::uint64_t{i} * sizeof sh, &sh, sizeof sh)) return names;
    if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
    Elf64_Shdr strings{};
    if (sh.sh_link >= eh.e_shnum ||
        !read_at(eh.e_shoff + std::uint64_t{sh.sh_link} * sizeof strings, &strings, sizeof strings))
      return names;
    for (std::uint64_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym) && names.size() < max; ++k) {
      Elf64_Sym sym{};
      if (!read_at(sh.sh_offset + k * sizeof sym, &sym, sizeof sym)) return names;
      if (ELF64_ST_BIND(sym.st_info) != STB_GNU_UNIQUE || sym.st_shndx == SHN_UNDEF) continue;
      if (sym.st_name >= strings.sh_size) continue;
      std::string name;
      in.seekg(static_cast<std::streamoff>(strings.sh_offset + sym.st_name));
      std::getline(in, name, '\0');
      names.push_back(name);
    }
  }
  return names;
}

TrustedFile check_trust(const std::string& path, const char* kind) {
  const bool insecure = insecure_allowed(path);
  std::error_code ec;
  const fs::path file = fs::canonical(path, ec);
  if (ec) throw PluginError(at(path, "cannot resolve the path: " + ec.message()));
  check_owner_only(path, file, kind, insecure);
  TrustedFile trusted{file.string(), {}};
  if (const char* list = std::getenv("WICK_PLUGIN_ALLOWLIST"); list != nullptr && *list != '\0') {
    const fs::path list_file = fs::canonical(list, ec);
    if (ec)
      throw PluginError(
          at(path, std::string("refused: cannot read the allowlist ") + list + " (WICK_PLUGIN_ALLOWLIST)"));
    check_owner_only(path, list_file, "allowlist", insecure);  // a list others can edit protects nothing
    trusted.sha256 = check_allowlist(file.string(), path, list_file.string());
  }
  return trusted;
}

}  // namespace wick::detail
