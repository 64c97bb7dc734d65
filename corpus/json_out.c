/*
 * json_out.c — a built cJSON document printed into an rb_buf (json_out.h).
 */
#include "json_out.h"

#include "base_internal.h"

#include <stdlib.h>

int rb__json_out(cJSON *o, rb_buf *out, const char *doing, rb_error *err)
{
    char *text = o ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (text) {
        rb_buf_puts(out, text);
        rb_buf_puts(out, "\n");
        free(text);
    }
    if (!text || out->failed)
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory%s%s", doing ? " " : "",
                         doing ? doing : "");
    return RB_OK;
}
