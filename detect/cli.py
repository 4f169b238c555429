"""The ``symdetect`` command line: a thin layer wiring front ends, detection and exploration.

Exit codes:

- 0: a complete run; every property was checked and holds (``analyze``: detection done, every
  generator verified with ``--verify``);
- 1: a property was violated (an assertion, a fault, an invalid end state, an unsound generator);
- 2: bad input (always a one-line ``file:line:col: message``, never a traceback);
- 3: no violation found, but the run is incomplete -- it stopped early (a state bound, the
  memory limit, ``--timeout``, Ctrl-C or SIGTERM; ``--partial-ok`` makes that 0), a step was
  cut at a bound of ours (``--max-procs``, ``--loop-max`` below the modelled tool's own:
  "not decided", with the option and a larger value), or some
  property was not checked (CSP# LTL and refinement assertions, Promela ``ltl`` blocks,
  non-progress cycles: 3 even with ``--partial-ok``).

What stopped a run is said in one wording everywhere ("stopped early: time-out of 5 s
reached", ``checking.verify.stop_words``) and, in ``explore --json``, in one field
(``"stopped"``: null, "timeout", "max-states", "slot-budget", "memory-limit", "interrupted",
"first-cycle": the nested search found an acceptance cycle before any exploration, as pan -a stops).
"""
from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Optional, Sequence

import click

from detect.errors import InputError, StartStateFault
from detect.ir import ModelError, SequentialModel
from detect.symmetry.graph import GRAPH_LIMIT

EXIT_OK, EXIT_VIOLATED, EXIT_BAD_INPUT, EXIT_INCOMPLETE = 0, 1, 2, 3



@functools.cache
def _console(stderr: bool):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


class _Console:
    """Standard output's or error's rich ``Console``, made when first printed to: rich costs
    ~0.06 s to import, and a ``--json`` run does not print through it."""

    __slots__ = ("stderr",)

    def __init__(self, stderr: bool):
        self.stderr = stderr

    def __getattr__(self, name: str):
        return getattr(_console(self.stderr), name)


out, err = _Console(False), _Console(True)


def escape(text: str) -> str:
    """``text`` with rich markup escaped (rich imported when first needed)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def rich_table(*args, **kwargs):
    """A rich ``Table`` (rich imported when first needed)."""
    from rich.table import Table

    return Table(*args, **kwargs)


class Failure(click.ClickException):
    """A one-line error with an exit code (2 unless said otherwise)."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT):
        super().__init__(message)
        self.exit_code = code

    def show(self, file=None) -> None:
        err.print(f"symdetect: {self.message}", markup=False)


def parse_defines(values: tuple[str, ...]) -> dict[str, int]:
    defines = {}
    for item in values:
        name, sep, value = item.partition("=")
        name = name.strip()
        try:
            number = int(value.strip(), 0)
        except ValueError:
            number = None
        if not sep or not name.isidentifier() or number is None:
            raise Failure(f"-D expects NAME=INTEGER, got '{item}'")
        defines[name] = number
    return defines


_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes in ``2G``, ``512M``, ``100k``, ``1.5GiB`` or ``4096`` (binary units)."""
    body = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = body[-1:] if body[-1:] in _SIZE_UNITS else ""
    try:
        number = float(body[:len(body) - len(unit)])
    except ValueError:
        number = -1.0
    if not number >= 0 or number != number or number == float("inf"):
        raise Failure(f"--memory-limit expects a size such as 2G, 512M or 100000, got '{text}'")
    return int(number * _SIZE_UNITS[unit])


def show_size(n: float) -> str:
    for unit in ("GiB", "MiB", "KiB"):
        scale = {"GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10}[unit]
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} bytes"


def load_model(path: str, defines: tuple[str, ...], process: Optional[str] = None,
               max_procs: Optional[int] = None, domain_states: Optional[int] = None,
               show_progress: bool = False, loop_max: Optional[int] = None,
               multiset_sort: bool = True, ltl_name: Optional[str] = None,
               start_faults: bool = False) -> SequentialModel:
    """The model at ``path``, narrowed exploring at most ``domain_states`` states where its
    domains come from the reachable states (``--domain-states``); a status line shows how
    those explorations go when ``show_progress`` and standard error is a terminal.
    ``start_faults``: a Murphi start state that faults is raised as ``StartStateFault``
    (``explore`` reports it as CMurphi does), not refused."""
    import warnings

    run = current_run()
    run.enter("loading the model (front end and domain narrowing)")

    # Warnings about the input are shown only when it loads, so that bad input is one line.
    with warnings.catch_warnings(record=True) as caught, \
            status_line(show_progress and sys.stderr.isatty(), "loading the model") as tell:
        model = _load(path, defines, process, max_procs, domain_states, exploration_progress(
            run.telling(tell), "domain narrowing: exploring"), loop_max, multiset_sort, ltl_name, start_faults)
    for w in caught:
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return model


def _load(path: str, defines: tuple[str, ...], process: Optional[str], max_procs: Optional[int],
          domain_states: Optional[int], progress, loop_max: Optional[int] = None,
          multiset_sort: bool = True, ltl_name: Optional[str] = None, start_faults: bool = False) -> SequentialModel:
    from detect.transform.load import load_model as load_narrowed

    try:
        return load_narrowed(path, parse_defines(defines), process=process, max_procs=max_procs,
                             domain_states=domain_states, progress=progress, loop_max=loop_max,
                             multiset_sort=multiset_sort, ltl_name=ltl_name)
    except InputError as e:
        if start_faults and isinstance(e, StartStateFault):
            raise
        raise Failure(str(e)) from None


def exploration_progress(tell: Callable[[str], None], what: str) -> Callable[[int, int, float], None]:
    """An explorer's ``progress(states, transitions, seconds[, level])`` telling ``tell`` "WHAT,
    N states, R states/s, M transitions, BFS level L"."""
    from detect.statespace.explore import counts_text

    def progress(states: int, transitions: int, seconds: float, level: Optional[int] = None) -> None:
        tell(f"{what}, {counts_text(states, transitions, seconds, level)}")
    return progress


class TimedOut(KeyboardInterrupt):
    """``--timeout`` passed: raised by the alarm wherever the run is, and so handled as Ctrl-C
    is (an exploration stops and reports what it explored; elsewhere one line, exit 3)."""


class MemoryLimitReached(KeyboardInterrupt):
    """``--memory-limit`` passed while detecting (``Run.memory_bound``): raised by the same
    alarm as ``TimedOut``, and so handled alike (one line, exit 3)."""


class Run:
    """One command's run: its input, deadline and current stage, for the one line a
    time-out or interrupt prints ("time-out of 5 s reached while narrowing domains ...").

    The deadline is enforced by ``SIGALRM`` (``ITIMER_REAL``) raising ``TimedOut``, so that
    every stage -- front end, domain narrowing, CSP, coloured graph, group, verification --
    stops without each loop reading the clock; an exploration instead gets the time left
    (``remaining``) as its own time-out and reports its partial counts.  The timer a caller
    had set (a test harness's) is restored, less the time spent, when the run ends.

    Python drops (prints as "unraisable") an exception raised inside a garbage collector
    callback or a finaliser, so the alarm never raises there: during a collection it is
    deferred to the collection's end (automatic collection paused until it has fired, so
    that the next collection cannot catch it again), and one that reaches a finaliser anyway
    fires again at once, after it."""

    def __init__(self, path: str, timeout: Optional[float], progress_lines: bool = False):
        self.path, self.timeout = path, timeout
        #: ``--progress``: with standard error not a terminal, a progress line every few seconds
        self.progress_lines = progress_lines
        self.start = time.perf_counter()
        self.stage, self.detail = "starting (loading symdetect's modules)", ""
        self._saved = None
        # (the previous sys.unraisablehook, the gc callbacks) while the alarm is armed
        self._guards = None
        self._collecting = self._deferred = self._paused_gc = False
        #: set by the watcher of ``memory_bound`` when the memory limit is passed
        self.memory_limit: Optional[int] = None
        self.memory_reached = False

    def remaining(self) -> Optional[float]:
        if self.timeout is None:
            return None
        return max(0.0, self.timeout - (time.perf_counter() - self.start))

    def enter(self, stage: str) -> None:
        self.stage, self.detail = stage, ""

    def note(self, detail: str) -> None:
        """A progress line of the current stage (what a time-out message repeats)."""
        self.detail = detail

    def telling(self, tell):
        """``tell`` (a status line's, or None) that also records the progress here."""
        def both(text: str) -> None:
            self.note(text)
            if tell is not None:
                tell(text)
        return both

    def arm(self, grace: float = 0.0) -> None:
        """Set the alarm at the deadline plus ``grace`` seconds (none without --timeout)."""
        import signal

        left = self.remaining()
        if left is None:
            return
        self._install()
        # Repeating, in case the exception is lost all the same (caught by a broad handler).
        signal.setitimer(signal.ITIMER_REAL, max(left + grace, 1e-3), ALARM_REPEAT)

    def _install(self) -> None:
        """The alarm's handler, raising ``MemoryLimitReached`` once the memory watcher has
        seen the limit passed, else ``TimedOut`` (main thread only)."""
        import signal

        def expire(signum, frame) -> None:
            if self._collecting:
                self._deferred = True
                return
            self._resume_collection()
            raise MemoryLimitReached if self.memory_reached else TimedOut

        if self._saved is None:
            old_handler = signal.signal(signal.SIGALRM, expire)
            self._saved = (old_handler, signal.getitimer(signal.ITIMER_REAL), time.perf_counter())
            self._guard_callbacks()

    @contextmanager
    def memory_bound(self, limit: Optional[int]) -> Iterator[None]:
        """Stop the block with ``MemoryLimitReached`` once the process's resident set has
        grown by more than ``limit`` bytes since it began (None: no bound).  A thread reads
        ``/proc`` every ``MEMORY_POLL`` seconds and, past the limit, fires the alarm at once:
        the main thread raises between two bytecodes, wherever it is (building tables, the
        graph's edges, narrowing), as for ``--timeout``, without each loop reading memory."""
        import signal
        import threading

        from detect.statespace.explore import resident_bytes

        if limit is None or threading.current_thread() is not threading.main_thread():
            yield
            return
        self.memory_limit = limit
        start = resident_bytes()
        done = threading.Event()

        def watch() -> None:
            while not done.wait(MEMORY_POLL):
                if resident_bytes() - start > limit:
                    self.memory_reached = True
                    signal.setitimer(signal.ITIMER_REAL, 1e-3, ALARM_REPEAT)
                    return

        self._install()
        watcher = threading.Thread(target=watch, name="symdetect-memory", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()
            if self.memory_reached and sys.exc_info()[0] is None:
                # Passed just as the block ended: the next stage bounds its own memory.
                self.memory_reached = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                self.arm()

    def _guard_callbacks(self) -> None:
        """Keep the alarm out of garbage collector callbacks and finalisers (see the class)."""
        import gc
        import sys

        def first(phase: str, info: dict) -> None:  # runs before every other callback
            if phase == "start":
                self._collecting = True

        def last(phase: str, info: dict) -> None:  # runs after every other callback
            if phase == "stop":
                self._collecting = False
                if self._deferred:
                    self._deferred = False
                    if gc.isenabled():
                        gc.disable()
                        self._paused_gc = True
                    self._fire_soon()

        previous_hook = sys.unraisablehook

        def unraisable(report) -> None:
            if isinstance(report.exc_value, TimedOut):
                self._fire_soon()
            else:
                previous_hook(report)

        gc.callbacks.insert(0, first)
        gc.callbacks.append(last)
        sys.unraisablehook = unraisable
        self._guards = (previous_hook, first, last)

    @staticmethod
    def _fire_soon() -> None:
        import signal

        signal.setitimer(signal.ITIMER_REAL, 1e-3, ALARM_REPEAT)

    def _unguard_callbacks(self) -> None:
        import gc
        import sys

        previous_hook, first, last = self._guards
        sys.unraisablehook = previous_hook
        gc.callbacks.remove(first)
        gc.callbacks.remove(last)
        self._resume_collection()
        self._guards, self._collecting, self._deferred = None, False, False

    def _resume_collection(self) -> None:
        import gc

        if self._paused_gc:
            self._paused_gc = False
            gc.enable()

    def disarm(self) -> None:
        import signal

        if self._saved is None:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        self._unguard_callbacks()
        handler, (delay, interval), since = self._saved
        signal.signal(signal.SIGALRM, handler)
        if delay > 0:
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.perf_counter() - since), 1e-3), interval)
        self._saved = None

    def stopped(self, error: KeyboardInterrupt) -> "Failure":
        where = self.stage + (f" ({self.detail})" if self.detail else "")
        from detect.checking.verify import INTERRUPTED, TIMEOUT, stop_words

        if isinstance(error, MemoryLimitReached):
            return Failure(f"{self.path}: memory limit of {show_size(self.memory_limit or 0)} reached (--memory-limit) "
                           f"while {where}; the run is incomplete: raise --memory-limit", EXIT_INCOMPLETE)
        if isinstance(error, TimedOut):
            return Failure(f"{self.path}: {stop_words(TIMEOUT, self.timeout)} while {where}; the run is "
                           "incomplete: raise --timeout", EXIT_INCOMPLETE)
        return Failure(f"{self.path}: {stop_words(INTERRUPTED)} while {where}; the run is incomplete",
                       EXIT_INCOMPLETE)

    def past_deadline(self) -> bool:
        """Whether ``--timeout`` has passed (an interrupt now is the time-out's alarm)."""
        return self.timeout is not None and self.remaining() == 0


#: Seconds between repeats of the alarm once the deadline has passed (``Run.arm``).
ALARM_REPEAT = 0.5
#: Seconds between two reads of the resident set while detection is bounded by
#: ``--memory-limit`` (``Run.memory_bound``; a read costs ~10 µs).
MEMORY_POLL = 0.02
#: Seconds past the deadline before the alarm stops an exploration that has not stopped
#: itself at its own time-out (the explorers read the clock every 512 states).
EXPLORATION_GRACE = 1.0


def current_run() -> Run:
    """The command's ``Run``; a detached one (no deadline) when called outside a command."""
    ctx = click.get_current_context(silent=True)
    run = ctx.meta.get("symdetect.run") if ctx is not None else None
    return run if run is not None else Run("<model>", None)


def pipeline_command(command):
    """``command`` (whose ``model`` parameter is the input's path, and ``timeout`` if it has
    one) run as a ``Run``: ``--timeout`` covers every stage, a time-out or interrupt outside
    an exploration is one line naming the stage (exit 3), and the errors of a model that
    loaded but cannot be handled are one line naming the file: nesting beyond Python's
    limits anywhere in the pipeline (lower a parameter), an invalid model (a bug report)."""
    import functools

    @functools.wraps(command)
    def run_command(**params):
        from detect.statespace.compile import NestedTooDeeply

        path = params["model"]
        run = click.get_current_context().meta["symdetect.run"] = Run(path, params.get("timeout"),
                                                                       bool(params.get("progress")))
        run.arm()
        try:
            return command(**params)
        except KeyboardInterrupt as e:
            run.disarm()
            raise run.stopped(e) from None
        except NestedTooDeeply as e:
            raise Failure(f"{path}: {e}; simplify the expressions or lower the parameters that size them") from None
        except RecursionError:
            raise Failure(f"{path}: model nested too deeply to translate; simplify the expressions or lower the "
                          "parameters that size them") from None
        except ModelError as e:
            raise Failure(f"{path}: the front end produced an invalid model ({e}); please report this") from None
        finally:
            run.disarm()

    return run_command


@contextmanager
def detection_limits(model: SequentialModel) -> Iterator[None]:
    """A constraint table over ``--table-limit`` or a coloured graph over ``--graph-limit``
    raised in the block is one line (exit 2) saying what to lower or raise."""
    from detect.symmetry.automorphisms import SearchFailed
    from detect.symmetry.constraints import TableTooLarge
    from detect.symmetry.graph import GraphTooLarge

    sized = ", ".join(f"{k}={v}" for k, v in model.parameters)
    lower = f"lower the parameters ({sized})" if sized else "use a smaller model"
    try:
        yield
    except TableTooLarge as e:
        raise Failure(e.located(current_run().path)) from None
    except GraphTooLarge as e:
        raise Failure(f"{current_run().path}: {e}; {lower} or raise --graph-limit") from None
    except (SearchFailed, MemoryError) as e:
        # Out of memory is not bad input: the run is incomplete (exit 3), as at --memory-limit.
        what = str(e) or "out of memory"
        raise Failure(f"{current_run().path}: {what}; {lower}, lower --graph-limit, or try "
                      f"--engine bliss", code=EXIT_INCOMPLETE) from None


def run_detection(model: SequentialModel, engine: str, table_limit: int, domain_states: int,
                  show_progress: bool = False, graph_limit: Optional[int] = None,
                  memory_limit: Optional[int] = None):
    """Detection of ``model``'s symmetries, its stages bounded by ``--timeout`` and (growth
    of the resident set) ``memory_limit``."""
    from detect.symmetry.pipeline import detect

    run = current_run()
    run.enter("detecting symmetries")
    with status_line(show_progress and sys.stderr.isatty()) as tell, detection_limits(model), \
            run.memory_bound(memory_limit):
        return detect(model, engine=engine, table_limit=table_limit, domain_states=domain_states,
                      progress=run.telling(tell), graph_limit=graph_limit)


model_argument = click.argument("model", type=click.Path(dir_okay=False))
define_option = click.option(
    "-D", "defines", multiple=True, metavar="NAME=VALUE", help="Override a #define (repeatable)."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object for tools.")
ltl_option = click.option(
    "--ltl", "ltl_name", default=None, metavar="NAME",
    help="Promela: the ltl formula to check (as pan's -N; default: the first), as the never claim Spin's "
         "translator writes for it (needs spin on PATH).")
process_option = click.option(
    "--process", default=None, metavar="NAME[(ARGS)]",
    help="CSP#: the process to analyse, e.g. P or 'P(1)' (default: see README); explore then checks only "
         "the #assert on it (without it, each asserted process is explored for its own #assert).")
max_procs_option = click.option(
    "--max-procs", default=None, type=click.IntRange(1, 255), metavar="N",
    help="Promela: at most N processes alive at once when run creates them at run time (default: the most "
         "the process-creation skeleton can have alive, or 8 where it creates without end).  At N = 255, "
         "Spin's own bound, a run beyond it is pan's error 'too many processes' (exit 1); below, the bound "
         "is ours: the run is 'not decided' (exit 3), and explore without this option doubles the default "
         "and explores again (up to 255, within a CPU budget).  "
         "CSP#: at most N processes alive at once spawned by 'Q() ||| P()' inside a sequential process, "
         "per spawner and spawned process (default 4; PAT has no such bound): a spawn beyond it leaves the "
         "run 'not decided', and explore without this option doubles it (up to 64).")
loop_max_option = click.option(
    "--loop-max", default=None, type=click.IntRange(1, 1_000_000), metavar="N",
    help="Run a While loop at most N rounds.  Murphi: default 1000, CMurphi's -loop: one more is the model's "
         "error.  CSP#, Promela (d_step loops): default 256, a bound of ours (PAT and Spin have none): one more "
         "leaves the run 'not decided' (exit 3), and explore without this option doubles it (up to 4096).")
domain_states_option = click.option(
    "--domain-states", default=1_000_000, show_default=True, metavar="N",
    help="Take domains from the reachable states only if there are at most N of them: on loading, "
         "for variables the value analysis cannot bound (CSP# 'var x = 0;', Promela int), and when a "
         "constraint table would exceed --table-limit (0: never; such a model is then refused).")


graph_limit_option = click.option(
    "--graph-limit", default=GRAPH_LIMIT, show_default=True, type=click.IntRange(min=1), metavar="N",
    help="Refuse, before building it, a coloured graph of more than N nodes and edges in all.")
progress_option = click.option(
    "--progress", is_flag=True,
    help="With standard error not a terminal (a log, CI), print a progress line every few seconds: "
         "the stage, states, states/s, transitions, memory, time elapsed (at a terminal a live status "
         "line shows them anyway).")
timeout_option = click.option(
    "--timeout", default=None, type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
    help="Stop after this many seconds in all (loading, domain narrowing, detection, "
         "verification, exploration); a stop before the results is exit code 3.")


class _Commands(click.Group):
    """The command group; Ctrl-C (or SIGTERM) outside an exploration, which reports what it
    explored, is one line and exit code 3 (incomplete), not click's "Aborted!" and 1."""

    # Both spellings work: the commands mix British (`linearise`) and American (`analyze`)
    # ones, and a user who types the other spelling should not meet "No such command".
    ALIASES = {"analyse": "analyze", "linearize": "linearise"}

    def get_command(self, ctx, cmd_name):
        return super().get_command(ctx, self.ALIASES.get(cmd_name, cmd_name))

    def invoke(self, ctx):
        import warnings

        # Front ends warn about what they changed or ignored (ltl formulas, int ranges,
        # domains taken from reachable states): one plain line each, not Python's source
        # excerpt -- for this command only, so embedding code keeps its own handler.
        def show(message, category, filename, lineno, file=None, line=None) -> None:
            err.print(f"symdetect: warning: {message}", markup=False)

        try:
            with warnings.catch_warnings():
                warnings.showwarning = show
                return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Failure("interrupted: the run is incomplete", EXIT_INCOMPLETE) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="symdetect")
def main() -> None:
    """Find process and data symmetries of concurrent models and use them to reduce exploration."""
    import signal

    # ``timeout`` and service managers stop a run with SIGTERM: treat it as Ctrl-C, so that
    # an exploration stops and reports what it explored.  The first one stops the run; later
    # ones are ignored, since they would cut short the report of what it explored (two quick
    # Ctrl-Cs lost it, and ``--json > file`` left an empty file).
    def stop(signum, frame) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    deep_recursion()
    # Group orders are exact integers and can pass Python's 4,300-digit str() limit (the
    # symmetric group on 2,000 values): print them whole, as GAP does.
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    try:
        signal.signal(signal.SIGTERM, stop)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, stop)
    except ValueError:  # not the main thread (embedded use)
        pass


#: The C stack a run may grow to (the soft limit is raised to it, within the hard limit), and
#: the stack a Python frame may take in the worst case seen (lark's transformer recursing
#: through C calls takes ~0.5 KB a frame): their ratio is the recursion limit.
STACK_BYTES, FRAME_BYTES = 1 << 30, 4096


def deep_recursion() -> None:
    """Let deeply nested models through (Spin takes 300 nested ``if``; the front ends, the
    IR walks and the translation recurse per level): raise the soft stack limit -- the kernel
    checks it as the main thread's stack grows -- and Python's recursion limit within it."""
    import resource

    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        want = STACK_BYTES if hard == resource.RLIM_INFINITY else min(hard, STACK_BYTES)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
            soft = want
        stack = STACK_BYTES if soft == resource.RLIM_INFINITY else soft
    except (ValueError, OSError):
        return
    sys.setrecursionlimit(max(sys.getrecursionlimit(), min(250_000, stack // FRAME_BYTES)))


# ---------------------------------------------------------------------------------- analyze


@main.command()
@model_argument
@define_option
@json_option
@process_option
@ltl_option
@max_procs_option
@loop_max_option
@click.option("--engine", type=click.Choice(["auto", "nauty", "bliss"]), default="auto", show_default=True,
              help="Automorphism engine (auto: nauty for small graphs, bliss for large).")
@click.option("--table-limit", default=100_000, show_default=True,
              help="Largest allowed-assignment table of one constraint.")
@click.option("--verify", is_flag=True, help="Also check every generator against the explored transition system.")
@click.option("--max-states", default=1_000_000, show_default=True,
              help="State bound for --verify and --completeness (fewer for states of many slots: at most "
                   "40,000,000 state slots are held).")
@click.option("--all-cycles", is_flag=True, help="Print every literal cycle of each generator.")
@click.option("--completeness", "measure", is_flag=True,
              help="Also compute every symmetry of the explored transition system (up to --max-states "
                   "states) and report how many of them detection found.")
@click.option("--partial-ok", is_flag=True,
              help="Exit 0, not 3, when --verify or --completeness stops early (--max-states, the memory "
                   "budget, --timeout, --graph-limit, Ctrl-C).")
@domain_states_option
@timeout_option
@progress_option
@graph_limit_option
@click.option("--memory-limit", default=None, metavar="SIZE",
              help="Stop detection (the constraints, the coloured graph, the group) once the process's resident "
                   "set has grown by more than SIZE (e.g. 2G, 512M; binary units): one line, exit 3.")
@pipeline_command
def analyze(model, defines, as_json, process, ltl_name, max_procs, loop_max, engine, table_limit, verify, max_states,
            all_cycles, measure, partial_ok, domain_states, timeout, progress, graph_limit, memory_limit):
    """Detect the symmetries of MODEL and report the group they generate."""
    run = current_run()
    start = time.perf_counter()
    seq = load_model(model, defines, process, max_procs, domain_states, show_progress=not as_json, loop_max=loop_max,
                     ltl_name=ltl_name)
    parse_seconds = time.perf_counter() - start
    unsorted = unsorted_reading(seq, lambda: load_model(model, defines, process, max_procs, domain_states,
                                                        loop_max=loop_max, multiset_sort=False))
    detection = run_detection(unsorted or seq, engine, table_limit, domain_states, show_progress=not as_json,
                              graph_limit=graph_limit,
                              memory_limit=parse_size(memory_limit) if memory_limit is not None else None)
    from detect.checking.verify import INTERRUPTED, verify as verify_generators

    report = None
    if verify:
        # detection.model: the input, or its narrowing to reachable domains (same LTS).  The
        # check gets the time left as its own time-out, so that it stops and reports what it
        # checked; the alarm stays, a little later, for what does not read the clock.
        run.enter("verifying the generators")
        run.arm(grace=EXPLORATION_GRACE)
        with status_line(not as_json and sys.stderr.isatty(), "verify: exploring") as tell:
            report = verify_generators(detection.model, [g.permutation for g in detection.group.generators],
                                       max_states=max_states, progress=run.telling(tell), timeout=run.remaining(),
                                       interruptible=True)
    places = multiset_places_check(seq, detection, verify, max_states, run) if unsorted is not None else None
    measured = None
    if measure and report is not None and report.stopped_by == INTERRUPTED:
        from detect.checking.completeness import Completeness

        measured = Completeness(0, False, None, None, "", 0.0, stopped_by=INTERRUPTED)  # the user asked to stop
    elif measure:
        from detect.checking.completeness import completeness

        run.enter("computing every symmetry of the transition system (--completeness)")
        run.arm(grace=EXPLORATION_GRACE)
        with status_line(not as_json and sys.stderr.isatty(), "completeness: exploring") as tell:
            measured = completeness(detection.model, [g.permutation for g in detection.group.generators],
                                    max_states=max_states, engine=engine, graph_limit=graph_limit,
                                    timeout=run.remaining(), progress=run.telling(tell), interruptible=True)
    run.disarm()  # the results are in: printing them is not cut short
    timings = (("parse", parse_seconds),) + detection.timings
    if as_json:
        from detect.export import analysis_json

        shown = analysis_json(detection, timings, report, measured, graph_limit)
        if places is not None:
            shown["multisets"] = {"text": places[1], "ok": places[0]}
        click.echo(json.dumps(shown, indent=2))
    else:
        print_analysis(detection, timings, report, all_cycles, timeout)
        if measured is not None:
            print_completeness(measured, graph_limit, timeout)
        if places is not None:
            out.print(("" if places[0] is not False else "[red]") + escape(places[1]) +
                      ("" if places[0] is not False else "[/red]"))
    if (report is not None and not report.ok) or (places is not None and places[0] is False):
        sys.exit(EXIT_VIOLATED)
    incomplete = (report is not None and not report.complete) or (measured is not None and measured.stopped_by)
    if incomplete and not partial_ok:
        sys.exit(EXIT_INCOMPLETE)


def print_completeness(measured, graph_limit: int, timeout: Optional[float] = None) -> None:
    from detect.checking.verify import stop_words

    if measured.stopped_by:
        out.print(f"[yellow]completeness: unknown; stopped early: {stop_words(measured.stopped_by, timeout)}: "
                  f"{escape(measured.advice(graph_limit))}[/yellow]")
        return
    on = f"on the {measured.states:,} reachable states"
    if measured.complete:
        out.print(f"completeness: [green]found {measured.found_order} of {measured.true_order}[/green] "
                  f"(every symmetry of the transition system, {on})")
    else:
        out.print(f"completeness: [red]found {measured.found_order} of {measured.true_order}[/red] ({on}); "
                  f"missing, e.g.: {escape(measured.missing)}")


#: Inert generators listed without --all-cycles.
_INERT_SHOWN = 5


def print_analysis(detection, timings, report, all_cycles: bool, timeout: Optional[float] = None) -> None:
    from detect.checking.verify import stop_words

    model, graph, group = detection.model, detection.graph, detection.group
    params = ", ".join(f"{k}={v}" for k, v in model.parameters)
    out.print(f"[bold]{escape(model.name)}[/bold]" + escape(f"  ({params})" if params else ""))
    out.print(
        f"coloured graph: {graph.n} nodes, {len(graph.edges)} edges, {len(graph.colour_keys)} colours; "
        f"CSP: {len(detection.csp.variables)} variables, {len(detection.csp.constraints)} constraints, "
        f"{len(detection.csp.summands)} summands"
    )
    stages = rich_table(title="time per stage", show_header=True, header_style="bold")
    for name, _ in timings:
        stages.add_column(name, justify="right")
    stages.add_column("total", justify="right")
    stages.add_row(*[f"{s:.3f}s" for _, s in timings], f"{sum(s for _, s in timings):.3f}s")
    out.print(stages)
    if detection.domains is not None:
        out.print(detection.domains.summary(), markup=False)
    aut = f"|Aut(graph)| = {detection.automorphisms.order}, engine {detection.automorphisms.engine}"
    if group.full_order != group.order:
        aut = f"{group.full_order} with the inert generators; " + aut
    reachable = report.reachable_order if report is not None else None
    if reachable is not None and reachable != group.order:
        # The exploration shows the group acting on the reachable states as a smaller one.
        out.print(f"[bold]group order on reachable states: {reachable}[/bold]   "
                  f"(on the states the value analysis allows: {group.order}; {aut})")
    else:
        out.print(f"[bold]group order on states: {group.order}[/bold]   ({aut})")
    acting, inert_ones = group.acting, group.inert
    if not acting:
        out.print("no symmetry found: the group is trivial" if not inert_ones else
                  "no symmetry acts on the reachable states: the group is trivial there")
    inert = set(report.inert) if report is not None else set()
    for i, g in enumerate(acting):
        tag = ("  [dim](inert: fixes every reachable state; swaps values never held or variables "
               "that always agree)[/dim]" if i in inert else "")
        out.print(f"  [bold]g{i}[/bold] {escape(g.description)}{tag}", markup=True)
        shown = g.cycles if all_cycles else g.cycles[:4]
        for cycle in shown:
            out.print("      " + " ↔ ".join(cycle) if len(cycle) == 2 else "      (" + " → ".join(cycle) + ")",
                      markup=False)
        if len(shown) < len(g.cycles):
            out.print(f"      … {len(g.cycles) - len(shown)} more cycles (--all-cycles)")
    if inert_ones:
        many = len(inert_ones) > 1
        out.print(f"inert: swaps values never held: {len(inert_ones)} generator{'s' if many else ''} "
                  f"fix{'' if many else 'es'} every state the value analysis allows (values no reachable "
                  "state holds, or variables that always agree)")
        shown_inert = inert_ones if all_cycles else inert_ones[:_INERT_SHOWN]
        for i, g in enumerate(shown_inert, start=len(acting)):
            out.print(f"  [bold]g{i}[/bold] {escape(g.description)}", markup=True)
        if len(shown_inert) < len(inert_ones):
            out.print(f"  … {len(inert_ones) - len(shown_inert)} more inert generators (--all-cycles)")
    if report is not None:
        if not report.ok:
            verdict = "[red]UNSOUND generator found[/red]"
        elif report.complete:
            verdict = "[green]every generator verified[/green]"
        else:
            verdict = (f"[yellow]no counterexample on {report.checked:,} of at least {report.states:,} "
                       f"states: not a proof; stopped early: {stop_words(report.stopped_by, timeout)}[/yellow]"
                       + (f"; {escape(report.advice())}" if report.stopped_by != "interrupted" else ""))
        out.print(f"verify: {verdict}")
        for line in report.summary().splitlines():
            out.print("  " + line, markup=False)
        note = report.action_note(group.order)
        if note:
            out.print("  " + note, markup=False)


# ---------------------------------------------------------------------------------- explore


#: Seconds between the progress lines ``--progress`` prints when standard error is not a terminal.
PROGRESS_EVERY = 5.0


@contextmanager
def status_line(enabled: bool, first: str = "working") -> Iterator[Optional[Callable[[str], None]]]:
    """Progress while the block runs, told by its ``tell(text)``: at a terminal (``enabled``)
    a transient rich status line reading ``first`` until told otherwise, with the resident
    memory and the time elapsed; with ``--progress`` and standard error not a terminal, a line
    every ``PROGRESS_EVERY`` seconds; else ``tell`` is None."""
    from detect.statespace.explore import resident_bytes

    def with_memory(text: str) -> str:
        return f"{text}, {show_size(resident_bytes())} resident"

    if not enabled:
        if not current_run().progress_lines or sys.stderr.isatty():
            yield None
            return
        start = time.perf_counter()
        last = [start]

        def line(text: str) -> None:
            now = time.perf_counter()
            if now - last[0] >= PROGRESS_EVERY:
                last[0] = now
                err.print(f"symdetect: progress: {with_memory(text)}, {now - start:,.0f} s elapsed", markup=False)

        yield line
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    # rich's live display needs the Console itself (it enters it as a context manager and
    # checks its type), not the lazy stand-in ``err``, whose __getattr__ special methods bypass.
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                   console=_console(True), transient=True)
    task = bar.add_task(first, total=None)
    with bar:
        yield lambda text: bar.update(task, description=with_memory(text))


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Optional[Callable[[int, int, float], None]]]:
    """``status_line`` showing an exploration's states, transitions and states/s: yields the
    explorer's ``progress`` callback (None when disabled)."""
    with status_line(enabled, "exploring") as tell:
        if tell is None:
            yield None
            return

        yield exploration_progress(tell, "exploring")


@main.command("explore")
@model_argument
@define_option
@json_option
@process_option
@ltl_option
@max_procs_option
@loop_max_option
@click.option("--nomultiset", "nomultiset", is_flag=True,
              help="Murphi: keep multiset elements where they were put (CMurphi's -nomultiset); by default every "
                   "stored state has its multisets sorted, as CMurphi's default multiset reduction.")
@click.option("--ndl", "--no-deadlock", "ndl", is_flag=True,
              help="Murphi: do not report deadlocks as errors (CMurphi's -ndl). By default a state in which "
                   "no rule changes the state is an error, as in CMurphi.")
@click.option("--max-states", default=None, type=int, help="Stop after this many states.")
@timeout_option
@progress_option
@click.option("--memory-limit", default=None, metavar="SIZE",
              help="Stop before the exploration holds more than SIZE (e.g. 2G, 512M; binary units): "
                   "the native explorer counts what it allocates, the Python one its resident-set growth; "
                   "detection before it (--reduce) stops once the resident set has grown by more than SIZE.")
@click.option("--trace/--no-trace", default=True, show_default=True, help="Print counterexample traces.")
@click.option("--trail", default=None, metavar="FILE", type=click.Path(dir_okay=False),
              help="Write the first counterexample to FILE (JSON); 'symdetect replay MODEL FILE' takes its steps "
                   "again.")
@click.option("--reduce", "strategy", type=click.Choice(["none", "exact", "enumerate", "local", "graph", "pids"]),
              default="none", show_default=True,
              help="Symmetry reduction: exact (least image, stabiliser chain), enumerate (all of G), "
                   "local (hill climbing, may keep several states per orbit), graph (nauty canonical form), "
                   "pids (Promela: processes created by run whose pids are unobservable are interchangeable, "
                   "then exact).")
@click.option("--table-limit", default=100_000, show_default=True,
              help="With --reduce: largest allowed-assignment table of one constraint.")
@click.option("--spin-states", is_flag=True,
              help="Promela: also report Spin's 'states, stored' (states inside atomic sequences are "
                   "not stored unless the atomic process is blocked); costs a second exploration.")
@click.option("--spin-merging", is_flag=True,
              help="With --spin-states: count as plain spin -a (Spin's defaults; without this flag the count is "
                   "spin -o1 -o2 -o3's): states inside a merged chain of statements are not stored, dead local "
                   "variables are reset as pan resets them, write-only globals are not stored. Runs spin -a with "
                   "and without -o3 (once each) and pan -d (spin and gcc needed).")
@click.option("--rules-fired", is_flag=True,
              help="Murphi: also report CMurphi's 'rules fired' (one per enabled rule instance and state "
                   "expanded); costs a second, unreduced exploration of at most --max-states states.")
@click.option("--trust-symmetry", is_flag=True,
              help="With --reduce: do not check each generator on each expanded state (faster; the "
                   "check makes a wrong generator fall back to an unreduced run instead of hiding errors).")
@click.option("--partial-ok", is_flag=True,
              help="Exit 0, not 3, when a bound, the time-out or Ctrl-C stops the run before a violation.")
@domain_states_option
@click.option("--engine", "explorer", type=click.Choice(["auto", "native", "python"]), default=None,
              help="Explorer of unreduced runs: native (generated C), python, or auto (Python for small "
                   "models, native past 20,000 states). Default: $SYMDETECT_NATIVE, else auto.")
@click.option("--workers", default=None, type=click.IntRange(1, 64),
              help="Threads of the native explorer (default: one per core the load average shows idle, "
                   "counting this process); the result does not depend on it.")
@click.option("--distributed", default=None, metavar="local:N|ADDRESS",
              help="Explore on Ray (pip install 'symdetect[distributed]'): local:N starts N workers on this "
                   "machine, ADDRESS (auto, HOST:PORT, ray://HOST:10001) joins a running cluster with --workers "
                   "workers (default: its CPUs). Each worker owns a hash partition of the states; --memory-limit "
                   "then bounds each worker. Not with --reduce graph (its representatives are per process).")
@click.option("--non-progress", "non_progress", is_flag=True,
              help="Promela: look for non-progress cycles (cycles through no progress label) with pan's own "
                   "claim instead of the model's never claim or ltl formulas, as pan -l (compiled with -DNP); "
                   "a cycle found is reported as a lasso.")
@click.option("--weak-fairness", "weak_fairness", is_flag=True,
              help="Promela, with a never claim, an ltl formula or --non-progress: count only weakly fair "
                   "cycles, as pan -a -f (-l -f): every process continuously able to move along the cycle "
                   "moves in it. With --reduce, cycles are looked for on the quotient annotated with the processes "
                   "served (else, or past its budget, without reduction).")
@graph_limit_option
@pipeline_command
def explore_command(model, defines, as_json, process, ltl_name, max_procs, loop_max, nomultiset, ndl, max_states,
                    timeout, progress, memory_limit, trace, trail, strategy, table_limit, spin_states, spin_merging,
                    rules_fired,
                    trust_symmetry, partial_ok, domain_states, explorer, workers, distributed, non_progress,
                    weak_fairness, graph_limit):
    """Explore MODEL's state space: states, transitions, deadlocks, assertion verdicts.
    \f
    Why one function: a command's options in, one report out (each step is a helper)."""
    from detect.checking.reduce import DistributedUnavailable, ReductionError, explore_reduced
    cpu_start = time.process_time()  # (an automatic raise of a bound budgets this command's CPU time)
    ltl_name = property_asked(model, ltl_name, non_progress)

    run, memory_limit = current_run(), parse_size(memory_limit) if memory_limit is not None else None
    distributed = distributed_spec(distributed, workers, strategy)

    def explore_one(seq, stage: str, detect_on=None):
        """``seq`` explored as asked (reduced, acceptance cycles checked), its detection (made
        on ``detect_on``, default ``seq``: see ``unsorted_reading``)."""
        from detect.checking.cycles import (FirstSearch, check_acceptance, first_acceptance_cycle,
                                            searched_exploration, stopped_at_cycle, with_verdicts)
        from detect.ir import state_slots
        from detect.statespace.native import AUTO_THRESHOLD
        from detect.checking.reduce import acceptance_quotient

        detection = (run_detection(detect_on or seq, "auto", table_limit, domain_states, show_progress=not as_json,
                                   graph_limit=graph_limit, memory_limit=memory_limit)
                     if strategy != "none" else None)
        # The exploration gets the time left as its own time-out, so that it stops and reports
        # its counts; the alarm stays, a little later, for the set-up around it (the reducer).
        run.enter(stage)
        run.arm(grace=EXPLORATION_GRACE)
        searched = FirstSearch()
        if not weak_fairness and distributed is None:
            # an acceptance cycle found on the fly ends the run, as pan -a's first error does
            searched = first_acceptance_cycle(seq, max_states, timeout=run.remaining(), memory_limit=memory_limit,
                                              interruptible=True, engine=explorer)
        first, holds = searched.found, searched.holds
        # auto's probe showed a large model: the unreduced exploration (also a reduced run's,
        # whose group is trivial) need not explore its first states in Python again
        plain = strategy == "none" or (detection is not None and detection.group.order == 1)
        engine = ("native" if searched.large and plain
                  and (max_states is None or max_states > AUTO_THRESHOLD) else explorer)
        # a nested search that found no cycle expanded every state once, gathering what the
        # exploration reports: a run that does not reduce takes that, and explores no more
        # (where its states are laid out as the detection's model's, which the run explores)
        made = None
        if searched.exploration is not None and plain and (
                detection is None or [(x.variable, x.index) for x in state_slots(detection.model)]
                == [(x.variable, x.index) for x in state_slots(seq)]):
            made = searched_exploration(searched)
        with progress_bar(not as_json and sys.stderr.isatty()) as update:
            try:
                # (after a first cycle: no exploration, only the reducer for the report)
                reduced = explore_reduced(seq, strategy, detection=detection,
                                          max_states=max_states if first is None else 0,
                                          timeout=run.remaining(), progress=update, check=not trust_symmetry,
                                          explorer=engine, memory_limit=memory_limit, workers=workers,
                                          distributed=distributed, unreduced=made)
            except (ReductionError, DistributedUnavailable) as e:
                raise Failure(f"{model}: {e}") from None
        if first is not None:
            reduced = dataclasses.replace(reduced, exploration=stopped_at_cycle(reduced.exploration, *first))
        elif holds and reduced.exploration is not made:
            reduced = dataclasses.replace(reduced, exploration=with_verdicts(reduced.exploration, holds))
        reduced = dataclasses.replace(reduced, exploration=check_acceptance(
            seq, reduced.exploration, max_states, timeout=run.remaining(), memory_limit=memory_limit,
            interruptible=True, quotient=acceptance_quotient(detection, reduced), weak_fairness=weak_fairness,
            engine=explorer, graph=searched.graph))
        reduced = check_csp_ltl(seq, reduced, detection, strategy, table_limit, domain_states, graph_limit, max_states)
        reduced = check_liveness(seq, reduced, max_states)
        for note in reduced.exploration.notes:
            err.print(f"symdetect: warning: {note}", markup=False)
        return reduced, detection

    def load_asked(about: Optional[str], multiset_sort: bool = not nomultiset):
        """The model of process ``about`` (CSP#; None: as asked), loaded with the Murphi options."""
        loaded = load_model(model, defines, about, max_procs, domain_states, show_progress=not as_json,
                            loop_max=loop_max, multiset_sort=multiset_sort, ltl_name=ltl_name, start_faults=True)
        if ndl:
            if not model.lower().endswith(".m"):
                raise Failure(f"{model}: --ndl applies to Murphi models only")
            loaded = dataclasses.replace(loaded, assertions=tuple(a for a in loaded.assertions
                                                                  if a.kind != "deadlockfree"))
        return loaded

    def start_orbits(fault: StartStateFault) -> int:
        """How many orbits the start states made before ``fault`` fall in: CMurphi's ``-sym1``
        stores them canonicalised before it stops.  Detected on the model whose start states
        they are (its rules and those states); each of those canonicalised."""
        from detect.checking.reduce import start_orbits
        from detect.transform.narrowing import narrow

        def faulted(multiset_sort: bool):
            try:
                return load_asked(process, multiset_sort)
            except StartStateFault as again:
                return narrow(again.model) if again.model is not None else None

        seq = narrow(fault.model)
        unsorted = unsorted_reading(seq, lambda: faulted(False))
        detection = run_detection(unsorted or seq, "auto", table_limit, domain_states, show_progress=not as_json,
                                  graph_limit=graph_limit, memory_limit=memory_limit)
        try:
            return start_orbits(seq, strategy, detection)
        except ReductionError as e:
            raise Failure(f"{model}: {e}") from None

    try:
        seq = load_asked(process)
    except StartStateFault as e:
        states = start_orbits(e) if strategy != "none" and e.model is not None else e.states
        report_start_fault(model, e, as_json, parse_defines(defines), states)
    if weak_fairness and dict(seq.annotations).get("weak_fairness") is None:
        raise Failure(f"{model}: --weak-fairness applies to Promela models with a never claim, an ltl formula "
                      "or --non-progress (pan's -f needs -a or -l)")
    unsorted = unsorted_reading(seq, lambda: load_asked(process, multiset_sort=False)) if strategy != "none" else None
    reduced, detection = explore_one(seq, "exploring", unsorted)
    # A bound of ours (not the model's) reached at its default: raise it and explore again.
    raised: list[str] = []
    given = {"--max-procs": max_procs is not None, "--loop-max": loop_max is not None}
    spent = time.process_time()
    last = spent - cpu_start  # (the first run: all the command's CPU time so far)
    while (again := automatic_raise(reduced.exploration, given, run,
                                    spent - cpu_start + AUTO_RAISE_GROWTH * last)) is not None:
        bound, value = again
        err.print(f"symdetect: {bound} reached (our default, not the model's bound); exploring again with "
                  f"{bound.option} {value}", markup=False)
        raised.append(f"{bound.option} {value}")
        if bound.option == "--max-procs":
            max_procs = value
        else:
            loop_max = value
        seq = load_asked(process)
        unsorted = (unsorted_reading(seq, lambda: load_asked(process, multiset_sort=False))
                    if strategy != "none" else None)
        reduced, detection = explore_one(seq, "exploring", unsorted)
        spent, last = time.process_time(), time.process_time() - spent
    # CSP#: each #assert is about its own process.  Without --process, each other asserted
    # process is explored too, for its own assertions (with --process they stay "not checked").
    others: dict = {}
    if process is None and not reduced.exploration.interrupted:
        others = explore_asserted_processes(
            seq, load_asked,
            lambda other_seq, about: explore_one(other_seq, f"exploring {about} for its #assert")[0].exploration)
    extra = exploration_extra(strategy, reduced, detection, memory_limit, distributed)
    if raised:
        extra["raised"] = ", then ".join(raised)
    if detection is not None and dict(seq.annotations).get("ltl") is not None:
        # The claim is part of the model: the group detected is the formula's stabiliser;
        # the group without the formula says what the formula costs.
        import warnings

        with warnings.catch_warnings():
            # this second load leaves every formula out on purpose: its "not checked" is no news
            warnings.simplefilter("ignore")
            without = load_model(model, defines, process, max_procs, domain_states, ltl_name="")
        whole = run_detection(without, "auto", table_limit, domain_states, graph_limit=graph_limit,
                              memory_limit=memory_limit)
        extra["ltl symmetry"] = ltl_symmetry(dict(seq.annotations), whole.group, detection.group)
    spin_stop = spin_advice = ""
    if spin_states:
        spin_stop, spin_advice = spin_states_count(
            model, seq, reduced.exploration, extra, max_states, timeout, memory_limit, run, detection, defines,
            spin_merging, lambda m: run_detection(m, "auto", table_limit, domain_states, graph_limit=graph_limit,
                                                  memory_limit=memory_limit))
    if rules_fired:
        spin_stop, spin_advice = rules_fired_count(model, seq, reduced.exploration, extra, max_states, run,
                                                   spin_stop, spin_advice)
    run.disarm()
    import signal

    # The run is over: a second Ctrl-C must not lose the report of what was explored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    report_exploration(seq, reduced.exploration, as_json, trace, extra=extra, partial_ok=partial_ok,
                       stopped=what_stopped(reduced.exploration, run, spin_stop), timeout=timeout,
                       advice=spin_advice, trail=trail, defines=parse_defines(defines), others=others)


def multiset_places_check(seq, detection, verify: bool, max_states: int, run) -> tuple[Optional[bool], str]:
    """``analyze`` on a Murphi model whose multisets are sorted (detection made on the
    unsorted reading): whether the group normalises the permutations of the multisets'
    places (``checking.multisets``, what ``explore --reduce`` needs to quotient by both),
    and with ``verify`` whether exchanging places is a symmetry up to sorting on the
    unsorted reading's reachable states.  ``(ok, text)``; ok is None when unchecked."""
    from detect.checking.multisets import multiset_instances, normaliser_failure, same_layout, verify_places
    from detect.ir.points import LiteralPoints

    model = detection.model
    head = ("multisets: symmetry detected on the unsorted reading (CMurphi's -nomultiset); explore --reduce "
            "quotients by it with each multiset's place permutations")
    if not same_layout(seq, model):
        return None, head + ": not here (the unsorted reading's domains were narrowed); give --nomultiset"
    failure = normaliser_failure(detection.group.acting_points, LiteralPoints.of(model), multiset_instances(model))
    if failure is not None:
        return False, head + f", which the group must normalise: it does not ({failure})"
    text = head + ", which the group normalises (checked)"
    if not verify:
        return None, text
    run.enter("verifying the multisets' place permutations")
    ok, checked, complete, why = verify_places(model, max_states, timeout=run.remaining())
    if not ok:
        return False, text + f"; place exchanges: NOT a symmetry up to sorting: {why}"
    return (True if complete else None), text + (f"; place exchanges verified up to sorting on the {checked:,} "
                                                f"reachable states of the unsorted reading"
                                                + ("" if complete else " (stopped early)"))


def report_start_fault(model: str, fault: StartStateFault, as_json: bool, defines: dict,
                       states: Optional[int] = None) -> None:
    """A Murphi start state faulted: the run's error verdict, as CMurphi reports it (it stops
    there, having stored ``states`` start states, default ``fault.states``, 0 rules fired),
    and exit 1."""
    where = str(fault)
    states = fault.states if states is None else states
    if as_json:
        click.echo(json.dumps({
            "model": Path(model).stem, "parameters": defines, "states": states, "transitions": 0,
            "initial": states, "deadlocks": 0, "faults": 1, "stopped": None, "truncated": False,
            "assertions": [], "first_faults": [{"state": None, "origin": "Startstate", "message": where}],
            "start_state_fault": where}, indent=2))
    else:
        params = ", ".join(f"{k}={v}" for k, v in defines.items())
        out.print(f"[bold]{escape(Path(model).stem)}[/bold]" + escape(f"  ({params})" if params else ""))
        table = rich_table(show_header=False)
        table.add_column("", style="bold")
        table.add_column("", justify="right")
        table.add_row("states", f"{states:,}")
        table.add_row("transitions", "0")
        table.add_row("states with faults", "1 (a start state)")
        out.print(table)
        out.print(f"[red]error: {escape(where)}[/red]")
        out.print(escape(f"(CMurphi stops at a start state that faults too, after the {states:,} start "
                         f"states it made before it: the last Startstate first)"))
    sys.exit(EXIT_VIOLATED)


def unsorted_reading(seq, load_unsorted) -> Optional[SequentialModel]:
    """For a Murphi model whose multisets are sorted (CMurphi's default), its unsorted reading
    (``load_unsorted()``, CMurphi's ``-nomultiset``), on which symmetry is detected: the sort
    compares scalarset values with ``<``, which no scalarset permutation preserves, and the
    reduction quotients by the multisets' place permutations itself (``checking.multisets``).
    None for any other model."""
    if not seq.annotation("multisets_sorted"):
        return None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the same file: its warnings were shown once
        return load_unsorted()


def check_csp_ltl(seq, reduced, detection, strategy: str, table_limit: int, domain_states: int,
                  graph_limit: Optional[int], max_states: Optional[int]):
    """``reduced`` with the CSP# LTL assertions of ``seq`` decided: the product with the
    formula's automaton, reduced (unless ``strategy`` is none) by the subgroup fixing each of
    its propositions, detected on the model with them added; its ``ltl_symmetry`` says, per
    assertion, which group was used and why."""
    if not any(a.kind == "ltl" and a.temporal is not None for a in seq.assertions):
        return reduced
    from detect.checking.temporal import check_temporal_assertions

    run = current_run()
    run.enter("checking LTL assertions")
    checked, said = check_temporal_assertions(
        seq, reduced.exploration, strategy != "none",
        detection_of=lambda m: run_detection(m, "auto", table_limit, domain_states, graph_limit=graph_limit),
        whole=detection.group if detection is not None else None, max_states=max_states, timeout=run.remaining())
    return dataclasses.replace(reduced, exploration=checked, ltl_symmetry=reduced.ltl_symmetry + tuple(said))


def check_liveness(seq, reduced, max_states: Optional[int]):
    """``reduced`` with Rumur's ``Liveness`` properties of ``seq`` decided on its unreduced
    reachable graph (``detect.checking.liveness``)."""
    from detect.checking.liveness import decide_liveness, has_liveness

    if not has_liveness(seq) or reduced.exploration.interrupted:
        return reduced
    run = current_run()
    run.enter("checking liveness properties")
    return dataclasses.replace(reduced, exploration=decide_liveness(seq, reduced.exploration, max_states,
                                                                    timeout=run.remaining()))


def property_asked(model: str, ltl_name: Optional[str], non_progress: bool) -> Optional[str]:
    """The ``ltl_name`` the front end gets: ``--ltl``'s, or with ``--non-progress`` pan's
    non-progress claim (``claim.NON_PROGRESS``)."""
    from frontends.promela.claim import NON_PROGRESS

    if not non_progress:
        return ltl_name
    if ltl_name is not None:
        raise Failure(f"{model}: --non-progress and --ltl exclude each other (pan's -l and -N)")
    if not model.lower().endswith((".pml", ".p", ".prom")):
        raise Failure(f"{model}: --non-progress applies to Promela models only")
    return NON_PROGRESS


def exploration_extra(strategy: str, reduced, detection, memory_limit: Optional[int], distributed=None) -> dict:
    """What ``explore`` reports beside the counts: the reduction, its group and method, where
    it ran (``--distributed``), the memory limit, notes, and the domains taken from the
    reachable states."""
    extra = {"reduce": strategy, "group_order": reduced.reducer.group_order}
    if distributed is not None:  # --memory-limit then bounds each worker
        extra["distributed"] = distributed.label()
    if memory_limit is not None:
        extra["memory_limit"] = memory_limit
    if strategy != "none":
        extra["method"] = reduced.reducer.method
    if reduced.notes:
        extra["notes"] = list(reduced.notes)
    if reduced.ltl_symmetry:
        extra["ltl symmetry"] = "\n".join(reduced.ltl_symmetry)
    if detection is not None and detection.domains is not None:
        extra["domains"] = detection.domains.summary()
    return extra


def spin_states_count(model: str, seq, result, extra: dict, max_states: Optional[int], timeout: Optional[float],
                      memory_limit: Optional[int], run: Run, detection=None, defines=(),
                      merging: bool = False, redetect=None) -> tuple[str, str]:
    """``--spin-states``: Spin's "states, stored" put into ``extra`` (with a detection whose
    group is not trivial, also the count up to the group ``symdetect spin``'s verifier reduces
    by: the detected one less the generators pan's automata do not allow, named in ``extra``);
    with ``merging``, as plain ``spin -a`` (Spin's defaults) stores: statement merging
    (``spin_counts.with_merging``) and the data-flow optimisation's dead-variable resets
    (``export.spin.pan_dataflow``; the model with them detected again by ``redetect``, so
    that the group counted by is one of pan's system); returns what stopped the count (""
    when complete) and what the stop line should add."""
    from detect.checking.spin_counts import SpinStored, spin_stored_count
    from detect.checking.verify import stop_words

    if not model.endswith((".pml", ".p", ".prom")):
        raise Failure(f"{model}: --spin-states applies to Promela models only")
    run.enter("counting Spin's stored states (--spin-states)")
    if result.interrupted:
        counted = SpinStored(0, 0, "timeout" if run.past_deadline() else "interrupted", "")
    else:
        reducing = detection is not None and detection.group.order > 1
        options: tuple[str, ...] = ("-o3",)
        if merging:
            seq, detection, options = spin_dataflow(model, defines, seq, detection, extra, redetect)
            reducing = detection is not None and detection.group.order > 1
        counted_model = detection.model if reducing else seq
        if merging:
            counted_model = merged_counting(model, defines, counted_model, extra, options)
        group = sympan_reducing_group(model, defines, detection, extra, options) if reducing else None
        counted = spin_stored_count(counted_model, max_states, timeout=run.remaining(),
                                    memory_limit=memory_limit, interruptible=True, group=group)
    if counted.stopped_by == "interrupted" and run.past_deadline():
        counted = dataclasses.replace(counted, stopped_by="timeout", advice="raise --timeout")
    extra["spin states stored"] = f"{counted.stored:,}" + (
        f" (partial, of {counted.states:,} states: stopped early: {stop_words(counted.stopped_by, timeout)}"
        + (f"; {counted.advice}" if counted.advice and counted.advice != "interrupted" else "") + ")"
        if counted.stopped_by else "")
    if counted.reduced is not None:
        extra["spin states stored up to symmetry"] = f"{counted.reduced:,}"
    spin_advice = ""
    if counted.stopped_by and not result.stopped_by:
        spin_advice = "while counting Spin's stored states (--spin-states)" + (
            f"; {counted.advice}" if counted.advice and counted.advice != "interrupted" else "")
    return counted.stopped_by, spin_advice


def spin_dataflow(model: str, defines, seq, detection, extra: dict, redetect):
    """``(seq, detection, Spin's options)`` as plain ``spin -a``'s pan runs the model: with its
    dead-variable resets and write-only globals hidden (``export.spin.pan_dataflow``),
    detected again where that changed the model; the options are ``-o1 -o2`` where the resets
    could not be modelled; what was done (or why the optimisation is counted as off) put into
    ``extra`` ("spin dataflow")."""
    from detect.export.spin import SpinExportError, pan_dataflow

    try:
        flow = pan_dataflow(model, defines, seq)
    except SpinExportError as e:
        raise Failure(f"{model}: --spin-merging: {e}") from None
    if flow.note:
        extra["spin dataflow"] = flow.note
    if flow.model is seq:
        return seq, detection, flow.options
    if detection is not None and redetect is not None:
        detection = redetect(flow.model)
        extra["spin dataflow symmetry order"] = detection.group.order
    return flow.model, detection, flow.options


def merged_counting(model: str, defines, seq, extra: dict, options: tuple[str, ...] = ()):
    """``seq`` to be counted as Spin with statement merging stores (``--spin-merging``): the
    program counters' values pan's merged transitions pass over, from Spin's own automata
    (``export.spin.merged_pcs``, Spin run with ``options``), put into ``extra`` ("spin merging")."""
    from detect.checking.spin_counts import with_merging
    from detect.export.spin import SpinExportError, merged_pcs

    try:
        skipped = merged_pcs(model, defines, seq, options)
    except SpinExportError as e:
        raise Failure(f"{model}: --spin-merging: {e}") from None
    extra["spin merging"] = (f"{sum(map(len, skipped.values()))} program counter values of {len(skipped)} processes "
                             "passed over by pan's merged transitions" if skipped else "nothing merged")
    return with_merging(seq, skipped)


def sympan_reducing_group(model: str, defines, detection, extra: dict, options: tuple[str, ...] = ("-o3",)):
    """The group ``symdetect spin``'s sympan reduces by (``export.spin.sympan_group``; Spin
    run with ``options``: with statement merging unless ``-o3``), the generators it drops and
    why put into ``extra`` ("spin symmetry dropped", one per line)."""
    from detect.export.spin import sympan_group

    with open(model, encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = sympan_group(model, defines, detection.model, detection.group, text, options)
    if found.dropped:
        extra["spin symmetry order"] = found.group.order
        extra["spin symmetry dropped"] = "\n".join(found.dropped)
    if found.note:
        extra["spin symmetry"] = found.note
    return found.group


def rules_fired_count(model: str, seq, result, extra: dict, max_states: Optional[int], run: Run, stop: str,
                      advice: str) -> tuple[str, str]:
    """``--rules-fired``: CMurphi's figure put into ``extra``; returns what stopped the counts
    beside the exploration and what the stop line adds (``stop``/``advice`` so far kept first)."""
    if not model.endswith(".m"):
        raise Failure(f"{model}: --rules-fired applies to Murphi models only")
    fired, fired_stop = murphi_rules_fired(seq, max_states, result.interrupted, run)
    extra["rules fired"] = fired
    if fired_stop and not stop:
        stop = fired_stop
        if not result.stopped_by:
            advice = "while counting the rules fired (--rules-fired)"
    return stop, advice


def murphi_rules_fired(seq, max_states: Optional[int], interrupted: bool, run: Run) -> tuple[str, str]:
    """CMurphi's "rules fired" (``checking.murphi_counts``) as shown, and what stopped the
    count ("" when complete): at most ``max_states`` (default 1,000,000) states; the time-out's
    alarm or an interrupt stops it, and the report of the exploration is still printed."""
    from detect.checking.murphi_counts import murphi_counts

    if interrupted:
        return "not counted (interrupted)", "timeout" if run.past_deadline() else "interrupted"
    run.enter("counting the rules fired (--rules-fired)")
    try:
        counted = murphi_counts(seq, max_states or 1_000_000)
    except RuntimeError as e:
        return f"not counted ({e}: raise --max-states)", "max-states"
    except KeyboardInterrupt:
        reason = "timeout" if run.past_deadline() else "interrupted"
        return f"not counted (stopped early: {reason})", reason
    if counted.violated:
        return f"{counted.rules_fired:,} (CMurphi stops at the first error: its count is smaller)", ""
    return f"{counted.rules_fired:,}", ""


#: ``explore`` raises a bound of ours by itself only after a run of fewer states than this:
#: doubling the processes of a larger one may take far longer (the user can still ask).
AUTO_RAISE_STATES = 1_000_000
#: ... and only while the CPU seconds spent, with the next run's guessed at this many times
#: the last one's (a doubled process bound cost 4.5 times as much on a recursive ``run``),
#: stay within ``AUTO_RAISE_CPU``: past that the user gives the option, or ``--timeout``.
AUTO_RAISE_GROWTH, AUTO_RAISE_CPU = 5.0, 30.0
#: The largest value each option of a ``ToolBound`` accepts (its click range).
OPTION_MOST = {"--max-procs": 255, "--loop-max": 1_000_000}


def automatic_raise(result, given: dict, run: Run, cpu: float):
    """``(bound, value)`` when ``result`` reached a bound of ours (``ToolBound``) that the user
    did not give and nothing else decides or stops the run: no violation, complete otherwise,
    time left, fewer than ``AUTO_RAISE_STATES`` states, ``cpu`` (the CPU seconds by the end of
    the next run, guessed) within ``AUTO_RAISE_CPU``, and the bound below its ``most``; then
    ``explore`` runs again with the option at ``value``.  None otherwise."""
    if not result.bounds or result.faults or result.truncated or result.states >= AUTO_RAISE_STATES:
        return None
    if cpu > AUTO_RAISE_CPU:
        return None
    if any(a.verdict == "fails" for a in result.assertions) or run.past_deadline():
        return None
    for bound in result.bounds_reached:
        value = bound.raised()
        if not given.get(bound.option, True) and value is not None:
            return bound, value
    return None


def bound_advice(result) -> str:
    """The line saying that a bound of ours left ``result`` undecided, with the option to pass
    and a value that may get past it ("" when no bound was reached)."""
    if not result.bounds:
        return ""
    first = result.first_bounds[0]
    bound = first.bound
    most = OPTION_MOST.get(bound.option, 2 * bound.value)
    to = (f"pass {bound.option} {min(2 * bound.value, most)} (or more) to go past it" if bound.value < most
          else f"{bound.option} takes at most {most}")
    return (f"not decided: {bound} reached in {result.bounds:,} state{'s' * (result.bounds != 1)} "
            f"(a bound of ours, not the model's), first at {first.origin}: {first.message}; {to}")


def what_stopped(result, run: Run, later: str = "") -> str:
    """What stopped the run early, "" if nothing did: the exploration's ``stopped_by``, else
    a property check's, else ``later`` (a count beside it); "interrupted" once ``--timeout``
    has passed is the time-out's alarm."""
    reason = result.stopped_by or next(
        (a.stopped_by for a in result.assertions if a.verdict == "unknown" and a.stopped_by), "") or later
    return "timeout" if reason == "interrupted" and run.past_deadline() else reason


def ltl_symmetry(annotations: dict, whole, kept) -> str:
    """Which group reduces the check of an ``ltl`` formula, and why: ``whole`` is the group of
    the model without the formula, ``kept`` that of the model with the formula's never claim
    (detected on the product, so each of its symmetries maps the formula's propositions onto
    themselves: the subgroup of ``whole`` that stabilises the formula)."""
    import re

    name, formula = annotations["ltl"], annotations["ltl_formula"]
    named = sorted(set(re.findall(r"\b([A-Za-z_]\w*(?:\[\s*\d+\s*\])?)\s*[@:]", formula)))
    names = f"; the formula names {', '.join(named)}" if named else ""
    moves = "; ".join(g.description for g in kept.acting) or "none"
    if kept.order == whole.order:
        return (f"ltl {name} is symmetric under the whole group (order {whole.order:,}){names}: "
                f"reduction uses all of it")
    return (f"the model's group has order {whole.order:,} ({'; '.join(g.description for g in whole.acting)}); "
            f"ltl {name} is kept only by a subgroup of order {kept.order:,}{names}, so reduction uses that "
            f"subgroup ({moves})")


def explore_asserted_processes(seq, load: Callable, explore: Callable) -> dict:
    """The ``others`` of ``report_exploration``: each process (CSP#) an assertion of ``seq`` is
    about, loaded by ``load(call)`` and explored by ``explore(model, call)``.  A process that
    cannot be explored (a construct refused, a limit) leaves its assertions "unknown" with the
    reason (exit 3), rather than refusing the whole run."""
    others: dict = {}
    for about in dict.fromkeys(a.about for a in seq.assertions if a.about):
        try:
            other_seq = load(about)
            found = (about, other_seq, explore(other_seq, about))
        except Failure as e:
            if e.exit_code != EXIT_BAD_INPUT:
                raise
            found = (about, None, e.message)
        for i, a in enumerate(seq.assertions):
            if a.about == about:
                others[i] = found
    return others


def state_shower(seq) -> Callable:
    """``show_state(state)``: a state of ``seq`` as its literals."""
    from detect.ir import literal_label, state_slots

    slots = state_slots(seq)

    def show_state(state) -> str:
        return ", ".join(literal_label(s, v) for s, v in zip(slots, state))

    return show_state


def with_other_verdicts(seq, result, others: dict) -> tuple:
    """``(result, models)``: ``result`` with the verdict of each assertion about another process
    taken from that process's exploration (``others``: see ``report_exploration``), noted with
    its counts; ``models[i]`` is the model assertion i's trace is a run of."""
    verdicts = list(result.assertions)
    models = [seq] * len(verdicts)
    for i, (call, other_seq, other) in others.items():
        if other_seq is None:  # ``other`` is why that process could not be explored
            verdicts[i] = dataclasses.replace(verdicts[i], verdict="unknown", note=f"cannot explore {call}: {other}")
            continue
        counts = (f"explored {call}: {other.states:,} state{'s' * (other.states != 1)}, "
                  f"{other.transitions:,} transition{'s' * (other.transitions != 1)}"
                  + (f", {other.faults:,} states with faults" if other.faults else "")
                  + (f", {other.bounds:,} states cut at a bound of ours" if other.bounds else "")
                  + (", incomplete" if other.truncated else ""))
        verdict = other.assertions[i]
        if verdict.verdict != "not checked":
            verdict = dataclasses.replace(verdict, note="; ".join(n for n in (verdict.note, counts) if n))
        verdicts[i] = verdict
        models[i] = other_seq
    return dataclasses.replace(result, assertions=tuple(verdicts)), models


#: Why ``--reduce graph`` is refused under ``--distributed`` (results/distributed.md measures it).
GRAPH_NOT_DISTRIBUTED = (
    "--reduce graph cannot run with --distributed: its representative of an orbit is the first state of "
    "the orbit one process meets, so each worker would pick its own and store the orbit again; "
    "use --reduce exact (a least image, the same in every worker)")


def memory_limit_words(limit: int, extra: dict) -> str:
    """The memory limit as the report shows it: under ``--distributed`` it bounds each worker."""
    return show_size(limit) + (" per worker" if "distributed" in extra else "")


def distributed_spec(text: Optional[str], workers: Optional[int], strategy: str = "none"):
    """``--distributed``'s spec (None without it), Ray's presence checked first: one line and
    exit 2 without Ray, or with ``--reduce graph`` (``GRAPH_NOT_DISTRIBUTED``)."""
    if text is None:
        return None
    if strategy == "graph":
        raise Failure(GRAPH_NOT_DISTRIBUTED)
    from detect.statespace import distributed

    try:
        distributed.ray_module()
        return distributed.Spec.parse(text, workers)
    except (distributed.DistributedUnavailable, ValueError) as e:
        raise Failure(str(e)) from None


def report_exploration(seq, result, as_json: bool, trace: bool, extra: dict, partial_ok: bool = False,
                       stopped: Optional[str] = None, timeout: Optional[float] = None, advice: str = "",
                       trail: Optional[str] = None, defines: Optional[dict] = None,
                       others: Optional[dict] = None) -> None:
    """Print ``result`` and exit with its code: 1 on a violation, else 3 when the run stopped
    early (``stopped``: what stopped it, a ``checking.verify`` stop reason; by default the
    exploration's; ``advice``, what the stop line adds) or a property was left unknown or not
    checked, unless ``partial_ok`` (which never excuses a property that is not checked).
    With ``trail``, the first counterexample of ``seq`` is written there (JSON).  ``others``
    maps the index of an assertion about another process to ``(call, model, exploration)``,
    the exploration of that process that gives its verdict (a fault there is a violation, as
    in a run of that process), or to ``(call, None, why)`` when that process could not be
    explored (the verdict is then "unknown": exit 3)."""
    show_state = state_shower(seq)
    own = result  # the system process's verdicts alone: what --trail writes from
    result, models = with_other_verdicts(seq, result, others or {})
    explored = [other for _, other_seq, other in (others or {}).values() if other_seq is not None]
    elsewhere = list(dict.fromkeys(call for i, (call, _, _) in (others or {}).items()
                                   if result.assertions[i].verdict == "fails"))
    if stopped is None:
        stopped = result.stopped_by
    violated = (result.faults > 0 or any(other.faults > 0 for other in explored)
                or any(a.verdict == "fails" for a in result.assertions))
    # A property left "unknown" (an acceptance check cut short) makes the run incomplete too,
    # and so does a step cut at a bound of ours (``ToolBound``): past it nothing is decided.
    incomplete = (bool(stopped) or result.truncated or any(other.truncated for other in explored)
                  or any(a.verdict == "unknown" for a in result.assertions)
                  or result.bounds > 0 or any(other.bounds > 0 for other in explored))
    # ... and one not checked at all (CSP# LTL or refinement, a Promela ltl block, non-progress
    # cycles): the exit code never says every property holds when one was not looked at.
    # An assertion about another process than the one --process names is left out on request.
    unchecked = [a for a in result.assertions if a.verdict == "not checked" and not a.assertion.about]
    if as_json:
        click.echo(json.dumps(exploration_json(seq, result, extra, show_state, stopped, models, others or {}),
                              indent=2))
    else:
        print_exploration(seq, result, models, extra, trace, stopped, timeout, advice, violated, unchecked)
    if trail is not None:
        write_trail(trail, seq, own, defines or {}, elsewhere)
    if violated:
        sys.exit(EXIT_VIOLATED)
    if unchecked or (incomplete and not partial_ok):
        sys.exit(EXIT_INCOMPLETE)


def print_exploration(seq, result, models: list, extra: dict, trace: bool, stopped: str, timeout: Optional[float],
                      advice: str, violated: bool, unchecked: list) -> None:
    """``report_exploration``'s text: the figures, what stopped the run, faults and verdicts
    with their counterexamples (assertion i's a run of ``models[i]``)."""
    from detect.checking.counterexample import show_moves
    from detect.checking.verify import stop_words
    from detect.ir import state_slots

    show_state = state_shower(seq)
    slots = state_slots(seq)
    params = ", ".join(f"{k}={v}" for k, v in seq.parameters)
    out.print(f"[bold]{escape(seq.name)}[/bold]" + escape(f"  ({params})" if params else ""))
    table = rich_table(show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    for key, value in extra.items():
        table.add_row(key, escape(memory_limit_words(value, extra) if key == "memory_limit" else str(value)))
    rate = result.states / result.seconds if result.seconds > 0 else 0
    figures = summary_figures(seq, result)
    for key, value in (
        ("state vector", f"{figures['state_vector_bytes']:,} bytes ({len(slots):,} slots, packed)"),
        ("depth reached", f"{result.depth:,}" + (" (the deepest depth-first stack)" if result.depth_first else "")),
        ("states", f"{result.states:,}"), ("states matched", f"{figures['states_matched']:,}"),
        ("transitions", f"{result.transitions:,}"),
        ("deadlocks", f"{len(result.deadlocks):,}"), ("valid end states", f"{len(result.terminal_states):,}"),
        ("states with faults", f"{result.faults:,}"),
        *((("states cut at a bound", f"{result.bounds:,}"),) if result.bounds else ()), ("seconds", f"{result.seconds:.3f} ({result.cpu_seconds:.3f} CPU)"),
        ("states/s", f"{rate:,.0f}"),
        ("memory", f"{show_size(result.memory_bytes)} ({result.bytes_per_state:,.0f} bytes/state; "
                   f"{result.memory_measure})"),
    ):
        table.add_row(key, escape(value))
    out.print(table)
    if stopped:
        why = stop_words(stopped, timeout)
        if stopped == "memory-limit" and extra.get("memory_limit"):
            why += f", {memory_limit_words(extra['memory_limit'], extra)}"
        partial = ("counts are partial; " if result.truncated else "") + f"{result.states:,} states explored"
        out.print(f"[yellow]stopped early: {escape(why)}" + escape(f" {advice}" if advice else "")
                  + f"; {partial}[/yellow]")
    for f in result.first_faults:
        out.print(f"[red]fault[/red] at {escape(f.origin)}: {escape(f.message)}", markup=True)
        out.print(f"    in state {show_state(f.state)}", markup=False)
    if result.bounds and not violated:  # (a violation decides the run whatever lies past the bound)
        out.print(f"[yellow]{escape(bound_advice(result))}[/yellow]")
    if trace and result.fault_trace:
        out.print(f"counterexample: {'a depth-first' if result.depth_first else 'a shortest'} path to the first "
                  f"fault ({len(result.fault_trace) - 1} steps)")
        for line in show_moves(seq, result.fault_trace):
            out.print(line, markup=False)
    for a, model in zip(result.assertions, models):
        colour = {"holds": "green", "fails": "red"}.get(a.verdict, "yellow")
        out.print(f"assert {escape(a.assertion.text)}: [{colour}]{a.verdict}[/{colour}]"
                  + escape(f" ({a.note})" if a.note else ""))
        if trace and a.trace and a.trace is not result.fault_trace:
            for line in show_moves(model, a.trace, a.loop_from):
                out.print(line, markup=False)
    if unchecked and not violated:
        many = len(unchecked) > 1
        out.print(f"[yellow]{len(unchecked)} propert{'ies' if many else 'y'} not checked (symdetect does not "
                  f"check {'them' if many else 'it'}): the run does not show every property holding[/yellow]")


def summary_figures(seq, result) -> dict:
    """The figures Spin and CMurphi users compare, beside the states and transitions:
    ``state_vector_bytes`` (a state packed, each slot in the bits its domain needs: Spin
    prints its C struct's size, so only the order of magnitude compares) and
    ``states_matched`` (transitions to a state already stored: every transition but those
    that stored a new state)."""
    from detect.ir import state_slots

    bits = sum((len(slot.domain) - 1).bit_length() for slot in state_slots(seq))
    return {"state_vector_bytes": (bits + 7) // 8,
            "states_matched": max(0, result.transitions - (result.states - result.initial))}


def exploration_json(seq, result, extra: dict, show_state: Callable, stopped: Optional[str] = None,
                     models: Optional[list] = None, others: dict = {}) -> dict:
    """``explore --json``: the model, ``extra`` (reduction, notes) and ``result``'s counts,
    what stopped the run (``stopped``: null when nothing did; by default the exploration's
    ``stopped_by``) and verdicts, states shown by ``show_state``; assertion i's trace is a run
    of ``models[i]`` (default ``seq``).  An assertion about another process (``others``, see
    ``report_exploration``) says which process gave its verdict and that exploration's counts."""
    from detect.checking.counterexample import moves_json

    models = models or [seq] * len(result.assertions)
    shows = {id(m): state_shower(m) for m in models if m is not seq}
    shows[id(seq)] = show_state

    def explored(i: int) -> dict:
        if i not in others or others[i][1] is None:
            return {}
        call, _, other = others[i]
        return {"explored": {"process": call, "states": other.states, "transitions": other.transitions,
                             "faults": other.faults, "bounds": other.bounds, "truncated": other.truncated}}

    if stopped is None:
        stopped = result.stopped_by
    return {
        "model": seq.name,
        "parameters": dict(seq.parameters),
        **extra,
        "states": result.states,
        "transitions": result.transitions,
        "initial": result.initial,
        **summary_figures(seq, result),
        "depth": result.depth,
        # how the figures were made: the nested search's depth is its deepest stack, its
        # traces depth-first paths; a breadth-first exploration's the last level, shortest
        "search": "nested depth-first" if result.depth_first else "breadth-first",
        "deadlocks": len(result.deadlocks),
        "terminal_states": len(result.terminal_states),
        "faults": result.faults,
        # steps cut at a bound of ours: states, the bounds, and what to pass (exit 3)
        "bounds": result.bounds,
        "bounds_reached": [{"option": b.option, "value": b.value} for b in result.bounds_reached],
        "bound_advice": bound_advice(result) or None,
        "stopped": stopped or None,
        "truncated": result.truncated,
        "interrupted": result.interrupted,
        "seconds": round(result.seconds, 6),
        "cpu_seconds": round(result.cpu_seconds, 6),
        "memory_limit_reached": result.memory_limit_reached,
        "bytes": result.memory_bytes,
        "bytes_per_state": round(result.bytes_per_state, 1),
        "memory_measure": result.memory_measure,
        "assertions": [
            {"kind": a.assertion.kind, "text": a.assertion.text, "verdict": a.verdict, "note": a.note,
             **({"about": a.assertion.about} if a.assertion.about else {}), **explored(i),
             "value": a.value,
             "trace": [{"event": s.event, "state": shows[id(model)](s.state)} for s in a.trace],
             "counterexample": moves_json(model, a.trace), "loop_from": a.loop_from}
            for i, (a, model) in enumerate(zip(result.assertions, models))
        ],
        "first_faults": [
            {"state": show_state(f.state), "origin": f.origin, "message": f.message} for f in result.first_faults
        ],
        "fault_counterexample": moves_json(seq, result.fault_trace),
    }


def first_counterexample(result) -> Optional[tuple[str, str, tuple, Optional[int]]]:
    """``(kind, violation, trace, loop_from)`` of the first violation ``result`` has a trace
    for: a run-time fault first (as Spin reports the first error), then a failed assertion."""
    if result.fault_trace and result.fault_trace[-1].fault:
        return "fault", result.fault_trace[-1].fault, result.fault_trace, None
    for a in result.assertions:
        if a.verdict == "fails" and a.trace:
            if a.loop_from is not None:
                kind = "cycle"
            elif a.trace[-1].fault:
                kind = "fault"
            elif a.assertion.kind == "deadlockfree":
                kind = "deadlock"
            else:
                kind = "assertion"
            return kind, f"{a.assertion.text}: {a.note or 'fails'}", a.trace, a.loop_from
    return None


def write_trail(path: str, seq, result, defines: dict, elsewhere: Sequence[str] = ()) -> None:
    """``--trail``: the first counterexample as JSON at ``path`` (atomically), or a note on
    standard error that there is none; ``elsewhere``: the other processes (CSP#) whose
    assertions fail, whose counterexamples need ``--process``."""
    from detect.checking.counterexample import Trail, moves_json
    from detect.export import atomic_write

    found = first_counterexample(result)
    if found is None:
        hint = ("; an assertion on " + ", ".join(elsewhere) + " fails: pass --process '" + elsewhere[0]
                + "' to write its counterexample" if elsewhere else "")
        err.print("symdetect: no counterexample to write to the trail (no violation with a path of "
                  f"{'the process explored' if elsewhere else 'the model'}){hint}", markup=False)
        return
    kind, violation, steps, loop_from = found
    notes = dict(seq.annotations)
    trail = Trail(seq.source or seq.name, defines, violation, kind, moves_json(seq, steps), loop_from,
                  notes.get("ltl") or notes.get("non_progress"))
    try:
        atomic_write(path, [trail.to_json().encode()])
    except OSError as e:
        raise Failure(f"{path}: cannot write the trail ({e.strerror or e})") from None
    err.print(f"symdetect: counterexample written to {path} (symdetect replay MODEL {path})", markup=False)


# ---------------------------------------------------------------------------------- linearise
# ---------------------------------------------------------------------------------- linearise


@main.command()
@model_argument
@define_option
@process_option
@max_procs_option
@loop_max_option
@domain_states_option
@timeout_option
@pipeline_command
def linearise(model, defines, process, max_procs, loop_max, domain_states, timeout):
    """Print MODEL's linearised sequential model (globals, summands, init)."""
    from detect.ir.pretty import show_model

    click.echo(show_model(load_model(model, defines, process, max_procs, domain_states, show_progress=True, loop_max=loop_max)),
               nl=False)


# ---------------------------------------------------------------------------------- replay


@main.command()
@model_argument
@click.argument("trail_file", metavar="TRAIL", type=click.Path(dir_okay=False))
@define_option
@process_option
@max_procs_option
@domain_states_option
@timeout_option
@loop_max_option
@click.option("--nomultiset", "nomultiset", is_flag=True,
              help="Murphi: as explore's --nomultiset (give it when the trail was written with it).")
@ltl_option
@pipeline_command
def replay(model, trail_file, defines, process, max_procs, domain_states, timeout, loop_max, nomultiset, ltl_name):
    """Take the steps of TRAIL (written by 'explore --trail') on MODEL again, checking each one, and
    print them (as 'spin -t -p' does).  Exit 1 when the violation recurs, 2 when the trail does not fit
    the model.  The -D values default to the trail's."""
    from detect.checking.counterexample import TrailError, read_trail, replay as replay_trail, show_moves

    try:
        trail = read_trail(trail_file)
    except TrailError as e:
        raise Failure(str(e)) from None
    if not defines:
        defines = tuple(f"{k}={v}" for k, v in trail.defines.items())
    if ltl_name is None:
        ltl_name = trail.ltl  # the property the trail was written under (an ltl block, non-progress)
    seq = load_model(model, defines, process, max_procs, domain_states, show_progress=True, loop_max=loop_max,
                     multiset_sort=not nomultiset, ltl_name=ltl_name)
    current_run().enter("replaying the trail")
    try:
        done = replay_trail(seq, trail)
    except TrailError as e:
        raise Failure(f"{trail_file}: {e}") from None
    out.print(f"replaying {escape(trail_file)}: {escape(trail.violation)}")
    for line in show_moves(seq, done.trace, trail.loop_from):
        out.print(line, markup=False)
    if done.recurred:
        out.print(f"[red]violation reproduced[/red]: {escape(done.why)}")
        sys.exit(EXIT_VIOLATED)
    raise Failure(f"{trail_file}: every step replayed, but {done.why}")


# ---------------------------------------------------------------------------------- export


@main.command()
@model_argument
@define_option
@process_option
@max_procs_option
@loop_max_option
@click.option("--format", "fmt", required=True,
              type=click.Choice(["gap", "json", "dreadnaut", "dimacs", "dot", "png", "svg", "murphi"]),
              help="gap: group on literal points; json: versioned document (detect/export/schema/symmetries-v1.json); "
                   "dreadnaut/dimacs: the coloured graph for nauty/Traces and bliss; dot/png/svg: a picture; "
                   "murphi: the Murphi model with its detected index symmetries declared as Scalarsets.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="File to write (a regular file atomically: replaced only once complete; through a symbolic "
                   "link; a FIFO or device in place); standard output if omitted.")
@click.option("--engine", type=click.Choice(["auto", "nauty", "bliss"]), default="auto", show_default=True)
@click.option("--table-limit", default=100_000, show_default=True)
@click.option("--run", is_flag=True, help="dreadnaut: end with `x` so that the file runs when piped in.")
@click.option("--summand", type=int, default=None, help="Pictures: draw only the part of summand K.")
@click.option("--constraint", type=int, default=None, help="Pictures: draw only the part of constraint K.")
@click.option("--max-nodes", default=2_000, show_default=True, help="Pictures: refuse larger drawings.")
@click.option("--layout", type=click.Choice(["sfdp", "neato", "fdp", "dot"]), default="sfdp", show_default=True,
              help="Pictures: Graphviz layout program.")
@domain_states_option
@timeout_option
@graph_limit_option
@pipeline_command
def export(model, defines, process, max_procs, loop_max, fmt, output, engine, table_limit, run, summand, constraint, max_nodes,
           layout, domain_states, timeout, graph_limit):
    """Export MODEL's symmetries or coloured graph for GAP, nauty, bliss, Graphviz or other tools."""
    from detect.export import ExportError, ExportOptions, atomic_write, export_chunks

    start = time.perf_counter()
    if output is None and fmt == "png" and sys.stdout.isatty():
        raise Failure("--format png is binary: give -o FILE or redirect standard output")
    seq = load_model(model, defines, process, max_procs, domain_states, show_progress=True, loop_max=loop_max)
    options = ExportOptions(engine, table_limit, run, summand, constraint, max_nodes, layout, domain_states,
                            graph_limit)
    current_run().enter(f"exporting ({fmt})")
    try:
        with detection_limits(seq):
            chunks = export_chunks(seq, fmt, options, (("parse", time.perf_counter() - start),))
        if output is None:
            for chunk in chunks:
                if isinstance(chunk, bytes):
                    sys.stdout.buffer.write(chunk)
                else:
                    sys.stdout.write(chunk)
            sys.stdout.flush()
        else:
            atomic_write(output, chunks)
    except ExportError as e:
        raise Failure(f"{model}: {e}") from None
    except BrokenPipeError:
        if output is not None:
            raise Failure(f"{output}: cannot write: broken pipe") from None
        # The reader stopped early (``| head``): not an error, and nothing more to say.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as e:
        raise Failure(f"{output or '<stdout>'}: cannot write: {e.strerror or e}") from None


@main.command("spin")
@model_argument
@define_option
@click.option("-o", "--output-dir", "out_dir", type=click.Path(file_okay=False), default=".", show_default=True,
              help="Directory for Spin's pan.* files and sympan.c.")
@click.option("--spin-option", "spin_options", multiple=True, metavar="OPT",
              help="Pass OPT to spin -a (repeatable), e.g. --spin-option=-o1 to keep dead variables.")
@click.option("--strategy", type=click.Choice(["exact", "enumerate", "sort"]), default="exact", show_default=True,
              help="Canonical form in sympan (the native explorer's C canonicaliser): exact (sorting whole "
                   "process blocks where the group is S_n on them and renames no value, else S_n on pids where "
                   "the group has that shape, else the least image over all elements), enumerate (always the "
                   "least image over all elements), sort (sorting only; refused where it is not exact).")
@click.option("--ltl", "ltl_name", metavar="NAME",
              help="The ltl block pan checks (./sympan -a -N NAME; default: the first): the group is the "
                   "subgroup fixing its propositions, detected on the model with its never claim.")
@domain_states_option
@click.option("--engine", type=click.Choice(["auto", "nauty", "bliss"]), default="auto", show_default=True)
def spin_cmd(model, defines, out_dir, spin_options, strategy, ltl_name, domain_states, engine):
    """Write a Spin verifier (sympan.c) that stores MODEL's states up to its detected symmetry."""
    from detect.export.spin import (GCC, GCC_CLAIM, GCC_POR, RUN, SpinExportError, check_source, export_verifier,
                                    pan_dataflow)

    if not model.endswith((".pml", ".p", ".prom")):
        raise Failure(f"{model}: symdetect spin applies to Promela models only")
    # With a claim (a never claim, or the ltl block asked for) the model loaded is the product:
    # the group detected on it fixes the claim, i.e. is the stabiliser of its propositions.
    seq = load_model(model, defines, domain_states=domain_states, ltl_name=ltl_name)
    try:
        with open(model, encoding="utf-8", errors="replace") as f:
            text = f.read()
        check_source(text)
        # pan resets dead locals (Spin's data-flow optimisation, on by default): detected on
        # the model with those resets, the group is one of pan's system
        flow = pan_dataflow(model, defines, seq, spin_options)
    except SpinExportError as e:
        raise Failure(f"{model}: {e}") from None
    seq, spin_options = flow.model, flow.options
    if flow.note:
        out.print(flow.note, markup=False)
    detection = run_detection(seq, engine, 100_000, domain_states)
    try:
        sym, path, used = export_verifier(model, defines, out_dir, detection.model, detection.group, text, strategy,
                                          spin_options)
    except SpinExportError as e:
        raise Failure(f"{model}: {e}") from None
    except OSError as e:
        raise Failure(f"{out_dir}: cannot write: {e.strerror or e}") from None
    how = escape(sym.canonical_form())
    out.print(f"wrote {escape(path)}: states stored up to the detected {escape(sym.describe())}; {how}",
              markup=True)
    if sym.pc_mapped:
        out.print(f"program counters of {', '.join(sym.pc_mapped)} renamed in pan's numbering (their automata "
                  f"paired with pan's, pan -d); Spin run as spin {' '.join(used + ('-a',))}", markup=False)
        if sym.merging not in ("on", "off (-o3 asked)"):
            out.print(sym.merging, markup=False)
    else:
        out.print(f"Spin run as spin {' '.join(used + ('-a',))}", markup=False)
    for why in sym.dropped:
        out.print(f"{why} (the group is the one the others generate)", markup=False)
    if sym.claim is not None:
        pick = f" -N {sym.claim}" if sym.claim != ":never:" else ""
        out.print(f"claim {escape(sym.claim)}: the group fixes its propositions (order {sym.order:,})", markup=False)
        out.print(f"cd {escape(out_dir)} && {GCC_CLAIM} && {RUN} -a{pick}", markup=False)
    else:
        out.print(f"cd {escape(out_dir)} && {GCC} && {RUN}", markup=False)
        out.print(f"with partial-order reduction: cd {escape(out_dir)} && {GCC_POR} && {RUN}", markup=False)
    import os

    out.print(f"a trail it writes replays in Spin: cd {escape(out_dir)} && ./sympan -r (or spin -t -p "
              f"{escape(os.path.basename(model))})", markup=False)


@main.group()
def bench() -> None:
    """Rerun seed 002's experiments: Table I (detection), Tables II/III (reduced exploration)."""


@bench.command("table1")
@click.option("--quick", is_flag=True, help="Small configurations only (seconds; no paper comparison).")
@click.option("--engine", type=click.Choice(["auto", "nauty", "bliss"]), default="auto", show_default=True)
@click.option("--output", "stem", default=None,
              help="Also write STEM.md and STEM.csv (e.g. results/table1); nothing is written without it.")
@click.option("--only", default="", help="Only systems whose name contains this text.")
def bench_table1(quick, engine, stem, only):
    """Detection on the paper's 13 systems beside the paper's Table I."""
    from detect import bench

    with bench_errors():
        table = bench.table1(quick, engine, only, say=lambda text: err.print(text, markup=False))
        if stem:
            bench.write(stem, table)
    _print_bench(table.shown, table.shown_columns)
    if table.summary:
        out.print(table.summary)


@bench.command("table2")
@click.option("--quick", is_flag=True, help="Small configurations only (no paper comparison).")
@click.option("--timeout", default=600.0, show_default=True, help="Seconds per exploration.")
@click.option("--max-states", default=5_000_000, show_default=True, help="States per exploration.")
@click.option("--output", "stem", default=None,
              help="Also write STEM.md and STEM.csv (e.g. results/table2); nothing is written without it.")
@click.option("--only", default="", help="Only systems whose name contains this text.")
def bench_table2(quick, timeout, max_states, stem, only):
    """States and seconds without reduction, with exact and local canonicalisation (Tables II/III)."""
    from detect import bench

    with bench_errors():
        table = bench.table2(quick, timeout, max_states, only, say=lambda text: err.print(text, markup=False))
        if stem:
            bench.write(stem, table)
    _print_bench(table.shown, table.shown_columns)


@contextmanager
def bench_errors() -> Iterator[None]:
    """A benchmark's model that cannot be read (not installed, or bad), or an ``--output``
    that cannot be written, is one line, exit 2."""
    try:
        yield
    except InputError as e:
        raise Failure(str(e)) from None
    except OSError as e:
        raise Failure(f"{e.filename or '--output'}: cannot write: {e.strerror or e}") from None


def _print_bench(rows, columns) -> None:
    table = rich_table(*columns)
    for row in rows:
        table.add_row(*(escape(str(row[c])) for c in columns))
    out.print(table)


if __name__ == "__main__":  # pragma: no cover
    main()
