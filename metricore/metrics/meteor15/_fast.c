/*
 * The compiled backend of METEOR 1.5 (backend_c.py lays out its inputs): candidate matches,
 * the alignment search and the statistics and score of each hypothesis-reference pair, the
 * choice of the best reference per segment, and the paraphrase-index walk of a line. It
 * does, decision for decision, what the Python modules do (matchers.candidate_matches,
 * align.align, score._alignment_stats, score.meteor_score, score.best_line,
 * matchers.Line.walk), which are the specification and the fallback; their docstrings cite
 * the jar (pycocoevalcap 1.2's meteor-1.5.jar, edu.cmu.meteor.aligner.Aligner and
 * edu.cmu.meteor.scorer.MeteorScorer). Everything that depends on one line only (word
 * hashes, stems, synsets, function words) arrives precomputed.
 *
 * Lines of any length: the positions a path uses are bit sets of as many 64-bit words as
 * the pair's lines need (a match spans at most MAX_PHRASE positions, so at most two
 * consecutive words of a set). The constants the Python modules also define are exported;
 * backend_c.py refuses a build whose constants differ from the Python ones.
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
/* the longest phrase of the paraphrase table, in words (paraphrase.MAX_PHRASE) */
#define MAX_PHRASE 7
/* positions, counts and match indices are int32: a longer line goes to the Python path */
#define MAX_LINE_WORDS (1 << 28)
#define EXACT 0
#define STEM 1
#define SYNONYM 2
#define PARAPHRASE 3
/* pair_stats and the segment loop: the pair goes to the Python path */
#define TO_PYTHON (-2)

static const double ALPHA = 0.85, BETA = 0.2, GAMMA = 0.6, DELTA = 0.75;
static const double WEIGHTS[4] = {1.0, 0.6, 0.8, 0.6};
/* the aligner's own module weights (matchers.ALIGN_WEIGHTS) */
static const double ALIGN_WEIGHTS[4] = {1.0, 0.5, 0.5, 0.5};

/* A match, with the bits of its spans: `lo` in word w, `hi` in word w + 1 of a position set
 * (a set ends with one zero word, so w + 1 always exists). */
typedef struct {
    uint64_t lo2, hi2, lo1, hi1;
    int64_t gain, distance;
    int32_t w2, w1;
    int32_t match_start, end2, end1, start, length, match_length, module;
} Match;

/* The jar's PARTIAL_COMPARE_TOTAL as two integers compared in order: key = -score * (n + 2)
 * + chunks (a path has at most n + 1 chunks), then the distance. The Python path packs the
 * same order into one unbounded integer; two int64 cannot overflow for lines of up to
 * MAX_LINE_WORDS words and up to 2^31 candidates. */
typedef struct {
    int64_t key, dist;
} Rank;

static inline int ranks_after(Rank a, Rank b) {
    return a.key > b.key || (a.key == b.key && a.dist > b.dist);
}

typedef struct {
    Rank rank;
    int32_t idx, last_end, chain, slot; /* slot: where its position sets are in the beam's bits */
} Path;

typedef struct {
    int32_t match, parent;
} Chain;

/* a path's position sets: the hypothesis set (nw1 + 1 words) then the reference set
 * (nw2 + 1 words), `stride` words in all, in slot `slot` of its beam */
typedef struct {
    Path p[BEAM_SIZE];
    int len;
    uint64_t *bits;
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

/* the inputs: words, lines and the paraphrase index (see backend_c.py for their layout) */
typedef struct {
    const int32_t *word_hash, *word_stem;
    const uint8_t *word_func;
    const int64_t *syn_off, *syn_ids;
    const int64_t *line_off;
    const int32_t *line_words;
    const int64_t *node_off;
    const int32_t *nodes; /* (start, words, trie node) */
    const int64_t *found_off;
    const int32_t *found;    /* paraphrase ids a line holds, in its order */
    const int64_t *fpos_off; /* per found entry: its positions */
    const int32_t *fpos;
    /* (node, paraphrase id) -> the ranks at which the node emits it, ascending */
    const int64_t *hit_keys; /* sorted keys node << 32 | pid */
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
    Vec matches; /* Match, in append order */
    Vec order;   /* int32: match indices grouped by reference position */
    Vec chain;
    Vec hits;    /* int64: rank << 32 | the other line's found-entry index */
    Vec ints;    /* int32: the per-position arrays of a pair (PairState) */
    Vec bits;    /* uint64: the fixed matches' position sets, then both beams' */
    Beam beams[2];
    /* what the one-word modules find in the segment's hypothesis for each reference word
     * met (matchers.Line.relate, kept for the segment as the Python path keeps it for the
     * line): rel_at[word] is -1 or the offset in rel of [exact count, other count, exact
     * positions..., (position, module) pairs...]; rel_words lists the words to reset */
    int32_t *rel_at;
    Vec rel, rel_words;
} Work;

/* per-position arrays of one pair, carved from Work.ints */
typedef struct {
    int32_t *cov1, *cov2; /* candidates covering each position */
    int32_t *cstart;      /* candidates of position j: order[cstart[j]:cstart[j+1]] */
    int32_t *fill;
    int32_t *fixed;       /* match index or -1 */
    int32_t *chosen;
    uint64_t *used;       /* the fixed matches' position sets (stride words) */
    int nw1;              /* words of the hypothesis set, without its zero word */
    size_t stride;
} PairState;

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

/* the bits of positions [start, start + length) (length <= 64) as word w and the next */
static void span_bits(int32_t start, int32_t length, int32_t *w, uint64_t *lo, uint64_t *hi) {
    uint64_t ones = length >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << length) - 1);
    int s = start & 63;
    *w = start >> 6;
    *lo = ones << s;
    *hi = (s && s + length > 64) ? ones >> (64 - s) : 0;
}

/* 0, -1 on memory failure, TO_PYTHON past 2^31 candidates */
static int add_match(Work *w, int32_t start, int32_t length, int32_t match_start, int32_t match_length,
                     int module) {
    if (w->matches.len >= INT32_MAX) return TO_PYTHON;
    Match *m = vec_push(&w->matches);
    if (!m) return -1;
    double wt = ALIGN_WEIGHTS[module];
    span_bits(start, length, &m->w2, &m->lo2, &m->hi2);
    span_bits(match_start, match_length, &m->w1, &m->lo1, &m->hi1);
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

/* v in the high 32 bits (as the Python side's v << 32 for v >= 0; no signed shift) */
static inline int64_t high32(int32_t v) {
    return (int64_t)((uint64_t)(uint32_t)v << 32);
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
    Py_ssize_t lo = hit_lower_bound(d, high32(node));
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
            int64_t h = hit_find(d, high32(node) | (uint32_t)pid);
            if (h < 0) continue;
            for (int64_t r = d->hit_off[h]; r < d->hit_off[h + 1]; r++) {
                int64_t *slot = vec_push(&w->hits);
                if (!slot) return -1;
                /* the other line's entry index, not the pid: it finds the positions */
                *slot = high32(d->hit_ranks[r]) | (int64_t)(f - f0);
            }
        }
        if (w->hits.len > 1) qsort(w->hits.data, w->hits.len, sizeof(int64_t), cmp_i64);
        for (size_t q = 0; q < w->hits.len; q++) {
            int64_t f = f0 + (((int64_t *)w->hits.data)[q] & 0xFFFFFFFF);
            int32_t size = d->phrase_words[d->found[f]];
            for (int64_t p = d->fpos_off[f]; p < d->fpos_off[f + 1]; p++) {
                int32_t b = d->fpos[p];
                /* a span past its line or longer than a phrase could only come from a 64-bit
                 * key collision in the index (or a malformed call): the segment goes to the
                 * Python path rather than past the position sets */
                if (b < 0 || a < 0 || length < 1 || size < 1 || length > MAX_PHRASE || size > MAX_PHRASE ||
                    b + size > line_len(d, other) || a + length > line_len(d, source))
                    return TO_PYTHON;
                int rc = source_is_ref ? add_match(w, a, length, b, size, PARAPHRASE)
                                       : add_match(w, b, size, a, length, PARAPHRASE);
                if (rc) return rc;
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
static int beam_slot(const Beam *b, Rank rank) {
    if (b->len == BEAM_SIZE && !ranks_after(b->p[BEAM_SIZE - 1].rank, rank)) return -1;
    int q = b->len;
    while (q > 0 && ranks_after(b->p[q - 1].rank, rank)) q--;
    return q;
}

/* puts the path at q and returns its position sets' words, to be written by the caller: a
 * new slot while the beam fills (slots 0..len-1 are taken), else the dropped last path's */
static uint64_t *beam_put(Beam *b, int q, Path path, size_t stride) {
    int keep;
    if (b->len < BEAM_SIZE) {
        path.slot = b->len;
        keep = b->len++;
    } else {
        path.slot = b->p[BEAM_SIZE - 1].slot;
        keep = BEAM_SIZE - 1;
    }
    memmove(&b->p[q + 1], &b->p[q], sizeof(Path) * (size_t)(keep - q));
    b->p[q] = path;
    return b->bits + (size_t)path.slot * stride;
}

static inline int has_bit(const uint64_t *set, int32_t k) {
    return (int)(set[k >> 6] >> (k & 63) & 1);
}

/* the beam search of align._resolve; writes the chosen match per reference position (0, or
 * -1 on memory failure, TO_PYTHON past 2^31 links) */
static int resolve(Work *w, PairState *s, int n, int first) {
    const Match *ms = w->matches.data;
    const int32_t *order = w->order.data;
    const size_t stride = s->stride, ref_set = (size_t)s->nw1 + 1;
    const int64_t point = (int64_t)n + 2; /* one less score, in key units (one chunk is 1) */
    Rank rank = {0, 0};
    int32_t idx = 0, last_end = -1;
    const uint64_t *used2 = s->used + ref_set;
    for (int current = 0; current < first; current++) {
        if (has_bit(used2, current)) {
            if (current >= idx) {
                int32_t f = s->fixed[current];
                if (f < 0) continue;
                const Match *m = &ms[f];
                rank.key -= m->gain * point;
                rank.dist += m->distance;
                if (last_end != -1 && m->match_start != last_end) rank.key += 1;
                idx = m->end2;
                last_end = m->end1;
            }
        } else {
            if (last_end != -1) {
                rank.key += 1;
                last_end = -1;
            }
            idx += 1;
        }
    }
    Beam *cur = &w->beams[0], *nxt = &w->beams[1];
    w->chain.len = 0;
    nxt->len = 0;
    memcpy(beam_put(nxt, 0, (Path){rank, idx, last_end, -1, 0}, stride), s->used, stride * sizeof(uint64_t));
    for (int current = first; current < n; current++) {
        Beam *t = cur;
        cur = nxt;
        nxt = t;
        nxt->len = 0;
        for (int q = 0; q < cur->len; q++) {
            Path path = cur->p[q];
            const uint64_t *u1 = cur->bits + (size_t)path.slot * stride, *u2 = u1 + ref_set;
            if (has_bit(u2, current)) {
                if (current >= path.idx) {
                    int32_t f = s->fixed[current];
                    if (f < 0) continue;
                    const Match *m = &ms[f];
                    path.rank.key -= m->gain * point;
                    path.rank.dist += m->distance;
                    if (path.last_end != -1 && m->match_start != path.last_end) path.rank.key += 1;
                    path.idx = m->end2;
                    path.last_end = m->end1;
                }
                int slot = beam_slot(nxt, path.rank);
                if (slot >= 0) memcpy(beam_put(nxt, slot, path, stride), u1, stride * sizeof(uint64_t));
                continue;
            }
            Rank r0 = path.rank;
            for (int32_t c = s->cstart[current]; c < s->cstart[current + 1]; c++) {
                const Match *m = &ms[order[c]];
                if ((u2[m->w2] & m->lo2) | (u2[m->w2 + 1] & m->hi2) | (u1[m->w1] & m->lo1) |
                    (u1[m->w1 + 1] & m->hi1))
                    continue;
                Rank r = {r0.key - m->gain * point, r0.dist};
                if (path.last_end != -1 && m->match_start != path.last_end) r.key += 1;
                int slot = beam_slot(nxt, r);
                if (slot >= 0) {
                    if (w->chain.len >= INT32_MAX) return TO_PYTHON; /* int32 links */
                    Chain *ch = vec_push(&w->chain);
                    if (!ch) return -1;
                    ch->match = order[c];
                    ch->parent = path.chain;
                    Path np = {r, m->end2, m->end1, (int32_t)(w->chain.len - 1), 0};
                    uint64_t *b1 = beam_put(nxt, slot, np, stride), *b2 = b1 + ref_set;
                    memcpy(b1, u1, stride * sizeof(uint64_t));
                    b1[m->w1] |= m->lo1;
                    b1[m->w1 + 1] |= m->hi1;
                    b2[m->w2] |= m->lo2;
                    b2[m->w2 + 1] |= m->hi2;
                }
                r0.dist += m->distance; /* sic: the parent's distance (see align.py) */
            }
            if (path.last_end != -1) {
                r0.key += 1;
                path.last_end = -1;
            }
            path.rank = r0;
            path.idx = path.idx + 1;
            int slot = beam_slot(nxt, path.rank);
            if (slot >= 0) memcpy(beam_put(nxt, slot, path, stride), u1, stride * sizeof(uint64_t));
        }
        if (nxt->len == 0) { /* the jar keeps the best path of the previous position */
            memcpy(beam_put(nxt, 0, cur->p[0], stride), cur->bits + (size_t)cur->p[0].slot * stride,
                   stride * sizeof(uint64_t));
        }
    }
    /* the last chunk of each path, then the first path of the stable sort: the first one of
     * least rank */
    int best = 0;
    Rank best_rank = {0, 0};
    for (int q = 0; q < nxt->len; q++) {
        Rank r = nxt->p[q].rank;
        if (nxt->p[q].last_end != -1) r.key += 1;
        if (q == 0 || ranks_after(best_rank, r)) {
            best = q;
            best_rank = r;
        }
    }
    memcpy(s->chosen, s->fixed, sizeof(int32_t) * (size_t)n);
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

/* score.meteor_score, operation for operation (IEEE division gives what _div gives) */
static double meteor_score(const double *st) {
    const double rest = 1.0 - DELTA;
    double tl = st[0], rl = st[1], tf = st[2], rf = st[3];
    double t_len = (DELTA * (tl - tf)) + (rest * tf);
    double r_len = (DELTA * (rl - rf)) + (rest * rf);
    double t_m = 0.0, r_m = 0.0;
    for (int k = 0; k < 4; k++) t_m += st[4 + 4 * k] * WEIGHTS[k] * DELTA;
    for (int k = 0; k < 4; k++) r_m += st[5 + 4 * k] * WEIGHTS[k] * DELTA;
    for (int k = 0; k < 4; k++) t_m += st[6 + 4 * k] * WEIGHTS[k] * rest;
    for (int k = 0; k < 4; k++) r_m += st[7 + 4 * k] * WEIGHTS[k] * rest;
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

/* the pair's per-position arrays and position sets, zeroed; -1 on memory failure */
static int pair_state(Work *w, PairState *s, int n1, int n2) {
    size_t ints = (size_t)n1 + 6 * ((size_t)n2 + 1);
    s->nw1 = (n1 + 63) / 64;
    s->stride = (size_t)s->nw1 + 1 + (size_t)(n2 + 63) / 64 + 1;
    if (vec_reserve(&w->ints, ints) || vec_reserve(&w->bits, s->stride * (1 + 2 * BEAM_SIZE))) return -1;
    int32_t *p = w->ints.data;
    memset(p, 0, ints * sizeof(int32_t));
    s->cov1 = p;
    s->cov2 = p + n1;
    s->cstart = s->cov2 + (n2 + 1);
    s->fill = s->cstart + (n2 + 1);
    s->fixed = s->fill + (n2 + 1);
    s->chosen = s->fixed + (n2 + 1);
    s->used = w->bits.data;
    memset(s->used, 0, s->stride * sizeof(uint64_t));
    w->beams[0].bits = s->used + s->stride;
    w->beams[1].bits = w->beams[0].bits + s->stride * BEAM_SIZE;
    return 0;
}

/* forget the relations of the previous segment's hypothesis */
static void relations_reset(Work *w) {
    for (size_t k = 0; k < w->rel_words.len; k++) w->rel_at[((int32_t *)w->rel_words.data)[k]] = -1;
    w->rel_words.len = 0;
    w->rel.len = 0;
}

/* the offset of reference word rw's relations with hypothesis h (n1 words), computed on
 * first use in the segment: exact positions, then stem positions, then synonym positions,
 * in the jar's order; -1 on memory failure */
static int64_t relations(const Data *d, Work *w, const int32_t *h, int n1, int32_t rw) {
    if (w->rel_at[rw] >= 0) return w->rel_at[rw];
    int32_t rh = d->word_hash[rw], rs = d->word_stem[rw];
    int r_syn = d->syn_off[rw + 1] > d->syn_off[rw];
    /* the counts, at most n1 exact positions, at most 2 (n1 - exact) (position, module)
     * pairs: a position can be a stem and a synonym of the word */
    size_t at = w->rel.len, most = 2 + 5 * (size_t)n1;
    if (at + most > INT32_MAX || vec_reserve(&w->rel, at + most) || !vec_push(&w->rel_words)) return -1;
    ((int32_t *)w->rel_words.data)[w->rel_words.len - 1] = rw;
    int32_t *e = (int32_t *)w->rel.data + at, *out = e + 2;
    for (int i = 0; i < n1; i++)
        if (d->word_hash[h[i]] == rh) *out++ = i;
    e[0] = (int32_t)(out - e - 2);
    for (int i = 0; i < n1; i++)
        if (d->word_hash[h[i]] != rh && d->word_stem[h[i]] == rs) {
            *out++ = i;
            *out++ = STEM;
        }
    if (r_syn)
        for (int i = 0; i < n1; i++)
            if (d->word_hash[h[i]] != rh && synsets_meet(d, rw, h[i])) {
                *out++ = i;
                *out++ = SYNONYM;
            }
    e[1] = (int32_t)((out - e - 2 - e[0]) / 2);
    w->rel.len = (size_t)(out - (int32_t *)w->rel.data);
    w->rel_at[rw] = (int32_t)at;
    return (int64_t)at;
}

/* the statistics of one pair (hypothesis l1, reference l2); -1 on memory failure,
 * TO_PYTHON when the pair is left to the Python path */
static int pair_stats(const Data *d, Work *w, int32_t l1, int32_t l2, double *out) {
    int n1 = line_len(d, l1), n2 = line_len(d, l2);
    const int32_t *h = d->line_words + d->line_off[l1], *r = d->line_words + d->line_off[l2];
    PairState s;
    if (pair_state(w, &s, n1, n2)) return -1;
    w->matches.len = 0;
    int only_exact = n1 == n2;
    for (int i = 0; only_exact && i < n1; i++)
        if (d->word_hash[h[i]] != d->word_hash[r[i]]) only_exact = 0;
    for (int j = 0; j < n2; j++) {
        int64_t at = relations(d, w, h, n1, r[j]);
        if (at < 0) return -1;
        const int32_t *e = (const int32_t *)w->rel.data + at;
        int rc;
        for (int32_t k = 0; k < e[0]; k++)
            if ((rc = add_match(w, j, 1, e[2 + k], 1, EXACT))) return rc;
        if (only_exact) continue;
        for (int32_t k = 0; k < e[1]; k++)
            if ((rc = add_match(w, j, 1, e[2 + e[0] + 2 * k], 1, e[3 + e[0] + 2 * k]))) return rc;
    }
    if (!only_exact) {
        int rc = paraphrase_matches(d, w, l2, l1, 1);
        if (!rc) rc = paraphrase_matches(d, w, l1, l2, 0);
        if (rc) return rc;
    }
    const Match *ms = w->matches.data;
    size_t total = w->matches.len;
    /* group by reference position, keeping the append order within each (counting sort) */
    int32_t *counts = s.fill; /* counts first, then the fill pointers */
    for (size_t k = 0; k < total; k++) {
        const Match *m = &ms[k];
        counts[m->start]++;
        for (int q = m->match_start; q < m->end1; q++) s.cov1[q]++;
        for (int q = m->start; q < m->end2; q++) s.cov2[q]++;
    }
    s.cstart[0] = 0;
    for (int j = 0; j < n2; j++) s.cstart[j + 1] = s.cstart[j] + counts[j];
    if (vec_reserve(&w->order, total ? total : 1)) return -1;
    memcpy(s.fill, s.cstart, sizeof(int32_t) * (size_t)(n2 + 1));
    int32_t *order = w->order.data;
    for (size_t k = 0; k < total; k++) order[s.fill[ms[k].start]++] = (int32_t)k;
    uint64_t *used1 = s.used, *used2 = s.used + s.nw1 + 1;
    int first = -1;
    for (int j = 0; j < n2; j++) {
        s.fixed[j] = -1;
        int c = s.cstart[j + 1] - s.cstart[j];
        if (c == 1) {
            const Match *m = &ms[order[s.cstart[j]]];
            int ok = 1;
            for (int q = j; ok && q < m->end2; q++) ok = s.cov2[q] == 1;
            for (int q = m->match_start; ok && q < m->end1; q++) ok = s.cov1[q] == 1;
            if (ok) {
                s.fixed[j] = order[s.cstart[j]];
                used2[m->w2] |= m->lo2;
                used2[m->w2 + 1] |= m->hi2;
                used1[m->w1] |= m->lo1;
                used1[m->w1 + 1] |= m->hi1;
                continue;
            }
        }
        if (c && first < 0) first = j;
    }
    if (first < 0) {
        memcpy(s.chosen, s.fixed, sizeof(int32_t) * (size_t)n2);
    } else {
        int rc = resolve(w, &s, n2, first);
        if (rc) return rc;
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
    int64_t f1 = 0, f2 = 0;
    for (int i = 0; i < n1; i++) f1 += fn[h[i]] != 0;
    for (int j = 0; j < n2; j++) f2 += fn[r[j]] != 0;
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

/* ---- score_segments: argument checks. Every length, offset, index and overlap the pair
 * code relies on is checked once, before the GIL is released: a malformed call is a
 * ValueError or TypeError, never a read or write out of bounds. (The arrays must not be
 * changed by another thread during the call, as with any buffer the GIL does not guard.) */

typedef struct {
    Py_buffer b;
    int held;
} Buf;

/* n_off offsets, from 0, never decreasing, ending at total (so each lies in [0, total]) */
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

static int ascending(const int64_t *v, Py_ssize_t n) {
    for (Py_ssize_t k = 1; k < n; k++)
        if (v[k] < v[k - 1]) return 0;
    return 1;
}

enum { A_WORD_HASH, A_WORD_STEM, A_WORD_FUNC, A_SYN_OFF, A_SYN_IDS, A_LINE_OFF, A_LINE_WORDS, A_NODE_OFF,
       A_NODES, A_FOUND_OFF, A_FOUND, A_FPOS_OFF, A_FPOS, A_HIT_KEYS, A_HIT_OFF, A_HIT_RANKS,
       A_PHRASE_WORDS, A_SEG_OFF, A_SEG_LINES, A_OUT_STATS, A_OUT_BEST, A_OUT_SCORE, N_ARGS };
#define FIRST_OUTPUT A_OUT_STATS

/* each argument's item: 'i' int32, 'q' int64, 'B' uint8, 'd' float64 */
static const char KINDS[N_ARGS + 1] = "iiBqqqiqiqiqiqqiBqidid";
static const char *NAMES[N_ARGS] = {
    "word_hash", "word_stem", "word_func", "syn_off", "syn_ids", "line_off", "line_words", "node_off",
    "nodes", "found_off", "found", "fpos_off", "fpos", "hit_keys", "hit_off", "hit_ranks",
    "phrase_words", "seg_off", "seg_lines", "out_stats", "out_best", "out_score"};

static Py_ssize_t items(const Buf *bufs, int k) {
    return bufs[k].b.len / bufs[k].b.itemsize;
}

/* whether a buffer's format is the kind's: native byte order, a signed integer of the
 * kind's size, unsigned bytes, or doubles */
static int format_ok(const Py_buffer *b, char kind) {
    const char *f = b->format ? b->format : "B";
    if (*f == '@' || *f == '=') f++;
    if (!f[0] || f[1]) return 0;
    switch (kind) {
    case 'i':
        return b->itemsize == 4 && strchr("il", f[0]) != NULL;
    case 'q':
        return b->itemsize == 8 && strchr("lqn", f[0]) != NULL;
    case 'B':
        return b->itemsize == 1 && f[0] == 'B';
    default:
        return b->itemsize == 8 && f[0] == 'd';
    }
}

static int get_buf(PyObject *obj, Buf *buf, int k) {
    int writable = k >= FIRST_OUTPUT;
    if (PyObject_GetBuffer(obj, &buf->b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    buf->held = 1;
    if (!format_ok(&buf->b, KINDS[k])) {
        PyErr_Format(PyExc_TypeError, "_fast.score_segments: %s must be a contiguous array of %s", NAMES[k],
                     KINDS[k] == 'i' ? "int32" : KINDS[k] == 'q' ? "int64" : KINDS[k] == 'B' ? "uint8" : "float64");
        return -1;
    }
    return 0;
}

static int overlap(const Py_buffer *a, const Py_buffer *b) {
    if (a->len == 0 || b->len == 0) return 0;
    const char *x = a->buf, *y = b->buf;
    return x < y + b->len && y < x + a->len;
}

static int check_inputs(const Buf *bufs) {
#define I64(k) ((const int64_t *)bufs[k].b.buf)
#define I32(k) ((const int32_t *)bufs[k].b.buf)
    Py_ssize_t n_words = items(bufs, A_WORD_HASH), n_lines = items(bufs, A_LINE_OFF) - 1;
    Py_ssize_t n_found = items(bufs, A_FOUND), n_nodes = items(bufs, A_NODES);
    Py_ssize_t n_hits = items(bufs, A_HIT_KEYS), n_seg = items(bufs, A_OUT_BEST);
    const char *bad = NULL;
    if (items(bufs, A_WORD_STEM) != n_words || items(bufs, A_WORD_FUNC) != n_words)
        bad = "word arrays (word_hash, word_stem and word_func differ in length)";
    else if (items(bufs, A_SYN_OFF) != n_words + 1 || !offsets_ok(I64(A_SYN_OFF), n_words + 1, items(bufs, A_SYN_IDS)))
        bad = "syn_off";
    else if (n_lines < 0 || !offsets_ok(I64(A_LINE_OFF), n_lines + 1, items(bufs, A_LINE_WORDS)))
        bad = "line_off";
    else if (!ids_ok(I32(A_LINE_WORDS), items(bufs, A_LINE_WORDS), n_words))
        bad = "line_words";
    else if (n_nodes % 3 || items(bufs, A_NODE_OFF) != n_lines + 1 ||
             !offsets_ok(I64(A_NODE_OFF), n_lines + 1, n_nodes / 3))
        bad = "node_off";
    else if (items(bufs, A_FOUND_OFF) != n_lines + 1 || !offsets_ok(I64(A_FOUND_OFF), n_lines + 1, n_found))
        bad = "found_off";
    else if (!ids_ok(I32(A_FOUND), n_found, items(bufs, A_PHRASE_WORDS)))
        bad = "found";
    else if (items(bufs, A_FPOS_OFF) != n_found + 1 || !offsets_ok(I64(A_FPOS_OFF), n_found + 1, items(bufs, A_FPOS)))
        bad = "fpos_off";
    else if (!ascending(I64(A_HIT_KEYS), n_hits))
        bad = "hit_keys (not sorted)";
    else if (items(bufs, A_HIT_OFF) != n_hits + 1 || !offsets_ok(I64(A_HIT_OFF), n_hits + 1, items(bufs, A_HIT_RANKS)))
        bad = "hit_off";
    else if (items(bufs, A_SEG_OFF) != n_seg + 1 || !offsets_ok(I64(A_SEG_OFF), n_seg + 1, items(bufs, A_SEG_LINES)))
        bad = "seg_off";
    else if (!ids_ok(I32(A_SEG_LINES), items(bufs, A_SEG_LINES), n_lines))
        bad = "seg_lines";
    else if (items(bufs, A_OUT_STATS) != n_seg * N_STATS)
        bad = "out_stats (not N_STATS per segment)";
    else if (items(bufs, A_OUT_SCORE) != n_seg)
        bad = "out_score (not one per segment)";
#undef I64
#undef I32
    if (bad) {
        PyErr_Format(PyExc_ValueError, "_fast.score_segments: inconsistent %s", bad);
        return -1;
    }
    for (int k = FIRST_OUTPUT; k < N_ARGS; k++)
        for (int j = 0; j < N_ARGS; j++)
            if (j != k && overlap(&bufs[k].b, &bufs[j].b)) {
                PyErr_Format(PyExc_ValueError, "_fast.score_segments: output %s shares memory with %s", NAMES[k],
                             NAMES[j]);
                return -1;
            }
    return 0;
}

static PyObject *score_segments(PyObject *self, PyObject *args) {
    PyObject *objs[N_ARGS];
    Buf bufs[N_ARGS];
    memset(bufs, 0, sizeof(bufs));
    if (PyTuple_GET_SIZE(args) != N_ARGS) {
        PyErr_Format(PyExc_TypeError, "_fast.score_segments takes %d arrays (%zd given)", N_ARGS,
                     PyTuple_GET_SIZE(args));
        return NULL;
    }
    for (int k = 0; k < N_ARGS; k++) objs[k] = PyTuple_GET_ITEM(args, k);
    PyObject *result = NULL;
    for (int k = 0; k < N_ARGS; k++)
        if (get_buf(objs[k], &bufs[k], k) < 0) goto done;
    if (check_inputs(bufs) < 0) goto done;
    {
        Data d;
        d.word_hash = bufs[A_WORD_HASH].b.buf;
        d.word_stem = bufs[A_WORD_STEM].b.buf;
        d.word_func = bufs[A_WORD_FUNC].b.buf;
        d.syn_off = bufs[A_SYN_OFF].b.buf;
        d.syn_ids = bufs[A_SYN_IDS].b.buf;
        d.line_off = bufs[A_LINE_OFF].b.buf;
        d.line_words = bufs[A_LINE_WORDS].b.buf;
        d.node_off = bufs[A_NODE_OFF].b.buf;
        d.nodes = bufs[A_NODES].b.buf;
        d.found_off = bufs[A_FOUND_OFF].b.buf;
        d.found = bufs[A_FOUND].b.buf;
        d.fpos_off = bufs[A_FPOS_OFF].b.buf;
        d.fpos = bufs[A_FPOS].b.buf;
        d.hit_keys = bufs[A_HIT_KEYS].b.buf;
        d.hit_off = bufs[A_HIT_OFF].b.buf;
        d.hit_ranks = bufs[A_HIT_RANKS].b.buf;
        d.n_hits = items(bufs, A_HIT_KEYS);
        d.phrase_words = bufs[A_PHRASE_WORDS].b.buf;
        const int64_t *seg_off = bufs[A_SEG_OFF].b.buf;
        const int32_t *seg_lines = bufs[A_SEG_LINES].b.buf;
        double *out_stats = bufs[A_OUT_STATS].b.buf;
        int32_t *out_best = bufs[A_OUT_BEST].b.buf;
        double *out_score = bufs[A_OUT_SCORE].b.buf;
        Py_ssize_t n_seg = items(bufs, A_OUT_BEST);
        d.syn_sig = synset_signatures(d.syn_off, d.syn_ids, items(bufs, A_WORD_HASH));
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
        w.rel.item = sizeof(int32_t);
        w.rel_words.item = sizeof(int32_t);
        w.rel_at = malloc(sizeof(int32_t) * (size_t)(items(bufs, A_WORD_HASH) ? items(bufs, A_WORD_HASH) : 1));
        if (!w.rel_at) {
            free(d.syn_sig);
            PyErr_NoMemory();
            goto done;
        }
        memset(w.rel_at, 0xFF, sizeof(int32_t) * (size_t)items(bufs, A_WORD_HASH));
        w.ints.item = sizeof(int32_t);
        w.bits.item = sizeof(uint64_t);
        int failed = 0;
        Py_BEGIN_ALLOW_THREADS
        double st[N_STATS];
        for (Py_ssize_t g = 0; g < n_seg && !failed; g++) {
            int64_t a = seg_off[g], b = seg_off[g + 1];
            double *best = out_stats + g * N_STATS;
            out_best[g] = -1;
            out_score[g] = -1.0;
            int to_python = b - a < 2; /* no reference: the Python path decides */
            for (int64_t k = a; k < b && !to_python; k++)
                if (line_len(&d, seg_lines[k]) > MAX_LINE_WORDS) to_python = 1;
            if (to_python) {
                out_best[g] = TO_PYTHON;
                continue;
            }
            int32_t hyp = seg_lines[a];
            relations_reset(&w);
            for (int64_t k = a + 1; k < b; k++) {
                int rc = pair_stats(&d, &w, hyp, seg_lines[k], st);
                if (rc == TO_PYTHON) {
                    out_best[g] = TO_PYTHON;
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
        free(w.rel.data);
        free(w.rel_words.data);
        free(w.rel_at);
        free(w.ints.data);
        free(w.bits.data);
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
 * here without building a phrase string; its shape is checked as it is read (a TypeError,
 * never a read past an object). Returns what backend_c.CompiledLine keeps, four bytes
 * objects of native int32: the (start, words, node) triples, the paraphrase ids found (in
 * order of first appearance), how many positions each has, and those positions (ascending
 * per id). Or None, after adding to `unknown` every n-gram not looked up yet: the line is
 * then walked again, from the start, once they are.
 * The GIL is held throughout. The dict being searched is held by a strong reference; an
 * entry and its gram are borrowed only until the next lookup: in between no Python code runs
 * (the words are exact str, whose hash runs none) and no Python object is allocated (an
 * allocation could run a collection, and with it code that changes the trie); after the one
 * allocating call (an unknown n-gram) the walk of the position ends and the next one starts
 * again from the root. */

static PyObject *int32_bytes(const int32_t *v, size_t n) {
    return PyBytes_FromStringAndSize((const char *)v, (Py_ssize_t)(n * sizeof(int32_t)));
}

static int int32_of(PyObject *o, int32_t *out) {
    if (!PyLong_CheckExact(o)) return -1;
    long v = PyLong_AsLong(o);
    if ((v == -1 && PyErr_Occurred()) || v < INT32_MIN || v > INT32_MAX) {
        PyErr_Clear();
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static PyObject *walk_line(PyObject *self, PyObject *args) {
    PyObject *words, *trie, *unknown_marker, *unknown;
    int max_phrase;
    if (!PyArg_ParseTuple(args, "O!O!OO!i", &PyTuple_Type, &words, &PyDict_Type, &trie, &unknown_marker,
                          &PySet_Type, &unknown, &max_phrase))
        return NULL;
    if (max_phrase < 1 || max_phrase > MAX_PHRASE) {
        PyErr_Format(PyExc_ValueError, "_fast.walk_line: max_phrase must be in 1..%d", MAX_PHRASE);
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(words);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(words, i))) {
            PyErr_Format(PyExc_TypeError, "_fast.walk_line: word %zd is not a str", i);
            return NULL;
        }
    if (n > MAX_LINE_WORDS) {
        PyErr_Format(PyExc_ValueError, "_fast.walk_line: a line of more than %d words", MAX_LINE_WORDS);
        return NULL;
    }
    int complete = 1;
    /* nodes: int32 triples; pids and where: each paraphrase id met, and its position */
    Vec nodes = {NULL, 0, 0, sizeof(int32_t)}, pids = {NULL, 0, 0, sizeof(int32_t)},
        where = {NULL, 0, 0, sizeof(int32_t)};
    int32_t *found = NULL, *counts = NULL, *positions = NULL;
    PyObject *result = NULL, *level = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        int alive = 1;
        Py_ssize_t last = n - i < max_phrase ? n - i : max_phrase;
        /* a strong reference: a key of the trie that is not a str could run code in a lookup */
        Py_INCREF(trie);
        Py_XSETREF(level, trie);
        Py_ssize_t k = 0;
        for (;;) {
            PyObject *e = level ? PyDict_GetItemWithError(level, PyTuple_GET_ITEM(words, i + k)) : NULL;
            if (!e && PyErr_Occurred()) goto done;
            if (e && !(PyList_CheckExact(e) && PyList_GET_SIZE(e) == 2)) goto bad_trie;
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
            int32_t node, pid;
            if (!PyTuple_CheckExact(g) || PyTuple_GET_SIZE(g) != 2 || int32_of(PyTuple_GET_ITEM(g, 0), &node) ||
                int32_of(PyTuple_GET_ITEM(g, 1), &pid))
                goto bad_trie;
            if (complete) { /* an incomplete line's result is thrown away */
                if (alive) {
                    if (node >= 0) {
                        if (vec_reserve(&nodes, nodes.len + 3)) goto nomem;
                        int32_t *t = (int32_t *)nodes.data + nodes.len;
                        t[0] = (int32_t)i;
                        t[1] = (int32_t)k;
                        t[2] = node;
                        nodes.len += 3;
                    } else {
                        alive = 0; /* the jar's trie walk stops here */
                    }
                }
                if (pid >= 0) {
                    int32_t *p = vec_push(&pids), *w = vec_push(&where);
                    if (!p || !w) goto nomem;
                    *p = pid;
                    *w = (int32_t)i;
                }
            }
            if (k == last) break;
            PyObject *children = PyList_GET_ITEM(e, 1);
            if (children != Py_None && !PyDict_CheckExact(children)) goto bad_trie;
            if (children == Py_None) {
                Py_CLEAR(level);
            } else {
                Py_INCREF(children);
                Py_SETREF(level, children);
            }
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
bad_trie:
    PyErr_SetString(PyExc_TypeError,
                    "_fast.walk_line: the trie must map words to [gram, children] lists (gram: the unknown "
                    "marker, None or an (int32, int32) tuple; children: a dict or None)");
    goto done;
nomem:
    PyErr_NoMemory();
done:
    Py_XDECREF(level);
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
     "Statistics, best reference and score of each segment (see backend_c.py)."},
    {"walk_line", walk_line, METH_VARARGS, "matchers.Line.walk of one line (see walk_line in _fast.c)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast",
                                    "METEOR 1.5's compiled backend (see backend_c.py).", -1, methods,
                                    NULL, NULL, NULL, NULL};

#ifndef METRICORE_SOURCE_HASH
#define METRICORE_SOURCE_HASH ""
#endif

static PyObject *double_tuple(const double *v, int n) {
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) {
        PyObject *x = PyFloat_FromDouble(v[k]);
        if (!x) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, x);
    }
    return t;
}

/* the constants the Python modules also define (backend_c.py compares them at import) */
static int add_constants(PyObject *m) {
    PyObject *weights = double_tuple(WEIGHTS, 4), *align = double_tuple(ALIGN_WEIGHTS, 4);
    PyObject *modules = Py_BuildValue("(iiii)", EXACT, STEM, SYNONYM, PARAPHRASE);
    int rc = (!weights || !align || !modules || PyModule_AddStringConstant(m, "SOURCE_HASH", METRICORE_SOURCE_HASH) ||
              PyModule_AddIntConstant(m, "BEAM_SIZE", BEAM_SIZE) || PyModule_AddIntConstant(m, "N_STATS", N_STATS) ||
              PyModule_AddIntConstant(m, "MAX_PHRASE", MAX_PHRASE) ||
              PyModule_AddIntConstant(m, "MAX_LINE_WORDS", MAX_LINE_WORDS) ||
              PyModule_AddObject(m, "ALPHA", PyFloat_FromDouble(ALPHA)) ||
              PyModule_AddObject(m, "BETA", PyFloat_FromDouble(BETA)) ||
              PyModule_AddObject(m, "GAMMA", PyFloat_FromDouble(GAMMA)) ||
              PyModule_AddObject(m, "DELTA", PyFloat_FromDouble(DELTA)) ||
              PyModule_AddObjectRef(m, "WEIGHTS", weights) || PyModule_AddObjectRef(m, "ALIGN_WEIGHTS", align) ||
              PyModule_AddObjectRef(m, "MODULES", modules))
                 ? -1
                 : 0;
    Py_XDECREF(weights);
    Py_XDECREF(align);
    Py_XDECREF(modules);
    return rc;
}

PyMODINIT_FUNC PyInit__fast(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && add_constants(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
