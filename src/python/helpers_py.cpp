// The Python source of kprof's helper module `_kprof`, run once when the interpreter starts
// (interpreter.cpp). Kept in Python because tracebacks and import machinery are Python's.
#include <string>

namespace kprof {

/// Source of `_kprof`: load_by_path(path, role, stem), describe(exc, tb, user_file, verbose),
/// type_name(obj), DeviceArray(ptr, count, typestr), same_storage(a, b), torch_precision(),
/// call_counting_flops(fn, kwargs), source_problem(path, name), function_params(path, name).
extern const char* const kKprofHelpersSource;

const char* const kKprofHelpersSource = R"PY(
import importlib.machinery
import importlib.util
import linecache
import os
import sys
import traceback


class _SourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles the source on every load: no stale .pyc is read and none is written next to
    the user's file (a file rewritten within the same second would otherwise run stale)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


_loaded = [0]


def load_by_path(path, role, stem):
    """Runs the file at `path` as a new module with a unique name, registered in sys.modules
    before it runs (Triton and dataclasses look it up there); its folder goes first on sys.path
    so its sibling modules import."""
    _loaded[0] += 1
    safe = "".join(c if (c.isalnum() or c == "_") else "_" for c in stem)
    name = "kprof_%s_%s_%d" % (role, safe, _loaded[0])
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    linecache.checkcache(path)
    importlib.invalidate_caches()
    loader = _SourceLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _real(path):
    try:
        return os.path.realpath(path)
    except Exception:
        return path or ""


def describe(exc, tb, user_file, verbose):
    """One line: '<file>:<line> in <function>: <Type>: <message>  ->  `<source line>`'.
    The frame is the innermost one in user_file, else the innermost one in user_file's folder
    outside site-packages, else none. A SyntaxError names its own file and line."""
    user = _real(user_file) if user_file else ""
    user_dir = os.path.dirname(user) if user else ""

    def show(filename):
        real = _real(filename)
        if user_dir and os.path.dirname(real) == user_dir:
            return os.path.basename(real)
        return filename

    kind = type(exc).__name__
    where = ""
    text = ""
    if isinstance(exc, SyntaxError) and getattr(exc, "filename", None):
        message = exc.msg or ""
        where = "%s:%s" % (show(exc.filename), exc.lineno)
        text = (exc.text or "").strip()
    else:
        try:
            message = str(exc)
        except Exception:
            message = "<the message could not be printed>"
        frames = traceback.extract_tb(tb) if tb is not None else []
        pick = None
        for frame in reversed(frames):
            if user and _real(frame.filename) == user:
                pick = frame
                break
        if pick is None and user_dir:
            for frame in reversed(frames):
                real = _real(frame.filename)
                if real.startswith(user_dir + os.sep) and "site-packages" not in real:
                    pick = frame
                    break
        if pick is not None:
            where = "%s:%s in %s" % (show(pick.filename), pick.lineno, pick.name)
            text = (pick.line or "").strip()
    head = kind + (": " + message if message else "")
    out = (where + ": " + head) if where else head
    if text:
        out += "  ->  `" + text + "`"
    if verbose:
        out += "\n" + "".join(traceback.format_exception(type(exc), exc, tb)).rstrip()
    return out


def type_name(obj):
    """'int', 'list', 'torch.Tensor', 'numpy.ndarray': for messages."""
    t = type(obj)
    module = getattr(t, "__module__", None)
    if module in (None, "builtins"):
        return t.__qualname__
    return module + "." + t.__qualname__


class DeviceArray:
    """A 1-D __cuda_array_interface__ (version 3) over device memory kprof owns."""

    def __init__(self, ptr, count, typestr):
        self.__cuda_array_interface__ = {
            "version": 3,
            "shape": (count,),
            "typestr": typestr,
            "data": (ptr, False),
            "strides": None,
        }


def same_storage(a, b):
    """True when tensors a and b view the same memory (a returned tensor that IS a given output,
    or a view of it)."""
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except Exception:
        return a.data_ptr() == b.data_ptr()


def torch_precision():
    """(matmul_tf32, cudnn_tf32, float32_matmul_precision) as PyTorch is set now, or None when
    torch is not loaded. Reads both the allow_tf32 flags and the newer fp32_precision settings."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matmul = cudnn = False
        precision = ""
        try:
            matmul = bool(torch.backends.cuda.matmul.allow_tf32)
        except Exception:
            pass
        try:
            matmul = matmul or str(torch.backends.cuda.matmul.fp32_precision) == "tf32"
        except Exception:
            pass
        try:
            cudnn = bool(torch.backends.cudnn.allow_tf32)
        except Exception:
            pass
        try:
            precision = str(torch.get_float32_matmul_precision())
        except Exception:
            pass
    return (matmul, cudnn, precision)


def call_counting_flops(fn, kwargs):
    """fn(**kwargs) under PyTorch's FlopCounterMode. Returns (result, count): count is
    (total FLOPs, [(op, FLOPs), ...] largest first) as FlopCounterMode counts them (matmul, bmm,
    convolution, scaled_dot_product_attention, ...; an FMA counts 2; other ops count nothing), or
    a string saying why nothing was counted: torch is not loaded (never imported here), it has no
    FlopCounterMode, or the mode could not start or be read. An exception inside fn propagates."""
    torch = sys.modules.get("torch")
    if torch is None:
        return fn(**kwargs), "torch is not loaded"
    try:
        from torch.utils.flop_counter import FlopCounterMode
        mode = FlopCounterMode(display=False)
    except Exception as e:
        return fn(**kwargs), "PyTorch has no usable FlopCounterMode (%s: %s)" % (type(e).__name__, e)
    with mode:
        result = fn(**kwargs)
    try:
        total = int(mode.get_total_flops())
        counts = mode.get_flop_counts()
        ops = counts.get("Global")
        if ops is None:  # older layouts: sum the modules' counts
            ops = {}
            for per_module in counts.values():
                for op, n in per_module.items():
                    ops[op] = ops.get(op, 0) + n
        by_op = sorted(((str(op), int(n)) for op, n in ops.items() if n), key=lambda x: -x[1])
    except Exception as e:
        return result, "PyTorch's FlopCounterMode could not be read (%s: %s)" % (type(e).__name__, e)
    return result, (total, by_op)


def source_problem(path, name):
    """What stops `path` from defining `name`, read without running it: "" when fine, else
    (line, message, line text). Lenient: any binding of `name` anywhere (def, assignment,
    import) counts, and a star import may provide it."""
    import ast
    with open(path, encoding="utf-8", errors="replace") as f:
        src = f.read()
    try:
        tree = ast.parse(src, filename=path)
    except SyntaxError as e:
        text = (e.text or "").strip()
        return (e.lineno or 0, "SyntaxError: " + str(e.msg), text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ""
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return ""
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[-1]) in (name, "*"):
            return ""
    return (0, "defines no function `" + name + "`", "")


def function_params(path, name):
    """The parameter names of the module-level `def name(...)` in `path`, read without running
    it, "**" standing for a **kwargs catch-all; None when there is no such def or the file does
    not parse."""
    import ast
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            tree = ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            a = node.args
            names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
            return names + (["**"] if a.kwarg else [])
    return None
)PY";

}  // namespace kprof
