/*
 * url.c: the strict URL parser and loopback test behind discovery.c.
 * See url.h for what is accepted; everything else is refused, never guessed.
 */
#include "url.h"

#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Canonical dotted quad only: 4 decimal parts, 0-255, no leading zeros
 * (a browser reads "010" as octal, so we refuse it rather than disagree). */
static int parse_ipv4_canonical(const char *s, size_t n, uint8_t out[4]) {
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= n || s[i] != '.') return 0;
            i++;
        }
        size_t start = i;
        unsigned v = 0;
        while (i < n && is_digit(s[i]) && i - start < 3) v = v * 10 + (unsigned)(s[i++] - '0');
        size_t len = i - start;
        if (len == 0 || v > 255 || (len > 1 && s[start] == '0')) return 0;
        if (i < n && is_digit(s[i])) return 0; /* a fourth digit */
        out[part] = (uint8_t)v;
    }
    return i == n;
}

/* RFC 4291 text form without zone id. Fills 8 groups; 1 on success. */
static int parse_ipv6(const char *s, size_t n, uint16_t out[8]) {
    uint16_t g[8] = {0};
    int count = 0, compress = -1;
    size_t i = 0;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        compress = 0;
        i = 2;
    } else if (n > 0 && s[0] == ':') {
        return 0;
    }
    while (i < n) {
        if (count == 8) return 0;
        size_t start = i;
        unsigned v = 0;
        while (i < n && slop__hex_value(s[i]) >= 0 && i - start < 4) v = v * 16 + (unsigned)slop__hex_value(s[i++]);
        if (i < n && s[i] == '.') {
            /* An embedded IPv4 tail takes the last two groups. */
            uint8_t q[4];
            if (count > 6 || !parse_ipv4_canonical(s + start, n - start, q)) return 0;
            g[count++] = (uint16_t)(q[0] << 8 | q[1]);
            g[count++] = (uint16_t)(q[2] << 8 | q[3]);
            i = n;
            break;
        }
        if (i == start || (i < n && slop__hex_value(s[i]) >= 0)) return 0; /* empty or 5+ digits */
        g[count++] = (uint16_t)v;
        if (i == n) break;
        if (s[i] != ':') return 0;
        i++;
        if (i < n && s[i] == ':') {
            if (compress >= 0) return 0;
            compress = count;
            i++;
        } else if (i == n) {
            return 0; /* a single trailing ':' */
        }
    }
    if (compress >= 0) {
        if (count == 8) return 0; /* "::" must stand for at least one group */
        int tail = count - compress;
        memset(out, 0, 8 * sizeof out[0]);
        memcpy(out, g, (size_t)compress * sizeof g[0]);
        memcpy(out + 8 - tail, g + compress, (size_t)tail * sizeof g[0]);
        return 1;
    }
    if (count != 8) return 0;
    memcpy(out, g, sizeof g);
    return 1;
}

/* RFC 5952 / WHATWG serialisation: lowercase, no leading zeros, the first
 * longest run of 2+ zero groups as "::". Writes "[...]" into out (>= 48). */
static void format_ipv6(const uint16_t g[8], char *out, size_t cap) {
    int best = -1, best_len = 1;
    for (int i = 0; i < 8;) {
        if (g[i] != 0) { i++; continue; }
        int j = i;
        while (j < 8 && g[j] == 0) j++;
        if (j - i > best_len) { best = i; best_len = j - i; }
        i = j;
    }
    size_t o = 0;
    o += (size_t)snprintf(out + o, cap - o, "[");
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            o += (size_t)snprintf(out + o, cap - o, "::");
            i += best_len - 1;
            continue;
        }
        if (i > 0 && i != best + best_len) o += (size_t)snprintf(out + o, cap - o, ":");
        o += (size_t)snprintf(out + o, cap - o, "%x", (unsigned)g[i]);
    }
    snprintf(out + o, cap - o, "]");
}

/* WHATWG treats a host whose last label is numeric as IPv4 and rewrites it
 * ("127.1", "0x7f.0.0.1", "2130706433" all become 127.0.0.1). */
static int ends_in_number(const char *h, size_t n) {
    if (n > 0 && h[n - 1] == '.') n--;
    size_t start = n;
    while (start > 0 && h[start - 1] != '.') start--;
    if (start == n) return 0;
    const char *l = h + start;
    size_t ln = n - start;
    if (ln >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
        for (size_t i = 2; i < ln; i++) if (slop__hex_value(l[i]) < 0) return 0;
        return 1;
    }
    for (size_t i = 0; i < ln; i++) if (!is_digit(l[i])) return 0;
    return 1;
}

static int default_port(const char *scheme) {
    if (!strcmp(scheme, "http") || !strcmp(scheme, "ws")) return 80;
    if (!strcmp(scheme, "https") || !strcmp(scheme, "wss")) return 443;
    return -1;
}

/* host [":" port] in the authority auth (alen bytes): the host into
 * u->host, lowercased (IPv6 canonical); *port and *plen the port text (NULL
 * when none). NULL, or the phrase for what is wrong. */
static const char *parse_host(const char *auth, size_t alen, slop__url *u, const char **port, size_t *plen) {
    *port = NULL;
    *plen = 0;
    if (alen > 0 && auth[0] == '[') {
        const char *close = memchr(auth, ']', alen);
        if (!close) return "has an invalid IPv6 address";
        uint16_t g[8];
        if (!parse_ipv6(auth + 1, (size_t)(close - auth - 1), g)) return "has an invalid IPv6 address";
        format_ipv6(g, u->host, sizeof u->host);
        size_t used = (size_t)(close + 1 - auth);
        if (used < alen) {
            if (auth[used] != ':') return "has an invalid IPv6 address";
            *port = auth + used + 1;
            *plen = alen - used - 1;
        }
        return NULL;
    }
    const char *colon = memchr(auth, ':', alen);
    size_t hlen = colon ? (size_t)(colon - auth) : alen;
    if (colon) {
        *port = colon + 1;
        *plen = alen - hlen - 1;
    }
    if (hlen == 0) return "has no host";
    if (hlen > 253) return "has a host that is too long";
    for (size_t k = 0; k < hlen; k++) {
        char c = auth[k];
        if ((unsigned char)c >= 0x80) return "has a non-ASCII host (use punycode)";
        if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '.' && c != '_' && c != '~')
            return "has an invalid character in its host";
        u->host[k] = slop__ascii_lower(c);
    }
    u->host[hlen] = '\0';
    uint8_t q[4];
    if (ends_in_number(u->host, hlen) && !parse_ipv4_canonical(u->host, hlen, q)) return "has an invalid IPv4 address";
    return NULL;
}

/* The port text (plen bytes) into u->port: -1 when it is the scheme's
 * default. NULL, or the phrase for what is wrong. */
static const char *parse_port(const char *port, size_t plen, slop__url *u) {
    unsigned long v = 0;
    if (plen == 0 || plen > 5) return "has an invalid port";
    for (size_t k = 0; k < plen; k++) {
        if (!is_digit(port[k])) return "has an invalid port";
        v = v * 10 + (unsigned long)(port[k] - '0');
    }
    if (v > 65535) return "has an invalid port";
    u->port = (int)v == default_port(u->scheme) ? -1 : (int)v;
    return NULL;
}

/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" into u->scheme,
 * lowercased; *end is the index of the ':'. */
static const char *parse_scheme(const char *s, slop__url *u, size_t *end) {
    size_t i = 0;
    if (!is_alpha(s[0])) return "has no scheme";
    while (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.') i++;
    if (s[i] != ':') return "has no scheme";
    if (i >= SLOP__URL_SCHEME_MAX) return "has an invalid scheme";
    for (size_t k = 0; k < i; k++) u->scheme[k] = slop__ascii_lower(s[k]);
    u->scheme[i] = '\0';
    *end = i;
    return NULL;
}

const char *slop__url_parse(const char *s, slop__url *u) {
    memset(u, 0, sizeof *u);
    u->port = -1;
    u->path = "";
    if (!s || !*s) return "is empty";
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == ' ') return "contains a space";
        if (c < 0x20 || c == 0x7f) return "contains a control character";
        if (c == '\\') return "contains a backslash"; /* browsers read it as '/' */
    }
    size_t i;
    const char *bad = parse_scheme(s, u, &i);
    if (bad) return bad;
    int is_ws = !strcmp(u->scheme, "ws") || !strcmp(u->scheme, "wss");
    if (s[i + 1] != '/' || s[i + 2] != '/') return "has no host";

    const char *auth = s + i + 3;
    size_t alen = strcspn(auth, "/?#");
    const char *at = NULL;
    for (size_t k = 0; k < alen; k++) if (auth[k] == '@') at = auth + k; /* the last '@' wins */
    if (at) {
        if (is_ws) return "must not contain credentials (user@host)";
        alen -= (size_t)(at + 1 - auth);
        auth = at + 1;
    }
    const char *port;
    size_t plen;
    if ((bad = parse_host(auth, alen, u, &port, &plen)) != NULL) return bad;
    if (port && (bad = parse_port(port, plen, u)) != NULL) return bad;

    const char *rest = auth + alen;
    const char *hash = strchr(rest, '#');
    if (hash && is_ws) return "must not contain a fragment (#)"; /* WebSocket() throws on one */
    u->path = rest;
    u->path_len = hash ? (size_t)(hash - rest) : strlen(rest);
    return NULL;
}

int slop__url_is_loopback_host(const char *host) {
    if (!host) return 0;
    size_t n = strlen(host);
    if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
        host++;
        n -= 2;
    }
    if (n == 0 || n >= SLOP__URL_HOST_MAX) return 0;
    char h[SLOP__URL_HOST_MAX];
    for (size_t i = 0; i < n; i++) h[i] = slop__ascii_lower(host[i]);
    h[n] = '\0';

    static const char suffix[] = ".localhost";
    size_t sn = sizeof suffix - 1;
    if (!strcmp(h, "localhost") || (n >= sn && !strcmp(h + n - sn, suffix))) return 1;
    if (memchr(h, ':', n)) {
        uint16_t g[8];
        static const uint16_t one[8] = {0, 0, 0, 0, 0, 0, 0, 1};
        return parse_ipv6(h, n, g) && !memcmp(g, one, sizeof g);
    }
    /* 127.0.0.0/8: "127" then three parts of 1-3 digits, each <= 255. */
    if (n < 4 || memcmp(h, "127.", 4) != 0) return 0;
    size_t i = 4;
    for (int part = 0; part < 3; part++) {
        if (part > 0) {
            if (h[i] != '.') return 0;
            i++;
        }
        size_t start = i;
        unsigned v = 0;
        while (is_digit(h[i]) && i - start < 3) v = v * 10 + (unsigned)(h[i++] - '0');
        if (i == start || v > 255) return 0;
    }
    return h[i] == '\0';
}

int slop__url_has_tuple_origin(const slop__url *u) {
    return default_port(u->scheme) > 0;
}

char *slop__url_origin(const slop__url *u) {
    size_t cap = strlen(u->scheme) + strlen(u->host) + 16;
    char *out = malloc(cap);
    if (!out) return NULL;
    if (u->port >= 0) snprintf(out, cap, "%s://%s:%d", u->scheme, u->host, u->port);
    else snprintf(out, cap, "%s://%s", u->scheme, u->host);
    return out;
}

char *slop__url_href(const slop__url *u) {
    char *origin = slop__url_origin(u);
    if (!origin) return NULL;
    size_t on = strlen(origin);
    /* Special schemes always have a path: "ws://h?x" is "ws://h/?x". */
    int slash = u->path_len == 0 || u->path[0] != '/';
    char *out = malloc(on + (size_t)slash + u->path_len + 1);
    if (out) {
        memcpy(out, origin, on);
        if (slash) out[on++] = '/';
        memcpy(out + on, u->path, u->path_len);
        out[on + u->path_len] = '\0';
    }
    free(origin);
    return out;
}
