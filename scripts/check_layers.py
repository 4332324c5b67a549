#!/usr/bin/env python3
"""make check-layers: the module layers of docs/ARCHITECTURE.md, checked on the code.

The table between the `check-layers` markers in docs/ARCHITECTURE.md names each module of
lib/, the public headers it owns and the modules it may use: directly, as the code does
(a module that uses one that uses a third may not use the third unless it says so). This
script checks that

  1. every `#include "..."` of a project header in lib/<module>/ and in the module's
     public headers points at the module itself or at a module it may use (public
     headers count as their owner's), and no module includes another's private header
     (`*_impl.h`; a module's header for the modules above is its `*_builder.h`);
  2. every undefined symbol of lib/<module>/*.o (built in --build) that another module
     defines is defined by a module it may use, and only `device` calls OpenCL; and,
     with 1, that every module it may use is used (else the table grants a use the
     code does not make);
  3. programs/ include only public headers (include/) and their own;
  4. every public header is owned by a module in the table, and no code in lib/
     includes the umbrella header stepscope.h;
  5. only lib/device/device_impl.h includes the OpenCL headers (<CL/...>), so that
     the rest builds without them (make OPENCL=0).

It prints one line per violation, naming the file and the edge, and exits 1 if any.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UMBRELLA = "stepscope.h"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
OPENCL_RE = re.compile(r'^\s*#\s*include\s+[<"]CL/', re.M)
# The one file that includes the OpenCL headers, so that everything else (the whole
# library built with OPENCL=0) compiles without them.
OPENCL_INCLUDER = "lib/device/device_impl.h"


def read_table(path):
    """{module: (set(uses), [headers])} from the marked table of ARCHITECTURE.md."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"<!-- check-layers: begin -->(.*?)<!-- check-layers: end -->", text, re.S)
    if not m:
        sys.exit(f"check-layers: {path}: no <!-- check-layers: begin/end --> table")
    table = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not re.fullmatch(r"`[a-z_]+`", cells[0]):
            continue
        mod = cells[0].strip("`")
        headers = re.findall(r"`([^`]+\.h)`", cells[2])
        uses = set(re.findall(r"[a-z_]+", cells[3].replace("nothing", "")))
        table[mod] = (uses, headers)
    return table


def header_owner(inc, owners, modules):
    """The module an #include path belongs to, or None for a header outside lib/include."""
    if inc in owners:
        return owners[inc]
    first = inc.split("/", 1)[0]
    if "/" in inc and first in modules:
        return first
    return None


def sources(dirpath, exts=(".c", ".h")):
    for name in sorted(os.listdir(dirpath)):
        if name.endswith(exts):
            yield os.path.join(dirpath, name)


def nm(args):
    out = subprocess.run(["nm"] + args, capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def library_objects(a, mods):
    """{module: [object paths]}: build/obj/lib/<module>/*.o, generated code (build/gen) as device's."""
    if a.objects is not None:
        want = a.objects.split()
    else:
        want = [os.path.join(a.build, "obj", "lib", mod, os.path.basename(p)[:-2] + ".o")
                for mod in mods for p in sources(os.path.join("lib", mod), (".c",))]
        gen = os.path.join(a.build, "gen")
        want += [os.path.join(gen, f) for f in sorted(os.listdir(gen)) if f.endswith(".o")] if os.path.isdir(gen) else []
    objs = {mod: [] for mod in mods}
    for o in want:
        if not os.path.exists(o):
            sys.exit(f"check-layers: {o} is not built; build the library first (make lib)")
        parts = os.path.normpath(o).split(os.sep)
        mod = parts[-2] if len(parts) >= 3 and parts[-3] == "lib" else "device" if parts[-2] == "gen" else None
        if mod not in objs:
            sys.exit(f"check-layers: {o}: not an object of lib/<module>/ or of the generated code")
        objs[mod].append(o)
    return objs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--no-symbols", action="store_true", help="check includes only")
    ap.add_argument("--objects", help="the library's objects, space-separated (the Makefile's list: a build "
                    "without OpenCL has other objects in lib/device); default: one per lib/<module>/*.c")
    a = ap.parse_args()
    os.chdir(ROOT)
    table = read_table("docs/ARCHITECTURE.md")
    allowed = {mod: uses for mod, (uses, _) in table.items()}
    modules = set(table)
    used = {mod: set() for mod in modules}  # the modules each one's code uses
    owners = {}
    bad = []
    for mod, (uses, headers) in table.items():
        for u in uses:
            if u not in modules:
                bad.append(f"docs/ARCHITECTURE.md: module '{mod}' may use '{u}', which is not in the table")
        for h in headers:
            owners[h] = mod
    on_disk = {d for d in os.listdir("lib") if os.path.isdir(os.path.join("lib", d))}
    for d in sorted(on_disk - modules):
        bad.append(f"lib/{d}/: a module that docs/ARCHITECTURE.md's layer table does not list")
    public = ["stepscope/" + h for h in sorted(os.listdir("include/stepscope"))]
    for h in public:
        if h not in owners:
            bad.append(f"include/{h}: no module owns this public header in docs/ARCHITECTURE.md")

    # 1 and 4: includes in lib/ and in the public headers.
    for mod in sorted(modules & on_disk):
        paths = list(sources(os.path.join("lib", mod))) + ["include/" + h for h in table[mod][1]]
        for path in paths:
            if not os.path.exists(path):
                bad.append(f"{path}: a public header of {mod} in docs/ARCHITECTURE.md that is not there")
                continue
            for inc in INCLUDE_RE.findall(open(path, encoding="utf-8").read()):
                if inc == UMBRELLA:
                    bad.append(f"{path}: includes the umbrella header {UMBRELLA}; lib/ includes the headers it uses")
                    continue
                owner = header_owner(inc, owners, modules)
                if owner is None:
                    if "/" not in inc and os.path.exists(os.path.join("lib", mod, inc)):
                        continue  # a sibling header in the same folder
                    bad.append(f"{path}: includes \"{inc}\", which is no header of the project")
                    continue
                if owner == mod:
                    continue
                used[mod].add(owner)
                if owner not in allowed[mod]:
                    bad.append(f"{path}: includes \"{inc}\" ({mod} -> {owner}), not a layer {mod} may use")
                if inc.endswith("_impl.h"):
                    bad.append(f"{path}: includes \"{inc}\", {owner}'s private header; only lib/{owner}/ may "
                               f"(what other modules may do is in its *_builder.h)")

    # 5: OpenCL's headers in one place.
    for top in ("lib", "include", "programs", "perf", "fuzz", "python/ext"):
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                if not name.endswith((".c", ".h")) or path == OPENCL_INCLUDER:
                    continue
                if OPENCL_RE.search(open(path, encoding="utf-8", errors="replace").read()):
                    bad.append(f"{path}: includes the OpenCL headers; only {OPENCL_INCLUDER} may")

    # 3: programs use the public API only.
    for dirpath, _, files in os.walk("programs"):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            for inc in INCLUDE_RE.findall(open(path, encoding="utf-8").read()):
                if inc in owners or inc == UMBRELLA:
                    continue
                local = os.path.exists(os.path.join(dirpath, inc)) or os.path.exists(os.path.join("programs", inc))
                if not local:
                    bad.append(f"{path}: includes \"{inc}\"; the CLI uses only public headers and its own")

    # 2: undefined symbols of each module's objects.
    if not a.no_symbols:
        objs = library_objects(a, sorted(modules & on_disk))
        definer = {}
        for mod, files in objs.items():
            if not files:
                continue
            for line in nm(["--defined-only", "-g"] + files):
                parts = line.split()
                if len(parts) == 3:
                    definer.setdefault(parts[2], mod)
        for mod, files in objs.items():
            for f in files:
                for line in nm(["-u", f]):
                    sym = line.split()[-1]
                    owner = definer.get(sym)
                    if owner is None:
                        if re.match(r"cl[A-Z]", sym) and mod != "device":
                            bad.append(f"{f}: calls OpenCL ({sym}); only device may")
                        continue
                    if owner == mod:
                        continue
                    used[mod].add(owner)
                    if owner not in allowed[mod]:
                        bad.append(f"{f}: uses {sym} ({mod} -> {owner}), not a layer {mod} may use")
        # Includes alone miss a use through another module's header: only with symbols.
        for mod in sorted(modules & on_disk):
            for u in sorted(allowed[mod] - used[mod]):
                bad.append(f"docs/ARCHITECTURE.md: module '{mod}' may use '{u}', but nothing in lib/{mod}/ or its "
                           f"public headers includes {u}'s headers or uses its symbols: drop '{u}' from its row")

    for line in bad:
        print("check-layers: " + line)
    if bad:
        print(f"check-layers: {len(bad)} violation{'s' if len(bad) != 1 else ''} of docs/ARCHITECTURE.md")
        return 1
    print(f"check-layers: {len(modules)} modules, includes{'' if a.no_symbols else ' and symbols'} point down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
