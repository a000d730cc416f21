/*
 * The parsing half of METEOR 1.5's paraphrase index build (paraphrase_build.py,
 * _parse_compiled): the table's lines in, the distinct phrases and their 64-bit keys out,
 * without a Python object per record. paraphrase_build._parse_python does the same in Python
 * (the fallback); both hand their result to paraphrase_build._assemble, and the tests compare
 * the arrays with the original builder's (tests/oracles/meteor15_paraphrase_index.py).
 *
 * Input: chunks of whole lines, each ending in '\n', newlines already translated as Java's
 * readLine reads them (paraphrase_build._line_chunks). A chunk that is not valid UTF-8 is refused
 * untouched (feed returns False) so that the caller can decode it with errors="replace"
 * first, as the Python reader does. Lines come in threes (probability, reference phrase,
 * paraphrase); a phrase is its tokens (split on ' ', '\t', '\f': StringTokenizer's
 * delimiters that can remain in a line) joined by one space.
 *
 * Output (finish): every distinct *gram* (a phrase or a prefix of one, in words) once, as
 * an entry with its key (BLAKE2b, RFC 7693, 8-byte digest, unkeyed: hashlib.blake2b(phrase,
 * digest_size=8) read as a little-endian integer, paraphrase_build.phrase_key; hashed four
 * at a time where vectors allow) and a flag for prefixes of reference phrases (trie nodes);
 * the order that sorts the keys; for paraphrases, ids in order of first appearance; per
 * record its paraphrase id; per run of equal consecutive reference phrases the run's entry
 * and first record. Phrases are told apart by their bytes, as the Python builder's dict
 * does, so a collision of keys gives the same index there and here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- BLAKE2b, 8-byte digest */

static const uint64_t B2_IV[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                                  0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                  0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static const uint8_t B2_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static inline uint64_t load_le64(const uint8_t *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* (a macro: the same text rotates a 64-bit word and a vector of them) */
#define ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

#define B2_G(a, b, c, d, x, y)          \
    do {                                \
        v[a] = v[a] + v[b] + (x);       \
        v[d] = ROTR64(v[d] ^ v[a], 32); \
        v[c] = v[c] + v[d];             \
        v[b] = ROTR64(v[b] ^ v[c], 24); \
        v[a] = v[a] + v[b] + (y);       \
        v[d] = ROTR64(v[d] ^ v[a], 16); \
        v[c] = v[c] + v[d];             \
        v[b] = ROTR64(v[b] ^ v[c], 63); \
    } while (0)

/* the twelve rounds over the work vector v[16] and the message words m[16] */
#define B2_ROUNDS()                                           \
    for (int r = 0; r < 12; r++) {                            \
        const uint8_t *s = B2_SIGMA[r];                       \
        B2_G(0, 4, 8, 12, m[s[0]], m[s[1]]);                  \
        B2_G(1, 5, 9, 13, m[s[2]], m[s[3]]);                  \
        B2_G(2, 6, 10, 14, m[s[4]], m[s[5]]);                 \
        B2_G(3, 7, 11, 15, m[s[6]], m[s[7]]);                 \
        B2_G(0, 5, 10, 15, m[s[8]], m[s[9]]);                 \
        B2_G(1, 6, 11, 12, m[s[10]], m[s[11]]);               \
        B2_G(2, 7, 8, 13, m[s[12]], m[s[13]]);                \
        B2_G(3, 4, 9, 14, m[s[14]], m[s[15]]);                \
    }

/* the parameter block's first word: depth 1, fanout 1, no key, digest length 8 */
#define B2_PARAM (0x01010000ULL ^ 8)

static void b2_compress(uint64_t h[8], const uint8_t block[128], uint64_t bytes, int last) {
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++) m[i] = load_le64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = B2_IV[i];
    }
    v[12] ^= bytes; /* the high half of the 128-bit counter stays 0 below 2^64 bytes */
    if (last) v[14] = ~v[14];
    B2_ROUNDS();
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* hashlib.blake2b(data, digest_size=8).digest() as a little-endian integer: the digest is
   the first 8 bytes of h[0] in little-endian order, i.e. h[0] itself */
static uint64_t blake2b_64(const uint8_t *data, size_t len) {
    uint64_t h[8];
    uint8_t block[128];
    memcpy(h, B2_IV, sizeof h);
    h[0] ^= B2_PARAM;
    size_t off = 0;
    while (len - off > 128) {
        b2_compress(h, data + off, off + 128, 0);
        off += 128;
    }
    memset(block, 0, sizeof block);
    memcpy(block, data + off, len - off);
    b2_compress(h, block, len, 1);
    return h[0];
}

/* Four messages of at most one block (128 bytes) at once, one in each lane of a vector of
   four 64-bit words (GCC and Clang vector extensions: SSE2 code on any x86-64, AVX2 code in
   the variant compiled for it, chosen at run time); the same operations as blake2b_64. */
#if defined(__GNUC__) || defined(__clang__)
#define B2_LANES 1
typedef uint64_t lanes4 __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) void b2_x4_body(const uint8_t *const d[4], const uint32_t len[4],
                                                             uint64_t out[4]) {
    uint8_t block[4][128];
    lanes4 v[16], m[16];
    for (int l = 0; l < 4; l++) {
        memset(block[l], 0, 128);
        memcpy(block[l], d[l], len[l]);
    }
    for (int i = 0; i < 16; i++)
        m[i] = (lanes4){load_le64(block[0] + 8 * i), load_le64(block[1] + 8 * i), load_le64(block[2] + 8 * i),
                        load_le64(block[3] + 8 * i)};
    for (int i = 0; i < 8; i++) {
        uint64_t x = B2_IV[i] ^ (i == 0 ? B2_PARAM : 0);
        v[i] = (lanes4){x, x, x, x};
        v[i + 8] = (lanes4){B2_IV[i], B2_IV[i], B2_IV[i], B2_IV[i]};
    }
    lanes4 h0 = v[0];
    v[12] ^= (lanes4){len[0], len[1], len[2], len[3]};
    v[14] = ~v[14];
    B2_ROUNDS();
    lanes4 h = h0 ^ v[0] ^ v[8];
    for (int l = 0; l < 4; l++) out[l] = h[l];
}

static void blake2b_64_x4(const uint8_t *const d[4], const uint32_t len[4], uint64_t out[4]) {
    b2_x4_body(d, len, out);
}

#if defined(__x86_64__) || defined(__i386__)
#define B2_AVX2 1
__attribute__((target("avx2"))) static void blake2b_64_x4_avx2(const uint8_t *const d[4], const uint32_t len[4],
                                                                uint64_t out[4]) {
    b2_x4_body(d, len, out);
}
#endif
#endif

typedef void (*HashX4)(const uint8_t *const d[4], const uint32_t len[4], uint64_t out[4]);

/* The four-lane hash this machine runs best (0: none, hash one message at a time). */
static HashX4 hash_x4(int variant) {
#ifdef B2_LANES
#ifdef B2_AVX2
    if (variant != 1 && __builtin_cpu_supports("avx2")) return blake2b_64_x4_avx2;
    if (variant == 2) return NULL;
#endif
    if (variant != 0) return blake2b_64_x4;
#endif
    (void)variant;
    return NULL;
}

/* keys[i] = blake2b_64(data[i]) for n messages given as pointers and lengths, four at a time
   where they fit one block. `variant`: -1 the best, 0 one at a time, 1 the portable four-lane
   code, 2 the AVX2 code. */
static void hash_many(const uint8_t *const *data, const uint32_t *len, size_t n, uint64_t *keys, int variant) {
    HashX4 x4 = variant == 0 ? NULL : hash_x4(variant);
    const uint8_t *d[4] = {NULL, NULL, NULL, NULL};
    uint32_t l[4] = {0, 0, 0, 0};
    size_t at[4] = {0, 0, 0, 0}, k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!x4 || len[i] > 128) {
            keys[i] = blake2b_64(data[i], len[i]);
            continue;
        }
        d[k] = data[i];
        l[k] = len[i];
        at[k++] = i;
        if (k == 4) {
            uint64_t out[4];
            x4(d, l, out);
            for (int j = 0; j < 4; j++) keys[at[j]] = out[j];
            k = 0;
        }
    }
    for (size_t j = 0; j < k; j++) keys[at[j]] = blake2b_64(d[j], l[j]);
}

/* ---------------------------------------------------------------- UTF-8, as Python decodes */

/* Whether s[0:n] is UTF-8 that Python's strict decoder accepts (no overlong forms, no
   surrogates, nothing past U+10FFFF). */
static int valid_utf8(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n && (load_le64(s + i) & 0x8080808080808080ULL) == 0) {
            i += 8;
            continue;
        }
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return 0;
        }
        if (n - i <= need) return 0;
        if (s[i + 1] < lo || s[i + 1] > hi) return 0;
        for (size_t k = 2; k <= need; k++)
            if ((s[i + k] & 0xC0) != 0x80) return 0;
        i += need + 1;
    }
    return 1;
}

/* ---------------------------------------------------------------- growable arrays */

typedef struct {
    char *data;
    size_t len, cap; /* in items */
} Vec;

static int vec_grow(Vec *v, size_t item, size_t need) {
    if (need <= v->cap) return 0;
    size_t cap = v->cap ? v->cap : 1024;
    while (cap < need) cap *= 2;
    char *p = realloc(v->data, cap * item);
    if (!p) return -1;
    v->data = p;
    v->cap = cap;
    return 0;
}

#define VEC_PUSH(v, type, value) \
    (vec_grow(&(v), sizeof(type), (v).len + 1) ? -1 : (((type *)(v).data)[(v).len++] = (value), 0))
#define VEC_AT(v, type, i) (((type *)(v).data)[i])

static void vec_free(Vec *v) {
    free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

/* ---------------------------------------------------------------- the builder */

/* The arena holds one record per entry, in entry order: this header, then the gram's bytes
   (padded to 4). A slot of the open-addressing table holds a tag (the top 24 bits of the
   gram's table hash) and the record's offset (40 bits): a lookup touches the slot and the
   record, two memory accesses that the parse issues ahead for the paraphrases of the next
   records, as the table is far larger than the caches. */
typedef struct {
    uint32_t len;  /* the gram's bytes */
    int32_t entry; /* its index, in order of first appearance */
    int32_t pid;   /* its paraphrase id, -1 */
    uint32_t node; /* a prefix of a reference phrase */
} Head;

#define OFF_BITS 40
#define OFF_MASK ((1ULL << OFF_BITS) - 1)
#define MAX_ITEMS 0x7FFFFFF0LL
#define ARENA_START 8 /* offset 0 is never a record: an empty slot is 0 */
#define AHEAD 24      /* lines: a slot is fetched this far ahead, its record half as far */

enum { OK = 0, TOO_LONG = 1, UNSUPPORTED = 2, NO_MEMORY = 3 };

/* a reference phrase or paraphrase of the current chunk */
typedef struct {
    const uint8_t *s;
    uint64_t hash;
    uint64_t prefix_hash; /* of a paraphrase's first prefix (0: none), for fetching ahead */
    uint32_t len, words;
    int kind; /* 0: probability line (ignored), 1: reference phrase, 2: paraphrase */
} Phrase;

typedef struct {
    PyObject_HEAD
    int max_phrase;
    int state; /* OK, or why the build stopped */
    int busy, done;
    int phase; /* the next line is a probability (0), reference (1) or paraphrase (2) */
    int have_ref;
    Vec arena;                /* char: the entries' records */
    int64_t n_entries;
    uint64_t *slots;          /* tag << 40 | record offset, 0 empty */
    size_t mask;              /* number of slots - 1 */
    Vec pid_entry, pid_words; /* int32, uint8 per paraphrase id */
    Vec rec_pid;              /* int32 per record */
    Vec run_entry, run_start; /* int32, int64 per run of one reference phrase */
    Vec last_ref;             /* char: the current run's reference phrase */
    Vec phrases;              /* Phrase per line of the chunk being parsed */
    Vec normalized;           /* char: phrases of the chunk that differ from their line */
} Builder;

/* a quick hash for the table (the 64-bit keys are computed once per entry, at the end) */
static inline uint64_t table_hash(const uint8_t *s, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        h = (h ^ load_le64(s + i)) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    for (size_t k = 0; i + k < n; k++) w |= (uint64_t)s[i + k] << (8 * k);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 32;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 29;
    return h;
}

static inline Head *head_at(const Builder *b, uint64_t off) { return (Head *)(b->arena.data + off); }
static inline const uint8_t *gram_of(const Head *h) { return (const uint8_t *)(h + 1); }
static inline size_t record_size(size_t len) { return sizeof(Head) + ((len + 3) & ~(size_t)3); }
static inline uint64_t tag_of(uint64_t hash) { return hash & ~OFF_MASK; }

static int rehash(Builder *b, size_t nslots) {
    uint64_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    size_t mask = nslots - 1;
    for (size_t off = ARENA_START; off < b->arena.len;) {
        const Head *h = head_at(b, off);
        uint64_t hash = table_hash(gram_of(h), h->len);
        size_t i = (size_t)hash & mask;
        while (slots[i]) i = (i + 1) & mask;
        slots[i] = tag_of(hash) | off;
        off += record_size(h->len);
    }
    free(b->slots);
    b->slots = slots;
    b->mask = mask;
    return 0;
}

/* The record offset of the gram s[0:n] (table hash `hash`), added when new (*added = 1);
   0 when the build must stop (b->state says why). s must not point into the arena. */
static uint64_t intern(Builder *b, const uint8_t *s, size_t n, uint64_t hash, int *added) {
    uint64_t tag = tag_of(hash), slot;
    size_t i = (size_t)hash & b->mask;
    for (; (slot = b->slots[i]) != 0; i = (i + 1) & b->mask) {
        if ((slot & ~OFF_MASK) != tag) continue;
        const Head *h = head_at(b, slot & OFF_MASK);
        if (h->len == n && memcmp(gram_of(h), s, n) == 0) {
            *added = 0;
            return slot & OFF_MASK;
        }
    }
    uint64_t off = b->arena.len, size = record_size(n);
    if (n > UINT32_MAX || b->n_entries >= MAX_ITEMS || off + size > OFF_MASK) {
        b->state = UNSUPPORTED;
        return 0;
    }
    if (vec_grow(&b->arena, 1, off + size)) goto nomem;
    Head *h = head_at(b, off);
    h->len = (uint32_t)n;
    h->entry = (int32_t)b->n_entries++;
    h->pid = -1;
    h->node = 0;
    memcpy((uint8_t *)(h + 1), s, n);
    memset((uint8_t *)(h + 1) + n, 0, size - sizeof(Head) - n);
    b->arena.len += size;
    b->slots[i] = tag | off;
    *added = 1;
    /* at most half full: short probe sequences */
    if (2 * (size_t)b->n_entries > b->mask + 1 && rehash(b, 2 * (b->mask + 1))) goto nomem;
    return off;
nomem:
    b->state = NO_MEMORY;
    return 0;
}

/* Adds the prefixes of the gram s[0:n] shorter than it, down to the first one already there,
   marking them as trie nodes when `node` is set. Prefixes of a gram are grams, and prefixes
   of a node are nodes, so the first one found ends the walk. */
static int add_prefixes(Builder *b, const uint8_t *s, size_t n, int node) {
    while (n > 0) {
        while (n > 0 && s[n - 1] != ' ') n--;
        if (n == 0) break;
        n--; /* drop the space */
        int added;
        uint64_t off = intern(b, s, n, table_hash(s, n), &added);
        if (!off) return -1;
        Head *h = head_at(b, off);
        if (!added && (!node || h->node)) break;
        if (node) h->node = 1;
    }
    return 0;
}

/* The phrase of a line: the line itself when it is words separated by single spaces, else
   its tokens (split on ' ', '\t', '\f') joined by one space, written to `out` (room for n
   bytes). Its words: 1 for an empty phrase, as "".count(" ") + 1. */
static void phrase_of(const uint8_t *s, size_t n, uint8_t *out, Phrase *p) {
    size_t spaces = 0;
    int plain = !(n && (s[0] == ' ' || s[n - 1] == ' '));
    for (size_t i = 0; i < n && plain; i++) {
        uint8_t c = s[i];
        if (c == ' ') {
            spaces++;
            if (s[i - 1] == ' ') plain = 0; /* i > 0: s[0] is no space here */
        } else if (c == '\t' || c == '\f') {
            plain = 0;
        }
    }
    if (plain) {
        p->s = s;
        p->len = (uint32_t)n;
        p->words = (uint32_t)(spaces + 1);
    } else {
        size_t k = 0, tokens = 0;
        int in_token = 0;
        for (size_t i = 0; i < n; i++) {
            uint8_t c = s[i];
            if (c == ' ' || c == '\t' || c == '\f') {
                in_token = 0;
                continue;
            }
            if (!in_token) {
                if (tokens++) out[k++] = ' ';
                in_token = 1;
            }
            out[k++] = c;
        }
        p->s = out;
        p->len = (uint32_t)k;
        p->words = (uint32_t)(tokens ? tokens : 1);
    }
    p->hash = table_hash(p->s, p->len);
}

static int reference_phrase(Builder *b, const Phrase *p) {
    if (b->have_ref && b->last_ref.len == p->len && memcmp(b->last_ref.data, p->s, p->len) == 0) return 0;
    if (p->words > (uint32_t)b->max_phrase) {
        b->state = TOO_LONG;
        return -1;
    }
    if (vec_grow(&b->last_ref, 1, (size_t)p->len + 1)) goto nomem;
    memcpy(b->last_ref.data, p->s, p->len);
    b->last_ref.len = p->len;
    b->have_ref = 1;
    int added;
    uint64_t off = intern(b, p->s, p->len, p->hash, &added);
    if (!off) return -1;
    if (added || !head_at(b, off)->node) {
        head_at(b, off)->node = 1;
        if (add_prefixes(b, p->s, p->len, 1)) return -1;
    }
    if ((long long)b->run_entry.len >= MAX_ITEMS) {
        b->state = UNSUPPORTED;
        return -1;
    }
    if (VEC_PUSH(b->run_entry, int32_t, head_at(b, off)->entry) ||
        VEC_PUSH(b->run_start, int64_t, (int64_t)b->rec_pid.len))
        goto nomem;
    return 0;
nomem:
    b->state = NO_MEMORY;
    return -1;
}

static int paraphrase(Builder *b, const Phrase *p) {
    int added;
    uint64_t off = intern(b, p->s, p->len, p->hash, &added);
    if (!off) return -1;
    if (added && add_prefixes(b, p->s, p->len, 0)) return -1;
    Head *h = head_at(b, off); /* after add_prefixes: the arena may have moved */
    if (h->pid < 0) {
        if (p->words > (uint32_t)b->max_phrase) {
            b->state = TOO_LONG;
            return -1;
        }
        if ((long long)b->pid_entry.len >= MAX_ITEMS) {
            b->state = UNSUPPORTED;
            return -1;
        }
        h->pid = (int32_t)b->pid_entry.len;
        if (VEC_PUSH(b->pid_entry, int32_t, h->entry) || VEC_PUSH(b->pid_words, uint8_t, (uint8_t)p->words))
            goto nomem;
    }
    if ((long long)b->rec_pid.len >= MAX_ITEMS) {
        b->state = UNSUPPORTED;
        return -1;
    }
    if (VEC_PUSH(b->rec_pid, int32_t, h->pid)) goto nomem;
    return 0;
nomem:
    b->state = NO_MEMORY;
    return -1;
}

static int take(Builder *b, const Phrase *p) {
    if (p->kind == 1) return reference_phrase(b, p);
    if (p->kind == 2) return paraphrase(b, p);
    return 0;
}

/* The slot of a gram's table hash, fetched into the cache; and, when it holds a gram with
   the same tag, that gram's record too (a hint: a slot read too early costs time only). */
static inline void fetch_slot(const Builder *b, uint64_t hash) { __builtin_prefetch(&b->slots[hash & b->mask]); }

static inline void fetch_record(const Builder *b, uint64_t hash) {
    uint64_t slot = b->slots[hash & b->mask];
    if (slot && (slot & ~OFF_MASK) == tag_of(hash)) __builtin_prefetch(b->arena.data + (slot & OFF_MASK));
}

/* The lines of s[0:n] (whole lines, valid UTF-8), the GIL released: their phrases first,
   then the records in order, the table's slots and records of the paraphrases (and of their
   first prefix, looked up when the paraphrase is new) fetched a few records ahead. */
static void parse(Builder *b, const uint8_t *s, size_t n) {
    if (vec_grow(&b->normalized, 1, n)) goto nomem;
    uint8_t *out = (uint8_t *)b->normalized.data;
    b->phrases.len = 0;
    for (size_t i = 0; i < n;) {
        const uint8_t *nl = memchr(s + i, '\n', n - i);
        size_t end = (size_t)(nl - s);
        if (vec_grow(&b->phrases, sizeof(Phrase), b->phrases.len + 1)) goto nomem;
        Phrase *p = &VEC_AT(b->phrases, Phrase, b->phrases.len++);
        p->kind = b->phase;
        p->prefix_hash = 0;
        if (b->phase) {
            phrase_of(s + i, end - i, out, p);
            if (p->s == out) out += p->len;
            if (p->kind == 2) {
                size_t cut = p->len;
                while (cut > 0 && p->s[cut - 1] != ' ') cut--;
                if (cut) p->prefix_hash = table_hash(p->s, cut - 1);
            }
        }
        b->phase = (b->phase + 1) % 3;
        i = end + 1;
    }
    const Phrase *ph = (const Phrase *)b->phrases.data;
    size_t lines = b->phrases.len;
    for (size_t j = 0; j < lines && b->state == OK; j++) {
        const Phrase *far = j + AHEAD < lines ? &ph[j + AHEAD] : NULL;
        const Phrase *near = j + AHEAD / 2 < lines ? &ph[j + AHEAD / 2] : NULL;
        if (far && far->kind == 2) {
            fetch_slot(b, far->hash);
            if (far->prefix_hash) fetch_slot(b, far->prefix_hash);
        }
        if (near && near->kind == 2) {
            fetch_record(b, near->hash);
            if (near->prefix_hash) fetch_record(b, near->prefix_hash);
        }
        take(b, &ph[j]);
    }
    return;
nomem:
    b->state = NO_MEMORY;
}

static int check_usable(Builder *b) {
    if (b->busy) {
        PyErr_SetString(PyExc_RuntimeError, "paraphrase builder: used from two threads at once");
        return -1;
    }
    if (b->done) {
        PyErr_SetString(PyExc_RuntimeError, "paraphrase builder: finish() was called already");
        return -1;
    }
    if (!b->slots) {
        PyErr_SetString(PyExc_RuntimeError, "paraphrase builder: not initialised");
        return -1;
    }
    return 0;
}

static PyObject *Builder_feed(Builder *b, PyObject *arg) {
    Py_buffer view;
    if (check_usable(b)) return NULL;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const uint8_t *s = view.buf;
    size_t n = (size_t)view.len;
    if (n && s[n - 1] != '\n') {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "paraphrase builder: feed(chunk): chunk must end with a line break");
        return NULL;
    }
    int valid = 1;
    b->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    if (b->state == OK) {
        valid = valid_utf8(s, n);
        if (valid) parse(b, s, n);
    }
    Py_END_ALLOW_THREADS
    b->busy = 0;
    PyBuffer_Release(&view);
    if (b->state == NO_MEMORY) return PyErr_NoMemory();
    return PyBool_FromLong(valid);
}

/* The order (stable) that sorts keys[0:n]: a least-significant-digit radix sort, 11 bits a
   pass (uniform 64-bit keys: a third of the time numpy's argsort takes). -1: no memory. */
static int radix_order(const uint64_t *keys, size_t n, int64_t *order) {
    uint64_t *ka = malloc(n * sizeof *ka + 1), *kb = malloc(n * sizeof *kb + 1);
    int64_t *spare = malloc(n * sizeof *spare + 1);
    if (!ka || !kb || !spare) {
        free(ka);
        free(kb);
        free(spare);
        return -1;
    }
    memcpy(ka, keys, n * sizeof *ka);
    int64_t *ia = order, *ib = spare;
    for (size_t i = 0; i < n; i++) ia[i] = (int64_t)i;
    size_t count[1 << 11];
    for (int shift = 0; shift < 64; shift += 11) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) count[(ka[i] >> shift) & 2047]++;
        if (n && count[(ka[0] >> shift) & 2047] == n) continue; /* one digit: nothing moves */
        size_t at = 0;
        for (int d = 0; d < 2048; d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t p = count[(ka[i] >> shift) & 2047]++;
            kb[p] = ka[i];
            ib[p] = ia[i];
        }
        uint64_t *kt = ka;
        ka = kb;
        kb = kt;
        int64_t *it = ia;
        ia = ib;
        ib = it;
    }
    if (ia != order) memcpy(order, ia, n * sizeof *order);
    free(ka);
    free(kb);
    free(spare);
    return 0;
}

static PyObject *bytes_of(Vec *v, size_t item) {
    PyObject *out = PyBytes_FromStringAndSize(v->data, (Py_ssize_t)(v->len * item));
    vec_free(v);
    return out;
}

static void release(Builder *b) {
    vec_free(&b->arena);
    free(b->slots);
    b->slots = NULL;
    vec_free(&b->pid_entry);
    vec_free(&b->pid_words);
    vec_free(&b->rec_pid);
    vec_free(&b->run_entry);
    vec_free(&b->run_start);
    vec_free(&b->last_ref);
    vec_free(&b->phrases);
    vec_free(&b->normalized);
}

static PyObject *Builder_finish(Builder *b, PyObject *Py_UNUSED(ignored)) {
    if (check_usable(b)) return NULL;
    b->done = 1;
    /* a last record cut short: its missing lines read as empty (readline() returns "") */
    while (b->state == OK && b->phase != 0) {
        Phrase p = {(const uint8_t *)"", table_hash((const uint8_t *)"", 0), 0, 0, 1, b->phase};
        b->phase = (b->phase + 1) % 3;
        take(b, &p);
    }
    if (b->state != OK) {
        int nomem = b->state == NO_MEMORY;
        release(b);
        if (nomem) return PyErr_NoMemory();
        Py_RETURN_NONE; /* TOO_LONG / UNSUPPORTED: the Python parse builds (or raises) */
    }
    size_t n = (size_t)b->n_entries;
    free(b->slots);
    b->slots = NULL;
    PyObject *keys = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 8));
    PyObject *order = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 8));
    PyObject *node = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (!keys || !order || !node) {
        Py_XDECREF(keys);
        Py_XDECREF(order);
        Py_XDECREF(node);
        release(b);
        return NULL;
    }
    uint64_t *k = (uint64_t *)PyBytes_AS_STRING(keys);
    char *flag = PyBytes_AS_STRING(node);
    int sorted;
    Py_BEGIN_ALLOW_THREADS
    enum { BATCH = 4096 };
    const uint8_t *data[BATCH];
    uint32_t len[BATCH];
    size_t e = 0, off = ARENA_START;
    while (off < b->arena.len) {
        size_t first = e, count = 0;
        for (; count < BATCH && off < b->arena.len; count++, e++) {
            const Head *h = head_at(b, off);
            data[count] = gram_of(h);
            len[count] = h->len;
            flag[e] = (char)(h->node != 0);
            off += record_size(h->len);
        }
        hash_many(data, len, count, k + first, -1);
    }
    vec_free(&b->arena);
    sorted = radix_order(k, n, (int64_t *)PyBytes_AS_STRING(order));
    Py_END_ALLOW_THREADS
    PyObject *parts[8] = {keys,
                          order,
                          node,
                          bytes_of(&b->pid_entry, 4),
                          bytes_of(&b->pid_words, 1),
                          bytes_of(&b->rec_pid, 4),
                          bytes_of(&b->run_entry, 4),
                          bytes_of(&b->run_start, 8)};
    release(b);
    PyObject *out = NULL;
    if (sorted < 0)
        PyErr_NoMemory();
    else if (parts[3] && parts[4] && parts[5] && parts[6] && parts[7])
        out = PyTuple_Pack(8, parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7]);
    for (int i = 0; i < 8; i++) Py_XDECREF(parts[i]);
    return out;
}

static int Builder_init(Builder *b, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"max_phrase", "expected_grams", NULL};
    int max_phrase;
    Py_ssize_t expected = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|n", kwlist, &max_phrase, &expected)) return -1;
    if (max_phrase < 1 || max_phrase > 255) {
        PyErr_SetString(PyExc_ValueError, "paraphrase builder: max_phrase must be in 1..255");
        return -1;
    }
    if (b->slots || b->done) {
        PyErr_SetString(PyExc_RuntimeError, "paraphrase builder: already initialised");
        return -1;
    }
    /* slots for twice the grams expected: no rehash on the way */
    size_t nslots = 1 << 16;
    while (expected > 0 && nslots < ((size_t)1 << 26) && nslots < 2 * (size_t)expected) nslots *= 2;
    b->max_phrase = max_phrase;
    b->slots = calloc(nslots, sizeof *b->slots);
    if (!b->slots || vec_grow(&b->arena, 1, 1 << 16)) {
        PyErr_NoMemory();
        return -1;
    }
    memset(b->arena.data, 0, ARENA_START);
    b->arena.len = ARENA_START;
    b->mask = nslots - 1;
    return 0;
}

static void Builder_dealloc(Builder *b) {
    release(b);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static PyObject *Builder_state(Builder *b, void *Py_UNUSED(closure)) {
    static const char *names[] = {"ok", "too long", "unsupported", "no memory"};
    return PyUnicode_FromString(names[b->state]);
}

static PyMethodDef Builder_methods[] = {
    {"feed", (PyCFunction)Builder_feed, METH_O,
     "feed(chunk) -> bool: parse a chunk of whole lines; False (nothing parsed) when it is not "
     "valid UTF-8."},
    {"finish", (PyCFunction)Builder_finish, METH_NOARGS,
     "finish() -> (keys, order, node, pid_entry, pid_words, rec_pid, run_entry, run_start) as bytes "
     "(order: the int64 indices that sort the keys), or "
     "None when a phrase is longer than max_phrase words or the table is too large for this code."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Builder_getset[] = {
    {"state", (getter)Builder_state, NULL, "ok, too long, unsupported or no memory", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject BuilderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "metricore.metrics.meteor15._paraphrase.Builder",
    .tp_basicsize = sizeof(Builder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Builder(max_phrase, expected_grams=0): the paraphrase table's lines in, its distinct "
              "phrases out (expected_grams sizes the table: a guess, never a limit).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Builder_init,
    .tp_dealloc = (destructor)Builder_dealloc,
    .tp_methods = Builder_methods,
    .tp_getset = Builder_getset,
};

static PyObject *py_blake2b_64(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *seq;
    int variant = -1;
    if (!PyArg_ParseTuple(args, "O|i", &seq, &variant)) return NULL;
    if (variant < -1 || variant > 2) {
        PyErr_SetString(PyExc_ValueError, "blake2b_64: variant must be -1, 0, 1 or 2");
        return NULL;
    }
    if (variant > 0 && !hash_x4(variant)) Py_RETURN_NONE; /* not on this machine */
    PyObject *items = PySequence_Fast(seq, "blake2b_64: data must be a sequence of bytes");
    if (!items) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    const uint8_t **data = calloc((size_t)n + 1, sizeof *data);
    uint32_t *len = calloc((size_t)n + 1, sizeof *len);
    uint64_t *keys = malloc(sizeof *keys * (size_t)(n + 1));
    PyObject *out = NULL;
    if (!data || !len || !keys) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(items, i);
        if (!PyBytes_Check(item) || PyBytes_GET_SIZE(item) > (Py_ssize_t)UINT32_MAX) {
            PyErr_Format(PyExc_TypeError, "blake2b_64: data[%zd] must be bytes (under 4 GB)", i);
            goto done;
        }
        data[i] = (const uint8_t *)PyBytes_AS_STRING(item);
        len[i] = (uint32_t)PyBytes_GET_SIZE(item);
    }
    hash_many(data, len, (size_t)n, keys, variant);
    out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *key = PyLong_FromUnsignedLongLong(keys[i]);
        if (!key) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, key);
    }
done:
    free(data);
    free(len);
    free(keys);
    Py_DECREF(items);
    return out;
}

static PyMethodDef methods[] = {
    {"blake2b_64", py_blake2b_64, METH_VARARGS,
     "blake2b_64(data, variant=-1) -> list[int]: hashlib.blake2b(d, digest_size=8) of each bytes d "
     "as a little-endian integer, by the code the index build uses (variant -1: the best for this "
     "machine; 0: one message at a time; 1: the portable four-lane code; 2: the AVX2 code, None "
     "where the machine has none)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_paraphrase",
                                    "METEOR 1.5's paraphrase table parser in C (see paraphrase_build.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

#ifndef METRICORE_SOURCE_HASH
#define METRICORE_SOURCE_HASH ""
#endif

PyMODINIT_FUNC PyInit__paraphrase(void) {
    if (PyType_Ready(&BuilderType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&BuilderType);
    if (PyModule_AddObject(m, "Builder", (PyObject *)&BuilderType) < 0 ||
        PyModule_AddStringConstant(m, "SOURCE_HASH", METRICORE_SOURCE_HASH) < 0) {
        Py_DECREF(&BuilderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
