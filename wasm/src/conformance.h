/*
 * conformance.h: where a provider breaks SLOP, for the provider's author.
 * Internal to the core (slop__ names); the public entry point is
 * slop_consumer_conformance() in include/slop_core.h.
 *
 * Two kinds of rules. Frame rules are judged as frames arrive (hello, seq,
 * version, capabilities against behaviour, results, error codes): each
 * finding keeps the first frame that showed it. Tree rules (node types, meta
 * ranges, affordances, what the subscription asked for) are judged over the
 * mirrors when a report is made, so frames cost nothing for them; their
 * findings name the path and the mirror's version, and are recomputed on
 * every report.
 */
#ifndef SLOP_CONFORMANCE_H
#define SLOP_CONFORMANCE_H

#include <stddef.h>
#include "cJSON.h"
#include "mirror.h"

/* One finding: a rule broken at a path, how often, and where first. */
typedef struct slop__finding {
    int rule;                   /* index in the rule table                   */
    unsigned long count;
    char *path;                 /* absolute node path, or NULL; owned        */
    char *detail;               /* what exactly, for the author; owned       */
    char *frame;                /* the first frame that showed it, cut; owned, or NULL */
    double version;             /* the version it was seen at, -1 if none    */
} slop__finding;

/* Findings of one consumer, deduplicated by (rule, path). */
typedef struct slop__conformance {
    slop__finding *f;
    size_t n, cap;
    unsigned long frames;       /* provider frames judged                    */
    unsigned long dropped;      /* findings past SLOP__FINDINGS_MAX, counted only */
    const char *frame;          /* the frame being handled (not owned), or NULL */
    size_t frame_len;
} slop__conformance;

#define SLOP__FINDINGS_MAX 512
#define SLOP__FINDING_FRAME_MAX 400 /* bytes of a frame kept with its finding */

void slop__conf_free(slop__conformance *cf);

/* Records a finding of rule `rule_id` (an id of the table in conformance.c)
 * at `path` (may be NULL), with the frame being handled. */
void slop__conf_note(slop__conformance *cf, const char *rule_id, const char *path, double version,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Judges the tree rules over one subscription's mirror: `root` is the
 * subscription's absolute path, `options` its subscribe members (depth,
 * max_nodes, filter; may be NULL), `caps` the capability names the hello
 * declared (a cJSON array of strings). Findings go to `out`. */
void slop__conf_check_mirror(slop__conformance *out, const slop__mirror *m, const char *root,
                             const cJSON *options, const cJSON *caps, double version);

/* Compares the mirror `mine` with `theirs` (the provider's answer to the same
 * query, at the same version) node by node, at a cost linear in their
 * nodes: each difference goes to `out` (a cJSON array) as {"path", "mirror"?,
 * "provider"?} (a side absent when the value is absent there), at most max of
 * them; returns how many there are in all. Paths are absolute (root + the
 * node's path), into fields as JSON Pointers ("/inbox/m7/properties/unread";
 * "/inbox/children" for the list of child ids, "/x/type" for the type);
 * meta.changed is not compared (the spec clears it on the next patch). */
size_t slop__conf_drift(const slop__mirror *mine, const slop__mirror *theirs, const char *root, cJSON *out,
                        size_t max);

/* The report as JSON text (caller frees): every rule checked, then the
 * findings of `frames` and of `trees` together. not_live: why the provider
 * is not (yet) live (hello, subscriptions), NULL when it is. */
char *slop__conf_report(const slop__conformance *frames, const slop__conformance *trees, size_t mirrors,
                        size_t nodes, const char *not_live);

#endif
