/* The canonicaliser: a state t of c->nslots values (i64) becomes the representative of its
 * orbit under the group the tables of a Canon describe, in place.  One text, two users: the
 * native explorer (runtime.c, t its slots; tables set at run time by nx_set_symmetry and
 * nx_set_pids) and Spin's verifier written by ``symdetect spin`` (t the fields of pan's
 * ``now`` gathered, the tables static; detect/export/spin.py).  The includer defines i64 and
 * CANON_MAX (at least nslots, at least 1).  Each form stores the image of t under an element
 * of the group, so only states of one orbit are merged (soundness rests on the tables alone);
 * each is the least image in its key order, so one state per orbit is kept (exactness). */

#define CANON_MAXPIDS 64

typedef struct Canon {
    int nslots;
    /* Sym(blocks): nblocks blocks of blen slots, permuted whole (position by position) */
    int nblocks, blen;
    const int32_t *blocks;
    /* S_m permuting pids (canon_pids): pid q owns the slots pid_blocks[q * pid_len ..], in key
     * order; pid_fixed are the slots the group fixes that hold pids, in key order (they come
     * first in the key); pid_labelled[k] when slot k holds pid values, then the pid value v
     * names is pid_label[poff[k] + index_of(k, v)] (-1 none; index_of < 0: none);
     * pid_value[k * pid_m + q] is the value of slot k naming pid q */
    int pid_m, pid_len, pid_nfixed;
    const int32_t *pid_blocks, *pid_fixed, *pid_labelled, *pid_label, *poff;
    const i64 *pid_value;
    i64 (*index_of)(int k, i64 v);
    /* every element (canon_elements), in gather form: element e's image has at slot f the
     * value map el_map[e * nslots + f] applied to t[el_src[e * nslots + f]]; map m renames
     * v to map_tab[map_off[m] + v - map_lo[m]] for 0 <= v - map_lo[m] < map_len[m] (map 0:
     * none); least in the slot order el_order (nslots entries) */
    int nel;
    const int32_t *el_src, *el_map, *el_order;
    const i64 *map_lo, *map_tab;
    const int32_t *map_len, *map_off;
} Canon;

/* Least image under Sym(blocks): the blocks' value tuples sorted (insertion sort). */
static void canon_sort_blocks(const Canon *c, i64 *t) {
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

/* ---------------------------------------------------------------- least image under S_m on pids
 *
 * The group is S_m acting on m pids: a permutation pi moves pid q's block of slots onto pid
 * pi(q)'s (position by position) and replaces every value naming a pid q by the value naming
 * pi(q).  The key reads the fixed slots (pid_fixed; the others the group fixes never change)
 * and then the blocks of pids 0, 1, ..., m-1.  The least image is found greedily where the
 * key forces the choice and by backtracking only where it does not:
 *  - a fixed slot naming a pid not yet placed places it at the free target whose value there
 *    is least (values differ per pid, so this is the only way to reach the least key);
 *  - target block j, when no pid is placed there yet, may come from any unplaced pid p: each
 *    candidate's block image is computed (the unplaced pids it names placed greedily, as
 *    above), and only the candidates with the least image are explored further;
 *  - of tied candidates, one per twin class is explored: p and r are twins when the
 *    transposition (p r) fixes the state; with both unplaced it also fixes the placements
 *    so far, so their subtrees reach the same images.
 * best[] holds the least image found, valid for its first best_len blocks; on entering
 * level j, best's first j blocks equal the current path's, so each level compares one block. */

typedef struct {
    const Canon *c;
    const i64 *s;
    int lab[CANON_MAX];                  /* pid named by s[k], -1 when none */
    int pi[CANON_MAXPIDS], inv[CANON_MAXPIDS]; /* placements: source pid -> target pid and back */
    int placed[CANON_MAXPIDS];           /* stack of placed source pids, to undo */
    int nplaced;
    i64 best[CANON_MAX];                 /* m * L values: the blocks of the least image */
    int best_len;
} CanonPidSearch;

/* Place source pid p at the free target whose value in slot k is least. */
static void canon_place_least(CanonPidSearch *x, int p, int k) {
    const Canon *c = x->c;
    const i64 *val = c->pid_value + (size_t)k * c->pid_m;
    int q = -1;
    for (int r = 0; r < c->pid_m; r++)
        if (x->inv[r] < 0 && (q < 0 || val[r] < val[q])) q = r;
    x->pi[p] = q;
    x->inv[q] = p;
    x->placed[x->nplaced++] = p;
}

static void canon_unplace_to(CanonPidSearch *x, int n) {
    while (x->nplaced > n) {
        int p = x->placed[--x->nplaced];
        x->inv[x->pi[p]] = -1;
        x->pi[p] = -1;
    }
}

/* Image of source block p at target block j (p placed at j), placing the pids it names. */
static void canon_block_image(CanonPidSearch *x, int p, int j, i64 *out) {
    const Canon *c = x->c;
    int L = c->pid_len;
    for (int pos = 0; pos < L; pos++) {
        int k = c->pid_blocks[p * L + pos], l = x->lab[k];
        int tk = c->pid_blocks[j * L + pos];
        if (l < 0) { out[pos] = x->s[k]; continue; }
        if (x->pi[l] < 0) canon_place_least(x, l, tk);
        out[pos] = c->pid_value[(size_t)tk * c->pid_m + x->pi[l]];
    }
}

/* Whether the transposition (p r) fixes the state. */
static int canon_swap_fixes(const CanonPidSearch *x, int p, int r) {
    const Canon *c = x->c;
    int L = c->pid_len;
    for (int i = 0; i < c->pid_nfixed; i++) {
        int l = x->lab[c->pid_fixed[i]];
        if (l == p || l == r) return 0;
    }
    for (int q = 0; q < c->pid_m; q++) {
        int tq = q == p ? r : q == r ? p : q;
        for (int pos = 0; pos < L; pos++) {
            int k = c->pid_blocks[q * L + pos], l = x->lab[k];
            int tk = c->pid_blocks[tq * L + pos];
            i64 v = l < 0 ? x->s[k] : c->pid_value[(size_t)tk * c->pid_m + (l == p ? r : l == r ? p : l)];
            if (v != x->s[tk]) return 0;
        }
    }
    return 1;
}

static int canon_lex_cmp(const i64 *a, const i64 *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

static void canon_pid_search(CanonPidSearch *x, int j) {
    const Canon *c = x->c;
    int m = c->pid_m, L = c->pid_len;
    if (j == m) return;
    i64 least[L], img[L];  /* one block each: the recursion is m levels deep */
    int tied[CANON_MAXPIDS], ntied = 0;
    int mark = x->nplaced;
    if (x->inv[j] >= 0) {
        tied[ntied++] = x->inv[j];
        canon_block_image(x, x->inv[j], j, least);
        canon_unplace_to(x, mark);
    } else {
        for (int p = 0; p < m; p++) {
            if (x->pi[p] >= 0) continue;
            x->pi[p] = j; x->inv[j] = p; x->placed[x->nplaced++] = p;
            canon_block_image(x, p, j, img);
            canon_unplace_to(x, mark);
            int cmp = ntied ? canon_lex_cmp(img, least, L) : -1;
            if (cmp < 0) { ntied = 0; memcpy(least, img, sizeof(i64) * (size_t)L); }
            if (cmp <= 0) tied[ntied++] = p;
        }
    }
    if (j < x->best_len) {
        int cmp = canon_lex_cmp(least, x->best + j * L, L);
        if (cmp > 0) return;
        if (cmp < 0) x->best_len = j;
    }
    if (j >= x->best_len) {
        memcpy(x->best + j * L, least, sizeof(i64) * (size_t)L);
        x->best_len = j + 1;
    }
    int explored[CANON_MAXPIDS], nexplored = 0;
    for (int i = 0; i < ntied; i++) {
        int p = tied[i], twin_done = 0;
        /* twins are an equivalence (conjugate transpositions): one explored member suffices */
        for (int h = 0; h < nexplored && !twin_done; h++) twin_done = canon_swap_fixes(x, explored[h], p);
        if (twin_done) continue;
        explored[nexplored++] = p;
        if (x->inv[j] < 0) { x->pi[p] = j; x->inv[j] = p; x->placed[x->nplaced++] = p; }
        canon_block_image(x, p, j, img);
        canon_pid_search(x, j + 1);
        canon_unplace_to(x, mark);
    }
}

/* The pid value v in slot k names, or -1. */
static int canon_label(const Canon *c, int k, i64 v) {
    i64 i;
    if (!c->pid_labelled[k]) return -1;
    i = c->index_of(k, v);
    return i < 0 ? -1 : c->pid_label[c->poff[k] + i];
}

/* Least image of t under S_m on pids, in place. */
static void canon_pids(const Canon *c, i64 *t) {
    CanonPidSearch x;
    int m = c->pid_m, L = c->pid_len;
    x.c = c;
    x.s = t;
    x.nplaced = 0;
    x.best_len = 0;
    for (int k = 0; k < c->nslots; k++) x.lab[k] = canon_label(c, k, t[k]);
    for (int q = 0; q < m; q++) x.pi[q] = x.inv[q] = -1;
    i64 fixed[CANON_MAX];
    for (int i = 0; i < c->pid_nfixed; i++) {
        int k = c->pid_fixed[i], l = x.lab[k];
        if (l < 0) { fixed[i] = t[k]; continue; }
        if (x.pi[l] < 0) canon_place_least(&x, l, k);
        fixed[i] = c->pid_value[(size_t)k * m + x.pi[l]];
    }
    canon_pid_search(&x, 0);
    for (int i = 0; i < c->pid_nfixed; i++) t[c->pid_fixed[i]] = fixed[i];
    for (int q = 0; q < m * L; q++) t[c->pid_blocks[q]] = x.best[q];
}

/* ---------------------------------------------------------------- least image over every element */

static i64 canon_vm(const Canon *c, int m, i64 v) {
    i64 i;
    if (!m) return v;
    i = v - c->map_lo[m];
    return (i >= 0 && i < c->map_len[m]) ? c->map_tab[c->map_off[m] + i] : v;
}

/* Least image of t over the elements, in place: each element's image is compared with the
   least so far slot by slot in el_order, and abandoned at the first greater slot. */
static void canon_elements(const Canon *c, i64 *t) {
    int n = c->nslots;
    i64 x[CANON_MAX], best[CANON_MAX];
    memcpy(x, t, sizeof(i64) * (size_t)n);
    memcpy(best, t, sizeof(i64) * (size_t)n);
    for (int e = 0; e < c->nel; e++) {
        const int32_t *src = c->el_src + (size_t)e * n, *map = c->el_map + (size_t)e * n;
        for (int i = 0; i < n; i++) {
            int f = c->el_order[i];
            i64 y = canon_vm(c, map[f], x[src[f]]);
            if (y == best[f]) continue;
            if (y < best[f])
                for (; i < n; i++) {
                    f = c->el_order[i];
                    best[f] = canon_vm(c, map[f], x[src[f]]);
                }
            break;
        }
    }
    memcpy(t, best, sizeof(i64) * (size_t)n);
}

/* The representative of t's orbit, in place (nothing when the tables describe no group). */
static void canon_apply(const Canon *c, i64 *t) {
    if (c->nblocks) canon_sort_blocks(c, t);
    else if (c->pid_m) canon_pids(c, t);
    else if (c->nel > 1) canon_elements(c, t);
}

static int canon_reduces(const Canon *c) { return c->nblocks || c->pid_m || c->nel > 1; }

