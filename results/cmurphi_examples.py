"""CMurphi's own example models (its distribution's ``ex/`` folder) through CMurphi 5.4 and us.

    python results/cmurphi_examples.py [--ex DIR] [--timeout S] [FILE.m ...]

Builds CMurphi from ``../shared/peers/cmurphi-5.4-src.tar.gz`` (``tests/cmurphi.py``) and runs
every ``.m`` model of the tarball's ``ex/`` folder, of ``--ex DIR`` (a copy of that folder, read
where it is: nothing is copied into the repository) and the files given, with constants
lowered as ``LOWER`` says (only where CMurphi itself needs minutes), through

* CMurphi: ``-nosym`` (its multiset reduction on, its deadlock check on) and ``-sym1``;
* us: ``symdetect explore --json`` and ``explore --reduce exact --json``;

and prints a markdown table: states and the verdict of each, the order of the group we detect,
and whether the counts agree.  A model we refuse is listed with our one-line reason.  When
``ex/`` is absent (the tarball in ``../shared/peers`` holds ``src/`` and ``include/`` only), the
table says which of the 19 models were not found.
"""
from __future__ import annotations

import argparse
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
    "sym": ("adash", "adashbug", "cache3", "eadash", "ldash", "list6", "list6too", "mcslock1", "mcslock2",
            "n_peterson"),
    "multiset+sym": ("cache3multi", "newcache3", "newlist6"),
    "others": ("abp", "arbiter", "cache3", "dp4", "dpnew", "newcache3"),
}
#: Constants lowered where CMurphi needs minutes at the file's own values.
LOWER = {"n_peterson.m": {"N": 4}, "mcslock1.m": {"N": 3}, "mcslock2.m": {"N": 3}}


def _sources(ex: str, files: list[str], work: Path) -> list[Path]:
    from tests import cmurphi

    found: list[Path] = []
    with tarfile.open(cmurphi.TARBALL) as tar:
        members = [m for m in tar.getmembers() if "/ex/" in m.name and m.name.endswith(".m")]
        if members:
            tar.extractall(work, members=members)
            found += sorted(work.rglob("*.m"))
    if ex:
        found += sorted(Path(ex).rglob("*.m"))
    found += [Path(f) for f in files]
    return found


def _ours(path: Path, defines: dict, reduce: bool, timeout: float):
    args = [sys.executable, "-m", "detect.cli", "explore", str(path), "--json", "--timeout", str(timeout)]
    for k, v in defines.items():
        args += ["-D", f"{k}={v}"]
    if reduce:
        args += ["--reduce", "exact"]
    run = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    if run.returncode not in (0, 1, 3):
        return (run.stderr.strip().splitlines() or ["?"])[-1]
    data = json.loads(run.stdout[run.stdout.index("{"):])
    failed = [a["text"] for a in data.get("assertions", []) if a.get("verdict") == "fails"]
    verdict = "error" if run.returncode == 1 else ("incomplete" if run.returncode == 3 else "ok")
    return data["states"], verdict, data.get("group_order"), failed


def _cmurphi(home: Path, path: Path, defines: dict, work: Path, timeout: float):
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
            r = cmurphi.run_model(exe, memory_mb=512, timeout=timeout, deadlock=True, options=options)
        except subprocess.TimeoutExpired:
            out.append(None)
            continue
        out.append((r.states, "ok" if r.error is None else "error", r.error))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ex", default="", help="a copy of CMurphi's ex/ folder (read in place)")
    ap.add_argument("--timeout", type=float, default=300)
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
            defines = LOWER.get(path.name, {})
            theirs = _cmurphi(home, path, defines, Path(tmp) / f"cm{k}", args.timeout)
            plain = _ours(path, defines, False, args.timeout)
            reduced = _ours(path, defines, True, args.timeout) if not isinstance(plain, str) else plain
            rows.append((path, defines, theirs, plain, reduced))
    print("| model | -D | CMurphi -nosym | ours explore | CMurphi -sym1 | ours --reduce exact (group) | agree |")
    print("|---|---|---|---|---|---|---|")
    for path, defines, theirs, plain, reduced in rows:
        d = " ".join(f"{k}={v}" for k, v in defines.items())
        if isinstance(plain, str):
            print(f"| {path.name} | {d} | {_show(theirs, 0)} | refused: {plain.replace('|', '/')} | "
                  f"{_show(theirs, 1)} | | no |")
            continue
        agree = not isinstance(theirs, str) and theirs[0] is not None and (
            (theirs[0][1] == plain[1] == "error") or (theirs[0][0], theirs[0][1]) == (plain[0], plain[1]))
        print(f"| {path.name} | {d} | {_show(theirs, 0)} | {plain[0]:,} {plain[1]} | {_show(theirs, 1)} | "
              f"{reduced[0]:,} {reduced[1]} ({reduced[2]}) | {'yes' if agree else 'no'} |")
    names = {p.name for p, *_ in rows}
    missing = [f"{folder}/{m}.m" for folder, models in EXAMPLES.items() for m in models if f"{m}.m" not in names]
    if missing:
        print(f"\nNot found ({len(missing)} of 19; the tarball in ../shared/peers has no ex/ folder, pass --ex DIR): "
              + ", ".join(missing))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{len(rows)} models in {time.time() - start:.0f} s; load average {load}; {platform.machine()}, "
          f"Python {platform.python_version()}.")


def _show(theirs, k: int) -> str:
    if isinstance(theirs, str):
        return theirs.replace("|", "/")
    r = theirs[k]
    if r is None:
        return "time-out"
    return f"{r[0]:,} {r[1]}" + (f" ({r[2]})" if r[2] else "")


if __name__ == "__main__":
    main()
