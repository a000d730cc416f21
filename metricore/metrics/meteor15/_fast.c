/*
 * The per-pair work of METEOR 1.5 in C: candidate matches, the alignment search and the
 * statistics and score of each hypothesis-reference pair, and the choice of the best
 * reference per segment. It does, decision for decision, what the Python modules do
 * (matchers.candidate_matches, align.align, score._alignment_stats, score.meteor_score,
 * score.best_line), which are the specification and the fallback; their docstrings cite
 * the jar (pycocoevalcap 1.2's meteor-1.5.jar, edu.cmu.meteor.aligner.Aligner and
 * edu.cmu.meteor.scorer.MeteorScorer). Everything that depends on one line only (word
 * hashes, stems, synsets, function words, the paraphrase trie walk) arrives precomputed.
 *
 * Lines longer than 64 words do not fit the bit masks used here: their segments are marked
 * (best = -2) and scored by the Python path.
 *
 * Built with -ffp-contract=off (setup.py): the score must be the jar's double arithmetic,
 * operation for operation, so no fused multiply-add may be formed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BEAM_SIZE 40
#define N_STATS 23
#define MAX_WORDS 64
#define EXACT 0
#define STEM 1
#define SYNONYM 2
#define PARAPHRASE 3

typedef struct {
    uint64_t mask2, mask1;
    int64_t gain, distance;
    int32_t match_start, end2, end1, start, length, match_length, module;
} Match;

typedef struct {
    int64_t rank;
    uint64_t u1, u2;
    int32_t idx, last_end, chain;
} Path;

typedef struct {
    int32_t match, parent;
} Chain;

typedef struct {
    Path p[BEAM_SIZE];
    int len;
} Beam;

/* growable arrays of the work space, reused across pairs */
typedef struct {
    void *data;
    size_t len, cap, item;
} Vec;

static int vec_reserve(Vec *v, size_t n) {
    if (n <= v->cap) return 0;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < n) cap *= 2;
    void *d = realloc(v->data, cap * v->item);
    if (!d) return -1;
    v->data = d;
    v->cap = cap;
    return 0;
}

static void *vec_push(Vec *v) {
    if (vec_reserve(v, v->len + 1)) return NULL;
    return (char *)v->data + (v->len++) * v->item;
}

/* the inputs: words, lines and the paraphrase index (see fast.py for their layout) */
typedef struct {
    const int32_t *word_hash, *word_stem;
    const uint8_t *word_func;
    const int64_t *syn_off, *syn_ids;
    const int64_t *line_off;
    const int32_t *line_words;
    const int64_t *node_off;
    const int32_t *nodes; /* (start, words, trie node) */
    const int64_t *found_off;
    const int32_t *found;      /* paraphrase ids a line holds, in its order */
    const int64_t *fpos_off;   /* per found entry: its positions */
    const int32_t *fpos;
    /* (node, paraphrase id) -> the ranks at which the node emits it, ascending */
    const int64_t *hit_keys;   /* sorted keys node << 32 | pid */
    const int64_t *hit_off;
    const int32_t *hit_ranks;
    Py_ssize_t n_hits;
    const uint8_t *phrase_words;
    /* per word, a 256-bit signature of its synsets: disjoint signatures, disjoint synsets */
    uint64_t *syn_sig;
} Data;

static uint64_t *synset_signatures(const int64_t *syn_off, const int64_t *syn_ids, Py_ssize_t n_words) {
    uint64_t *sig = calloc((size_t)(n_words ? n_words : 1) * 4, sizeof(uint64_t));
    if (!sig) return NULL;
    for (Py_ssize_t w = 0; w < n_words; w++)
        for (int64_t k = syn_off[w]; k < syn_off[w + 1]; k++) {
            unsigned bit = (unsigned)(((uint64_t)syn_ids[k] * 0x9E3779B97F4A7C15ULL) >> 56);
            sig[4 * w + (bit >> 6)] |= (uint64_t)1 << (bit & 63);
        }
    return sig;
}

typedef struct {
    Vec matches;  /* Match, in append order */
    Vec order;    /* int32: match indices grouped by reference position */
    Vec chain;
    Vec hits;     /* int64: rank << 32 | pid */
    Beam beams[2];
} Work;

static int line_len(const Data *d, int32_t line) {
    return (int)(d->line_off[line + 1] - d->line_off[line]);
}

static int synsets_meet(const Data *d, int32_t a, int32_t b) {
    const uint64_t *sa = d->syn_sig + 4 * (size_t)a, *sb = d->syn_sig + 4 * (size_t)b;
    if (!((sa[0] & sb[0]) | (sa[1] & sb[1]) | (sa[2] & sb[2]) | (sa[3] & sb[3]))) return 0;
    const int64_t *x = d->syn_ids + d->syn_off[a], *xe = d->syn_ids + d->syn_off[a + 1];
    const int64_t *y = d->syn_ids + d->syn_off[b], *ye = d->syn_ids + d->syn_off[b + 1];
    while (x < xe && y < ye) {
        if (*x == *y) return 1;
        if (*x < *y) x++;
        else y++;
    }
    return 0;
}

static const double ALIGN_WEIGHTS[4] = {1.0, 0.5, 0.5, 0.5};

static int add_match(Work *w, int32_t start, int32_t length, int32_t match_start, int32_t match_length,
                     int module) {
    Match *m = vec_push(&w->matches);
    if (!m) return -1;
    double wt = ALIGN_WEIGHTS[module];
    m->mask2 = (length >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << length) - 1)) << start;
    m->mask1 = (match_length >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << match_length) - 1)) << match_start;
    m->gain = (int64_t)(match_length * wt) + (int64_t)(length * wt);
    m->match_start = match_start;
    m->end2 = start + length;
    m->end1 = match_start + match_length;
    m->distance = start > match_start ? start - match_start : match_start - start;
    m->start = start;
    m->length = length;
    m->match_length = match_length;
    m->module = module;
    return 0;
}

/* the first index of the sorted hit keys not below `key` */
static Py_ssize_t hit_lower_bound(const Data *d, int64_t key) {
    Py_ssize_t lo = 0, hi = d->n_hits;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (d->hit_keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int64_t hit_find(const Data *d, int64_t key) {
    Py_ssize_t lo = hit_lower_bound(d, key);
    return (lo < d->n_hits && d->hit_keys[lo] == key) ? lo : -1;
}

/* whether the node emits any paraphrase a line of the call holds (one search per node
 * instead of one per node and paraphrase) */
static int node_has_hits(const Data *d, int32_t node) {
    Py_ssize_t lo = hit_lower_bound(d, (int64_t)node << 32);
    return lo < d->n_hits && (d->hit_keys[lo] >> 32) == node;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* the paraphrase candidates of phrases of `source` whose paraphrase `other` holds, in the
 * jar's order: source trie nodes in walk order, then what each node emits in file order */
static int paraphrase_matches(const Data *d, Work *w, int32_t source, int32_t other, int source_is_ref) {
    int64_t f0 = d->found_off[other], f1 = d->found_off[other + 1];
    if (f0 == f1) return 0;
    for (int64_t k = d->node_off[source]; k < d->node_off[source + 1]; k++) {
        int32_t a = d->nodes[3 * k], length = d->nodes[3 * k + 1], node = d->nodes[3 * k + 2];
        if (!node_has_hits(d, node)) continue;
        w->hits.len = 0;
        for (int64_t f = f0; f < f1; f++) {
            int32_t pid = d->found[f];
            int64_t h = hit_find(d, ((int64_t)node << 32) | (uint32_t)pid);
            if (h < 0) continue;
            for (int64_t r = d->hit_off[h]; r < d->hit_off[h + 1]; r++) {
                int64_t *slot = vec_push(&w->hits);
                if (!slot) return -1;
                /* the other line's entry index, not the pid: it finds the positions */
                *slot = ((int64_t)d->hit_ranks[r] << 32) | (int64_t)(f - f0);
            }
        }
        if (w->hits.len > 1) qsort(w->hits.data, w->hits.len, sizeof(int64_t), cmp_i64);
        for (size_t q = 0; q < w->hits.len; q++) {
            int64_t f = f0 + (((int64_t *)w->hits.data)[q] & 0xFFFFFFFF);
            int32_t size = d->phrase_words[d->found[f]];
            for (int64_t p = d->fpos_off[f]; p < d->fpos_off[f + 1]; p++) {
                int32_t b = d->fpos[p];
                /* a span past its line could only come from a 64-bit key collision in the
                 * index: the segment goes to the Python path rather than past the masks */
                if (b < 0 || a < 0 || length < 1 || size < 1 || b + size > line_len(d, other) ||
                    a + length > line_len(d, source))
                    return -2;
                int rc = source_is_ref ? add_match(w, a, length, b, size, PARAPHRASE)
                                       : add_match(w, b, size, a, length, PARAPHRASE);
                if (rc) return -1;
            }
        }
    }
    return 0;
}

/* The beam after each position: the first BEAM_SIZE paths of the jar's stable sort
 * (Collections.sort by rank, then truncation), kept sorted while paths are made. A new path
 * goes after every kept path of equal rank (it was made later), and is dropped when BEAM_SIZE
 * kept paths rank before or equal to it: exactly the sort-then-truncate of the Python path. */

/* where a path of this rank would go, or -1 when the beam is full of paths not after it */
static int beam_slot(const Beam *b, int64_t rank) {
    if (b->len == BEAM_SIZE && b->p[BEAM_SIZE - 1].rank <= rank) return -1;
    int q = b->len;
    while (q > 0 && b->p[q - 1].rank > rank) q--;
    return q;
}

static void beam_put(Beam *b, int q, const Path *path) {
    int keep = b->len < BEAM_SIZE ? b->len : BEAM_SIZE - 1;
    memmove(&b->p[q + 1], &b->p[q], sizeof(Path) * (size_t)(keep - q));
    b->p[q] = *path;
    if (b->len < BEAM_SIZE) b->len++;
}

typedef struct {
    int32_t cstart[MAX_WORDS + 1]; /* candidates of position j: order[cstart[j]:cstart[j+1]] */
    int32_t fixed[MAX_WORDS];      /* match index or -1 */
    int32_t chosen[MAX_WORDS];
} PairState;

/* the beam search of align._resolve; writes the chosen match per reference position */
static int resolve(const Data *d, Work *w, PairState *s, int n, int n1, uint64_t used1, uint64_t used2,
                   int first) {
    const Match *ms = w->matches.data;
    const int32_t *order = w->order.data;
    int64_t total = (int64_t)w->matches.len;
    int64_t dist_bound = 1 + (int64_t)(n > n1 ? n : n1) * total;
    int64_t chunk = dist_bound, point = (int64_t)(n + 2) * dist_bound;
    int64_t rank = 0;
    int32_t idx = 0, last_end = -1;
    for (int current = 0; current < first; current++) {
        if (used2 >> current & 1) {
            if (current >= idx) {
                int32_t f = s->fixed[current];
                if (f < 0) continue;
                const Match *m = &ms[f];
                rank += m->distance - m->gain * point;
                if (last_end != -1 && m->match_start != last_end) rank += chunk;
                idx = m->end2;
                last_end = m->end1;
            }
        } else {
            if (last_end != -1) {
                rank += chunk;
                last_end = -1;
            }
            idx += 1;
        }
    }
    Beam *cur = &w->beams[0], *nxt = &w->beams[1];
    w->chain.len = 0;
    nxt->len = 1;
    nxt->p[0] = (Path){rank, used1, used2, idx, last_end, -1};
    for (int current = first; current < n; current++) {
        Beam *t = cur;
        cur = nxt;
        nxt = t;
        nxt->len = 0;
        uint64_t bit = (uint64_t)1 << current;
        for (int q = 0; q < cur->len; q++) {
            Path path = cur->p[q];
            if (path.u2 & bit) {
                if (current >= path.idx) {
                    int32_t f = s->fixed[current];
                    if (f < 0) continue;
                    const Match *m = &ms[f];
                    path.rank += m->distance - m->gain * point;
                    if (path.last_end != -1 && m->match_start != path.last_end) path.rank += chunk;
                    path.idx = m->end2;
                    path.last_end = m->end1;
                }
                int slot = beam_slot(nxt, path.rank);
                if (slot >= 0) beam_put(nxt, slot, &path);
                continue;
            }
            int64_t r0 = path.rank;
            for (int32_t c = s->cstart[current]; c < s->cstart[current + 1]; c++) {
                const Match *m = &ms[order[c]];
                if ((path.u2 & m->mask2) || (path.u1 & m->mask1)) continue;
                int64_t r = r0 - m->gain * point;
                if (path.last_end != -1 && m->match_start != path.last_end) r += chunk;
                int slot = beam_slot(nxt, r);
                if (slot >= 0) {
                    Chain *ch = vec_push(&w->chain);
                    if (!ch) return -1;
                    ch->match = order[c];
                    ch->parent = path.chain;
                    Path np = {r, path.u1 | m->mask1, path.u2 | m->mask2, m->end2, m->end1,
                               (int32_t)(w->chain.len - 1)};
                    beam_put(nxt, slot, &np);
                }
                r0 += m->distance; /* sic: the parent's distance (see align.py) */
            }
            if (path.last_end != -1) {
                r0 += chunk;
                path.last_end = -1;
            }
            path.rank = r0;
            path.idx = path.idx + 1;
            int slot = beam_slot(nxt, path.rank);
            if (slot >= 0) beam_put(nxt, slot, &path);
        }
        if (nxt->len == 0) { /* the jar keeps the best path of the previous position */
            nxt->len = 1;
            nxt->p[0] = cur->p[0];
        }
    }
    /* the last chunk of each path, then the first path of the stable sort: the first one of
     * least rank */
    int best = 0;
    int64_t best_rank = 0;
    for (int q = 0; q < nxt->len; q++) {
        int64_t r = nxt->p[q].rank + (nxt->p[q].last_end != -1 ? chunk : 0);
        if (q == 0 || r < best_rank) {
            best = q;
            best_rank = r;
        }
    }
    memcpy(s->chosen, s->fixed, sizeof(int32_t) * n);
    for (int32_t c = nxt->p[best].chain; c >= 0; c = ((Chain *)w->chain.data)[c].parent) {
        int32_t mi = ((Chain *)w->chain.data)[c].match;
        s->chosen[ms[mi].start] = mi;
    }
    return 0;
}

static int count_chunks(const Match *ms, const int32_t *chosen, int n) {
    int chunks = 0, idx = 0, last_end = -1;
    while (idx < n) {
        int32_t c = chosen[idx];
        if (c < 0) {
            if (last_end != -1) {
                chunks++;
                last_end = -1;
            }
            idx++;
        } else {
            const Match *m = &ms[c];
            if (last_end != -1 && m->match_start != last_end) chunks++;
            idx = m->end2;
            last_end = m->end1;
        }
    }
    if (last_end != -1) chunks++;
    return chunks;
}

static const double ALPHA = 0.85, BETA = 0.2, GAMMA = 0.6, DELTA = 0.75;
static const double W0 = 1.0, W1 = 0.6, W2 = 0.8, W3 = 0.6;

/* score.meteor_score, operation for operation (IEEE division gives what _div gives) */
static double meteor_score(const double *st) {
    const double rest = 1.0 - DELTA;
    double tl = st[0], rl = st[1], tf = st[2], rf = st[3];
    double t_len = (DELTA * (tl - tf)) + (rest * tf);
    double r_len = (DELTA * (rl - rf)) + (rest * rf);
    double t_m = 0.0, r_m = 0.0;
    t_m += st[4] * W0 * DELTA;
    t_m += st[8] * W1 * DELTA;
    t_m += st[12] * W2 * DELTA;
    t_m += st[16] * W3 * DELTA;
    r_m += st[5] * W0 * DELTA;
    r_m += st[9] * W1 * DELTA;
    r_m += st[13] * W2 * DELTA;
    r_m += st[17] * W3 * DELTA;
    t_m += st[6] * W0 * rest;
    t_m += st[10] * W1 * rest;
    t_m += st[14] * W2 * rest;
    t_m += st[18] * W3 * rest;
    r_m += st[7] * W0 * rest;
    r_m += st[11] * W1 * rest;
    r_m += st[15] * W2 * rest;
    r_m += st[19] * W3 * rest;
    double precision = t_m / t_len;
    double recall = r_m / r_len;
    double f_mean = 1.0 / ((1.0 - ALPHA) / precision + ALPHA / recall);
    double t_total = 0 + (st[4] + st[6]) + (st[8] + st[10]) + (st[12] + st[14]) + (st[16] + st[18]);
    double r_total = 0 + (st[5] + st[7]) + (st[9] + st[11]) + (st[13] + st[15]) + (st[17] + st[19]);
    double frag;
    if (t_total == tl && r_total == rl && st[20] == 1) frag = 0.0;
    else frag = st[20] / ((st[21] + st[22]) / 2);
    if (isnan(frag) || isnan(f_mean)) return 0.0;
    double penalty = GAMMA * (isinf(frag) ? INFINITY : pow(frag, BETA));
    double score = f_mean * (1.0 - penalty);
    if (isnan(score)) return 0.0;
    return 0.0 > score ? 0.0 : score;
}

/* the statistics of one pair (hypothesis l1, reference l2); -1 on memory failure */
static int pair_stats(const Data *d, Work *w, int32_t l1, int32_t l2, double *out) {
    int n1 = line_len(d, l1), n2 = line_len(d, l2);
    const int32_t *h = d->line_words + d->line_off[l1], *r = d->line_words + d->line_off[l2];
    int cov1[MAX_WORDS] = {0}, cov2[MAX_WORDS] = {0};
    PairState s;
    memset(&s, 0, sizeof(s));
    w->matches.len = 0;
    int only_exact = n1 == n2;
    for (int i = 0; only_exact && i < n1; i++)
        if (d->word_hash[h[i]] != d->word_hash[r[i]]) only_exact = 0;
    for (int j = 0; j < n2; j++) {
        int32_t rw = r[j];
        int32_t rh = d->word_hash[rw], rs = d->word_stem[rw];
        int r_syn = d->syn_off[rw + 1] > d->syn_off[rw];
        for (int i = 0; i < n1; i++)
            if (d->word_hash[h[i]] == rh && add_match(w, j, 1, i, 1, EXACT)) return -1;
        if (only_exact) continue;
        for (int i = 0; i < n1; i++)
            if (d->word_hash[h[i]] != rh && d->word_stem[h[i]] == rs && add_match(w, j, 1, i, 1, STEM))
                return -1;
        if (!r_syn) continue;
        for (int i = 0; i < n1; i++)
            if (d->word_hash[h[i]] != rh && synsets_meet(d, rw, h[i]) && add_match(w, j, 1, i, 1, SYNONYM))
                return -1;
    }
    if (!only_exact) {
        int rc = paraphrase_matches(d, w, l2, l1, 1);
        if (!rc) rc = paraphrase_matches(d, w, l1, l2, 0);
        if (rc) return rc;
    }
    const Match *ms = w->matches.data;
    size_t total = w->matches.len;
    /* group by reference position, keeping the append order within each (counting sort) */
    int counts[MAX_WORDS + 1] = {0};
    for (size_t k = 0; k < total; k++) {
        const Match *m = &ms[k];
        counts[m->start]++;
        for (int q = m->match_start; q < m->end1; q++) cov1[q]++;
        for (int q = m->start; q < m->end2; q++) cov2[q]++;
    }
    s.cstart[0] = 0;
    for (int j = 0; j < n2; j++) s.cstart[j + 1] = s.cstart[j] + counts[j];
    if (vec_reserve(&w->order, total ? total : 1)) return -1;
    int32_t fill[MAX_WORDS];
    memcpy(fill, s.cstart, sizeof(int32_t) * (n2 ? n2 : 1));
    int32_t *order = w->order.data;
    for (size_t k = 0; k < total; k++) order[fill[ms[k].start]++] = (int32_t)k;
    uint64_t used1 = 0, used2 = 0;
    int first = -1;
    for (int j = 0; j < n2; j++) {
        s.fixed[j] = -1;
        int c = s.cstart[j + 1] - s.cstart[j];
        if (c == 1) {
            const Match *m = &ms[order[s.cstart[j]]];
            int ok = 1;
            for (int q = j; ok && q < m->end2; q++) ok = cov2[q] == 1;
            for (int q = m->match_start; ok && q < m->end1; q++) ok = cov1[q] == 1;
            if (ok) {
                s.fixed[j] = order[s.cstart[j]];
                used2 |= m->mask2;
                used1 |= m->mask1;
                continue;
            }
        }
        if (c && first < 0) first = j;
    }
    if (first < 0) {
        memcpy(s.chosen, s.fixed, sizeof(int32_t) * (n2 ? n2 : 1));
    } else if (resolve(d, w, &s, n2, n1, used1, used2, first)) {
        return -1;
    }
    ms = w->matches.data;
    int64_t st[N_STATS] = {0};
    const uint8_t *fn = d->word_func;
    for (int j = 0; j < n2; j++) {
        int32_t c = s.chosen[j];
        if (c < 0) continue;
        const Match *m = &ms[c];
        int base = 4 + 4 * m->module;
        for (int q = m->match_start; q < m->end1; q++) st[fn[h[q]] ? base + 2 : base] += 1;
        for (int q = m->start; q < m->end2; q++) st[fn[r[q]] ? base + 3 : base + 1] += 1;
    }
    int f1 = 0, f2 = 0;
    for (int i = 0; i < n1; i++) f1 += fn[h[i]];
    for (int j = 0; j < n2; j++) f2 += fn[r[j]];
    st[0] = n1;
    st[1] = n2;
    st[2] = f1;
    st[3] = f2;
    st[20] = count_chunks(ms, s.chosen, n2);
    st[21] = st[4] + st[6] + st[8] + st[10] + st[12] + st[14] + st[16] + st[18];
    st[22] = st[5] + st[7] + st[9] + st[11] + st[13] + st[15] + st[17] + st[19];
    for (int k = 0; k < N_STATS; k++) out[k] = (double)st[k];
    return 0;
}

typedef struct {
    Py_buffer b;
    int held;
} Buf;

/* offsets: n_off entries, from 0, never decreasing, ending at total */
static int offsets_ok(const int64_t *off, Py_ssize_t n_off, Py_ssize_t total) {
    if (n_off < 1 || off[0] != 0 || off[n_off - 1] != total) return 0;
    for (Py_ssize_t k = 1; k < n_off; k++)
        if (off[k] < off[k - 1]) return 0;
    return 1;
}

static int ids_ok(const int32_t *ids, Py_ssize_t n, Py_ssize_t bound) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (ids[k] < 0 || ids[k] >= bound) return 0;
    return 1;
}

/* every offset and index the pair code follows is checked once, before the GIL is
 * released: a malformed call is a ValueError, never a read out of bounds */
static int check_inputs(const Data *d, const Buf *bufs, const int64_t *seg_off, const int32_t *seg_lines,
                        Py_ssize_t n_seg) {
    Py_ssize_t n_words = bufs[0].b.len / 4, n_lines = bufs[5].b.len / 8 - 1;
    Py_ssize_t n_found = bufs[10].b.len / 4, n_nodes = bufs[8].b.len / 4;
    const char *bad = NULL;
    if (bufs[1].b.len / 4 != n_words || bufs[2].b.len != n_words || bufs[3].b.len / 8 != n_words + 1)
        bad = "word arrays";
    else if (!offsets_ok(d->syn_off, n_words + 1, bufs[4].b.len / 8))
        bad = "syn_off";
    else if (n_lines < 0 || !offsets_ok(d->line_off, n_lines + 1, bufs[6].b.len / 4))
        bad = "line_off";
    else if (!ids_ok(d->line_words, bufs[6].b.len / 4, n_words))
        bad = "line_words";
    else if (n_nodes % 3 || bufs[7].b.len / 8 != n_lines + 1 || !offsets_ok(d->node_off, n_lines + 1, n_nodes / 3))
        bad = "node_off";
    else if (bufs[9].b.len / 8 != n_lines + 1 || !offsets_ok(d->found_off, n_lines + 1, n_found))
        bad = "found_off";
    else if (!ids_ok(d->found, n_found, bufs[16].b.len))
        bad = "found";
    else if (!offsets_ok(d->fpos_off, n_found + 1, bufs[12].b.len / 4))
        bad = "fpos_off";
    else if (!offsets_ok(d->hit_off, d->n_hits + 1, bufs[15].b.len / 4))
        bad = "hit_off";
    else if (!offsets_ok(seg_off, n_seg + 1, bufs[18].b.len / 4))
        bad = "seg_off";
    else if (!ids_ok(seg_lines, bufs[18].b.len / 4, n_lines))
        bad = "seg_lines";
    if (bad) {
        PyErr_Format(PyExc_ValueError, "_fast.score_segments: inconsistent %s", bad);
        return -1;
    }
    return 0;
}

static int get_buf(PyObject *obj, Buf *buf, Py_ssize_t itemsize, int writable, const char *name) {
    if (PyObject_GetBuffer(obj, &buf->b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    buf->held = 1;
    if (buf->b.itemsize != itemsize && !(buf->b.len == 0)) {
        PyErr_Format(PyExc_TypeError, "_fast.score_segments: %s must have items of %zd bytes", name,
                     itemsize);
        return -1;
    }
    return 0;
}

#define N_ARGS 22

static PyObject *score_segments(PyObject *self, PyObject *args) {
    static const Py_ssize_t sizes[N_ARGS] = {4, 4, 1, 8, 8, 8, 4, 8, 4, 8, 4, 8, 4, 8, 8, 4, 1, 8, 4, 8, 4, 8};
    static const char *names[N_ARGS] = {
        "word_hash", "word_stem", "word_func", "syn_off", "syn_ids", "line_off", "line_words",
        "node_off", "nodes", "found_off", "found", "fpos_off", "fpos", "hit_keys", "hit_off",
        "hit_ranks", "phrase_words", "seg_off", "seg_lines", "out_stats", "out_best", "out_score"};
    PyObject *objs[N_ARGS];
    Buf bufs[N_ARGS];
    memset(bufs, 0, sizeof(bufs));
    if (!PyArg_UnpackTuple(args, "score_segments", N_ARGS, N_ARGS, &objs[0], &objs[1], &objs[2], &objs[3],
                           &objs[4], &objs[5], &objs[6], &objs[7], &objs[8], &objs[9], &objs[10],
                           &objs[11], &objs[12], &objs[13], &objs[14], &objs[15], &objs[16], &objs[17],
                           &objs[18], &objs[19], &objs[20], &objs[21]))
        return NULL;
    PyObject *result = NULL;
    for (int k = 0; k < N_ARGS; k++)
        if (get_buf(objs[k], &bufs[k], sizes[k], k >= 19, names[k]) < 0) goto done;
    {
        Data d;
        d.word_hash = bufs[0].b.buf;
        d.word_stem = bufs[1].b.buf;
        d.word_func = bufs[2].b.buf;
        d.syn_off = bufs[3].b.buf;
        d.syn_ids = bufs[4].b.buf;
        d.line_off = bufs[5].b.buf;
        d.line_words = bufs[6].b.buf;
        d.node_off = bufs[7].b.buf;
        d.nodes = bufs[8].b.buf;
        d.found_off = bufs[9].b.buf;
        d.found = bufs[10].b.buf;
        d.fpos_off = bufs[11].b.buf;
        d.fpos = bufs[12].b.buf;
        d.hit_keys = bufs[13].b.buf;
        d.hit_off = bufs[14].b.buf;
        d.hit_ranks = bufs[15].b.buf;
        d.n_hits = bufs[13].b.len / 8;
        d.phrase_words = bufs[16].b.buf;
        const int64_t *seg_off = bufs[17].b.buf;
        const int32_t *seg_lines = bufs[18].b.buf;
        double *out_stats = bufs[19].b.buf;
        int32_t *out_best = bufs[20].b.buf;
        double *out_score = bufs[21].b.buf;
        Py_ssize_t n_seg = bufs[20].b.len / 4;
        if (bufs[17].b.len / 8 != n_seg + 1 || bufs[19].b.len / 8 != n_seg * N_STATS ||
            bufs[21].b.len / 8 != n_seg) {
            PyErr_SetString(PyExc_ValueError, "_fast.score_segments: output sizes disagree with seg_off");
            goto done;
        }
        if (check_inputs(&d, bufs, seg_off, seg_lines, n_seg) < 0) goto done;
        d.syn_sig = synset_signatures(d.syn_off, d.syn_ids, bufs[0].b.len / 4);
        if (!d.syn_sig) {
            PyErr_NoMemory();
            goto done;
        }
        Work w;
        memset(&w, 0, sizeof(w));
        w.matches.item = sizeof(Match);
        w.order.item = sizeof(int32_t);
        w.chain.item = sizeof(Chain);
        w.hits.item = sizeof(int64_t);
        int failed = 0;
        Py_BEGIN_ALLOW_THREADS
        double st[N_STATS];
        for (Py_ssize_t g = 0; g < n_seg && !failed; g++) {
            int64_t a = seg_off[g], b = seg_off[g + 1];
            double *best = out_stats + g * N_STATS;
            out_best[g] = -1;
            out_score[g] = -1.0;
            int too_long = b - a < 2; /* no reference: the Python path decides */
            for (int64_t k = a; k < b && !too_long; k++)
                if (line_len(&d, seg_lines[k]) > MAX_WORDS) too_long = 1;
            if (too_long) {
                out_best[g] = -2;
                continue;
            }
            int32_t hyp = seg_lines[a];
            for (int64_t k = a + 1; k < b; k++) {
                int rc = pair_stats(&d, &w, hyp, seg_lines[k], st);
                if (rc == -2) {
                    out_best[g] = -2;
                    break;
                }
                if (rc) {
                    failed = 1;
                    break;
                }
                double s = meteor_score(st);
                if (s > out_score[g]) {
                    memcpy(best, st, sizeof(st));
                    out_best[g] = (int32_t)(k - a - 1);
                    out_score[g] = s;
                }
            }
        }
        Py_END_ALLOW_THREADS
        free(w.matches.data);
        free(w.order.data);
        free(w.chain.data);
        free(w.hits.data);
        free(d.syn_sig);
        if (failed) {
            PyErr_NoMemory();
            goto done;
        }
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    for (int k = 0; k < N_ARGS; k++)
        if (bufs[k].held) PyBuffer_Release(&bufs[k].b);
    return result;
}

/* ---- the paraphrase-index walk of one line (matchers.Line.walk, whose docstring is the
 * specification). The trie of n-grams looked up so far is the Python one (matchers:
 * word -> [gram, children], gram a (node, pid) tuple, None, or the UNKNOWN marker), read
 * here without building a phrase string. Returns what Line keeps, packed as four bytes
 * objects of native int32 (matchers.Line.packed): the (start, words, node) triples, the
 * paraphrase ids found (in order of first appearance), how many positions each has, and
 * those positions (ascending per id). Or None, after adding to `unknown` every n-gram not
 * looked up yet: the line is then walked again, from the start, once they are.
 * The GIL is held throughout, and the trie's entries are borrowed: between reading one and
 * using it no Python object is allocated (an allocation could run a collection, and with it
 * code that changes the trie); after the one allocating call (an unknown n-gram) the walk
 * of the position ends and the next one starts again from the root. */

static PyObject *int32_bytes(const int32_t *v, size_t n) {
    return PyBytes_FromStringAndSize((const char *)v, (Py_ssize_t)(n * sizeof(int32_t)));
}

static PyObject *walk_line(PyObject *self, PyObject *args) {
    PyObject *words, *trie, *unknown_marker, *unknown;
    int max_phrase;
    if (!PyArg_ParseTuple(args, "O!O!OO!i", &PyTuple_Type, &words, &PyDict_Type, &trie, &unknown_marker,
                          &PySet_Type, &unknown, &max_phrase))
        return NULL;
    if (max_phrase < 1) {
        PyErr_SetString(PyExc_ValueError, "_fast.walk_line: max_phrase must be at least 1");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(words);
    int complete = 1;
    /* nodes: int32 triples; pids and where: each paraphrase id met, and its position */
    Vec nodes = {NULL, 0, 0, sizeof(int32_t)}, pids = {NULL, 0, 0, sizeof(int32_t)},
        where = {NULL, 0, 0, sizeof(int32_t)};
    int32_t *found = NULL, *counts = NULL, *positions = NULL;
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        int alive = 1;
        Py_ssize_t last = n - i < max_phrase ? n - i : max_phrase;
        PyObject *level = trie;
        Py_ssize_t k = 0;
        for (;;) {
            PyObject *e = level ? PyDict_GetItemWithError(level, PyTuple_GET_ITEM(words, i + k)) : NULL;
            if (!e && PyErr_Occurred()) goto done;
            PyObject *g = e ? PyList_GET_ITEM(e, 0) : unknown_marker;
            if (g == unknown_marker) {
                PyObject *phrase = PyTuple_GetSlice(words, i, i + k + 1);
                if (!phrase || PySet_Add(unknown, phrase) < 0) {
                    Py_XDECREF(phrase);
                    goto done;
                }
                Py_DECREF(phrase);
                complete = 0;
                break;
            }
            k++;
            if (g == Py_None) break;
            long node = PyLong_AsLong(PyTuple_GET_ITEM(g, 0));
            long pid = PyLong_AsLong(PyTuple_GET_ITEM(g, 1));
            if ((node == -1 || pid == -1) && PyErr_Occurred()) goto done;
            if (complete) { /* an incomplete line's result is thrown away */
                if (alive) {
                    if (node >= 0) {
                        if (vec_reserve(&nodes, nodes.len + 3)) goto nomem;
                        int32_t *t = (int32_t *)nodes.data + nodes.len;
                        t[0] = (int32_t)i;
                        t[1] = (int32_t)k;
                        t[2] = (int32_t)node;
                        nodes.len += 3;
                    } else {
                        alive = 0; /* the jar's trie walk stops here */
                    }
                }
                if (pid >= 0) {
                    int32_t *p = vec_push(&pids), *w = vec_push(&where);
                    if (!p || !w) goto nomem;
                    *p = (int32_t)pid;
                    *w = (int32_t)i;
                }
            }
            if (k == last) break;
            level = PyList_GET_ITEM(e, 1);
            if (level == Py_None) level = NULL;
        }
    }
    if (!complete) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    {
        /* group the (pid, position) pairs by pid, pids in order of first appearance */
        size_t m = pids.len, n_found = 0, n_pos = 0;
        const int32_t *pv = pids.data, *wv = where.data;
        found = malloc((m ? m : 1) * sizeof(int32_t));
        counts = malloc((m ? m : 1) * sizeof(int32_t));
        positions = malloc((m ? m : 1) * sizeof(int32_t));
        char *taken = calloc(m ? m : 1, 1);
        if (!found || !counts || !positions || !taken) {
            free(taken);
            goto nomem;
        }
        for (size_t a = 0; a < m; a++) {
            if (taken[a]) continue;
            int32_t c = 0;
            for (size_t b = a; b < m; b++)
                if (pv[b] == pv[a]) {
                    taken[b] = 1;
                    positions[n_pos++] = wv[b];
                    c++;
                }
            found[n_found] = pv[a];
            counts[n_found++] = c;
        }
        free(taken);
        PyObject *b0 = int32_bytes(nodes.data, nodes.len), *b1 = int32_bytes(found, n_found),
                 *b2 = int32_bytes(counts, n_found), *b3 = int32_bytes(positions, n_pos);
        if (b0 && b1 && b2 && b3) result = PyTuple_Pack(4, b0, b1, b2, b3);
        Py_XDECREF(b0);
        Py_XDECREF(b1);
        Py_XDECREF(b2);
        Py_XDECREF(b3);
    }
    goto done;
nomem:
    PyErr_NoMemory();
done:
    free(nodes.data);
    free(pids.data);
    free(where.data);
    free(found);
    free(counts);
    free(positions);
    return result;
}

static PyMethodDef methods[] = {
    {"score_segments", score_segments, METH_VARARGS,
     "Statistics, best reference and score of each segment (see fast.py)."},
    {"walk_line", walk_line, METH_VARARGS, "matchers.Line.walk of one line (see walk_line in _fast.c)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast",
                                    "METEOR 1.5's per-pair work in C (see fast.py).", -1, methods,
                                    NULL, NULL, NULL, NULL};

#ifndef METRICORE_SOURCE_HASH
#define METRICORE_SOURCE_HASH ""
#endif

PyMODINIT_FUNC PyInit__fast(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "SOURCE_HASH", METRICORE_SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
