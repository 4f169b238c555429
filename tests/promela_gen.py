"""A random Promela model generator for differential testing against Spin.

``model(seed)`` is a small, closed Promela model: 2-3 proctypes (``active [N]`` or started
by ``run`` from ``init``), byte/short/int/bool globals and small byte arrays, buffered and
rendezvous channels, guards, ``if``/``do`` with ``else``, ``break`` and ``timeout``,
``atomic`` (also around a whole ``do``) and ``d_step`` blocks, forward ``goto`` (also to
``end`` labels), ``assert``, ``_pid``, ``_nr_pr``, an ``mtype``, C's arithmetic and bit
operators, and stores that wrap (byte + 200, short + 30000, int + 65537).  Loops are bounded by local counters
and values stay small, so state spaces stay in the hundreds to thousands.  ``claimed(seed)``
is the same model with a random never claim over its globals (``do``/``if`` with ``else``,
``goto``, an ``accept`` label, an end that is a violation).  ``routed(seed)`` adds channels of
channels: a hub channel carrying channel values, a process with a local channel, and
operations on ``chan`` variables that may name buffered and rendezvous channels alike.
``dynamic(seed)`` is a model whose workers ``W`` are created by ``run`` (in one atomic
block, one by one between other steps, or by a loop over a counter), often never end, carry
``end``/``accept``/``progress`` labels, and are observed by remote references ``W[k]@L``
(constant or computed ``k``) in assertions, guards of init, of a watcher process and of
the workers themselves; ``dynamic_claimed(seed)`` adds a never claim that may observe them
too.  Models whose workers never end and are not observed are the ones ``--reduce pids``
reduces.

Spin 6's reading of declarations and atomic jumps (issue 25), drawn from a second random
stream so that the rest of each model is what it was before they were added: globals whose
initialisers read earlier globals, locals whose initialisers read globals, ``_pid``, ``_nr_pr``
and earlier locals, declarations after a statement (in the body and as the first statement of
a ``do`` option: a step that resets the variable each time), and atomic sequences with a
backward ``goto`` into themselves (also as the sequence's last element).

``spawning(seed)`` gives processes channels through ``run`` (``run P(c)`` with local
channels and channels chosen at run time); ``iterating(seed)`` adds Spin 6's ``for`` and
``select``.  ``scheduled(seed)`` is about how pan schedules processes: ``provided`` clauses,
``unless`` (nested too), ``enabled(pid)``, ``_last``, and priorities (``priority`` tags on
proctypes and ``run``, ``set_priority``, ``get_priority``, ``_priority``).  ``unset(seed)``
operates on ``chan`` variables that may name no channel and jumps with ``goto`` inside
``d_step``; ``timed_claimed(seed)`` puts ``timeout`` and ``d_step`` in ``spin_claimed``'s claims.
``creating(seed)`` has processes create processes in orders that vary (the pid analysis,
``frontends/promela/pids.py``).
"""
from __future__ import annotations

import random

BYTES = ["g0", "g1"]
WIDE = {"s0": "short", "i0": "int"}
BOOLS = ["b0"]
MTYPES = ["red", "green"]


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        #: the draws of the constructs added for issue 25 (module docstring)
        self.r2 = random.Random(seed * 7919 + 25)
        self.decls = 0  # declarations after a statement so far (d1, d2, ... in the model)
        self.depth = 0
        self.counters = 0
        self.chans: dict[str, int] = {}  # name -> capacity
        self.arr = self.r.choice([2, 3])
        self.in_dstep = False
        self.in_loop = 0
        self.in_claim = False  # no _pid, no locals
        self.no_pid = False  # no _pid (a worker meant to be anonymous)
        #: no timeout (``dynamic`` says why)
        self.no_timeout = False
        #: remote references ``W[k]@L`` that conditions may use (``dynamic``)
        self.remote: list[str] = []

    # ---------------------------------------------------------------- expressions
    def var(self, locals_: list[str]) -> str:
        r = self.r.random()
        if r < 0.45:
            return self.r.choice(BYTES)
        if r < 0.6:
            return self.r.choice(list(WIDE))
        if r < 0.7:
            return self.r.choice(BOOLS)
        if r < 0.85 and locals_:
            return self.r.choice(locals_)
        return f"a[{self.index()}]"

    def index(self) -> str:
        if self.in_claim or self.no_pid:
            return self.r.choice([str(self.r.randrange(self.arr)), f"g0 % {self.arr}"])
        return self.r.choice([str(self.r.randrange(self.arr)), f"_pid % {self.arr}", f"g0 % {self.arr}"])

    def const(self) -> str:
        return str(self.r.choice([0, 1, 1, 2, 2, 3]))

    def expr(self, locals_: list[str]) -> str:
        k = self.r.randrange(12)
        if k == 9:
            return f"{self.var(locals_)} {self.r.choice(['/', '%'])} {self.r.choice([2, 3])}"
        if k == 10:
            v = self.var(locals_)
            return self.r.choice([f"({v} & 3)", f"({v} | 1)", f"({v} ^ 2)", f"({v} << 1)", f"({v} >> 1)", f"~{v}",
                                  f"!{v}"])
        if k == 11:
            return "_nr_pr" if not self.chans or self.r.random() < 0.5 else f"len({self.r.choice(list(self.chans))})"
        if k == 0:
            return self.const()
        if k == 1:
            return "_pid" if not self.no_pid else self.const()
        if k == 2:
            return f"({self.var(locals_)} + {self.const()}) % 3"
        if k == 3:
            return f"{self.var(locals_)} + {self.const()}"
        if k == 4:
            return f"{self.var(locals_)} - 1"
        if k == 5:
            return f"{self.var(locals_)} * 2"
        if k == 6:
            return f"({self.var(locals_)} > {self.const()} -> 1 : 2)"
        return self.var(locals_)

    def cond(self, locals_: list[str]) -> str:
        if self.remote and self.r.random() < 0.3 and not self.in_dstep:  # Spin: "remote reference in d_step"
            return self.observe(locals_)
        k = self.r.randrange(8)
        v = self.var(locals_)
        if k == 0:
            return f"{v} < {self.const()}"
        if k == 1:
            return f"{v} == {self.const()}"
        if k == 2:
            return f"{v} != {self.var(locals_)}"
        if k == 3:
            return f"({v} > 0 && {self.var(locals_)} < 2)"
        if k == 4:
            return f"({v} == 1 || {self.var(locals_)} == 0)"
        if k == 5 and self.chans and not self.in_dstep:
            ch = self.r.choice(list(self.chans))
            return self.r.choice([f"nempty({ch})", f"len({ch}) < 1", f"empty({ch})", f"nfull({ch})"])
        if k == 6:
            return self.r.choice(BOOLS) if self.r.random() < 0.5 else f"!{self.r.choice(BOOLS)}"
        if k == 7 and self.r.random() < 0.5:
            return f"m0 {self.r.choice(['==', '!='])} {self.r.choice(MTYPES)}"
        return f"{v} >= {self.const()}"

    def observe(self, locals_: list[str]) -> str:
        """A condition on remote references ``W[k]@L`` (``self.remote``)."""
        ref = self.r.choice(self.remote)
        return self.r.choice([ref, f"!{ref}", f"({ref} || {self.var(locals_)} == {self.const()})",
                              f"({ref} && {self.r.choice(self.remote)})", f"!({ref} && {self.r.choice(self.remote)})"])

    # ---------------------------------------------------------------- statements
    def assign(self, locals_: list[str]) -> str:
        r = self.r.random()
        if r < 0.15:  # wrap-around stores
            return self.r.choice(["g0 = g0 + 200", "g1 = g1 - 3", "s0 = s0 + 30000", "i0 = i0 + 65537",
                                  "i0 = i0 - 40000", "b0 = g0 + 1", "g1 = i0", "s0 = i0 * 2"])
        if r < 0.2:
            return f"m0 = {self.r.choice(MTYPES)}"
        target = self.var(locals_)
        if r < 0.25:
            return f"{target}++" if self.r.random() < 0.5 else f"{target}--"
        return f"{target} = {self.expr(locals_)}"

    def basic(self, locals_: list[str]) -> str:
        k = self.r.randrange(10)
        if k <= 3:
            return self.assign(locals_)
        if k <= 5:
            return self.cond(locals_)
        if k == 6:
            return f"assert({self.cond(locals_)})"
        if k == 7 and self.chans and not self.in_dstep:
            ch = self.r.choice(list(self.chans))
            if self.r.random() < 0.5:
                return f"{ch}!{self.expr(locals_)}"
            target = self.r.choice(BYTES + locals_) if self.r.random() < 0.8 else self.const()
            return f"{ch}?{target}"
        if k == 8:
            return "skip"
        return self.assign(locals_)

    def seq(self, locals_: list[str], n: int) -> str:
        return "; ".join(self.stmt(locals_) for _ in range(n))

    def stmt(self, locals_: list[str]) -> str:
        if self.depth >= 2 or self.r.random() < 0.55:
            return self.basic(locals_)
        self.depth += 1
        try:
            k = self.r.randrange(6)
            if k == 0:
                return self.if_(locals_)
            if k == 1 and not self.in_dstep:
                return self.do(locals_)
            if k == 2 and not self.in_dstep:
                inner = self.do(locals_) if self.r.random() < 0.4 else self.seq(locals_, self.r.randint(1, 3))
                return f"atomic {{ {inner} }}"
            if k == 3 and not self.in_dstep:
                self.in_dstep = True
                first = self.cond(locals_) if self.r.random() < 0.5 else self.assign(locals_)
                rest = [self.assign(locals_) if self.r.random() < 0.7 else self.if_(locals_)
                        for _ in range(self.r.randint(0, 2))]
                self.in_dstep = False
                return "d_step { " + "; ".join([first] + rest) + " }"
            return self.if_(locals_)
        finally:
            self.depth -= 1

    def option(self, locals_: list[str], first: str | None = None) -> str:
        head = first if first is not None else self.cond(locals_)
        if first is None and not self.in_dstep and self.r.random() < 0.05 and not self.no_timeout:
            head = "timeout"
        body = [self.stmt(locals_) for _ in range(self.r.randint(0, 2))]
        return ":: " + " -> ".join([head] + (["; ".join(body)] if body else []))

    def if_(self, locals_: list[str]) -> str:
        options = [self.option(locals_) for _ in range(self.r.randint(1, 3))]
        if self.r.random() < 0.5:
            options.append(self.option(locals_, "else"))
        return "if " + " ".join(options) + " fi"

    def do(self, locals_: list[str]) -> str:
        self.counters += 1
        c = f"c{self.counters}"  # declared by the proctype; only this loop reads or writes it
        self.in_loop += 1
        body = [f":: {c} < {self.r.randint(1, 3)} -> {self.seq(locals_, self.r.randint(1, 2))}; {c}++"]
        if not self.in_claim and self.r2.random() < 0.25:
            # a declaration inside the loop: reset on every round (Spin 6)
            body[0] = body[0].replace(" -> ", f" -> {self.declaration(locals_)}; ", 1)
        if self.r.random() < 0.4:
            body.append(f":: {self.cond(locals_)} -> break")
        self.in_loop -= 1
        body.append(":: else -> break" if self.r.random() < 0.6 else f":: {c} >= 1 -> break")
        self.r.shuffle(body)
        return "do " + " ".join(body) + " od"

    # ---------------------------------------------------------------- issue 25 constructs
    def initialiser(self, locals_: list[str]) -> str:
        """An initialiser reading variables (globals, ``_pid``, ``_nr_pr``, earlier locals)."""
        r = self.r2
        options = ["g0 + 1", "g1 * 2", "_pid + g0", f"a[{r.randrange(self.arr)}]", "s0 / 2", "i0 % 3",
                   "_nr_pr", "(g0 > 0 -> 2 : 3)", "len(q0)" if "q0" in self.chans else "b0 + 1"]
        options += [f"{v} + 1" for v in locals_]
        return r.choice(options)

    def declaration(self, locals_: list[str]) -> str:
        """A declaration after a statement, with or without an initialiser, and a use of it."""
        self.decls += 1
        name = f"d{self.decls}"
        init = f" = {self.initialiser(locals_)}" if self.r2.random() < 0.7 else ""
        use = self.r2.choice([f"{name}++; g1 = {name} % 3", f"g0 = ({name} + g0) % 3", f"assert({name} < 9)"])
        return f"byte {name}{init}; {use}"

    def atomic_loop(self, p: int, locals_: list[str]) -> tuple[str, str]:
        """(counter, statement): an atomic sequence that jumps back into itself, the goto in
        the middle, as the last element, or as an option of a final ``do``."""
        r = self.r2
        c, label = f"ca{p}", f"LA{p}"
        main, self.r = self.r, r  # its statements too are drawn from the second stream
        try:
            first, body = self.assign(locals_), self.assign(locals_)
        finally:
            self.r = main
        k = r.randrange(3)
        if k == 0:
            return c, f"atomic {{ {first}; {label}: {c}++; {body}; if :: {c} < 2 -> goto {label} :: else fi; g0 = {c} }}"
        if k == 1:
            return c, f"atomic {{ {first}; {label}: {c}++; {body}; do :: {c} < 2 -> goto {label} :: else -> break od }}"
        # the goto is the sequence's last element: the process keeps control through it, and
        # rests at the valid end state once the count is reached
        return c, f"atomic {{ {first}; {label}: {c}++; {body}; endA{p}: {c} < 2 -> goto {label} }}"

    # ---------------------------------------------------------------- model
    def model(self) -> str:
        r = self.r
        g = "byte g0, g1; short s0; int i0; bool b0; mtype m0;"
        if self.r2.random() < 0.3:  # initialisers reading earlier globals
            g = "byte g0 = 1; byte g1 = g0 + 1; short s0 = g1 * 2; int i0 = s0 + g0; bool b0; mtype m0;"
        lines = [f"mtype = {{ {', '.join(MTYPES)} }};", g, f"byte a[{self.arr}];"]
        for k in range(r.choice([0, 1, 1, 2])):
            cap = r.choice([0, 1, 2])
            name = f"q{k}"
            self.chans[name] = cap
            lines.append(f"chan {name} = [{cap}] of {{ byte }};")
        procs = r.randint(2, 3)
        runs = []
        pairs = 0  # at most one active [2], and only beside one other proctype
        for p in range(procs):
            locals_: list[str] = ["l0"]
            self.counters = 0
            stmts = [self.stmt(locals_) for _ in range(r.randint(2, 3))]
            targets = [j for j in range(1, len(stmts)) if not stmts[j].startswith("d_step")]
            if targets and r.random() < 0.3:  # a forward goto, to a label that may mark a valid end state
                label = r.choice(["L1", "end1"])
                j = r.choice(targets)  # Spin refuses a jump into a d_step
                i = r.randrange(j)
                stmts[j] = f"{label}: {stmts[j]}"
                stmts[i] = f"if :: {self.cond(locals_)} -> goto {label} :: else -> {stmts[i]} fi"
            extra = []  # issue 25 constructs, from self.r2
            if self.r2.random() < 0.35:
                j = self.r2.randrange(len(stmts) + 1)
                counter, loop = self.atomic_loop(p, locals_)
                extra.append(counter)
                if loop.count("endA"):
                    stmts.append(loop)  # blocks for good: the last statement
                else:
                    stmts.insert(j, loop)
            if self.r2.random() < 0.4:  # a declaration after a statement (or leading the body)
                j = self.r2.randrange(len(stmts))
                if not stmts[j].startswith(("L1:", "end1:")):  # Spin: no label before a declaration
                    stmts[j] = f"{self.declaration(locals_)}; {stmts[j]}"
            body = "; ".join(stmts)
            counters = [f"c{k}" for k in range(1, self.counters + 1)] + extra
            decl = "byte " + ", ".join(["l0"] + counters) + "; "
            if self.r2.random() < 0.4:  # a leading local whose initialiser reads variables
                decl += f"byte l1 = {self.initialiser(['l0'])}; "
                body = f"g1 = (l1 + g1) % 4; {body}"
            if r.random() < 0.3:
                lines.append(f"proctype P{p}(byte k) {{ {decl}l0 = k; {body} }}")
                runs.append(f"run P{p}({r.randint(0, 2)})")
            else:
                n = 2 if pairs == 0 and procs == 2 and r.random() < 0.4 else 1
                pairs += n == 2
                lines.append(f"active [{n}] proctype P{p}() {{ {decl}{body} }}")
        if runs:
            # atomic: a process ending before a later run would make Spin reuse its pid,
            # which we refuse (a run-time fault; see README)
            lines.append(f"init {{ atomic {{ {'; '.join(runs)} }} }}")
        return "\n".join(lines) + "\n"


    # ---------------------------------------------------------------- dynamic workers
    def small(self, locals_: list[str]) -> str:
        """A step that keeps values small however often it repeats (a worker's endless loop)."""
        v = self.r.choice(BYTES + BOOLS + locals_)
        options = [f"{v} = ({v} + 1) % 3", f"{v} = {self.r.choice([0, 1])}", "skip",
                   f"{self.cond(locals_)} -> {v} = {self.r.choice([0, 1, 2])}"]
        if self.chans:
            ch = self.r.choice(list(self.chans))
            options += [f"{ch}!{self.r.choice([0, 1])}", f"{ch}?{self.r.choice(BYTES + locals_)}"]
        return self.r.choice(options)

    def labelled(self, stmts: list[str], kinds: list[str]) -> tuple[list[str], list[str]]:
        """Labels before some of ``stmts`` (never a ``d_step``): ``L<i>`` or an ``end``/
        ``accept``/``progress`` label; returns the statements and the labels."""
        out, names = [], []
        for i, st in enumerate(stmts):
            if not st.startswith("d_step") and (i == 0 or self.r.random() < 0.6):
                name = f"{self.r.choice(kinds)}{i}" if self.r.random() < 0.5 else f"L{i}"
                names.append(name)
                st = f"{name}: {st}"
            out.append(st)
        return out, names

    def dynamic(self, claimed: bool = False, remote_vars: bool = False) -> str:
        r = self.r
        # No timeout: a process created at run time makes timeout the negation of every
        # slot's guards, an expression deep enough to exhaust Python's recursion limit in a
        # test's stack (the command line says "nested too deeply"), and under a never claim
        # a timeout inside atomic counts differently from Spin (tests/test_never_claims.py).
        self.no_timeout = True
        lines = [f"mtype = {{ {', '.join(MTYPES)} }};", "byte g0, g1; short s0; int i0; bool b0; mtype m0;",
                 f"byte a[{self.arr}];"]
        if r.random() < 0.5:
            self.chans["q0"] = r.choice([1, 2])
            lines.append(f"chan q0 = [{self.chans['q0']}] of {{ byte }};")
        workers = 2 if claimed else r.choice([2, 2, 3])  # a claim triples the state space
        forever = r.random() < 0.6  # never ends: a candidate for the pid abstraction
        observed = r.random() < 0.6  # remote references to the workers somewhere
        watcher = observed and r.random() < 0.5
        if remote_vars and watcher and self.r2.random() < 0.7:
            # a watcher that ends frees pid 1 for a worker, which moves the workers above it in
            # pan's state vector: remote reads of them are then refused (lower.remote_var)
            watcher = False
        kinds = ["end", "accept", "progress"]
        # static processes first, in declaration order: init, then the watcher
        base = 2 if watcher else 1
        # the worker
        self.no_pid = not observed or r.random() < 0.7
        self.counters = 0
        locals_ = ["l0"]
        prefix = [self.stmt(locals_) for _ in range(r.randint(1, 2))]
        if forever:
            options = [f":: {self.small(locals_)}; {self.small(locals_)}" for _ in range(r.randint(1, 2))]
            loop = "do " + " ".join(options) + " od"
            stmts = prefix + [loop]
        else:
            stmts = prefix + [self.stmt(locals_)]
        stmts, labels = self.labelled(stmts, kinds)
        if not labels:  # every statement a d_step: a label to observe all the same
            stmts, labels = ["L9: skip"] + stmts, ["L9"]
        pids = [str(base + j) for j in range(workers)]
        if r.random() < 0.3:
            pids.append(f"{base} + g0 % {workers}")
        if observed and len(stmts) > 1 and r.random() < 0.3:
            # a worker observing another, at a label defined before the reference (Spin knows
            # no label of the same proctype further on: "cannot remote ref a label inside the
            # same proctype")
            j = r.randrange(1, len(stmts))
            earlier = [st.split(":")[0] for st in stmts[:j] if st.split(":")[0] in labels]
            if earlier:
                ref = f"W[{r.choice(pids)}]@{r.choice(earlier)}"
                guard = r.choice([ref, f"!{ref}", f"({ref} || {self.cond(locals_)})"])
                stmts[j] = f"{guard} -> {stmts[j]}" if stmts[j].split(":")[0] not in labels else \
                    stmts[j].replace(": ", f": {guard} -> ", 1)
        counters = [f"c{k}" for k in range(1, self.counters + 1)]
        decl = "byte " + ", ".join(["l0"] + counters) + "; "
        lines.append(f"proctype W(byte k) {{ {decl}l0 = k; {'; '.join(stmts)} }}")
        self.no_pid = False
        if observed:  # conditions from here on (init, the watcher, the claim) may observe the workers
            self.remote = [f"W[{r.choice(pids)}]@{r.choice(labels)}" for _ in range(3)]
        if remote_vars:  # and read their variables, W[k]:l0 (own draws: the other seeds' models stay as they were)
            rv = random.Random(self.r2.random())
            refs = [f"W[{rv.choice(pids)}]:l0" for _ in range(2)] + ["W:l0"]
            self.remote += [rv.choice([f"{ref} == {rv.choice([0, 1, 2])}", f"{ref} > {rv.choice([0, 1])}",
                                       f"{ref} != {rv.choice(refs)}", f"({ref} + g0) % 3 == 1"])
                            for ref in refs for _ in range(2)]
        # init: creates the workers, then does a few steps that may observe them
        self.counters = 0
        init_locals = ["n"]
        mode = r.randrange(3)
        # equal arguments keep the workers' narrowed domains equal (interchangeable)
        same = r.random() < 0.5

        def arg(j) -> str:
            return "0" if same else str(j % 3)
        # a choice before the runs makes init's start-up nondeterministic: the workers are
        # then created at run time (``dynamic_slots``), else fixed at load time
        start = "if :: g1 = 0 :: g1 = 1 fi; " if r.random() < 0.7 else ""
        if mode == 0:
            runs = "atomic { " + "; ".join(f"run W({arg(j)})" for j in range(workers)) + " }"
        elif mode == 1:
            runs = "; ".join(f"run W({arg(j)}); {self.small([])}" for j in range(workers))
        else:
            # (a skip after the loop: Spin refuses a break that jumps into a d_step)
            runs = f"do :: n < {workers} -> run W({'0' if same else 'n'}); n++ :: else -> break od; skip"
        body = [self.stmt(init_locals) for _ in range(r.randint(1, 2))]
        if observed:
            body.append(f"assert({self.observe(init_locals)})" if r.random() < 0.6 else
                        f"{self.observe(init_locals)} -> {self.small([])}")
        if observed and r.random() < 0.4:
            body.append(f"do :: {self.cond(init_locals)} -> {self.small([])} :: else -> break od")
        body, _ = self.labelled(body, kinds)
        counters = [f"c{k}" for k in range(1, self.counters + 1)]
        lines.append(f"init {{ byte {', '.join(['n'] + counters)}; {start}{runs}; {'; '.join(body)} }}")
        if watcher:
            self.counters = 0
            watch = [f"do :: {self.cond(['l0'])} -> {self.small(['l0'])} :: {self.cond(['l0'])} -> break od",
                     f"assert({self.cond(['l0'])})"]
            watch, _ = self.labelled(watch, kinds)
            lines.append(f"active proctype Watch() {{ byte l0; {'; '.join(watch)} }}")
        text = "\n".join(lines) + "\n"
        if claimed:
            text += self.claim()
        return text

    def claim(self) -> str:
        """A never claim of two or three states over the globals: each state loops or moves
        on; reaching the last one's end is a violation."""
        self.in_claim = True
        r = self.r
        states = r.randint(2, 3)
        labels = ["accept_s" if r.random() < 0.3 else "S0"] + [f"S{k}" for k in range(1, states)] + [f"E{states}"]
        parts = []
        for k in range(states):
            options = [f":: {self.cond([])} -> goto {labels[k + 1]}"]
            if r.random() < 0.5:
                options.append(f":: {self.cond([])} -> goto {labels[0]}")
            options.append(r.choice([":: else", ":: true", f":: {self.cond([])}"]))
            parts.append(f"{labels[k]}: do {' '.join(options)} od")
        parts.append(f"E{states}: {self.cond([])}")
        self.in_claim = False
        return "never { " + "; ".join(parts) + " }\n"

    def ltl(self, depth: int = 3) -> str:
        """A random formula of Spin's LTL syntax over two or three propositions (conditions
        a never claim may read, remote references included in ``dynamic`` models)."""
        self.in_claim = True
        atoms: list[str] = []
        while len(atoms) < 2 or (len(atoms) < 3 and self.r.random() < 0.5):
            atom = self.cond([])
            # Spin's ltl takes no channel poll (nfull, empty...) as a proposition
            if "full(" not in atom and "empty(" not in atom:
                atoms.append(f"({atom})")
        self.in_claim = False
        r = self.r

        def f(d: int) -> str:
            if d == 0 or r.random() < 0.2:
                return r.choice(atoms + ["true", "false"] if r.random() < 0.1 else atoms)
            k = r.randrange(12)
            if k < 5:
                # no X: Spin 6.5.2's translator is built without it (tl_spin: expected predicate)
                op = r.choice(["[]", "<>", "!", "!", "[]<>" if r.random() < 0.5 else "<>[]"])
                return f"{op} ({f(d - 1)})"
            op = r.choice(["U", "W", "V", "&&", "||", "->", "<->", "U", "&&", "||", "->"])
            return f"(({f(d - 1)}) {op} ({f(d - 1)}))"
        return f(depth)


def model(seed: int) -> str:
    """The random model number ``seed``."""
    return _Gen(seed).model()


def routed(seed: int) -> str:
    """The random model number ``seed`` with channel values passed through a hub channel."""
    gen = _Gen(seed)
    text = gen.model()
    r = random.Random(seed + 7919)
    names = list(gen.chans) or []
    if not names:
        text += "chan q9 = [1] of { byte };\n"
        names = ["q9"]
    lines = ["chan hub = [2] of { chan, byte };"]

    def op(c: str) -> str:
        return r.choice([f"{c}!{r.randint(0, 2)}", f"{c}?g0", f"nempty({c}) -> {c}?_", f"nfull({c}) -> {c}!g1",
                         f"{c}?[1] -> {c}?1", f"len({c}) == 0"])

    own = "mine" if r.random() < 0.5 else r.choice(names)
    lines.append(f"active proctype R() {{ chan c; chan mine = [{r.choice([0, 1, 2])}] of {{ byte }}; byte v; "
                 f"hub!{own},1; hub!{r.choice(names)},2; "
                 f"do :: hub?c,v -> if :: {op('c')} :: {op('c')} :: else fi; v < 2 -> hub!c,v+1 "
                 f":: timeout -> break od; "
                 f"if :: mine?v :: mine!1 :: skip fi }}")
    return text + "\n".join(lines) + "\n"


def dynamic(seed: int) -> str:
    """The random model number ``seed`` with workers created by ``run`` (module docstring)."""
    return _Gen(seed).dynamic()


def dynamic_claimed(seed: int) -> str:
    """``dynamic(seed)``'s kind of model with a never claim, which may observe the workers."""
    return _Gen(seed).dynamic(claimed=True)


def spawning(seed: int) -> str:
    """A random model where processes are given channels by ``run``: a worker proctype with
    ``chan`` parameters and a local channel, run (also recursively, by workers) with a
    global channel, a channel chosen at run time (``pool[i]``), the runner's own local
    channel or a channel received as a value; workers end, so pids and channel numbers are
    reused.  At most 7 processes run at once (within ``--max-procs``' default)."""
    r = random.Random(seed)
    cap = lambda: r.choice([0, 1, 1, 2])  # noqa: E731
    lines = ["byte g0;", f"chan pool[2] = [{cap()}] of {{ byte }};", f"chan hub = [2] of {{ chan }};"]

    def op(c: str) -> str:
        return r.choice([f"{c}!k", f"{c}?v", f"{c}?v; g0 = v", f"nempty({c}) -> {c}?_", f"nfull({c}) -> {c}!1",
                         f"if :: {c}!g0 :: {c}?v :: timeout fi", f"{c}?[1] -> {c}?1", f"len({c}) == 0",
                         "hub!mine", "hub?o; o!k", "hub?o; o?v"])

    def body(inp: str, out: str) -> str:
        ops = [op(r.choice([inp, out, "mine"])) for _ in range(r.randint(2, 4))]
        if r.random() < 0.6:  # recursion, bounded by k
            arg = r.choice(["mine", inp, "pool[k % 2]", "o"])
            ops.insert(r.randrange(len(ops) + 1), f"if :: k > 0 -> run Wk(mine, {arg}, k - 1) :: else fi")
        if r.random() < 0.3:
            ops.append("end: " + op("mine"))
        return "; ".join(ops)

    lines.append(f"proctype Wk(chan inp, out; byte k) {{ chan mine = [{cap()}] of {{ byte }}; chan o; byte v; "
                 f"{body('inp', 'out')} }}")
    first = r.choice(["pool[i]", "pool[0]", "own"])
    second = r.choice(["own", "pool[1 - i]", "hub"]) if first != "own" else r.choice(["pool[i]", "pool[0]"])
    if second == "hub":  # a channel of the wrong arity is refused by Spin: keep to byte channels
        second = "own"
    steps = [f"run Wk({first}, {second}, {r.randint(0, 2)})"]
    if r.random() < 0.5:
        steps.append(f"run Wk({r.choice(['own', 'pool[i]', 'pool[1]'])}, {r.choice(['own', 'pool[0]'])}, "
                     f"{r.randint(0, 1)})")
    steps += [r.choice(["own?v", "own!1", "pool[i]!2", "pool[i]?v", "hub?o; o!3", "skip"])
              for _ in range(r.randint(1, 2))]
    lines.append(f"init {{ chan own = [{cap()}] of {{ byte }}; chan o; byte i, v; "
                 f"if :: i = 0 :: i = 1 fi; {'; '.join(steps)} }}")
    return "\n".join(lines) + "\n"


def iterating(seed: int) -> str:
    """The random model number ``seed`` with a process using Spin 6's ``for (i : lo .. hi)``,
    ``for (i in a)`` and ``select (i : lo .. hi)`` (literal bounds, small and wide, and
    bounds read from variables), with ``break`` inside a ``for`` body; a ``select`` into a
    variable named with an underscore (Spin's loop, not its ``if``: wild models); an inline
    declaring a local, called once or twice (a variable of its own per expansion); a local
    array with an initialiser list, shorter, as long as or longer than the array."""
    gen = _Gen(seed)
    text = gen.model()
    r = random.Random(seed + 104729)
    locals_ = ["l0"]
    parts = []
    bumps = 0
    for _ in range(r.randint(2, 3)):
        k = r.randrange(8)
        if k == 7:
            parts.append(f"w[{r.randint(0, 2)}] = l0; l0 = w[j % 3]")
            continue
        if k == 5:
            parts.append(f"select (l_1 : {r.randint(0, 2)} .. {r.randint(2, 4)}); l0 = l_1")
            continue
        if k == 6:
            bumps += 1
            parts.append(f"bump({r.choice(['l0', 'j'])})")
            continue
        if k == 0:
            parts.append(f"select (j : {r.randint(0, 2)} .. {r.randint(2, 4)})")
        elif k == 1:
            parts.append(f"select (j : 1 .. {r.choice(['g1 % 3 + 1', '40', '3'])})")
        elif k == 2:
            body = gen.seq(locals_, r.randint(1, 2))
            if r.random() < 0.4:
                body += f"; if :: {gen.cond(locals_)} -> break :: else fi"
            parts.append(f"for (j : {r.randint(0, 1)} .. {r.choice(['2', 'g0 % 3'])}) {{ {body} }}")
        elif k == 3:
            parts.append(f"for (j in a) {{ a[j] = a[j] + j; {gen.basic(locals_)} }}")
        else:
            parts.append(f"l0 = j; {gen.basic(locals_)}")
    counters = "".join(f", c{k}" for k in range(1, gen.counters + 1))
    inline = "inline bump(x) { byte t = x + 1; t = t % 3; x = t }\n" if bumps else ""
    listed = ", ".join(str(r.randint(0, 3)) for _ in range(r.randint(1, 4)))  # short, exact or long
    return text + inline + (f"active proctype It() {{ byte j, l0, l_1{counters}; byte w[3] = {{ {listed} }}; "
                            f"{'; '.join(parts)} }}\n")


def scheduled(seed: int) -> str:
    """A random model over pan's scheduling constructs (module docstring): 2-3 proctypes,
    active or (the last) run by init with a ``priority`` tag, some with ``provided (cond)``
    over globals or a ``priority`` tag, bodies from the base generator with a statement
    wrapped in ``{ A } unless { B }`` (sometimes inside a second ``unless``), guards on
    ``enabled(k)`` of another process and on ``_last``, and with priorities in use
    ``set_priority`` and reads of ``get_priority``/``_priority``.  Channels are buffered:
    pan refuses priorities and ``enabled`` beside rendezvous channels.  Every proctype has
    locals, where pan stores ``_priority`` (see README)."""
    gen = _Gen(seed)
    # one level of if/do/atomic/d_step: guards inline the executability of the processes
    # of higher priority and of those enabled() asks about, so deeper bodies load slowly
    gen.depth = 1
    r = random.Random(seed * 31 + 28)
    cap = r.choice([1, 2])
    gen.chans = {"q0": cap}
    lines = [f"mtype = {{ {', '.join(MTYPES)} }};", "byte g0, g1; short s0; int i0; bool b0; mtype m0;",
             f"byte a[{gen.arr}];", f"chan q0 = [{cap}] of {{ byte }};"]
    procs = r.randint(2, 3)
    spawn = r.random() < 0.3  # the last proctype is run by init
    prio = r.random() < 0.5
    pids = list(range(procs + spawn))  # init (if any) takes pid procs - 1, the run one procs
    own_pid = {p: p for p in range(procs)}
    if spawn:
        own_pid[procs - 1] = procs
    glob = lambda: r.choice(["g0 < 2", "g1 != 1", "b0", "!b0", "g0 == g1", "(g0 + g1) % 2 == 0"])  # noqa: E731

    def sched(p: int) -> str:
        others = [k for k in pids if k != own_pid[p]]
        k = r.randrange(5 if prio else 3)
        if k == 0 and others:
            return f"{r.choice(['', '!'])}enabled({r.choice(others)}) -> {gen.assign(['l0'])}"
        if k == 1:
            return r.choice(["_last == _pid", "_last != _pid", f"_last == {r.choice(pids)}", "g1 = _last",
                             "(_last == 0 || g0 > 0)"])
        if k == 2:
            return gen.basic(["l0"])
        if k == 3:
            return f"set_priority({r.choice(pids)}, {r.randint(1, 4)})"
        return r.choice(["g0 = get_priority(0)", f"g1 = get_priority({r.choice(pids)}) % 3", "_priority = 2",
                         "_priority > 1 -> g0 = 1", "l0 = _priority"])

    runs = []
    for p in range(procs):
        locals_ = ["l0"]
        gen.counters = 0
        stmts = [gen.stmt(locals_) for _ in range(r.randint(2, 3))]
        for _ in range(r.randint(0, 2)):
            stmts.insert(r.randrange(len(stmts) + 1), sched(p))
        if r.random() < 0.6:
            j = r.randrange(len(stmts))
            main = "; ".join(stmts[j:j + r.randint(1, 2)])
            del stmts[j:j + 2]
            escape = r.choice([glob(), "timeout", f"{gen.cond(locals_)}", sched(p)])
            if escape.startswith("set_priority"):  # refused there (README)
                escape = glob()
            stmt = f"{{ {main} }} unless {{ {escape} -> {gen.basic(locals_)} }}"
            if r.random() < 0.3:  # nested: the outer escape has priority
                stmt = f"{{ {gen.basic(locals_)}; {stmt}; {gen.basic(locals_)} }} unless {{ {glob()} -> g1 = 3 }}"
            stmts.insert(j, stmt)
        counters = "".join(f", c{k}" for k in range(1, gen.counters + 1))
        head = ""
        if prio and r.random() < 0.6 and not (spawn and p == procs - 1):
            head += f" priority {r.randint(1, 3)}"
        if r.random() < 0.35:
            head += f" provided ({glob()})"
        body = f"byte l0{counters}; " + "; ".join(stmts)
        if spawn and p == procs - 1:
            lines.append(f"proctype P{p}(){head} {{ {body} }}")
            runs.append(f"run P{p}()" + (f" priority {r.randint(1, 3)}" if prio else ""))
        else:
            lines.append(f"active proctype P{p}(){head} {{ {body} }}")
    if runs:
        lines.append(f"init {{ byte l0; {'; '.join(runs)}; l0 = 1 }}")
    return "\n".join(lines) + "\n"


def claimed(seed: int) -> str:
    """The random model number ``seed`` with a random never claim."""
    gen = _Gen(seed)
    return gen.model() + gen.claim()


def spin_claimed(seed: int, reverse: bool = False) -> str:
    """A small random model with a never claim as Spin users write them (a stream of its
    own): one or two processes over the globals and one or two channels (which they send
    on), a process taking ``timeout`` moves inside and outside ``atomic``, maybe one with a
    labelled ``goto`` that the claim names by ``Lg@Lp``, and a claim with polls of the
    channels (``q?[k]``, ``q?[eval(g0)]``, negated and in conjunctions), ``atomic`` sequences
    (``atomic { g -> h -> goto S }``, Spin's translator's ``atomic { g -> assert(!g) }``
    followed by a jump), ``assert``, conditions.  Every atomic sequence of the claim jumps
    forward: after a stutter move pan stores no state until the claim stutters again, so a
    sequence that could repeat forever on a stuck system sends pan past any depth bound.
    ``reverse``: the same model with each claim state's options in reverse order (pan's
    count may depend on the order it tries them: README, never claims)."""
    gen = _Gen(seed * 104723 + 28)
    r = gen.r
    lines = [f"mtype = {{ {', '.join(MTYPES)} }};", "byte g0, g1; short s0; int i0; bool b0; mtype m0;",
             f"byte a[{gen.arr}];"]
    for k in range(r.choice([1, 1, 2])):
        # q0 buffered (the processes send on it); a poll of a rendezvous q1 is pan's error
        gen.chans[f"q{k}"] = r.choice([1, 2] if k == 0 else [0, 1, 2])
        lines.append(f"chan q{k} = [{gen.chans[f'q{k}']}] of {{ byte }};")
    for p in range(r.randint(1, 2)):
        gen.counters = 0
        stmts = [f"q0!{r.randint(0, 2)}"] + [gen.stmt(["l0"]) for _ in range(r.randint(1, 2))]
        r.shuffle(stmts)
        counters = "".join(f", c{k}" for k in range(1, gen.counters + 1))
        lines.append(f"active proctype P{p}() {{ byte l0{counters}; {'; '.join(stmts)} }}")
    tm = r.randrange(3)
    if tm == 0:
        lines.append("active proctype Tm() { byte n; do :: n < 2 -> atomic { timeout -> g0 = (g0 + 1) % 3; n++ } "
                     ":: else -> break od }")
    elif tm == 1:
        lines.append("active proctype Tm() { byte n; atomic { do :: n < 2 -> if :: timeout -> g1 = n :: g0 == 5 fi; "
                     "n++ :: else -> break od } }")
    else:
        lines.append("active proctype Tm() { byte n; do :: timeout -> n++; g1 = n % 2 :: n >= 2 -> break od }")
    remote = r.random() < 0.5
    if remote:
        lines.append("active proctype Lg() { byte n; do :: n < 2 -> n++; Lp: goto Lq; Lq: g1 = n % 3 "
                     ":: else -> break od }")
    gen.in_claim = True

    def cond() -> str:
        k = r.randrange(10)
        if k < 3:
            ch = r.choice(list(gen.chans))
            poll = f"{ch}?[{r.choice(['0', '1', '2', 'eval(g0)'])}]"
            return r.choice([poll, f"!({poll})", f"({poll} && {gen.cond([])})"])
        if k == 3 and remote:
            return r.choice(["Lg@Lp", "!Lg@Lp", f"(Lg@Lp || {gen.cond([])})"])
        return gen.cond([])

    states = r.randint(1, 3)
    labels = ["accept_s" if r.random() < 0.3 else "S0"] + [f"S{k}" for k in range(1, states)] + [f"E{states}"]
    parts = []
    for k in range(states):
        options = [f":: {cond()} -> goto {labels[k + 1]}"]
        for _ in range(r.randint(1, 2)):
            j = r.randrange(4)
            g, ahead = cond(), r.choice(labels[k + 1:])
            while j == 1 and ("full(" in g or "empty(" in g):  # Spin refuses to negate those
                g = cond()
            if j == 0:
                options.append(f":: atomic {{ {g} -> {cond()} -> goto {ahead} }}")
            elif j == 1:
                options.append(f":: atomic {{ {g} -> assert(!({g})); goto {ahead} }}")
            elif j == 2:
                options.append(f":: {g} -> assert({cond()})")
            else:
                options.append(f":: {g} -> goto {labels[0]}")
        options.append(r.choice([":: else", ":: true", ":: skip", f":: {cond()}"]))
        if reverse:
            options.reverse()
        parts.append(f"{labels[k]}: do {' '.join(options)} od")
    parts.append(f"E{states}: {cond()}")
    gen.in_claim = False
    return "\n".join(lines) + "\nnever { " + "; ".join(parts) + " }\n"


def ltl_claimed(seed: int) -> str:
    """The random model number ``seed`` (every ``assert`` made to hold, so that only the
    formula can be violated) with one random ``ltl`` block; every fourth seed a ``dynamic``
    model, whose formula may observe its workers by remote references."""
    import re as _re

    gen = _Gen(seed)
    text = gen.dynamic(claimed=False) if seed % 4 == 3 else gen.model()
    # the workers' proctype W would read as Spin's weak until in the formula
    text += f"ltl p {{ {gen.ltl(gen.r.randint(1, 3))} }}\n"
    return _re.sub(r"\bW(?=[\[(])", "Wk", _re.sub(r"\bassert\(", "assert(1 || ", text))


if __name__ == "__main__":  # print a few
    import sys

    for s in map(int, sys.argv[1:] or ["0", "1", "2"]):
        print(f"// seed {s}\n{model(s)}")


def remote_ltl(seed: int) -> str:
    """A ``dynamic`` model (every ``assert`` made to hold) whose init, watcher and ``ltl``
    formula also read the workers' variables by remote references ``W[k]:l0`` and ``W:l0``
    (pan's first running W), beside ``W[k]@L``; the proctype is renamed ``Wk`` (``W`` is
    Spin's weak until in a formula)."""
    import re as _re

    gen = _Gen(seed)
    text = gen.dynamic(claimed=False, remote_vars=True)
    gen.remote = [c for c in gen.remote if ":" in c]  # the formula reads variables
    formula = gen.ltl(gen.r.randint(1, 3))
    for _ in range(8):  # one remote reference at least (cond draws one three times in ten)
        if ":" in formula:
            break
        formula = gen.ltl(gen.r.randint(1, 3))
    text += f"ltl p {{ {formula} }}\n"
    return _re.sub(r"\bW(?=[\[(:@])", "Wk", _re.sub(r"\bassert\(", "assert(1 || ", text))


def replicated(seed: int) -> str:
    """The random model number ``seed`` with its first active proctype instantiated three
    times (``active [3]``): copies that read ``_pid`` or only shared data, often a group
    larger than 1 for ``symdetect spin`` (issue 31)."""
    return model(seed).replace("active [1] proctype P0()", "active [3] proctype P0()", 1)


def replicated_ltl(seed: int) -> str:
    """``replicated``'s model number ``seed`` (three copies of P0, every ``assert`` made to
    hold) with one random ``ltl`` block: a (model, formula) pair whose formula's stabiliser
    is often larger than 1, for ``symdetect spin`` with claims (issue 31)."""
    import re as _re

    gen = _Gen(seed)
    text = gen.model().replace("active [1] proctype P0()", "active [3] proctype P0()", 1)
    text += f"ltl p {{ {gen.ltl(gen.r.randint(1, 3))} }}\n"
    return _re.sub(r"\bassert\(", "assert(1 || ", text)


def progressed(seed: int) -> str:
    """A random model for non-progress cycles (``pan -l``): every other seed a ``dynamic``
    model (endless workers, ``progress`` labels among their labels), else a ``model()``
    whose every other process gets a ``progress`` label on its first statement; every
    ``assert`` made to hold, so that only the cycles decide."""
    import re as _re

    gen = _Gen(seed)
    if seed % 2:
        text = gen.dynamic(claimed=False)
    else:
        lines = gen.model().splitlines()
        for k, line in enumerate(lines):
            m = _re.match(r"(.*proctype \w+\([^)]*\) \{ (?:byte [^;]*; )+)(.*)", line)
            # (Spin: no label before a declaration, or a jump into a d_step)
            if m and k % 2 == 0 and not m.group(2).startswith(("L1:", "end1:", "d_step", "byte", "short", "int",
                                                                "bool", "mtype", "unsigned", "chan")):
                lines[k] = f"{m.group(1)}progress{k}: {m.group(2)}"
        text = "\n".join(lines) + "\n"
    return _re.sub(r"\bassert\(", "assert(1 || ", text)


def recorded(seed: int) -> str:
    """A random model over records and event traces (issue 28): a ``typedef Rec`` (a byte, a
    bool, sometimes a nested ``typedef Sub`` with an array and a ``chan`` field) sent and
    received whole through a channel of ``{ Rec }``, ``{ Rec, byte }`` or ``{ byte, Rec }``
    (buffered or rendezvous), received into a global array of records, iterated with ``for
    (x in channel)``, nested fields ``x.s.k[j]`` and ``gr[i].s.p`` read and written, sends
    and receives through a record's ``chan`` field, channel names swapped by assignment
    (``t = ra; ra = rb; rb = t``), and sometimes a ``trace`` (total over ``tq``'s events,
    with ``_``) or a ``notrace`` (constants and ``_``; sometimes ending with an event that never
    happens, so that it cannot fail) over the buffered channel ``tq``."""
    gen = _Gen(seed)
    gen.depth = 1
    r = random.Random(seed * 53 + 28)
    nested, chanfield = r.random() < 0.6, r.random() < 0.6
    cap = r.choice([0, 1, 2, 2])
    shape = r.choice(["{ Rec }", "{ Rec, byte }", "{ byte, Rec }"])
    lines = [f"mtype = {{ {', '.join(MTYPES)} }};", "byte g0, g1; short s0; int i0; bool b0; mtype m0;",
             f"byte a[{gen.arr}];"]
    if nested:
        lines.append("typedef Sub { byte p; byte k[2] };")
    lines.append("typedef Rec { byte v; bool f" + ("; Sub s" if nested else "") + ("; chan c" if chanfield else "")
                 + " };")
    lines += [f"chan rq = [{cap}] of {shape};", "chan ra = [1] of { byte };", "chan rb = [2] of { byte };",
              "chan tq = [2] of { byte };", "chan tz = [1] of { byte };", "Rec gr[2];"]
    swaps = r.random() < 0.4
    trace = r.choice(["", "", "trace", "notrace"])

    def send() -> str:
        return {"{ Rec }": "rq!x", "{ Rec, byte }": "rq!x,l0", "{ byte, Rec }": "rq!l0,x"}[shape]

    def recv(target: str) -> str:
        return {"{ Rec }": f"rq?{target}", "{ Rec, byte }": f"rq?{target},l1",
                "{ byte, Rec }": f"rq?l1,{target}"}[shape]

    def step() -> str:
        k = r.randrange(11)
        if k == 0:
            return f"x.v = {gen.expr(['l0'])} % 4"
        if k == 1:
            return "x.f = !x.f" if not nested else f"x.s.k[{r.randrange(2)}] = (x.v + {r.randint(1, 2)}) % 3"
        if k == 2:
            return f"gr[{r.choice(['_pid % 2', '0', '1'])}].v = (x.v + g0) % 3" if not nested else \
                f"gr[{r.randrange(2)}].s.p = x.s.k[{r.randrange(2)}]; x.s.p = gr[{r.randrange(2)}].s.k[1]"
        if k in (3, 4):
            return f"if :: {send()} :: timeout -> skip fi" if cap == 0 else f"if :: nfull(rq) -> {send()} :: else fi"
        if k == 5:
            target = r.choice(["x", f"gr[{r.randrange(2)}]"])
            return f"if :: {recv(target)} :: timeout -> skip fi" if cap == 0 else \
                f"if :: nempty(rq) -> {recv(target)} :: else fi"
        if k == 6 and cap > 0 and shape == "{ Rec }":  # Spin: "bad channel type" otherwise
            return f"for (x in rq) {{ g0 = (g0 + x.v) % 3; {gen.basic(['l0'])} }}"
        if k == 7 and chanfield:
            return r.choice(["if :: nfull(ra) -> x.c = ra :: else -> x.c = rb fi",
                             "if :: x.c != 0 && nfull(x.c) -> x.c!x.v :: else fi",
                             "if :: x.c != 0 && nempty(x.c) -> x.c?l1 :: else fi"])
        if k == 8 and swaps:
            return "atomic { t = ra; ra = rb; rb = t }"
        if k == 9:
            return r.choice(["if :: nfull(tq) -> tq!x.v % 3 :: else fi", "if :: nempty(tq) -> tq?l1 :: else fi",
                             "if :: nfull(ra) -> ra!l0 :: nempty(ra) -> ra?l1 :: else fi"])
        return gen.basic(["l0"])

    for p in range(r.randint(1, 2)):
        n = r.choice([1, 1, 2])
        body = [("x.c = ra" if chanfield else "x.v = _pid % 2")] + [step() for _ in range(r.randint(3, 5))]
        loop = f"do :: l0 < {r.randint(1, 2)} -> {'; '.join(body[1:])}; l0++ :: else -> break od"
        counters = "".join(f", c{k}" for k in range(1, gen.counters + 1))
        lines.append(f"active [{n}] proctype W{p}() {{ Rec x; byte l0, l1{counters}; chan t; {body[0]}; {loop} }}")
        gen.counters = 0
    if trace == "trace":  # total: every event of tq has a move from every location
        k = r.randint(1, 3)
        locs = [f"L{j}: if :: tq!_ -> goto L{r.randrange(k)} :: tq?_ -> goto L{r.randrange(k)} fi" for j in range(k)]
        if r.random() < 0.5:
            locs[0] = "end" + locs[0]
            locs = [s.replace("goto L0", "goto endL0") for s in locs]
        lines.append(f"trace {{ {'; '.join(locs)} }}")
    elif trace == "notrace":
        events = [r.choice(["tq!0", "tq!1", "tq!_", "tq?0", "tq?_", "tq?2"]) for _ in range(r.randint(1, 3))]
        if r.random() < 0.5:
            events.append("tz!0")  # never happens: this notrace cannot fail
        if r.random() < 0.4:
            events = [f"do :: {events[0]} :: {events[-1].replace('!', '?') if events[-1].startswith('tq!') else 'tq!2'}"
                      f" -> break od"] + events[1:]
        lines.append(f"notrace {{ {'; '.join(events)} }}")
    return "\n".join(lines) + "\n"


def fair_claimed(seed: int) -> str:
    """A random model whose processes loop for ever (so that weak fairness matters: one
    process can keep moving while another, able to move, never does) with one random
    ``ltl`` block over its globals, for ``pan -a -f`` (``spin_oracle.spin_ltl_fair``).
    Processes: two to three proctypes (the first often ``active [2]``, so that ``--reduce``
    has a group), each a ``do`` loop of two to four options drawn from assignments, guarded
    steps that block, ``atomic`` sequences, rendezvous or buffered channel operations,
    ``timeout``, ``else`` and (rarely) ``break``; ``progress`` labels now and then (for
    ``pan -l -f``, ``fair_progressed``)."""
    r = random.Random(seed * 7919 + 17)
    rendezvous = r.random() < 0.5
    lines = ["byte x, y;", "bool f;", f"chan c = [{0 if rendezvous else 1}] of {{ byte }};"]

    def cond() -> str:
        return r.choice(["x < 2", "x == 0", "y != 1", "f", "!f", "y == 2", "x > y", "f && x == 1"])

    def option() -> str:
        k = r.randrange(14)
        if k == 0:
            return f"{cond()} -> x = (x + 1) % 3"
        if k == 1:
            return "y = (y + 1) % 3"
        if k == 2:
            return "f = !f"
        if k == 3:
            return f"{cond()} -> f = {r.choice(['true', 'false'])}"
        if k == 4:
            return f"atomic {{ {cond()} -> x = {r.randrange(3)}; y = {r.randrange(3)} }}"
        if k == 5:
            return f"c!{r.randrange(2)}"
        if k == 6:
            return "c?v; x = v"
        if k == 7:
            return "timeout -> f = false"
        if k == 8:
            return "else -> y = 0"
        if k == 9:
            return r.choice(["v = 1 - v", "x = 0"])  # (pan refuses an unconditional skip loop)
        if k == 10:
            return f"{cond()} -> y = x"
        if k == 11:
            return "atomic { x = (x + 1) % 3; x == 1 -> f = true }"
        if k == 12 and r.random() < 0.3:
            return f"{cond()} -> break"
        return f"{cond()} -> skip"

    procs = r.randint(2, 3)
    for p in range(procs):
        count = 2 if p == 0 and r.random() < 0.6 else 1
        options = [option() for _ in range(r.randint(2, 4))]
        # Spin: else only with other options, and not beside a channel receive
        if any(o.startswith("else") for o in options) and any("c?" in o or "c!" in o for o in options):
            options = [o for o in options if not o.startswith("else")] or ["skip"]
        if sum(o.startswith("else") for o in options) > 1:
            options = [o for o in options if not o.startswith("else")] + ["else -> y = 0"]
        label = "progress: " if r.random() < 0.3 else ""
        body = " ".join(f":: {o}" for o in options)
        lines.append(f"active [{count}] proctype P{p}() {{ byte v; {label}do {body} od }}")
    atoms = ["(x == 0)", "(x == 1)", "(y == 2)", "(f)", "(y != x)", "(x < 2)"]
    chosen = r.sample(atoms, r.randint(1, 3))

    def formula(d: int) -> str:
        if d == 0 or r.random() < 0.2:
            return r.choice(chosen)
        k = r.randrange(10)
        if k < 6:
            op = r.choice(["[]", "<>", "!", "[]<>", "<>[]", "<>"])
            return f"{op} ({formula(d - 1)})"
        op = r.choice(["U", "&&", "||", "->", "V"])
        return f"(({formula(d - 1)}) {op} ({formula(d - 1)}))"

    if r.random() < 0.5:
        # liveness that an unfair scheduler can starve: fairness decides these
        a, b = r.choice(chosen), r.choice(atoms)
        text = r.choice([f"<> {a}", f"[]<> {a}", f"[] ({a} -> <> {b})", f"<>[] {a}", f"[]<> {a} && []<> {b}"])
    else:
        text = formula(r.randint(1, 3))
    lines.append(f"ltl p {{ {text} }}")
    return "\n".join(lines) + "\n"


def fair_progressed(seed: int) -> str:
    """``fair_claimed(seed)``'s model without its formula, for ``pan -l -f``."""
    return "".join(line + "\n" for line in fair_claimed(seed).splitlines() if not line.startswith("ltl "))


def queued(seed: int) -> str:
    """A random model over Spin's queue operations beyond FIFO (issue 28): sorted send
    ``c!!m``, random receive ``c??m``, the copies ``c?<m>`` and ``c??<m>``, the polls
    ``c?[m]`` and ``c??[m]``, beside plain ``!``/``?`` and ``len``/``empty``/``nempty``/
    ``full``/``nfull``, on channels of one or two fields (byte, mtype), buffered and
    rendezvous, also through a ``chan`` variable.  Arguments are variables, ``_``,
    constants, mtype names and ``eval(e)``; sent values may wrap (``g0 + 254``, ``-1``:
    pan sorts by the value before it is stored).  Operations sit in ``if`` options (with an
    ``else``), ``atomic`` and ``d_step`` blocks and bounded loops; sometimes with too few
    arguments (pan's errors), a ``trace``/``notrace`` over the one-field channel ``tq``,
    and two copies of a proctype (``active [2]``, whose symmetry permutes the ``_pid``s
    the messages carry)."""
    r = random.Random(seed * 31 + 2828)
    shapes = {"q0": r.choice([("byte",), ("byte", "byte"), ("byte", "mtype"), ("mtype", "byte")]),
              "q1": ("byte",), "tq": ("byte",)}
    caps = {"q0": r.choice([0, 1, 2, 3, 3]), "q1": r.choice([0, 1, 2]), "tq": r.choice([1, 2, 3])}
    lines = [f"mtype = {{ {', '.join(MTYPES)} }};", "byte g0, g1;"]
    for name in shapes:
        lines.append(f"chan {name} = [{caps[name]}] of {{ {', '.join(shapes[name])} }};")
    trace = r.choice(["", "", "", "trace", "notrace"])

    def value(kind: str, locals_: list[str], sent: bool) -> str:
        if kind == "mtype":
            return r.choice(MTYPES + (["m"] if "m" in locals_ else []))
        options = ["0", "1", "2", "g0", "g1", "_pid", "(g0 + 1) % 3"] + [v for v in locals_ if v not in ("m", "v")]
        if sent:
            options += ["g0 + 254", "-1", "len(q0)" if caps["q0"] else "1", "255"]
        return r.choice(options)

    def targets(kind: str, locals_: list[str]) -> str:
        if kind == "mtype":
            return r.choice(["m", "_", r.choice(MTYPES), f"eval({r.choice(MTYPES)})"])
        k = r.randrange(10)
        if k < 4:
            return r.choice(["g0", "g1"] + [v for v in locals_ if v not in ("m", "v")])
        if k < 6:
            return "_"
        if k < 8:
            return str(r.randint(0, 2))
        return f"eval({value(kind, locals_, False)})"

    def op(ch: str, locals_: list[str], atomic: bool = False) -> str:
        """One channel operation on ``ch`` (``v`` is the chan variable naming q1 or tq)."""
        shape = shapes["q1" if ch == "v" else ch]
        k = r.randrange(10)
        while k >= 7 and (caps.get(ch, 0) == 0 or ch == "v") and r.random() < 0.8:
            k = r.randrange(10)  # a copy or poll of a rendezvous channel is pan's error: rarely
        # fewer arguments than fields: a poll or copy matches those given (a send or
        # receive with fewer is pan's error, which it goes on past: tests/test_promela_queue_ops.py)
        n = len(shape) - (k >= 7 and len(shape) > 1 and r.random() < 0.15)
        if k < 4:
            args = ",".join(value(shape[j], locals_, True) for j in range(n))
            return f"{ch}{r.choice(['!', '!!', '!!'])}{args}"
        picked: list[str] = []
        for j in range(n):
            t = targets(shape[j], locals_)
            while k < 9 and t in picked and t not in ("_",) and not t[0].isdigit() and not t.startswith("eval"):
                t = targets(shape[j], locals_)  # Spin: "cannot use var in multiple msg fields"
            picked.append(t)
        # pan 6.5.2's undo of ``c?eval(x),x`` puts the message back with x's new value in
        # the eval field (its search then runs from a corrupted queue; pinned in
        # tests/test_promela_queue_ops.py): no eval() reading a variable the receive stores
        stored = {t for t in picked if t in ("g0", "g1", "l0")}
        picked = ["_" if t.startswith("eval") and any(v in t for v in stored) else t for t in picked]
        args = ",".join(picked)
        if k < 7:
            return f"{ch}{r.choice(['?', '??', '??'])}{args}"
        if k < 9:
            return f"{ch}{r.choice(['?', '??'])}<{args}>"
        poll = f"{ch}{r.choice(['?', '??'])}[{args}]"
        then = f"{ch}??{args}" if r.random() < 0.5 else "g1 = (g1 + 1) % 3"
        return f"{poll} -> {then}"

    def cond(ch: str) -> str:
        return r.choice([f"len({ch}) > 0", f"empty({ch})", f"nempty({ch})", f"full({ch})", f"nfull({ch})",
                         f"len({ch}) < 2", "g0 < 2", "g1 != g0"])

    def stmt(locals_: list[str]) -> str:
        names = ["q0", "q1", "tq"] + (["v"] if "v" in locals_ else [])
        ch = r.choice(names)
        k = r.randrange(10)
        if k < 4:
            options = [f":: {op(r.choice(names), locals_)}" for _ in range(r.randint(1, 3))]
            if r.random() < 0.8:
                options.append(r.choice([":: else", ":: timeout"]))
            return "if " + " ".join(options) + " fi"
        if k == 4:
            # no rendezvous inside d_step (Spin refuses it)
            buffered = [c for c in ("q0", "q1", "tq") if caps[c] > 0]
            c = r.choice(buffered)
            # its first statement decides: the operation is executable once the guard holds
            args = ",".join(targets(t, locals_) for t in shapes[c])
            inner = r.choice([f"nfull({c}) -> {c}!!{','.join(value(t, locals_, True) for t in shapes[c])}",
                              f"{c}??[{args}] -> {c}??{args}", f"{c}??[{args}] -> {c}??<{args}>",
                              f"{c}?[{args}] -> {c}?{args}"])
            return f"d_step {{ {inner}; g0 = (g0 + 1) % 3 }}"
        if k == 5:
            return f"atomic {{ {op(ch, locals_)}; {op(r.choice(names), locals_)} }}"
        if k == 6 and "v" in locals_:
            return r.choice(["v = q1", "v = tq", "if :: len(v) > 0 -> v = q1 :: else -> v = tq fi"])
        if k < 8:
            return f"{cond(ch)} -> {op(ch, locals_)}"
        if k < 9:
            return r.choice(["g0 = (g0 + 1) % 3", f"g1 = len({ch}) % 3", "assert(g0 < 3)",
                             f"assert(len({ch}) <= {max(caps.get(ch, 0), 0) + (1 if ch == 'v' else 0) + 2})"])
        return op(ch, locals_)

    procs = r.randint(2, 3)
    twins = r.random() < 0.4
    # half the models rarely block: each statement is an option beside ``else``
    calm = lambda st: st if r.random() < 0.15 or st.startswith("if ") else f"if :: {st} :: else fi"  # noqa: E731
    careful = r.random() < 0.5
    for p in range(procs):
        locals_ = ["l0", "m"] + (["v"] if r.random() < 0.5 else [])
        body = [stmt(locals_) for _ in range(r.randint(2, 4))]
        if careful:
            body = [calm(st) for st in body]
        loop = f"do :: c1 < {r.randint(1, 2)} -> {'; '.join(body)}; c1++ :: else -> break od"
        tail = "; ".join((calm if careful else str)(stmt(locals_)) for _ in range(r.randint(0, 2)))
        decl = "byte l0, c1; mtype m; " + ("chan v = q1; " if "v" in locals_ else "")
        n = 2 if twins and p == 0 else 1
        # (a skip after the loop: Spin refuses a break that jumps into a d_step)
        lines.append(f"active [{n}] proctype P{p}() {{ {decl}{loop}{'; skip; ' + tail if tail else ''} }}")
    if trace == "trace":  # total over tq's events: it cannot fail, but follows the heads and tails
        lines.append("trace { L0: if :: tq!_ -> goto L1 :: tq?_ -> goto L0 fi; "
                     "L1: if :: tq!_ -> goto L0 :: tq?_ -> goto L1 fi }")
    elif trace == "notrace":
        events = [r.choice(["tq!0", "tq!1", "tq!_", "tq?0", "tq?_", "tq?2"]) for _ in range(r.randint(1, 3))]
        lines.append(f"notrace {{ {'; '.join(events)} }}")
    return "\n".join(lines) + "\n"


def hubbed(seed: int) -> str:
    """A hub serving N = 2 or 3 senders' channels by options of one loop, each built from one
    random template with the channel's index (issue 31): the generator swapping two senders
    renames the hub's program counter inside its own automaton, for ``symdetect spin``'s
    pairing of our automata with pan's.  The templates mix atomic sequences (with a jump pan
    keeps inside them), ``if`` with ``else``, ``d_step``, an ``inline`` expanded once per
    option on the same source lines, and ``goto``; each option is on its own line."""
    r = random.Random(seed * 97 + 31)
    n = r.choice([2, 2, 3])
    # an if's options each on a line of its own: options on one line leading to alike steps
    # cannot be told apart by line (the export refuses that pairing: test_export_spin)
    templates = [
        "got[{i}] = v + 1",
        "atomic {{ got[{i}] = v; cnt = (cnt + 1) % 3 }}",
        "if\n\t\t:: v == 0 -> got[{i}] = 1\n\t\t:: else -> got[{i}] = 2\n\t\tfi",
        "d_step {{ got[{i}] = v; v = 0 }}",
        "serve({i})",
        "atomic {{ got[{i}] = v;\n\t\tif\n\t\t:: v == 0 -> skip\n\t\t:: else -> cnt = (cnt + 1) % 3\n\t\tfi }}",
        "if\n\t\t:: cnt == 0 -> goto done{i}\n\t\t:: else -> cnt = 0\n\t\tfi; got[{i}] = 0; done{i}: skip",
    ]
    body = r.sample(templates, r.choice([1, 2, 2, 3]))
    # labels are per option: the goto template is used once at most, so its label stays unique
    options = "\n".join(f"\t:: in{i}?v -> " + ";\n\t\t".join(t.format(i=i) for t in body) for i in range(n))
    chans = "\n".join(f"chan in{i} = [1] of {{ byte }};" for i in range(n))
    runs = "; ".join(f"run sender(in{i})" for i in range(n))
    return f"""byte got[{n}];
byte cnt;
{chans}

inline serve(x)
{{
	got[x] = v;
	if
	:: cnt < 2 -> cnt++
	:: else -> cnt = 0
	fi
}}

proctype sender(chan out)
{{
	byte k;
	do
	:: k < 2 -> out!k; k = k + 1
	:: k == 2 -> k = 0
	od
}}

active proctype hub()
{{
	byte v;
	do
{options}
	od
}}

init {{ atomic {{ {runs} }} }}
"""


def mixed(seed: int) -> str:
    """A random model whose channels travel in ``mtype`` and ``byte`` message fields beside
    data values that are channel numbers too (Spin's ``LTL/mobile1.pml``, issue 28): three
    global one-field channels (numbers 1..3, buffered or rendezvous) and ``mtype`` names
    ``blue, green, red`` (1..3, each naming one of them); 2-3 processes, each with a local
    channel, ``chan`` variables, an ``mtype`` and a ``byte``, send channel values, names
    and counters through the same fields, receive them into ``chan``, ``mtype`` and
    ``byte`` variables (and as constants to match), copy channel variables, and operate
    on whatever channel a variable names then -- also a data value read as a channel
    (never ``x?x``, which pan's backtracking mishandles: see ``into``).
    Every value sent is a channel's number (no 0: pan's handling of an uninitialised
    ``chan`` differs between models with and without rendezvous channels, a separate
    matter).  Loops are bounded by the byte counter; then each process waits at an end
    label for good."""
    r = random.Random(seed * 43 + 2830)
    lines = ["mtype = { red, green, blue };"]
    for k in range(3):
        lines.append(f"chan g{k} = [{r.choice([0, 0, 1, 2])}] of {{ {r.choice(['mtype', 'byte'])} }};")

    def target() -> str:
        return r.choice(["g0", "g1", "g2", "own", "x", "x", "y"])

    def into(t: str, v: str) -> str:
        # never ``x?x``: pan undoes it into the channel x names after the receive, so its
        # search goes on from a corrupted state and its count is not the model's (Spin
        # 6.5.2's pan.b: ``unrecv(x, ..., x, 1); x = oval``)
        return {"x": "y", "y": "x"}[v] if v == t else v

    def op() -> str:
        t = target()
        k = r.randrange(13)
        if k < 4:  # a send: a name, a channel value, a counter
            return f"{t}!{r.choice(['red', 'green', 'blue', 'red', 'x', 'y', 'own', 'g1'])}"
        if k < 8:  # a receive into a chan, mtype or byte variable, or of a constant
            return f"{t}?{into(t, r.choice(['x', 'x', 'y', 'm', 'k', 'red', 'blue']))}"
        if k < 10:
            return r.choice(["x = y", "y = x", "x = own", "y = g0", "x = g2", "m = red"])
        if k < 11:
            return f"len({t}) > 0 -> {t}?{into(t, r.choice(['x', 'm']))}"
        if k < 12:
            return f"{t}?[{r.choice(['red', 'green'])}] -> {t}?_"
        return f"x == {r.choice(['g0', 'g1', 'own', 'y'])} -> {t}!{r.choice(['x', 'red'])}"

    n = r.choice([2, 2, 3])
    for p in range(n):
        # a blocked process may give up by timeout, so not every model ends in pan's
        # "invalid end state"
        start = "; ".join(f"if :: {op()} :: timeout fi" for _ in range(r.randint(0, 2)))
        options = " ".join(f":: {op()}" for _ in range(r.randint(2, 4)))
        rounds = r.randint(1, 3)
        y = r.choice([" = g0", " = g1", " = g2", " = own"])
        lines.append(f"active proctype P{p}() {{ chan own = [{r.choice([0, 1])}] of {{ mtype }}; "
                     f"chan x = {r.choice(['g0', 'g1', 'g2', 'own'])}; chan y{y}; mtype m; byte k; "
                     + (f"{start}; " if start else "")
                     + f"do :: k < {rounds} -> k++; if {options} :: timeout fi :: k >= {rounds} -> break od; "
                     # no process ends: pan deletes an ended process's channels, and an
                     # operation on one is its error, which we miss (reported separately)
                     f"end: false }}")
    return "\n".join(lines) + "\n"


#: marks a ``chan`` variable ``unset`` declares without a channel (``spin_oracle.neutralise``
#: gives it one, so that counts past pan's "ref to uninitialized chan name" are comparable)
UNSET = "/* unset */"


def unset(seed: int) -> str:
    """A random model over two constructs of issue 28: send, receive, poll and ``len``/
    ``empty``/``nempty``/``full``/``nfull`` on ``chan`` variables that may name no channel
    (pan's "ref to uninitialized chan name": declared without one, assigned a channel on
    some paths only, in ``if`` options beside ``else`` or ``timeout``, in ``atomic`` and
    ``d_step``), and ``goto`` with labels inside ``d_step`` (backward loops over a counter
    the d_step resets, forward jumps past statements, labels inside ``if``/``do`` options,
    buffered sends and receives inside).  Each unset declaration carries ``UNSET``."""
    r = random.Random(seed * 53 + 2828)
    caps = {"q0": r.choice([1, 2, 2]), "q1": r.choice([0, 1, 2])}
    lines = ["byte g0, g1;"] + [f"chan {c} = [{k}] of {{ byte }};" for c, k in caps.items()]
    glob = r.random() < 0.5
    if glob:
        lines.append(f"chan u {UNSET};")
    buffered = [c for c, k in caps.items() if k > 0]
    labels = [0]

    def label() -> str:
        labels[0] += 1
        return f"D{labels[0]}"

    def var_op(v: str) -> str:
        k = r.randrange(8)
        if k < 2:
            return f"{v}!{r.choice(['0', '1', 'g0'])}"
        if k < 4:
            return f"{v}?{r.choice(['g0', 'g1', '_', '1'])}"
        if k < 5:
            return f"{v}?[{r.choice(['0', '1'])}] -> {v}?_"
        if k < 6:
            test = r.choice([f"len({v}) > 0", f"len({v}) == 0", f"nempty({v})", f"empty({v})"])
            return f"{test} -> g1 = (g1 + 1) % 3"
        return f"{r.choice(['nfull', 'full'])}({v}) -> {v}!{r.choice(['0', '1'])}"

    def plain(inside: bool = False) -> str:
        """A statement on globals and buffered channels; ``inside`` a d_step, one that
        cannot block (pan stops at a d_step blocking after its first statement)."""
        k = r.randrange(6)
        if k < 3:
            st = r.choice(["g0 = (g0 + 1) % 3", "g1 = (g1 + g0) % 3", "g0 = 0", "g1 < 2", "g0 != g1"])
        elif k < 5 and buffered:
            c = r.choice(buffered)
            st = r.choice([f"nfull({c}) -> {c}!g0", f"nempty({c}) -> {c}?g1", f"{c}!1", f"{c}?_"])
        else:
            return r.choice(["skip", "assert(g0 < 3)", "assert(g1 != 2 || g0 < 3)"])
        return f"if :: {st} :: else fi" if inside and not st.startswith("g0 =") and not st.startswith("g1 =") else st

    def dstep(v: str, may_var: bool) -> str:
        """A d_step with gotos and labels inside (never on its first statement: Spin's
        "label placed incorrectly"), over a counter ``j`` it resets first."""
        a, b = label(), label()
        inner = [plain(True) for _ in range(r.randint(1, 2))]
        if may_var and r.random() < 0.3:  # an operation on v inside the d_step
            # (only buffered channels may be named inside it: no rendezvous inside d_step)
            inner.append(f"if :: {var_op(v)} :: else fi")
        shape = r.randrange(4)
        if shape == 0:  # a backward loop written with goto
            body = f"j = 0; {a}: j++; {'; '.join(inner)}; if :: j < {r.randint(1, 3)} -> goto {a} :: else fi"
        elif shape == 1:  # a forward jump past a statement
            body = (f"j = 0; if :: g0 == {r.randint(0, 2)} -> goto {a} :: else fi; {'; '.join(inner)}; "
                    f"{a}: g1 = (g1 + 1) % 3")
        elif shape == 2:  # a label inside a do option, a break after it
            body = (f"j = 0; do :: j < {r.randint(1, 3)} -> j++; {a}: {inner[0]} :: else -> break od; "
                    f"{'; '.join(inner[1:] or ['skip'])}")
        else:  # a jump back into the middle, out of an if option
            body = (f"j = 0; g0 = (g0 + 1) % 3; {a}: j++; if :: j < 2 -> {inner[0]}; goto {a} "
                    f":: else -> goto {b} fi; {'; '.join(inner)}; {b}: skip")
        return f"d_step {{ {body} }}"

    def stmt(v: str) -> str:
        k = r.randrange(10)
        if k < 3:
            opts = [f":: {var_op(v)}" for _ in range(r.randint(1, 2))] + [f":: {plain()}"]
            if r.random() < 0.7:
                opts.append(r.choice([":: else", ":: timeout", ":: else -> g0 = 1"]))
            return "if " + " ".join(opts) + " fi"
        if k < 4:
            return r.choice([f"{v} = q0", f"{v} = q1", f"if :: {v} = q0 :: g0 > 0 -> {v} = q1 :: skip fi"])
        if k < 6:
            return dstep(v, may_var=v_buffered[0])
        if k < 7:
            return f"atomic {{ {plain()}; {var_op(v)} }}"
        if k < 8:
            return var_op(v)
        return plain()

    v_buffered = [False]
    procs = r.randint(2, 3)
    for p in range(procs):
        v = "u" if glob and r.random() < 0.6 else "v"
        decl = "byte k, j; " + ("" if v == "u" else f"chan v {UNSET}; ")
        # an operation on v inside a d_step only where v may name buffered channels alone
        v_buffered[0] = caps["q1"] > 0
        body = [stmt(v) for _ in range(r.randint(2, 4))]
        if r.random() < 0.5:  # a channel on some paths (pan's error on the others)
            body.insert(0, r.choice([f"{v} = q0", f"{v} = q1", f"if :: {v} = q0 :: {v} = q1 :: g0 == 1 fi",
                                     f"if :: {v} = q1 :: else fi"]))
        loop = r.random() < 0.5
        text = "; ".join(body)
        if loop:
            text = f"do :: k < 1 -> {text}; k++ :: else -> break od"
        n = 2 if p == 0 and r.random() < 0.3 else 1
        lines.append(f"active [{n}] proctype P{p}() {{ {decl}{text} }}")
    return "\n".join(lines) + "\n"


def timed_claimed(seed: int, reverse: bool = False) -> str:
    """``spin_claimed(seed)`` with ``timeout`` in its never claim (issue 28; a stream of its
    own): options ``timeout``, ``timeout -> goto`` a later state or the end (a violation),
    ``timeout`` in a conjunction, beside the claim's ``else`` (which pan tries first with
    the timeout bit off: both may move) and ``d_step { c1 -> c2 }`` options of conditions.
    Half the models have no ``timeout`` in the processes (pan then compiles no timeout code
    and the claim's ``timeout`` never holds).  ``reverse``: each claim state's options in
    reverse order (``spin_claimed``)."""
    import re

    r = random.Random(seed * 7331 + 28)
    text = spin_claimed(seed, reverse)
    head, claim = text.split("never {", 1)
    if r.random() < 0.5:  # no timeout in the system
        head = head.replace("atomic { timeout -> ", "atomic { g1 < 2 -> ").replace(
            ":: timeout -> g1 = n", ":: g1 == n -> g1 = n").replace(":: timeout -> n++", ":: g0 < 3 -> n++")
    labels = re.findall(r"\b(S\d|accept_s|E\d):", claim)
    out = []
    for part in claim.split(" od"):
        if "do " in part and r.random() < 0.8:
            later = [lb for lb in labels if lb.startswith("E")] + labels[1:]
            option = r.choice([":: timeout", f":: timeout -> goto {r.choice(later)}" if later else ":: timeout",
                               ":: (timeout && g0 < 2)", ":: (timeout || g1 == 1) -> skip",
                               f":: d_step {{ g0 < 2 -> g1 != 1 }}", ":: d_step { timeout -> g0 == 0 }"])
            part = part.replace("do ", f"do {option} ", 1) if reverse else part + " " + option
        out.append(part)
    return head + "never {" + " od".join(out)


def deleted(seed: int) -> str:
    """A random model over channels pan deletes with their process (issue 28; pan's
    ``delq``): processes of one proctype ``Own``, created by ``run`` (also by each other,
    and again after earlier ones were removed, so channel numbers are reused), fill a local
    channel -- a plain one or a record's ``chan`` field -- send it through ``hub`` and end;
    readers keep the ``chan`` value and apply every operation to it (``len``, ``empty``,
    ``nempty``, ``full``, ``nfull``, polls ``?[ ]``/``??[ ]`` of a value or a variable,
    receives ``?``/``??``/``?<>``, sends), sometimes after waiting for the owner's removal
    (``_nr_pr``), mostly as ``if`` options beside ``timeout`` or ``else``.  Models declare
    buffered channels only, both kinds, or rendezvous channels only (pan tests a deleted
    queue differently in each: ``tests/test_promela_deleted.py``).  Every process above the
    readers is an ``Own``: pan lays processes and queues out in creation order, so a deleted
    queue's bytes then lie past the live ones and read as zero (a process of another size
    created in its place would make pan read that process's bytes: README)."""
    r = random.Random(seed * 7919 + 2828)
    mode = r.choice(["buffered", "buffered", "both", "rendezvous"])
    cap = (lambda: 0) if mode == "rendezvous" else (lambda: r.choice([1, 1, 2]))  # noqa: E731
    record = r.random() < 0.35
    lines = ["byte g0;"]
    if record:
        lines.append(f"typedef R {{ byte b; chan c = [{cap()}] of {{ byte }} }};")
    lines.append(f"chan hub = [{0 if mode == 'rendezvous' else r.choice([1, 2])}] of {{ chan }};")
    if mode == "both":
        lines.append("chan rg = [0] of { byte };")
    sent = "rr.c" if record and r.random() < 0.7 else "mine"
    fills = []
    if mode != "rendezvous":
        for _ in range(r.randint(0, 2)):
            fills.append(r.choice([f"{sent}!k", f"{sent}!g0", f"nfull({sent}) -> {sent}!1", "g0 = k",
                                   f"if :: {sent}!2 :: skip fi"]))
    spawn = r.random() < 0.4
    own = [f"chan mine = [{cap()}] of {{ byte }}"] + (["R rr"] if record else []) + ["byte v"]
    body = fills + [("end: " if mode == "rendezvous" and r.random() < 0.5 else "") + f"hub!{sent}"]
    if spawn:
        body.insert(r.randrange(len(body) + 1), "if :: k > 0 -> run Own(k - 1) :: else fi")
    if mode != "rendezvous" and r.random() < 0.4:
        body.append(r.choice(["mine?v", f"{sent}?[v] -> {sent}?v", "g0 = len(mine)"]))
        body[-1] = f"if :: {body[-1]} :: timeout fi"
    lines.append(f"proctype Own(byte k) {{ {'; '.join(own)}; {'; '.join(body)} }}")

    def op(c: str) -> str:
        fatal = [f"full({c})", f"nfull({c}) -> {c}!1", f"{c}!g0", f"{c}??[1]", f"{c}??[eval(g0)]"]
        safe = [f"len({c}) == 0", f"len({c}) > 0 -> {c}?v", f"empty({c})", f"nempty({c}) -> {c}?_",
                f"{c}?v", f"{c}??v", f"{c}?<v>", f"{c}??[v]", f"{c}?[v] -> g0 = v", f"{c}?[1]", f"{c}?2",
                f"g0 = len({c})", f"assert(len({c}) < 3)", f"{c}??2"]
        if mode != "buffered" and r.random() < 0.85:
            # pan tests a deleted queue's type (``q_zero``) before a poll or receive once a
            # rendezvous channel is declared: "bad queue", which stops its search
            safe = [f"len({c}) == 0", f"empty({c})", f"nempty({c}) -> {c}?_", f"g0 = len({c})"] + (
                [f"{c}?v", f"{c}??v"] if mode == "rendezvous" else [])
        return r.choice(fatal) if r.random() < 0.06 else r.choice(safe)

    def ops(c: str) -> list[str]:
        out = []
        for _ in range(r.randint(1, 3)):
            options = [f":: {op(c)}" for _ in range(r.randint(1, 2))]
            out.append("if " + " ".join(options) + f" {r.choice([':: timeout', ':: timeout', ':: else'])} fi")
        return out

    second = r.random() < 0.3
    readers = 2 if second else 1
    steps = [f"run Own({r.randint(0, 1)})"]
    if r.random() < 0.4:
        steps.append(f"run Own({r.randint(0, 1)})")
    steps.append("hub?x")
    if r.random() < 0.6:
        steps.append(f"(_nr_pr == {readers})")  # its owner removed
    steps += ops("x")
    if r.random() < 0.5:  # another owner, after the first was removed: its channel may take x's number
        steps += [f"(_nr_pr == {readers})", "run Own(0)", *ops("x"),
                  r.choice(["hub?y", "if :: hub?y :: timeout fi"]), *ops("y")]
    head = "init" if r.random() < 0.3 else "active proctype Rd()"
    lines.append(f"{head} {{ chan x, y; byte v; {'; '.join(steps)} }}")
    if second:
        lines.append(f"active proctype Rd2() {{ chan z; byte v; end: do :: hub?z -> {'; '.join(ops('z'))} od }}")
    return "\n".join(lines) + "\n"


def creating(seed: int) -> str:
    """A random model whose processes create processes in an order that varies (issue 28's
    pid analysis, ``frontends/promela/pids.py``): proctypes ``X0 .. X3``, each run only by
    the active roots and by lower-numbered ones (so recursion is bounded), inside or
    outside ``atomic``, after steps that may block inside it (a guard, a rendezvous or
    buffered send or receive, a ``provided`` clause), after an ``if`` with ``else``, in
    both options of an ``if``, in a bounded loop, under ``unless``; processes end (pids
    and channel numbers are reused), wait at an end label, or loop there for good.  Pids and channel
    numbers are stored in globals (``p = run``, ``_pid``, ``held = mine``), so states
    where they differ are told apart.  At most 8 processes run at once (``--max-procs``'
    default): the worst case, every run taken, is counted before a model is returned."""
    r = random.Random(seed * 59 + 2833)
    while True:
        text, size = _creating(r)
        if size <= 8:
            return text


def _creating(r: random.Random) -> tuple[str, int]:
    """One draw of ``creating``: the model and the most processes it may have at once."""
    n = r.randint(2, 4)
    lines = ["byte g0, g1, p0, p1, p2;", f"chan k = [{r.choice([0, 0, 1])}] of {{ byte }};", "chan held;"]
    size: dict[int, int] = {}  # processes an Xi may amount to, itself included

    def run(i: int, made: list) -> str:
        j = r.randrange(i + 1, n) if i + 1 < n else None
        if j is None:
            return "g1++"
        made.append(j)
        return r.choice([f"run X{j}()", f"p{r.randrange(3)} = run X{j}()"])

    def blocking(mine: bool) -> str:
        options = ["g0 > 0", "k!_pid", "k?g0", "_nr_pr < 5", "g1 == 0"]
        if mine:
            options.append("mine?[1]")
        return r.choice(options)

    def step(i: int, made: list, mine: bool) -> str:
        kind = r.randrange(10)
        if kind < 4:
            return run(i, made)
        if kind < 6:
            return f"{blocking(mine)} -> {r.choice(['g0 = _pid', 'g1++', 'skip'])}"
        if kind == 6:
            return f"if :: {run(i, made)} :: {r.choice(['g0 = 1', 'skip'])} fi"
        if kind == 7:
            return f"if :: g1 > 0 -> skip :: else -> {run(i, made)} fi"
        if kind == 8 and mine:
            return r.choice(["held = mine", "mine!1", "mine?_"])
        return r.choice(["g0 = _pid", "g1 = (g1 + 1) % 3", "skip"])

    def body(i: int, made: list, mine: bool) -> str:
        out = [] if i >= 0 else [r.choice(["", "atomic { "]) + run(i, made) + "; " + run(i, made)]
        if out and out[0].startswith("atomic"):
            out[0] += " }"
        for _ in range(r.randint(1, 3)):
            seq = "; ".join(step(i, made, mine) for _ in range(r.randint(1, 3)))
            shape = r.randrange(8)
            if shape < 5:
                seq = f"atomic {{ {seq} }}"
            elif shape == 5:
                before = len(made)
                inner = step(i, made, mine)
                made.extend(made[before:])  # the loop below runs it twice
                seq = f"do :: v < 2 -> v++; {inner} :: else -> break od"
            elif shape == 6:
                seq = f"{{ {seq} }} unless {{ g0 == 3 -> {run(i, made)} }}"
            out.append(seq)
        ending = r.random()
        if ending < 0.2:
            out.append(f"end: {blocking(False)} -> skip")
        elif ending < 0.7:  # never ends, whatever the data: its pid stays in use
            out.append("end: do :: g0 == 9 od")
        return "; ".join(out)

    procs = []
    for i in reversed(range(n)):
        mine = r.random() < 0.5
        made: list = []
        text = body(i, made, mine)
        size[i] = 1 + sum(size[j] for j in made)
        provided = f" provided (g0 != {r.randrange(1, 4)})" if r.random() < 0.2 else ""
        local = "chan mine = [1] of { byte }; " if mine else ""
        procs.append(f"proctype X{i}(){provided} {{ {local}byte v; {text} }}")
    lines += reversed(procs)
    roots = r.randint(1, 2)
    total = 0
    for a in range(roots):
        made = []
        text = body(-1, made, False)
        total += 1 + sum(size[j] for j in made)
        lines.append(f"active proctype R{a}() {{ byte v; {text} }}")
    return "\n".join(lines) + "\n", total
