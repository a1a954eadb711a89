"""The student side of grading: run a submission's cells in a restricted process and answer
the grader.

``homework/grading.py`` starts this file as a child process, one per submission, and talks to it
over the child's standard input and output, one JSON message per line. The submission's own
printing goes to ``stdout.log`` and ``stderr.log`` in its working folder, never into that channel.
The child:

1. imports what the homework uses (numpy, scipy, scikit-learn, matplotlib, IPython, ``lsl_lib``);
2. replaces the functions named by ``--forbid`` (the library's answers to questions, e.g.
   ``lsl_lib.theory.kernel_rademacher_bound``) by functions that raise, so that calling them in
   place of the asked computation earns nothing;
3. restricts itself (Linux Landlock, where the kernel has it): it may read the Python installation,
   the system's libraries, ``lsl_lib`` and the data folders given by ``--read``, read and write its
   working folder, and nothing else: not the masters, the autograder or the lecturer's files; it may
   not open TCP connections nor signal a process outside itself. The restriction is inherited by
   every process it starts and cannot be lifted;
4. serves requests: ``run`` a cell's source in the submission's namespace (an IPython shell, so
   magics work), ``get`` a name of that namespace, ``call``/``getattr``/``getitem``/``len`` on an
   object it handed out as a reference. Results go back as values (numbers, strings, numeric numpy
   arrays, and lists, tuples and dicts of those) or as references to objects that stay here.

The grader compares results in its own process: whatever the submission patches here (numpy,
otter, the library) changes only the values it hands back.
"""
import argparse
import base64
import ctypes
import importlib
import json
import os
import sys
import traceback

import numpy as np

MAX_MESSAGE = 256 * 2**20


# --------------------------------------------------------------------------------------------------
# values on the wire (the grader decodes with the same rules: homework/grading.py imports these)

def encode(value, on_object):
    """JSON-able form of ``value``; ``on_object(obj)`` encodes what is not plain data (or
    raises)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value) in (int, float):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return {"t": "nd", "dtype": value.dtype.str, "shape": None,
                "b64": base64.b64encode(np.asarray(value).tobytes()).decode()}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        data = np.ascontiguousarray(value)
        return {"t": "nd", "dtype": data.dtype.str, "shape": list(data.shape),
                "b64": base64.b64encode(data.tobytes()).decode()}
    if type(value) in (list, tuple):
        return {"t": type(value).__name__, "v": [encode(item, on_object) for item in value]}
    if type(value) is dict:
        return {"t": "dict", "k": [encode(key, on_object) for key in value],
                "v": [encode(item, on_object) for item in value.values()]}
    if isinstance(value, np.random.Generator):
        return {"t": "rng", "state": value.bit_generator.state}
    return on_object(value)


BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


def generator_from_state(state):
    """A numpy ``Generator`` in the state ``state`` (a ``bit_generator.state`` dict)."""
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if name not in BIT_GENERATORS:
        raise ValueError(f"unknown bit generator {name!r}")
    generator = np.random.Generator(getattr(np.random, name)())
    generator.bit_generator.state = state
    return generator


def decode(data, resolve):
    """The value of ``data`` (see :func:`encode`); ``resolve(message)`` turns a reference into a
    value."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if not isinstance(data, dict):
        raise ValueError(f"not a value on the wire: {type(data).__name__}")
    kind = data.get("t")
    if kind == "nd":
        dtype = np.dtype(data["dtype"])
        if dtype.kind not in "biufc":
            raise ValueError(f"refused array dtype {dtype}")
        raw = base64.b64decode(data["b64"])
        if data["shape"] is None:
            return np.frombuffer(raw, dtype=dtype, count=1)[0]
        shape = tuple(int(n) for n in data["shape"])
        if int(np.prod(shape)) * dtype.itemsize != len(raw):
            raise ValueError("array bytes do not match its shape")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if kind in ("list", "tuple"):
        items = [decode(item, resolve) for item in data["v"]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {decode(key, resolve): decode(item, resolve)
                for key, item in zip(data["k"], data["v"], strict=True)}
    if kind in ("rng", "ref"):
        return resolve(data)
    raise ValueError(f"unknown value kind {kind!r}")


# --------------------------------------------------------------------------------------------------
# Landlock (Linux >= 5.13): an unprivileged process restricts itself and all its descendants

_READ = 1 | 4 | 8                       # EXECUTE, READ_FILE, READ_DIR
_WRITE = (2 | 16 | 32 | 128 | 256 | 512 | 1024 | 4096  # WRITE_FILE, REMOVE_*,
          # MAKE_DIR/REG/SOCK/FIFO/SYM
          | 8192 | 16384)               # REFER (ABI 2), TRUNCATE (ABI 3)
_DEVICES = 64 | 2048                    # MAKE_CHAR, MAKE_BLOCK


def _handled_fs(abi):
    handled = _READ | _WRITE | _DEVICES
    if abi < 2:
        handled &= ~8192
    if abi < 3:
        handled &= ~16384
    if abi >= 5:
        handled |= 32768                # IOCTL_DEV
    return handled


def landlock_abi():
    """The kernel's Landlock ABI version, or 0 where it has none (other systems, old kernels)."""
    if not sys.platform.startswith("linux"):
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    version = libc.syscall(444, None, 0, 1)   # landlock_create_ruleset(NULL, 0, VERSION)
    return max(int(version), 0)


def restrict(read_paths, write_paths):
    """Allow reading ``read_paths`` and reading and writing ``write_paths``, nothing else.

    Also forbids TCP (ABI 4) and signals or abstract sockets to processes outside (ABI 6).
    Returns the ABI used; raises ``OSError`` where Landlock is missing or refuses.
    """
    abi = landlock_abi()
    if abi < 1:
        raise OSError("the kernel has no Landlock")
    libc = ctypes.CDLL(None, use_errno=True)
    handled = _handled_fs(abi)
    attr = (ctypes.c_uint64 * 3)(handled, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    size = 8 * (3 if abi >= 6 else 2 if abi >= 4 else 1)
    ruleset = libc.syscall(444, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    def allow(path, access):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        if not os.path.isdir(path):
            access &= 2 | 4 | 1 | 16384 | 32768   # a file: execute, read, write, truncate, ioctl
        rule = PathBeneath(access & handled, fd)
        if libc.syscall(445, ruleset, 1, ctypes.byref(rule), 0) < 0:   # LANDLOCK_RULE_PATH_BENEATH
            error = ctypes.get_errno()
            os.close(fd)
            raise OSError(error, f"landlock_add_rule {path}")
        os.close(fd)

    for path in read_paths:
        allow(path, _READ)
    for path in write_paths:
        allow(path, _READ | _WRITE)
    if libc.prctl(38, 1, 0, 0, 0) != 0:         # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.syscall(446, ruleset, 0) != 0:      # landlock_restrict_self
        raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    os.close(ruleset)
    return abi


def system_read_paths():
    """What Python, numpy, scikit-learn and numba need to read: the installation and the system."""
    import site

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable))}
    paths.update(site.getsitepackages())
    for name in ("numpy", "scipy", "sklearn", "matplotlib", "IPython", "numba", "llvmlite",
                 "lsl_lib"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            paths.add(os.path.dirname(os.path.realpath(module.__file__)))
    paths.update(["/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/proc", "/sys",
                  "/opt/conda"])
    return sorted(path for path in paths if os.path.exists(path))


# --------------------------------------------------------------------------------------------------
# the submission's namespace

def _refuse(name):
    def forbidden(*args, **kwargs):
        raise RuntimeError(f"{name} is not available while grading: the question asks for the "
                           "computation itself")
    forbidden.__name__ = name.rsplit(".", 1)[-1]
    return forbidden


def forbid(names):
    """Replace each function ``package.module.function`` of ``names`` by one that raises."""
    for name in names:
        module_name, attribute = name.rsplit(".", 1)
        module = importlib.import_module(module_name)
        if hasattr(module, attribute):
            setattr(module, attribute, _refuse(name))


def _serve(channel_in, channel_out, shell):
    refs, generators = [], []

    def reference(value):
        refs.append(value)
        return {"t": "ref", "id": len(refs) - 1, "type": type(value).__name__}

    def resolve_arg(data):
        if data["t"] == "ref":
            return refs[data["id"]]
        generator = generator_from_state(data["state"])
        generators.append(generator)
        return generator

    def reply(message):
        channel_out.write(json.dumps(message) + "\n")
        channel_out.flush()

    for line in channel_in:
        del generators[:]
        try:
            request = json.loads(line)
            op = request["op"]
            if op == "run":
                result = shell.run_cell(request["source"], store_history=False, silent=True)
                error = result.error_before_exec or result.error_in_exec
                reply({"ok": error is None,
                       "error": None if error is None else f"{type(error).__name__}: {error}"})
                continue
            if op == "get":
                value = shell.user_ns[request["name"]]
            else:
                target = refs[request["ref"]]
                if op == "call":
                    args = decode(request["args"], resolve_arg)
                    kwargs = decode(request["kwargs"], resolve_arg)
                    value = target(*args, **kwargs)
                elif op == "getattr":
                    value = getattr(target, request["name"])
                elif op == "getitem":
                    value = target[decode(request["key"], resolve_arg)]
                elif op == "len":
                    value = len(target)
                else:
                    raise ValueError(f"unknown request {op!r}")
            message = {"ok": True, "value": encode(value, reference),
                       "generators": [g.bit_generator.state for g in generators]}
        except KeyboardInterrupt:
            message = {"ok": False, "error": "KeyboardInterrupt: stopped at the time limit"}
        except BaseException as error:  # noqa: BLE001 (everything the submission raises is an answer)
            if isinstance(error, KeyError) and request.get("op") == "get":
                message = {"ok": False,
                           "error": f"NameError: name {request['name']!r} is not defined"}
            else:
                message = {"ok": False, "error": f"{type(error).__name__}: {error}"[:2000]}
        try:
            reply(message)
        except (TypeError, ValueError) as error:
            reply({"ok": False, "error": f"could not send the result: {error}"})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--read", action="append", default=[], help="a folder it may read")
    parser.add_argument("--forbid", action="append", default=[], help="a function that must raise")
    parser.add_argument("--no-landlock", action="store_true",
                        help="do not restrict the file system (Docker mode restricts from outside)")
    args = parser.parse_args(argv)

    # the channel: the original stdin/stdout; the submission prints into log files
    channel_in = os.fdopen(os.dup(0), "r", buffering=1)
    channel_out = os.fdopen(os.dup(1), "w", buffering=1)
    workdir = os.getcwd()
    for fd, name in ((1, "stdout.log"), (2, "stderr.log")):
        log = os.open(os.path.join(workdir, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, fd)
        os.close(log)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)

    status = {"landlock": 0}
    try:
        import IPython.core.interactiveshell as interactiveshell
        import matplotlib
        matplotlib.use("Agg")
        import scipy.linalg  # noqa: F401  (imported before the restriction: faster, and always readable)
        import sklearn.base  # noqa: F401
        import lsl_lib  # noqa: F401
        forbid(args.forbid)
        shell = interactiveshell.InteractiveShell.instance(colors="NoColor")
        shell.enable_gui = lambda gui=None: None     # `%matplotlib inline` without a front end
        if not args.no_landlock:
            try:
                status["landlock"] = restrict(system_read_paths() + args.read,
                                              [workdir, "/dev"])
            except OSError as error:
                status["landlock_error"] = str(error)
    except BaseException:  # noqa: BLE001
        channel_out.write(json.dumps({"ok": False, "error": traceback.format_exc()[-2000:]}) + "\n")
        channel_out.flush()
        return 1
    channel_out.write(json.dumps({"ok": True, "status": status}) + "\n")
    channel_out.flush()
    _serve(channel_in, channel_out, shell)
    return 0


if __name__ == "__main__":
    sys.exit(main())
