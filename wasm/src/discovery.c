/*
 * discovery.c: web discovery for a browser consumer (SLOP spec, Transport &
 * Discovery): the /.well-known/slop descriptor,
 * the <meta name="slop"> tag, and the origin check that decides whether a
 * declared target may be connected without asking the user.
 *
 * Every public function returns JSON text made by cJSON_PrintUnformatted,
 * i.e. malloc'd; the caller frees it with slop_free(). NULL means out of
 * memory.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "url.h"

#define DESCRIPTOR_MAX_BYTES (64u * 1024u) /* a descriptor is a few hundred bytes */
#define DESCRIPTOR_MAX_DEPTH 32u           /* its deepest member is 2 levels down  */
#define META_MAX_BYTES       8192u         /* a URL, or "postmessage"              */
#define SHOWN_NAME_MAX       32            /* bytes of an offending value we echo  */
#define CAPABILITIES_MAX     64            /* the spec defines 7; bounds the dedupe */
#define LOCAL_COMMAND_MAX_ARGS 64          /* a stdio provider's argv              */
#define LOCAL_PATH_MAX       4096u         /* PATH_MAX on Linux                    */
#define UNIX_PATH_MAX_BYTES  107u          /* sizeof sun_path (108) less its NUL   */
#define PID_MAX              4194304.0     /* Linux's pid_max ceiling (2^22)       */

/* ---- small helpers ------------------------------------------------------ */

/* {"ok":false,"error":msg}; malloc'd JSON text, NULL on OOM. */
static char *result_error(const char *msg) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddFalseToObject(o, "ok") || !cJSON_AddStringToObject(o, "error", msg)) {
        cJSON_Delete(o);
        return NULL;
    }
    return slop__json_print_free(o);
}

/* {"ok":true,<key>:value}; takes value; malloc'd JSON text, NULL on OOM. */
static char *result_ok(const char *key, cJSON *value) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !value || !cJSON_AddTrueToObject(o, "ok") || !cJSON_AddItemToObject(o, key, value)) {
        cJSON_Delete(o);
        cJSON_Delete(value); /* not taken: AddItemToObject failed or was not reached */
        return NULL;
    }
    return slop__json_print_free(o);
}

/* prefix + phrase, e.g. "transport.url" + " has no host". */
static char *result_error2(const char *prefix, const char *phrase) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s %s", prefix, phrase);
    return result_error(msg);
}

static int equals_ci(const char *s, const char *lower) {
    return slop__starts_with_ci(s, lower) && s[strlen(lower)] == '\0';
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

/* {"type":"postmessage"}; NULL on OOM. */
static cJSON *postmessage_transport(void) {
    cJSON *t = cJSON_CreateObject();
    if (t && !cJSON_AddStringToObject(t, "type", "postmessage")) {
        cJSON_Delete(t);
        t = NULL;
    }
    return t;
}

/* {"type":"ws","url":href} from a parsed URL; NULL on OOM. */
static cJSON *ws_transport(const slop__url *u) {
    char *href = slop__url_href(u);
    cJSON *t = cJSON_CreateObject();
    if (!href || !t || !cJSON_AddStringToObject(t, "type", "ws") || !cJSON_AddStringToObject(t, "url", href)) {
        cJSON_Delete(t);
        t = NULL;
    }
    free(href);
    return t;
}

/* ---- the well-known descriptor ------------------------------------------ */

/* {"type":"unix","path":P}; NULL on OOM. */
static cJSON *unix_transport(const char *path) {
    cJSON *t = cJSON_CreateObject();
    if (t && (!cJSON_AddStringToObject(t, "type", "unix") || !cJSON_AddStringToObject(t, "path", path))) {
        cJSON_Delete(t);
        t = NULL;
    }
    return t;
}

/* {"type":"stdio","command":[...]} from a checked command; NULL on OOM. */
static cJSON *stdio_transport(const cJSON *command) {
    cJSON *t = cJSON_CreateObject();
    cJSON *argv = cJSON_Duplicate(command, 1);
    if (!t || !argv || !cJSON_AddStringToObject(t, "type", "stdio") || !cJSON_AddItemToObject(t, "command", argv)) {
        cJSON_Delete(t);
        cJSON_Delete(argv); /* not taken when AddItemToObject failed or was not reached */
        return NULL;
    }
    return t;
}

/* What is wrong with a stdio transport's command, or NULL. It is run without
 * a shell, as an argv: no string to split, no empty program. */
static const char *command_error(const cJSON *command) {
    if (!command) return "transport.command is required (an array: the program and its arguments)";
    if (!cJSON_IsArray(command) || !command->child)
        return "transport.command must be a non-empty array of strings (the program and its arguments)";
    int n = 0;
    for (const cJSON *a = command->child; a; a = a->next) {
        if (!cJSON_IsString(a)) return "transport.command must be an array of strings";
        if (++n > LOCAL_COMMAND_MAX_ARGS) return "transport.command has more than 64 entries";
        if (strlen(a->valuestring) > LOCAL_PATH_MAX) return "transport.command has an entry over 4096 bytes";
    }
    return command->child->valuestring[0] ? NULL : "transport.command[0] (the program) is empty";
}

/* Builds the normalised transport, or returns NULL with *err set to a
 * message in buf (or a static string). local: a descriptor from a local
 * provider directory, which may name a Unix socket or a command; a web
 * descriptor may name only a WebSocket or the page itself. */
static cJSON *descriptor_transport(const cJSON *t, int local, char *buf, size_t cap, const char **err) {
    if (!cJSON_IsObject(t)) { *err = "transport must be an object"; return NULL; }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(t, "type");
    if (!cJSON_IsString(type)) { *err = "transport.type must be a string"; return NULL; }
    const char *ty = type->valuestring;

    if (local && !strcmp(ty, "unix")) {
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(t, "path");
        if (!cJSON_IsString(path) || path->valuestring[0] != '/') {
            *err = "transport.path must be the socket's absolute path";
            return NULL;
        }
        /* sun_path holds 108 bytes with its NUL on Linux (104 on the BSDs):
         * a longer path cannot be connected to at all. */
        if (strlen(path->valuestring) > UNIX_PATH_MAX_BYTES) {
            *err = "transport.path is longer than a Unix socket path may be (107 bytes)";
            return NULL;
        }
        *err = NULL; /* on OOM */
        return unix_transport(path->valuestring);
    }
    if (local && !strcmp(ty, "stdio")) {
        *err = command_error(cJSON_GetObjectItemCaseSensitive(t, "command"));
        return *err ? NULL : stdio_transport(cJSON_GetObjectItemCaseSensitive(t, "command"));
    }
    if (!strcmp(ty, "postmessage")) {
        if (local) {
            *err = "transport type \"postmessage\" is for a provider inside a web page; a local descriptor "
                   "needs \"unix\", \"stdio\" or \"ws\"";
            return NULL;
        }
        *err = NULL; /* on OOM */
        return postmessage_transport();
    }
    if (strcmp(ty, "ws") != 0) {
        if (local && !strcmp(ty, "pipe"))
            snprintf(buf, cap, "transport type \"pipe\" is a Windows named pipe; on this system use \"unix\", "
                               "\"stdio\" or \"ws\"");
        else if (local)
            snprintf(buf, cap, "transport type \"%.*s\" is not supported (use \"unix\", \"stdio\" or \"ws\")",
                     (int)slop__utf8_cut(ty, strlen(ty), SHOWN_NAME_MAX), ty);
        else if (!strcmp(ty, "unix") || !strcmp(ty, "stdio") || !strcmp(ty, "pipe"))
            snprintf(buf, cap, "transport type \"%s\" is for local apps; a browser consumer "
                               "needs \"ws\" or \"postmessage\"", ty);
        else
            snprintf(buf, cap, "transport type \"%.*s\" is not supported (use \"ws\" or \"postmessage\")",
                     (int)slop__utf8_cut(ty, strlen(ty), SHOWN_NAME_MAX), ty);
        *err = buf;
        return NULL;
    }

    const cJSON *url = cJSON_GetObjectItemCaseSensitive(t, "url");
    if (!cJSON_IsString(url) || !(slop__starts_with_ci(url->valuestring, "ws://") ||
                                  slop__starts_with_ci(url->valuestring, "wss://"))) {
        *err = "transport.url must be a ws:// or wss:// URL";
        return NULL;
    }
    slop__url u;
    const char *bad = slop__url_parse(url->valuestring, &u);
    if (bad) {
        snprintf(buf, cap, "transport.url %s", bad);
        *err = buf;
        return NULL;
    }
    *err = NULL; /* on OOM */
    return ws_transport(&u);
}

/* What is wrong with the descriptor's members other than transport, or
 * NULL. */
static const char *descriptor_error(const cJSON *d, int local) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(d, "slop_version");
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(d, "capabilities");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(d, "version");
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(d, "description");
    if (!id) return "id is required";
    if (!cJSON_IsString(id) || !id->valuestring[0]) return "id must be a non-empty string";
    if (!name) return "name is required";
    if (!cJSON_IsString(name)) return "name must be a string";
    if (!sv) return "slop_version is required";
    if (!cJSON_IsString(sv)) return "slop_version must be a string";
    if (!cJSON_GetObjectItemCaseSensitive(d, "transport")) return "transport is required";
    if (version && !cJSON_IsString(version)) return "version must be a string";
    if (desc && !cJSON_IsString(desc)) return "description must be a string";
    if (!caps) return "capabilities is required";
    if (!cJSON_IsArray(caps)) return "capabilities must be an array of strings";
    if (cJSON_GetArraySize(caps) > CAPABILITIES_MAX) return "capabilities has more than 64 entries";
    int has_state = 0;
    for (const cJSON *c = caps->child; c; c = c->next) {
        if (!cJSON_IsString(c)) return "capabilities must be an array of strings";
        has_state |= !strcmp(c->valuestring, "state");
    }
    if (!has_state) return "capabilities must include \"state\"";
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(d, "pid");
    if (local && pid && !(cJSON_IsNumber(pid) && pid->valuedouble >= 1 && pid->valuedouble <= PID_MAX &&
                 pid->valuedouble == (double)(long long)pid->valuedouble))
        return "pid must be a positive integer (the provider's process id)";
    return NULL;
}

/* Adds member key of d to out when it is present (a string, checked). */
static int copy_string(cJSON *out, const cJSON *d, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, key);
    return !v || cJSON_AddStringToObject(out, key, v->valuestring) != NULL;
}

/* The normalised descriptor: known members only, capabilities without
 * duplicates, in their original order. Takes transport; NULL on OOM. */
static cJSON *descriptor_normalised(const cJSON *d, int local, cJSON *transport) {
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(d, "capabilities");
    cJSON *out = cJSON_CreateObject();
    cJSON *caps_out = cJSON_CreateArray();
    int ok = out && caps_out && copy_string(out, d, "id") && copy_string(out, d, "name") &&
             copy_string(out, d, "slop_version") && copy_string(out, d, "version") &&
             copy_string(out, d, "description");
    for (const cJSON *c = caps->child; c && ok; c = c->next) {
        int seen = 0;
        for (const cJSON *p = caps->child; p != c && !seen; p = p->next)
            seen = !strcmp(p->valuestring, c->valuestring);
        if (seen) continue;
        cJSON *s = cJSON_CreateString(c->valuestring);
        ok = s && cJSON_AddItemToArray(caps_out, s);
        if (!ok) cJSON_Delete(s);
    }
    /* AddItemToObject takes ownership only when it succeeds. */
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(d, "pid");
    if (ok && local && pid) ok = cJSON_AddNumberToObject(out, "pid", pid->valuedouble) != NULL;
    if (ok && (ok = cJSON_AddItemToObject(out, "transport", transport))) transport = NULL;
    if (ok && (ok = cJSON_AddItemToObject(out, "capabilities", caps_out))) caps_out = NULL;
    cJSON_Delete(caps_out);
    cJSON_Delete(transport);
    if (!ok) {
        cJSON_Delete(out);
        return NULL;
    }
    return out;
}

static char *parse_descriptor(const char *json, size_t len, int local) {
    if (!json || len == 0) return result_error("descriptor is empty");
    if (len > DESCRIPTOR_MAX_BYTES) return result_error("descriptor is too large (over 64 KiB)");
    slop__json_status st;
    cJSON *d = slop__json_parse(json, len, DESCRIPTOR_MAX_DEPTH, &st, NULL, NULL);
    if (st == SLOP__JSON_TOO_DEEP) return result_error("descriptor nesting is too deep");
    if (!d) return result_error("descriptor is not valid JSON");
    if (!cJSON_IsObject(d)) {
        cJSON_Delete(d);
        return result_error("descriptor must be a JSON object");
    }
    char buf[160];
    cJSON *transport = NULL;
    const char *err = descriptor_error(d, local);
    if (!err) {
        transport = descriptor_transport(cJSON_GetObjectItemCaseSensitive(d, "transport"), local, buf, sizeof buf, &err);
        if (!transport && !err) { cJSON_Delete(d); return NULL; } /* OOM */
    }
    if (err) {
        cJSON_Delete(d);
        return result_error(err);
    }
    cJSON *out = descriptor_normalised(d, local, transport);
    cJSON_Delete(d);
    return out ? result_ok("descriptor", out) : NULL;
}

char *slop_parse_descriptor(const char *json, size_t len) { return parse_descriptor(json, len, 0); }

char *slop_parse_local_descriptor(const char *json, size_t len) { return parse_descriptor(json, len, 1); }

/* ---- local discovery's filesystem hardening ------------------------------ */

/* The spec's file name rule: ^[a-z0-9][a-z0-9._-]{0,63}\.json$ */
static int descriptor_name_ok(const char *name) {
    size_t n = strlen(name);
    if (n < 6 || n > 69 || strcmp(name + n - 5, ".json") != 0) return 0;
    for (size_t i = 0; i < n - 5; i++) {
        char ch = name[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!alnum && (i == 0 || (ch != '.' && ch != '_' && ch != '-'))) return 0;
    }
    return 1;
}

/* A provider's temporary file while it writes a descriptor atomically
 * ("{app-id}.json.tmp.{pid}", or any name with ".tmp" after ".json"). */
static int is_temp_name(const char *name) {
    const char *j = strstr(name, ".json.tmp");
    return j != NULL || (strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".tmp"));
}

static const char *type_words(int type) {
    return type == 'l' ? "a symbolic link" : type == 'd' ? "a directory" : type == 'f' ? "a regular file" : "not a regular file";
}

/* {"code":C,"why":W}; malloc'd JSON text, NULL on OOM. */
static char *refusal(slop_local_refusal_code code, const char *why) {
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "code", slop__local_refusal_name(code)) || !cJSON_AddStringToObject(o, "why", why)) {
        cJSON_Delete(o);
        return NULL;
    }
    return slop__json_print_free(o);
}

char *slop_local_refusal(int kind, const char *name, int type, unsigned mode, double owner, double me) {
    char why[200];
    unsigned perm = mode & 07777u;
    if (kind == SLOP_LOCAL_NAME) {
        if (!name) name = "";
        if (descriptor_name_ok(name)) return NULL;
        if (is_temp_name(name)) return refusal(SLOP_LR_TEMP_FILE, "a temporary file (a provider writing its descriptor)");
        return refusal(SLOP_LR_BAD_NAME, "its name does not match ^[a-z0-9][a-z0-9._-]{0,63}\\.json$");
    }
    int dir = kind == SLOP_LOCAL_DIR;
    if (!dir && kind != SLOP_LOCAL_FILE) return refusal(SLOP_LR_BAD_KIND, "unknown kind of entry");
    if (dir ? type != 'd' : type != 'f') {
        snprintf(why, sizeof why, "it is %s, not a %s", type_words(type), dir ? "directory" : "regular file");
        return refusal(dir ? SLOP_LR_NOT_A_DIRECTORY : SLOP_LR_NOT_A_FILE, why);
    }
    if (owner != me) {
        snprintf(why, sizeof why, "it is owned by uid %.0f, not by you (uid %.0f)", owner, me);
        return refusal(dir ? SLOP_LR_DIR_OWNER : SLOP_LR_FILE_OWNER, why);
    }
    /* The directory: no access for group or others (0700 or stricter).
     * A descriptor: exactly 0600, as the spec says it is created. */
    if (dir ? (perm & 077u) != 0 : perm != 0600u) {
        snprintf(why, sizeof why, "its mode is %04o; the spec requires %s", perm,
                 dir ? "0700 (no access for group or others)" : "0600");
        return refusal(dir ? SLOP_LR_DIR_MODE : SLOP_LR_FILE_MODE, why);
    }
    return NULL;
}

/* ---- the meta tag -------------------------------------------------------- */

char *slop_parse_meta(const char *content, const char *page_url) {
    if (!content) content = "";
    while (is_space(*content)) content++;
    size_t n = strlen(content);
    while (n > 0 && is_space(content[n - 1])) n--;
    if (n == 0) return result_error("meta content is empty");
    if (n > META_MAX_BYTES) return result_error("meta content is too long");

    /* The trimmed text, or for a relative URL the absolute ws(s) URL it
     * stands for; "ws://" + page host:port + content at most. */
    size_t cap = n + SLOP__URL_HOST_MAX + 32;
    char *text = malloc(cap);
    if (!text) return NULL;
    char *out = NULL;

    if (content[0] == '/') {
        slop__url page;
        if (slop__url_parse(page_url, &page) != NULL ||
            (strcmp(page.scheme, "http") != 0 && strcmp(page.scheme, "https") != 0)) {
            out = result_error("a relative meta URL needs an http:// or https:// page");
            goto done;
        }
        const char *ws = page.scheme[4] == 's' ? "wss" : "ws"; /* keep the page's TLS */
        if (content[1] == '/') {
            snprintf(text, cap, "%s:%.*s", ws, (int)n, content);
        } else if (page.port >= 0) {
            snprintf(text, cap, "%s://%s:%d%.*s", ws, page.host, page.port, (int)n, content);
        } else {
            snprintf(text, cap, "%s://%s%.*s", ws, page.host, (int)n, content);
        }
    } else {
        memcpy(text, content, n);
        text[n] = '\0';
        if (equals_ci(text, "postmessage")) {
            cJSON *t = postmessage_transport();
            out = t ? result_ok("transport", t) : NULL;
            goto done;
        }
        if (slop__starts_with_ci(text, "http://") || slop__starts_with_ci(text, "https://")) {
            out = result_error("meta content must be a WebSocket URL (ws:// or wss://), not http(s)");
            goto done;
        }
        if (!slop__starts_with_ci(text, "ws://") && !slop__starts_with_ci(text, "wss://")) {
            out = result_error("meta content must be \"postmessage\" or a ws:// or wss:// URL");
            goto done;
        }
    }

    slop__url u;
    const char *bad = slop__url_parse(text, &u);
    if (bad) {
        out = result_error2("meta URL", bad);
    } else {
        cJSON *t = ws_transport(&u);
        out = t ? result_ok("transport", t) : NULL;
    }
done:
    free(text);
    return out;
}

/* ---- origin classification ---------------------------------------------- */

char *slop_classify_target(const char *page_url, const char *target_url) {
    slop__url page, target;
    char *origin = NULL, *href = NULL, *key = NULL;
    int same = 0;

    if (page_url && !slop__url_parse(page_url, &page) && slop__url_has_tuple_origin(&page)) {
        origin = slop__url_origin(&page);
        if (!origin) return NULL;
    }

    const char *shown = target_url ? target_url : "";
    if (target_url && equals_ci(target_url, "postmessage")) {
        /* postMessage never leaves the page, so it is the page's own origin. */
        same = 1;
        shown = "postmessage";
    } else if (target_url && !slop__url_parse(target_url, &target)) {
        href = slop__url_href(&target);
        if (!href) { free(origin); return NULL; }
        shown = href;
        if (origin) {
            int pl = slop__url_is_loopback_host(page.host);
            int tl = slop__url_is_loopback_host(target.host);
            /* A public page naming a loopback target is the attack this
             * check exists for; the loopback family counts as one host. */
            if (tl) same = pl;
            else same = !strcmp(page.host, target.host);
        }
    }

    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "classification", same ? "same-origin" : "cross-origin");
    if (ok) ok = origin ? cJSON_AddStringToObject(o, "page_origin", origin) != NULL
                        : cJSON_AddNullToObject(o, "page_origin") != NULL;
    if (ok) ok = cJSON_AddStringToObject(o, "target", shown) != NULL;
    if (ok && origin) {
        size_t kn = strlen(origin) + strlen(shown) + 5;
        key = malloc(kn);
        ok = key != NULL;
        if (ok) snprintf(key, kn, "%s -> %s", origin, shown);
        ok = ok && cJSON_AddStringToObject(o, "approval_key", key);
    } else if (ok) {
        /* An opaque origin ("null") is shared by every file:/data: page, so
         * an approval keyed on it would leak to all of them. */
        ok = cJSON_AddNullToObject(o, "approval_key") != NULL;
    }
    free(origin);
    free(href);
    free(key);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return slop__json_print_free(o);
}
