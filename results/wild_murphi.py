"""Murphi models as people write them (public GitHub code) through CMurphi 5.4, Rumur and us.

    nice -n 10 python results/wild_murphi.py [--dir DIR] [--cpu S] [--timeout S] [--only SUBSTR]

Every ``.m`` file of ``--dir`` (default ``$WILD_MURPHI``, else ``/tmp/wild-murphi``; the files
are not in this repository: ``SOURCES`` names where each was read, with the first 16 hex digits
of the SHA-256 of the copy the table in ``results/wild_murphi.md`` was made from) is run through

* CMurphi 5.4 (``tests/cmurphi.py`` builds it): ``-nosym`` with its deadlock check, and ``-sym1``;
* Rumur (Debian ``rumur``, no symmetry reduction), the oracle only where ``mu`` refuses the file;
* us: ``symdetect explore FILE --json`` and ``explore --reduce exact --json``,

each child under RLIMIT_CPU ``--cpu`` seconds (default 60; run the script under ``nice -n 10``).
``LOWER`` lowers constants with ``-D`` where both CMurphi and we need more than the budget.
Each file is one of ``agree``, ``disagree`` (a verdict or a count: a wrong answer),
``we refuse`` (CMurphi or Rumur runs it; our one-line message is shown), ``crash`` (a
traceback), ``time-out`` or ``both refuse``.  Peer results reuse ``results/rumur_suite.py``'s
cache.  Skipped with the reason when the folder is absent.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "results"))

#: file name -> (repository, path in it, commit, first 16 hex digits of the copy's SHA-256).
#: "index id N": the code index's ``find_string`` named no repository for that file.
#: The copies keep the code; ``rudrajyotiroy...msi.m`` had long comments shortened (no comment
#: changes a model); a heredoc ended each copy with one newline.
SOURCES = {
    "murphi2chisel__src_example_mutual.m": (
        "murphi2chisel/murphi2chisel", "src/example/mutual.m", "fcc3f64e06ee948dfbfb10e2a32bbfc2a00c14d9",
        "56cef32628060a9a"),
    "murphi2chisel__src_example_german.m": (
        "murphi2chisel/murphi2chisel", "src/example/german.m", "0a0006c769c75fd78d18915e38204ffec03388b4",
        "203e9ac17fed8665"),
    "murphi2chisel__src_example_cache_err.m": (
        "murphi2chisel/murphi2chisel", "src/example/cache_err.m", "0a0006c769c75fd78d18915e38204ffec03388b4",
        "e825bb23c1c1c66e"),
    "rudrajyotiroy_cache_coherence_murphi__msi.m": (
        "rudrajyotiroy/cache_coherence_murphi", "msi.m", "09b3ab2916ce8fb716a809dde7e717bb96838810",
        "daaf82495d09022f"),
    "idx37274935797__msi_protogen_like.m": (
        "index id 37274935797", "(a ProtoGen-generated MSI directory protocol)", "", "d6bea466c0d79e2b"),
    "BelleChou_Cmurphi__gcd_2.m": (
        "BelleChou/Cmurphi", "cmurphi5.4.9/src/gcd_2.m", "d0a441ada0575ea5dda6d15943f67397d10e78c8",
        "f9a53465e1d5b30a"),
    "BelleChou_Cmurphi__mutualEx.m": (
        "BelleChou/Cmurphi", "mutualEx.m", "7de067a1a1999fc39b1b9a23061b207eaa833d6a", "620065e6e7135858"),
    "murphi2chisel__src_benchmark_german-sym.m": (
        "murphi2chisel/murphi2chisel", "src/benchmark/german-sym.m", "2c6f30c2b500b6435f0175b8ad5966eccf22ae0a",
        "dfaada2de90018b6"),
    "yikun-19_Murphi_LS__test_btor2murphi_case_memory11_t.m": (
        "yikun-19/Murphi_LS", "test/btor2murphi_case/memory11_t.m", "3e162f1f95bb5a22f5b4dcdd4815bdfd101c3fc0",
        "d9831b019fec5c81"),
    "idx47331811600__loop_assert.m": (
        "index id 47331811600", "(a loop-to-rules verification exercise)", "", "eda5b04876a929a4"),
}

#: Constants lowered (file name -> {name: value}) where CMurphi and we both exceed the budget.
LOWER: dict[str, dict[str, int]] = {}


def _classify(theirs, rumur, plain, reduced, declared) -> tuple[str, str]:
    """(outcome, note) for one file; ``theirs`` is CMurphi's [-nosym, -sym1] or its refusal."""
    import cmurphi_examples as ce

    if isinstance(plain, str):
        crash = "Traceback" in plain or "Error:" in plain and ":" not in plain.split("Error:")[0][-3:]
        if isinstance(theirs, str) and (rumur is None or rumur.status != "ok"):
            return "both refuse", plain
        if "CPU limit" in plain or "time-out" in plain:
            return "time-out", plain
        return ("crash" if crash else "we refuse"), plain
    if isinstance(theirs, str):
        if rumur is None or rumur.status != "ok":
            return "peer refuses", theirs
        ok = (rumur.error is None) == (plain[1] != "error") and (rumur.error is not None or rumur.states == plain[0])
        return ("agree" if ok else "disagree"), f"oracle Rumur: {rumur.states} states{' error' if rumur.error else ''}; mu: {theirs}"
    if theirs[0] is None:
        return "time-out", "CMurphi -nosym out of CPU"
    if plain[1] == "incomplete" or plain[0] is None:
        return "time-out", plain[1]
    v = ce._verdict(theirs, plain, reduced, declared)
    nosym = theirs[0]
    if nosym[1] != plain[1] or (nosym[1] == "ok" and nosym[0] != plain[0]):
        return "disagree", v
    if "differs from -sym1" in v:
        return "disagree", v
    return "agree", v


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.environ.get("WILD_MURPHI", "/tmp/wild-murphi"))
    ap.add_argument("--cpu", type=int, default=60)
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    folder = Path(a.dir)
    if not folder.is_dir():
        print(f"skipped: no folder {folder} (SOURCES says where each file was read)")
        return 0
    from tests import cmurphi as cm
    import cmurphi_examples as ce
    import rumur_suite as rs

    reason = cm.unavailable()
    home = None if reason else cm.build()
    files = sorted(p for p in folder.glob("*.m") if a.only in p.name)
    rows = []
    started = time.time()
    for k, path in enumerate(files):
        defines = LOWER.get(path.name, {})
        declared = ce._declared_group(path, defines)
        with tempfile.TemporaryDirectory(prefix="wild-") as tmp:
            theirs = (f"CMurphi not available: {reason}" if home is None else
                      ce._cmurphi(home, path, defines, Path(tmp) / "cm", a.timeout, a.cpu))
            rumur = None
            if isinstance(theirs, str) and not defines:
                text = path.read_text()
                key = hashlib.sha256((text + "\0stuttering\0").encode()).hexdigest()[:24]
                rumur = rs._cached("rumur-" + key, lambda: rs.rumur(path, rs.Header(), Path(tmp), a.cpu, a.timeout))
        plain = ce._ours(path, defines, False, a.timeout, a.cpu)
        reduced = ce._ours(path, defines, True, a.timeout, a.cpu) if not isinstance(plain, str) else plain
        if isinstance(reduced, str):
            reduced = (None, reduced, None, [])
        outcome, note = _classify(theirs, rumur, plain, reduced, declared)
        rows.append((path, defines, theirs, rumur, plain, reduced, declared, outcome, note))
        print(f"{path.name}: {outcome} {note}", file=sys.stderr, flush=True)
    summary: dict[str, int] = {}
    for r in rows:
        summary[r[7]] = summary.get(r[7], 0) + 1
    lines = [f"{len(rows)} files; " + ", ".join(f"{k} {v}" for k, v in sorted(summary.items())), "",
             "| file | -D | CMurphi -nosym | CMurphi -sym1 | Rumur | ours explore | ours --reduce exact | "
             "group: ours / scalarsets | outcome | note |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for path, defines, theirs, rumur, plain, reduced, declared, outcome, note in rows:
        d = " ".join(f"{k}={v}" for k, v in defines.items())
        ru = "" if rumur is None else (f"{rumur.states:,}" + (" error" if rumur.error else "") if rumur.status == "ok"
                                       else rumur.status)
        ours = plain.replace("|", "/")[:90] if isinstance(plain, str) else ce._ours_show(plain)
        red = "" if isinstance(plain, str) else ce._ours_show(reduced)
        lines.append(f"| {path.name} | {d} | {ce._show(theirs, 0)[:90]} | "
                     f"{'' if isinstance(theirs, str) else ce._show(theirs, 1)} | {ru} | {ours} | {red} | "
                     f"{'' if isinstance(plain, str) else reduced[2]} / {declared} | {outcome} | "
                     f"{note.replace('|', '/')[:160]} |")
    lines += ["", f"{platform.node()}, {platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
              f"{time.time() - started:.0f} s wall; `nice -n 10 python results/wild_murphi.py --cpu {a.cpu}`", ""]
    for path in files:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        src = SOURCES.get(path.name)
        if src and src[3] != digest:
            lines.append(f"- `{path.name}`: not the recorded copy ({digest})")
        elif src is None:
            lines.append(f"- `{path.name}`: not in SOURCES ({digest})")
    text = "\n".join(lines) + "\n"
    if a.out:
        Path(a.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
