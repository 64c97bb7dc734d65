/*
 * plugins.h — routers from shared libraries ("plugins"), and router specs.
 *
 * A plugin is a shared library exporting one symbol, RB_PLUGIN_SYMBOL
 * (router_plugin.h), of type rb_plugin_entry_fn: it returns an array of ops
 * tables, each of an ABI version from 1 to RB_ROUTER_ABI_VERSION (a table
 * of an older version works; the fields it lacks count as NULL).  Loading
 * checks every table before any is used: a missing symbol, an empty table,
 * an ops table newer than this host or with a missing function refuses the
 * whole library with RB_EABI and a message naming the file and the router.
 *
 * A router spec names one router:
 *     NAME        a built-in router, else the first loaded plugin router
 *                 of that name (in load order);
 *     NAME@LIB    router NAME of library LIB, loaded on first use.  LIB is
 *                 a file path; one without '/' is looked up in the current
 *                 directory first (dlopen would search only the system's
 *                 library path).
 * So `radix@build-main/librouters.so` and `radix@build-patch/librouters.so`
 * are two builds of one router in one process: libraries are opened with
 * RTLD_LOCAL and a plugin exports nothing but its entry symbol, so neither
 * the host nor another plugin can interpose its code.
 *
 * The set of loaded libraries lives in an rb_plugins the caller owns (no
 * global state); ops tables stay valid until rb_plugins_close.  Nothing
 * here prints; errors are values.  Not thread-safe: load from one thread
 * (dlerror is per thread, the set is not locked).
 */
#ifndef RB_BENCH_PLUGINS_H
#define RB_BENCH_PLUGINS_H

#include "router_plugin.h"

typedef struct rb_plugin_lib {
    char *path;     /* as given (after the "./" lookup rule) */
    void *handle;   /* dlopen handle */
    char build[64]; /* what RB_PLUGIN_BUILD_SYMBOL said, or "" */
} rb_plugin_lib;

typedef struct rb_plugin_router {
    const rb_router_ops *ops;
    size_t lib; /* index in rb_plugins.libs */
} rb_plugin_router;

typedef struct rb_plugins {
    rb_plugin_lib *libs;
    size_t nlibs, libs_cap;
    rb_plugin_router *routers;
    size_t count, cap;
} rb_plugins;

/* An empty set (equivalently: zero-initialise). */
void rb_plugins_init(rb_plugins *p);

/* Load the plugin library at path (a file already loaded is not loaded
 * twice).  RB_EIO when it cannot be opened, RB_EABI when it is not a
 * plugin of this ABI, RB_ENOMEM; on failure the set is unchanged. */
int rb_plugins_load(rb_plugins *p, const char *path, rb_error *err);

/* The loaded plugin routers, in load order. */
size_t rb_plugins_count(const rb_plugins *p);
const rb_router_ops *rb_plugins_ops(const rb_plugins *p, size_t i);
/* The library router i came from. */
const char *rb_plugins_lib(const rb_plugins *p, size_t i);
/* The build of that library, as its RB_PLUGIN_BUILD_SYMBOL says (for a
 * librouters.so: the commit it was built from, "-dirty" when its tree had
 * changes), truncated to 63 bytes; "" when it does not say. */
const char *rb_plugins_build(const rb_plugins *p, size_t i);
/* The library that gave ops (its index in libs), or SIZE_MAX for an ops
 * table no loaded library gave (a built-in router). */
size_t rb_plugins_lib_of(const rb_plugins *p, const rb_router_ops *ops);

/* The longest router name a plugin may give; a name is letters, digits
 * and _ . + - only (a library with any other name is refused, RB_EABI). */
#define RB_PLUGIN_NAME_MAX 63
/* The longest summary a plugin router may give: one line of printable
 * text without '|' (else its library is refused, RB_EABI). */
#define RB_PLUGIN_SUMMARY_MAX 200

/* What plugin router i's plain NAME already means ("a built-in router",
 * "a router loaded before it"), or NULL when NAME reaches it: a shadowed
 * router is reached only as NAME@LIB. */
const char *rb_plugins_shadowed(const rb_plugins *p, size_t i);

/* Resolve a spec (see above).  p may be NULL (built-ins only).  Loads LIB
 * for NAME@LIB.  RB_ENOTFOUND (with the names that do exist in the
 * message) when there is no such router, or a load error. */
int rb_router_spec_resolve(rb_plugins *p, const char *spec, const rb_router_ops **out,
                           rb_error *err);

/* Close every library.  The ops tables they gave become invalid. */
void rb_plugins_close(rb_plugins *p);

#endif
