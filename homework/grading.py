"""Grade a class's submissions safely: the tests run in the grader, the submission in a sandbox.

``python homework/build.py grade-class <hw> <folder>`` (see ``homework/README.md``) calls
:func:`grade_class`, which grades several submissions at a time, each in a grader process that
grades one submission after another (a process that passes the time limit of a whole submission is
killed and replaced):

* the **student side** (``homework/sandbox.py``) is a child process that runs the submission's code
  cells in order, with a time limit per cell and per call, a memory limit, and (Linux Landlock, or
  Docker with ``--docker``) no access to files outside its own folder but the Python installation,
  ``lsl_lib`` and the data. A cell that loops is interrupted at its limit; a cell that kills the
  process is skipped and the process restarted with the cells before it, so a loop or a crash costs
  the questions that need that cell, not the rest. Its folder starts with a copy of numba's cache
  from one run of the master's code (:func:`numba_seed`), so that the library's fast paths are
  compiled once per class, not once per submission;
* the **grader side** (this module) runs the master's cells tagged ``grader-setup`` (imports, data,
  the term's parameters, with the lecturer's ``TERM_SEED``) in its own namespace, then each test
  cell of the master in a copy of it. A name a test reads that is not defined there is fetched from
  the student side: plain values (numbers, strings, numeric arrays, lists and dicts of them) as
  values, anything else as a :class:`Remote` whose calls and attributes run on the student side.
  The comparisons run here, with this process's numpy: a submission that patches numpy, otter or
  the library changes only its own answers. The hidden tests never reach the student side.

Each test case (one test cell) is worth an equal share of its question's points, as in otter.
The result of a class: ``grades.csv`` (one row per student: each question, the autograded total,
the status, the flags) and ``feedback/<student>.md`` (per question: the score, each public case's
error, which hidden cases failed, the cells that failed or were stopped).
"""
import argparse
import builtins
import concurrent.futures
import contextlib
import copy
import csv
import importlib.util
import io
import json
import os
import queue
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HOMEWORK = Path(__file__).resolve().parent
ROOT = HOMEWORK.parent


def _load_sandbox():
    """``homework/sandbox.py`` as a module (the wire format is shared with the student side)."""
    if "lsl_homework_sandbox" not in sys.modules:
        spec = importlib.util.spec_from_file_location("lsl_homework_sandbox",
                                                      HOMEWORK / "sandbox.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["lsl_homework_sandbox"] = module
    return sys.modules["lsl_homework_sandbox"]


# --------------------------------------------------------------------------------------------------
# notebooks, read as JSON

@dataclass
class Cell:
    cell_type: str
    source: str
    metadata: dict


@dataclass
class Notebook:
    cells: list
    metadata: dict


def read_notebook(path):
    """The cells and metadata of the notebook file ``path``.

    A notebook of format 4 (what Jupyter has saved since 2015) is read as JSON, without
    ``nbformat``: importing ``nbformat`` imports ``jsonschema``, whose format checkers compile
    some forty grammars on import, about 1.5 s of CPU in each grader process, five CPU-minutes
    for a class of 200. An older format goes through ``nbformat``, which converts it.

    Raises
    ------
    ValueError
        If the file is not JSON; ``nbformat``'s own errors for JSON that is not a notebook.
    """
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict) or data.get("nbformat") != 4:
        import nbformat

        data = nbformat.read(path, as_version=4)
    cells = []
    for cell in data["cells"]:
        source = cell.get("source", "")
        cells.append(Cell(cell_type=cell.get("cell_type", ""),
                          source=source if isinstance(source, str) else "".join(source),
                          metadata=cell.get("metadata") or {}))
    return Notebook(cells=cells, metadata=data.get("metadata") or {})


# --------------------------------------------------------------------------------------------------
# the assignment, read from its master

@dataclass
class Question:
    name: str
    points: float
    manual: bool
    prompt: str = ""
    rubric: str = ""
    tests: list = field(default_factory=list)      # [(code, hidden)]


@dataclass
class Assignment:
    name: str
    setup: list                                      # sources of the grader-setup cells
    questions: list
    forbidden: list
    code: list = field(default_factory=list)         # the master's code as a submission runs it

    @property
    def autograded(self):
        return [question for question in self.questions if not question.manual]


TERM_SEED_LINE = re.compile(r"^TERM_SEED = \d+", re.M)
OTTER_CELL = re.compile(r'^\s*(#.*\n\s*)*(import otter\s*\n\s*grader = otter\.Notebook\([^)]*\)'
                        r'|grader\.(check|check_all|export)\([^)]*\))\s*$')

# where the library's versions of the homework's results live: while grading, the student side
# gets functions that raise instead, but for the tools the master's own code calls
ANSWER_MODULES = ["lsl_lib.theory"]


def _option(source, key):
    match = re.search(rf"^{key}:\s*(.+?)\s*$", source, re.M)
    return match.group(1) if match else None


def load_assignment(master, term_seed=None):
    """Questions, tests, setup cells and forbidden functions of the master notebook ``master``.

    Forbidden: the functions of :data:`ANSWER_MODULES` that the master's code cells (given or
    solution, not tests) do not call: the library's answers, which the master itself never needs.

    ``term_seed`` replaces the integer of the setup cells' line ``TERM_SEED = <int>``.
    """
    master = Path(master)
    nb = read_notebook(master)
    setup, questions, question, block, given = [], [], None, None, []
    for cell in nb.cells:
        source = cell.source
        if cell.cell_type == "code" and block != "tests":
            given.append(source)
        if cell.cell_type == "raw":
            head = source.strip().splitlines()[0] if source.strip() else ""
            if head == "# BEGIN QUESTION":
                question = Question(name=_option(source, "name"),
                                    points=float(_option(source, "points") or 0),
                                    manual=(_option(source, "manual") or "").lower() == "true")
                questions.append(question)
            elif head == "# END QUESTION":
                question = None
            elif head in ("# BEGIN SOLUTION", "# BEGIN TESTS"):
                block = head.split()[-1].lower()
            elif head in ("# END SOLUTION", "# END TESTS"):
                block = None
            continue
        if cell.cell_type == "code" and "grader-setup" in cell.metadata.get("tags", []):
            if term_seed is not None:
                source = TERM_SEED_LINE.sub(f"TERM_SEED = {int(term_seed)}", source)
            setup.append(source)
        if question is None:
            continue
        if block == "tests" and cell.cell_type == "code":
            lines = source.splitlines()
            hidden = bool(lines) and lines[0].strip() == "# HIDDEN"
            question.tests.append(("\n".join(lines[1:]) if hidden else source, hidden))
        elif (block == "solution" and cell.cell_type == "markdown"
              and source.lstrip().startswith("**Rubric")):
            question.rubric += source + "\n\n"
        elif block is None and cell.cell_type == "markdown" and not question.prompt:
            question.prompt = source
    code = [source for source in given if not OTTER_CELL.match(source)]
    given = "\n".join(given)
    forbidden = [name for name in _expand_forbidden(ANSWER_MODULES)
                 if not re.search(rf"\b{name.rsplit('.', 1)[1]}\b", given)]
    return Assignment(name=master.stem, setup=setup, questions=questions, forbidden=forbidden,
                      code=code)


def _expand_forbidden(names):
    """Module names become the list of their public functions (``__all__`` or no underscore)."""
    import importlib
    import inspect

    expanded = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:
            expanded.append(name)
            continue
        public = getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")])
        expanded += [f"{name}.{n}" for n in public
                     if inspect.isfunction(getattr(module, n, None))
                     and getattr(module, n).__module__ == name]
    return expanded


# --------------------------------------------------------------------------------------------------
# the student side

class StudentError(Exception):
    """The submission's code raised (its message is the submission's own)."""


class StudentTimeout(StudentError):
    """The submission's code ran past its time limit."""


class StudentCrash(StudentError):
    """The submission's process died."""


_STUDENT_ERRORS = {}


def student_error(text):
    """The error ``"Name: message"`` that the submission raised, as an exception of the grader.

    A built-in exception keeps its class (a test may expect the submission's ``ValueError``): the
    raised class derives from it and from :class:`StudentError`.
    """
    name, _, message = text.partition(": ")
    base = getattr(builtins, name, None)
    if (isinstance(base, type) and issubclass(base, Exception)
            and not issubclass(base, (OSError, SyntaxError, UnicodeError))):
        if name not in _STUDENT_ERRORS:
            _STUDENT_ERRORS[name] = type(name, (base, StudentError),
                                         {"__str__": lambda self: self._text})
        error = _STUDENT_ERRORS[name](message)
        error._text = text
        return error
    return StudentError(text)


@dataclass
class Limits:
    cell: float = 300.0          # seconds per cell of the submission
    call: float = 120.0          # seconds per call from a test
    start: float = 180.0         # seconds to start the student process
    memory: int = 8 * 2**30      # bytes of address space of the student process
    restarts: int = 8            # restarts after a crash or a stuck interrupt


DEFAULT_LIMITS = Limits()


def sandbox_command(docker_image=None, read_paths=(), forbidden=(), workdir=None, name=None):
    """The command that starts the student side: a local process, or a Docker container."""
    args = [f"--read={path}" for path in read_paths] + [f"--forbid={f}" for f in forbidden]
    if docker_image is None:
        return [sys.executable, str(HOMEWORK / "sandbox.py"), *args]
    return ["docker", "run", "--rm", "-i", "--name", name, "--network", "none",
            "--user", f"{os.getuid()}:{os.getgid()}", "--security-opt", "no-new-privileges",
            "--memory", "4g", "--pids-limit", "256", "--cpus", "1", "--read-only",
            "--tmpfs", "/tmp", "-v", f"{workdir}:/submission", "-w", "/submission",
            "-e", "HOME=/submission", "-e", "MPLCONFIGDIR=/submission/.matplotlib",
            "-e", "NUMBA_CACHE_DIR=/submission/.numba", "-e", "TMPDIR=/submission/tmp",
            docker_image, "python", "/opt/lsl/homework/sandbox.py",
            *[f"--forbid={f}" for f in forbidden]]


def data_read_paths():
    """The folders the student side may read besides the installation: lsl_lib, data, shared
    data."""
    import lsl_lib

    paths = [Path(lsl_lib.__file__).resolve().parent, ROOT / "data"]
    shared = os.environ.get("LSL_SHARED_DATA")
    if shared:
        paths.append(Path(shared))
    paths.append(ROOT.parent / "shared" / "data")
    return [str(path) for path in paths if path.exists()]


class Student:
    """The submission's cells running in a sandboxed child process, restarted after a crash."""

    def __init__(self, cells, workdir, forbidden, limits, docker_image=None, log=None):
        self.cells, self.workdir, self.forbidden = cells, Path(workdir), forbidden
        self.limits, self.docker_image = limits, docker_image
        self.outcomes = {}          # cell index -> "ok" | error text
        self.skip = set()           # cells that crashed or could not be interrupted
        self.restarts = 0
        self.process = None
        self.landlock = None
        self.log = log if log is not None else []

    # -- the process
    def _environment(self):
        env = {key: value for key, value in os.environ.items()
               if key in ("PATH", "LANG", "LC_ALL", "LSL_SHARED_DATA", "PYTHONPATH", "VIRTUAL_ENV")}
        tmp = self.workdir / "tmp"
        tmp.mkdir(exist_ok=True)
        env.update(HOME=str(self.workdir), TMPDIR=str(tmp), MPLBACKEND="Agg",
                   MPLCONFIGDIR=str(self.workdir / ".matplotlib"),
                   NUMBA_CACHE_DIR=str(self.workdir / ".numba"), OMP_NUM_THREADS="1",
                   OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1",
                   PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
        return env

    def _limit_resources(self):
        import resource

        if sys.platform.startswith("linux"):
            # killed with its grader (a grader past the time limit of a whole submission is
            # killed from outside; what the submission started itself is reaped by the grader)
            import ctypes
            ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)      # PR_SET_PDEATHSIG
        resource.setrlimit(resource.RLIMIT_AS, (self.limits.memory, self.limits.memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (2**30, 2**30))

    def start(self):
        """Start the child and run every cell not skipped, in order."""
        self.stop()
        self.container = f"lsl-grade-{uuid.uuid4().hex[:12]}" if self.docker_image else None
        command = sandbox_command(self.docker_image, data_read_paths(), self.forbidden,
                                  self.workdir, self.container)
        self.process = subprocess.Popen(
            command, cwd=self.workdir, env=self._environment(), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=None if self.docker_image else self._limit_resources)
        self._buffer = b""
        hello = self._receive(self.limits.start)
        if not hello.get("ok"):
            raise RuntimeError(f"the student process did not start: {hello.get('error')}")
        self.landlock = hello["status"].get("landlock", 0)
        for index, source in enumerate(self.cells):
            if index in self.skip:
                continue
            try:
                reply = self.request({"op": "run", "source": source}, self.limits.cell)
                self.outcomes[index] = "ok" if reply.get("ok") else reply["error"]
            except StudentTimeout as error:
                self.outcomes[index] = str(error)
                self.skip.add(index)            # it would time out again after a restart
                if self.process is None:        # it did not stop when interrupted
                    return self._restart()
            except StudentCrash as error:
                self.outcomes[index] = str(error)
                self.skip.add(index)
                return self._restart()
        return self

    def _restart(self):
        self.restarts += 1
        if self.restarts > self.limits.restarts:
            raise StudentCrash(f"the submission's process died {self.restarts} times")
        return self.start()

    def stop(self):
        if self.process is None:
            return
        if self.container:
            subprocess.run(["docker", "kill", self.container], capture_output=True, check=False)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            pipe.close()
        self.process = None

    # -- the channel
    def _receive(self, timeout):
        deadline = time.monotonic() + timeout
        limit = _load_sandbox().MAX_MESSAGE
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise TimeoutError
                chunk = os.read(self.process.stdout.fileno(), 2**20)
                if not chunk:
                    try:
                        code = self.process.wait(timeout=5)
                    except subprocess.TimeoutExpired:
                        code = "unknown"
                    raise StudentCrash(f"the submission's process died (exit code {code})")
                self._buffer += chunk
                if len(self._buffer) > limit:
                    raise StudentCrash("the submission sent a result larger than 256 MiB")
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, message, timeout):
        """Send ``message``, return the reply; interrupt the child at ``timeout`` seconds."""
        if self.process is None:
            self._restart()
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            self.stop()
            raise StudentCrash("the submission's process died") from None
        try:
            return self._receive(timeout)
        except StudentCrash:
            self.stop()
            raise
        except TimeoutError:
            pass
        # the time limit: interrupt (KeyboardInterrupt), then kill if it does not answer
        try:
            if self.container:
                subprocess.run(["docker", "kill", "--signal", "INT", self.container],
                               capture_output=True, check=False)
            else:
                os.killpg(self.process.pid, signal.SIGINT)
            self._receive(10.0)
        except (TimeoutError, StudentCrash, ProcessLookupError):
            self.stop()
        raise StudentTimeout(f"stopped after the time limit of {timeout:g} s")

    def call(self, message):
        """A request made by a test: the reply's value, or the submission's error raised."""
        if self.process is None:
            self._restart()
        reply = self.request(message, self.limits.call)
        if not reply.get("ok"):
            raise student_error(reply["error"])
        return reply


class Remote:
    """An object of the submission, left on the student side: calls and attributes go there."""

    def __init__(self, student, reference, type_name):
        self._student, self._reference, self._type = student, reference, type_name
        self._epoch = student.restarts

    def _ask(self, message, generators=()):
        if self._student.restarts != self._epoch:
            raise StudentCrash("the submission's process was restarted: this object is gone")
        reply = self._student.call({**message, "ref": self._reference})
        # strict=False: __getitem__ passes no generators, whatever its key holds (their states
        # are not copied back)
        for generator, state in zip(generators, reply.get("generators", []), strict=False):
            generator.bit_generator.state = state
        return _value(self._student, reply["value"])

    def __call__(self, *args, **kwargs):
        generators = []
        encoded = _encode_arguments(self._student, [list(args), kwargs], generators)
        return self._ask({"op": "call", "args": encoded["v"][0], "kwargs": encoded["v"][1]},
                         generators)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._ask({"op": "getattr", "name": name})

    def __getitem__(self, key):
        return self._ask({"op": "getitem", "key": _encode_arguments(self._student, key, [])})

    def __len__(self):
        return self._ask({"op": "len"})

    def __repr__(self):
        return f"<the submission's {self._type}>"


def _encode_arguments(student, value, generators):
    def on_object(obj):
        if isinstance(obj, Remote):
            return {"t": "ref", "id": obj._reference}
        raise TypeError(f"a test can send only values to the submission, not {type(obj).__name__}")

    def walk(obj):   # the generators, in the order in which the student side decodes them
        if isinstance(obj, np.random.Generator):
            generators.append(obj)
        elif type(obj) in (list, tuple):
            for item in obj:
                walk(item)
        elif type(obj) is dict:
            for key, item in obj.items():
                walk(key)
                walk(item)

    walk(value)
    return _load_sandbox().encode(value, on_object)


def _value(student, data):
    def resolve(item):
        if item["t"] == "rng":          # e.g. an estimator's random_state in get_params()
            return _load_sandbox().generator_from_state(item["state"])
        return Remote(student, item["id"], item.get("type", "object"))
    return _load_sandbox().decode(data, resolve)


class TestNamespace(dict):
    """The globals of a test: the setup's names, then the submission's (fetched on first use)."""

    def __init__(self, setup, student):
        super().__init__(setup)
        self._student = student

    def __missing__(self, name):
        if hasattr(builtins, name) or name.startswith("__"):
            raise KeyError(name)
        try:
            reply = self._student.call({"op": "get", "name": name})
        except StudentError as error:
            if str(error).startswith("NameError"):
                raise KeyError(name) from None
            raise
        value = _value(self._student, reply["value"])
        self[name] = value
        return value


# --------------------------------------------------------------------------------------------------
# one submission

SUSPICIOUS = {
    "otter": r"\botter\b(?!\.Notebook)",
    "numpy patched": r"\bn(?:p|umpy)\.[A-Za-z_][\w.]*\s*=[^=]",
    "library patched": r"\blsl_lib(?:\.\w+)+\s*=[^=]|\bimport\s+lsl_lib\.theory\s+as\b",
    "lsl_lib.theory": r"lsl_lib\.theory|from\s+lsl_lib\s+import\s+[^\n]*\btheory\b",
    "import machinery": r"\bimportlib\b|\breload\(|\bsys\.modules\b|__import__|\bbuiltins\b",
    "files": r"\bopen\(|\bos\.(?:remove|unlink|rename|walk|listdir|scandir|chdir)|"
             r"\bshutil\.|\bglob\b|\bPath\(",
    "processes": r"\bsubprocess\b|\bos\.(?:system|popen|fork|kill|_exit|exec\w*)\b|\bsignal\.|"
                 r"\bctypes\b|\bsys\.exit\b|\bmultiprocessing\b|\bthreading\b",
}


def code_cells(notebook):
    """The submission's code cells to run: every code cell but otter's own (init, check, export)."""
    return [cell.source for cell in notebook.cells
            if cell.cell_type == "code" and not OTTER_CELL.match(cell.source)]


def flags(notebook):
    """Names of the suspicious patterns found in the submission's code (read those by hand)."""
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code"
                     and not OTTER_CELL.match(cell.source))
    return sorted(name for name, pattern in SUSPICIOUS.items() if re.search(pattern, code))


def _setup_namespace(assignment):
    namespace = {"__name__": "__grader__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for source in assignment.setup:
            exec(compile(source, "<grader-setup>", "exec"), namespace)  # noqa: S102 (the master's code)
    return namespace


def _short(error):
    text = f"{type(error).__name__}: {error}" if not isinstance(error, StudentError) else str(error)
    return text if len(text) < 600 else text[:600] + " ..."


def numba_seed(assignment, workdir, limits=DEFAULT_LIMITS, docker_image=None):
    """numba's cache of the library's fast paths that the master's code compiles, or None.

    Each submission runs in a folder of its own, numba's cache with it, so each would compile
    the fast paths it calls again: about 3 s of homework 3's 15 s per submission. The master's
    code (the given cells and the solutions: the lecturer's, trusted) runs once in ``workdir`` on
    the student side, in the sandbox and the environment of a submission, so that the machine code
    fits theirs; :func:`grade_submission` copies the cache it leaves into each submission's
    folder. A copy: what a submission does to it stays in its own folder. Where the run does not
    finish, the submissions compile as before.
    """
    student = Student(assignment.code, workdir, assignment.forbidden, limits, docker_image)
    try:
        student.start()
    except (StudentCrash, RuntimeError):
        return None
    finally:
        student.stop()
    cache = Path(workdir) / ".numba"
    return cache if cache.is_dir() else None


def grade_submission(assignment, submission, workdir, limits=DEFAULT_LIMITS, docker_image=None,
                     numba_cache=None):
    """Grade one submitted notebook; returns a dict (scores, cases, cells, status, flags,
    seconds). ``numba_cache``: a folder copied to the student side's numba cache before its first
    cell runs (:func:`numba_seed`)."""
    started = time.monotonic()
    result = {"submission": str(submission), "questions": {}, "cases": {}, "cells": [],
              "status": "ok", "flags": [], "landlock": None}
    try:
        notebook = read_notebook(submission)
    except Exception as error:  # noqa: BLE001 (any unreadable file is a row, not a crash)
        result["status"] = f"unreadable notebook: {error}"[:300]
        for question in assignment.autograded:
            result["questions"][question.name] = [0.0, question.points]
        result["seconds"] = round(time.monotonic() - started, 1)
        return result
    submitted_name = notebook.metadata.get("otter", {}).get("assignment_name")
    if submitted_name not in (None, assignment.name):
        result["status"] = f"submitted for {submitted_name}, graded as {assignment.name}"
    result["flags"] = flags(notebook)
    setup = _setup_namespace(assignment)
    cells = code_cells(notebook)
    student = Student(cells, workdir, assignment.forbidden, limits, docker_image)
    if numba_cache is not None:
        with contextlib.suppress(OSError):      # without it, the submission compiles: slower
            shutil.copytree(numba_cache, Path(workdir) / ".numba", dirs_exist_ok=True)
    try:
        student.start()
        result["landlock"] = student.landlock
        for question in assignment.autograded:
            outcomes = []
            for code, hidden in question.tests:
                if student.process is None:
                    student._restart()
                namespace = TestNamespace(copy.copy(setup), student)
                try:
                    exec(compile(code, f"<test of {question.name}>", "exec"), namespace)  # noqa: S102
                    outcomes.append({"hidden": hidden, "passed": True})
                except Exception as error:  # noqa: BLE001 (a failing case, whatever the reason)
                    outcomes.append({"hidden": hidden, "passed": False, "error": _short(error)})
            share = question.points / max(len(outcomes), 1)
            score = share * sum(outcome["passed"] for outcome in outcomes)
            result["questions"][question.name] = [round(score, 6), question.points]
            result["cases"][question.name] = outcomes
    except (StudentCrash, RuntimeError) as error:
        result["status"] = f"grading stopped: {error}"[:300]
        for question in assignment.autograded:
            result["questions"].setdefault(question.name, [0.0, question.points])
    finally:
        student.stop()
    result["cells"] = [{"cell": index, "outcome": outcome}
                       for index, outcome in sorted(student.outcomes.items()) if outcome != "ok"]
    result["restarts"] = student.restarts
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def feedback(assignment, result, student):
    """The feedback file of one student (Markdown): no hidden test's code, only that it failed."""
    lines = [f"# {assignment.name}: feedback for {student}", ""]
    total = sum(score for score, _ in result["questions"].values())
    possible = sum(points for _, points in result["questions"].values())
    lines += [f"Autograded questions: **{total:g} / {possible:g}** points. Written derivations are "
              "graded by hand and are not included.", ""]
    if result["status"] != "ok":
        lines += [f"Status: {result['status']}", ""]
    for question in assignment.autograded:
        score, points = result["questions"].get(question.name, (0.0, question.points))
        lines += [f"## {question.name}: {score:g} / {points:g}", ""]
        for number, case in enumerate(result["cases"].get(question.name, []), 1):
            kind = "hidden test" if case["hidden"] else "public test"
            if case["passed"]:
                lines.append(f"- {kind} {number}: passed")
            elif case["hidden"]:
                # the kind of error only: a message could carry the hidden inputs (the submission's
                # own code can put its arguments into an exception)
                lines.append(f"- {kind} {number}: failed ({case['error'].split(':')[0][:80]})")
            else:
                lines.append(f"- {kind} {number}: failed: {case['error']}")
        lines.append("")
    if result["cells"]:
        lines += ["## Cells of your notebook that did not finish", ""]
        for cell in result["cells"]:
            lines.append(f"- code cell {cell['cell'] + 1}: {cell['outcome'][:300]}")
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# a class

def submissions(folder):
    """``{student: notebook}`` from ``folder/<student>.ipynb`` or
    ``folder/<student>/<any>.ipynb``."""
    folder = Path(folder)
    found = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.suffix == ".ipynb":
            found[path.stem] = path
        elif path.is_dir():
            notebooks = sorted(p for p in path.glob("*.ipynb") if not p.name.startswith("."))
            if notebooks:
                found[path.name] = notebooks[0]
    return found


class _Grader:
    """A grader process (``grading.py serve``): loads the master once, then grades the
    submissions it is sent one after another, each within ``timeout`` seconds.

    Starting a grader costs ~2 s (Python, numpy, scikit-learn through the library, the master),
    more than many submissions' own grading: a class reuses one process per job. Nothing of a
    submission stays in it: each is graded in a new folder, with a new student process, from a
    new run of the setup cells, and what the submission left running is killed before the next.
    """

    def __init__(self, master, term_seed, limits, docker_image, numba_cache=None):
        self.command = [sys.executable, str(Path(__file__).resolve()), "serve", str(master),
                        "--cell-timeout", str(limits.cell), "--call-timeout", str(limits.call),
                        "--memory-gib", str(limits.memory / 2**30)]
        if term_seed is not None:
            self.command += ["--term-seed", str(term_seed)]
        if numba_cache is not None:
            self.command += ["--numba-cache", str(numba_cache)]
        if docker_image:
            self.command += ["--docker", docker_image]
        self.process = None

    def grade(self, submission, output, timeout):
        """The result of one submission (as :func:`grade_submission`), or a status on failure."""
        if self.process is None:
            self.errors = tempfile.TemporaryFile()
            self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self.errors,
                                            start_new_session=True)
        try:
            self.process.stdin.write((json.dumps([str(submission), str(output)]) + "\n").encode())
            self.process.stdin.flush()
            with selectors.DefaultSelector() as selector:
                selector.register(self.process.stdout, selectors.EVENT_READ)
                if not selector.select(timeout):
                    self.stop()
                    return {"status": f"stopped after {timeout:g} s for the whole submission"}
            done = self.process.stdout.readline()
        except BrokenPipeError:
            done = b""
        if done != b"done\n" or not Path(output).exists():
            self.errors.seek(0)
            last_words = self.errors.read().decode(errors="replace")[-300:]
            self.stop()
            return {"status": f"grader error: {last_words}"}
        return json.loads(Path(output).read_text())

    def stop(self):
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(BrokenPipeError):
                pipe.close()
        self.errors.close()
        self.process = None


def grade_class(master, folder, out, jobs=2, term_seed=None, limits=DEFAULT_LIMITS,
                docker_image=None, timeout=1800.0):
    """Grade every submission in ``folder``; write ``out/grades.csv`` and ``out/feedback/*.md``.

    Returns the rows of ``grades.csv`` as dicts.
    """
    assignment = load_assignment(master, term_seed)
    out = Path(out)
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    (out / "results").mkdir(exist_ok=True)
    found = submissions(folder)
    waiting = queue.SimpleQueue()
    for item in found.items():
        waiting.put(item)
    results = {}

    def job():
        grader = _Grader(master, term_seed, limits, docker_image, numba_cache)
        try:
            while True:
                try:
                    student, path = waiting.get_nowait()
                except queue.Empty:
                    return
                results[student] = grader.grade(path, out / "results" / f"{student}.json",
                                                timeout)
        finally:
            grader.stop()

    with tempfile.TemporaryDirectory(prefix="lsl-grade-seed-") as seed:
        os.chmod(seed, 0o700)
        numba_cache = numba_seed(assignment, seed, limits, docker_image) if found else None
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for future in [pool.submit(job) for _ in range(max(1, min(jobs, len(found))))]:
                future.result()
    results = {student: results[student] for student in found}
    names = [question.name for question in assignment.questions]
    rows = []
    for student, result in results.items():
        result.setdefault("questions", {})
        for question in assignment.autograded:
            result["questions"].setdefault(question.name, [0.0, question.points])
        result.setdefault("cases", {})
        result.setdefault("cells", [])
        row = {"student": student}
        for name in names:
            score = result["questions"].get(name)
            row[name] = "" if score is None else f"{score[0]:g}"   # manual: filled in by hand
        row["autograded total"] = f"{sum(s for s, _ in result['questions'].values()):g}"
        row["autograded possible"] = f"{sum(p for _, p in result['questions'].values()):g}"
        row["status"] = result.get("status", "ok")
        row["flags"] = "; ".join(result.get("flags", []))
        row["sandbox"] = ("docker" if docker_image else
                          f"landlock {result['landlock']}" if result.get("landlock") else "none")
        row["seconds"] = result.get("seconds", "")
        rows.append(row)
        (out / "feedback" / f"{student}.md").write_text(feedback(assignment, result, student))
    with open(out / "grades.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["student", *names, "autograded total",
                                                    "autograded possible", "status", "flags",
                                                    "sandbox", "seconds"])
        writer.writeheader()
        writer.writerows(rows)
    return rows


def _reap_descendants():
    """Kill what the submission left running: orphans come to this process (a subreaper)."""
    me = str(os.getpid())
    for _ in range(20):
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me:
                children.append(int(stat.parent.name))
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def _main_serve(argv):
    """A grader process: grade each ``[submission, output]`` line of stdin, answer ``done``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("master")
    parser.add_argument("--term-seed", type=int, default=None)
    parser.add_argument("--cell-timeout", type=float, default=Limits.cell)
    parser.add_argument("--call-timeout", type=float, default=Limits.call)
    parser.add_argument("--memory-gib", type=float, default=Limits.memory / 2**30)
    parser.add_argument("--docker", default=None)
    parser.add_argument("--numba-cache", default=None)
    args = parser.parse_args(argv)
    assignment = load_assignment(args.master, args.term_seed)
    limits = Limits(cell=args.cell_timeout, call=args.call_timeout,
                    memory=int(args.memory_gib * 2**30))
    if sys.platform.startswith("linux"):
        import ctypes
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)      # PR_SET_CHILD_SUBREAPER
    # stdout is the channel to grade_class: what the tests print goes to /dev/null instead
    answer = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    for line in sys.stdin:
        path, output = json.loads(line)
        with tempfile.TemporaryDirectory(prefix="lsl-grade-") as workdir:
            submission = Path(workdir) / Path(path).name
            shutil.copyfile(path, submission)
            os.chmod(workdir, 0o700)
            try:
                result = grade_submission(assignment, submission, workdir, limits, args.docker,
                                          args.numba_cache)
            finally:
                if sys.platform.startswith("linux"):
                    _reap_descendants()
        result["submission"] = path
        Path(output).write_text(json.dumps(result, indent=1))
        print("done", file=answer, flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        _main_serve(sys.argv[2:])
    else:
        raise SystemExit("usage: python homework/build.py grade-class <hw> <folder> "
                         "(see homework/README.md)")
