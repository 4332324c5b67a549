"""The package's type stubs (python/src/stepscope/*.pyi, shipped beside py.typed) cover
its public API and agree with it: every name of stepscope.__all__ defined in a module
that has a stub is in that stub, and every function and method there takes the
parameters the code takes, by name, kind and order (a stub that drifted from the code
types calls that fail)."""
import ast
import glob
import inspect
import os

import stepscope

PKG = os.path.dirname(stepscope.__file__)


def stub_tree(module):
    path = os.path.join(PKG, module + ".pyi")
    return ast.parse(open(path).read(), path) if os.path.exists(path) else None


def stub_params(fn):
    a = fn.args
    kinds = [(x.arg, "POSITIONAL_ONLY") for x in a.posonlyargs] + [(x.arg, "POSITIONAL_OR_KEYWORD") for x in a.args]
    if a.vararg:
        kinds.append((a.vararg.arg, "VAR_POSITIONAL"))
    kinds += [(x.arg, "KEYWORD_ONLY") for x in a.kwonlyargs]
    if a.kwarg:
        kinds.append((a.kwarg.arg, "VAR_KEYWORD"))
    return kinds


def code_params(obj):
    return [(p.name, p.kind.name) for p in inspect.signature(obj).parameters.values()]


def test_stubs_ship_with_the_package():
    assert os.path.exists(os.path.join(PKG, "py.typed"))
    assert {os.path.basename(p) for p in glob.glob(os.path.join(PKG, "*.pyi"))} >= {
        "_trace.pyi", "_hosts.pyi", "_ledger.pyi", "_bench.pyi", "_json_doc.pyi", "_stepscope.pyi"}


def test_every_public_name_is_in_its_modules_stub():
    checked = 0
    for name in stepscope.__all__:
        if name in ("jax", "torch", "__version__"):
            continue
        obj = getattr(stepscope, name)
        module = obj.__module__.rsplit(".", 1)[-1]
        tree = stub_tree(module)
        if tree is None:
            continue
        defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        assert name in defs, "%s is not in %s.pyi" % (name, module)
        stub = defs[name]
        if isinstance(stub, ast.FunctionDef):
            assert stub_params(stub) == code_params(obj), name
            checked += 1
            continue
        for m in stub.body:
            if isinstance(m, ast.FunctionDef) and not any(
                    isinstance(d, ast.Name) and d.id == "overload" for d in m.decorator_list):
                attr = inspect.getattr_static(obj, m.name)
                if isinstance(attr, property):
                    continue
                assert stub_params(m) == code_params(attr), "%s.%s" % (name, m.name)
                checked += 1
    assert checked >= 20, checked
