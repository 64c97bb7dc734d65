/*
 * test_catalog.c — what `routebench list` shows (bench/suite/catalog.h):
 * every router of the registry and `compiled` once, in the text and in the
 * JSON document, and every shipped corpus.
 */
#include <criterion/criterion.h>

#include <cjson/cJSON.h>
#include <string.h>

#include "catalog.h"
#include "router.h"
#include "shipped.h"

Test(catalog, text_lists_every_router_and_corpus)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_buf b = {0};
    rb_catalog_text(&p, &b);
    cr_assert(!b.failed && b.data);
    cr_expect(strncmp(b.data, "routers:\n  ", 11) == 0, "%s", b.data);
    for (size_t i = 0; i < rb_registry_count(); i++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %-8s ", rb_ops_name(rb_registry_at(i)));
        cr_expect(strstr(b.data, line) != NULL, "%s is listed", rb_ops_name(rb_registry_at(i)));
    }
    cr_expect(strstr(b.data, "\n  compiled ") != NULL);
    const char *corpora = strstr(b.data, "\nshipped corpora (corpus/data/):\n");
    cr_assert(corpora);
    for (size_t i = 0; i < rb_shipped_count(); i++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %s\n", rb_shipped_name(i));
        cr_expect(strstr(corpora, line) != NULL, "%s is listed", rb_shipped_name(i));
    }
    rb_buf_free(&b);
    rb_plugins_close(&p);
}

Test(catalog, json_marks_linear_a_reference_and_compiled_generated)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_buf b = {0};
    rb_error err;
    cr_assert_eq(rb_catalog_json(&p, &b, &err), RB_OK);
    cJSON *o = cJSON_Parse(b.data);
    cr_assert(o, "valid JSON");
    cr_expect_str_eq(cJSON_GetObjectItem(o, "schema")->valuestring, "routebench-list");
    size_t n = 0, generated = 0, reference = 0;
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(o, "routers"))
    {
        n++;
        const char *name = cJSON_GetObjectItem(r, "name")->valuestring;
        if (cJSON_IsTrue(cJSON_GetObjectItem(r, "generated"))) {
            generated++;
            cr_expect_str_eq(name, "compiled");
        }
        if (strcmp(name, "linear") == 0)
            reference += cJSON_IsTrue(cJSON_GetObjectItem(r, "reference")) ? 1 : 0;
    }
    cr_expect_eq(n, rb_registry_count() + 1, "the registry and compiled");
    cr_expect_eq(generated, 1);
    cr_expect_eq(reference, 1);
    cr_expect_eq((size_t)cJSON_GetArraySize(cJSON_GetObjectItem(o, "corpora")), rb_shipped_count());
    cJSON_Delete(o);
    rb_buf_free(&b);
    rb_plugins_close(&p);
}
