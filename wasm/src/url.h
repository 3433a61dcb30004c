/*
 * url.h: a small strict URL parser shared inside the core (discovery.c).
 * Internal, like internal.h.
 *
 * Only hierarchical URLs with a host are accepted ("scheme://host[:port]/path?query").
 * It is deliberately stricter than a browser: anything a browser would
 * rewrite in a surprising way (spaces, control characters, backslashes,
 * numeric IPv4 shorthands such as "2130706433", IPv6 zone ids) is refused
 * rather than guessed, so a host we classify is the host the browser dials.
 */
#ifndef SLOP_URL_H
#define SLOP_URL_H

#include <stddef.h>

#define SLOP__URL_SCHEME_MAX 32
#define SLOP__URL_HOST_MAX   256

typedef struct slop__url {
    char scheme[SLOP__URL_SCHEME_MAX]; /* lowercased, without the ':'              */
    char host[SLOP__URL_HOST_MAX];     /* lowercased; IPv6 canonical and bracketed */
    int port;                          /* -1 when absent or the scheme's default   */
    const char *path;                  /* path+query, points into the parsed text; */
    size_t path_len;                   /*   never includes a "#fragment"           */
} slop__url;

/* Parses `s` (NUL-terminated). Returns NULL on success, else a static
 * predicate phrase to put after the field name, e.g. "has no host" or
 * "must not contain credentials (user@host)" (ws/wss only). u->path points
 * into s, so s must outlive u. */
const char *slop__url_parse(const char *s, slop__url *u);

/* 1 when `host` names the loopback interface: "localhost", "*.localhost",
 * 127.0.0.0/8 as a dotted quad, or ::1 (bracketed or not, any spelling).
 * Case-insensitive. Anything else, NULL included, is 0. */
int slop__url_is_loopback_host(const char *host);

/* 1 when the scheme has a tuple origin a page can have (http, https, ws,
 * wss); file:, data:, chrome-extension: and the like are opaque. */
int slop__url_has_tuple_origin(const slop__url *u);

/* "scheme://host[:port]". Returns a malloc'd string (free()), NULL on OOM. */
char *slop__url_origin(const slop__url *u);

/* The normalised URL: origin + path+query ("/" when the path is empty).
 * Returns a malloc'd string (free()), NULL on OOM. */
char *slop__url_href(const slop__url *u);

#endif /* SLOP_URL_H */
