/*
 * test_schema.c — summary.json is described once: the field tables that
 * its writer and reader walk (bench/bundle/bundle_json.c) and the schema
 * section of docs/measurement.md name the same keys.
 */
#include "bundle.h"
#include "file.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The schema row of object in doc ("| `machine` | ... |"), or NULL. */
static const char *schema_row(const char *doc, const char *object, size_t *len)
{
    char head[128];
    snprintf(head, sizeof head, "\n| `%s` |", object);
    const char *row = strstr(doc, head);
    if (!row) return NULL;
    row++;
    const char *end = strchr(row, '\n');
    *len = end ? (size_t)(end - row) : strlen(row);
    return row;
}

/* Rule: every key of every field table appears, in backquotes, in the
 * schema row of the object that holds it. */
Test(schema, every_field_of_the_tables_is_in_the_schema_doc)
{
    char *doc;
    size_t doc_len;
    rb_error err;
    cr_assert_eq(rb_file_read(RB_SOURCE_DIR "/docs/measurement.md", &doc, &doc_len, &err), RB_OK,
                 "%s", err.message);
    size_t keys = 0;
    for (size_t t = 0; t < rb_bundle_json_tables(); t++) {
        const char *object, *key;
        int since;
        for (size_t i = 0; (key = rb_bundle_json_field(t, i, &object, &since)); i++) {
            size_t len = 0;
            const char *row = schema_row(doc, object, &len);
            cr_assert_not_null(row, "docs/measurement.md has no schema row for `%s`", object);
            char want[96];
            snprintf(want, sizeof want, "`%s`", key);
            char *line = strndup(row, len);
            cr_assert_not_null(line);
            cr_expect_not_null(strstr(line, want), "the schema row of `%s` lacks %s", object, want);
            cr_expect(since >= 1 && since <= RB_BUNDLE_SCHEMA_VERSION, "%s.%s: since %d", object,
                      key, since);
            free(line);
            keys++;
        }
    }
    cr_expect_geq(keys, 40, "only %zu keys in the tables", keys);
    free(doc);
}

/* Rule: the tables and the schema doc disagree when a key is missing: the
 * check above would see a renamed key (the row of `machine` without
 * `cores`). */
Test(schema, a_key_missing_from_the_doc_is_seen)
{
    const char *doc = "x\n| `machine` | `cpu_model`, `kernel` |\n";
    size_t len = 0;
    const char *row = schema_row(doc, "machine", &len);
    cr_assert_not_null(row);
    char *line = strndup(row, len);
    cr_expect_null(strstr(line, "`cores`"));
    cr_expect_not_null(strstr(line, "`kernel`"));
    free(line);
}
