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
