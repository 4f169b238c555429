"""CMurphi's own example models (its distribution's ``ex/`` folder) through CMurphi 5.4 and us.

    python results/cmurphi_examples.py [--ex DIR] [--timeout S] [FILE.m ...]

Builds CMurphi from ``../shared/peers/cmurphi-5.4-src.tar.gz`` (``tests/cmurphi.py``) and runs
every ``.m`` model of the tarball's ``ex/`` folder, of ``--ex DIR`` (a copy of that folder, read
where it is; default ``$CMURPHI_EX``, else ``/tmp/cmurphi-ex``) and the files given, with
constants lowered as ``LOWER`` says (only where CMurphi itself needs minutes), through

* CMurphi: ``-nosym`` (its multiset reduction on, its deadlock check on) and ``-sym1``;
* us: ``symdetect explore --json`` and ``explore --reduce exact --json``;

and prints a markdown table: states and the verdict of each, the order of the group we detect,
and whether the counts agree.  ``SOURCES`` names where each model of ``--ex`` came from and the
SHA-256 of the copy this table was made from: a copy that differs is flagged in the table.
The models are not in the repository (the public code index they were read from asks that
its code stay out of commits); ``SOURCES`` is what rebuilds the folder.  ``--cpu S`` bounds
every run's CPU time (RLIMIT_CPU) as well as ``--timeout``'s wall time.  A model we refuse is listed with our one-line reason.  When
``ex/`` is absent (the tarball in ``../shared/peers`` holds ``src/`` and ``include/`` only), the
table says which of the 19 models were not found.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The 19 models of CMurphi 5.4's ex/ folder (issue 27), by folder.
EXAMPLES = {
    "sym": ("adash", "adashbug", "cache3", "ldash", "list6", "list6too", "mcslock1", "mcslock2", "n_peterson"),
    "dash": ("eadash",),  # melver/cmurphi keeps it in ex/dash
    "multiset+sym": ("cache3multi", "newcache3", "newlist6"),
    "others": ("abp", "arbiter", "cache3", "dp4", "dpnew", "newcache3"),
}
_MELVER = "github melver/cmurphi @ 5d4a4267884277f52c4a1503bb3e3b83d0ae3855"
_EDDY = ("reconstructed from the generated C++ github patrickschultz/Eddy_Murphi_Original @ "
         "4965a3bddf2f00ea079a87c0f9098ff3105af464, ex/others/{}.C")
_EDDY_MS = _EDDY.replace("ex/others/", "ex/multiset+sym/")
#: Where each model of ``--ex`` was read (the ``search`` tool's code index: a GitHub path, or
#: an index file id where the index names no repository) and the first 16 hex digits of the
#: SHA-256 of the copy the recorded table used.  The copies kept the code and the ``-- File:``
#: header; the license header and long comments were shortened (no comment changes a model).
SOURCES = {
    "sym/cache3.m": (f"{_MELVER}, ex/sym/cache3.m", "09873ff995ca9394"),
    "others/cache3.m": (f"{_MELVER}, ex/others/cache3.m", "6998d46b3c00c6f1"),
    "others/newcache3.m": (f"{_MELVER}, ex/others/newcache3.m", "f5f5f35e8e3f8b4b"),
    "others/dpnew.m": ("code index file 1843264284", "b05b89772d61043f"),
    "sym/list6.m": ("code index file 1220409955", "9d346f2b62fb4706"),
    "sym/list6too.m": ("code index file 1457479585", "3c78affb8c40e857"),
    "multiset+sym/newlist6.m": ("code index file 1217782703", "54da7040ee28fb78"),
    "sym/mcslock1.m": ("code index file 1254053257", "854f9d3dc29e01b8"),
    "sym/mcslock2.m": ("code index file 1217678096", "77d030cfc11287bf"),
    "sym/ldash.m": ("code index file 1875160348", "c57ac7055ea80784"),
    "sym/n_peterson.m": ("../shared/corpus/murphi/n_peterson.m", "144c221a6776b2b1"),
    # whole file, comments included (58,535 of the index's 58,560 characters: whitespace
    # inside comments may differ)
    "dash/eadash.m": (f"{_MELVER}, ex/dash/eadash.m", "bc4635ec0ab327ea"),
    # code unchanged; comments shortened (88,819 characters in the index)
    "sym/adash.m": ("code index file 1551313317", "2842cddedf380356"),
    # Not found as text.  Derived, and checked against the C++ Eddy_Murphi 3.2.4 generated from
    # the originals (github patrickschultz/Eddy_Murphi_Original @ 4965a3bd, ex/...C):
    # adashbug is adash.m with ``bug1: true`` (adashbug.C declares ``mu_bug1 = 1`` and is
    # adash.C's length but for the name); dp4, abp and arbiter were rewritten from their .C
    # until CMurphi 5.4 generates the same declarations, rule and start state code from them.
    "sym/adashbug.m": ("derived: sym/adash.m with bug1: true (Eddy_Murphi_Original ex/sym/adashbug.C)",
                       "d1341cf5da81b0c5"),
    "others/dp4.m": (_EDDY.format("dp4"), "9ec95f15845b0884"),
    "others/abp.m": (_EDDY.format("abp"), "f23da35cc09e9da6"),
    "others/arbiter.m": (_EDDY.format("arbiter"), "2e74738c2e5494b3"),
    # Reconstructed on branch cmurex, checked the same way against ex/multiset+sym/*.C:
    # newcache3 is others/newcache3.m with ProcCount: 3 (the two .C files' procedures, rules,
    # start state and invariants are the same length, 47 kB, and read alike but for the
    # ProcCount-derived numbers; the 158-character difference is 150 in the declarations
    # before them and 8 in the symmetry code after, the split CMurphi 5.4's own ProcCount 3/4
    # outputs show); cache3multi is others/newcache3.m with ProcCount: 5, one
    # ``Multiset [8] of Message`` network whose messages carry a Destination, a guard
    # ``MultiSetCount(i:Net, true) <= 2`` on the five requesting rules, and the two receiving
    # rules over ``Choose M_Index: Net`` guarded by ``IsMember(Net[M_Index].Destination, ..)``
    # (CMurphi 5.4's code for it numbers every temporary, multisetcount, invariant and rule as
    # the .C does, and its 40,000 characters from the Send procedures to the last rule are
    # the .C's exactly once tabs, two indentations and the UnFair methods Eddy_Murphi adds
    # are accounted for).
    "multiset+sym/newcache3.m": (_EDDY_MS.format("newcache3"), "e544ba8a93976540"),
    "multiset+sym/cache3multi.m": (_EDDY_MS.format("cache3multi"), "17ceee8059f1cbb3"),
}
#: Constants lowered where CMurphi needs minutes at the file's own values.
#: By ``folder/file`` (``sym/cache3.m`` and ``others/cache3.m`` are two models).
LOWER = {"sym/n_peterson.m": {"N": 4}, "sym/mcslock1.m": {"N": 3}, "sym/mcslock2.m": {"N": 3},
         "sym/cache3.m": {"ProcCount": 3}, "sym/ldash.m": {"RemoteCount": 3}, "others/newcache3.m": {"ProcCount": 3},
         "dash/eadash.m": {"RemoteCount": 3}}


def _declared_group(path: Path, defines: dict):
    """The order of the group the declared scalarsets generate (each scalarset, also inside a
    ``Union``, permutes independently: CMurphi's semantics), or None when unreadable."""
    from math import factorial
    from frontends.kit import BinaryOp, Ident, Num
    from frontends.murphi.syntax import Designator, ScalarsetType, parse_syntax
    from frontends.kit import Constant

    try:
        program = parse_syntax(path.read_text(), str(path))
    except Exception:  # a parse failure is reported by the run itself
        return None
    consts = {c.name: c.value for c in program.items if isinstance(c, Constant)}

    def value(e):
        if isinstance(e, Num):
            return e.value
        if isinstance(e, (Designator, Ident)) and not getattr(e, "selectors", ()):
            return defines[e.name] if e.name in defines else value(consts[e.name])
        if isinstance(e, BinaryOp) and e.op in "+-*":
            a, b = value(e.left), value(e.right)
            return a + b if e.op == "+" else a - b if e.op == "-" else a * b
        raise ValueError(e)

    order = 1
    seen = set()

    def walk(node):
        nonlocal order
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, ScalarsetType):
            order *= factorial(value(node.size))
        if isinstance(node, tuple):
            for x in node:
                walk(x)
        elif hasattr(node, "__dataclass_fields__"):
            for f in node.__dataclass_fields__:
                walk(getattr(node, f))

    try:
        walk(program.items)
    except (ValueError, KeyError):
        return None
    return order


def _sources(ex: str, files: list[str], work: Path) -> list[Path]:
    from tests import cmurphi

    found: list[Path] = []
    with tarfile.open(cmurphi.TARBALL) as tar:
        members = [m for m in tar.getmembers() if "/ex/" in m.name and m.name.endswith(".m")]
        if members:
            tar.extractall(work, members=members)
            found += sorted(work.rglob("*.m"))
    if ex and Path(ex).is_dir():
        found += sorted(Path(ex).rglob("*.m"))
    found += [Path(f) for f in files]
    return found


#: Our options per model beyond the defaults (``folder/file``).
OPTIONS = {"others/newcache3.m": ("--memory-limit", "6G"), "multiset+sym/newcache3.m": ("--memory-limit", "6G"),
           "multiset+sym/cache3multi.m": ("--memory-limit", "6G"), "dash/eadash.m": ("--memory-limit", "6G"),
           "sym/adash.m": ("--memory-limit", "6G"), "sym/adashbug.m": ("--memory-limit", "6G")}


def _ours(path: Path, defines: dict, reduce: bool, timeout: float, cpu: int = 0):
    from tests import cmurphi

    args = [sys.executable, "-m", "detect.cli", "explore", str(path), "--json", "--timeout", str(timeout)]
    for k, v in defines.items():
        args += ["-D", f"{k}={v}"]
    if reduce:
        args += ["--reduce", "exact", *OPTIONS.get(f"{path.parent.name}/{path.name}", ())]
    run = subprocess.run(args, capture_output=True, text=True, cwd=ROOT,
                         preexec_fn=cmurphi.cpu_limit(cpu) if cpu else None)
    if run.returncode == -24:  # SIGXCPU
        return (None, f"CPU limit ({cpu} s)", None, []) if reduce else f"CPU limit ({cpu} s)"
    if run.returncode not in (0, 1, 3) or "{" not in run.stdout:
        last = (run.stderr.strip().splitlines() or [f"no report (exit {run.returncode})"])[-1]
        return (None, "time-out" if run.returncode == 3 else last, None, []) if reduce else last
    data = json.loads(run.stdout[run.stdout.index("{"):])
    failed = [a["text"] for a in data.get("assertions", []) if a.get("verdict") == "fails"]
    verdict = "error" if run.returncode == 1 else ("incomplete" if run.returncode == 3 else "ok")
    return data["states"], verdict, data.get("group_order"), failed


def _cmurphi(home: Path, path: Path, defines: dict, work: Path, timeout: float, cpu: int = 0):
    from tests import cmurphi

    try:
        exe = cmurphi.compile_model(home, cmurphi.with_constants(path.read_text(), defines), work, "m", "-O2")
    except ValueError as e:  # LOWER names a constant the file does not declare so
        return f"cannot lower the constants: {e}"
    except (cmurphi.Rejected, cmurphi.Uncompilable) as e:
        return f"CMurphi cannot run it: {str(e).splitlines()[0][:80] if str(e) else 'mu failed'}"
    out = []
    for options in (("-nosym",), ("-sym1",)):
        try:
            r = cmurphi.run_model(exe, memory_mb=512, timeout=timeout, deadlock=True, options=options, cpu=cpu)
        except (subprocess.TimeoutExpired, RuntimeError):  # wall or CPU time (no counts printed)
            out.append(None)
            continue
        out.append((r.states, "ok" if r.error is None else "error", r.error))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ex", default=os.environ.get("CMURPHI_EX", "/tmp/cmurphi-ex"),
                    help="a copy of CMurphi's ex/ folder (read in place; SOURCES says where each file came from)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--cpu", type=int, default=0, help="CPU seconds per run (RLIMIT_CPU; 0: none)")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    from tests import cmurphi

    reason = cmurphi.unavailable()
    if reason:
        sys.exit(f"cannot run: {reason}")
    home = cmurphi.build()
    start = time.time()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sources = _sources(args.ex, args.files, Path(tmp) / "src")
        for k, path in enumerate(sources):
            defines = LOWER.get(f"{path.parent.name}/{path.name}", {})
            declared = _declared_group(path, defines)
            theirs = _cmurphi(home, path, defines, Path(tmp) / f"cm{k}", args.timeout, args.cpu)
            plain = _ours(path, defines, False, args.timeout, args.cpu)
            reduced = _ours(path, defines, True, args.timeout, args.cpu) if not isinstance(plain, str) else plain
            rows.append((path, defines, theirs, plain, reduced, declared))
    print("| model | -D | CMurphi -nosym | ours explore | CMurphi -sym1 | ours --reduce exact | group: ours / "
          "scalarsets | verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for path, defines, theirs, plain, reduced, declared in rows:
        d = " ".join(f"{k}={v}" for k, v in defines.items())
        name = f"{path.parent.name}/{path.name}"
        recorded = SOURCES.get(name)
        if recorded and hashlib.sha256(path.read_bytes()).hexdigest()[:16] != recorded[1]:
            name += " (not the recorded copy)"
        if isinstance(plain, str):
            print(f"| {name} | {d} | {_show(theirs, 0)} | refused | {_show(theirs, 1)} | | / {declared} | "
                  f"refused: `{plain.replace('|', '/')}` |")
            continue
        if isinstance(reduced, str):
            reduced = (None, reduced.replace("|", "/"), None, [])
        print(f"| {name} | {d} | {_show(theirs, 0)} | {_ours_show(plain)} | {_show(theirs, 1)} | "
              f"{_ours_show(reduced)} | {reduced[2]} / {declared} | {_verdict(theirs, plain, reduced, declared)} |")
    names = {f"{p.parent.name}/{p.name}" for p, *_ in rows}
    missing = [f"{folder}/{m}.m" for folder, models in EXAMPLES.items() for m in models
               if f"{folder}/{m}.m" not in names]
    if missing:
        print(f"\nNot run ({len(missing)} of 19; not found): " + ", ".join(missing))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{len(rows)} models in {time.time() - start:.0f} s; load average {load}; {platform.machine()}, "
          f"Python {platform.python_version()}.")


def _ours_show(r) -> str:
    if r[0] is None:
        return r[1] if r[1] != "timeout" else "time-out"
    return f"{r[0]:,} {r[1]}" + (" (" + "; ".join(r[3]) + ")" if r[3] else "")


def _verdict(theirs, plain, reduced, declared) -> str:
    """``agree`` when the -nosym row agrees (states and verdict; for an error, the verdict
    alone, as each tool stops at its own first error) and the reduced row agrees with -sym1
    where our group is the scalarset group; otherwise what differs."""
    if isinstance(theirs, str) or theirs[0] is None:
        return "no CMurphi figure"
    out = []
    nosym, sym1 = theirs
    both_fail = nosym[1] == plain[1] == "error"
    if not (nosym[1] == plain[1] == "error" or (nosym[0], nosym[1]) == (plain[0], plain[1])):
        out.append("explore differs from -nosym")
    if sym1 is None or reduced[0] is None:
        out.append("no reduced figure")
    elif reduced[2] == declared:
        if not (sym1[1] == reduced[1] == "error" or (sym1[0], sym1[1]) == (reduced[0], reduced[1])):
            out.append("--reduce exact differs from -sym1")
    elif declared is not None and reduced[2] is not None and reduced[2] > declared:
        fewer = not both_fail and reduced[1] == sym1[1] and reduced[0] < sym1[0]
        out.append("larger group than declared" + (", fewer states than -sym1" if fewer else ""))
    elif declared is not None and reduced[2] is not None:
        out.append("smaller group than declared")
    if both_fail:
        out.insert(0, "both find the error (each stops at its first)")
    return "agree" if not out else "; ".join(out)


def _show(theirs, k: int) -> str:
    if isinstance(theirs, str):
        return theirs.replace("|", "/")
    r = theirs[k]
    if r is None:
        return "time-out"
    return f"{r[0]:,} {r[1]}" + (f" ({r[2]})" if r[2] else "")


if __name__ == "__main__":
    main()
