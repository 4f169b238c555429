"""Spin as the oracle for the Promela front end: run a model through Spin and through our
explorer, and return comparable numbers.

Spin is run as ``spin -o1 -o2 -o3 -a`` (no statement merging, data-flow optimisation or
dead-variable hiding), pan compiled with ``-DSAFETY -DNOREDUCE -DNOCLAIM`` (no partial-order
reduction, no never claim; without ``-DNOCLAIM`` when the model has a never claim, whose
product with the system is then explored) and run with ``-c0`` (count every error, go on
after it).  We read
"states, stored" and "errors: N".  Our side is what ``symdetect explore --spin-states``
reports: the states Spin would store (``detect.checking.spin_counts``), and whether a
fault (a failed assertion or another run-time error) or an invalid end state is reachable.

Spin goes on past a failed assertion (the statement completes), while our semantics stops
there (a faulting step has no successor; see README).  So the state counts are comparable
only when no assertion fails; ``neutralise_asserts`` gives the variant to compare then.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


class SpinRefused(Exception):
    """Spin gave no complete count (refused the model, pan hit its depth bound, ...)."""


@dataclass(frozen=True)
class Counts:
    stored: int
    error: bool
    #: False when pan stopped at a fatal error ("Search not completed", e.g. a blocking
    #: selection inside a d_step): its count is then partial and not compared
    complete: bool = True

    def __str__(self) -> str:
        return (f"{self.stored} stored{'' if self.complete else ' (search not completed)'}, "
                f"{'error' if self.error else 'no error'}")


def spin_available() -> bool:
    return shutil.which("spin") is not None and shutil.which("gcc") is not None


def cpu_limited(seconds: Optional[float]):
    """A ``preexec_fn`` that bounds the child by ``seconds`` of CPU time (RLIMIT_CPU: the
    kernel sends SIGXCPU, then SIGKILL), or None for no bound: a bound that does not
    depend on the machine's load, unlike a wall-clock time-out."""
    if seconds is None:
        return None

    def limit() -> None:
        import resource

        s = max(1, int(seconds + 0.999))
        resource.setrlimit(resource.RLIMIT_CPU, (s, s + 5))
    return limit


def spin_counts(text: str, workdir: Optional[Path] = None, max_depth: int = 1_000_000,
                timeout: float = 120, hash_bits: int = 22, cpu: Optional[float] = None) -> Counts:
    """Spin's ("states, stored", errors > 0) for Promela source ``text``.  ``max_depth``
    and ``hash_bits`` are pan's -m and -w (the counts do not depend on -w; a depth bound
    that is hit raises ``SpinRefused``).  ``timeout`` bounds each of spin, gcc and pan by
    wall time; ``cpu`` (seconds) bounds pan by CPU time too, and a pan stopped by it
    raises ``SpinRefused`` naming the bound."""
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="spin") as d:
            return spin_counts(text, Path(d), max_depth, timeout, hash_bits, cpu)
    (workdir / "m.pml").write_text(text)
    r = subprocess.run(["spin", "-o1", "-o2", "-o3", "-a", "m.pml"], cwd=workdir, capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0 or not (workdir / "pan.c").exists():
        raise SpinRefused("spin: " + " ".join((r.stdout + r.stderr).split())[:200])
    # -O0: the counts do not depend on it, and pan.c compiles several times faster.
    claim = [] if has_claim(text) else ["-DNOCLAIM"]
    r = subprocess.run(["gcc", "-O0", "-w", "-DSAFETY", "-DNOREDUCE", *claim, "-o", "pan", "pan.c"],
                       cwd=workdir, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise SpinRefused("gcc: " + " ".join(r.stderr.split())[:200])
    r = subprocess.run(["./pan", f"-m{max_depth}", f"-w{hash_bits}", "-c0", "-n"], cwd=workdir, capture_output=True, text=True,
                       timeout=timeout, preexec_fn=cpu_limited(cpu))
    out = r.stdout
    if cpu is not None and r.returncode < 0:
        raise SpinRefused(f"pan: past its {cpu:.0f} CPU s (signal {-r.returncode})")
    if "max search depth too small" in out:
        raise SpinRefused("max search depth too small")
    m, e = re.search(r"(\d+) states, stored", out), re.search(r"errors: (\d+)", out)
    if m is None or e is None:
        raise SpinRefused("pan: " + (out.strip().splitlines() or ["no output"])[0])
    return Counts(int(m.group(1)), int(e.group(1)) > 0, "Search not completed" not in out)


def spin_figures(text: str, cpu: float, wall: float, max_depth: int = 1_000_000) -> dict:
    """Spin's figures of a whole file for the corpus scripts (``results/spin_examples.py``,
    ``results/wild_promela.py``): ``stored``, ``error``, ``complete``, and ``neutral`` (the
    count with every assertion made true, where pan completes with an error); or
    ``refused`` (and ``timeout`` where pan ran past ``cpu`` CPU s or ``wall`` s of wall
    time).  Each pan run is bounded by both."""
    def run(t: str) -> Counts:
        return spin_counts(t, timeout=wall, cpu=cpu, max_depth=max_depth)
    try:
        c = run(text)
    except subprocess.TimeoutExpired as e:
        return {"timeout": True, "refused": f"pan: past the {e.timeout:.0f} s wall-clock safety net"}
    except SpinRefused as e:
        return {"refused": str(e)[:160], **({"timeout": True} if "CPU s" in str(e) else {})}
    out = {"stored": c.stored, "error": c.error, "complete": c.complete}
    if c.error and c.complete:
        try:
            out["neutral"] = run(neutralise_asserts(text)).stored
        except (SpinRefused, subprocess.TimeoutExpired):
            pass
    return out


def spin_acceptance(text: str, workdir: Path, timeout: float = 120) -> bool:
    """Whether ``pan -a`` (pan compiled without ``-DSAFETY``, no partial-order reduction, no
    fairness) finds an acceptance cycle in Promela ``text``."""
    (workdir / "m.pml").write_text(text)
    r = subprocess.run(["spin", "-o1", "-o2", "-o3", "-a", "m.pml"], cwd=workdir, capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0 or not (workdir / "pan.c").exists():
        raise SpinRefused("spin: " + " ".join((r.stdout + r.stderr).split())[:200])
    r = subprocess.run(["gcc", "-O0", "-w", "-DNOREDUCE", "-o", "pan", "pan.c"], cwd=workdir, capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        raise SpinRefused("gcc: " + " ".join(r.stderr.split())[:200])
    r = subprocess.run(["./pan", "-a", "-m1000000", "-c0", "-n"], cwd=workdir, capture_output=True, text=True,
                       timeout=timeout)
    if "max search depth too small" in r.stdout:
        raise SpinRefused("max search depth too small")
    return "acceptance cycle" in r.stdout


def our_acceptance(text: str, name: str = "m.pml") -> bool:
    """Whether ``symdetect explore`` finds an acceptance cycle in ``text``."""
    from detect.checking.cycles import check_acceptance
    from detect.statespace.explore import explore_state_space
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, name))
    result = check_acceptance(model, explore_state_space(model, max_states=5_000_000, engine="python"), 5_000_000)
    return any(a.assertion.kind == "acceptance" and a.verdict == "fails" for a in result.assertions)


def has_claim(text: str) -> bool:
    """Whether Promela ``text`` has a never claim (pan then explores the product with it)."""
    return re.search(r"\bnever\s*\{", text) is not None


def our_counts(text: str, name: str = "m.pml", defines=None, max_states: int = 5_000_000,
               max_procs: Optional[int] = None) -> Counts:
    """What ``symdetect explore --spin-states`` reports for ``text``: Spin's count of our
    reachable states, and whether a fault or an invalid end state is reachable
    (``max_procs``: ``--max-procs``)."""
    from detect.statespace.compile import compile_model
    from detect.statespace.explore import reachable_graph
    from detect.checking.spin_counts import spin_state_count
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # pan runs with -DNOCLAIM unless the model has a never claim: no ltl block's claim
        model = narrow(parse_text(text, name, defines, max_procs, ltl_name=""))
    compiled = compile_model(model)
    graph = reachable_graph(compiled, max_states=max_states)
    if graph.expanded < len(graph.states):
        raise RuntimeError(f"more than {max_states} states")
    dead = any(not succ and k not in graph.faults and not compiled.terminal(s)
               for k, (s, succ) in enumerate(zip(graph.states, graph.successors)))
    # a violated invariant: under a never claim, the claim reached its end
    invariants = [cond for a, cond in zip(model.assertions, compiled.conditions)
                  if a.kind == "invariant" and cond is not None]
    dead = dead or any(not cond(s) for cond in invariants for s in graph.states)
    return Counts(spin_state_count(model, graph.states), bool(graph.faults) or dead)


def reduced_error(text: str, strategy: str = "pids", name: str = "m.pml", max_states: int = 1_000_000
                  ) -> tuple[bool, int, tuple[str, ...]]:
    """``symdetect explore --reduce strategy`` on ``text`` (the per-state checks on): whether
    it finds an error Spin counts (a fault, an invalid end state, the never claim's end),
    the states it stored, and its notes (a refuted symmetry says so there)."""
    from detect.checking.reduce import explore_reduced
    from detect.symmetry.pipeline import detect
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, name, ltl_name=""))  # as pan -DNOCLAIM
        reduced = explore_reduced(model, strategy, detection=detect(model), max_states=max_states)
    result = reduced.exploration
    if result.truncated:
        raise RuntimeError(f"more than {max_states} states")
    violated = any(a.verdict == "fails" for a in result.assertions if a.assertion.kind in ("deadlockfree", "invariant"))
    return bool(result.faults or result.deadlocks or violated), result.states, reduced.notes


_ASSERT = re.compile(r"\bassert\s*\(")


def neutralise_asserts(text: str) -> str:
    """``text`` with every ``assert(e)`` made to hold (``assert(1 || (e))``): the same
    steps, no assertion failures, so Spin's count and ours are comparable."""
    return _ASSERT.sub("assert(1 || ", text)


_TRACE = re.compile(r"\b(no)?trace\s*\{")
#: a ``chan`` variable declared without a channel by ``promela_gen.unset`` (its ``UNSET`` mark)
_UNSET = re.compile(r"\bchan (\w+) /\* unset \*/")


def neutralise(text: str) -> str:
    """``neutralise_asserts(text)`` with every ``chan`` variable ``promela_gen.unset``
    declares without a channel given the first channel (``chan v = q0``): pan goes on past
    its "ref to uninitialized chan name" reading ``q_offset[-1]``, a count not comparable,
    so counts are compared on this variant (the verdict on ``text`` itself)."""
    return _UNSET.sub(r"chan \1 = q0", neutralise_asserts(text))


def compare(text: str, workdir: Optional[Path] = None, name: str = "m.pml",
            reduce: Optional[str] = None) -> Optional[str]:
    """None when Spin and we agree on ``text`` (error or not; the state count when no
    assertion fails, else the count of the model with assertions neutralised; counts only
    where pan completed its search; with a ``trace``/``notrace`` that fails in both, which pan
    goes on past as past an assertion, the verdict only), otherwise a description of the
    disagreement.  With
    ``reduce`` (a ``--reduce`` strategy) the reduced exploration must find Spin's error
    verdict too, and none of its symmetries may be refuted.  Raises ``SpinRefused`` when
    Spin has no answer."""
    spin = spin_counts(text, workdir)
    ours = our_counts(text, name)
    if spin.error != ours.error:
        return f"error verdict: Spin {spin}, ours {ours}"
    if reduce is not None:
        from detect.symmetry.constraints import TableTooLarge

        try:
            error, stored, notes = reduced_error(text, reduce, name)
        except TableTooLarge:  # no detection, so no reduction to check (the CLI says so)
            return None
        if error != spin.error:
            return f"error verdict under --reduce {reduce}: Spin {spin}, ours {'error' if error else 'no error'}"
        if any("not a symmetry" in n for n in notes):
            return f"--reduce {reduce} refuted one of its symmetries: {notes}"
    # pan stops at "ref to uninitialized chan name" (a fatal error): no complete count, so
    # the counts are compared on the variant that gives the chan variables a channel
    unset = spin.error and _UNSET.search(text) is not None
    if spin.complete and spin.stored != ours.stored or unset:
        if not spin.error:
            return f"states: Spin {spin}, ours {ours}"
        spin2, ours2 = spin_counts(neutralise(text), workdir), our_counts(neutralise(text), name)
        if spin2.error and ours2.error and _TRACE.search(text):
            return None  # pan goes on after a trace error as after an assertion: verdicts only
        if spin2.complete and spin2.stored != ours2.stored:
            return f"states (assertions neutralised): Spin {spin2}, ours {ours2}"
    return None


def claim_order_artifact(text: str, reordered: str, workdir: Optional[Path] = None) -> bool:
    """Whether a state-count disagreement on ``text`` is pan's search-order dependence under
    a never claim (README: where several claim locations enter one state in which no process
    can move, pan stores whichever it reaches first): ``reordered`` (``text`` with the
    claim's options in another order, the same model) gives pan another count, and ours
    (order-independent) is at least each of them.  Counts with assertions made true."""
    text, reordered = neutralise_asserts(text), neutralise_asserts(reordered)
    first, second = spin_counts(text, workdir), spin_counts(reordered, workdir)
    ours = our_counts(text)
    return first.stored != second.stored and ours.stored >= max(first.stored, second.stored) \
        and ours.stored == our_counts(reordered).stored


def _pan_finds_errors(text: str, workdir: Path, cflags: tuple[str, ...], pan_args: tuple[str, ...],
                      timeout: float) -> bool:
    """Whether pan, generated from Promela ``text`` (``spin -o1 -o2 -o3 -a``), compiled with
    ``-DNOREDUCE`` and ``cflags`` and run with ``pan_args``, reports errors; ``SpinRefused``
    where spin, gcc or pan does not get that far."""
    return _pan_runs(text, workdir, cflags, (pan_args,), timeout)[0]


def _pan_runs(text: str, workdir: Path, cflags: tuple[str, ...], runs: tuple[tuple[str, ...], ...],
              timeout: float, cpu: Optional[float] = None) -> list[bool]:
    """``_pan_finds_errors`` for each of ``runs`` (pan's arguments), pan compiled once; ``cpu``
    (seconds) bounds each pan run by CPU time too (``SpinRefused`` naming the bound)."""
    (workdir / "m.pml").write_text(text)
    r = subprocess.run(["spin", "-o1", "-o2", "-o3", "-a", "m.pml"], cwd=workdir, capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0 or not (workdir / "pan.c").exists():
        raise SpinRefused("spin: " + " ".join((r.stdout + r.stderr).split())[:200])
    r = subprocess.run(["gcc", "-O0", "-w", *cflags, "-DNOREDUCE", "-o", "pan", "pan.c"], cwd=workdir,
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise SpinRefused("gcc: " + " ".join(r.stderr.split())[:200])
    out = []
    for pan_args in runs:
        r = subprocess.run(["./pan", *pan_args, "-m1000000"], cwd=workdir, capture_output=True, text=True,
                           timeout=timeout, preexec_fn=cpu_limited(cpu))
        if cpu is not None and r.returncode < 0:
            raise SpinRefused(f"pan: past its {cpu:.0f} CPU s (signal {-r.returncode})")
        if "max search depth too small" in r.stdout:
            raise SpinRefused("max search depth too small")
        e = re.search(r"errors: (\d+)", r.stdout)
        if e is None:
            raise SpinRefused("pan: " + (r.stdout.strip().splitlines() or ["no output"])[0])
        out.append(int(e.group(1)) > 0)
    return out


def spin_ltl_fair(text: str, workdir: Path, timeout: float = 120) -> tuple[bool, bool]:
    """``(pan -a, pan -a -f)``'s verdicts on the first ``ltl`` block of ``text`` (``spin_ltl``), pan compiled once."""
    unfair, fair = _pan_runs(text, workdir, (), (("-a",), ("-a", "-f")), timeout)
    return unfair, fair


def spin_non_progress_fair(text: str, workdir: Path, timeout: float = 120) -> tuple[bool, bool]:
    """``(pan -l, pan -l -f)``'s verdicts on ``text`` (``spin_non_progress``), pan compiled once."""
    unfair, fair = _pan_runs(text, workdir, ("-DNP",), (("-l",), ("-l", "-f")), timeout)
    return unfair, fair


def spin_ltl(text: str, workdir: Path, name: Optional[str] = None, timeout: float = 120, fair: bool = False,
             cpu: Optional[float] = None) -> bool:
    """Whether ``pan -a`` (no partial-order reduction; with ``fair``, ``-f``: weak fairness)
    finds an error checking the ``ltl`` block ``name`` (default: the first) of Promela
    ``text``: an acceptance cycle, the claim's end, or a failed assertion or run-time error
    of the system.  ``cpu``: pan's CPU bound (``_pan_runs``)."""
    return _pan_runs(text, workdir, (), (("-a", *(["-f"] if fair else []), *([f"-N{name}"] if name else [])),),
                     timeout, cpu)[0]


def our_ltl(text: str, name: Optional[str] = None, reduce: Optional[str] = None, file: str = "m.pml",
            fair: bool = False, engine: Optional[str] = None) -> bool:
    """Whether ``symdetect explore [--ltl name] [--reduce ...] [--weak-fairness]`` finds a
    violation in ``text``: a failed property (the formula's claim end or acceptance cycle,
    an assert) or a run-time fault.  With ``reduce``, the safety part comes from the reduced
    exploration (by the group detected on the model with the formula's claim: its
    stabiliser), and the acceptance cycles from the quotient by that group
    (``cycles.Quotient``); with ``fair``, only weakly fair acceptance cycles count.
    ``engine``: the cycle search's (``native``: the nested search in C, where it runs;
    None: the environment's, which is Python on models this small)."""
    from detect.checking.cycles import check_acceptance
    from detect.checking.reduce import explore_reduced
    from detect.transform.narrowing import narrow
    from frontends.promela import parse_text

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = narrow(parse_text(text, file, ltl_name=name))
    detection = None
    if reduce:
        from detect.symmetry.pipeline import detect

        detection = detect(model, domain_states=100_000)
    reduced = explore_reduced(model, reduce or "none", detection=detection, max_states=5_000_000,
                              explorer="python")
    from detect.checking.reduce import acceptance_quotient

    result = check_acceptance(model, reduced.exploration, 5_000_000,
                              quotient=acceptance_quotient(detection, reduced), weak_fairness=fair,
                              engine=engine)
    if result.faults > 0 or any(a.verdict == "fails" for a in result.assertions):
        return True
    if result.truncated or any(a.verdict in ("unknown", "not checked") for a in result.assertions
                               if a.assertion.kind != "progress"):
        raise RuntimeError("not decided: " + "; ".join(f"{a.assertion.text}: {a.verdict}" for a in result.assertions))
    return False


def spin_non_progress(text: str, workdir: Path, timeout: float = 120, fair: bool = False) -> bool:
    """Whether ``pan -l`` (pan compiled with ``-DNP -DNOREDUCE``: its own claim ``:np_:``
    replaces any never claim; with ``fair``, ``-f``: weak fairness) finds an error in Promela
    ``text``: a non-progress cycle, or a failed assertion or run-time error of the system."""
    return _pan_finds_errors(text, workdir, ("-DNP",), ("-l", *(["-f"] if fair else [])), timeout)


def our_non_progress(text: str, reduce: Optional[str] = None, file: str = "m.pml", fair: bool = False,
                     engine: Optional[str] = None) -> bool:
    """Whether ``symdetect explore --non-progress [--reduce ...] [--weak-fairness]`` finds a
    violation in ``text`` (a non-progress cycle, an assert, a run-time fault)."""
    from frontends.promela.claim import NON_PROGRESS

    return our_ltl(text, NON_PROGRESS, reduce, file, fair, engine)


def _cpu_bound(seconds: float) -> None:
    """Raise ``TimeoutError`` in this process after ``seconds`` more CPU seconds (ITIMER_PROF:
    user + system time of this process), 0 to disarm."""
    import signal

    def expire(signum, frame):
        raise TimeoutError(f"past {seconds:.0f} CPU s")
    signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)


def cpu_bounded(cpu: float, check, *args, **kwargs):
    """``check(*args, **kwargs)`` within ``cpu`` CPU seconds of this process (0: unbounded);
    ``TimeoutError`` past it: our side of one differential pair, bounded (the results scripts)."""
    _cpu_bound(cpu)
    try:
        return check(*args, **kwargs)
    finally:
        _cpu_bound(0)


def check_pinned(text: str, stored: Optional[int], error: bool, workdir: Path,
                 max_procs: Optional[int] = None) -> None:
    """Our counts of ``text`` are the pinned Spin figures (``stored``, ``error``), and so are
    Spin's where it is installed (a refusal there fails the test: a broken installation).
    ``stored`` None: pan stops at a fatal error ("Search not completed"), so its count is
    partial and only the verdict is pinned.  ``max_procs``: our bound on processes alive at
    once (``--max-procs``), for models that run more than the default."""
    import pytest

    if stored is None:
        assert our_counts(text, max_procs=max_procs).error == error
        if spin_available():
            spin = spin_counts(text, workdir)
            assert spin.error == error and not spin.complete, spin
        return
    assert our_counts(text, max_procs=max_procs) == Counts(stored, error)
    if spin_available():
        try:
            assert spin_counts(text, workdir) == Counts(stored, error)
        except SpinRefused as e:  # pragma: no cover - a broken Spin installation
            pytest.fail(f"Spin refused the pinned model: {e}")
