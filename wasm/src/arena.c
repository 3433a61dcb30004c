/*
 * arena.c: a bump allocator for what lives exactly as long as one frame.
 * A provider frame's parsed values (json_limits.c, slop__parse_frame) are
 * many small pieces, each a malloc and a free through cJSON: a fifth of a
 * small frame's instructions. From an arena they cost a pointer bump, and
 * the whole frame goes at once when the consumer resets it after the frame.
 *
 * Nothing allocated here may outlive a reset: what the mirror keeps of a
 * frame is copied out (slop__mirror_copy). Under AddressSanitizer a reset
 * poisons the memory, so a pointer kept by mistake fails the tests.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLOP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOP_ASAN 1
#endif
#endif
#ifdef SLOP_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The first chunk: a small frame's values fit in it many times over, and it
 * is kept across frames. A chunk larger than this (a large frame) is freed
 * at the reset after it. */
#define FIRST_CHUNK ((size_t)64 * 1024)
#define ALIGN ((size_t)alignof(max_align_t))

struct slop__arena_chunk {
    struct slop__arena_chunk *next; /* the chunk before this one            */
    size_t cap, used;               /* bytes of data, bytes handed out      */
    max_align_t data[];
};

static size_t round_up(size_t n) { return (n + ALIGN - 1) & ~(ALIGN - 1); }

void *slop__arena_alloc(slop__arena *a, size_t n) {
    n = round_up(n ? n : 1);
    struct slop__arena_chunk *ch = a->head;
    if (!ch || ch->cap - ch->used < n) {
        size_t cap = ch ? ch->cap * 2 : FIRST_CHUNK;
        if (cap < n) cap = n;
        if (cap > SIZE_MAX - sizeof *ch) return NULL;
        struct slop__arena_chunk *fresh = malloc(sizeof *fresh + cap);
        if (!fresh) return NULL;
        fresh->next = ch;
        fresh->cap = cap;
        fresh->used = 0;
        POISON(fresh->data, cap);
        a->head = ch = fresh;
    }
    char *p = (char *)ch->data + ch->used;
    ch->used += n;
    UNPOISON(p, n);
    return p;
}

void slop__arena_reset(slop__arena *a) {
    struct slop__arena_chunk *ch = a->head, *keep = NULL;
    while (ch) {
        struct slop__arena_chunk *next = ch->next;
        if (!next && ch->cap == FIRST_CHUNK) {
            keep = ch;
        } else {
            UNPOISON(ch->data, ch->cap);
            free(ch);
        }
        ch = next;
    }
    if (keep) {
        POISON(keep->data, keep->cap);
        keep->used = 0;
    }
    a->head = keep;
}

void slop__arena_free(slop__arena *a) {
    for (struct slop__arena_chunk *ch = a->head, *next; ch; ch = next) {
        next = ch->next;
        UNPOISON(ch->data, ch->cap);
        free(ch);
    }
    a->head = NULL;
}
