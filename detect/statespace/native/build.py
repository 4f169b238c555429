"""Compile generated C with the system compiler and load it with cffi (ABI mode).

Shared objects are cached by a hash of the source, the compiler and the flags, under
``$SYMDETECT_NATIVE_CACHE`` or ``$XDG_CACHE_HOME/symdetect/statespace/native`` (``~/.cache/...``).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from detect.cache import cache_home, write_atomically

FLAGS = ("-O2", "-shared", "-fPIC", "-pthread", "-w")
#: For a library used once and briefly (narrowing's explorations, ``native.native_survey``):
#: gcc -O0 takes a quarter of -O2's time on a 570 KB model (dtp.pml: 1.6 against 5.2 CPU s)
#: and the exploration it runs is a fraction of a second either way.
QUICK_FLAGS = ("-O0", "-shared", "-fPIC", "-pthread", "-w")

#: What ``runtime.c`` exports (cffi ABI mode reads this declaration).
CDEF = """
void *nx_new(uint64_t limit, uint64_t mem_limit, int nworkers);
void nx_free(void *p);
int nx_init(void *p, uint64_t budget);
int nx_run(void *p, uint64_t budget);
int nx_finish(void *p);
uint64_t nx_count(void *p);
uint64_t nx_level(void *p);
uint64_t nx_transitions(void *p);
uint64_t nx_initial(void *p);
uint64_t nx_nfaults(void *p);
uint32_t nx_first_fault(void *p, int i);
uint64_t nx_nbounds(void *p);
uint32_t nx_first_bound(void *p, int i);
uint64_t nx_ndeadlocks(void *p);
uint32_t *nx_deadlocks(void *p);
uint64_t nx_nterminals(void *p);
uint32_t *nx_terminals(void *p);
int64_t nx_decided(void *p, int i);
uint32_t nx_parent(void *p, uint64_t i);
int nx_nslots(void);
void nx_state(void *p, uint64_t i, int64_t *out);
void nx_states(void *p, int w, uint64_t first, uint64_t n, int64_t *out);
uint64_t nx_memory(void *p);
int nx_set_symmetry(void *p, int nblocks, int blen, const int32_t *blocks, int ngens,
                    const int32_t *gtarget, int npoints, const int32_t *poff, const int64_t *gvalue);
int nx_set_pids(void *p, int m, int len, const int32_t *blocks, int nfixed, const int32_t *fixed,
                const int32_t *labelled, const int32_t *label, const int64_t *value);
int nx_set_elements(void *p, int nel, const int32_t *src, const int32_t *map, const int32_t *order,
                    int nmaps, const int64_t *lo, const int32_t *len, const int32_t *off, int ntab,
                    const int64_t *tab);
void nx_canonicalise(void *p, int64_t *t);
void nx_set_external(void *p, void *fn, void *ctx, void *attach);
int nx_bad_generator(void *p);
uint32_t nx_bad_state(void *p);
int nx_nworkers(void *p);
void nx_set_parallel_min(void *p, uint64_t n);
double nx_cpu_total(void *p);
double nx_cpu_critical(void *p);
uint64_t nx_worker_count(void *p, int w);
int nx_set_partition(void *p, int part, int nparts);
void nx_set_limit(void *p, uint64_t limit);
int nx_part_expand(void *p, uint64_t budget);
uint64_t nx_part_box(void *p, int o, uint8_t **items);
int nx_record_bytes(void);
int nx_cond_native(int i);
void *nx_ndfs_new(void *p, int acc);
void *nx_ndfs_new_fair(void *p, int acc);
uint32_t nx_ndfs_fair_k(void *p);
int nx_ndfs_gather(void *p);
uint64_t nx_ndfs_max_depth(void *p);
void nx_ndfs_free(void *p);
int nx_ndfs_run(void *p, uint64_t budget);
uint64_t nx_ndfs_lasso_len(void *p);
uint32_t nx_ndfs_lasso(void *p, uint64_t i);
uint64_t nx_ndfs_loop_from(void *p);
uint64_t nx_ndfs_depth(void *p);
uint64_t nx_ndfs_red(void *p);
int nx_part_receive(void *p, const uint8_t *items, uint64_t n);
uint64_t nx_part_next_level(void *p);
uint64_t nx_part_pending(void *p);
uint64_t nx_part_level_end(void *p);
"""


class BuildError(Exception):
    """No compiler, a failed compilation, or a library cffi cannot load."""


def compiler() -> str | None:
    """The C compiler to use: ``$CC`` if set, else ``cc`` or ``gcc`` on the PATH."""
    cc = os.environ.get("CC")
    if cc:
        return shutil.which(cc)
    return shutil.which("cc") or shutil.which("gcc")


def cache_dir() -> Path:
    env = os.environ.get("SYMDETECT_NATIVE_CACHE")
    if env:
        return Path(env)
    return cache_home() / "native"


_ffi = None
_libs: dict[str, object] = {}


def ffi():
    """cffi's view of ``CDEF``: the out-of-line ABI module ``cffi`` emits for it, cached (by a
    hash of ``CDEF`` and cffi's version) and imported; parsing ``CDEF`` in-line instead costs
    ~0.05 s per process (pycparser), a tenth of a small model's whole reduced run."""
    global _ffi
    if _ffi is None:
        try:
            import _cffi_backend
        except ImportError as e:  # pragma: no cover - cffi is a dependency
            raise BuildError(f"cffi is not installed ({e})") from None
        name = "symdetect_native_ffi_" + hashlib.sha256(
            "\0".join((CDEF, _cffi_backend.__version__)).encode()).hexdigest()[:16]
        module = _ffi_module(name, cache_dir() / f"{name}.py")
        _ffi = module.ffi if module is not None else _parsed_ffi()
    return _ffi


def _parsed_ffi():
    import cffi

    parsed = cffi.FFI()
    parsed.cdef(CDEF)
    return parsed


def _ffi_module(name: str, path: Path):
    """The emitted module ``name`` at ``path`` (emitting it first), or None where the cache
    cannot be written."""
    import importlib.util

    if not path.exists():
        with tempfile.TemporaryDirectory(prefix="symdetect-ffi-") as tmp:
            builder = _parsed_ffi()
            builder.set_source(name, None, compiler_verbose=False)  # cffi prints "generating" on stdout otherwise
            emitted = Path(tmp) / f"{name}.py"
            builder.emit_python_code(str(emitted))
            if not write_atomically(path, lambda f: f.write(emitted.read_bytes())):
                return None
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _target(source: str, cc: str, flags: tuple[str, ...]) -> Path:
    key = hashlib.sha256("\0".join((source, cc, *flags)).encode()).hexdigest()[:32]
    return cache_dir() / f"model_{key}.so"


def shared_object(source: str, quick: bool = False) -> Path:
    """Path of the compiled ``source`` (compiling it unless cached).  ``quick``: the -O2
    library when cached, else one built with ``QUICK_FLAGS``."""
    cc = compiler()
    if cc is None:
        raise BuildError("no C compiler found (cc, gcc or $CC)")
    flags = FLAGS
    target = _target(source, cc, flags)
    if quick and not target.exists():
        flags = QUICK_FLAGS
        target = _target(source, cc, flags)
    directory = cache_dir()
    if target.exists():
        return target
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BuildError(f"cannot create the cache directory {directory}: {e}") from None
    with tempfile.TemporaryDirectory(prefix="symdetect-native-") as tmp:
        src = Path(tmp) / "model.c"
        src.write_text(source)
        out = Path(tmp) / "model.so"
        try:
            import subprocess  # only to compile: a cached library needs none (~2 ms of start-up)

            run = subprocess.run([cc, *flags, "-o", str(out), str(src)], capture_output=True,
                                 text=True)
        except OSError as e:
            raise BuildError(f"cannot run the C compiler {cc}: {e}") from None
        if run.returncode != 0:
            first = (run.stderr.strip().splitlines() or ["no message"])[0]
            raise BuildError(f"the C compiler failed ({first})")
        # Atomic: another process may be building the same library.
        if not write_atomically(target, lambda f: f.write(out.read_bytes())):
            raise BuildError(f"cannot write the compiled library into {directory}")
    return target


def load(source: str, quick: bool = False):
    """The loaded library for ``source`` (``quick``: see ``shared_object``)."""
    path = str(shared_object(source, quick))
    lib = _libs.get(path)
    if lib is None:
        try:
            lib = ffi().dlopen(path)
        except OSError as e:
            raise BuildError(f"cannot load {path}: {e}") from None
        _libs[path] = lib
    return lib
