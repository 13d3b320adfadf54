#!/usr/bin/env python3
# tests/docs/check_docs.py - runs the documentation's examples, so that the docs cannot drift.
"""Extracts the examples of wick's markdown pages and checks them.

  check_docs.py shell --source DIR --bin DIR    run every `$ wick ...` line of every fenced block and
                                                compare its output with the lines shown under it
  check_docs.py cpp --source DIR --prefix DIR   compile every ```cpp block against the installed SDK
                                                at DIR and run the programs
  check_docs.py list --source DIR               print what would be checked
  check_docs.py --self-test                     check the extraction and normalisation on a sample

Shell examples: in a fenced block, a line `$ wick ARGS` (optionally preceded by VAR=value
assignments) is a command and the lines after it, up to the next `$ ` line or the end of the block,
are its output (stdout and stderr together; the exit status is not compared). The commands run under
bash in a scratch directory where `build/release` links to the build being tested, with its `bin` on
PATH and WICK_LOG_LEVEL=error unless the command sets it. Before comparing, both sides are normalised:
`file.cpp:123` becomes `file.cpp:N`, `0x7f...` addresses become `0x?`, durations (`12.5 ms`) become
`<time>`, trailing blanks go. The same run checks that every relative link of the pages names a file
that exists and, after `#`, one of its headings.

C++ snippets: a ```cpp block with `int main` is a program: compiled with the flags of
`pkg-config --cflags --libs wick`, -std=c++20 and an rpath to the prefix, then run (exit status 0
expected). A block with `WICK_PLUGIN(` is a plugin: compiled as a shared library. Any other block is
a fragment of a function body: it is put in `int main() { wick::init(); ... }` after
`#include <wick/wick.h>` and `using namespace wick;`, then compiled and run.

Skipping: an HTML comment `<!-- docs-test: skip (why) -->` on the line before a fence (blank lines
between are allowed) leaves that block out; `<!-- docs-test: compile-only -->` compiles a C++ block
without running it (for code that needs a GPU, files or data).

CMake projects: a ```cmake block with `add_executable(NAME FILE...)`, where each FILE is a ```cpp block
of the same page whose first line is `// FILE`, is configured with CMAKE_PREFIX_PATH set to the
install (find_package(Wick) as an application does it), built, and NAME is run (exit status 0). Both must say why, and should be rare.
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

# The pages checked, relative to the source root. A new page is checked once it is listed here.
PAGES = ["README.md", "sdk/docs/*.md", "tools/wick/README.md", "tools/bench/README.md",
         "tests/README.md", "backends/cuda/README.md"]

MARKER = re.compile(r"<!--\s*docs-test:\s*(skip|compile-only)\b(.*?)-->")
COMMAND = re.compile(r"^\$ ((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)wick(\s.*)?$")


@dataclasses.dataclass
class Block:
    path: str
    line: int  # 1-based line of the opening fence
    lang: str
    lines: list[str]
    marker: str | None  # "skip", "compile-only" or None
    reason: str


@dataclasses.dataclass
class ShellExample:
    where: str
    command: str
    expected: list[str]


def blocks_of(text: str, path: str) -> list[Block]:
    out: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^(```+)\s*([\w+-]*)", lines[i])
        if not fence:
            i += 1
            continue
        marker, reason = None, ""
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            m = MARKER.search(lines[j])
            if m:
                marker, reason = m.group(1), m.group(2).strip()
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].startswith(fence.group(1)):
            body.append(lines[i])
            i += 1
        out.append(Block(path, start + 1, fence.group(2), body, marker, reason))
        i += 1
    return out


def shell_examples(block: Block) -> list[ShellExample]:
    if block.marker == "skip" or block.lang not in ("", "console", "text", "sh", "shell"):
        return []
    out: list[ShellExample] = []
    current: ShellExample | None = None
    for n, line in enumerate(block.lines):
        if line.startswith("$ "):
            current = None
            if COMMAND.match(line):
                current = ShellExample(f"{block.path}:{block.line + 1 + n}", line[2:], [])
                out.append(current)
        elif current is not None:
            current.expected.append(line)
    return out


_FILE_LINE = re.compile(r"([\w./-]+\.(?:cpp|h|ops|cu|cuh|inc|py)):\d+")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_TIME = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s)\b")


def normalise(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        line = _FILE_LINE.sub(r"\1:N", line)
        line = _ADDRESS.sub("0x?", line)
        line = _TIME.sub("<time>", line)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


def pages(source: pathlib.Path) -> list[pathlib.Path]:
    found: list[pathlib.Path] = []
    for pattern in PAGES:
        found += sorted(source.glob(pattern))
    return found


def all_blocks(source: pathlib.Path) -> list[Block]:
    out = []
    for page in pages(source):
        out += blocks_of(page.read_text(), str(page.relative_to(source)))
    return out


def check_marker_reasons(blocks: list[Block]) -> list[str]:
    return [f"{b.path}:{b.line}: a docs-test marker must say why" for b in blocks if b.marker and not b.reason]


def run_shell(source: pathlib.Path, bindir: pathlib.Path) -> int:
    blocks = all_blocks(source)
    problems = check_marker_reasons(blocks) + check_links(source)
    examples = [e for b in blocks for e in shell_examples(b)]
    build = bindir.resolve().parent
    with tempfile.TemporaryDirectory() as scratch:
        (pathlib.Path(scratch) / "build").mkdir()
        (pathlib.Path(scratch) / "build" / "release").symlink_to(build)
        env = dict(os.environ)
        env["PATH"] = f"{bindir.resolve()}:{env.get('PATH', '')}"
        env.pop("WICK_PLUGIN_PATH", None)
        env.pop("WICK_PLUGIN_ALLOWLIST", None)
        env.setdefault("OMP_WAIT_POLICY", "passive")
        for e in examples:
            run_env = dict(env)
            if "WICK_LOG_LEVEL=" not in e.command:
                run_env["WICK_LOG_LEVEL"] = "error"
            result = subprocess.run(["bash", "-c", e.command], cwd=scratch, env=run_env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
            expected, actual = normalise(e.expected), normalise(result.stdout.split("\n"))
            if expected != actual:
                diff = "\n".join(difflib.unified_diff(expected, actual, "shown", "printed", lineterm=""))
                problems.append(f"{e.where}: $ {e.command}\n{diff}")
    for p in problems:
        print(f"FAILED: {p}\n")
    print(f"docs shell examples: {len(examples)} run, {len(problems)} failed")
    return 1 if problems else 0


def cpp_source(block: Block) -> tuple[str, str]:
    """Returns (kind, source) for a C++ block: kind is program, plugin or fragment."""
    text = "\n".join(block.lines) + "\n"
    if re.search(r"\bint\s+main\s*\(", text):
        return "program", text
    if "WICK_PLUGIN(" in text:
        return "plugin", text
    body = "\n".join("  " + line for line in block.lines)
    return "fragment", ("#include <wick/wick.h>\n\nint main() {\n  wick::init();\n  using namespace wick;\n"
                        f"{body}\n  return 0;\n}}\n")


def run_cpp(source: pathlib.Path, prefix: pathlib.Path, cxx: str) -> int:
    blocks = [b for b in all_blocks(source) if b.lang in ("cpp", "c++")]
    problems = check_marker_reasons(blocks)
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = str(prefix / "lib" / "pkgconfig")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "wick"], env=env, stdout=subprocess.PIPE,
                           text=True, check=True).stdout.split()
    checked = 0
    with tempfile.TemporaryDirectory() as scratch:
        for n, b in enumerate(blocks):
            if b.marker == "skip":
                continue
            kind, text = cpp_source(b)
            src = pathlib.Path(scratch) / f"snippet{n}.cpp"
            src.write_text(text)
            out = pathlib.Path(scratch) / (f"libsnippet{n}.so" if kind == "plugin" else f"snippet{n}")
            cmd = [cxx, "-std=c++20", "-O0", str(src), "-o", str(out), *flags, f"-Wl,-rpath,{prefix / 'lib'}"]
            if kind == "plugin":
                cmd[3:3] = ["-shared", "-fPIC", "-fvisibility=hidden", "-fno-gnu-unique"]
            built = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
            checked += 1
            if built.returncode != 0:
                problems.append(f"{b.path}:{b.line}: the {kind} does not compile:\n{text}\n{built.stdout[-4000:]}")
                continue
            if kind == "plugin" or b.marker == "compile-only":
                continue
            run_env = dict(env, WICK_LOG_LEVEL="error", OMP_WAIT_POLICY="passive")
            run_env.pop("WICK_PLUGIN_PATH", None)
            ran = subprocess.run([str(out)], cwd=scratch, env=run_env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
            if ran.returncode != 0:
                problems.append(f"{b.path}:{b.line}: the {kind} exits with {ran.returncode}:\n{ran.stdout[-4000:]}")
        projects = cmake_projects(source)
        for n, (where, cmakelists, files, target) in enumerate(projects):
            problems += build_cmake_project(pathlib.Path(scratch) / f"project{n}", where, cmakelists, files, target,
                                            prefix, env)
    for p in problems:
        print(f"FAILED: {p}\n")
    print(f"docs C++ snippets: {checked} compiled, {len(projects)} CMake projects built, {len(problems)} failed")
    return 1 if problems else 0


def cmake_projects(source: pathlib.Path) -> list[tuple[str, str, dict[str, str], str]]:
    """A ```cmake block with add_executable(NAME FILE...) whose files are ```cpp blocks of the same page
    that open with `// FILE`: (where, CMakeLists.txt, {file: text}, NAME) for each."""
    out = []
    for page in pages(source):
        rel = str(page.relative_to(source))
        blocks = blocks_of(page.read_text(), rel)
        named = {}
        for b in blocks:
            first = b.lines[0].strip() if b.lines else ""
            if b.lang in ("cpp", "c++") and re.fullmatch(r"//\s*[\w.-]+\.cpp", first):
                named[first[2:].strip()] = "\n".join(b.lines) + "\n"
        for b in blocks:
            if b.lang != "cmake" or b.marker == "skip":
                continue
            text = "\n".join(b.lines) + "\n"
            m = re.search(r"add_executable\((\w+)\s+([^)]*)\)", text)
            if m and all(f in named for f in m.group(2).split()):
                out.append((f"{rel}:{b.line}", text, {f: named[f] for f in m.group(2).split()}, m.group(1)))
    return out


def build_cmake_project(work: pathlib.Path, where: str, cmakelists: str, files: dict[str, str], target: str,
                        prefix: pathlib.Path, env: dict[str, str]) -> list[str]:
    """Configures, builds and runs a CMake project made of a page's blocks against the install."""
    work.mkdir(parents=True)
    (work / "CMakeLists.txt").write_text(cmakelists)
    for name, text in files.items():
        (work / name).write_text(text)
    cmake = os.environ.get("WICK_DOCS_CMAKE") or shutil.which("cmake") or "cmake"
    for step in ([cmake, "-S", str(work), "-B", str(work / "build"), f"-DCMAKE_PREFIX_PATH={prefix}",
                  "-DCMAKE_BUILD_TYPE=Release"], [cmake, "--build", str(work / "build")]):
        done = subprocess.run(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        if done.returncode != 0:
            return [f"{where}: the CMake project does not build ({' '.join(step[:2])}):\n{done.stdout[-4000:]}"]
    run_env = dict(env, WICK_LOG_LEVEL="error", OMP_WAIT_POLICY="passive")
    run_env.pop("WICK_PLUGIN_PATH", None)
    ran = subprocess.run([str(work / "build" / target)], cwd=work, env=run_env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
    if ran.returncode != 0:
        return [f"{where}: the CMake project's {target} exits with {ran.returncode}:\n{ran.stdout[-4000:]}"]
    return []


_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, blanks as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: pathlib.Path) -> set[str]:
    out, fence = set(), False
    for line in page.read_text().split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"^#{1,6} ", line):
            out.add(slug(line.lstrip("#")))
    return out


def check_links(source: pathlib.Path) -> list[str]:
    """Every relative link of the pages names a file that exists, and a heading of it after '#'."""
    problems = []
    for page in pages(source):
        fence = False
        for n, line in enumerate(page.read_text().split("\n"), 1):
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            for target in _LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                dest = (page.parent / path).resolve() if path else page
                where = f"{page.relative_to(source)}:{n}"
                if not dest.exists():
                    problems.append(f"{where}: link to {target}: no such file")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    problems.append(f"{where}: link to {target}: no such heading in {dest.name}")
    return problems


def list_examples(source: pathlib.Path) -> int:
    for b in all_blocks(source):
        for e in shell_examples(b):
            print(f"shell {e.where}: $ {e.command}")
        if b.lang in ("cpp", "c++"):
            print(f"cpp   {b.path}:{b.line}: {cpp_source(b)[0]}{' (' + b.marker + ')' if b.marker else ''}")
    for where, _, files, target in cmake_projects(source):
        print(f"cmake {where}: {target} from {', '.join(files)}")
    return 0


def self_test() -> int:
    sample = ("text\n\n```\n$ wick eval '1 + 1'\n2\n$ ls\nx\n$ WICK_LOG_LEVEL=debug wick keys\nA\n```\n\n"
              "<!-- docs-test: skip (needs a GPU) -->\n```cpp\nint main() {}\n```\n```cpp\nauto x = ones({2});\n```\n")
    blocks = blocks_of(sample, "s.md")
    examples = shell_examples(blocks[0])
    assert [e.command for e in examples] == ["wick eval '1 + 1'", "WICK_LOG_LEVEL=debug wick keys"], examples
    assert [e.expected for e in examples] == [["2"], ["A"]], examples
    assert examples[0].where == "s.md:4", examples[0].where
    assert blocks[1].marker == "skip" and blocks[1].reason == "(needs a GPU)", blocks[1]
    assert blocks[2].marker is None and cpp_source(blocks[2])[0] == "fragment"
    assert slug("Checking operators: `wick opcheck` and `wick test-backend`") == \
        "checking-operators-wick-opcheck-and-wick-test-backend"
    assert normalise(["host (elementwise.cpp:442)  ", "at 0x7f408852a960", "took 12.5 ms", ""]) == \
        ["host (elementwise.cpp:N)", "at 0x?", "took <time>"]
    with tempfile.TemporaryDirectory() as d:
        (pathlib.Path(d) / "README.md").write_text("```cpp\n// main.cpp\nint main() {}\n```\n\n```cmake\n"
                                                   "add_executable(app main.cpp)\n```\n")
        projects = cmake_projects(pathlib.Path(d))
        assert [(p[0], p[2], p[3]) for p in projects] == [("README.md:6", {"main.cpp": "// main.cpp\nint main() {}\n"},
                                                          "app")], projects
    print("check_docs self-test passed")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", nargs="?", choices=["shell", "cpp", "list"])
    parser.add_argument("--source", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[2])
    parser.add_argument("--bin", type=pathlib.Path, help="the build's bin directory (shell)")
    parser.add_argument("--prefix", type=pathlib.Path, help="an installed wick (cpp)")
    parser.add_argument("--cxx", default=os.environ.get("CXX") or shutil.which("c++") or "c++")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if args.mode == "shell":
        return run_shell(args.source, args.bin)
    if args.mode == "cpp":
        return run_cpp(args.source, args.prefix, args.cxx)
    if args.mode == "list":
        return list_examples(args.source)
    parser.error("a mode or --self-test is needed")
    return 2


if __name__ == "__main__":
    sys.exit(main())
