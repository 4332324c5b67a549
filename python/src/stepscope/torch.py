"""stepscope for PyTorch: benchmark a function on tensors lesson 1's way.

    r = stepscope.torch.bench(model, x, check=reference)

On a CUDA device the completion boundary is torch.cuda.synchronize(device) (kernels
are queued; the call returns before they finish); on the CPU, eager PyTorch returns
finished work, so the call itself is the interval and no dispatch-only series is
reported. The report names PyTorch, its CUDA version and the device."""
import platform

import numpy as np

from ._bench import DEFAULT_ATOL, DEFAULT_RTOL
from ._bench import bench as _bench


def _torch():
    import torch  # imported when used: `import stepscope` stays cheap and torch-free

    return torch


def _device_of(args):
    torch = _torch()
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.device
    return torch.device("cpu")


def runtime(args=()):
    """(backend, device, versions, ready) for PyTorch and the first tensor argument's device."""
    torch = _torch()
    dev = _device_of(args)
    versions = {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__}
    ready = None
    name = str(dev)
    if dev.type == "cuda":
        versions["cuda"] = str(torch.version.cuda)
        versions["device_kind"] = torch.cuda.get_device_name(dev)
        name = "%s (%s)" % (dev, versions["device_kind"])

        def ready(_result, _dev=dev):
            torch.cuda.synchronize(_dev)

    return "PyTorch %s on %s" % (torch.__version__, dev.type), name, versions, ready


def bench(f, *args, check=None, atol=DEFAULT_ATOL, rtol=DEFAULT_RTOL, repeats=7, warmup=0, **kw):
    """stepscope.bench with PyTorch's specifics: on CUDA, inputs are synchronized before
    any clock and each sample ends at torch.cuda.synchronize(); the report names
    PyTorch, CUDA and the device. Tensors in the result and the reference are compared
    on the host, after the clock. Everything else is stepscope.bench's."""
    backend, device, versions, ready = runtime(args)
    versions.update(kw.pop("versions", None) or {})
    if ready is not None:
        kw.setdefault("boundary", "inputs on the device and synchronized; call plus torch.cuda.synchronize()")
        kw.setdefault("setup", lambda: ready(None))
    else:
        kw.setdefault("boundary", "eager CPU call, complete when it returns")
    return _bench(f, *args, ready=ready, check=check, atol=atol, rtol=rtol, repeats=repeats, warmup=warmup,
                  backend=kw.pop("backend", backend), device=kw.pop("device", device), versions=versions, **kw)
