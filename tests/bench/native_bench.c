/*
 * native_bench.c: the core's algorithmic costs without the wasm boundary,
 * built -O2 against the release library (build/native-release/).
 *
 *   build/native-release/native_bench [--quick]
 *   build/native-release/native_bench --frames N FRAMES
 *
 * Prints per-op cost of a replace/add/remove/move mix on collections of
 * 100, 10,000 and 100,000 children, and heap bytes per mirrored node
 * (glibc mallinfo2: bytes in use after the snapshot minus before).
 * A benchmark, not a test: nothing here asserts on time.
 *
 * --frames: the patch path's mix (tests/bench/path-bench.mjs: one op per
 * frame, 70 % property replace, 10 % add at a random index, 10 % remove,
 * 10 % meta replace) on N items, FRAMES frames fed through receive + drain
 * inside apply_frames() and nothing else timed. tests/bench/run.sh runs it
 * under callgrind with --toggle-collect=apply_frames: instructions per frame,
 * the figure that does not depend on the machine's load. native_bench_nocounters
 * is the same program built without the profiler's traffic counters
 * (-DSLOP_NO_COUNTERS): run.sh prints both, side by side.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slop_core.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static unsigned long long rs = 88172645463325252ull;
static double rnd(void) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void put(buf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 64;
        b->s = realloc(b->s, b->cap);
    }
}

static void drain(slop_consumer *c, int *patches) {
    const char *o;
    size_t n;
    int k;
    while ((k = slop_consumer_next(c, &o, &n)) != SLOP_OUT_NONE)
        if (k == SLOP_OUT_EVENT && strstr(o, "\"event\":\"patch\"")) (*patches)++;
}

static slop_consumer *loaded(int n, char *sub, size_t subcap) {
    /* The defaults refuse a 1M-node mirror: raised, as a user would (0: the default). */
    slop_limits big = {(size_t)1 << 30, 0, 4000000, 0, 0};
    slop_consumer *c = slop_consumer_new(n > 100000 ? &big : NULL, "ws", 5);
    snprintf(sub, subcap, "%s", slop_consumer_subscribe(c, "{}", 2, 0, NULL));
    const char *hello = "{\"type\":\"hello\",\"provider\":{\"id\":\"b\",\"name\":\"B\",\"capabilities\":[\"state\",\"patches\"]}}";
    slop_consumer_receive(c, hello, strlen(hello), 0);
    buf b = {0};
    put(&b, "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":1,\"seq\":0,\"tree\":{\"id\":\"root\",\"type\":\"root\","
             "\"children\":[{\"id\":\"items\",\"type\":\"collection\",\"children\":[", sub);
    for (int i = 0; i < n; i++)
        put(&b, "%s{\"id\":\"i%d\",\"type\":\"item\",\"properties\":{\"title\":\"Item %d\",\"n\":%d,\"done\":false}}",
            i ? "," : "", i, i, i);
    put(&b, "]}]}}");
    slop_consumer_receive(c, b.s, b.len, 0);
    free(b.s);
    int p = 0;
    drain(c, &p);
    return c;
}

/* Heap in use next to the JSON text of the tree, for items like a mail app's (about 740
 * bytes: properties, meta, affordances with params): after the snapshot, and after every
 * field of every item was patched once (a patched field is parsed; untouched ones stay text). */
static void rich_memory(int n) {
    struct mallinfo2 before = mallinfo2();
    slop_consumer *c = slop_consumer_new(NULL, "ws", 5);
    char sub[64];
    snprintf(sub, sizeof sub, "%s", slop_consumer_subscribe(c, "{}", 2, 0, NULL));
    const char *hello = "{\"type\":\"hello\",\"provider\":{\"id\":\"b\",\"name\":\"B\",\"capabilities\":[\"state\",\"patches\"]}}";
    slop_consumer_receive(c, hello, strlen(hello), 0);
    buf t = {0};
    put(&t, "{\"id\":\"root\",\"type\":\"root\",\"children\":[{\"id\":\"items\",\"type\":\"collection\",\"children\":[");
    for (int i = 0; i < n; i++)
        put(&t, "%s{\"id\":\"m%d\",\"type\":\"item\",\"properties\":{\"subject\":\"Quarterly report, draft %d\","
                "\"from\":\"alice.example@example.com\",\"preview\":\"Thanks for the notes from Tuesday. I went "
                "through the figures again and the second quarter looks better than we thought; the only open "
                "point is the travel budget, which we can settle on Friday.\",\"unread\":true,\"size\":%d,"
                "\"received\":\"2026-11-23T10:00:00Z\",\"labels\":[\"inbox\",\"work\"]},\"meta\":{\"salience\":0.5,"
                "\"summary\":\"From Alice: quarterly report draft %d\"},\"affordances\":[{\"action\":\"archive\","
                "\"label\":\"Archive\"},{\"action\":\"reply\",\"label\":\"Reply\",\"params\":{\"type\":\"object\","
                "\"properties\":{\"body\":{\"type\":\"string\"}},\"required\":[\"body\"]}}]}",
            i ? "," : "", i, i, 12000 + i, i);
    put(&t, "]}]}");
    size_t text = t.len;
    buf f = {0};
    put(&f, "{\"type\":\"snapshot\",\"id\":\"%s\",\"version\":1,\"seq\":0,\"tree\":%s}", sub, t.s);
    free(t.s);
    slop_consumer_receive(c, f.s, f.len, 0);
    free(f.s);
    int patches = 0;
    drain(c, &patches);
    double ingest = (double)(mallinfo2().uordblks - before.uordblks);
    for (int i = 0; i < n; i++) {
        char p[600];
        int len = snprintf(p, sizeof p,
                           "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":%d,\"seq\":%d,\"ops\":["
                           "{\"op\":\"replace\",\"path\":\"/items/m%d/properties/unread\",\"value\":false},"
                           "{\"op\":\"replace\",\"path\":\"/items/m%d/meta/salience\",\"value\":0.75},"
                           "{\"op\":\"replace\",\"path\":\"/items/m%d/affordances/0/label\",\"value\":\"Archive it\"}]}",
                           sub, i + 2, i + 1, i, i, i);
        slop_consumer_receive(c, p, (size_t)len, 0);
        drain(c, &patches);
    }
    double patched = (double)(mallinfo2().uordblks - before.uordblks);
    if (patches != n) printf("  !! %d of %d patches applied\n", patches, n);
    printf("Heap in use for %d items of %.0f bytes of JSON each (%.1f MB of text), glibc malloc:\n", n,
           (double)text / n, text / 1e6);
    printf("  after the snapshot:                      %.2fx the text (%.0f bytes/item)\n", ingest / text, ingest / n);
    printf("  after every field of every item patched: %.2fx the text (%.0f bytes/item)   (aim: both <= 1.5x)\n",
           patched / text, patched / n);
    slop_consumer_free(c);
}

/* Receives and drains each frame; the only code callgrind counts in --frames. */
static __attribute__((noinline)) int apply_frames(slop_consumer *c, char **frames, const size_t *lens, int n) {
    int patches = 0;
    for (int f = 0; f < n; f++) {
        slop_consumer_receive(c, frames[f], lens[f], 0);
        drain(c, &patches);
    }
    return patches;
}

static int frames_mode(int n, int nframes) {
    char sub[64];
    slop_consumer *c = loaded(n, sub, sizeof sub);
    int cap = n + nframes + 8, count = n, next = n;
    int *ids = malloc(sizeof(int) * (size_t)cap);
    for (int i = 0; i < n; i++) ids[i] = i;
    char **frames = malloc(sizeof(char *) * (size_t)nframes);
    size_t *lens = malloc(sizeof(size_t) * (size_t)nframes);
    for (int f = 0; f < nframes; f++) {
        buf b = {0};
        double x = rnd();
        int at = (int)(rnd() * count);
        put(&b, "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":%d,\"seq\":%d,\"ops\":[", sub, f + 2, f + 1);
        if (x < 0.7 || count < 2) {
            put(&b, "{\"op\":\"replace\",\"path\":\"/items/i%d/properties/title\",\"value\":\"Item %d v%d\"}", ids[at],
                ids[at], f);
        } else if (x < 0.8) {
            put(&b, "{\"op\":\"add\",\"path\":\"/items/i%d\",\"value\":{\"id\":\"i%d\",\"type\":\"item\","
                    "\"properties\":{\"title\":\"New\",\"n\":0}},\"index\":%d}", next, next, (int)(rnd() * (count + 1)));
            ids[count++] = next++;
        } else if (x < 0.9) {
            put(&b, "{\"op\":\"remove\",\"path\":\"/items/i%d\"}", ids[at]);
            ids[at] = ids[--count];
        } else {
            put(&b, "{\"op\":\"replace\",\"path\":\"/items/i%d/meta\",\"value\":{\"salience\":%.2f}}", ids[at], rnd());
        }
        put(&b, "]}");
        frames[f] = b.s;
        lens[f] = b.len;
    }
    double t0 = now_ms();
    int patches = apply_frames(c, frames, lens, nframes);
    double us = (now_ms() - t0) * 1e3 / nframes;
    printf("%d items, %d frames, %d patch events, %.3f us per frame\n", n, nframes, patches, us);
    for (int f = 0; f < nframes; f++) free(frames[f]);
    free(frames);
    free(lens);
    free(ids);
    slop_consumer_free(c);
    return patches == nframes ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--frames") == 0) return frames_mode(atoi(argv[2]), atoi(argv[3]));
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int total = quick ? 20000 : 200000, per_patch = 10;
    double cost[3];
    int sizes[3] = {100, 10000, 100000};
    printf("Native patch ops (-O2, no wasm boundary; 40%% replace, 20%% add at random index, 20%% remove, 20%% move)\n");
    printf("  children   ops      total ms   us/op\n");
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        char sub[64];
        slop_consumer *c = loaded(n, sub, sizeof sub);
        /* Pre-build frames: ids tracked in an array, order irrelevant. */
        int cap = n + total + 8, count = n, next = n;
        int *ids = malloc(sizeof(int) * (size_t)cap);
        for (int i = 0; i < n; i++) ids[i] = i;
        int nframes = total / per_patch;
        char **frames = malloc(sizeof(char *) * (size_t)nframes);
        size_t *lens = malloc(sizeof(size_t) * (size_t)nframes);
        for (int f = 0; f < nframes; f++) {
            buf b = {0};
            put(&b, "{\"type\":\"patch\",\"subscription\":\"%s\",\"version\":%d,\"seq\":%d,\"ops\":[", sub, f + 2, f + 1);
            for (int k = 0; k < per_patch; k++) {
                double x = rnd();
                int at = (int)(rnd() * count);
                if (k) put(&b, ",");
                if (x < 0.4) {
                    put(&b, "{\"op\":\"replace\",\"path\":\"/items/i%d/properties/n\",\"value\":%d}", ids[at], k);
                } else if (x < 0.6) {
                    put(&b, "{\"op\":\"add\",\"path\":\"/items/i%d\",\"value\":{\"id\":\"i%d\",\"type\":\"item\","
                            "\"properties\":{\"title\":\"New\",\"n\":0}},\"index\":%d}", next, next, (int)(rnd() * (count + 1)));
                    ids[count++] = next++;
                } else if (x < 0.8 && count > 1) {
                    put(&b, "{\"op\":\"remove\",\"path\":\"/items/i%d\"}", ids[at]);
                    ids[at] = ids[--count];
                } else {
                    put(&b, "{\"op\":\"move\",\"path\":\"/items/i%d\",\"index\":%d}", ids[at], (int)(rnd() * count));
                }
            }
            put(&b, "]}");
            frames[f] = b.s;
            lens[f] = b.len;
        }
        int patches = 0;
        double t0 = now_ms();
        for (int f = 0; f < nframes; f++) {
            slop_consumer_receive(c, frames[f], lens[f], 0);
            drain(c, &patches);
        }
        double ms = now_ms() - t0;
        if (patches != nframes) printf("  !! %d: %d of %d patches applied\n", n, patches, nframes);
        cost[s] = ms * 1000.0 / total;
        printf("  %-9d  %-7d  %8.1f   %.3f\n", n, total, ms, cost[s]);
        for (int f = 0; f < nframes; f++) free(frames[f]);
        free(frames);
        free(lens);
        free(ids);
        slop_consumer_free(c);
    }
    printf("  per-op cost at 100k / at 100: %.2fx (aim: within 2x)\n", cost[2] / cost[0]);

    /* Heap per node: bytes in use with 100k mirrored nodes minus an empty
     * consumer, after the parse tree is gone. */
    struct mallinfo2 before = mallinfo2();
    char sub[64];
    slop_consumer *c = loaded(100000, sub, sizeof sub);
    struct mallinfo2 after = mallinfo2();
    double per = (double)(after.uordblks - before.uordblks) / 100001.0;
    printf("\nHeap in use per mirrored node (100,000 items with 3 properties each, glibc malloc): %.0f bytes\n", per);
    slop_consumer_free(c);
    rich_memory(quick ? 5000 : 20000);
    return 0;
}
