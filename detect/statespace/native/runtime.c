/* symdetect native explorer: the model-independent part (see detect/statespace/native/__init__.py).
 *
 * The generated prelude before this text defines NSLOTS, NWORDS, NCOND, NINIT_SLOTS and the
 * model functions after it: model_successors, model_terminal, model_condition, pack, unpack,
 * init_value, INIT_COUNT.
 *
 * Workers.  The states are hash-partitioned over nworkers workers: worker w owns the states
 * whose hash maps to w (owner_of), and only w ever touches its packed states (in discovery
 * order, so its array is also its queue: states[expanded..count) is its frontier), their
 * parent ids and its open-addressing visited table.  A state's global id is
 * local * nworkers + w.  The search is level-synchronous breadth first, in rounds: in phase 1
 * every worker expands up to a round's share of its states of the current level, inserting
 * the successors it owns and routing the others to their owner's box; in phase 2 every worker
 * inserts what was routed to it; then one thread merges the round's findings (deadlocks,
 * faults, decided conditions) in worker order and decides whether the level, the slice or the
 * search is over.  Levels never mix, so parents are at the least depth (shortest traces), and
 * the run is deterministic for a given nworkers: each worker's order depends only on the
 * boxes' contents, never on timing.  With one worker there are no boxes and no threads: this
 * is a plain breadth-first search.
 *
 * Memory.  What a worker holds per state: its NBYTES packed bytes and its parent's 32-bit id,
 * in chunks of CHUNK states (chunk 0 doubles up to CHUNK first, so small runs stay small and
 * large ones waste less than a chunk), and a 32-bit slot in the visited table (at most 3/4
 * full, so 4/3 to 8/3 slots a state).  Every allocation of these, of the chunk directory and
 * of the boxes is reserved against mem_limit first (reserve), and a growing table is freed
 * before its successor is allocated (the states rebuild it), so held never counts, and the
 * process never holds, two tables at once.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

typedef int64_t i64;
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint8_t u8;

/* A stored state is the first NBYTES bytes of its packed words (the rest are zero). */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "states are stored as the low bytes of little-endian words"
#endif

#define NONE32 0xFFFFFFFFu

/* The canonicaliser (canon.c, shared with the Spin verifier symdetect spin writes): codegen.py
   puts its text in place of the next line. */
#define CANON_MAX (NSLOTS > 0 ? NSLOTS : 1)
/*@CANON@*/
#define MAXWORKERS 64
/* Partitions of a distributed run (nx_set_partition): one routing box each. */
#define MAXPARTS 256
/* Expansions per worker per round when several work: bounds the boxes (a round's routed
 * successors) and the time between synchronisations. */
#define ROUND 65536
/* A level with fewer states left than this is expanded on one thread (the workers' phases
 * run one after another): three synchronisations per round cost more than such a level. */
#define PARALLEL_MIN 8192
/* A stored state (packed bytes and parent id), and a routed successor (the same). */
#define RECORD_BYTES (NBYTES + sizeof(u32))
/* States per chunk of a worker's state and parent arrays. */
#define CHUNK_BITS 14
#define CHUNK ((size_t)1 << CHUNK_BITS)
/* Chunk 0's first capacity, and the visited table's first slots. */
#define FIRST_CAP 1024
#define FIRST_SLOTS 2048
/* A table slot holds a local index + 1 below the position bits: 2^32 slots at most. */
#define MAX_SLOTS ((size_t)1 << 32)

enum { RC_DONE = 0, RC_MORE = 1, RC_TRUNCATED = 2, RC_OVERFLOW = 3, RC_MEMORY = 4,
       RC_NOT_A_SYMMETRY = 5, RC_MEMORY_LIMIT = 6, RC_TOO_MANY = 7, RC_UNDECIDED = 8 };

typedef struct {
    u32 *items;
    size_t n, cap;
} Vec32;

typedef struct {
    u8 *items;            /* n entries of RECORD_BYTES: packed state, parent id */
    size_t n, cap;
} Box;

struct Ctx;

typedef struct Worker {
    struct Ctx *ctx;
    int id;
    u8 **chunk;           /* local state i: NBYTES at chunk[i / CHUNK] + (i % CHUNK) * NBYTES */
    u32 **pchunk;         /* its parent's global id, NONE32 for initial states: same layout */
    size_t nchunks;       /* directory entries (chunk, pchunk) allocated */
    size_t count, cap;    /* states stored, and room for states in the chunks */
    u32 *table;           /* 0 empty, else table_entry(hash, local index) */
    size_t tmask;
    size_t expanded;      /* local states before this one are expanded */
    size_t level_end;     /* local states before this one are of the current level or earlier */
    u64 transitions;
    /* successors of the state being expanded */
    u64 *succ;
    u64 *succ_hash;
    int32_t *succ_summand; /* the summand that made each successor (the weakly fair search) */
    size_t nsucc, succ_cap;
    int summand;          /* the summand whose instance model_successors is running */
    u64 fault_procs;      /* FAIR_FIRST_BIT of every summand instance that faulted */
    u32 *dedup;           /* local table of successor positions + 1 */
    size_t dedup_cap;
    int fault;            /* bits: 1 an instance faulted, 2 one was cut at a bound of ours */
    int ovf;
    u64 *gimg;            /* scratch: images of the successors */
    size_t gimg_cap;
    /* found in this round (global ids, in expansion order); merged by the round's end */
    Vec32 deadlocks, terminals, faults, bounds;  /* bounds: cut at a bound of ours, no fault */
    i64 decided[NCOND > 0 ? NCOND : 1];
    int truncated, mem_limited, error;   /* error: RC_OVERFLOW, RC_MEMORY, RC_NOT_A_SYMMETRY, RC_TOO_MANY
                                          * or RC_UNDECIDED */
    u32 bad_state;
    int bad_gen;
    size_t round;         /* expansions allowed in this round */
    size_t did;           /* expansions made in this round */
    double cpu;           /* this thread's CPU seconds in this round's phases */
    Box out[MAXPARTS];    /* successors routed to each other worker (or partition) in this round */
} Worker;

typedef struct Ctx {
    int nworkers;
    /* A partition of a distributed run (nx_set_partition; nparts 0: none): this context
     * (one worker) owns the states whose hash falls to part of nparts; successors owned by
     * another partition go to the box out[owner] for the caller to deliver (nx_part_*). */
    int part, nparts;
    Worker *w;
    u64 limit;            /* states, all workers */
    u64 mem_limit;        /* bytes all workers' states, parents, tables and boxes may take */
    u64 total;            /* states stored (atomic while workers run) */
    u64 held;             /* bytes held (atomic while workers run) */
    int truncated, mem_limited;
    u64 initial;
    Vec32 deadlocks, terminals;
    u64 nfaults, nbounds;
    u32 first_faults[16], first_bounds[16];
    i64 decided[NCOND > 0 ? NCOND : 1];
    /* initial-state odometer */
    int init_started, init_done;
    u64 init_seq;         /* initial states enumerated so far (a partition takes every nparts-th) */
    u32 init_pos[NINIT_SLOTS > 0 ? NINIT_SLOTS : 1];
    i64 scratch[NSLOTS > 0 ? NSLOTS : 1];
    u64 wscratch[NWORDS];
    /* symmetry reduction (sorting fast path): nblocks blocks of blen slots */
    int nblocks, blen;
    int32_t *blocks;
    /* symmetry reduction (S_m permuting pids, canonicalise_pids): pid q owns the slots
     * pid_blocks[q * pid_len ..], in key order; pid_fixed are the slots the group fixes that
     * hold pids, in key order (they come first in the key) */
    int pid_m, pid_len, pid_nfixed;
    int32_t *pid_blocks;
    int32_t *pid_fixed;
    int32_t *pid_labelled; /* NSLOTS: 1 when the slot holds pid values */
    int32_t *pid_label;    /* per point (poff[k] + slot_index(k, v)): the pid v names, or -1 */
    i64 *pid_value;        /* NSLOTS * pid_m: the value of slot k naming pid q */
    /* every element (canon_elements, nx_set_elements), owned here */
    int32_t *el_src, *el_map, *el_order, *map_len, *map_off;
    i64 *map_lo, *map_tab;
    /* the canonicaliser's view of the tables above (canon.c) */
    Canon canon;
    /* symmetry reduction by a C function of another library (nx_set_external): replaces the
     * slot values by the representative, nonzero when it cannot */
    int (*ext_canon)(void *, i64 *);
    void *ext_ctx;
    /* attach(ext_ctx, nx_account, ctx) counts the canonicaliser's memory in this run's budget;
     * attach(ext_ctx, NULL, NULL) at nx_free stops it (NULL: it has none to count) */
    void (*ext_attach)(void *, void *, void *);
    /* generators checked on every expanded state: target slot and value per (slot, index) */
    int ngens;
    int32_t *gtarget;     /* ngens * NSLOTS */
    i64 *gvalue;          /* ngens * npoints */
    int32_t *poff;        /* NSLOTS: first point of each slot */
    int npoints;
    int bad_gen;
    u32 bad_state;
    /* one nx_run call */
    u64 budget;           /* expansions left in this call */
    int verdict;          /* -1 go on, else what nx_run returns */
    int small_level;      /* the level has fewer than parallel_min states left */
    u64 level;            /* the BFS level being expanded (initial states: 0) */
    u64 parallel_min;     /* PARALLEL_MIN, unless nx_set_parallel_min said otherwise */
    /* CPU seconds of the phases: in all, and along the critical path (a parallel round
     * costs its slowest worker, a serial one the sum): their ratio is the speed-up the
     * workers would give with a core each, whatever else the machine runs. */
    double cpu_total, cpu_critical;
    pthread_barrier_t barrier;
    int barrier_ready;
    /* the threads of one nx_run wait at this gate until all exist (abort: not all could) */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate;
    int gate_open, abort;
} Ctx;

static i64 slot_index(int k, i64 v);

static int model_successors(const i64 *s, Worker *c);
static int model_terminal(const i64 *s, int *ovf);
static int model_condition(int i, const i64 *s, int *ovf);
static void pack(const i64 *t, u64 *w);
static void unpack(const u64 *w, i64 *t);
static int fair_pred(int k, const i64 *s, int *ovf);

static i64 canon_slot_index(int k, i64 v) { return slot_index(k, v); }

/* The representative of t's orbit, in place (when a reduction is set); nonzero when the
   external canonicaliser could not decide. */
static int canonicalise(const Ctx *c, i64 *t) {
    if (canon_reduces(&c->canon)) canon_apply(&c->canon, t);
    else if (c->ext_canon) return c->ext_canon(c->ext_ctx, t);
    return 0;
}

static int reduces(const Ctx *c) { return canon_reduces(&c->canon) || c->ext_canon; }

static void apply_generator(const Ctx *c, int g, const i64 *s, i64 *out) {
    const int32_t *tg = c->gtarget + (size_t)g * NSLOTS;
    const i64 *val = c->gvalue + (size_t)g * c->npoints;
    for (int k = 0; k < NSLOTS; k++) out[tg[k]] = val[c->poff[k] + slot_index(k, s[k])];
}

static inline u64 mix64(u64 h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static inline u64 hash_words(const u64 *w) {
    u64 h = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < NWORDS; i++) h = mix64(h ^ w[i]) + 0x9e3779b97f4a7c15ULL * (u64)(i + 1);
    return h ? h : 1;
}

/* The worker owning a state: the hash's high half scaled to [0, n).  The table position uses
 * the low bits, so the two stay independent. */
static inline int owner_of(u64 h, int n) {
    return n == 1 ? 0 : (int)(((h >> 32) * (u64)n) >> 32);
}

/* Ids are interleaved: local * stride + offset, over workers (or partitions). */
static inline size_t id_stride(const Ctx *c) { return c->nparts ? (size_t)c->nparts : (size_t)c->nworkers; }

static inline u32 global_id(const Worker *w, size_t local) {
    const Ctx *c = w->ctx;
    return (u32)(local * id_stride(c) + (size_t)(c->nparts ? c->part : w->id));
}

/* Where a state of hash h goes from worker w: -1 it is w's own, else the box index. */
static inline int route(const Worker *w, u64 h) {
    const Ctx *c = w->ctx;
    if (c->nparts) {
        int o = owner_of(h, c->nparts);
        return o == c->part ? -1 : o;
    }
    int o = owner_of(h, c->nworkers);
    return o == w->id ? -1 : o;
}

/* ---------------------------------------------------------------- memory accounting */

/* Reserve want bytes, or (unit > 0) as many whole units of them as fit below mem_limit;
 * returns the bytes reserved, 0 when nothing fits. */
static u64 reserve(Ctx *c, u64 want, u64 unit) {
    u64 cur = __atomic_load_n(&c->held, __ATOMIC_RELAXED);
    for (;;) {
        u64 room = c->mem_limit > cur ? c->mem_limit - cur : 0;
        u64 got = want <= room ? want : unit ? room / unit * unit : 0;
        if (got == 0) return 0;
        if (__atomic_compare_exchange_n(&c->held, &cur, cur + got, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return got;
    }
}

static void release(Ctx *c, u64 bytes) {
    __atomic_sub_fetch(&c->held, bytes, __ATOMIC_RELAXED);
}

/* Append x to a list of found states, its growth reserved like the states'.  Returns 0, -2
 * out of memory, -3 the limit is reached. */
static int vec_push(Ctx *c, Vec32 *v, u32 x) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        u64 bytes = (u64)(cap - v->cap) * sizeof(u32);
        if (!reserve(c, bytes, 0)) return -3;
        u32 *p = realloc(v->items, cap * sizeof(u32));
        if (!p) { release(c, bytes); return -2; }
        v->items = p;
        v->cap = cap;
    }
    v->items[v->n++] = x;
    return 0;
}

/* vec_push for a worker: the memory limit stops it (noted); returns 0 or RC_MEMORY. */
static int note(Worker *w, Vec32 *v, u32 id) {
    int r = vec_push(w->ctx, v, id);
    if (r == -3) w->mem_limited = 1;
    return r == -2 ? RC_MEMORY : 0;
}

/* Called by the generated successor code for each successor (unpacked) t. */
static int emit(Worker *c, const i64 *t) {
    if (c->nsucc == c->succ_cap) {
        size_t cap = c->succ_cap ? c->succ_cap * 2 : 64;
        u64 *p = realloc(c->succ, cap * NWORDS * sizeof(u64));
        if (!p) return -1;
        c->succ = p;
        u64 *q = realloc(c->succ_hash, cap * sizeof(u64));
        if (!q) return -1;
        c->succ_hash = q;
        int32_t *r = realloc(c->succ_summand, cap * sizeof(int32_t));
        if (!r) return -1;
        c->succ_summand = r;
        c->succ_cap = cap;
    }
    u64 *w = c->succ + c->nsucc * NWORDS;
    pack(t, w);
    c->succ_hash[c->nsucc] = hash_words(w);
    c->succ_summand[c->nsucc] = c->summand;
    c->nsucc++;
    return 0;
}

static inline u8 *state_at(const Worker *w, size_t i) {
    return w->chunk[i >> CHUNK_BITS] + (i & (CHUNK - 1)) * NBYTES;
}

static inline u32 *parent_at(const Worker *w, size_t i) {
    return w->pchunk[i >> CHUNK_BITS] + (i & (CHUNK - 1));
}

/* The packed words of a stored state.  Whole words are stored whole and the last one is
 * assembled in a register: a word load spanning a zeroed word and a few bytes just stored
 * over it cannot be forwarded from the stores and waits until they retire, and so until the
 * cache misses before them resolve (that made rebuilding a large table 3x slower). */
static inline void load_state(const u8 *b, u64 *words) {
    for (int k = 0; k < NWORDS - 1; k++) memcpy(&words[k], b + 8 * k, 8);
    u64 last = 0;
    for (int i = 0; i < NBYTES - 8 * (NWORDS - 1); i++) last |= (u64)b[8 * (NWORDS - 1) + i] << (8 * i);
    words[NWORDS - 1] = last;
}

/* The table slot of local index i (i + 1 <= tmask) for hash h: the hash bits above the
 * position's bits (a tag that spares most comparisons of states), then i + 1. */
static inline u32 table_entry(u64 h, size_t i, size_t tmask) {
    return ((u32)h & ~(u32)tmask) | (u32)(i + 1);
}

/* Double the table.  The old one is freed first and the states rebuild the new one, so the
 * two never coexist; only the difference is reserved.  Returns 0, -2 out of memory (the
 * worker then has no table: the run is over), -3 over the limit, -4 past MAX_SLOTS. */
static int grow_table(Worker *w) {
    size_t old = w->tmask + 1, slots = old * 2;
    if (slots > MAX_SLOTS) return -4;
    if (!reserve(w->ctx, (u64)(slots - old) * sizeof(u32), 0)) return -3;
    free(w->table);
    w->table = calloc(slots, sizeof(u32));
    if (!w->table) { w->tmask = 0; release(w->ctx, (u64)slots * sizeof(u32)); return -2; }
    w->tmask = slots - 1;
    u64 words[NWORDS];
    for (size_t i = 0; i < w->count; i++) {
        load_state(state_at(w, i), words);
        u64 h = hash_words(words);
        size_t pos = h & w->tmask;
        while (w->table[pos]) pos = (pos + 1) & w->tmask;
        w->table[pos] = table_entry(h, i, w->tmask);
    }
    return 0;
}

/* Room for at least one more state in the chunks: chunk 0 doubles up to CHUNK states, later
 * chunks hold CHUNK; either takes what is left below the limit when that is less.  Returns
 * 0, -2 out of memory, -3 the limit is reached. */
static int add_capacity(Worker *w) {
    size_t ci = w->cap >> CHUNK_BITS, have = w->cap - (ci << CHUNK_BITS);
    if (ci == w->nchunks) {  /* the directory doubles */
        size_t n = w->nchunks * 2;
        u64 bytes = (u64)(n - w->nchunks) * 2 * sizeof(void *);
        if (!reserve(w->ctx, bytes, 0)) return -3;
        u8 **c = realloc(w->chunk, n * sizeof(u8 *));
        if (c) w->chunk = c;
        u32 **pc = c ? realloc(w->pchunk, n * sizeof(u32 *)) : NULL;
        if (!pc) { release(w->ctx, bytes); return -2; }
        w->pchunk = pc;
        for (size_t i = w->nchunks; i < n; i++) w->chunk[i] = NULL, w->pchunk[i] = NULL;
        w->nchunks = n;
    }
    size_t want = ci == 0 ? (have * 2 < CHUNK ? have * 2 : CHUNK) : CHUNK;
    u64 got = reserve(w->ctx, (u64)(want - have) * RECORD_BYTES, RECORD_BYTES);
    if (!got) return -3;
    size_t cap = have + (size_t)(got / RECORD_BYTES);
    u8 *st = realloc(w->chunk[ci], cap * NBYTES);
    if (st) w->chunk[ci] = st;
    u32 *pa = st ? realloc(w->pchunk[ci], cap * sizeof(u32)) : NULL;
    if (!pa) { release(w->ctx, got); return -2; }
    w->pchunk[ci] = pa;
    w->cap = (ci << CHUNK_BITS) + cap;
    return 0;
}

/* Room for one more state within mem_limit: in the chunks, and in the table, which doubles
 * past load 3/4 (or, when doubling would pass the limit, fills up to load 7/8).  Returns 0,
 * -2 out of memory, -3 the limit is reached, -4 too many states for 32-bit slots. */
static int make_room(Worker *w) {
    if (w->count == w->cap) {
        int r = add_capacity(w);
        if (r) return r;
    }
    size_t slots = w->tmask + 1;
    if ((w->count + 1) * 4 > slots * 3) {
        int r = grow_table(w);
        if (r == -2) return -2;
        if (r && (w->count + 1) * 8 > slots * 7) return r;
    }
    return 0;
}

/* Local index of state s (hash h) in w, inserting it with parent p when new and room remains.
 * Returns the index, -1 when new but the state limit is reached, -2 out of memory, -3 when
 * new but the memory limit is reached, -4 when new but past 32-bit state ids. */
static int64_t lookup_insert(Worker *w, const u64 *s, u64 h, u32 p) {
    Ctx *c = w->ctx;
    size_t pos = h & w->tmask;
    u32 tagmask = ~(u32)w->tmask, tag = (u32)h & tagmask;
    for (;;) {
        u32 e = w->table[pos];
        if (!e) break;
        if ((e & tagmask) == tag) {
            size_t i = (size_t)(e & (u32)w->tmask) - 1;
            if (memcmp(state_at(w, i), s, NBYTES) == 0) return (int64_t)i;
        }
        pos = (pos + 1) & w->tmask;
    }
    if (__atomic_add_fetch(&c->total, 1, __ATOMIC_RELAXED) > c->limit) {
        __atomic_sub_fetch(&c->total, 1, __ATOMIC_RELAXED);
        return -1;
    }
    /* global ids are 32-bit, NONE32 excluded */
    int r = (u64)(w->count + 1) * (u64)id_stride(c) >= 0xFFFFFFF0ULL ? -4 : 0;
    size_t slots = w->tmask + 1;
    if (!r) r = make_room(w);
    if (r) {
        __atomic_sub_fetch(&c->total, 1, __ATOMIC_RELAXED);
        return r;
    }
    if (w->tmask + 1 != slots) {  /* the table grew: find the free slot again */
        pos = h & w->tmask;
        while (w->table[pos]) pos = (pos + 1) & w->tmask;
    }
    size_t i = w->count++;
    memcpy(state_at(w, i), s, NBYTES);
    *parent_at(w, i) = p;
    w->table[pos] = table_entry(h, i, w->tmask);
    return (int64_t)i;
}

/* Insert into w and note a stop (state or memory limit); returns 0, RC_MEMORY or RC_TOO_MANY. */
static int insert_noting(Worker *w, const u64 *s, u64 h, u32 p) {
    int64_t r = lookup_insert(w, s, h, p);
    if (r == -1) w->truncated = 1;
    else if (r == -3) w->mem_limited = 1;
    return r == -2 ? RC_MEMORY : r == -4 ? RC_TOO_MANY : 0;
}

/* Route the packed state s with parent id p to another worker; returns 0 or RC_MEMORY. */
static int box_push(Worker *w, Box *b, const u64 *s, u32 p) {
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        u64 bytes = (u64)(cap - b->cap) * RECORD_BYTES;
        if (!reserve(w->ctx, bytes, 0)) { w->mem_limited = 1; return 0; }
        u8 *q = realloc(b->items, cap * RECORD_BYTES);
        if (!q) { release(w->ctx, bytes); return RC_MEMORY; }
        b->items = q;
        b->cap = cap;
    }
    u8 *e = b->items + b->n * RECORD_BYTES;
    memcpy(e, s, NBYTES);
    memcpy(e + NBYTES, &p, sizeof(u32));
    b->n++;
    return 0;
}

/* ---------------------------------------------------------------- context */

/* The first allocations, counted in held but not checked against the limit (~15 KB). */
static int worker_init(Ctx *c, Worker *w, int id) {
    w->ctx = c;
    w->id = id;
    w->nchunks = 1;
    w->chunk = calloc(1, sizeof(u8 *));
    w->pchunk = calloc(1, sizeof(u32 *));
    if (!w->chunk || !w->pchunk) return -1;
    w->cap = FIRST_CAP;
    w->chunk[0] = malloc(FIRST_CAP * NBYTES);
    w->pchunk[0] = malloc(FIRST_CAP * sizeof(u32));
    w->tmask = FIRST_SLOTS - 1;
    w->table = calloc(FIRST_SLOTS, sizeof(u32));
    for (int i = 0; i < (NCOND > 0 ? NCOND : 1); i++) w->decided[i] = -1;
    c->held += 2 * sizeof(void *) + (u64)FIRST_CAP * RECORD_BYTES + (u64)FIRST_SLOTS * sizeof(u32);
    return w->chunk[0] && w->pchunk[0] && w->table ? 0 : -1;
}

static void worker_free(Worker *w) {
    for (size_t i = 0; i < w->nchunks; i++) {
        if (w->chunk) free(w->chunk[i]);
        if (w->pchunk) free(w->pchunk[i]);
    }
    free(w->chunk); free(w->pchunk); free(w->table); free(w->succ); free(w->succ_hash); free(w->succ_summand);
    free(w->dedup); free(w->gimg);
    free(w->deadlocks.items); free(w->terminals.items); free(w->faults.items); free(w->bounds.items);
    for (int i = 0; i < MAXPARTS; i++) free(w->out[i].items);
}

void nx_free(void *p) {
    Ctx *c = p;
    if (!c) return;
    if (c->ext_attach) c->ext_attach(c->ext_ctx, NULL, NULL);
    if (c->w)
        for (int i = 0; i < c->nworkers; i++) worker_free(&c->w[i]);
    free(c->w);
    if (c->barrier_ready) {
        pthread_barrier_destroy(&c->barrier);
        pthread_mutex_destroy(&c->gate_lock);
        pthread_cond_destroy(&c->gate);
    }
    free(c->deadlocks.items); free(c->terminals.items);
    free(c->blocks); free(c->gtarget); free(c->gvalue); free(c->poff);
    free(c->pid_blocks); free(c->pid_fixed); free(c->pid_labelled); free(c->pid_label);
    free(c->pid_value);
    free(c->el_src); free(c->el_map); free(c->el_order); free(c->map_len); free(c->map_off);
    free(c->map_lo); free(c->map_tab);
    free(c);
}

void *nx_new(u64 limit, u64 mem_limit, int nworkers) {
    Ctx *c = calloc(1, sizeof(Ctx));
    if (!c) return NULL;
    if (nworkers < 1) nworkers = 1;
    if (nworkers > MAXWORKERS) nworkers = MAXWORKERS;
    c->nworkers = nworkers;
    c->limit = limit;
    c->mem_limit = mem_limit;
    c->parallel_min = PARALLEL_MIN;
    for (int i = 0; i < (NCOND > 0 ? NCOND : 1); i++) c->decided[i] = -1;
    c->w = calloc((size_t)nworkers, sizeof(Worker));
    if (!c->w) { nx_free(c); return NULL; }
    for (int i = 0; i < nworkers; i++)
        if (worker_init(c, &c->w[i], i)) { nx_free(c); return NULL; }
    if (nworkers > 1) {
        if (pthread_barrier_init(&c->barrier, NULL, (unsigned)nworkers)) { nx_free(c); return NULL; }
        pthread_mutex_init(&c->gate_lock, NULL);
        pthread_cond_init(&c->gate, NULL);
        c->barrier_ready = 1;
    }
    return c;
}

/* Enumerate up to budget initial states (product of the init sets, last slot fastest), each
 * to its owner.  Returns RC_DONE when all are enumerated, RC_MORE when more remain,
 * RC_TRUNCATED, RC_MEMORY, RC_MEMORY_LIMIT or RC_TOO_MANY. */
int nx_init(void *p, u64 budget) {
    Ctx *c = p;
    if (c->init_done) return RC_DONE;
    if (!c->init_started) {
        c->init_started = 1;
        memset(c->init_pos, 0, sizeof(c->init_pos));
    }
    while (budget--) {
        /* a partition canonicalises every nparts-th initial state and routes it to its owner */
        if (c->nparts && c->init_seq++ % (u64)c->nparts != (u64)c->part) goto advance;
#ifdef NINIT_STATES
        /* listed initial states: init_pos[0] is the row */
        for (int k = 0; k < NSLOTS; k++) c->scratch[k] = INIT_STATES[(u64)c->init_pos[0] * NSLOTS + k];
#else
        for (int k = 0; k < NSLOTS; k++) c->scratch[k] = init_value(k, c->init_pos[k]);
#endif
        int canon = reduces(c) ? canonicalise(c, c->scratch) : 0;
        if (canon == -4) { c->truncated = c->mem_limited = 1; return RC_MEMORY_LIMIT; }
        if (canon == -2) return RC_MEMORY;
        if (canon) return RC_UNDECIDED;
        pack(c->scratch, c->wscratch);
        u64 h = hash_words(c->wscratch);
        int64_t r;
        if (c->nparts && owner_of(h, c->nparts) != c->part) {
            int bad = box_push(&c->w[0], &c->w[0].out[owner_of(h, c->nparts)], c->wscratch, NONE32);
            if (bad) return bad;
            r = c->w[0].mem_limited ? -3 : 0;
        } else {
            size_t before = c->nparts ? c->w[0].count : 0;
            r = lookup_insert(&c->w[c->nparts ? 0 : owner_of(h, c->nworkers)], c->wscratch, h, NONE32);
            if (c->nparts && c->w[0].count > before) c->initial++;
        }
        if (r == -1) { c->truncated = 1; return RC_TRUNCATED; }
        if (r == -2) return RC_MEMORY;
        if (r == -4) return RC_TOO_MANY;
        if (r == -3) { c->truncated = c->mem_limited = 1; return RC_MEMORY_LIMIT; }
        if (!c->nparts) c->initial = c->total;
    advance:
#ifdef NINIT_STATES
        if (++c->init_pos[0] >= (u32)NINIT_STATES) { c->init_done = 1; break; }
        continue;
#endif
        /* advance the odometer */
        int k = NSLOTS - 1;
        while (k >= 0) {
            if (++c->init_pos[k] < (u32)INIT_COUNT[k]) break;
            c->init_pos[k] = 0;
            k--;
        }
        if (k < 0) { c->init_done = 1; break; }
    }
    if (!c->init_done) return RC_MORE;
    for (int i = 0; i < c->nworkers; i++) c->w[i].level_end = c->w[i].count;
    return RC_DONE;
}

/* ---------------------------------------------------------------- expansion */

/* Returns nonzero on an int64 overflow (the verdict would be unreliable). */
static int check_conditions(Worker *w, u32 id, const i64 *s) {
    const Ctx *c = w->ctx;
    int ovf = 0;
    for (int i = 0; i < NCOND; i++) {
        if (c->decided[i] >= 0 || w->decided[i] >= 0 || COND_WANT[i] < 0) continue;
        int r = model_condition(i, s, &ovf);
        if (ovf) return 1;
        if (r == COND_WANT[i]) w->decided[i] = (i64)id;
    }
    return 0;
}

/* Compact succ[start, start+n) to its distinct entries (first occurrences, in order). */
static size_t dedup(Worker *c, size_t start, size_t n) {
    if (n <= 1) return n;
    size_t need = 4, distinct = 0;
    while (need < 2 * n) need *= 2;
    if (need > c->dedup_cap) {
        free(c->dedup);
        c->dedup = malloc(need * sizeof(u32));
        if (!c->dedup) { c->dedup_cap = 0; return (size_t)-1; }
        c->dedup_cap = need;
    }
    memset(c->dedup, 0, need * sizeof(u32));
    size_t mask = need - 1;
    u64 *base = c->succ + start * NWORDS;
    u64 *hs = c->succ_hash + start;
    for (size_t j = 0; j < n; j++) {
        u64 h = hs[j];
        u64 *w = base + j * NWORDS;
        size_t pos = h & mask;
        int dup = 0;
        while (c->dedup[pos]) {
            size_t o = c->dedup[pos] - 1;
            if (hs[o] == h && memcmp(base + o * NWORDS, w, NWORDS * sizeof(u64)) == 0) { dup = 1; break; }
            pos = (pos + 1) & mask;
        }
        if (dup) continue;
        c->dedup[pos] = (u32)(distinct + 1);
        if (distinct != j) {
            memcpy(base + distinct * NWORDS, w, NWORDS * sizeof(u64));
            hs[distinct] = h;
        }
        distinct++;
    }
    return distinct;
}

/* Each generator g must map the steps of s onto those of g(s): same fault flag and
 * {g(t) : t in succ[0, n)} == successors of g(s).  Returns 0 if all do, g + 1 for the first
 * that does not, -3 on overflow, -4 out of memory. */
static int check_generators(Worker *c, const i64 *s, size_t n) {
    const Ctx *x = c->ctx;
    i64 img[NSLOTS > 0 ? NSLOTS : 1], t[NSLOTS > 0 ? NSLOTS : 1], u[NSLOTS > 0 ? NSLOTS : 1];
    int fault = c->fault;
    if (n > c->gimg_cap) {
        free(c->gimg);
        c->gimg = malloc(n * NWORDS * sizeof(u64));
        if (!c->gimg) { c->gimg_cap = 0; return -4; }
        c->gimg_cap = n;
    }
    for (int g = 0; g < x->ngens; g++) {
        for (size_t j = 0; j < n; j++) {
            unpack(c->succ + j * NWORDS, t);
            apply_generator(x, g, t, u);
            pack(u, c->gimg + j * NWORDS);
        }
        apply_generator(x, g, s, img);
        c->nsucc = n;
        c->fault = 0;
        if (model_successors(img, c)) return c->ovf ? -3 : -4;
        size_t m = dedup(c, n, c->nsucc - n);
        if (m == (size_t)-1) return -4;
        int ok = c->fault == fault && m == n;
        /* both lists are duplicate-free and equally long: inclusion one way suffices */
        for (size_t j = 0; ok && j < n; j++) {
            int found = 0;
            for (size_t q = 0; q < m && !found; q++)
                found = memcmp(c->gimg + j * NWORDS, c->succ + (n + q) * NWORDS, NWORDS * sizeof(u64)) == 0;
            ok = found;
        }
        c->nsucc = n;
        c->fault = fault;
        if (!ok) return g + 1;
    }
    return 0;
}

int nx_set_symmetry(void *p, int nblocks, int blen, const int32_t *blocks, int ngens,
                    const int32_t *gtarget, int npoints, const int32_t *poff, const i64 *gvalue) {
    Ctx *c = p;
    c->nblocks = nblocks;
    c->blen = blen;
    c->blocks = malloc(sizeof(int32_t) * (size_t)(nblocks * blen + 1));
    c->canon.nslots = NSLOTS;
    c->canon.index_of = canon_slot_index;
    c->ngens = ngens;
    c->npoints = npoints;
    c->gtarget = malloc(sizeof(int32_t) * ((size_t)ngens * NSLOTS + 1));
    c->gvalue = malloc(sizeof(i64) * ((size_t)ngens * npoints + 1));
    c->poff = malloc(sizeof(int32_t) * (NSLOTS + 1));
    if (!c->blocks || !c->gtarget || !c->gvalue || !c->poff) return RC_MEMORY;
    memcpy(c->blocks, blocks, sizeof(int32_t) * (size_t)(nblocks * blen));
    memcpy(c->gtarget, gtarget, sizeof(int32_t) * (size_t)ngens * NSLOTS);
    memcpy(c->gvalue, gvalue, sizeof(i64) * (size_t)ngens * npoints);
    memcpy(c->poff, poff, sizeof(int32_t) * NSLOTS);
    c->canon.nblocks = nblocks;
    c->canon.blen = blen;
    c->canon.blocks = c->blocks;
    c->canon.poff = c->poff;
    return 0;
}

/* The representative of the state t (NSLOTS values), in place: for tests and tools. */
void nx_canonicalise(void *p, i64 *t) { canonicalise(p, t); }

int nx_account(void *p, int64_t delta, int checked);

/* Canonicalise with fn(ctx, t) (see ext_canon: -2 out of memory, -4 past the budget, other
 * nonzero: undecided), whose memory attach (may be NULL) counts in held; after nx_set_symmetry. */
void nx_set_external(void *p, void *fn, void *ctx, void *attach) {
    Ctx *c = p;
    c->ext_canon = (int (*)(void *, i64 *))fn;
    c->ext_ctx = ctx;
    c->ext_attach = (void (*)(void *, void *, void *))attach;
    if (c->ext_attach) c->ext_attach(ctx, (void *)nx_account, c);
}

/* Another library's bytes in this run's budget (held): delta added, or with checked a growth
 * refused (0) past mem_limit; else 1.  Safe from any thread. */
int nx_account(void *p, int64_t delta, int checked) {
    Ctx *c = p;
    if (delta > 0 && checked) return reserve(c, (u64)delta, 0) != 0;
    __atomic_add_fetch(&c->held, (u64)delta, __ATOMIC_RELAXED);
    return 1;
}

/* S_m on pids (canonicalise_pids); after nx_set_symmetry, whose poff it reads. */
int nx_set_pids(void *p, int m, int len, const int32_t *blocks, int nfixed, const int32_t *fixed,
                const int32_t *labelled, const int32_t *label, const i64 *value) {
    Ctx *c = p;
    if (m > CANON_MAXPIDS || m * len > NSLOTS) return RC_MEMORY;
    c->pid_blocks = malloc(sizeof(int32_t) * ((size_t)m * len + 1));
    c->pid_fixed = malloc(sizeof(int32_t) * ((size_t)nfixed + 1));
    c->pid_labelled = malloc(sizeof(int32_t) * (NSLOTS + 1));
    c->pid_label = malloc(sizeof(int32_t) * ((size_t)c->npoints + 1));
    c->pid_value = malloc(sizeof(i64) * ((size_t)NSLOTS * m + 1));
    if (!c->pid_blocks || !c->pid_fixed || !c->pid_labelled || !c->pid_label || !c->pid_value)
        return RC_MEMORY;
    memcpy(c->pid_blocks, blocks, sizeof(int32_t) * (size_t)m * len);
    memcpy(c->pid_fixed, fixed, sizeof(int32_t) * (size_t)nfixed);
    memcpy(c->pid_labelled, labelled, sizeof(int32_t) * NSLOTS);
    memcpy(c->pid_label, label, sizeof(int32_t) * (size_t)c->npoints);
    memcpy(c->pid_value, value, sizeof(i64) * (size_t)NSLOTS * m);
    c->pid_nfixed = nfixed;
    c->pid_len = len;
    c->pid_m = m;
    c->canon.pid_m = m;
    c->canon.pid_len = len;
    c->canon.pid_nfixed = nfixed;
    c->canon.pid_blocks = c->pid_blocks;
    c->canon.pid_fixed = c->pid_fixed;
    c->canon.pid_labelled = c->pid_labelled;
    c->canon.pid_label = c->pid_label;
    c->canon.pid_value = c->pid_value;
    return 0;
}

/* The least image over nel elements (canon_elements; gather form: src, map, nel * NSLOTS each;
 * order NSLOTS; nmaps value maps lo/len/off into tab, map 0 none); after nx_set_symmetry. */
int nx_set_elements(void *p, int nel, const int32_t *src, const int32_t *map, const int32_t *order,
                    int nmaps, const i64 *lo, const int32_t *len, const int32_t *off, int ntab, const i64 *tab) {
    Ctx *c = p;
    size_t cells = (size_t)nel * NSLOTS;
    c->el_src = malloc(sizeof(int32_t) * (cells + 1));
    c->el_map = malloc(sizeof(int32_t) * (cells + 1));
    c->el_order = malloc(sizeof(int32_t) * (NSLOTS + 1));
    c->map_lo = malloc(sizeof(i64) * ((size_t)nmaps + 1));
    c->map_len = malloc(sizeof(int32_t) * ((size_t)nmaps + 1));
    c->map_off = malloc(sizeof(int32_t) * ((size_t)nmaps + 1));
    c->map_tab = malloc(sizeof(i64) * ((size_t)ntab + 1));
    if (!c->el_src || !c->el_map || !c->el_order || !c->map_lo || !c->map_len || !c->map_off || !c->map_tab)
        return RC_MEMORY;
    memcpy(c->el_src, src, sizeof(int32_t) * cells);
    memcpy(c->el_map, map, sizeof(int32_t) * cells);
    memcpy(c->el_order, order, sizeof(int32_t) * NSLOTS);
    memcpy(c->map_lo, lo, sizeof(i64) * (size_t)nmaps);
    memcpy(c->map_len, len, sizeof(int32_t) * (size_t)nmaps);
    memcpy(c->map_off, off, sizeof(int32_t) * (size_t)nmaps);
    memcpy(c->map_tab, tab, sizeof(i64) * (size_t)ntab);
    c->canon.el_src = c->el_src;
    c->canon.el_map = c->el_map;
    c->canon.el_order = c->el_order;
    c->canon.map_lo = c->map_lo;
    c->canon.map_len = c->map_len;
    c->canon.map_off = c->map_off;
    c->canon.map_tab = c->map_tab;
    c->canon.nel = nel;
    return 0;
}

/* The distinct successors of s in w->succ (w->nsucc, fault and ovf reset first), each
 * generator checked on them: 0 with *distinct set, or RC_OVERFLOW, RC_MEMORY, or
 * RC_NOT_A_SYMMETRY with w->bad_gen set (the caller records the state).  Shared by the
 * breadth-first expansion and the nested search, so both check the same things. */
static int checked_successors(Worker *w, const i64 *s, size_t *distinct) {
    w->nsucc = 0;
    w->fault = 0;
    w->ovf = 0;
    if (model_successors(s, w)) return w->ovf ? RC_OVERFLOW : RC_MEMORY;
    size_t n = dedup(w, 0, w->nsucc);
    if (n == (size_t)-1) return RC_MEMORY;
    if (w->ctx->ngens) {
        int bad = check_generators(w, s, n);
        if (bad < 0) return bad == -3 ? RC_OVERFLOW : RC_MEMORY;
        if (bad > 0) { w->bad_gen = bad - 1; return RC_NOT_A_SYMMETRY; }
    }
    *distinct = n;
    return 0;
}

/* The first *n successors in w->succ replaced by their canonical forms and deduplicated
 * again (*n updated): 0, -4 where the canonicaliser's memory bound stops it (the caller
 * decides what that stop means), RC_MEMORY or RC_UNDECIDED. */
static int canonical_successors(Worker *w, size_t *n) {
    i64 t[NSLOTS > 0 ? NSLOTS : 1];
    for (size_t j = 0; j < *n; j++) {
        u64 *x = w->succ + j * NWORDS;
        unpack(x, t);
        int canon = canonicalise(w->ctx, t);
        if (canon == -4) return -4;
        if (canon == -2) return RC_MEMORY;
        if (canon) return RC_UNDECIDED;
        pack(t, x);
        w->succ_hash[j] = hash_words(x);
    }
    size_t m = dedup(w, 0, *n);
    if (m == (size_t)-1) return RC_MEMORY;
    *n = m;
    return 0;
}

/* Expand w's local state idx: its successors go to their owners (inserted here when w owns
 * them, else routed).  Returns 0, or RC_OVERFLOW, RC_MEMORY, RC_NOT_A_SYMMETRY (the state
 * then counts as not expanded), RC_TOO_MANY. */
static int expand(Worker *w, size_t idx) {
    const Ctx *c = w->ctx;
    i64 s[NSLOTS > 0 ? NSLOTS : 1];
    u64 words[NWORDS];
    u32 id = global_id(w, idx);
    load_state(state_at(w, idx), words);
    unpack(words, s);
    if (NCOND > 0 && check_conditions(w, id, s)) return RC_OVERFLOW;
    size_t distinct;
    int rc = checked_successors(w, s, &distinct);
    if (rc == RC_NOT_A_SYMMETRY) w->bad_state = id;
    if (rc) return rc;
    rc = (w->fault & 1) ? note(w, &w->faults, id) : w->fault ? note(w, &w->bounds, id) : 0;
    if (rc) return rc;
    /* decided on the real successors, before canonicalising (CMurphi: no rule changes it) */
    int stuck = distinct == 0 ||
        (STUTTER_DEADLOCK && distinct == 1 && memcmp(w->succ, words, sizeof(u64) * NWORDS) == 0);
    if (reduces(c)) {
        int canon = canonical_successors(w, &distinct);
        if (canon == -4) { w->mem_limited = 1; return 0; }  /* a stop, as a full table */
        if (canon) return canon;
    }
    w->transitions += distinct;
    if (stuck && !w->fault) {  /* a faulting step is an enabled one: no dead end */
        int ovf = 0;
        int term = model_terminal(s, &ovf);
        if (ovf) return RC_OVERFLOW;
        rc = note(w, term ? &w->terminals : &w->deadlocks, id);
        if (rc) return rc;
    }
    /* the table slots are cache misses on large runs: start them all before the first probe */
    for (size_t j = 0; j < distinct; j++)
        if (route(w, w->succ_hash[j]) < 0) __builtin_prefetch(&w->table[w->succ_hash[j] & w->tmask]);
    for (size_t j = 0; j < distinct; j++) {
        const u64 *x = w->succ + j * NWORDS;
        u64 h = w->succ_hash[j];
        int o = route(w, h);
        int bad = o < 0 ? insert_noting(w, x, h, id) : box_push(w, &w->out[o], x, id);
        if (bad) return bad;
    }
    return 0;
}

static double thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Phase 1: expand up to w->round states of the current level. */
static void phase_expand(Worker *w) {
    double start = thread_cpu();
    int nboxes = w->ctx->nparts ? w->ctx->nparts : w->ctx->nworkers;
    for (int o = 0; o < nboxes; o++) w->out[o].n = 0;
    size_t end = w->level_end - w->expanded > w->round ? w->expanded + w->round : w->level_end;
    size_t first = w->expanded;
    while (w->expanded < end && !w->truncated && !w->mem_limited) {
        int rc = expand(w, w->expanded);
        if (rc) { w->error = rc; break; }
        w->expanded++;
    }
    w->did = w->expanded - first;
    w->cpu = thread_cpu() - start;
}

/* Phase 2: insert what the other workers routed to w in phase 1. */
static void receive(Worker *w) {
    Ctx *c = w->ctx;
    for (int i = 0; i < c->nworkers; i++) {
        if (c->w[i].error) return;
    }
    for (int i = 0; i < c->nworkers; i++) {
        const Box *b = &c->w[i].out[w->id];
        u64 words[NWORDS];
        u32 parent;
        for (size_t j = 0; j < b->n; j++) {
            const u8 *e = b->items + j * RECORD_BYTES;
            load_state(e, words);
            memcpy(&parent, e + NBYTES, sizeof(u32));
            int rc = insert_noting(w, words, hash_words(words), parent);
            if (rc) { w->error = rc; return; }
        }
    }
}

static void phase_receive(Worker *w) {
    double start = thread_cpu();
    receive(w);
    w->cpu += thread_cpu() - start;
}

/* Move from's items to the end of to; returns 0, -2 out of memory, -3 the limit is reached. */
static int append_all(Ctx *c, Vec32 *to, Vec32 *from) {
    for (size_t j = 0; j < from->n; j++) {
        int r = vec_push(c, to, from->items[j]);
        if (r) return r;
    }
    from->n = 0;
    return 0;
}

/* Merge w's findings of a round into c (deadlocks, terminals, faults, decided conditions,
 * stops); returns w's error (or RC_MEMORY), 0 when none. */
static int merge_worker(Ctx *c, Worker *w) {
    int error = 0;
    if (w->error) {
        error = w->error;
        if (error == RC_NOT_A_SYMMETRY) { c->bad_gen = w->bad_gen; c->bad_state = w->bad_state; }
    }
    int r = append_all(c, &c->deadlocks, &w->deadlocks);
    if (!r) r = append_all(c, &c->terminals, &w->terminals);
    if (r == -2) error = error ? error : RC_MEMORY;
    if (r == -3) c->truncated = c->mem_limited = 1;
    for (size_t j = 0; j < w->faults.n; j++, c->nfaults++)
        if (c->nfaults < 16) c->first_faults[c->nfaults] = w->faults.items[j];
    w->faults.n = 0;
    for (size_t j = 0; j < w->bounds.n; j++, c->nbounds++)
        if (c->nbounds < 16) c->first_bounds[c->nbounds] = w->bounds.items[j];
    w->bounds.n = 0;
    for (int k = 0; k < NCOND; k++) {
        if (w->decided[k] >= 0 && c->decided[k] < 0) c->decided[k] = w->decided[k];
        w->decided[k] = -1;
    }
    c->truncated |= w->truncated | w->mem_limited;
    c->mem_limited |= w->mem_limited;
    return error;
}

/* The round's end, on one thread: merge the workers' findings in worker order, then set
 * c->verdict (-1: another round) and each worker's next round. */
static void end_round(Ctx *c, int parallel) {
    int n = c->nworkers;
    int error = 0, more_in_level = 0, more = 0;
    u64 done = 0;
    double slowest = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        Worker *w = &c->w[i];
        sum += w->cpu;
        if (w->cpu > slowest) slowest = w->cpu;
        int e = merge_worker(c, w);
        if (e && !error) error = e;
        done += w->did;
        if (w->expanded < w->level_end) more_in_level = 1;
    }
    c->cpu_total += sum;
    c->cpu_critical += parallel ? slowest : sum;
    if (error) { c->verdict = error; return; }
    if (c->mem_limited) { c->verdict = RC_MEMORY_LIMIT; return; }
    if (c->truncated) { c->verdict = RC_TRUNCATED; return; }
    if (!more_in_level) {
        for (int i = 0; i < n; i++) {
            c->w[i].level_end = c->w[i].count;
            if (c->w[i].expanded < c->w[i].count) more = 1;
        }
        if (!more) { c->verdict = RC_DONE; return; }
        c->level++;
    }
    c->budget = c->budget > done ? c->budget - done : 0;
    if (c->budget == 0) { c->verdict = RC_MORE; return; }
    u64 left = 0;
    for (int i = 0; i < n; i++) left += c->w[i].level_end - c->w[i].expanded;
    c->small_level = left < c->parallel_min;
    u64 share = (c->budget + (u64)n - 1) / (u64)n;
    for (int i = 0; i < n; i++) c->w[i].round = (size_t)(n > 1 && share > ROUND ? ROUND : share);
    c->verdict = -1;
}

static void *work(void *arg) {
    Worker *w = arg;
    Ctx *c = w->ctx;
    if (w->id != 0) {
        pthread_mutex_lock(&c->gate_lock);
        while (!c->gate_open) pthread_cond_wait(&c->gate, &c->gate_lock);
        pthread_mutex_unlock(&c->gate_lock);
        if (c->abort) return NULL;
    }
    for (;;) {
        phase_expand(w);
        pthread_barrier_wait(&c->barrier);
        phase_receive(w);
        if (pthread_barrier_wait(&c->barrier) == PTHREAD_BARRIER_SERIAL_THREAD) end_round(c, 1);
        pthread_barrier_wait(&c->barrier);
        if (c->verdict >= 0 || c->small_level) return NULL;
    }
}

/* One round on this thread: the workers' phases one after another, in worker order (what
 * the threads would do, so the result is the same). */
static void serial_round(Ctx *c) {
    for (int i = 0; i < c->nworkers; i++) phase_expand(&c->w[i]);
    for (int i = 0; i < c->nworkers; i++) phase_receive(&c->w[i]);
    end_round(c, 0);
}

/* Rounds on nworkers threads while the level is large; returns nonzero when the threads
 * could not be started. */
static int parallel_rounds(Ctx *c) {
    int n = c->nworkers;
    pthread_t threads[MAXWORKERS];
    int started = 1;
    c->gate_open = c->abort = 0;
    for (; started < n; started++)
        if (pthread_create(&threads[started], NULL, work, &c->w[started])) break;
    pthread_mutex_lock(&c->gate_lock);
    c->abort = started < n;  /* too few threads for the barrier: the started ones just leave */
    c->gate_open = 1;
    pthread_cond_broadcast(&c->gate);
    pthread_mutex_unlock(&c->gate_lock);
    if (!c->abort) work(&c->w[0]);
    for (int i = 1; i < started; i++) pthread_join(threads[i], NULL);
    return c->abort;
}

/* Expand up to budget states (all workers together).  Returns RC_DONE, RC_MORE (budget used
 * up), RC_TRUNCATED (state limit), RC_OVERFLOW (the caller falls back to Python), RC_MEMORY,
 * RC_NOT_A_SYMMETRY (nx_bad_generator and nx_bad_state say where), RC_MEMORY_LIMIT or
 * RC_TOO_MANY (past 32-bit state ids). */
int nx_run(void *p, u64 budget) {
    Ctx *c = p;
    int n = c->nworkers;
    if (c->truncated) return c->mem_limited ? RC_MEMORY_LIMIT : RC_TRUNCATED;
    c->budget = budget ? budget : 1;
    u64 share = (c->budget + (u64)n - 1) / (u64)n;
    for (int i = 0; i < n; i++) c->w[i].round = (size_t)(n > 1 && share > ROUND ? ROUND : share);
    c->verdict = -1;
    u64 left = 0;
    for (int i = 0; i < n; i++) left += c->w[i].level_end - c->w[i].expanded;
    c->small_level = left < c->parallel_min;
    while (c->verdict < 0) {
        if (n == 1 || c->small_level) serial_round(c);
        else if (parallel_rounds(c)) return RC_MEMORY;
    }
    return c->verdict;
}

/* Check the reaches/invariant conditions on the discovered but unexpanded states. */
int nx_finish(void *p) {
    Ctx *c = p;
    i64 s[NSLOTS > 0 ? NSLOTS : 1];
    if (NCOND == 0) return 0;
    for (int i = 0; i < c->nworkers; i++) {
        Worker *w = &c->w[i];
        u64 words[NWORDS];
        for (size_t idx = w->expanded; idx < w->count; idx++) {
            load_state(state_at(w, idx), words);
            unpack(words, s);
            if (check_conditions(w, global_id(w, idx), s)) return RC_OVERFLOW;
        }
        for (int k = 0; k < NCOND; k++) {
            if (w->decided[k] >= 0 && c->decided[k] < 0) c->decided[k] = w->decided[k];
            w->decided[k] = -1;
        }
    }
    return 0;
}

static const Worker *owner_of_id(const Ctx *c, u64 id, size_t *local) {
    *local = (size_t)(id / (u64)c->nworkers);
    return &c->w[id % (u64)c->nworkers];
}

u64 nx_count(void *p) { return ((Ctx *)p)->total; }
u64 nx_level(void *p) { return ((Ctx *)p)->level; }
u64 nx_transitions(void *p) {
    Ctx *c = p;
    u64 t = 0;
    for (int i = 0; i < c->nworkers; i++) t += c->w[i].transitions;
    return t;
}
u64 nx_initial(void *p) { return ((Ctx *)p)->initial; }
u64 nx_nfaults(void *p) { return ((Ctx *)p)->nfaults; }
u32 nx_first_fault(void *p, int i) { return ((Ctx *)p)->first_faults[i]; }
u64 nx_nbounds(void *p) { return ((Ctx *)p)->nbounds; }
u32 nx_first_bound(void *p, int i) { return ((Ctx *)p)->first_bounds[i]; }
u64 nx_ndeadlocks(void *p) { return ((Ctx *)p)->deadlocks.n; }
u32 *nx_deadlocks(void *p) { return ((Ctx *)p)->deadlocks.items; }
u64 nx_nterminals(void *p) { return ((Ctx *)p)->terminals.n; }
u32 *nx_terminals(void *p) { return ((Ctx *)p)->terminals.items; }
i64 nx_decided(void *p, int i) { return ((Ctx *)p)->decided[i]; }
int nx_nslots(void) { return NSLOTS; }
int nx_bad_generator(void *p) { return ((Ctx *)p)->bad_gen; }
u32 nx_bad_state(void *p) { return ((Ctx *)p)->bad_state; }
int nx_nworkers(void *p) { return ((Ctx *)p)->nworkers; }
/* Levels with at least n states left run on the threads (0: every level; for tests). */
void nx_set_parallel_min(void *p, u64 n) { ((Ctx *)p)->parallel_min = n; }
double nx_cpu_total(void *p) { return ((Ctx *)p)->cpu_total; }
double nx_cpu_critical(void *p) { return ((Ctx *)p)->cpu_critical; }
u64 nx_worker_count(void *p, int w) { return ((Ctx *)p)->w[w].count; }

u32 nx_parent(void *p, u64 id) {
    size_t local;
    const Worker *w = owner_of_id(p, id, &local);
    return *parent_at(w, local);
}

/* Worker w's stored states first .. first+n-1 (local indices) unpacked one after another
 * into out (n * NSLOTS values): reading every state's slots one call at a time (nx_state)
 * costs a Python loop per slot, most of the run on a state space of 500,000 states. */
void nx_states(void *p, int w, u64 first, u64 n, i64 *out) {
    const Worker *wk = &((Ctx *)p)->w[w];
    u64 words[NWORDS];
    for (u64 i = 0; i < n; i++) {
        load_state(state_at(wk, (size_t)(first + i)), words);
        unpack(words, out + i * NSLOTS);
    }
}

void nx_state(void *p, u64 id, i64 *out) {
    size_t local;
    const Worker *w = owner_of_id(p, id, &local);
    i64 s[NSLOTS > 0 ? NSLOTS : 1];
    u64 words[NWORDS];
    load_state(state_at(w, local), words);
    unpack(words, s);
    for (int k = 0; k < NSLOTS; k++) out[k] = s[k];
}

/* Bytes held for the exploration: packed states, parents, chunk directories, visited tables,
 * boxes, the lists of deadlocks, terminal and fault states (not the scratch for one state's
 * successors). */
u64 nx_memory(void *p) { return ((Ctx *)p)->held; }

/* ---------------------------------------------------------------- partitions (distributed runs)
 *
 * A context with one worker owns partition part of nparts (states whose hash falls to it,
 * owner_of over nparts; ids local * nparts + part).  The caller (detect/statespace/distributed.py)
 * drives a level-synchronous BFS over all partitions: nx_part_expand expands up to budget
 * states of the current level, inserting what it owns and boxing the rest per owner;
 * the caller hands each box to its owner (nx_part_receive); once no partition has states of
 * the level left, every partition starts the next (nx_part_next_level).  Levels never mix,
 * so parents are at the least depth, as in nx_run. */

/* Make this context partition part of nparts; before nx_init.  Nonzero when out of range. */
int nx_set_partition(void *p, int part, int nparts) {
    Ctx *c = p;
    if (c->nworkers != 1 || nparts < 1 || nparts > MAXPARTS || part < 0 || part >= nparts) return 1;
    c->part = part;
    c->nparts = nparts;
    return 0;
}

/* The state limit (this partition's states) from now on. */
void nx_set_limit(void *p, u64 limit) {
    Ctx *c = p;
    c->limit = limit;
    if (c->total < limit && !c->mem_limited) c->truncated = c->w[0].truncated = 0;
}

/* Expand up to budget states of the current level.  Returns RC_DONE (the level is done
 * here), RC_MORE, RC_TRUNCATED, RC_MEMORY_LIMIT, or an error (RC_OVERFLOW, RC_MEMORY,
 * RC_NOT_A_SYMMETRY, RC_TOO_MANY, RC_UNDECIDED).  The boxes hold what others own. */
int nx_part_expand(void *p, u64 budget) {
    Ctx *c = p;
    Worker *w = &c->w[0];
    w->round = (size_t)budget;
    phase_expand(w);
    c->cpu_total += w->cpu;
    c->cpu_critical += w->cpu;
    int error = merge_worker(c, w);
    if (error) return error;
    if (c->mem_limited) return RC_MEMORY_LIMIT;
    if (c->truncated) return RC_TRUNCATED;
    return w->expanded < w->level_end ? RC_MORE : RC_DONE;
}

/* Box o of the last nx_part_expand: its records (NBYTES packed bytes, 4-byte parent id). */
u64 nx_part_box(void *p, int o, u8 **items) {
    Box *b = &((Ctx *)p)->w[0].out[o];
    *items = b->items;
    return b->n;
}

int nx_record_bytes(void) { return (int)RECORD_BYTES; }

/* Insert n records routed here.  Returns 0, RC_TRUNCATED, RC_MEMORY_LIMIT or an error. */
int nx_part_receive(void *p, const u8 *items, u64 n) {
    Ctx *c = p;
    Worker *w = &c->w[0];
    u64 words[NWORDS];
    u32 parent;
    for (u64 j = 0; j < n && !w->truncated && !w->mem_limited; j++) {
        const u8 *e = items + j * RECORD_BYTES;
        load_state(e, words);
        memcpy(&parent, e + NBYTES, sizeof(u32));
        size_t before = w->count;
        int rc = insert_noting(w, words, hash_words(words), parent);
        if (rc) return rc;
        if (parent == NONE32 && w->count > before) c->initial++;  /* routed by nx_init */
    }
    c->truncated |= w->truncated | w->mem_limited;
    c->mem_limited |= w->mem_limited;
    if (c->mem_limited) return RC_MEMORY_LIMIT;
    if (c->truncated) return RC_TRUNCATED;
    return 0;
}

/* Start the next level: returns its states here. */
u64 nx_part_next_level(void *p) {
    Worker *w = &((Ctx *)p)->w[0];
    w->level_end = w->count;
    return (u64)(w->level_end - w->expanded);
}

/* Where the current level ends here (states past it are of the next). */
u64 nx_part_level_end(void *p) { return (u64)((Ctx *)p)->w[0].level_end; }

/* States of the current level not yet expanded here. */
u64 nx_part_pending(void *p) {
    Worker *w = &((Ctx *)p)->w[0];
    return (u64)(w->level_end - w->expanded);
}

/* ---------------------------------------------------------------- acceptance cycles
 *
 * Nested depth-first search for a reachable cycle through a state satisfying condition acc,
 * on one worker's store (nworkers 1: a state's id is its index), as pan -a does it but with
 * Schwoon and Esparza's colours ("A note on on-the-fly verification algorithms", TACAS 2005):
 * white (not reached by the blue search), cyan (on the blue stack), blue (its blue search is
 * over), red (reached by a red search).  The blue search reports a cycle as soon as a step
 * from s reaches a cyan t with s or t accepting (t is then an ancestor of s: a cycle through an
 * accepting state); when the blue search of an accepting s is over, a red search from s
 * through blue states reports a cycle when it steps onto a cyan state (an ancestor of s, so
 * back to s: a cycle through s).  Every cycle through an accepting state is found this way,
 * and the first one found stops the search: a violation is reported as early as pan reports
 * it.  The red search shares the store and the table with the blue one: a state costs its
 * packed bytes, its parent id (unused here), its table slots and one colour byte.
 *
 * With a reduction (nx_set_symmetry ...), successors are representatives, and the search runs
 * on the quotient graph (its soundness for a G-invariant acc: detect/checking/cycles.py).
 * Successors are listed once per visit of a state (twice for a state the red search reaches);
 * the stacks hold each frame's successor ids, so a return to a frame costs nothing. */

enum { NDFS_WHITE = 0, NDFS_CYAN = 1, NDFS_BLUE = 2, NDFS_RED = 3, NDFS_ACC = 4 };
enum { RC_FOUND = 9 };
/* A frame: state id, its successors' offset in the successor stack, their number, the next. */
#define FRAME 4

typedef struct {
    Ctx *c;
    int acc;
    u8 *colour;           /* per state id: NDFS_* colour | NDFS_ACC when accepting */
    size_t colour_cap;
    Vec32 blue, bsucc, red, rsucc;
    u64 root;             /* the next initial state to start a blue search from */
    u32 seed;             /* the accepting state whose red search runs (red.n > 0) */
    Vec32 lasso;          /* the cycle found: ids, lasso.items[loop_from] == the last */
    u64 loop_from;
    u64 red_expansions;
    /* weak fairness (nx_ndfs_new_fair; 0: none): a node is state id * fair_k + j + 1, j the
     * fairness counter, -1 (no round open) to FAIR_N (every process served), fair_k FAIR_N + 2 */
    u32 fair_k;
    /* nx_ndfs_gather: the blue search also records what a breadth-first expansion does
     * (expand: decided conditions, fault states, deadlocks and valid end states, in the
     * context's own lists), so a search that ends without a cycle, having expanded every
     * reachable state once, stands for the exploration; max_depth is its deepest blue stack
     * (steps from an initial state, as pan's "depth reached") */
    int gather;
    u64 max_depth;
} Ndfs;

void nx_ndfs_free(void *p) {
    Ndfs *d = p;
    if (!d) return;
    free(d->colour); free(d->blue.items); free(d->bsucc.items); free(d->red.items); free(d->rsucc.items);
    free(d->lasso.items);
    free(d);
}

/* A search for cycles through states satisfying condition acc of the context p (one worker;
 * its initial states already listed by nx_init).  NULL when out of memory. */
void *nx_ndfs_new(void *p, int acc) {
    Ctx *c = p;
    if (c->nworkers != 1 || c->nparts) return NULL;
    Ndfs *d = calloc(1, sizeof(Ndfs));
    if (!d) return NULL;
    d->c = c;
    d->acc = acc;
    return d;
}

/* The same search under weak fairness, as pan -a -f (-l -f): over the product of the states
 * with pan's fairness counter (Choueka's flags, pan.c's Rules 1-3; cycles.py,
 * _fair_acceptance_cycle_unreduced, is the same construction in Python).  Why the counter and
 * not an SCC check of fair components: the nested search then stays on the fly (it stops at
 * the first fair cycle, as pan -f does) and holds a colour byte per node over the same state
 * store; an SCC check would need every state and edge of the product first.  Unreduced only
 * (the annotated quotient under fairness needs the process permutation to each
 * representative, which the C canonicalisers do not give).  NULL: the model has no weak
 * fairness facts C can read (FAIR_N 0), a reduction is set, or out of memory. */
void *nx_ndfs_new_fair(void *p, int acc) {
    Ctx *c = p;
    if (FAIR_N == 0 || reduces(c) || c->ngens) return NULL;
    Ndfs *d = nx_ndfs_new(p, acc);
    if (d) d->fair_k = FAIR_N + 2;
    return d;
}
u32 nx_ndfs_fair_k(void *p) { return ((Ndfs *)p)->fair_k; }

/* Gather the exploration's findings during the blue search (unfair searches only: returns
 * nonzero under fairness, whose nodes are not states). */
int nx_ndfs_gather(void *p) {
    Ndfs *d = p;
    if (d->fair_k) return 1;
    d->gather = 1;
    return 0;
}
u64 nx_ndfs_max_depth(void *p) { return ((Ndfs *)p)->max_depth; }

static int ndfs_rc(int r) { return r == -3 ? RC_MEMORY_LIMIT : RC_MEMORY; }

/* Colours for every stored state (new ones white), per node under fairness; returns 0 or an RC. */
static int ndfs_colours(Ndfs *d) {
    size_t need = d->c->w[0].count * (d->fair_k ? d->fair_k : 1);
    if (need <= d->colour_cap) return 0;
    size_t cap = d->colour_cap ? d->colour_cap : 1024;
    while (cap < need) cap *= 2;
    if (!reserve(d->c, (u64)(cap - d->colour_cap), 0)) { d->c->mem_limited = 1; return RC_MEMORY_LIMIT; }
    u8 *q = realloc(d->colour, cap);
    if (!q) { release(d->c, (u64)(cap - d->colour_cap)); return RC_MEMORY; }
    memset(q + d->colour_cap, 0, cap - d->colour_cap);
    d->colour = q;
    d->colour_cap = cap;
    return 0;
}

/* Push a frame for state id on stack (successors on succ): its distinct successors (their
 * representatives when reducing), stored when new; *accepting says whether id satisfies acc.
 * Returns 0 or an RC (RC_TRUNCATED: the state limit). */
static int ndfs_fair_successors(Ndfs *d, Vec32 *succ, u32 node, const i64 *s, int *accepting);

/* What expand records of state id (s, packed as words) with its distinct real successors in
 * w->succ (before canonicalising), for a gathering blue search: its fault, and where it is
 * stuck (no successor, or only itself where STUTTER_DEADLOCK) without a fault a valid end
 * state or a deadlock -- in the context's counts and lists at once (one worker, no rounds).
 * Returns 0 or an RC. */
static int ndfs_record(Ndfs *d, u32 id, const i64 *s, const u64 *words, size_t distinct) {
    Ctx *c = d->c;
    Worker *w = &c->w[0];
    if (w->fault & 1) {
        if (c->nfaults < 16) c->first_faults[c->nfaults] = id;
        c->nfaults++;
        return 0;
    }
    if (w->fault) {  /* cut at a bound of ours (bit 2), no fault: a bound state, as expand's */
        if (c->nbounds < 16) c->first_bounds[c->nbounds] = id;
        c->nbounds++;
        return 0;
    }
    int stuck = distinct == 0 ||
        (STUTTER_DEADLOCK && distinct == 1 && memcmp(w->succ, words, sizeof(u64) * NWORDS) == 0);
    if (!stuck) return 0;
    int ovf = 0;
    int term = model_terminal(s, &ovf);
    if (ovf) return RC_OVERFLOW;
    int r = vec_push(c, term ? &c->terminals : &c->deadlocks, id);
    if (r == -3) c->mem_limited = 1;
    return r ? ndfs_rc(r) : 0;
}

/* The gathered conditions' witnesses into the context, as nx_finish leaves them. */
static void ndfs_merge(Ndfs *d) {
    Ctx *c = d->c;
    Worker *w = &c->w[0];
    for (int k = 0; k < NCOND; k++) {
        if (w->decided[k] >= 0 && c->decided[k] < 0) c->decided[k] = w->decided[k];
        w->decided[k] = -1;
    }
}

static int ndfs_push(Ndfs *d, Vec32 *stack, Vec32 *succ, u32 id, int *accepting) {
    Ctx *c = d->c;
    Worker *w = &c->w[0];
    u32 off = (u32)succ->n;
    int r;
    if (d->fair_k) {  /* id is a node: its state, and its successors as nodes */
        i64 s[NSLOTS > 0 ? NSLOTS : 1];
        u64 words[NWORDS];
        load_state(state_at(w, id / d->fair_k), words);
        unpack(words, s);
        if ((r = ndfs_fair_successors(d, succ, id, s, accepting))) return r;
        size_t distinct = succ->n - off;
        if (stack == &d->blue) w->transitions += distinct;
        u32 frame[FRAME] = {id, off, (u32)distinct, 0};
        for (int k = 0; k < FRAME; k++)
            if ((r = vec_push(c, stack, frame[k]))) { if (r == -3) c->mem_limited = 1; return ndfs_rc(r); }
        return ndfs_colours(d);
    }
    i64 s[NSLOTS > 0 ? NSLOTS : 1];
    u64 words[NWORDS];
    load_state(state_at(w, id), words);
    unpack(words, s);
    int ovf = 0;
    *accepting = model_condition(d->acc, s, &ovf);
    if (ovf) return RC_OVERFLOW;
    int gathering = d->gather && stack == &d->blue;
    if (gathering && NCOND > 0 && check_conditions(w, id, s)) return RC_OVERFLOW;
    size_t distinct;
    int rc = checked_successors(w, s, &distinct);
    if (rc == RC_NOT_A_SYMMETRY) { c->bad_gen = w->bad_gen; c->bad_state = id; }
    if (rc) return rc;
    if (gathering && (rc = ndfs_record(d, id, s, words, distinct))) return rc;
    if (reduces(c)) {
        int canon = canonical_successors(w, &distinct);
        if (canon == -4) { c->mem_limited = 1; return RC_MEMORY_LIMIT; }
        if (canon) return canon;
    }
    for (size_t j = 0; j < distinct; j++) {
        int64_t k = lookup_insert(w, w->succ + j * NWORDS, w->succ_hash[j], id);
        if (k == -1) { c->truncated = 1; return RC_TRUNCATED; }
        if (k == -3) { c->mem_limited = 1; return RC_MEMORY_LIMIT; }
        if (k == -2) return RC_MEMORY;
        if (k == -4) return RC_TOO_MANY;
        if ((r = vec_push(c, succ, (u32)k))) { if (r == -3) c->mem_limited = 1; return ndfs_rc(r); }
    }
    if (stack == &d->blue) w->transitions += distinct;
    u32 frame[FRAME] = {id, off, (u32)distinct, 0};
    for (int k = 0; k < FRAME; k++)
        if ((r = vec_push(c, stack, frame[k]))) { if (r == -3) c->mem_limited = 1; return ndfs_rc(r); }
    if (stack == &d->blue && d->blue.n / FRAME - 1 > d->max_depth) d->max_depth = d->blue.n / FRAME - 1;
    return ndfs_colours(d);
}

/* The successors of node (state s, counter j) pushed on succ as nodes, and whether the node
 * accepts (a closed round where the claim is to move: pan's seed).  Where pan counts (Rule 1
 * and 3): a round opens at an accepting state (j = 0) and closes once every process is served
 * (back to -1).  On the system's turn each step serves the processes that move in it and,
 * where no process holds atomic control, every process with no step there (a faulting step
 * is a step); where timeout holds, every process (pan's default move), except under -DNP; a
 * step of no process (the claim's) serves nobody where atomic control is held or under -DNP.
 * The counter then passes the served processes in pan's order (the highest number first).
 * The steps are not deduplicated: two steps to one state may serve different processes. */
static int ndfs_fair_successors(Ndfs *d, Vec32 *succ, u32 node, const i64 *s, int *accepting) {
    Ctx *c = d->c;
    Worker *w = &c->w[0];
    const u32 k = d->fair_k;
    int j = (int)(node % k) - 1, ovf = 0, r;
    int acc = model_condition(d->acc, s, &ovf);
    int turn = fair_pred(0, s, &ovf), counted = fair_pred(1, s, &ovf);
    int held = !fair_pred(2, s, &ovf), tmo = fair_pred(3, s, &ovf);
    if (ovf) return RC_OVERFLOW;
    *accepting = j == FAIR_N && !turn;
    w->nsucc = 0;
    w->fault = 0;
    w->ovf = 0;
    w->fault_procs = 0;
    if (model_successors(s, w)) return w->ovf ? RC_OVERFLOW : RC_MEMORY;
    if (counted) {
        if (j == -1 && acc) j = 0;
        else if (j == FAIR_N) j = -1;
    }
    const u64 everyone = FAIR_N >= 64 ? ~0ULL : ((1ULL << FAIR_N) - 1);
    u64 blocked = 0;
    if (turn && !held) {
        if (tmo && !FAIR_NP) blocked = everyone;
        else {
            u64 able = w->fault_procs;
            for (size_t x = 0; x < w->nsucc; x++) able |= FAIR_FIRST_BIT(w->succ_summand[x]);
            blocked = everyone & ~able;
        }
    }
    for (size_t x = 0; x < w->nsucc; x++) {
        int jj = j;
        if (jj >= 0 && turn) {
            int si = w->succ_summand[x];
            u64 served = (FAIR_OWNERS(si) == 0 && (held || FAIR_NP)) ? 0 : (FAIR_OWNERS(si) | blocked);
            while (jj < FAIR_N && ((served >> (FAIR_N - 1 - jj)) & 1)) jj++;
        }
        int64_t t = lookup_insert(w, w->succ + x * NWORDS, w->succ_hash[x], node / k);
        if (t == -1) { c->truncated = 1; return RC_TRUNCATED; }
        if (t == -3) { c->mem_limited = 1; return RC_MEMORY_LIMIT; }
        if (t == -2) return RC_MEMORY;
        if (t == -4) return RC_TOO_MANY;
        u64 to = (u64)t * k + (u64)(jj + 1);
        if (to >= NONE32) return RC_TOO_MANY;
        if ((r = vec_push(c, succ, (u32)to))) { if (r == -3) c->mem_limited = 1; return ndfs_rc(r); }
    }
    return 0;
}

/* The lasso: the blue stack's states, then the red stack's after the seed (when red), then
 * t, which is on the blue stack (cyan): loop_from is its place there. */
static int ndfs_found(Ndfs *d, u32 t, int red) {
    Ctx *c = d->c;
    d->lasso.n = 0;
    int r = 0;
    for (size_t f = 0; f < d->blue.n && !r; f += FRAME) {
        if (d->blue.items[f] == t) d->loop_from = f / FRAME;
        r = vec_push(c, &d->lasso, d->blue.items[f]);
    }
    for (size_t f = FRAME; red && f < d->red.n && !r; f += FRAME) r = vec_push(c, &d->lasso, d->red.items[f]);
    if (!r) r = vec_push(c, &d->lasso, t);
    return r ? ndfs_rc(r) : RC_FOUND;
}

/* Go on with the search for up to budget state visits.  Returns RC_FOUND (nx_ndfs_lasso),
 * RC_DONE (no such cycle), RC_MORE, or what stopped it: RC_TRUNCATED (state limit),
 * RC_MEMORY_LIMIT, RC_OVERFLOW, RC_MEMORY, RC_NOT_A_SYMMETRY (nx_bad_generator, nx_bad_state),
 * RC_UNDECIDED, RC_TOO_MANY.  A stop is final. */
int nx_ndfs_run(void *p, u64 budget) {
    Ndfs *d = p;
    Ctx *c = d->c;
    int r, acc;
    if (c->truncated) return c->mem_limited ? RC_MEMORY_LIMIT : RC_TRUNCATED;
    if ((r = ndfs_colours(d))) return r;
    while (budget) {
        if (d->red.n) {
            u32 *f = d->red.items + d->red.n - FRAME;
            if (f[3] < f[2]) {
                u32 t = d->rsucc.items[f[1] + f[3]++];
                int ct = d->colour[t] & 3;
                if (ct == NDFS_CYAN) return ndfs_found(d, t, 1);
                if (ct == NDFS_BLUE) {
                    d->colour[t] = (u8)((d->colour[t] & ~3) | NDFS_RED);
                    budget--;
                    d->red_expansions++;
                    if ((r = ndfs_push(d, &d->red, &d->rsucc, t, &acc))) return r;
                }
                continue;
            }
            d->rsucc.n = f[1];
            d->red.n -= FRAME;
            if (d->red.n) continue;
            /* the seed's red search is over: it is red, and its blue frame goes */
            d->colour[d->seed] = (u8)((d->colour[d->seed] & ~3) | NDFS_RED);
            f = d->blue.items + d->blue.n - FRAME;
            d->bsucc.n = f[1];
            d->blue.n -= FRAME;
            continue;
        }
        if (!d->blue.n) {
            if (d->root >= c->initial) {
                if (d->gather) ndfs_merge(d);
                return RC_DONE;
            }
            u32 id = (u32)d->root++;
            if (d->fair_k) {  /* the initial node of the state: no round open (j = -1) */
                if ((u64)id * d->fair_k >= NONE32) return RC_TOO_MANY;
                id *= d->fair_k;
            }
            if ((d->colour[id] & 3) != NDFS_WHITE) continue;
            budget--;
            if ((r = ndfs_push(d, &d->blue, &d->bsucc, id, &acc))) return r;
            d->colour[id] = (u8)(NDFS_CYAN | (acc ? NDFS_ACC : 0));
            continue;
        }
        u32 *f = d->blue.items + d->blue.n - FRAME;
        if (f[3] < f[2]) {
            /* last successor first: pan tries the highest process number first, and the
             * generated successors come in process order */
            u32 s = f[0], t = d->bsucc.items[f[1] + f[2] - 1 - f[3]++];
            int ct = d->colour[t] & 3;
            if (ct == NDFS_CYAN && ((d->colour[s] | d->colour[t]) & NDFS_ACC)) return ndfs_found(d, t, 0);
            if (ct == NDFS_WHITE) {
                budget--;
                if ((r = ndfs_push(d, &d->blue, &d->bsucc, t, &acc))) return r;
                d->colour[t] = (u8)(NDFS_CYAN | (acc ? NDFS_ACC : 0));
            }
            continue;
        }
        u32 s = f[0];
        if (d->colour[s] & NDFS_ACC) {  /* the red search from s, s staying cyan meanwhile */
            d->seed = s;
            budget--;
            d->red_expansions++;
            if ((r = ndfs_push(d, &d->red, &d->rsucc, s, &acc))) return r;
            continue;
        }
        d->colour[s] = (u8)((d->colour[s] & ~3) | NDFS_BLUE);
        d->bsucc.n = f[1];
        d->blue.n -= FRAME;
    }
    return RC_MORE;
}

u64 nx_ndfs_lasso_len(void *p) { return ((Ndfs *)p)->lasso.n; }
u32 nx_ndfs_lasso(void *p, u64 i) { return ((Ndfs *)p)->lasso.items[i]; }
u64 nx_ndfs_loop_from(void *p) { return ((Ndfs *)p)->loop_from; }
/* The blue stack's depth now (frames), and the red search's expansions so far. */
u64 nx_ndfs_depth(void *p) { return ((Ndfs *)p)->blue.n / FRAME; }
u64 nx_ndfs_red(void *p) { return ((Ndfs *)p)->red_expansions; }
