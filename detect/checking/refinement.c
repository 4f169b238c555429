/* Colour refinement rounds for detect/checking/refinement.py: the same arithmetic as its numpy
   path (wrapping uint64), so both give the same colours.  Loaded with cffi (ABI mode). */
#include <stdint.h>
#include <string.h>

static uint64_t mix(uint64_t z) {
    z *= 0xBF58476D1CE4E5B9ULL;
    z ^= z >> 30;
    z *= 0x94D049BB133111EBULL;
    z ^= z >> 27;
    return z;
}

/* Distinct values of c[0..n): open addressing in table[0..size), size a power of two > n;
   0 marks an empty cell, so the value 0 is counted apart. */
static int64_t distinct(const uint64_t *c, int64_t n, uint64_t *table, int64_t size) {
    memset(table, 0, (size_t)size * sizeof(uint64_t));
    int64_t count = 0;
    int zero = 0;
    for (int64_t v = 0; v < n; v++) {
        uint64_t x = c[v];
        if (x == 0) { zero = 1; continue; }
        uint64_t h = mix(x) & (uint64_t)(size - 1);
        while (table[h] != 0 && table[h] != x) h = (h + 1) & (uint64_t)(size - 1);
        if (table[h] == 0) { table[h] = x; count++; }
    }
    return count + zero;
}

/* Refines colours[0..n) in place to the stable colouring; the neighbours of v are
   nbrs[offsets[v]..offsets[v+1]).  work holds 2n + size values.  Returns the colour count. */
int64_t wl_refine(int64_t n, const int64_t *offsets, const int64_t *nbrs, uint64_t *colours,
                  uint64_t *work, int64_t size) {
    uint64_t *weight = work, *refined = work + n, *table = work + 2 * n;
    int64_t count = distinct(colours, n, table, size);
    for (;;) {
        for (int64_t v = 0; v < n; v++) weight[v] = mix(colours[v]);
        for (int64_t v = 0; v < n; v++) {
            uint64_t sum = 0;
            for (int64_t j = offsets[v]; j < offsets[v + 1]; j++) sum += weight[nbrs[j]];
            refined[v] = mix(colours[v] * 0x9E3779B97F4A7C15ULL + mix(sum));
        }
        int64_t refined_count = distinct(refined, n, table, size);
        memcpy(colours, refined, (size_t)n * sizeof(uint64_t));
        if (refined_count <= count || refined_count == n) return refined_count;
        count = refined_count;
    }
}

/* ======================================================================== graph canonicaliser
 *
 * The graph strategy's whole per-state path (detect/checking/refinement.py, NativeGraphCanonicaliser):
 * a state marks one literal node per slot of the detection's coloured graph H; two states are in
 * one orbit iff some automorphism of H maps one marking onto the other.
 *
 * Partition refinement (exact cells, not hashed colours, as nauty's "refine"): an ordered
 * partition (lab: nodes by position, inv: position of each node, cell: start of the cell
 * holding each node, clen: length of the cell at each cell start) is refined to the
 * coarsest equitable partition finer than it with a queue of splitter cells (Hopcroft: a cell
 * split while not queued queues all its parts but its first largest).  Every choice depends
 * only on positions and counts, never on node numbers, so the result is equivariant: for an
 * automorphism f, refining f(marking) gives f applied to every cell, at the same positions,
 * and the same trace (a hash of what each step did).  H's own equitable partition is computed
 * once; a state only splits the cells of its marked nodes and refines from there.
 *
 * Certificate = trace and cell count.  Equal certificates are settled exactly: when both
 * partitions are discrete, v -> (node of the other at v's position) is the only candidate
 * and is checked to preserve marks and edges (colour classes: positions lie in the same base
 * cell); otherwise an individualisation-refinement search (complete: an isomorphism f survives
 * the branch that picks f(v)) with a branch budget; past it the call reports "undecided" and
 * the caller falls back to nauty/bliss.  One mutex serialises calls (several explorer threads). */
#include <pthread.h>
#include <stdlib.h>

/* Bytes of the memo of canonicalised states (see GC); gc_new may be given fewer. */
#define MEMO_BYTES (32u << 20)

/* An explorer's memory budget (the native runtime's nx_account): add delta bytes (negative:
   give back); with checked, refuse (0) a growth past the budget's limit, else 1. */
typedef int (*Account)(void *budget, int64_t delta, int checked);

typedef struct {
    int32_t *lab, *inv, *cell, *clen;
    int32_t ncells;
    uint64_t trace;
} Part;

typedef struct {
    int32_t n, nslots;
    int32_t *off, *nbr;                 /* CSR adjacency */
    int64_t *vmin; int32_t *vspan, *voff, *node_of;  /* (slot, value) -> node, -1 none */
    Part base, work;
    Part *stack; int32_t depth;         /* search partitions, allocated on demand */
    int32_t *cnt, *touched, *cells, *hits, *queue, *gmap, *mnodes, qmask;
    uint8_t *inq, *ctouch, *amark, *bmark;
    uint32_t *stamp; uint32_t token;
    uint64_t *sortbuf;
    /* the representatives: keys -> first entry, entries chained */
    uint64_t *keys; int32_t *heads; size_t tmask, tcount;
    int64_t *states; int32_t *labs; int32_t *next; uint8_t *discrete; uint64_t *ekey;
    size_t nentries, ecap;
    /* a direct-mapped cache of states already canonicalised -> entry (-1 empty): a state reached
       again (from another predecessor) costs a hash and a compare, not a refinement */
    int64_t *memo_state; int32_t *memo_entry; size_t memo_mask;
    /* automorphisms of H the exact checks proved (v -> the matched representative's node at v's
       position), kept as maps of points (point p = voff[k] + value - vmin[k] of slot k) up to
       max_auts; each representative's images under them go into the memo (those stored before
       an automorphism was found get theirs when it is) */
    int32_t npoints, max_auts, naut;
    int32_t *point_of, *pslot, *auts, *slot_image;
    int64_t *pvalue, *image;
    uint64_t *aut_hash;
    uint8_t *slot_used;
    int64_t budget, left;
    uint64_t key_mask;   /* of the certificate, as the table's key */
    pthread_mutex_t lock;
    uint64_t calls, checks, searches, undecided, collisions, memo_hits, images;
    /* every byte allocated, and the budget (gc_attach) it is also counted in, if any */
    uint64_t held;
    Account account; void *account_ctx;
} GC;

/* Count bytes about to be allocated: refused (-1) past the attached budget's limit. */
static int take(GC *g, uint64_t bytes) {
    if (g->account && !g->account(g->account_ctx, (int64_t)bytes, 1)) return -1;
    g->held += bytes;
    return 0;
}

/* Count bytes allocated that are too few to refuse (search levels), or freed (negative). */
static void count(GC *g, int64_t delta) {
    if (g->account) g->account(g->account_ctx, delta, 0);
    g->held += (uint64_t)delta;
}

static uint64_t mix2(uint64_t h, uint64_t x) { return mix(h ^ (x + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2))); }

static int part_alloc(Part *p, int32_t n) {
    size_t b = sizeof(int32_t) * (size_t)(n + 1);
    p->lab = malloc(b); p->inv = malloc(b); p->cell = malloc(b); p->clen = malloc(b);
    return p->lab && p->inv && p->cell && p->clen ? 0 : -1;
}

static void part_free(Part *p) { free(p->lab); free(p->inv); free(p->cell); free(p->clen); }

static void part_copy(Part *to, const Part *from, int32_t n) {
    size_t b = sizeof(int32_t) * (size_t)n;
    memcpy(to->lab, from->lab, b); memcpy(to->inv, from->inv, b);
    memcpy(to->cell, from->cell, b); memcpy(to->clen, from->clen, b);
    to->ncells = from->ncells; to->trace = from->trace;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void sort_u64(uint64_t *a, int32_t n) {
    if (n > 24) { qsort(a, (size_t)n, sizeof(uint64_t), cmp_u64); return; }
    for (int32_t i = 1; i < n; i++) {
        uint64_t x = a[i]; int32_t j = i;
        while (j > 0 && a[j - 1] > x) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
}

/* Shell sort (gaps 3h + 1): no comparator calls, for the touched cells of one splitter. */
static void sort_i32(int32_t *a, int32_t n) {
    int32_t gap = 1;
    while (gap < n / 3) gap = 3 * gap + 1;
    for (; gap > 0; gap /= 3)
        for (int32_t i = gap; i < n; i++) {
            int32_t x = a[i], j = i;
            while (j >= gap && a[j - gap] > x) { a[j] = a[j - gap]; j -= gap; }
            a[j] = x;
        }
}

/* Queue ring of cell starts (qmask + 1 >= n slots): each start is queued at most once at a
   time (inq). */
typedef struct { int32_t head, size; } Queue;

static void enqueue(GC *g, Queue *q, int32_t s) {
    g->queue[(q->head + q->size) & g->qmask] = s;
    q->size++;
    g->inq[s] = 1;
}

/* After splitting the cell that started at s into parts starting at starts[0..k) (starts[0] = s):
   queue them as Hopcroft allows. */
static void queue_parts(GC *g, Part *p, Queue *q, const int32_t *starts, int32_t k, int was_queued) {
    if (was_queued) {
        for (int32_t i = 1; i < k; i++) enqueue(g, q, starts[i]);
        return;
    }
    int32_t largest = 0;
    for (int32_t i = 1; i < k; i++) if (p->clen[starts[i]] > p->clen[starts[largest]]) largest = i;
    for (int32_t i = 0; i < k; i++) if (i != largest) enqueue(g, q, starts[i]);
}

/* Refine p to the coarsest equitable partition finer than it, from the queued splitters.
   Singleton cells cannot split: their counts are dropped.  The trace adds a hash of each new
   part (position, splitter, count): a sum, so the hashes pipeline instead of chaining (the
   positions already order them). */
static void refine(GC *g, Part *p, Queue *q) {
    int32_t n = g->n;
    int32_t *cnt = g->cnt, *touched = g->touched, *cells = g->cells, *hits = g->hits;
    int32_t *starts = g->gmap;  /* scratch: part starts of one split (gmap is free here) */
    uint8_t *ctouch = g->ctouch;
    const int32_t *off = g->off, *nbr = g->nbr;
    int32_t *lab = p->lab, *inv = p->inv, *cell = p->cell, *clen = p->clen;
    uint64_t h = p->trace;
    while (q->size > 0 && p->ncells < n) {
        int32_t ws = g->queue[q->head];
        q->head = (q->head + 1) & g->qmask; q->size--;
        g->inq[ws] = 0;
        int32_t wl = clen[ws], nt = 0, nc = 0;
        for (int32_t i = ws; i < ws + wl; i++) {
            int32_t v = lab[i];
            for (int32_t j = off[v]; j < off[v + 1]; j++) {
                int32_t u = nbr[j];
                touched[nt] = u;
                nt += cnt[u]++ == 0;
            }
        }
        for (int32_t i = 0; i < nt; i++) {
            int32_t c = cell[touched[i]];
            if (clen[c] == 1) continue;
            hits[c] = ctouch[c] ? hits[c] + 1 : 1;
            cells[nc] = c;
            nc += !ctouch[c];
            ctouch[c] = 1;
        }
        sort_i32(cells, nc);
        for (int32_t ci = 0; ci < nc; ci++) {
            int32_t c = cells[ci], L = clen[c];
            ctouch[c] = 0;
            int32_t first = cnt[lab[c]];
            int uniform = hits[c] == L;
            for (int32_t i = c + 1; uniform && i < c + L; i++) uniform = cnt[lab[i]] == first;
            if (uniform) continue;
            /* split by count, parts in increasing count */
            uint64_t *buf = g->sortbuf;
            for (int32_t i = 0; i < L; i++) {
                int32_t v = lab[c + i];
                buf[i] = ((uint64_t)(uint32_t)cnt[v] << 32) | (uint32_t)v;
            }
            sort_u64(buf, L);
            int32_t k = 0;
            for (int32_t i = 0; i < L; i++) {
                int32_t v = (int32_t)(uint32_t)buf[i];
                lab[c + i] = v;
                inv[v] = c + i;
                if (i == 0 || (buf[i] >> 32) != (buf[i - 1] >> 32)) {
                    starts[k++] = c + i;
                    h += mix(((uint64_t)(c + i) << 40) ^ ((uint64_t)ws << 20) ^ (buf[i] >> 32));
                }
                cell[v] = starts[k - 1];
            }
            for (int32_t i = 0; i < k; i++) clen[starts[i]] = (i + 1 < k ? starts[i + 1] : c + L) - starts[i];
            p->ncells += k - 1;
            queue_parts(g, p, q, starts, k, g->inq[c]);
        }
        for (int32_t i = 0; i < nt; i++) cnt[touched[i]] = 0;
    }
    while (q->size > 0) {  /* discrete: drain the queue */
        g->inq[g->queue[q->head]] = 0;
        q->head = (q->head + 1) & g->qmask; q->size--;
    }
    p->trace = h;
}

/* Split every cell holding marked nodes (flags in mark) into unmarked, marked; then refine. */
static void mark_and_refine(GC *g, Part *p, const int32_t *nodes, int32_t k, const uint8_t *mark) {
    part_copy(p, &g->base, g->n);
    Queue q = {0, 0};
    int32_t *cells = g->cells, *hits = g->hits, nc = 0, starts[2];
    for (int32_t i = 0; i < k; i++) {
        int32_t c = p->cell[nodes[i]];
        if (!g->ctouch[c]) { g->ctouch[c] = 1; hits[c] = 0; cells[nc++] = c; }
        hits[c]++;
    }
    sort_i32(cells, nc);
    uint64_t h = p->trace;
    for (int32_t ci = 0; ci < nc; ci++) {
        int32_t c = cells[ci], L = p->clen[c], m = hits[c];
        g->ctouch[c] = 0;
        h = mix2(h, ((uint64_t)c << 32) | (uint32_t)m);
        if (m == L) continue;
        int32_t lo = c, hi = c + L - 1;  /* unmarked to the front, marked to the back */
        while (lo < hi) {
            while (lo < hi && !mark[p->lab[lo]]) lo++;
            while (lo < hi && mark[p->lab[hi]]) hi--;
            if (lo < hi) {
                int32_t a = p->lab[lo], b = p->lab[hi];
                p->lab[lo] = b; p->inv[b] = lo; p->lab[hi] = a; p->inv[a] = hi;
            }
        }
        int32_t s = c + L - m;
        for (int32_t i = s; i < c + L; i++) p->cell[p->lab[i]] = s;
        p->clen[c] = L - m; p->clen[s] = m;
        p->ncells++;
        starts[0] = c; starts[1] = s;
        queue_parts(g, p, &q, starts, 2, 0);
    }
    p->trace = h;
    refine(g, p, &q);
}

/* Give node v (in a non-singleton cell) a cell of its own in front of its cell; refine. */
static void individualise(GC *g, Part *p, int32_t v) {
    int32_t pos = p->inv[v], c = p->cell[v], L = p->clen[c], w = p->lab[c], starts[2];
    p->lab[c] = v; p->inv[v] = c; p->lab[pos] = w; p->inv[w] = pos;
    p->cell[v] = c;
    for (int32_t i = c + 1; i < c + L; i++) p->cell[p->lab[i]] = c + 1;
    p->clen[c] = 1; p->clen[c + 1] = L - 1;
    p->ncells++;
    p->trace = mix2(p->trace, ((uint64_t)c << 32) | 0xFFFFFFFFu);
    Queue q = {0, 0};
    starts[0] = c; starts[1] = c + 1;
    queue_parts(g, p, &q, starts, 2, 0);
    refine(g, p, &q);
}

static uint32_t next_token(GC *g) {
    if (++g->token == 0) { memset(g->stamp, 0, sizeof(uint32_t) * (size_t)g->n); g->token = 1; }
    return g->token;
}

/* Whether v -> lab_b[inv_a[v]] maps marks (amark) to marks (bmark) and edges to edges. */
static int discrete_isomorphism(GC *g, const int32_t *inv_a, const int32_t *lab_b) {
    int32_t n = g->n, *f = g->gmap;
    for (int32_t v = 0; v < n; v++) {
        f[v] = lab_b[inv_a[v]];
        if (g->amark[v] != g->bmark[f[v]]) return 0;
    }
    for (int32_t u = 0; u < n; u++) {
        uint32_t t = next_token(g);
        int32_t fu = f[u];
        for (int32_t j = g->off[fu]; j < g->off[fu + 1]; j++) g->stamp[g->nbr[j]] = t;
        for (int32_t j = g->off[u]; j < g->off[u + 1]; j++)
            if (g->stamp[f[g->nbr[j]]] != t) return 0;
    }
    return 1;
}

static Part *level(GC *g, int32_t d) {
    if (d >= g->depth) {
        int32_t want = d + 8;
        Part *s = realloc(g->stack, sizeof(Part) * (size_t)want);
        if (!s) return NULL;
        g->stack = s;
        count(g, (int64_t)((sizeof(Part) + 4 * sizeof(int32_t) * (size_t)(g->n + 1)) * (size_t)(want - g->depth)));
        for (int32_t i = g->depth; i < want; i++) {
            memset(&s[i], 0, sizeof(Part));
            if (part_alloc(&s[i], g->n)) { g->depth = i + 1; return NULL; }
        }
        g->depth = want;
    }
    return &g->stack[d];
}

/* 1: an isomorphism from the partition at stack[2d] to the one at stack[2d + 1] (equitable,
   equal traces) exists, 0: none, -1: budget spent, -2: out of memory.  Children use 2d + 2, 2d + 3. */
static int search(GC *g, int32_t d) {
    if (g->stack[2 * d].ncells == g->n) return discrete_isomorphism(g, g->stack[2 * d].inv, g->stack[2 * d + 1].lab);
    if (!level(g, 2 * d + 3)) return -2;  /* may move the stack: pointers only after this */
    Part *a = &g->stack[2 * d], *b = &g->stack[2 * d + 1], *ca = a + 2, *cb = a + 3;
    int32_t best = -1;
    for (int32_t s = 0; s < g->n; s += a->clen[s])
        if (a->clen[s] > 1 && (best < 0 || a->clen[s] < a->clen[best])) best = s;
    for (int32_t i = best; i < best + b->clen[best]; i++) {
        if (--g->left < 0) return -1;
        part_copy(ca, a, g->n);
        individualise(g, ca, a->lab[best]);
        part_copy(cb, b, g->n);
        individualise(g, cb, b->lab[i]);
        if (cb->trace != ca->trace || cb->ncells != ca->ncells) continue;
        int r = search(g, d + 1);
        if (r != 0) return r;
        a = &g->stack[2 * d]; b = a + 1; ca = a + 2; cb = a + 3;
    }
    return 0;
}

/* Double the table: 0, -2 out of memory, -4 past the attached budget's limit. */
static int table_grow(GC *g) {
    size_t cap = (g->tmask + 1) * 2, slot = sizeof(uint64_t) + sizeof(int32_t);
    if (take(g, cap * slot)) return -4;
    uint64_t *keys = calloc(cap, sizeof(uint64_t));
    int32_t *heads = malloc(cap * sizeof(int32_t));
    if (!keys || !heads) { free(keys); free(heads); count(g, -(int64_t)(cap * slot)); return -2; }
    for (size_t i = 0; i < cap; i++) heads[i] = -1;
    for (size_t i = 0; i <= g->tmask; i++) {
        if (g->heads[i] < 0) continue;
        size_t h = mix(g->keys[i]) & (cap - 1);
        while (heads[h] >= 0) h = (h + 1) & (cap - 1);
        keys[h] = g->keys[i]; heads[h] = g->heads[i];
    }
    free(g->keys); free(g->heads);
    count(g, -(int64_t)((g->tmask + 1) * slot));
    g->keys = keys; g->heads = heads; g->tmask = cap - 1;
    return 0;
}

static size_t table_slot(const GC *g, uint64_t key) {
    size_t h = mix(key) & g->tmask;
    while (g->heads[h] >= 0 && g->keys[h] != key) h = (h + 1) & g->tmask;
    return h;
}

/* Marks of state t in amark/mnodes; returns the number of slots, or -1 for a value without node. */
static int32_t state_nodes(const GC *g, const int64_t *t, int32_t *nodes) {
    for (int32_t k = 0; k < g->nslots; k++) {
        int64_t i = t[k] - g->vmin[k];
        if (i < 0 || i >= g->vspan[k]) return -1;
        int32_t v = g->node_of[g->voff[k] + i];
        if (v < 0) return -1;
        nodes[k] = v;
    }
    return g->nslots;
}

/* Store t as a new representative under key at the table's slot: 0, -2 out of memory, -4
   past the attached budget's limit (t is stored then, and the table is full but valid). */
static int add_entry(GC *g, const int64_t *t, uint64_t key, size_t slot) {
    if (g->nentries == g->ecap) {
        size_t cap = g->ecap ? 2 * g->ecap : 64;  /* small first: a representative holds n labels */
        uint64_t per = sizeof(int64_t) * (size_t)g->nslots + sizeof(int32_t) + 1 + sizeof(uint64_t)
                       + sizeof(int32_t) * (size_t)g->n;
        if (take(g, per * (cap - g->ecap))) return -4;
        int64_t *st = realloc(g->states, sizeof(int64_t) * cap * (size_t)g->nslots);
        if (st) g->states = st;
        int32_t *nx = realloc(g->next, sizeof(int32_t) * cap);
        if (nx) g->next = nx;
        uint8_t *ds = realloc(g->discrete, cap);
        if (ds) g->discrete = ds;
        uint64_t *ek = realloc(g->ekey, sizeof(uint64_t) * cap);
        if (ek) g->ekey = ek;
        int32_t *lb = realloc(g->labs, sizeof(int32_t) * cap * (size_t)g->n);
        if (lb) g->labs = lb;
        if (!st || !nx || !ds || !ek || !lb) return -2;
        g->ecap = cap;
    }
    size_t e = g->nentries++;
    memcpy(g->states + e * (size_t)g->nslots, t, sizeof(int64_t) * (size_t)g->nslots);
    g->discrete[e] = g->work.ncells == g->n;
    g->ekey[e] = key;
    if (g->discrete[e]) memcpy(g->labs + e * (size_t)g->n, g->work.lab, sizeof(int32_t) * (size_t)g->n);
    g->next[e] = g->heads[slot] >= 0 ? g->heads[slot] : -1;
    if (g->heads[slot] < 0) { g->keys[slot] = key; g->tcount++; }
    g->heads[slot] = (int32_t)e;
    if (2 * g->tcount > g->tmask) return table_grow(g);
    return 0;
}

/* Compare the marked state (amark, g->work) with entry e: 1 isomorphic, 0 not, <0 as search. */
static int same_orbit(GC *g, size_t e) {
    const int64_t *u = g->states + e * (size_t)g->nslots;
    int32_t *bn = g->mnodes + g->nslots;
    state_nodes(g, u, bn);
    for (int32_t k = 0; k < g->nslots; k++) g->bmark[bn[k]] = 1;
    int r;
    if (g->discrete[e] != (g->work.ncells == g->n)) r = 0;
    else if (g->discrete[e]) { g->checks++; r = discrete_isomorphism(g, g->work.inv, g->labs + e * (size_t)g->n); }
    else {
        g->searches++;
        if (!level(g, 1)) r = -2;
        else {
            /* stack[0]: a copy of the work partition, stack[1]: the entry's */
            part_copy(&g->stack[0], &g->work, g->n);
            mark_and_refine(g, &g->stack[1], bn, g->nslots, g->bmark);
            g->left = g->budget;
            r = g->stack[1].trace == g->work.trace && g->stack[1].ncells == g->work.ncells ? search(g, 0) : 0;
        }
    }
    for (int32_t k = 0; k < g->nslots; k++) g->bmark[bn[k]] = 0;
    return r;
}

static size_t memo_slot(const GC *g, const int64_t *t) {
    uint64_t mh = 0;
    for (int32_t k = 0; k < g->nslots; k++) mh = mix2(mh, (uint64_t)t[k]);
    return mh & g->memo_mask;
}

/* The memo is 2-way: a state lives at its slot or the slot's neighbour (ms ^ 1). */
static int32_t memo_get(const GC *g, const int64_t *t) {
    size_t ms = memo_slot(g, t), ns = (size_t)g->nslots;
    for (int way = 0; way < 2; way++, ms ^= 1) {
        int32_t e = g->memo_entry[ms];
        if (e >= 0 && memcmp(g->memo_state + ms * ns, t, sizeof(int64_t) * ns) == 0) return e;
    }
    return -1;
}

static void memo_put(GC *g, const int64_t *t, int32_t e) {
    size_t ms = memo_slot(g, t), ns = (size_t)g->nslots;
    /* the first way if free or t's, else the second (evicting what was there) */
    if (g->memo_entry[ms] >= 0 && memcmp(g->memo_state + ms * ns, t, sizeof(int64_t) * ns) != 0) ms ^= 1;
    memcpy(g->memo_state + ms * ns, t, sizeof(int64_t) * ns);
    g->memo_entry[ms] = e;
}

/* g->image = t's image under the point map m. */
static void image_under(GC *g, const int32_t *m, const int64_t *t) {
    for (int32_t k = 0; k < g->nslots; k++) {
        int32_t q = m[g->voff[k] + (int32_t)(t[k] - g->vmin[k])];
        g->image[g->pslot[q]] = g->pvalue[q];
    }
}

/* Keep the point map at auts[naut] (hash h) unless known; the representatives stored so far get
   their images under it.  Returns whether it was kept. */
static int keep_new(GC *g, uint64_t h) {
    int32_t np = g->npoints;
    const int32_t *m = g->auts + (size_t)g->naut * np;
    for (int32_t j = 0; j < g->naut; j++)
        if (g->aut_hash[j] == h && memcmp(g->auts + (size_t)j * np, m, sizeof(int32_t) * (size_t)np) == 0) return 0;
    g->aut_hash[g->naut++] = h;
    for (size_t e = 0; e < g->nentries; e++) {
        image_under(g, m, g->states + e * (size_t)g->nslots);
        memo_put(g, g->image, (int32_t)e);
        g->images++;
    }
    return 1;
}

/* Keep the automorphism in g->gmap (just proved: it maps the marked graph onto a
   representative's) as a map of points, unless it is the identity on points, known, or does
   not map slots onto slots. */
static void learn(GC *g) {
    if (g->naut >= g->max_auts) return;
    int32_t np = g->npoints, *m = g->auts + (size_t)g->naut * np;
    uint64_t h = 0;
    int identity = 1;
    for (int32_t p = 0; p < np; p++) {
        int32_t v = g->node_of[p];
        if (v < 0) { m[p] = -1; continue; }
        int32_t q = g->point_of[g->gmap[v]];
        if (q < 0) return;
        m[p] = q;
        identity &= q == p;
        h = mix2(h, (uint64_t)q);
    }
    if (identity) return;
    for (int32_t k = 0; k < g->nslots; k++) { g->slot_image[k] = -1; g->slot_used[k] = 0; }
    for (int32_t k = 0; k < g->nslots; k++)
        for (int32_t i = 0; i < g->vspan[k]; i++) {
            int32_t q = m[g->voff[k] + i];
            if (q < 0) continue;
            int32_t to = g->pslot[q];
            if (g->slot_image[k] < 0) {
                if (g->slot_used[to]) return;
                g->slot_image[k] = to;
                g->slot_used[to] = 1;
            } else if (g->slot_image[k] != to) return;
        }
    if (!keep_new(g, h)) return;
    /* Close under composition (products of automorphisms are automorphisms), as far as the
       cap allows: new elements are appended, and each is multiplied with all before it. */
    for (int32_t i = g->naut - 1; i < g->naut; i++)
        for (int32_t j = 0; j <= i && g->naut < g->max_auts; j++)
            for (int side = 0; side < 2 && g->naut < g->max_auts; side++) {
                const int32_t *x = g->auts + (size_t)(side ? j : i) * np, *y = g->auts + (size_t)(side ? i : j) * np;
                int32_t *xy = g->auts + (size_t)g->naut * np;
                uint64_t hh = 0;
                int id = 1;
                for (int32_t p = 0; p < np; p++) {
                    xy[p] = y[p] < 0 ? -1 : x[y[p]];
                    if (xy[p] >= 0) { id &= xy[p] == p; hh = mix2(hh, (uint64_t)xy[p]); }
                }
                if (!id) keep_new(g, hh);
            }
}

/* Put t's images under the known automorphisms into the memo as members of entry e's orbit. */
static void remember_images(GC *g, const int64_t *t, int32_t e) {
    for (int32_t j = 0; j < g->naut; j++) {
        image_under(g, g->auts + (size_t)j * g->npoints, t);
        memo_put(g, g->image, e);
        g->images++;
    }
}

/* The table key of the refined marking in g->work (marked nodes an): its trace, cell count and
   the positions of the marks (canonical, as the positions are). */
static uint64_t certificate(const GC *g, const int32_t *an) {
    uint64_t marks = 0;
    for (int32_t k = 0; k < g->nslots; k++) marks += mix((uint64_t)g->work.inv[an[k]] + 0x632BE59BD9B4E019ULL);
    return mix2(mix2(g->work.trace, (uint64_t)g->work.ncells), marks) & g->key_mask;
}

/* Replace t by the representative of its orbit (the first state of the orbit seen, which is
   then t itself).  0 done, -1 undecided (search budget spent; t unchanged, nothing stored),
   -2 out of memory, -3 a value without a literal node, -4 the attached budget's limit reached
   (t unchanged). */
int gc_canonicalise(void *p, int64_t *t) {
    GC *g = p;
    pthread_mutex_lock(&g->lock);
    g->calls++;
    size_t ns = (size_t)g->nslots;
    if (g->memo_mask) {
        int32_t e = memo_get(g, t);
        if (e >= 0) {
            memcpy(t, g->states + (size_t)e * ns, sizeof(int64_t) * ns);
            g->memo_hits++;
            pthread_mutex_unlock(&g->lock);
            return 0;
        }
    }
    int rc = 0, undecided = 0;
    int32_t *an = g->mnodes;
    if (state_nodes(g, t, an) < 0) { pthread_mutex_unlock(&g->lock); return -3; }
    for (int32_t k = 0; k < g->nslots; k++) g->amark[an[k]] = 1;
    mark_and_refine(g, &g->work, an, g->nslots, g->amark);
    uint64_t key = certificate(g, an);
    size_t slot = table_slot(g, key);
    int found = 0;
    for (int32_t e = g->heads[slot]; e >= 0 && !found; e = g->next[e]) {
        int r = same_orbit(g, (size_t)e);
        if (r == 1) {
            if (g->memo_mask) {
                learn(g);
                memo_put(g, t, e);
                remember_images(g, t, e);
            }
            memcpy(t, g->states + (size_t)e * g->nslots, sizeof(int64_t) * (size_t)g->nslots);
            found = 1;
        } else if (r == 0) g->collisions++;
        else if (r == -1) undecided = 1;
        else { rc = r; break; }
    }
    if (!found && rc == 0) {
        if (undecided) { g->undecided++; rc = -1; }
        else {
            rc = add_entry(g, t, key, slot);
            if (rc == 0 && g->memo_mask) {
                memo_put(g, t, (int32_t)(g->nentries - 1));
                remember_images(g, t, (int32_t)(g->nentries - 1));
            }
        }
    }
    for (int32_t k = 0; k < g->nslots; k++) g->amark[an[k]] = 0;
    pthread_mutex_unlock(&g->lock);
    return rc;
}

/* Refine t into g->work and find its table slot (under the lock). */
static size_t locate(GC *g, const int64_t *t, uint64_t *key) {
    int32_t *an = g->mnodes;
    state_nodes(g, t, an);
    for (int32_t k = 0; k < g->nslots; k++) g->amark[an[k]] = 1;
    mark_and_refine(g, &g->work, an, g->nslots, g->amark);
    for (int32_t k = 0; k < g->nslots; k++) g->amark[an[k]] = 0;
    *key = certificate(g, an);
    return table_slot(g, *key);
}

/* The representatives whose certificate equals t's (up to max, into out): the states an
   undecided t must be compared with by a canonical form.  Returns their number, -3 for a value
   without a literal node. */
int gc_bucket(void *p, const int64_t *t, int64_t *out, int32_t max) {
    GC *g = p;
    uint64_t key;
    pthread_mutex_lock(&g->lock);
    if (state_nodes(g, t, g->mnodes) < 0) { pthread_mutex_unlock(&g->lock); return -3; }
    size_t slot = locate(g, t, &key), ns = (size_t)g->nslots;
    int32_t count = 0;
    for (int32_t e = g->heads[slot]; e >= 0; e = g->next[e], count++)
        if (count < max) memcpy(out + (size_t)count * ns, g->states + (size_t)e * ns, sizeof(int64_t) * ns);
    pthread_mutex_unlock(&g->lock);
    return count;
}

/* Store t as the representative of a new orbit (a canonical form proved it new). */
int gc_insert(void *p, const int64_t *t) {
    GC *g = p;
    uint64_t key;
    pthread_mutex_lock(&g->lock);
    if (state_nodes(g, t, g->mnodes) < 0) { pthread_mutex_unlock(&g->lock); return -3; }
    size_t slot = locate(g, t, &key);
    int rc = add_entry(g, t, key, slot);
    pthread_mutex_unlock(&g->lock);
    return rc;
}

/* Count this canonicaliser's bytes in an explorer's budget from now on (account NULL: in
   none, giving back what it counted); its present bytes are added unchecked, as the runtime's
   own first allocations are, so a budget they exceed stops at its next growth. */
void gc_attach(void *p, void *account, void *budget) {
    GC *g = p;
    pthread_mutex_lock(&g->lock);
    if (g->account) g->account(g->account_ctx, -(int64_t)g->held, 0);
    g->account = (Account)account; g->account_ctx = budget;
    if (g->account) g->account(g->account_ctx, (int64_t)g->held, 0);
    pthread_mutex_unlock(&g->lock);
}

/* Bytes held (see GC.held). */
uint64_t gc_memory(void *p) { return ((GC *)p)->held; }

void gc_free(void *p) {
    GC *g = p;
    if (!g) return;
    free(g->off); free(g->nbr); free(g->vmin); free(g->vspan); free(g->voff); free(g->node_of);
    part_free(&g->base); part_free(&g->work);
    for (int32_t i = 0; i < g->depth; i++) part_free(&g->stack[i]);
    free(g->stack);
    free(g->cnt); free(g->touched); free(g->cells); free(g->hits); free(g->queue); free(g->gmap);
    free(g->mnodes); free(g->inq); free(g->ctouch); free(g->amark); free(g->bmark); free(g->stamp);
    free(g->sortbuf); free(g->keys); free(g->heads); free(g->states); free(g->labs); free(g->next);
    free(g->discrete); free(g->ekey); free(g->memo_state); free(g->memo_entry);
    free(g->point_of); free(g->pslot); free(g->auts); free(g->slot_image); free(g->pvalue);
    free(g->image); free(g->aut_hash); free(g->slot_used);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* H: n nodes, CSR (offsets[n + 1], nbrs), colour class per node (ordered: class index);
   slot k's values vmin[k] .. vmin[k] + vspan[k] - 1 have nodes node_of[voff[k] + i] (-1: none).
   The base partition is H's coarsest equitable refinement of the colour classes.  The table is
   keyed by key_bits bits of the certificate (64; tests use 0: every state is compared exactly
   with every representative).  Up to max_auts proved automorphisms are kept (0: none). */
void *gc_new(int32_t n, const int32_t *offsets, const int32_t *nbrs, const int32_t *colour,
             int32_t nslots, const int64_t *vmin, const int32_t *vspan, const int32_t *node_of,
             int64_t budget, int32_t key_bits, int32_t max_auts, int64_t memo_bytes) {
    GC *g = calloc(1, sizeof(GC));
    if (!g || n < 1) { free(g); return NULL; }
    g->n = n; g->nslots = nslots; g->budget = budget;
    g->key_mask = key_bits >= 64 ? ~0ULL : key_bits <= 0 ? 0 : (1ULL << key_bits) - 1;
    pthread_mutex_init(&g->lock, NULL);
    int32_t m = offsets[n], nv = 0;
    for (int32_t k = 0; k < nslots; k++) nv += vspan[k];
    g->off = malloc(sizeof(int32_t) * (size_t)(n + 1)); g->nbr = malloc(sizeof(int32_t) * (size_t)(m + 1));
    g->vmin = malloc(sizeof(int64_t) * (size_t)(nslots + 1)); g->vspan = malloc(sizeof(int32_t) * (size_t)(nslots + 1));
    g->voff = malloc(sizeof(int32_t) * (size_t)(nslots + 1)); g->node_of = malloc(sizeof(int32_t) * (size_t)(nv + 1));
    size_t b = sizeof(int32_t) * (size_t)(n + 1);
    g->cnt = calloc((size_t)n + 1, sizeof(int32_t)); g->touched = malloc(b); g->cells = malloc(b);
    g->qmask = 1;
    while (g->qmask < n) g->qmask *= 2;
    g->queue = malloc(sizeof(int32_t) * (size_t)g->qmask--);
    g->hits = malloc(b); g->gmap = malloc(b);
    g->mnodes = malloc(sizeof(int32_t) * (size_t)(2 * nslots + 1));
    g->inq = calloc((size_t)n + 1, 1); g->ctouch = calloc((size_t)n + 1, 1);
    g->amark = calloc((size_t)n + 1, 1); g->bmark = calloc((size_t)n + 1, 1);
    g->stamp = calloc((size_t)n + 1, sizeof(uint32_t));
    g->sortbuf = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    g->tmask = 1023;
    g->keys = calloc(g->tmask + 1, sizeof(uint64_t)); g->heads = malloc(sizeof(int32_t) * (g->tmask + 1));
    if (!g->off || !g->nbr || !g->vmin || !g->vspan || !g->voff || !g->node_of || !g->cnt || !g->touched
        || !g->cells || !g->hits || !g->queue || !g->gmap || !g->mnodes || !g->inq || !g->ctouch
        || !g->amark || !g->bmark || !g->stamp || !g->sortbuf || !g->keys || !g->heads
        || part_alloc(&g->base, n) || part_alloc(&g->work, n)) { gc_free(g); return NULL; }
    for (size_t i = 0; i <= g->tmask; i++) g->heads[i] = -1;
    /* the memo: the largest power of two of states within memo_bytes (none without slots) */
    size_t memo_cap = memo_bytes < 0 || (size_t)memo_bytes > MEMO_BYTES ? MEMO_BYTES : (size_t)memo_bytes;
    for (size_t want = 2; nslots > 0 && want * (size_t)nslots * sizeof(int64_t) <= memo_cap; want *= 2)
        g->memo_mask = want - 1;
    if (g->memo_mask) {
        g->memo_state = malloc(sizeof(int64_t) * (size_t)nslots * (g->memo_mask + 1));
        g->memo_entry = malloc(sizeof(int32_t) * (g->memo_mask + 1));
        if (!g->memo_state || !g->memo_entry) { gc_free(g); return NULL; }
        for (size_t i = 0; i <= g->memo_mask; i++) g->memo_entry[i] = -1;
    }
    g->npoints = nv;
    g->max_auts = max_auts > 0 ? max_auts : 0;
    g->point_of = malloc(sizeof(int32_t) * (size_t)(n + 1));
    g->pslot = malloc(sizeof(int32_t) * (size_t)(nv + 1));
    g->pvalue = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    g->auts = malloc(sizeof(int32_t) * ((size_t)nv * (size_t)g->max_auts + 1));
    g->aut_hash = malloc(sizeof(uint64_t) * (size_t)(g->max_auts + 1));
    g->slot_image = malloc(sizeof(int32_t) * (size_t)(nslots + 1));
    g->slot_used = malloc((size_t)nslots + 1);
    g->image = malloc(sizeof(int64_t) * (size_t)(nslots + 1));
    if (!g->point_of || !g->pslot || !g->pvalue || !g->auts || !g->aut_hash || !g->slot_image
        || !g->slot_used || !g->image) { gc_free(g); return NULL; }
    for (int32_t v = 0; v < n; v++) g->point_of[v] = -1;
    for (int32_t k = 0, pt = 0; k < nslots; k++)
        for (int32_t i = 0; i < vspan[k]; i++, pt++) {
            g->pslot[pt] = k;
            g->pvalue[pt] = vmin[k] + i;
            if (node_of[pt] >= 0) g->point_of[node_of[pt]] = pt;
        }
    memcpy(g->off, offsets, sizeof(int32_t) * (size_t)(n + 1));
    memcpy(g->nbr, nbrs, sizeof(int32_t) * (size_t)m);
    memcpy(g->vmin, vmin, sizeof(int64_t) * (size_t)nslots);
    memcpy(g->vspan, vspan, sizeof(int32_t) * (size_t)nslots);
    memcpy(g->node_of, node_of, sizeof(int32_t) * (size_t)nv);
    for (int32_t k = 0, o = 0; k < nslots; o += vspan[k], k++) g->voff[k] = o;
    /* the colour classes in class order, every class queued */
    uint64_t *buf = g->sortbuf;
    for (int32_t v = 0; v < n; v++) buf[v] = ((uint64_t)(uint32_t)colour[v] << 32) | (uint32_t)v;
    qsort(buf, (size_t)n, sizeof(uint64_t), cmp_u64);
    Part *p = &g->base;
    Queue q = {0, 0};
    p->ncells = 0; p->trace = 0;
    for (int32_t i = 0, s = 0; i < n; i++) {
        int32_t v = (int32_t)(uint32_t)buf[i];
        if (i == 0 || (buf[i] >> 32) != (buf[i - 1] >> 32)) {
            s = i; p->ncells++;
            p->trace = mix2(p->trace, buf[i] >> 32);
            enqueue(g, &q, s);
        }
        p->lab[i] = v; p->inv[v] = i; p->cell[v] = s;
    }
    for (int32_t i = 0; i < n; i += 0) {
        int32_t s = i;
        while (i < n && p->cell[p->lab[i]] == s) i++;
        p->clen[s] = i - s;
    }
    refine(g, p, &q);
    /* what the allocations above hold: the graph, the partitions and buffers, the table, the
       memo and the automorphism store */
    size_t i32 = sizeof(int32_t), i64 = sizeof(int64_t), nn = (size_t)n + 1, ns = (size_t)nslots + 1;
    g->held = sizeof(GC) + i32 * (nn + (size_t)m + 1 + 2 * ns + (size_t)nv + 1) + i64 * ns
              + i32 * nn * 5 + i32 * ((size_t)g->qmask + 1) + i32 * (2 * (size_t)nslots + 1) + 4 * nn
              + sizeof(uint32_t) * nn + sizeof(uint64_t) * nn
              + (sizeof(uint64_t) + i32) * (g->tmask + 1) + 2 * 4 * i32 * nn
              + (g->memo_mask ? (i64 * (size_t)nslots + i32) * (g->memo_mask + 1) : 0)
              + i32 * nn + (i32 + i64) * ((size_t)nv + 1) + i32 * ((size_t)nv * (size_t)g->max_auts + 1)
              + sizeof(uint64_t) * ((size_t)g->max_auts + 1) + i32 * ns + ns + i64 * ns;
    return g;
}

/* calls, discrete checks, searches, undecided calls, equal certificates of other orbits,
   representatives, memo hits, images memoised, automorphisms kept */
void gc_stats(void *p, uint64_t *out) {
    GC *g = p;
    pthread_mutex_lock(&g->lock);
    out[0] = g->calls; out[1] = g->checks; out[2] = g->searches; out[3] = g->undecided;
    out[4] = g->collisions; out[5] = g->nentries; out[6] = g->memo_hits; out[7] = g->images;
    out[8] = (uint64_t)g->naut;
    pthread_mutex_unlock(&g->lock);
}
