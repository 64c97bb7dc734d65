/*
 * verify_every.c — every router on every shipped corpus (verify_every.h).
 */
#include "verify_every.h"
#include "base_internal.h"
#include "router.h"

#include <stdio.h>
#include <stdlib.h>

int rb_verify_every(const rb_plugins *plugins, rb_verify_each_fn each, void *ctx,
                    rb_verify_totals *tot, rb_error *err)
{
    size_t nreg = rb_registry_count(), n = nreg + (plugins ? rb_plugins_count(plugins) : 0);
    rb_verify_subject *subjects = calloc(n + 1, sizeof *subjects);
    char(*labels)[512] = calloc(n + 1, sizeof *labels);
    if (!subjects || !labels) {
        free(subjects);
        free(labels);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (i < nreg) {
            subjects[i].ops = rb_registry_at(i);
            snprintf(labels[i], sizeof labels[i], "%s", rb_ops_name(subjects[i].ops));
        } else {
            subjects[i].ops = rb_plugins_ops(plugins, i - nreg);
            snprintf(labels[i], sizeof labels[i], "%s@%s", rb_ops_name(subjects[i].ops),
                     rb_plugins_lib(plugins, i - nreg));
        }
        subjects[i].label = labels[i];
    }
    int rc = rb_verify_all(subjects, n, each, ctx, tot, err);
    free(subjects);
    free(labels);
    return rc;
}
