/*
 * plugins.c — loading router plugins with dlopen, and resolving router
 * specs (NAME, NAME@LIB).  See plugins.h for the contract.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "plugins.h"

#include "router_kit.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <sys/stat.h>

void rb_plugins_init(rb_plugins *p)
{
    memset(p, 0, sizeof *p);
}

size_t rb_plugins_count(const rb_plugins *p)
{
    return p ? p->count : 0;
}

const rb_router_ops *rb_plugins_ops(const rb_plugins *p, size_t i)
{
    return p && i < p->count ? p->routers[i].ops : NULL;
}

const char *rb_plugins_lib(const rb_plugins *p, size_t i)
{
    return p && i < p->count ? p->libs[p->routers[i].lib].path : NULL;
}

size_t rb_plugins_lib_of(const rb_plugins *p, const rb_router_ops *ops)
{
    for (size_t i = 0; p && i < p->count; i++)
        if (p->routers[i].ops == ops) return p->routers[i].lib;
    return SIZE_MAX;
}

const char *rb_plugins_build(const rb_plugins *p, size_t i)
{
    return p && i < p->count ? p->libs[p->routers[i].lib].build : NULL;
}

/* What the library's optional RB_PLUGIN_BUILD_SYMBOL says, into lib. */
static void read_build(rb_plugin_lib *lib)
{
    lib->build[0] = '\0';
    void *sym = dlsym(lib->handle, RB_PLUGIN_BUILD_SYMBOL);
    if (!sym) return;
    rb_plugin_build_fn fn;
    memcpy(&fn, &sym, sizeof fn); /* POSIX: dlsym's result is the function's address */
    const char *build = fn();
    if (build) snprintf(lib->build, sizeof lib->build, "%s", build);
}

/* A router name goes into tables, file names, CSV and JSON, and terminal
 * lines: letters, digits and _ . + - only, 1 to RB_PLUGIN_NAME_MAX bytes
 * (no '@', which separates NAME@LIB).  The message shows the name escaped,
 * never raw. */
static int check_name(const char *path, size_t i, const char *name, rb_error *err)
{
    size_t n = strnlen(name, RB_PLUGIN_NAME_MAX + 1);
    size_t bad = 0;
    while (bad < n && (isalnum((unsigned char)name[bad]) || strchr("_.+-", name[bad]))) bad++;
    if (n >= 1 && n <= RB_PLUGIN_NAME_MAX && bad == n) return RB_OK;
    char shown[4 * 24 + 4];
    size_t w = 0;
    for (size_t k = 0; k < n && k < 24; k++) {
        unsigned char c = (unsigned char)name[k];
        w += (size_t)snprintf(shown + w, sizeof shown - w, c >= 0x21 && c < 0x7f ? "%c" : "\\x%02x",
                              c);
    }
    if (n > 24) snprintf(shown + w, sizeof shown - w, "...");
    if (n == 0)
        return rb__error(err, RB_EABI, RB_NO_OFFSET, "%s: router %zu has an empty name", path, i);
    if (n > RB_PLUGIN_NAME_MAX)
        return rb__error(err, RB_EABI, RB_NO_OFFSET,
                         "%s: router %zu's name '%s' is longer than %d bytes", path, i, shown,
                         RB_PLUGIN_NAME_MAX);
    return rb__error(err, RB_EABI, RB_NO_OFFSET,
                     "%s: router %zu's name '%s' has byte 0x%02x at offset %zu: a router name "
                     "is letters, digits and _ . + - only",
                     path, i, shown, (unsigned char)name[bad], bad);
}

/* A summary goes into `list` and report.md's tables on one line: no byte
 * below 0x20 (a newline, ESC) nor 0x7f, no '|' (a table's separator), at
 * most RB_PLUGIN_SUMMARY_MAX bytes.  The message shows the first bad byte
 * by its code, never raw. */
static int check_summary(const char *path, size_t i, const char *name, const char *summary,
                         rb_error *err)
{
    if (!summary) return RB_OK;
    size_t n = strnlen(summary, RB_PLUGIN_SUMMARY_MAX + 1);
    if (n > RB_PLUGIN_SUMMARY_MAX)
        return rb__error(err, RB_EABI, RB_NO_OFFSET,
                         "%s: router %zu (%s): its summary is longer than %d bytes", path, i, name,
                         RB_PLUGIN_SUMMARY_MAX);
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)summary[k];
        if (c < 0x20 || c == 0x7f || c == '|')
            return rb__error(err, RB_EABI, RB_NO_OFFSET,
                             "%s: router %zu (%s): its summary has byte 0x%02x at offset %zu: a "
                             "summary is one line of printable text without '|'",
                             path, i, name, c, k);
    }
    return RB_OK;
}

/* Why ops (router i of the library at path) cannot be used, or RB_OK: the
 * front end's rule (ABI version, required functions), then a name that a
 * router spec can name and a summary that prints on one line. */
static int check_ops(const char *path, size_t i, const rb_router_ops *ops, rb_error *err)
{
    if (!ops) return rb__error(err, RB_EABI, RB_NO_OFFSET, "%s: router %zu is NULL", path, i);
    rb_error why;
    if (rb__ops_validate(ops, &why) < 0)
        return rb__error(err, RB_EABI, RB_NO_OFFSET, "%s: %s", path, why.message);
    int rc = check_name(path, i, ops->name, err);
    return rc < 0 ? rc : check_summary(path, i, ops->name, ops->summary, err);
}

/* Copy dlerror()'s text (or a fallback) into a bounded string. */
static const char *dl_reason(void)
{
    const char *e = dlerror();
    return e ? e : "unknown dynamic loader error";
}

/* rb_plugins_load; *lib gets the library's index. */
static int load(rb_plugins *p, const char *path, size_t *lib, rb_error *err)
{
    for (size_t i = 0; i < p->nlibs; i++) {
        if (strcmp(p->libs[i].path, path) == 0) {
            *lib = i;
            return RB_OK;
        }
    }
    /* a FIFO would block dlopen, a device feed it without end: a path
     * (a name without '/' is the loader's to search) must be a regular file */
    struct stat st;
    if (strchr(path, '/') && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "cannot load plugin %s: it is %s, not a regular file", path,
                         S_ISDIR(st.st_mode)    ? "a directory"
                         : S_ISFIFO(st.st_mode) ? "a FIFO"
                         : S_ISCHR(st.st_mode)  ? "a character device"
                                                : "not a regular file");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot load plugin: %s", dl_reason());
    for (size_t i = 0; i < p->nlibs; i++) {
        if (p->libs[i].handle == h) { /* the same file under another name */
            dlclose(h);
            *lib = i;
            return RB_OK;
        }
    }
    dlerror();
    void *sym = dlsym(h, RB_PLUGIN_SYMBOL);
    if (!sym) {
        dlclose(h);
        return rb__error(err, RB_EABI, RB_NO_OFFSET,
                         "%s is not a routebench plugin: it does not export the symbol %s", path,
                         RB_PLUGIN_SYMBOL);
    }
    rb_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* POSIX: dlsym's result is the function's address */
    size_t n = 0;
    const rb_router_ops *const *table = entry(&n);
    int rc = RB_OK;
    if (!table || n == 0)
        rc = rb__error(err, RB_EABI, RB_NO_OFFSET, "%s: %s() returned no routers", path,
                       RB_PLUGIN_SYMBOL);
    for (size_t i = 0; rc == RB_OK && i < n; i++) rc = check_ops(path, i, table[i], err);

    char *copy = NULL;
    if (rc == RB_OK) {
        copy = malloc(strlen(path) + 1);
        if (!copy || rb_grow(NULL, &p->libs, &p->libs_cap, p->nlibs + 1, sizeof *p->libs, 8) < 0 ||
            rb_grow(NULL, &p->routers, &p->cap, p->count + n, sizeof *p->routers, 8) < 0)
            rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory loading %s", path);
    }
    if (rc < 0) {
        free(copy);
        dlclose(h);
        return rc;
    }
    strcpy(copy, path);
    p->libs[p->nlibs] = (rb_plugin_lib){copy, h, ""};
    read_build(&p->libs[p->nlibs]);
    for (size_t i = 0; i < n; i++) p->routers[p->count++] = (rb_plugin_router){table[i], p->nlibs};
    *lib = p->nlibs++;
    return RB_OK;
}

int rb_plugins_load(rb_plugins *p, const char *path, rb_error *err)
{
    size_t lib;
    return load(p, path, &lib, err);
}

const char *rb_plugins_shadowed(const rb_plugins *p, size_t i)
{
    const char *name = p->routers[i].ops->name;
    if (rb_registry_find(name)) return "a built-in router";
    for (size_t k = 0; k < i; k++)
        if (strcmp(p->routers[k].ops->name, name) == 0) return "a router loaded before it";
    return NULL;
}

/* The names of library lib's routers, for a "no such router" message. */
static void lib_names(const rb_plugins *p, size_t lib, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->count; i++) {
        if (p->routers[i].lib != lib) continue;
        int n = snprintf(buf + w, cap - w, "%s%s", w ? ", " : "", p->routers[i].ops->name);
        if (n < 0 || (size_t)n >= cap - w) break;
        w += (size_t)n;
    }
}

/* Apply the "./" rule to LIB; returns path or buf. */
static const char *lib_path(const char *lib, char *buf, size_t cap)
{
    if (strchr(lib, '/')) return lib;
    int n = snprintf(buf, cap, "./%s", lib);
    if (n < 0 || (size_t)n >= cap) return lib;
    FILE *f = fopen(buf, "rb");
    if (!f) return lib;
    fclose(f);
    return buf;
}

int rb_router_spec_resolve(rb_plugins *p, const char *spec, const rb_router_ops **out,
                           rb_error *err)
{
    *out = NULL;
    const char *at = strchr(spec, '@');
    if (!at) {
        const rb_router_ops *ops = rb_registry_find(spec);
        for (size_t i = 0; !ops && i < rb_plugins_count(p); i++)
            if (strcmp(p->routers[i].ops->name, spec) == 0) ops = p->routers[i].ops;
        if (!ops)
            return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET,
                             "no router named '%s' (routebench list shows them; a plugin's "
                             "router is NAME@LIB or needs --router-lib LIB)",
                             spec);
        *out = ops;
        return RB_OK;
    }
    size_t name_len = (size_t)(at - spec);
    if (name_len == 0 || !at[1])
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "bad router spec '%s': expected NAME or NAME@LIB", spec);
    if (!p)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "router spec '%s' names a library, but plugins are not enabled here",
                         spec);
    char buf[4096];
    const char *path = lib_path(at + 1, buf, sizeof buf);
    size_t lib;
    int rc = load(p, path, &lib, err);
    if (rc < 0) return rc;
    for (size_t i = 0; i < p->count; i++) {
        const rb_router_ops *ops = p->routers[i].ops;
        if (p->routers[i].lib == lib && strlen(ops->name) == name_len &&
            memcmp(ops->name, spec, name_len) == 0) {
            *out = ops;
            return RB_OK;
        }
    }
    char names[200];
    lib_names(p, lib, names, sizeof names);
    return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET, "%s has no router '%.*s' (it has: %s)", path,
                     (int)name_len, spec, names);
}

void rb_plugins_close(rb_plugins *p)
{
    for (size_t i = 0; i < p->nlibs; i++) {
        dlclose(p->libs[i].handle);
        free(p->libs[i].path);
    }
    free(p->libs);
    free(p->routers);
    memset(p, 0, sizeof *p);
}
