/*
 * http_inputs.h — an HTTP run's inputs as the command names them, into
 * rb_http_options (http.h): the routers as one comma-separated list, the
 * tables as a shipped corpus or two files, the server (by default
 * routebench-http-server beside the running executable).  Nothing here
 * prints.
 */
#ifndef RB_HTTP_INPUTS_H
#define RB_HTTP_INPUTS_H

#include "http.h"

/* What rb_http_options points into. */
typedef struct rb_http_inputs {
    char routers[1024];
    char server[4096];
    char routes[4096], requests[4096];
} rb_http_inputs;

/* Set o's router specs from routers (comma-separated), its tables from the
 * shipped corpus when corpus is given (else o's routes and requests must be
 * set), and its server to server or, when NULL, the default; storage in
 * in.  RB_EINVAL with the message naming the option. */
int rb_http_inputs_resolve(rb_http_options *o, rb_http_inputs *in, const char *routers,
                           const char *corpus, const char *server, rb_error *err);

#endif
