"""Promela models written by other people (harvested from public GitHub repositories) through
Spin 6.5.2 and through symdetect: "states, stored", error verdicts, ltl verdicts, refusals,
crashes, the detected group and its check.

    python results/wild_promela.py [--dir /tmp/wild-pml] [--budget CPU_S] [-o results/wild_promela.md] [file ...]

The files are not in the repository (other people's code): ``--dir`` holds them, named
``<owner>_<repo>__<path with / as _>``, and its ``manifest.jsonl`` records each file's repository,
path, commit and SHA-256 prefix; ``SOURCES`` below is that record, so that a run on a
re-harvested copy is checked to be on the same bytes (a file whose hash differs, or that is
missing, is reported, not compared).

Spin runs as ``tests/spin_oracle.py`` runs it (``spin -o1 -o2 -o3 -a``, gcc ``-DSAFETY
-DNOREDUCE``, ``-DNOCLAIM`` unless the file has a never claim, ``pan -m1000000 -c0 -n``),
and for each ``ltl`` block ``pan -a -N name`` (gcc without ``-DSAFETY``).  Ours is
``spin_oracle.our_counts`` (``explore --spin-states``) and ``spin_oracle.our_ltl``
(``explore --ltl name``) in a child process, then the CLI itself (``explore FILE --json``,
``analyze FILE --json``, and ``analyze --verify`` where the group is above 1) as a user runs
it, to catch tracebacks and exit codes.  Every child is bounded by ``--budget`` CPU seconds
(RLIMIT_CPU) and runs under ``nice -n 10``; pan by ``--pan-cpu``.

Outcomes: agree, DISAGREE (states / verdict / ltl), we refuse (a file Spin accepts), crash
(a traceback), time-out, Spin refuses.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "results"))

from spin_examples import WALL_FACTOR  # noqa: E402

DEFAULT_DIR = Path("/tmp/wild-pml")
#: the harvested files: (repository, path, commit, SHA-256 prefix of the text); the file is
#: ``--dir``/``<owner>_<repo>__<path with / as _>``
SOURCES = [
    ('prateek18597/Promela-Programs', '1/1g_MutualExclusion3_DekkersAlgorithm.pml', '108492503f64b9feb174dc3f6d1cb784243e88c2', 'dc5d7b6d9da7'),
    ('prateek18597/Promela-Programs', '2/2_ReaderWriter.pml', '39ad2037523de157bd9512338450f21e077fcd9a', 'e5084af74497'),
    ('prateek18597/Promela-Programs', '3/3_Dining.pml', '39ad2037523de157bd9512338450f21e077fcd9a', '5d611a64728c'),
    ('prateek18597/Promela-Programs', 'ChanAsPara.pml', '619074e2e5d690c3f7633e34a4489240cbb7af79', 'c2224859019b'),
    ('SergeyStaroletov/PromelaSamples', 'cafe.pml', '0837245f2cf432468195efa1a6c7ae80c62d7440', '24381c2b30a0'),
    ('SergeyStaroletov/PromelaSamples', 'counter1.pml', '894daccce6d559f3894c948208ea08bc85640557', '42eae14439a2'),
    ('SergeyStaroletov/PromelaSamples', 'divby7.pml', 'dd0cae5447e2a3f3d68cf524f34b5234ffba8179', 'b51c9f46d1bf'),
    ('SergeyStaroletov/PromelaSamples', 'insert_sort.pml', 'c9fbcdce500baba312cd72f0410840082ab3a784', '7e7d23fe2850'),
    ('andirsun/promela-spin-problems', 'CanalConFallas/CanalConFallas.pml', '311050fed666914471342471ed9e25295f48a8f9', 'ec6e2ce5f0ec'),
    ('andirsun/promela-spin-problems', 'TikTok/tiktok.pml', 'b3f4838a713d573a8ff1036dd85779741ec60583', '71c7dcac0f2a'),
    ('taichimaeda/promela-playground', 'ticket_lock.pml', '008ea3d22fbde8e49588b98c230b454957077186', '3876eeac6924'),
    ('stupaq/promela-szymanski', 'prot.pml', 'be88c284132d13738d6f32b49ccbd76b534371d7', '8d8725a8e7d5'),
    ('YeonwooSung/PROMELA_Examples', 'Practices/practice3.pml', '19cd64546e8f6a0bf8843e7a545b08ee1bd5b3e8', '8b75237657bb'),
    ('canhminhdo/PROMELA-SPECS', 'Qlock.pml', '18deb5a7a3101426afc7d00afa06cb9c9b7e8cd7', '978c4f36d10b'),
    ('canhminhdo/PROMELA-SPECS', 'Anderson.pml', '18deb5a7a3101426afc7d00afa06cb9c9b7e8cd7', 'b9f9ecae1a61'),
    ('goens/promela-examples', 'request_response.pml', '413e3b2ffbd4942dc2807271836d8c1e59344084', 'b35307ca9a7f'),
    ('goens/promela-examples', 'deckers.pml', 'd01f0ac43d5d9eda5637410bd464fd7c61c3d3aa', '79bdeba42d71'),
    ('cfernald/Distributed_Promela_Algos', 'dining/dining.pml', '0bfd1cf54d9a1e8b73f0d2600acbfc775c236eae', '4a846f8f910f'),
    ('cfernald/Distributed_Promela_Algos', 'election/election.pml', '429dc6ce60bfd15503c4c61c4e35e8b6804d65b6', '32a2d7ba3424'),
    ('cfernald/Distributed_Promela_Algos', 'ricarts/ricarts.pml', '555e3794abd81b3574342c98304e5e84958f389d', '9a6d324cec13'),
    ('canhminhdo/PROMELA-SPECS', 'mcs.pml', '18deb5a7a3101426afc7d00afa06cb9c9b7e8cd7', '071680c066ad'),
    ('goens/promela-examples', 'count_up.pml', '4b805391c92d50045ed3b78414326af78fe284c7', 'da1a83101d8f'),
    ('andirsun/promela-spin-problems', 'Parcial2019/parcial2019.pml', '311050fed666914471342471ed9e25295f48a8f9', '3cf21a751a0b'),
    ('TomasFugassa/Promela-Oral', '05-filter-algorithm/N_CASOS_SAFETY.pml', '237e55b98c26abb48101d2530be5129d4c5567a1', '21c497746ed4'),
    ('TomasFugassa/Promela-Oral', '04-personal-bakery-lamport/ME_N_CASOS_PARCIAL.pml', '7dd7cbd26d4a3c7766e73c12dccd786382e61286', 'd7b07d88e33c'),
    ('TomasFugassa/Promela-Oral', 'Practica-Algoritmos-Basicos/productor-consumidor-chan.pml', '8fc9d687607bbd3645a55de9c9b32a85ce6cfae2', '4438cb6b840b'),
    ('takafumihoriuchi/learning_promela', 'abp.pml', 'd85b91860c4f7da319132ddfaec0ee9ac40a858e', 'de61938299fb'),
    ('takafumihoriuchi/learning_promela', 'elevator.pml', '682d9083f099f9a36a5afdb67618ac4794f0a084', '573bf97dc201'),
    ('rkolovanov/promela-algorithms', 'models/n-processes-peterson-filter.pml', 'aedfd15fae5792074a04c62f127c773c6d9e3326', 'bae886e42b2e'),
    ('dasizeman/PromelaLocks', 'ticket_lock/ticket.pml', 'f76eb4225332169133e81db932f17f98457a29d2', 'de35750c6ade'),
    ('dasizeman/PromelaLocks', 'mcs_lock/mcs.pml', '130ecc2621923716bb5bc8a6d6f16bf138b671a9', '92bd431f898a'),
    ('dasizeman/PromelaLocks', 'frogs/frogs.pml', 'e48d0673df2e3801c0ce3ef7057f62caa7ea9404', 'cabe601652d6'),
    ('martincxx/promela', 'protocol/protocol.pml', '04bcea4dc25956692bef9d5feeed4dad283d4070', '2832b33dc92f'),
    ('martincxx/promela', 'fairness_condition/fairness.pml', '6b828543b7b4ce390da8831ab38faf6427b891ed', '99000c490f00'),
    ('oflynned/DiningPhilosophersPromela', 'Deadlock Starvation Free/lab4_deadlock_starvation_free.pml', '7b8e893c68a068c8017779cacab91da3fb69fdac', 'b04c48d46f81'),
    ('Vagnona/Promela', 'TP2/Correction/ChangetRobert.pml', '4e9bd09c49da5e498b27e442bb5cf38c183e184c', '22413d463ee1'),
    ('Vagnona/Promela', 'TP1/Correction/Exercice_JeuNim/JeuNim.pml', '4e9bd09c49da5e498b27e442bb5cf38c183e184c', '441a44dc4714'),
    ('KWLuna/3101-Promela-Lab-3', '9 - Verification/verification-5.pml', 'ba243a5747b7f501e451562f9997821c4dd0f4e8', '24b450e5adce'),
    ('KWLuna/3101-Promela-Lab-3', '7 - concurrency/concurrency-4.pml', 'ba243a5747b7f501e451562f9997821c4dd0f4e8', '19399fc72390'),
    ('LewysW/CS4052-P1-Promela-Spin', 'part2.pml', '13ff69d56f0c8b8e2ccd98b8b0d26d622c5c9d31', 'c15bd8d754a7'),
    ('Vagnona/Promela', 'TP2/Correction/Lynch.pml', '4e9bd09c49da5e498b27e442bb5cf38c183e184c', 'dca7944623b5'),
    ('KWLuna/3101-Promela-Lab-3', '9 - Verification/verification-2b.pml', 'ba243a5747b7f501e451562f9997821c4dd0f4e8', 'f6c2b6be460c'),
    ('Vagnona/Promela', 'TP1/Correction/Exercice_Petri/petri.pml', '4e9bd09c49da5e498b27e442bb5cf38c183e184c', 'd2da0fadca98'),
    ('Vagnona/Promela', 'TP1/Vagno/arbre_binaire.pml', '4e9bd09c49da5e498b27e442bb5cf38c183e184c', 'f20c6b7a2b3b'),
    ('KWLuna/3101-Promela-Lab-3', '5 - if/conditional-8.pml', 'ba243a5747b7f501e451562f9997821c4dd0f4e8', '0f5433e58d5c'),
    ('YeonwooSung/PROMELA_Examples', 'Examples/example_neverClaim1.pml', '06914497e7005879703290afb8ed515cba50c471', '25bc5c951bd3'),
    ('YeonwooSung/PROMELA_Examples', 'Examples/example_trace.pml', '06914497e7005879703290afb8ed515cba50c471', '5341825b10c8'),
    ('YeonwooSung/PROMELA_Examples', 'Practices/Exam_2014_2a.pml', '329a13f2b599beede1ed1e578c75ff5df01cf0f2', '149cc03e085d'),
    ('andirsun/promela-spin-problems', 'Server/oneClient-server.pml', 'a769998959d1bd09fea3d8daaed59e96b0522a74', 'b9b03c0a51f3'),
    ('andirsun/promela-spin-problems', 'trenCarroValla/programa.pml', 'b3f4838a713d573a8ff1036dd85779741ec60583', 'd005f01267b7'),
    ('LewysW/CS4052-P1-Promela-Spin', 'part3.pml', '0d618dbdd7fa74e77d01a5df0f8fb7e124a4bd1a', '9d8288fbc1a1'),
    ('zakilive/spin-promela', 'soln_by_lukas/data_race_example.pml', '0095ac00c572bd6095bda909e51d5cecd889e34c', '4fa8be7bde4e'),
    ('EthanAndreas/Promela', 'Part1/dijkstra.pml', 'ec4388b4ae835952f1f6d93ea591cc699e86ab26', 'e757ff42f4cc'),
    ('EthanAndreas/Promela', 'Part1/sum.pml', 'ec4388b4ae835952f1f6d93ea591cc699e86ab26', '4bc34c4201c6'),
    ('EthanAndreas/Promela', 'Part1/randombit.pml', 'ec4388b4ae835952f1f6d93ea591cc699e86ab26', '11f9684e3586'),
    ('zakilive/spin-promela', '3.6.pml', 'b00e86b930848d5da322f3e602e441942ddc4283', 'a3b4f9e19dd3'),
    ('ubinix-warun/sketchbook-promela', 'cheatsheet/typedef.pml', 'd1862f891ec887a20a83ce05e6159abc2466624b', 'fb426b29d716'),
    ('ubinix-warun/sketchbook-promela', 'case-study/safety-prop/cs-pq-1.pml', '868f64c289da57967097518631e5020e8f117566', 'c03654a33f79'),
    ('Granuh/promela_test', 'stack.pml', '2045a7b715d69a15f252ceb08d3fa6f2ed8f7ed9', '54078e0e0908'),
    ('DanielValdeley/promela-e-spin', 'pe.pml', '916834f9ad13da57e8ce4a8b55263df85581e6df', '976c9d28a66e'),
    ('Romsou/Projet_Promela', 'berger.pml', '667404e8915e33acff7ba5139dc472dd4f9d2c06', '37b69220ed4c'),
]


def file_name(repo: str, path: str) -> str:
    return repo.replace("/", "_") + "__" + path.replace("/", "_")

#: files whose processes outnumber the bound from the pid skeleton (none so far)
MAX_PROCS: dict[str, int] = {}


def ltl_names(text: str) -> list[str]:
    """The ``ltl`` blocks' names as Spin names them (an unnamed one ``ltl_N``, N counting every block)."""
    out = []
    for k, m in enumerate(re.finditer(r"^\s*ltl\s*(\w*)\s*\{", _strip_comments(text), re.M)):
        out.append(m.group(1) or f"ltl_{k}")
    return out


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def ours(path: str, budget: float) -> dict:
    """Our counts and ltl verdicts for one file (run in a child process)."""
    import warnings

    warnings.simplefilter("ignore")
    from detect.errors import InputError
    from tests.spin_oracle import neutralise_asserts, our_counts, our_ltl

    name = Path(path).name
    text = Path(path).read_text()
    out: dict = {}
    t = time.process_time()
    try:
        c = our_counts(text, path, max_procs=MAX_PROCS.get(name))
    except InputError as e:
        return {"refused": str(e)}
    out.update(stored=c.stored, error=c.error, explore_s=time.process_time() - t)
    print(json.dumps(out), flush=True)
    if c.error:
        try:
            out["neutral"] = our_counts(neutralise_asserts(text), path, max_procs=MAX_PROCS.get(name)).stored
        except Exception:  # noqa: BLE001 - the verdict stands
            pass
        print(json.dumps(out), flush=True)
    ltl = {}
    for n in ([] if os.environ.get("WILD_QUICK") else ltl_names(text)):
        try:
            ltl[n] = our_ltl(text, n, file=path)
        except InputError as e:
            ltl[n] = "refused: " + str(e)[:100]
        except Exception as e:  # noqa: BLE001 - reported per formula
            ltl[n] = f"{type(e).__name__}: {e}"[:100]
        out["ltl"] = ltl
        print(json.dumps(out), flush=True)
    return out


def spin(path: Path, cpu: float) -> dict:
    """Spin's counts and ltl verdicts for one file, pan bounded by ``cpu`` CPU seconds."""
    from tests.spin_oracle import SpinRefused, spin_figures, spin_ltl

    text = path.read_text()
    out = spin_figures(text, cpu, max(600, WALL_FACTOR * cpu))
    ltl = {}
    for n in ([] if os.environ.get("WILD_QUICK") else ltl_names(text)):
        with tempfile.TemporaryDirectory(prefix="spin") as d:
            try:
                ltl[n] = spin_ltl(text, Path(d), n, timeout=max(600, WALL_FACTOR * cpu), cpu=cpu)
            except (SpinRefused, subprocess.TimeoutExpired) as e:
                ltl[n] = f"refused: {e}"[:100]
    if ltl:
        out["ltl"] = ltl
    return out


def _bounded(cmd: list[str], budget: float) -> tuple[int, str, str]:
    """``cmd`` under ``nice -n 10`` and RLIMIT_CPU ``budget``: (exit code, stdout, stderr);
    exit code -1 past the bound."""
    from tests.spin_oracle import cpu_limited

    try:
        r = subprocess.run(["nice", "-n", "10", *cmd], capture_output=True, text=True, cwd=HERE,
                           timeout=WALL_FACTOR * budget, preexec_fn=cpu_limited(budget))
    except subprocess.TimeoutExpired:
        return -1, "", ""
    return (r.returncode if r.returncode >= 0 or r.returncode == -1 else -1), r.stdout, r.stderr


def child(path: Path, budget: float) -> dict:
    """``ours`` in a child process, then the CLI's explore and analyze (and --verify)."""
    rc, stdout, stderr = _bounded([sys.executable, __file__, "--one", str(path), "--budget", str(budget)], budget)
    reports = [json.loads(x) for x in stdout.splitlines() if x.startswith("{")]
    if not reports:
        out = {"timeout": True} if rc == -1 else {"refused": "crash: " + (stderr.strip().splitlines() or ["?"])[-1][:150],
                                                   "crash": "Traceback" in stderr}
    else:
        out = reports[-1]
        if rc == -1:
            out["note"] = "ltl checks past the budget"
    if os.environ.get("WILD_QUICK"):  # counts and verdicts only: no ltl, no CLI runs
        out["quick"] = True
        return out
    cli = [sys.executable, "-m", "detect.cli"]
    rc, _, err = _bounded([*cli, "explore", str(path), "--json"], budget)
    out["explore_rc"] = rc
    if "Traceback" in err:
        out["crash"] = True
        out["crash_msg"] = "explore: " + err.strip().splitlines()[-1][:150]
    rc, so, err = _bounded([*cli, "analyze", str(path), "--json"], budget)
    out["analyze_rc"] = rc
    if "Traceback" in err:
        out["crash"] = True
        out["crash_msg"] = "analyze: " + err.strip().splitlines()[-1][:150]
    try:
        order = json.loads(so)["group_order"]
        out["order"] = order
    except (ValueError, KeyError):
        order = None
    if order and order > 1:
        rc, so, err = _bounded([*cli, "analyze", str(path), "--verify", "--json"], budget)
        if "Traceback" in err:
            out["crash"] = True
            out["crash_msg"] = "analyze --verify: " + err.strip().splitlines()[-1][:150]
        out["verified"] = {0: "yes", 3: "partial"}.get(rc, "time-out" if rc == -1 else f"FAILS (exit {rc})")
    return out


def verdict(s: dict, o: dict) -> str:
    if o.get("crash"):
        return "crash"
    if "refused" in o and s.get("timeout") and "value analysis bounds no domain" in o["refused"]:
        return "time-out (pan); too large for us to narrow"
    if "refused" in o:
        return "both refuse" if "refused" in s and not s.get("timeout") else "we refuse"
    if o.get("timeout"):
        return "time-out" + (" (both)" if s.get("timeout") else "")
    if s.get("timeout"):
        return "time-out (pan)"
    if "refused" in s:
        return "Spin refuses"
    if s["error"] != o["error"]:
        return "DISAGREE (verdict)" if s["complete"] else "Spin incomplete"
    if s["complete"] and s["stored"] != o["stored"]:
        if not s["error"]:
            return "DISAGREE (states)"
        if s.get("neutral") is not None and s["neutral"] != o.get("neutral"):
            return "DISAGREE (states, assertions made true)"
    for n, v in s.get("ltl", {}).items():
        w = o.get("ltl", {}).get(n)
        if isinstance(v, bool) and isinstance(w, bool) and v != w:
            return f"DISAGREE (ltl {n})"
    return "agree"


def row(name: str, s: dict, o: dict) -> str:
    def count(d):
        if "refused" in d or "stored" not in d:
            return ""
        n = f"{d['stored']:,}" + ("" if d.get("complete", True) else " (incomplete)")
        if d.get("error"):
            n += " err" + (f" / {d['neutral']:,}" if d.get("neutral") is not None else "")
        return n

    def ltl(d):
        return " ".join(f"{k}:{'E' if v is True else '-' if v is False else '?'}" for k, v in d.get("ltl", {}).items())

    note = o.get("crash_msg") or o.get("refused") or s.get("refused") or o.get("note") or ""
    if o.get("quick"):
        note = ("counts only (--quick: no ltl, no CLI run); " + note).rstrip("; ")
    note = note.replace("|", "\\|").replace(str(DEFAULT_DIR) + "/", "")
    group = f"{o['order']:,}" if "order" in o else ""
    return (f"| {name} | {count(s)} | {count(o) if 'timeout' not in o else 'time-out'} | {ltl(s)} | {ltl(o)} | "
            f"{verdict(s, o)} | {group} | {o.get('verified', '')} | {note} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--budget", type=float, default=60, help="CPU seconds for each of our runs")
    ap.add_argument("--pan-cpu", type=float, default=60, help="CPU seconds for each pan run")
    ap.add_argument("-o", "--output")
    ap.add_argument("--reverse", action="store_true", help="the files in reverse order")
    ap.add_argument("--quick", action="store_true", help="counts and error verdicts only (no ltl, no CLI runs)")
    ap.add_argument("--cached-only", action="store_true", help="report the files --cache holds, run no other")
    ap.add_argument("--shard", help="K/N: only every N-th file from the K-th (parallel runs sharing --cache)")
    ap.add_argument("--cache", type=Path, help="a folder keeping each file's results (by its SHA-256 prefix)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if args.quick:
        os.environ["WILD_QUICK"] = "1"
    if args.one:
        print(json.dumps(ours(args.one, args.budget)))
        return
    manifest = {file_name(r, p): {"repo": r, "path": p, "commit": c, "sha256": h} for r, p, c, h in SOURCES}
    paths = sorted(args.dir / name for name in manifest)
    if args.shard:
        k, n = map(int, args.shard.split("/"))
        paths = paths[k::n]
    if args.reverse:
        paths = paths[::-1]
    if args.files:
        paths = [p for p in paths if p.name in args.files or any(f in p.name for f in args.files)]
    lines = ["| file | Spin stored | ours stored | Spin ltl (E: error) | our ltl | outcome | group | verified | note |",
             "|---|---|---|---|---|---|---|---|---|"]
    tally: dict[str, int] = {}
    start = time.perf_counter()
    for path in paths:
        e = manifest[path.name]
        if not path.exists():
            lines.append(f"| {path.name} | | | | | missing from --dir | | | |")
            continue
        if hashlib.sha256(path.read_bytes()).hexdigest()[:12] != e["sha256"]:
            lines.append(f"| {path.name} | | | | | not the recorded bytes | | | |")
            continue
        cached = args.cache / (path.name + ".json") if args.cache else None
        if cached is not None and cached.exists() and json.loads(cached.read_text()).get("sha256") == e["sha256"]:
            s, o = (json.loads(cached.read_text())[k] for k in ("spin", "ours"))
        elif args.cached_only:
            lines.append(f"| {path.name} | | | | | not run (the session's time) | | | |")
            tally["not run"] = tally.get("not run", 0) + 1
            continue
        else:
            s = spin(path, args.pan_cpu)
            o = child(path, args.budget)
            if cached is not None:
                cached.write_text(json.dumps({"sha256": e["sha256"], "spin": s, "ours": o}))
        outcome = verdict(s, o)
        key = outcome.split(" (")[0] if outcome.startswith("DISAGREE") else outcome
        tally[key] = tally.get(key, 0) + 1
        lines.append(row(path.name, s, o))
        print(lines[-1], file=sys.stderr, flush=True)
    total = sum(tally.values())
    summary = [f"{total} files ({time.perf_counter() - start:.0f} s wall; each of our runs bounded by "
               f"{args.budget:.0f} CPU s, each pan run by {args.pan_cpu:.0f} CPU s):"] + [
        f"- {k}: {v}" for k, v in sorted(tally.items(), key=lambda kv: -kv[1])]
    sources = ["", "Sources (repository, path, commit, SHA-256 prefix):", ""] + [
        f"- {manifest[p.name]['repo']} `{manifest[p.name]['path']}` @ {manifest[p.name]['commit'][:12]} "
        f"sha256 {manifest[p.name]['sha256']}" for p in paths]
    text = "\n".join(lines + [""] + summary + sources) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
