/* symdetect native explorer: the model-independent part (see detect/statespace/native/__init__.py).
 *
 * The generated prelude before this text defines NSLOTS, NWORDS, NCOND, NINIT_SLOTS and the
 * model functions after it: model_successors, model_terminal, model_condition, pack, unpack,
 * init_value, INIT_COUNT.  States are stored packed (NWORDS 64-bit words) in discovery order,
 * which is breadth-first order, so the array of states is also the queue: states[expanded..count)
 * is the frontier.  The visited set is an open-addressing table of (hash tag, index+1) words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
typedef uint64_t u64;
typedef uint32_t u32;

#define NONE32 0xFFFFFFFFu

typedef struct {
    u32 *items;
    size_t n, cap;
} Vec32;

static int vec_push(Vec32 *v, u32 x) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        u32 *p = realloc(v->items, cap * sizeof(u32));
        if (!p) return -1;
        v->items = p;
        v->cap = cap;
    }
    v->items[v->n++] = x;
    return 0;
}

typedef struct Ctx {
    u64 *states;          /* count * NWORDS words */
    u32 *parent;          /* parent index, NONE32 for initial states */
    size_t count, cap;
    u64 *table;           /* 0 empty, else (hash & ~0xffffffff) | (index + 1) */
    size_t tmask;
    size_t expanded;
    u64 limit;
    u64 mem_limit;        /* bytes the states, parents and table may take */
    int truncated;
    int mem_limited;      /* stopped because growing would exceed mem_limit */
    u64 transitions;
    u64 initial;
    /* successors of the state being expanded */
    u64 *succ;
    u64 *succ_hash;
    size_t nsucc, succ_cap;
    u32 *dedup;           /* local table of successor positions + 1 */
    size_t dedup_cap;
    int fault;
    int ovf;
    Vec32 deadlocks, terminals;
    u64 nfaults;
    u32 first_faults[16];
    i64 decided[NCOND > 0 ? NCOND : 1];
    /* initial-state odometer */
    int init_started, init_done;
    u32 init_pos[NINIT_SLOTS > 0 ? NINIT_SLOTS : 1];
    i64 scratch[NSLOTS > 0 ? NSLOTS : 1];
    u64 wscratch[NWORDS];
    /* symmetry reduction (sorting fast path): nblocks blocks of blen slots */
    int nblocks, blen;
    int32_t *blocks;
    /* generators checked on every expanded state: target slot and value per (slot, index) */
    int ngens;
    int32_t *gtarget;     /* ngens * NSLOTS */
    i64 *gvalue;          /* ngens * npoints */
    int32_t *poff;        /* NSLOTS: first point of each slot */
    int npoints;
    int bad_gen;
    u64 *gimg;            /* scratch: images of the successors */
    size_t gimg_cap;
} Ctx;

static i64 slot_index(int k, i64 v);

static int model_successors(const i64 *s, Ctx *c);
static int model_terminal(const i64 *s, int *ovf);
static int model_condition(int i, const i64 *s, int *ovf);
static void pack(const i64 *t, u64 *w);
static void unpack(const u64 *w, i64 *t);

/* Least image under Sym(blocks): the blocks' value tuples sorted (insertion sort). */
static void canonicalise(Ctx *c, i64 *t) {
    int m = c->nblocks, L = c->blen;
    const int32_t *b = c->blocks;
    for (int i = 1; i < m; i++) {
        for (int j = i; j > 0; j--) {
            const int32_t *x = b + (j - 1) * L, *y = b + j * L;
            int cmp = 0;
            for (int q = 0; q < L && !cmp; q++) cmp = (t[x[q]] > t[y[q]]) - (t[x[q]] < t[y[q]]);
            if (cmp <= 0) break;
            for (int q = 0; q < L; q++) { i64 tmp = t[x[q]]; t[x[q]] = t[y[q]]; t[y[q]] = tmp; }
        }
    }
}

static void apply_generator(Ctx *c, int g, const i64 *s, i64 *out) {
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

/* Called by the generated successor code for each successor (unpacked) t. */
static int emit(Ctx *c, const i64 *t) {
    if (c->nsucc == c->succ_cap) {
        size_t cap = c->succ_cap ? c->succ_cap * 2 : 64;
        u64 *p = realloc(c->succ, cap * NWORDS * sizeof(u64));
        if (!p) return -1;
        c->succ = p;
        u64 *q = realloc(c->succ_hash, cap * sizeof(u64));
        if (!q) return -1;
        c->succ_hash = q;
        c->succ_cap = cap;
    }
    u64 *w = c->succ + c->nsucc * NWORDS;
    pack(t, w);
    c->succ_hash[c->nsucc] = hash_words(w);
    c->nsucc++;
    return 0;
}

#define STATE_BYTES (NWORDS * sizeof(u64) + sizeof(u32))

/* Bytes held for the exploration: packed states, parents, visited table. */
static u64 held(const Ctx *c) {
    return (u64)c->cap * STATE_BYTES + (u64)(c->tmask + 1) * sizeof(u64);
}

static int grow_table(Ctx *c) {
    size_t cap = (c->tmask + 1) * 2;
    u64 *t = calloc(cap, sizeof(u64));
    if (!t) return -1;
    size_t mask = cap - 1;
    for (size_t i = 0; i < c->count; i++) {
        u64 h = hash_words(c->states + i * NWORDS);
        size_t pos = h & mask;
        while (t[pos]) pos = (pos + 1) & mask;
        t[pos] = (h & 0xFFFFFFFF00000000ULL) | (u64)(i + 1);
    }
    free(c->table);
    c->table = t;
    c->tmask = mask;
    return 0;
}

/* Room for one more state within mem_limit: the state arrays double (or take what is left
 * below the limit), the table doubles at load 1/2 (or, when doubling would pass the limit,
 * fills up to load 7/8).  Returns 0, -2 out of memory, -3 the limit is reached. */
static int make_room(Ctx *c) {
    if (c->count == c->cap) {
        size_t cap = c->cap * 2;
        u64 now = held(c);
        if (now + (u64)(cap - c->cap) * STATE_BYTES > c->mem_limit)
            cap = c->cap + (size_t)((c->mem_limit > now ? c->mem_limit - now : 0) / STATE_BYTES);
        if (cap <= c->cap) return -3;
        u64 *s = realloc(c->states, cap * NWORDS * sizeof(u64));
        if (!s) return -2;
        c->states = s;
        u32 *pa = realloc(c->parent, cap * sizeof(u32));
        if (!pa) return -2;
        c->parent = pa;
        c->cap = cap;
    }
    size_t slots = c->tmask + 1;
    if ((c->count + 1) * 2 > slots) {
        if (held(c) + (u64)slots * sizeof(u64) <= c->mem_limit) return grow_table(c) ? -2 : 0;
        if ((c->count + 1) * 8 > slots * 7) return -3;
    }
    return 0;
}

/* Index of state w, inserting it with parent p when new (and room remains).
 * Returns the index, -1 when new but the limit is reached, -2 out of memory, -3 when new but
 * the memory limit is reached. */
static int64_t lookup_insert(Ctx *c, const u64 *w, u64 h, u32 p) {
    size_t pos = h & c->tmask;
    u64 tag = h & 0xFFFFFFFF00000000ULL;
    for (;;) {
        u64 e = c->table[pos];
        if (!e) break;
        if ((e & 0xFFFFFFFF00000000ULL) == tag) {
            size_t i = (size_t)(e & 0xFFFFFFFFULL) - 1;
            if (memcmp(c->states + i * NWORDS, w, NWORDS * sizeof(u64)) == 0) return (int64_t)i;
        }
        pos = (pos + 1) & c->tmask;
    }
    if ((u64)c->count >= c->limit) return -1;
    if (c->count >= 0xFFFFFFF0u) return -2;
    size_t slots = c->tmask + 1;
    int r = make_room(c);
    if (r) return r;
    if (c->tmask + 1 != slots) {  /* the table grew: find the free slot again */
        pos = h & c->tmask;
        while (c->table[pos]) pos = (pos + 1) & c->tmask;
    }
    size_t i = c->count++;
    memcpy(c->states + i * NWORDS, w, NWORDS * sizeof(u64));
    c->parent[i] = p;
    c->table[pos] = tag | (u64)(i + 1);
    return (int64_t)i;
}

void *nx_new(u64 limit, u64 mem_limit) {
    Ctx *c = calloc(1, sizeof(Ctx));
    if (!c) return NULL;
    c->limit = limit;
    c->mem_limit = mem_limit;
    c->cap = 1024;
    c->states = malloc(c->cap * NWORDS * sizeof(u64));
    c->parent = malloc(c->cap * sizeof(u32));
    c->tmask = 2047;
    c->table = calloc(c->tmask + 1, sizeof(u64));
    if (!c->states || !c->parent || !c->table) return NULL;
    for (int i = 0; i < (NCOND > 0 ? NCOND : 1); i++) c->decided[i] = -1;
    return c;
}

void nx_free(void *p) {
    Ctx *c = p;
    if (!c) return;
    free(c->states); free(c->parent); free(c->table); free(c->succ); free(c->succ_hash);
    free(c->dedup); free(c->deadlocks.items); free(c->terminals.items);
    free(c->blocks); free(c->gtarget); free(c->gvalue); free(c->poff); free(c->gimg);
    free(c);
}

/* Enumerate up to budget initial states (product of the init sets, last slot fastest).
 * Returns 0 when all are enumerated, 1 when more remain, 2 truncated, 4 out of memory,
 * 6 the memory limit is reached. */
int nx_init(void *p, u64 budget) {
    Ctx *c = p;
    if (c->init_done) return 0;
    if (!c->init_started) {
        c->init_started = 1;
        memset(c->init_pos, 0, sizeof(c->init_pos));
    }
    while (budget--) {
        for (int k = 0; k < NSLOTS; k++) c->scratch[k] = init_value(k, c->init_pos[k]);
        if (c->nblocks) canonicalise(c, c->scratch);
        pack(c->scratch, c->wscratch);
        int64_t r = lookup_insert(c, c->wscratch, hash_words(c->wscratch), NONE32);
        if (r == -1) { c->truncated = 1; return 2; }
        if (r == -2) return 4;
        if (r == -3) { c->truncated = c->mem_limited = 1; return 6; }
        c->initial = c->count;
        /* advance the odometer */
        int k = NSLOTS - 1;
        while (k >= 0) {
            if (++c->init_pos[k] < (u32)INIT_COUNT[k]) break;
            c->init_pos[k] = 0;
            k--;
        }
        if (k < 0) { c->init_done = 1; return 0; }
    }
    return 1;
}

/* Returns nonzero on an int64 overflow (the verdict would be unreliable). */
static int check_conditions(Ctx *c, size_t idx, const i64 *s) {
    int ovf = 0;
    for (int i = 0; i < NCOND; i++) {
        if (c->decided[i] >= 0 || COND_WANT[i] < 0) continue;
        int r = model_condition(i, s, &ovf);
        if (ovf) return 1;
        if (r == COND_WANT[i]) c->decided[i] = (i64)idx;
    }
    return 0;
}

/* Compact succ[start, start+n) to its distinct entries (first occurrences, in order). */
static size_t dedup(Ctx *c, size_t start, size_t n) {
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
static int check_generators(Ctx *c, const i64 *s, size_t n) {
    i64 img[NSLOTS > 0 ? NSLOTS : 1], t[NSLOTS > 0 ? NSLOTS : 1], u[NSLOTS > 0 ? NSLOTS : 1];
    int fault = c->fault;
    if (n > c->gimg_cap) {
        free(c->gimg);
        c->gimg = malloc(n * NWORDS * sizeof(u64));
        if (!c->gimg) { c->gimg_cap = 0; return -4; }
        c->gimg_cap = n;
    }
    for (int g = 0; g < c->ngens; g++) {
        for (size_t j = 0; j < n; j++) {
            unpack(c->succ + j * NWORDS, t);
            apply_generator(c, g, t, u);
            pack(u, c->gimg + j * NWORDS);
        }
        apply_generator(c, g, s, img);
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
    c->ngens = ngens;
    c->npoints = npoints;
    c->gtarget = malloc(sizeof(int32_t) * ((size_t)ngens * NSLOTS + 1));
    c->gvalue = malloc(sizeof(i64) * ((size_t)ngens * npoints + 1));
    c->poff = malloc(sizeof(int32_t) * (NSLOTS + 1));
    if (!c->blocks || !c->gtarget || !c->gvalue || !c->poff) return 4;
    memcpy(c->blocks, blocks, sizeof(int32_t) * (size_t)(nblocks * blen));
    memcpy(c->gtarget, gtarget, sizeof(int32_t) * (size_t)ngens * NSLOTS);
    memcpy(c->gvalue, gvalue, sizeof(i64) * (size_t)ngens * npoints);
    memcpy(c->poff, poff, sizeof(int32_t) * NSLOTS);
    return 0;
}

int nx_bad_generator(void *p) { return ((Ctx *)p)->bad_gen; }

/* Expand up to budget states.  Returns 0 done, 1 budget used up, 2 truncated (limit),
 * 3 int64 overflow (the caller falls back to Python), 4 out of memory, 5 a generator is no
 * symmetry at state expanded (nx_bad_generator says which), 6 the memory limit is reached. */
int nx_run(void *p, u64 budget) {
    Ctx *c = p;
    i64 s[NSLOTS > 0 ? NSLOTS : 1];
    while (budget--) {
        if (c->expanded >= c->count) return 0;
        size_t idx = c->expanded++;
        unpack(c->states + idx * NWORDS, s);
        if (NCOND > 0 && check_conditions(c, idx, s)) return 3;
        c->nsucc = 0;
        c->fault = 0;
        c->ovf = 0;
        if (model_successors(s, c)) return c->ovf ? 3 : 4;
        if (c->fault) {
            if (c->nfaults < 16) c->first_faults[c->nfaults] = (u32)idx;
            c->nfaults++;
        }
        size_t distinct = dedup(c, 0, c->nsucc);
        if (distinct == (size_t)-1) return 4;
        if (c->ngens) {
            int bad = check_generators(c, s, distinct);
            if (bad < 0) return bad == -3 ? 3 : 4;
            if (bad > 0) { c->bad_gen = bad - 1; c->expanded--; return 5; }
        }
        if (c->nblocks) {
            i64 t[NSLOTS > 0 ? NSLOTS : 1];
            for (size_t j = 0; j < distinct; j++) {
                u64 *w = c->succ + j * NWORDS;
                unpack(w, t);
                canonicalise(c, t);
                pack(t, w);
                c->succ_hash[j] = hash_words(w);
            }
            distinct = dedup(c, 0, distinct);
            if (distinct == (size_t)-1) return 4;
        }
        c->transitions += distinct;
        if (distinct == 0) {
            int ovf = 0;
            int term = model_terminal(s, &ovf);
            if (ovf) return 3;
            if (vec_push(term ? &c->terminals : &c->deadlocks, (u32)idx)) return 4;
        }
        for (size_t j = 0; j < distinct; j++) {
            int64_t r = lookup_insert(c, c->succ + j * NWORDS, c->succ_hash[j], (u32)idx);
            if (r == -1) c->truncated = 1;
            else if (r == -2) return 4;
            else if (r == -3) c->truncated = c->mem_limited = 1;
        }
        if (c->mem_limited) return 6;
        if (c->truncated) return 2;
    }
    return c->expanded >= c->count ? 0 : 1;
}

/* Check the reaches/invariant conditions on the discovered but unexpanded states. */
int nx_finish(void *p) {
    Ctx *c = p;
    i64 s[NSLOTS > 0 ? NSLOTS : 1];
    if (NCOND == 0) return 0;
    for (size_t idx = c->expanded; idx < c->count; idx++) {
        unpack(c->states + idx * NWORDS, s);
        if (check_conditions(c, idx, s)) return 3;
    }
    return 0;
}

u64 nx_count(void *p) { return ((Ctx *)p)->count; }
u64 nx_expanded(void *p) { return ((Ctx *)p)->expanded; }
u64 nx_transitions(void *p) { return ((Ctx *)p)->transitions; }
u64 nx_initial(void *p) { return ((Ctx *)p)->initial; }
u64 nx_nfaults(void *p) { return ((Ctx *)p)->nfaults; }
u32 nx_first_fault(void *p, int i) { return ((Ctx *)p)->first_faults[i]; }
u64 nx_ndeadlocks(void *p) { return ((Ctx *)p)->deadlocks.n; }
u32 *nx_deadlocks(void *p) { return ((Ctx *)p)->deadlocks.items; }
u64 nx_nterminals(void *p) { return ((Ctx *)p)->terminals.n; }
u32 *nx_terminals(void *p) { return ((Ctx *)p)->terminals.items; }
i64 nx_decided(void *p, int i) { return ((Ctx *)p)->decided[i]; }
u32 nx_parent(void *p, u64 i) { return ((Ctx *)p)->parent[i]; }
int nx_nslots(void) { return NSLOTS; }

void nx_state(void *p, u64 i, i64 *out) {
    Ctx *c = p;
    i64 s[NSLOTS > 0 ? NSLOTS : 1];
    unpack(c->states + i * NWORDS, s);
    for (int k = 0; k < NSLOTS; k++) out[k] = s[k];
}

u64 nx_memory(void *p) { return held((Ctx *)p); }
