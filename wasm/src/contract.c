/*
 * contract.c: the names of the contract's lists (slop_core.h, "The
 * contract"), by enum value and back, and the hash the glue checks. Every
 * table here is made by the X-macros: no name is written twice.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "slop_core.h"

#define NAME_2(name, text) text,
#define NAME_3(name, text, c) text,
#define NAME_4(name, text, c, d) text,

static const char *const event_names[] = {SLOP_EVENTS(NAME_4)};
static const char *const protocol_error_names[] = {SLOP_PROTOCOL_ERRORS(NAME_3)};
static const char *const provider_message_names[] = {SLOP_PROVIDER_MESSAGES(NAME_2)};
static const char *const consumer_message_names[] = {SLOP_CONSUMER_MESSAGES(NAME_3)};
static const char *const capability_names[] = {SLOP_CAPABILITIES(NAME_2)};
static const char *const request_kind_names[] = {SLOP_REQUEST_KINDS(NAME_2)};
static const char *const sub_state_names[] = {SLOP_SUB_STATES(NAME_3)};
static const char *const local_refusal_names[] = {SLOP_LOCAL_REFUSALS(NAME_2)};

#define RULE_OF(name, text, rule) rule,
static const char *const protocol_error_rules[] = {SLOP_PROTOCOL_ERRORS(RULE_OF)};
#define NEEDS_ID(name, text, needs_id) needs_id,
static const unsigned char consumer_message_needs_id[] = {SLOP_CONSUMER_MESSAGES(NEEDS_ID)};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define NAME_OF(table, k) ((unsigned)(k) < COUNT_OF(table) ? (table)[(unsigned)(k)] : NULL)

const char *slop__event_name(slop_event_kind k) { return NAME_OF(event_names, k); }
const char *slop__protocol_error_name(slop_protocol_error k) { return NAME_OF(protocol_error_names, k); }
const char *slop__provider_message_name(slop_provider_message k) { return NAME_OF(provider_message_names, k); }
const char *slop__consumer_message_name(slop_consumer_message k) { return NAME_OF(consumer_message_names, k); }
const char *slop__capability_name(slop_capability k) { return NAME_OF(capability_names, k); }
const char *slop__request_kind_name(slop_request_kind k) { return NAME_OF(request_kind_names, k); }
const char *slop__sub_state_name(slop_sub_state k) { return NAME_OF(sub_state_names, k); }
const char *slop__local_refusal_name(slop_local_refusal_code k) { return NAME_OF(local_refusal_names, k); }

const char *slop__protocol_error_rule(slop_protocol_error k) { return NAME_OF(protocol_error_rules, k); }

int slop__consumer_message_needs_id(slop_consumer_message k) {
    return (unsigned)k < COUNT_OF(consumer_message_needs_id) && consumer_message_needs_id[k];
}

/* The index of `text` in `names` (n entries), or -1. */
static int index_of(const char *const *names, size_t n, const char *text) {
    if (!text) return -1;
    for (size_t i = 0; i < n; i++) /* inline: a frame's type is looked up twice a frame */
        if (slop__same(names[i], text)) return (int)i;
    return -1;
}

int slop__provider_message_of(const char *type) {
    return index_of(provider_message_names, COUNT_OF(provider_message_names), type);
}
int slop__consumer_message_of(const char *type) {
    return index_of(consumer_message_names, COUNT_OF(consumer_message_names), type);
}
int slop__capability_of(const char *name) { return index_of(capability_names, COUNT_OF(capability_names), name); }

/* ---- The hash ------------------------------------------------------------ */

/* FNV-1a over every string of every list, each with its 0 byte, and every
 * number as its decimal text: a name or member added, removed, renamed or
 * moved changes it. */
typedef struct {
    uint32_t h;
} fnv;

static void fnv_text(fnv *f, const char *s) {
    if (!s) s = "(null)";
    f->h = slop__fnv1a_more(f->h, s, strlen(s) + 1);
}

static void fnv_int(fnv *f, long v) {
    char text[24];
    snprintf(text, sizeof text, "%ld", v);
    fnv_text(f, text);
}

#define HASH_CODE(name, value, what) fnv_text(&f, #name), fnv_int(&f, value);
#define HASH_2(name, text) fnv_text(&f, #name), fnv_text(&f, text);
#define HASH_3S(name, text, c) fnv_text(&f, #name), fnv_text(&f, text), fnv_text(&f, c);
#define HASH_3I(name, text, c) fnv_text(&f, #name), fnv_text(&f, text), fnv_int(&f, c);
#define HASH_EV(name, text, members, doc) fnv_text(&f, #name), fnv_text(&f, text), fnv_text(&f, members);
#define HASH_PART(name, members, doc) fnv_text(&f, #name), fnv_text(&f, members);
#define HASH_SUB(name, text, doc) fnv_text(&f, #name), fnv_text(&f, text);
#define HASH_LIMIT(field, type, dflt, what) fnv_text(&f, #field), fnv_text(&f, #type), fnv_int(&f, (long)(dflt));

uint32_t slop_contract_hash(void) {
    fnv f = {SLOP__FNV1A_BASIS};
    SLOP_CODES(HASH_CODE)
    SLOP_OUTPUT_KINDS(HASH_CODE)
    SLOP_PROVIDER_MESSAGES(HASH_2)
    SLOP_CONSUMER_MESSAGES(HASH_3I)
    SLOP_CAPABILITIES(HASH_2)
    SLOP_REQUEST_KINDS(HASH_2)
    SLOP_SUB_STATES(HASH_SUB)
    SLOP_PROTOCOL_ERRORS(HASH_3S)
    SLOP_LOCAL_REFUSALS(HASH_2)
    SLOP_EVENT_PARTS(HASH_PART)
    SLOP_EVENTS(HASH_EV)
    SLOP_LIMITS(HASH_LIMIT)
    return ((uint32_t)SLOP_CONTRACT_VERSION << 24) | (f.h & 0xffffffu);
}
