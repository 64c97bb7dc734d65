/*
 * shipped.c — names and paths of the corpora shipped in corpus/data/.
 */
#include "shipped.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RB_DATA_DIR
#define RB_DATA_DIR "corpus/data"
#endif

static const char *const names[] = {"github",  "static",    "gplus",  "parse",
                                    "discord", "semantics", "twilio", "pagerduty-like"};

size_t rb_shipped_count(void)
{
    return sizeof names / sizeof names[0];
}

const char *rb_shipped_name(size_t i)
{
    return i < rb_shipped_count() ? names[i] : NULL;
}

const char *rb_shipped_path(const char *name, const char *ext, char *buf, size_t cap)
{
    size_t i = 0;
    while (i < rb_shipped_count() && strcmp(names[i], name) != 0) i++;
    if (i == rb_shipped_count()) return NULL;
    const char *dir = getenv("ROUTEBENCH_DATA");
    if (!dir || !*dir) dir = RB_DATA_DIR;
    int n = snprintf(buf, cap, "%s/%s.%s", dir, name, ext);
    return n > 0 && (size_t)n < cap ? buf : NULL;
}
