#!/usr/bin/env python3
# tools/check_layers.py - the layer check: no include and no call goes up a layer.
"""Checks the README's "Layers" table against the code.

The table (README.md, section "Layers") lists each layer with its folders and
the layers it may use. Every source file belongs to the layer whose folder is
the longest prefix of its path. Two checks:

  includes  every `#include` of every tracked source file names a header of
            its own layer or of a layer it may use (`wick/...` headers are
            the `sdk` layer);
  symbols   (with a build directory) every symbol that an object file of
            libwick leaves undefined is either defined outside libwick or
            defined (strongly) by its own layer or a layer it may use: a call
            into a layer above is caught even when it goes through a header
            of a lower layer (an SDK header's declaration, say).

Usage: tools/check_layers.py [BUILD_DIR]   (exit 1 on any violation)
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE_SUFFIXES = {".cpp", ".h", ".cu", ".cuh", ".inc"}


def read_layers():
    """[(name, [folders], set(may use))] from the README's Layers table."""
    text = (ROOT / "README.md").read_text()
    section = re.search(r"^### Layers\n(.*?)(?=^#)", text, re.S | re.M)
    if not section:
        sys.exit("check_layers: README.md has no '### Layers' section")
    layers = []
    for line in section.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("layer", "") or set(cells[0]) <= {"-"}:
            continue
        folders = re.findall(r"`([^`]+)`", cells[1])
        uses = {u.strip() for u in cells[2].split(",") if u.strip()}
        layers.append((cells[0], folders, uses))
    names = {name for name, _, _ in layers}
    for name, _, uses in layers:
        unknown = uses - names - {"everything"}
        if unknown:
            sys.exit(f"check_layers: layer '{name}' may use unknown layers {sorted(unknown)}")
    return layers


def layer_of(path, layers):
    """The layer owning `path` (relative, posix), or None."""
    best, best_len = None, -1
    for name, folders, _ in layers:
        for folder in folders:
            if (path == folder or path.startswith(folder + "/")) and len(folder) > best_len:
                best, best_len = name, len(folder)
    return best


def allowed(user, used, layers):
    if user == used:
        return True
    uses = next(u for n, _, u in layers if n == user)
    return "everything" in uses or used in uses


def check_includes(layers):
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    files = [f for f in files if (ROOT / f).is_file()]
    tops = {p.split("/")[0] for p in files if "/" in p}
    problems = []
    include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
    for rel in files:
        p = pathlib.PurePosixPath(rel)
        if p.suffix not in SOURCE_SUFFIXES:
            continue
        user = layer_of(rel, layers)
        if user is None:
            continue
        for number, line in enumerate((ROOT / rel).read_text(errors="replace").splitlines(), 1):
            m = include.match(line)
            if not m:
                continue
            target = m.group(2)
            if target.startswith("wick/"):
                used = layer_of("sdk/include/" + target, layers)
            elif m.group(1) == "<":
                continue  # a system or third-party header
            elif target.split("/")[0] in tops and (ROOT / target).exists():
                used = layer_of(target, layers)
            else:
                used = layer_of(str(p.parent / target), layers)
            if used is not None and not allowed(user, used, layers):
                problems.append(f"{rel}:{number}: layer '{user}' includes {target} of layer '{used}'")
    return problems


def symbols(obj):
    """(strongly defined, undefined) external symbols of an object file."""
    out = subprocess.run(["nm", "-P", "-g", str(obj)], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRGSi":
            defined.add(name)
    return defined, undefined


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def check_symbols(layers, build):
    objdir = build / "CMakeFiles" / "wick.dir"
    objects = sorted(objdir.rglob("*.o"))
    if not objects:
        return [f"no object files of libwick under {objdir}: build it first"]
    by_layer = {}
    for obj in objects:
        source = str(obj.relative_to(objdir))[: -len(".o")]
        if source.startswith("generated/"):
            source = source[len("generated/"):]  # generated into the build tree for that folder
        elif not (ROOT / source).exists():
            continue  # a stale object of a deleted source
        layer = layer_of(source, layers)
        if layer is None:
            return [f"{source}: not in any layer of the README's table"]
        by_layer.setdefault(layer, []).append((source, *symbols(obj)))
    owner = {}
    for layer, entries in by_layer.items():
        for _, defined, _ in entries:
            for name in defined:
                owner[name] = layer
    problems = []
    for layer, entries in by_layer.items():
        for source, _, undefined in entries:
            up = sorted(n for n in undefined if n in owner and not allowed(layer, owner[n], layers))
            for name, pretty in zip(up, demangle(up)):
                problems.append(f"{source}: layer '{layer}' calls {pretty} of layer '{owner[name]}'")
    return problems


def main():
    layers = read_layers()
    problems = check_includes(layers)
    checked = "includes"
    if len(sys.argv) > 1:
        problems += check_symbols(layers, pathlib.Path(sys.argv[1]).resolve())
        checked = "includes and libwick's symbols"
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} upward dependencies (README.md, 'Layers')")
        return 1
    print(f"check_layers: {len(layers)} layers, {checked} clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
