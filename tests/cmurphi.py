"""CMurphi 5.4 as an oracle: built from ``../shared/peers/cmurphi-5.4-src.tar.gz`` once into a
cache, then ``mu model.m && g++ model.cpp && ./model -nosym -ndl`` per model.

The build goes to ``$XDG_CACHE_HOME/symdetect-peers/cmurphi-<sha256 prefix of the tarball>``
(``~/.cache`` without ``XDG_CACHE_HOME``).  Concurrent builders (pytest-xdist workers, the
results script) take an exclusive ``flock`` on a lock file next to it, build in a temporary
directory and rename it into place, so a half-built tree is never seen.  The compiler ``mu``
is built at ``-O0`` (``../shared/notes/peers.md``: today's g++ at ``-O2`` makes a ``mu``
that segfaults); generated models are compiled at ``-O0`` too, which is several times faster
to compile and fast enough for small models.

Used by ``tests/test_differential_murphi.py`` and ``results/differential_murphi.py``.
"""
from __future__ import annotations

import fcntl
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
TARBALL = ROOT.parent / "shared" / "peers" / "cmurphi-5.4-src.tar.gz"
MU_CFLAGS = "-O0 -g -fno-strict-aliasing -std=gnu++98"


def unavailable(tarball: Path = TARBALL) -> Optional[str]:
    """Why CMurphi cannot be built here, or ``None``."""
    if not tarball.exists():
        return f"CMurphi source not available at {tarball} (../shared is absent)"
    for tool in ("g++", "make"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (needed to build CMurphi and the models it generates)"
    return None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "symdetect-peers"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def build(tarball: Path = TARBALL) -> Path:
    """The CMurphi tree (``src/mu``, ``include/``), built into the cache if not there yet.
    ``RuntimeError`` with the compiler's output if the build fails."""
    cache = cache_dir()
    final = cache / f"cmurphi-{_digest(tarball)}"
    if (final / "src" / "mu").exists():
        return final
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"{final.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (final / "src" / "mu").exists():  # another process built it meanwhile
            return final
        work = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=cache))
        try:
            with tarfile.open(tarball) as tar:
                tar.extractall(work)
            src = work / "cmurphi" / "src"
            # mtimes from the archive keep make from regenerating lex.yy.c / y.tab.c.
            run = subprocess.run(["make", "-j2", f"CFLAGS={MU_CFLAGS}", "mu"], cwd=src,
                                 capture_output=True, text=True)
            if run.returncode != 0 or not (src / "mu").exists():
                raise RuntimeError(f"building CMurphi failed:\n{run.stdout[-2000:]}{run.stderr[-4000:]}")
            if final.exists():
                shutil.rmtree(final)
            os.rename(work / "cmurphi", final)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return final


class Rejected(Exception):
    """``mu`` refused the model (its message says why)."""


class Uncompilable(Exception):
    """g++ refused the C++ that ``mu`` generated (CMurphi 5.4's code for ``c ? 1 : x``
    mixes ``int`` and its own integer classes, which today's g++ finds ambiguous)."""


@dataclass(frozen=True)
class Result:
    """CMurphi's verdict: ``error`` is its message ("Invariant ... failed.", "Error: ...",
    "Assertion failed: ...") or ``None``; ``states`` and ``rules_fired`` are complete only
    when there is no error (CMurphi stops at the first)."""

    states: int
    rules_fired: int
    error: Optional[str]
    output: str
    #: CMurphi without ``-ndl`` found a deadlock (``None``: not decided, because the run
    #: with ``-ndl`` stopped at another error first or the deadlock check was not run)
    deadlocked: Optional[bool] = None

    @property
    def violated(self) -> bool:
        return self.error is not None


_COUNTS = re.compile(r"^\s*(\d+) states, (\d+) rules fired", re.M)


def compile_model(home: Path, text: str, workdir: Path, name: str = "m", optimise: str = "-O0") -> Path:
    """``mu`` then ``g++``: the executable of model ``text`` in ``workdir``."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / f"{name}.m").write_text(text)
    mu = subprocess.run([str(home / "src" / "mu"), f"{name}.m"], cwd=workdir, capture_output=True, text=True)
    if mu.returncode != 0 or not (workdir / f"{name}.cpp").exists():
        message = "\n".join(line for line in (mu.stdout + mu.stderr).splitlines()
                            if line.startswith(f"{name}.m:") and "warning" not in line)
        raise Rejected(message or mu.stdout[-2000:])
    gxx = subprocess.run(["g++", optimise, "-w", f"-I{home / 'include'}", "-o", name, f"{name}.cpp"],
                         cwd=workdir, capture_output=True, text=True)
    if gxx.returncode != 0:
        errors = [line for line in gxx.stderr.splitlines() if ": error:" in line]
        raise Uncompilable(errors[0] if errors else gxx.stderr[-1000:])
    return workdir / name


def run_model(executable: Path, memory_mb: int = 16, timeout: float = 300, deadlock: bool = False,
              options: tuple[str, ...] = ("-nosym",), cpu: int = 0) -> Result:
    """Run a compiled model breadth-first with ``options`` (default: no symmetry), without
    its deadlock check (``-ndl``) unless ``deadlock``; ``cpu``: CPU seconds (RLIMIT_CPU)."""
    run = subprocess.run([str(executable), *options, *(() if deadlock else ("-ndl",)), f"-m{memory_mb}", "-pn"],
                         cwd=executable.parent, capture_output=True, text=True, timeout=timeout,
                         preexec_fn=cpu_limit(cpu) if cpu else None)
    out = run.stdout
    counts = _COUNTS.search(out)
    if counts is None:
        raise RuntimeError(f"unexpected CMurphi output (exit {run.returncode}):\n{out[-3000:]}{run.stderr[-1000:]}")
    error = None
    if "No error found." not in out:
        m = re.search(r"^Result:\s*\n\s*\n?\s*(.+)$", out, re.M)
        error = m.group(1).strip() if m else "error"
    return Result(int(counts.group(1)), int(counts.group(2)), error, out)


def cpu_limit(seconds: int):
    """A ``preexec_fn`` that bounds the child's CPU time (SIGXCPU past it)."""
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    return limit


def check(home: Path, text: str, workdir: Path, name: str = "m") -> Result:
    """Compile and run model ``text`` (``Rejected`` if ``mu`` refuses it): with ``-ndl``
    for the counts and the other errors, then, if that found none, without it for the
    deadlock verdict."""
    executable = compile_model(home, text, workdir, name)
    result = run_model(executable)
    if result.error is not None:
        return result
    with_check = run_model(executable, deadlock=True)
    return replace(result, deadlocked=with_check.error is not None)


# ---------------------------------------------------------------------------- comparison

def with_constants(text: str, constants: dict[str, int]) -> str:
    """``text`` with each named ``Const`` declaration's value replaced (CMurphi has no -D)."""
    for name, value in constants.items():
        text, n = re.subn(rf"(\b{re.escape(name)}\s*:\s*)(-?\d+)(\s*;)", rf"\g<1>{value}\g<3>", text, count=1)
        if n != 1:
            raise ValueError(f"no 'Const {name}: <number>;' in the model")
    return text


@dataclass(frozen=True)
class Comparison:
    """One model run by both tools.  ``ours``: ``(states, rules fired, violated)`` or our
    one-line error; ``theirs``: CMurphi's ``Result`` or ``mu``'s refusal.  ``disagreement``
    is ``None`` when they agree: the same verdict, and when neither found an error the same
    states and rules fired."""

    name: str
    ours: object
    theirs: object
    disagreement: Optional[str]
    #: False when CMurphi could not run the model (``Uncompilable``): nothing compared
    compared: bool = True
    #: an agreement with an explanation (``compare_sym1``: the counts differ for a stated reason)
    note: str = ""


def _fired():
    """``detect.checking.murphi_counts.murphi_counts``; from this tree's file when the front end on
    the path is an older one without it (``results/differential_murphi.py --frontend``)."""
    try:
        from detect.checking.murphi_counts import murphi_counts
    except ImportError:
        import importlib.util

        spec = importlib.util.spec_from_file_location("_fired", ROOT / "frontends" / "murphi" / "fired.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["_fired"] = module  # dataclasses look their module up
        spec.loader.exec_module(module)
        murphi_counts = module.murphi_counts
    return murphi_counts


def ours(path: Path, defines: Optional[dict[str, int]] = None):
    """``symdetect explore PATH --json`` (states, verdict, deadlock) and the rules fired
    (``detect.checking.murphi_counts``): ``(states, fired, violated, deadlocked)``; our
    one-line error as a string if the CLI exits 2.  The CLI checks deadlocks as CMurphi does
    without ``-ndl``, so it exits 1 on an error or a deadlock."""
    import json

    from click.testing import CliRunner

    from detect.cli import main
    from frontends.murphi import load

    murphi_counts = _fired()

    args = ["explore", str(path), "--json"]
    for k, v in (defines or {}).items():
        args += ["-D", f"{k}={v}"]
    cli = CliRunner().invoke(main, args)
    if cli.exit_code not in (0, 1):
        if cli.exception is not None and not isinstance(cli.exception, SystemExit):
            return f"crash: {type(cli.exception).__name__}: {cli.exception}"
        return (cli.output.strip().splitlines() or ["?"])[-1]
    data = json.loads(cli.output[cli.output.index("{"):])
    if "start_state_fault" in data:  # CMurphi stops there too: the start states made before, 0 rules fired
        return data["states"], 0, True, False
    counts = murphi_counts(load(path, defines))
    deadlocked = getattr(counts, "deadlocked", False)
    assert counts.states == data["states"] and (counts.violated or deadlocked) == (cli.exit_code == 1), (counts, data)
    return data["states"], counts.rules_fired, counts.violated, deadlocked


def compare(home: Path, path: Path, workdir: Path, defines: Optional[dict[str, int]] = None) -> Comparison:
    """Run model file ``path`` (with ``defines`` as Const values) through both tools."""
    text = path.read_text()
    try:
        theirs: object = check(home, with_constants(text, defines or {}), workdir, "m")
    except Rejected as e:
        theirs = f"mu rejects: {e}"
    except Uncompilable as e:
        return Comparison(path.name, None, f"g++ rejects mu's code: {e}", None, compared=False)
    mine = ours(path, defines)
    name = path.name + "".join(f" {k}={v}" for k, v in (defines or {}).items())
    if isinstance(theirs, str) or isinstance(mine, str):
        if isinstance(theirs, str) and isinstance(mine, str):
            return Comparison(name, mine, theirs, None)  # both refuse
        why = f"CMurphi: {theirs}" if isinstance(theirs, str) else f"we refuse: {mine}"
        return Comparison(name, mine, theirs, why)
    states, fired, violated, deadlocked = mine
    if violated != theirs.violated:
        why = (f"verdict: CMurphi {theirs.error!r}, we find no violation" if theirs.violated
               else f"verdict: we find a violation, CMurphi none ({theirs.states} states)")
        return Comparison(name, mine, theirs, why)
    if not violated and (states, fired) != (theirs.states, theirs.rules_fired):
        why = f"counts: CMurphi {theirs.states} states / {theirs.rules_fired} fired, ours {states} / {fired}"
        return Comparison(name, mine, theirs, why)
    if not violated and theirs.deadlocked is not None and deadlocked != theirs.deadlocked:
        why = f"deadlock: CMurphi {'finds' if theirs.deadlocked else 'finds none'}, we {'find' if deadlocked else 'find none'}"
        return Comparison(name, mine, theirs, why)
    return Comparison(name, mine, theirs, None)


def _ours_json(path: Path, *options: str):
    """``symdetect explore PATH --json --ndl OPTIONS``: (exit code, the JSON or None, output)."""
    import json

    from click.testing import CliRunner

    from detect.cli import main

    cli = CliRunner().invoke(main, ["explore", str(path), "--json", "--ndl", *options])
    if cli.exit_code not in (0, 1) or "{" not in cli.output:
        return cli.exit_code, None, cli.output
    return cli.exit_code, json.loads(cli.output[cli.output.index("{"):]), cli.output


def _verifies(path: Path) -> bool:
    """``symdetect analyze PATH --verify`` checks every detected generator on the reachable
    states and passes."""
    from click.testing import CliRunner

    from detect.cli import main

    return CliRunner().invoke(main, ["analyze", str(path), "--verify"]).exit_code == 0


def compare_sym1(home: Path, path: Path, workdir: Path) -> Comparison:
    """``explore --reduce exact --ndl`` against CMurphi ``-sym1 -ndl`` (exhaustive
    canonicalisation: one state per orbit of the scalarset group).  They agree when the
    verdicts are equal and, with no error, the states too -- or ours are fewer and
    ``analyze --verify`` passes: the group we detect is larger than the declared one (a
    symmetry nobody declared, verified on the reachable states).  ``disagreement`` names a
    different verdict, more states than CMurphi's (a missed symmetry), or fewer without the
    check passing (a wrong symmetry)."""
    text = path.read_text()
    try:
        executable = workdir / "m"
        # (``compare`` just compiled this text there: compiled once for both comparisons)
        if not (executable.exists() and (workdir / "m.m").exists() and (workdir / "m.m").read_text() == text):
            executable = compile_model(home, text, workdir, "m")
    except Rejected as e:
        return Comparison(path.name, None, f"mu rejects: {e}", None, compared=False)
    except Uncompilable as e:
        return Comparison(path.name, None, f"g++ rejects mu's code: {e}", None, compared=False)
    theirs = run_model(executable, options=("-sym1",))
    code, data, output = _ours_json(path, "--reduce", "exact")
    if data is None:
        return Comparison(path.name, output.strip()[-300:], theirs, f"we refuse: {output.strip()[-200:]}")
    violated = code == 1
    mine = (data["states"], violated)
    if violated != theirs.violated:
        why = (f"verdict: CMurphi -sym1 {theirs.error!r}, we find no violation" if theirs.violated
               else f"verdict: we find a violation, CMurphi -sym1 none ({theirs.states} states)")
        return Comparison(path.name, mine, theirs, why)
    if not violated and data["states"] > theirs.states:
        leak_free = _without_order_leaks(text)
        if leak_free != text and not _leaks:
            variant = path.with_name(path.stem + "_noleak.m")
            variant.write_text(leak_free)
            _leaks.append(True)
            try:
                again = compare_sym1(home, variant, workdir.with_name(workdir.name + "_noleak"))
            finally:
                _leaks.pop()
            if again.compared and again.disagreement is None:
                return Comparison(path.name, mine, theirs, None, note=(
                    f"a scalarset's order leaks: CMurphi -sym1 {theirs.states}, ours {data['states']}; "
                    f"with each `For i : T Do x := i End` made `Undefine x` both give {again.ours[0]}"))
        return Comparison(path.name, mine, theirs,
                          f"counts: CMurphi -sym1 {theirs.states} states, ours {data['states']} (a smaller group)")
    if not violated and data["states"] < theirs.states and not _verifies(path):
        return Comparison(path.name, mine, theirs,
                          f"counts: CMurphi -sym1 {theirs.states} states, ours {data['states']}, and --verify fails")
    return Comparison(path.name, mine, theirs, None)



#: set while ``compare_sym1`` compares a leak-free variant (it tries no variant of that)
_leaks: list = []


def _without_order_leaks(text: str) -> str:
    """``text`` with each ``For i : T Do x := e; End;`` over a scalarset T, ``e`` reading i
    (``i``, ``c ? i : i``: the generator's way to give a scalarset variable a value; the loop
    leaves the last one), made ``Undefine x;``.  Such a loop makes the state depend on the order of T's values, which no
    permutation of T preserves; CMurphi accepts it and its ``-sym1`` canonicalises anyway,
    so it reduces by a group that is not a symmetry of the model, which ours must be."""
    return re.sub(r"For (\w+): (pid|hid) Do ([\w\[\].]+) := ([^;]*\b\1\b[^;]*); End;", r"Undefine \3;", text)
