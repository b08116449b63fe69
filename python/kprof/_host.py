"""How the C++ core learns which Python hosts it (kprof._core.set_host).

The core runs inside this interpreter: the references, the Triton / CuTe DSL kernels and the
probes use this Python and its PyTorch, and kprof's own children are started again as
``sys.executable -m kprof``. CUPTI is loaded at run time; the nvidia-cuda-cupti wheels of sys.path
(PyTorch's, or a newer one) are handed to the core's search (src/device/cupti_loader.hpp).
"""

from __future__ import annotations

import glob
import os
import re
import sys
from typing import List, Tuple

_prepared = False


def _version_key(text: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:4])


def cupti_wheel_dirs() -> List[str]:
    """Folders holding libcupti.so.13 of the nvidia-cuda-cupti wheels on sys.path, newest first.

    The version is read from the wheel's ``nvidia_cuda_cupti-<version>.dist-info`` folder beside it
    (no import, no metadata scan: this runs at the start of every GPU command).
    """
    found = []
    for site in sys.path:
        if not site or not os.path.isdir(os.path.join(site, "nvidia")):
            continue
        versions = [os.path.basename(p)[len("nvidia_cuda_cupti-"):-len(".dist-info")]
                    for p in glob.glob(os.path.join(site, "nvidia_cuda_cupti-*.dist-info"))]
        version = max(versions, key=_version_key) if versions else "0"
        for sub in ("nvidia/cu13/lib", "nvidia/cuda_cupti/lib"):
            lib = os.path.join(site, sub)
            if os.path.exists(os.path.join(lib, "libcupti.so.13")):
                found.append((_version_key(version), lib))
    found.sort(key=lambda item: item[0], reverse=True)
    out: List[str] = []
    for _, lib in found:
        if lib not in out:
            out.append(lib)
    return out


def prepare(owns_stdout: bool) -> object:
    """Imports kprof._core and tells it its host (once per process); returns the module.

    ``owns_stdout``: this process is kprof's own (the console script, ``python -m kprof``), so
    print() in user code goes to stderr and stdout stays machine-readable, as with the executable.
    """
    global _prepared
    from kprof import _core  # the C++ core (kprof/_core.*.so)

    if not _prepared:
        _core.set_host(sys.executable, [sys.executable, "-m", "kprof"], owns_stdout, cupti_wheel_dirs())
        _prepared = True
    return _core
