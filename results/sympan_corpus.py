"""``symdetect spin`` on every Promela model of the directories given (default: models/ and
../shared/corpus): for each with a detected group larger than 1, Spin's "states, stored" of
the generated ``sympan`` (``-DSAFETY -DNOREDUCE``, Spin run with ``-o1 -o2 -o3``) against
ours (``explore --reduce exact --spin-states``: "spin states stored up to symmetry"), and
the verdict of ``sympan`` with partial-order reduction against plain ``pan``'s.

    python results/sympan_corpus.py [DIR ...] [--output results/sympan_corpus.md] [--merging]

``--merging``: Spin run as a user runs it, plain ``spin -a`` (statement merging and the
data-flow optimisation on), ours ``explore --reduce exact --spin-states --spin-merging``
(states inside pan's merged chains not stored, pan's dead-variable resets modelled:
``export.spin.pan_dataflow``, the group detected on the model with them); where pan's merged
automata cannot be read against ours, the row falls back to ``-o3`` and says why, where its
resets cannot be paired with our steps to ``-o1 -o2`` (and says why).
``--merging --old-flags``: Spin run with ``-o1 -o2`` (merging on, data flow off), as before.
"""
from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from detect.checking.spin_counts import spin_stored_count, spin_stored_orbits, with_merging  # noqa: E402
from detect.export.spin import (SpinExportError, SpinSymmetry, export_verifier, kept_group, merged_pcs,  # noqa: E402
                                pan_dataflow)
from detect.symmetry.pipeline import detect  # noqa: E402
from detect.transform.load import load_model  # noqa: E402

NO_OPT = ("-o1", "-o2", "-o3")
#: Spin's defaults: statement merging, data-flow and dead-variable optimisations on
MERGING = ()
#: statement merging on, data-flow and dead-variable optimisations off (``--old-flags``)
OLD_MERGING = ("-o1", "-o2")
SUFFIXES = (".pml", ".p", ".prom")


@dataclass(frozen=True)
class Pan:
    """One pan run: states stored, errors, seconds, memory (MB, pan's "total actual memory usage")."""

    stored: int
    errors: int
    seconds: float
    memory: float


def run_pan(workdir: Path, source: str, flags: tuple[str, ...], args: tuple[str, ...] = ("-m10000000", "-c0", "-n"),
            timeout: float = 600) -> Pan:
    """Compile ``source`` in ``workdir`` with ``flags`` and run it; SpinExportError if gcc fails."""
    exe = workdir / (Path(source).stem + "_" + "_".join(f.strip("-") for f in flags))
    build = subprocess.run(["gcc", "-O2", *flags, "-o", str(exe), source], cwd=workdir, capture_output=True,
                           text=True, timeout=600)
    if build.returncode != 0:
        first = [line for line in build.stderr.splitlines() if "error" in line][:1]
        raise SpinExportError(f"gcc failed on {source}: {first[0] if first else build.returncode}")
    start = time.perf_counter()
    run = subprocess.run([str(exe), *args], cwd=workdir, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    stored = re.search(r"(\d+) states, stored", run.stdout)
    errors = re.search(r"errors: (\d+)", run.stdout)
    memory = re.search(r"([\d.]+)\s+total actual memory usage", run.stdout)
    if stored is None or errors is None:
        raise SpinExportError(f"{source}: pan printed no counts: {run.stdout[-200:]!r}")
    return Pan(int(stored.group(1)), int(errors.group(1)), seconds, float(memory.group(1)) if memory else 0.0)


@dataclass(frozen=True)
class Row:
    model: str
    order: int = 1
    note: str = ""
    ours: Optional[int] = None
    ours_plain: Optional[int] = None
    sympan: Optional[Pan] = None
    pan: Optional[Pan] = None
    sympan_por: Optional[Pan] = None
    pan_por: Optional[Pan] = None
    #: the counts (ours, sympan's, pan's) are of the model with its assertions made true:
    #: pan goes on past a failed assertion, we stop there (``spin_oracle.neutralise_asserts``)
    neutral: bool = False

    @property
    def base_differs(self) -> bool:
        """Our unreduced count is not plain pan's already (a known front-end difference)."""
        return self.pan is not None and self.ours_plain is not None and self.ours_plain != self.pan.stored

    @property
    def agrees(self) -> bool:
        return (self.sympan is not None and (self.ours == self.sympan.stored or self.base_differs)
                and (self.sympan_por.errors > 0) == (self.pan_por.errors > 0)
                and (self.sympan.errors > 0) == (self.pan.errors > 0))


class _OverTime(Exception):
    pass


def _alarm(signum, frame):
    raise _OverTime()


def _budget(seconds: float) -> None:
    """Stop this process's work on a model after ``seconds`` of its own CPU time (SIGPROF:
    user + system, so that a loaded machine does not turn rows into timeouts); 0 disarms.
    Spin, gcc and pan run as children, each bounded by its own timeout."""
    signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)


def check_model(path: Path, workdir: Path, max_states: int = 1_000_000, seconds: int = 120,
                merging: bool = False, options: tuple[str, ...] = MERGING) -> Row:
    """The row of one model (see the module docstring), within ``seconds`` (else a note)."""
    _budget(seconds)
    try:
        return _check_model(path, workdir, max_states, merging, options)
    except _OverTime:
        return Row(str(path), note=f"over {seconds} s of CPU (detection, our count): not compared")
    finally:
        _budget(0)


@dataclass(frozen=True)
class ClaimRow:
    """One (model, claim) pair: ``pan -a`` and ``sympan -a`` (no fairness), without and with
    partial-order reduction; the group is the claim's stabiliser."""

    model: str
    claim: str
    order: int
    sympan: Pan
    pan: Pan
    sympan_por: Pan
    pan_por: Pan

    @property
    def agrees(self) -> bool:
        return ((self.sympan.errors > 0) == (self.pan.errors > 0)
                and (self.sympan_por.errors > 0) == (self.pan_por.errors > 0))


def ltl_names(text: str) -> list[Optional[str]]:
    """The claims pan can run on a model: its ``ltl`` blocks by name, or its never claim (None)."""
    if re.search(r"\bnever\s*\{", text):
        return [None]
    return re.findall(r"^\s*ltl\s+(\w+)\s*\{", text, flags=re.M)


def check_claims(path: Path, workdir: Path, max_states: int = 1_000_000, seconds: int = 240) -> list:
    """A ``ClaimRow`` per claim of ``path`` (a ``Row`` with the note where one is not compared,
    or took more than ``seconds``)."""
    rows: list = []
    text = path.read_text(errors="replace")
    for k, claim in enumerate(ltl_names(text)):
        name = f"{path} ({'never claim' if claim is None else 'ltl ' + claim})"
        _budget(seconds)
        try:
            try:
                seq = load_model(path, domain_states=max_states, ltl_name=claim)
                detection = detect(seq, domain_states=max_states)
            except _OverTime:
                raise
            except Exception as e:  # noqa: BLE001 -- a row, not a crash
                rows.append(Row(name, note=f"not loaded: {(str(e) or type(e).__name__).splitlines()[0][:100]}"))
                continue
            if detection.group.order == 1:
                rows.append(Row(name, 1, "group 1 (the claim's stabiliser)"))
                continue
            try:
                out = workdir / f"c{k}"
                sym, _, _ = export_verifier(str(path), (), str(out), detection.model, detection.group, text,
                                            spin_options=NO_OPT)
                args = ("-m1000000", "-a", "-n", *([f"-N{claim}"] if claim else []))
                runs = [run_pan(out, src, flags, args) for flags in (("-DNOREDUCE",), ()) for src in
                        ("sympan.c", "pan.c")]
            except SpinExportError as e:
                rows.append(Row(name, detection.group.order, f"refused: {e}"))
                continue
            rows.append(ClaimRow(str(path), claim or ":never:", detection.group.order, *runs))
        except _OverTime:
            rows.append(Row(name, note=f"over {seconds} s of CPU (detection): not compared"))
        finally:
            _budget(0)
    return rows


def _counted_model(path: Path, model, merging: bool, options: tuple[str, ...] = MERGING
                   ) -> tuple[object, tuple[str, ...], str]:
    """(the model our count runs on, Spin's options, a note): with ``merging``, counted as
    pan with statement merging stores (``--spin-merging``; Spin run with ``options``), else --
    or where pan's merged automata cannot be read against ours -- as ``-o3`` (with the
    data-flow options of ``options``)."""
    if not merging:
        return model, NO_OPT, ""
    try:
        return with_merging(model, merged_pcs(str(path), (), model, options)), options, ""
    except SpinExportError as e:
        return model, options + ("-o3",), f"merging off (-o3): {e}"


def _loaded(path: Path, max_states: int, merging: bool, options: tuple[str, ...]):
    """(the model as pan runs it, Spin's options, a note), loaded: with ``merging`` and Spin's
    data-flow optimisation on, with pan's dead-variable resets (``pan_dataflow``)."""
    seq = load_model(path, domain_states=max_states)
    if not merging:
        return seq, NO_OPT, ""
    flow = pan_dataflow(str(path), (), seq, options)
    return flow.model, flow.options, flow.note


def _check_model(path: Path, workdir: Path, max_states: int, merging: bool = False,
                 options: tuple[str, ...] = MERGING) -> Row:
    name = str(path)
    if ltl_names(path.read_text(errors="replace")):
        return Row(name, note="claims")
    try:
        seq, options, flow_note = _loaded(path, max_states, merging, options)
        detection = detect(seq, domain_states=max_states)
    except _OverTime:
        raise
    except Exception as e:  # noqa: BLE001 -- a model our front end refuses is a row, not a crash
        return Row(name, note=f"not loaded: {str(e).splitlines()[0][:100]}")
    order = detection.group.order
    if order == 1:
        return Row(name, 1, "group 1")
    try:
        model, options, merged_note = _counted_model(path, detection.model, merging, options)
        sym, _, used = export_verifier(str(path), (), str(workdir), detection.model, detection.group,
                                       path.read_text(errors="replace"), spin_options=options)
        if "-o3" in used and "-o3" not in options:
            # the export turned merging off (a merged automaton not numbered as -o3's): count so too
            model, merged_note = detection.model, sym.merging
        # sympan reduces by the generators it kept (all, unless some renamed pcs as pan's
        # automata do not allow): our count is of that group's orbits
        kept = kept_group(detection.group, sym)
        counted = spin_stored_count(model, max_states, group=kept)
        ours, ours_plain = counted.reduced, counted.stored
        if counted.stopped_by:
            # too many states to hold unreduced: count the orbits on the quotient instead
            ours, ours_plain = spin_stored_orbits(model, kept, max_states), None
            if ours is None:
                return Row(name, order, f"more than {max_states:,} states and orbits: not compared")
        sympan = run_pan(workdir, "sympan.c", ("-DSAFETY", "-DNOREDUCE"))
        pan = run_pan(workdir, "pan.c", ("-DSAFETY", "-DNOREDUCE"))
        sympan_por = run_pan(workdir, "sympan.c", ("-DSAFETY",))
        pan_por = run_pan(workdir, "pan.c", ("-DSAFETY",))
    except SpinExportError as e:
        return Row(name, order, f"refused: {e}")
    # the native explorer's canonicaliser (canon.c) sympan runs: sorted blocks, S_m on pids, or all elements
    how = _how(sym) + (f"; {merged_note}" if merged_note else "") + (f"; {flow_note}" if flow_note else "")
    row = Row(name, order, how, ours, ours_plain, sympan, pan, sympan_por, pan_por)
    if row.base_differs and pan.errors and "#include" not in path.read_text(errors="replace"):
        # like for like: the counts of the model with its assertions made true (the verdicts
        # stay the real model's)
        # (merging falls back to -o3 there as here: ``_counted_model``; the data-flow options stay)
        neutral = _neutral_counts(path, workdir / "neutral", max_states, merging, options)
        if neutral is not None:
            row = replace(row, ours=neutral[0], ours_plain=neutral[1],
                          sympan=replace(sympan, stored=neutral[2]), pan=replace(pan, stored=neutral[3]),
                          neutral=True)
    return row


def _how(sym: SpinSymmetry) -> str:
    """The canonical form's column: the form, and where pcs are renamed in pan's numbering."""
    how = (f"sorting S_{len(sym.blocks[1])}" if sym.blocks else f"S_{len(sym.pids_spec[0])} on pids"
           if sym.pids_spec else f"{len(sym.elements):,} elements")
    if sym.pc_mapped:
        how += f"; pcs of {', '.join(sym.pc_mapped)} in pan's numbering"
    if sym.dropped:
        how += f"; {len(sym.dropped)} generator(s) dropped: " + "; ".join(sym.dropped)
    return how


def _neutral_counts(path: Path, workdir: Path, max_states: int, merging: bool = False,
                    options: tuple[str, ...] = MERGING) -> Optional[tuple[int, int, int, int]]:
    """(ours reduced, ours unreduced, sympan stored, pan stored) of ``path`` with every
    assertion made true, or None where that model has no group."""
    from tests.spin_oracle import neutralise_asserts

    workdir.mkdir()
    copy = workdir / path.name
    copy.write_text(neutralise_asserts(path.read_text(errors="replace")))
    seq, options, _ = _loaded(copy, max_states, merging, tuple(o for o in options if o != "-o3"))
    detection = detect(seq, domain_states=max_states)
    if detection.group.order == 1:
        return None
    model, options, _ = _counted_model(copy, detection.model, merging, options)
    sym, _, _ = export_verifier(str(copy), (), str(workdir), detection.model, detection.group, copy.read_text(),
                                spin_options=options)
    counted = spin_stored_count(model, max_states, group=kept_group(detection.group, sym))
    return (counted.reduced, counted.stored, run_pan(workdir, "sympan.c", ("-DSAFETY", "-DNOREDUCE")).stored,
            run_pan(workdir, "pan.c", ("-DSAFETY", "-DNOREDUCE")).stored)


def models_in(directories) -> list[Path]:
    found = []
    for d in directories:
        d = Path(d)
        found.extend(sorted(p for p in (d.rglob("*") if d.is_dir() else [d]) if p.suffix in SUFFIXES))
    return found


def table(rows: list, merging: bool = False, options: tuple[str, ...] = MERGING) -> str:
    claims = [r for r in rows if isinstance(r, ClaimRow)]
    rows = [r for r in rows if not isinstance(r, ClaimRow)]
    spin = (("as plain `spin -a` (Spin's defaults)" if not options else f"with `{' '.join(options)}` (statement "
             "merging on, as by default)") if merging else "with `-o1 -o2 -o3`")
    ours = "`explore --reduce exact --spin-states" + (" --spin-merging`" if merging else "`")
    lines = [f"Counts: `-DSAFETY -DNOREDUCE`, `./pan -c0` (every error counted, the search goes on), Spin run "
             f"{spin}.  *ours*: {ours} (up to symmetry / unreduced). "
             "Verdicts: an error found or not, without and with partial-order reduction (`-DSAFETY`).  "
             "*agree*: sympan's count is ours and the verdicts are pan's; `base` where our unreduced count is "
             "already not pan's (the front end's known differences), so the reduced ones cannot agree either.  "
             "Where pan finds an assertion violated and the counts differ (pan goes on past it, we stop), the "
             "counts are those of the model with its assertions made true (as `results/spin_examples.py`), the "
             "verdicts the real model's.",
             "",
             "| model | group | canonical form | ours | sympan stored | ours unreduced | pan stored | "
             "errors sympan / pan (no POR) | errors sympan / pan (POR) | agree |",
             "|---|---:|---|---:|---:|---:|---:|---|---|---|"]
    for r in rows:
        if r.sympan is None:
            continue
        verdict = "NO" if not r.agrees else "base" if r.ours != r.sympan.stored else "yes"
        note = r.note + (" (counts: assertions made true)" if r.neutral else "")
        plain = f"{r.ours_plain:,}" if r.ours_plain is not None else "(quotient only)"
        lines.append(f"| {r.model} | {r.order:,} | {note} | {r.ours:,} | {r.sympan.stored:,} | {plain} | "
                     f"{r.pan.stored:,} | {r.sympan.errors} / {r.pan.errors} | {r.sympan_por.errors} / "
                     f"{r.pan_por.errors} | {verdict} |")
    if claims:
        lines += ["", "Models with a never claim or `ltl` blocks, one row per claim: the group is the subgroup "
                  "detected on the model with that claim (the stabiliser of its propositions); `pan -a` and "
                  "`sympan -a` (`-N` the block; acceptance cycles, no fairness), without (`-DNOREDUCE`) and with "
                  "partial-order reduction; *agree*: sympan's verdicts are pan's.", "",
                  "| model | claim | group | sympan stored | pan stored | errors sympan / pan (no POR) | "
                  "errors sympan / pan (POR) | agree |", "|---|---|---:|---:|---:|---|---|---|"]
        for c in claims:
            lines.append(f"| {c.model} | {c.claim} | {c.order:,} | {c.sympan.stored:,} | {c.pan.stored:,} | "
                         f"{c.sympan.errors} / {c.pan.errors} | {c.sympan_por.errors} / {c.pan_por.errors} | "
                         f"{'yes' if c.agrees else 'NO'} |")
    others = [r for r in rows if r.sympan is None and (r.order > 1 or r.note.startswith("over"))]
    if others:
        lines += ["", "Group larger than 1, not compared:", ""]
        lines += [f"- {r.model} (group {r.order:,}): {r.note}" for r in others]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", default=["models", "../shared/corpus"])
    parser.add_argument("--output", default=None)
    parser.add_argument("--seconds", type=int, default=120, help="CPU seconds per model (a claim: twice that)")
    parser.add_argument("--merging", action="store_true",
                        help="Spin's defaults (plain spin -a), ours with --spin-merging; claims left out")
    parser.add_argument("--old-flags", action="store_true",
                        help="with --merging: Spin run with -o1 -o2 (data-flow optimisation off), as before")
    args = parser.parse_args()
    rows = []
    for path in models_in(args.dirs):
        with tempfile.TemporaryDirectory() as tmp:
            row = check_model(path, Path(tmp), seconds=args.seconds, merging=args.merging,
                              options=OLD_MERGING if args.old_flags else MERGING)
        if row.note == "claims":
            if args.merging:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                for c in check_claims(path, Path(tmp), seconds=2 * args.seconds):
                    print(c, flush=True)
                    rows.append(c)
            continue
        print(row.model, row.order, row.note, row.ours, row.sympan and row.sympan.stored,
              row.pan and row.pan.stored, row.agrees if row.sympan else "", flush=True)
        rows.append(row)
    text = table(rows, args.merging, OLD_MERGING if args.old_flags else MERGING)
    print(text)
    if args.output:
        Path(args.output).write_text("# `symdetect spin` on the Promela corpus (`results/sympan_corpus.py`)\n\n"
                                     + text)


if __name__ == "__main__":
    main()
