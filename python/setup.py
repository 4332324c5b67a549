"""Builds stepscope's CPython extension over libstepscope.

The extension is built against the limited API of CPython 3.9 (abi3), so one wheel
serves CPython 3.9 and every later version. The C library is compiled from this
repository's own sources (../lib) by setuptools' build_clib into a static archive the
extension links: the linker takes only the objects the binding uses, so the OpenCL
device layer (lib/device), which only `stepscope bench`'s own workloads need, is neither
compiled nor linked. Everything else is declarative (pyproject.toml)."""
import glob
import os
import re
import sys

import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_clib import build_clib
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
# c/lib and c/include are links to the repository's lib/ and include/: setuptools wants
# source paths relative to this folder and inside it.
LIB = "c/lib"
INCLUDE = "c/include"

# The modules of libstepscope the binding may reach (docs/ARCHITECTURE.md): readers and
# the model for traces, analyze for names, lanes and steps, hosts for several hosts of
# one run, bench for the harness, ledger (and its log parsers) for compile logs. Not
# device, trace, write or report.
MODULES = ["base", "model", "read", "analyze", "hosts", "bench", "ledger", "logparse"]
LIMITED_API = 0x03090000


def c_files(folder):
    return sorted(folder + "/" + f for f in os.listdir(os.path.join(HERE, folder)) if f.endswith(".c"))


def library_version():
    """MAJOR.MINOR.PATCH from include/stepscope/version.h: the string sts_version()
    returns, so stepscope.__version__ and the C library's agree by construction."""
    text = open(os.path.join(HERE, INCLUDE, "stepscope", "version.h")).read()
    parts = [re.search(r"#define STS_VERSION_%s\s+(\d+)" % k, text).group(1) for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


os.chdir(HERE)  # the paths below are relative to this folder, as setuptools wants them
if not os.path.isdir(os.path.join(HERE, LIB, "base")):
    sys.exit("stepscope: build from a clone of the repository (pip install ./python) or from its sdist: "
             "%s, a link to the C library's sources, is missing" % os.path.join(HERE, LIB))

VERSION = library_version()
MACROS = [("_GNU_SOURCE", None), ("STS_VERSION_STRING", '"%s"' % VERSION)]
CFLAGS = ["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"]
# The library's own warning policy is the Makefile's; STEPSCOPE_WERROR=1 (the test
# suite sets it) makes warnings in the binding's code errors.
EXT_CFLAGS = CFLAGS + (["-Werror"] if os.environ.get("STEPSCOPE_WERROR") == "1" else [])
core_sources = [f for m in MODULES if os.path.isdir(os.path.join(HERE, LIB, m)) for f in c_files(LIB + "/" + m)]

names = [os.path.basename(f) for f in core_sources]
if len(set(names)) != len(names):
    sys.exit("stepscope: two library sources share a file name (%s): their objects would replace each other "
             "in the archive" % ", ".join(sorted({n for n in names if names.count(n) > 1})))


class FreshArchive(build_clib):
    """`ar` adds members to an existing archive and never drops one, so an object of a
    source removed or renamed since the last build would stay in it and be linked:
    each build starts the archive afresh."""

    def build_libraries(self, libraries):
        for name, _ in libraries:
            stale = self.compiler.library_filename(name, output_dir=self.build_clib)
            if os.path.exists(stale):
                os.remove(stale)
        super().build_libraries(libraries)


class DefsCheckedExt(build_ext):
    """A shared object may keep undefined symbols for the loader, so a library function
    the binding calls but the archive lacks would fail at import, not here. The
    extension itself must leave CPython's API undefined (abi3: no libpython is named),
    so the check is a second link of the same objects with -Wl,-z,defs against this
    interpreter's libpython, into the build's temporary folder: any other undefined
    symbol fails the build, naming it. An interpreter without a shared libpython
    cannot check; it says so and builds."""

    def build_extension(self, ext):
        super().build_extension(ext)
        libdir, pylib = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY") or ""
        m = re.match(r"lib(python[\d.]+[a-z]*)\.so$", pylib)
        if not m or not libdir or not os.path.exists(os.path.join(libdir, pylib)):
            print("stepscope: no shared libpython (%r in %r): the -z defs link check is skipped" % (pylib, libdir))
            return
        objects = self.compiler.object_filenames(ext.sources, output_dir=self.build_temp)
        out = os.path.join(self.build_temp, "zdefs_check.so")
        self.compiler.link_shared_object(objects, out, libraries=ext.libraries + [m.group(1)],
                                         library_dirs=(ext.library_dirs or []) + self.library_dirs + [libdir],
                                         extra_postargs=["-Wl,-z,defs"])
        os.remove(out)


setup(
    version=VERSION,
    cmdclass={"build_clib": FreshArchive, "build_ext": DefsCheckedExt},
    libraries=[("stepscope_core", {
        "sources": core_sources,
        "include_dirs": [INCLUDE, LIB],
        "macros": MACROS,
        "cflags": CFLAGS,
    })],
    ext_modules=[Extension(
        "stepscope._stepscope",
        sources=c_files("ext"),
        # The archive is linked in: a change to any library source must relink.
        depends=core_sources + sorted(glob.glob("c/include/stepscope/*.h") + glob.glob("c/lib/*/*.h") +
                                      glob.glob("ext/*.h")),
        include_dirs=[INCLUDE],
        define_macros=MACROS + [("Py_LIMITED_API", hex(LIMITED_API))],
        extra_compile_args=EXT_CFLAGS,
        # The archive first: the linker then resolves its references to zlib after it.
        libraries=["stepscope_core", "z", "m", "pthread"],
        py_limited_api=True,
    )],
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)
