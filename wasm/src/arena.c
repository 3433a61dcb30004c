/*
 * arena.c: a bump allocator for what lives exactly as long as one frame.
 * A provider frame's parsed values (json_read.c, slop__parse_frame) are
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

#ifdef SLOP__ARENA_POISONS
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
_Static_assert(SLOP__ARENA_ALIGN >= alignof(max_align_t), "arena pieces must be aligned for any type");

struct slop__arena_chunk {
    struct slop__arena_chunk *next; /* the chunk before this one            */
    size_t cap;                     /* bytes of data                        */
    max_align_t data[];             /* handed out up to the arena's next    */
};

void *slop__arena_alloc_chunk(slop__arena *a, size_t n) {
    /* n is rounded to SLOP__ARENA_ALIGN by the inline part */
    if (!n) n = SLOP__ARENA_ALIGN;
    struct slop__arena_chunk *ch = a->head;
    if (!ch || (size_t)(a->end - a->next) < n) {
        size_t cap = ch ? ch->cap * 2 : FIRST_CHUNK;
        if (cap < n) cap = n;
        if (cap > SIZE_MAX - sizeof *ch) return NULL;
        struct slop__arena_chunk *fresh = malloc(sizeof *fresh + cap);
        if (!fresh) return NULL;
        fresh->next = ch;
        fresh->cap = cap;
        POISON(fresh->data, cap);
        a->head = ch = fresh;
        a->next = (char *)fresh->data;
        a->end = a->next + cap;
    }
    char *p = a->next;
    a->next += n;
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
    a->head = keep;
    a->next = a->end = NULL;
    if (keep) {
        POISON(keep->data, keep->cap);
        a->next = (char *)keep->data;
        a->end = a->next + keep->cap;
    }
}

void slop__arena_free(slop__arena *a) {
    for (struct slop__arena_chunk *ch = a->head, *next; ch; ch = next) {
        next = ch->next;
        UNPOISON(ch->data, ch->cap);
        free(ch);
    }
    a->head = NULL;
    a->next = a->end = NULL;
}
