/*
 * profile.c — fitting a profile to a route table, checking one, and
 * comparing two (see profile.h).  JSON is in profile_json.c.
 *
 * Fitting is one pass over the shape tree's nodes (parents come before
 * their children in it) and one over the routes.
 */
#include "profile.h"

#include "shape_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[RB_PK_COUNT] = {"static", "param",    "template",
                                                    "glob",   "globstar", "catchall"};

static const char *const fanout_labels[RB_PROFILE_FANOUT_BUCKETS] = {
    "1",      "2-3",     "4-7",     "8-15",     "16-31",     "32-63",
    "64-127", "128-255", "256-511", "512-1023", "1024-2047", "2048+"};

const char *rb_profile_kind_name(int kind)
{
    return kind >= 0 && kind < RB_PK_COUNT ? kind_names[kind] : "?";
}

const char *rb_profile_fanout_label(int bucket)
{
    return bucket >= 0 && bucket < RB_PROFILE_FANOUT_BUCKETS ? fanout_labels[bucket] : "?";
}

int rb_profile_fanout_bucket(uint64_t children)
{
    int b = 0;
    while (b < RB_PROFILE_FANOUT_BUCKETS - 1 && children >= (UINT64_C(2) << b)) b++;
    return b;
}

static const char *const ext_names[RB_PROFILE_EXT_NAMES] = {
    "json", "xml", "html", "txt", "csv",  "png", "jpg",  "pdf",  "css", "js",  "svg", "yaml", "zip",
    "gz",   "md",  "ico",  "gif", "webp", "mp4", "wasm", "toml", "log", "map", "ttf", "other"};

const char *rb_profile_ext_name(int i)
{
    return i >= 0 && i < RB_PROFILE_EXT_NAMES ? ext_names[i] : "?";
}

int rb_profile_ext_index(const char *ext, size_t len)
{
    for (int i = 0; i < RB_PROFILE_EXT_NAMES - 1; i++)
        if (strlen(ext_names[i]) == len && memcmp(ext_names[i], ext, len) == 0) return i;
    return RB_PROFILE_EXT_NAMES - 1;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool rb_profile_is_version(const char *w, size_t len)
{
    size_t i = len > 0 && (w[0] == 'v' || w[0] == 'V') ? 1 : 0;
    if (len > 16 || i >= len || !is_digit(w[i])) return false;
    for (; i < len; i++)
        if (!is_digit(w[i]) && !is_alpha(w[i]) && w[i] != '.' && w[i] != '-' && w[i] != '_')
            return false;
    return true;
}

/* File suffixes beyond ext_names: a segment ends in a file extension only
 * when its suffix is one of these or of ext_names (a dotted method name,
 * chat.postMessage or users.info, is a word). */
static const char *const file_suffixes[] = {
    "htm",  "xhtml", "jpeg",  "yml", "tar",  "tgz",   "bz2", "xz",   "7z",  "rar",  "mp3",  "wav",
    "ogg",  "webm",  "avi",   "mov", "woff", "woff2", "eot", "otf",  "bmp", "tif",  "tiff", "doc",
    "docx", "xls",   "xlsx",  "ppt", "pptx", "odt",   "rtf", "epub", "rss", "atom", "ics",  "vcf",
    "php",  "asp",   "aspx",  "jsp", "cgi",  "pl",    "py",  "rb",   "sh",  "bash", "go",   "c",
    "h",    "cpp",   "java",  "bin", "exe",  "dmg",   "deb", "rpm",  "apk", "iso",  "img",  "dat",
    "bak",  "out",   "sig",   "asc", "pem",  "crt",   "der", "mjs",  "cjs", "wsdl", "xsd",  "sql",
    "tsv",  "diff",  "patch", "kml", "gpx",  "m3u8"};

static bool is_file_suffix(const char *x, size_t n)
{
    char low[8];
    for (size_t i = 0; i < n; i++) low[i] = (char)(x[i] >= 'A' && x[i] <= 'Z' ? x[i] + 32 : x[i]);
    if (rb_profile_ext_index(low, n) < RB_PROFILE_EXT_NAMES - 1) return true;
    for (size_t i = 0; i < sizeof file_suffixes / sizeof file_suffixes[0]; i++)
        if (strlen(file_suffixes[i]) == n && memcmp(file_suffixes[i], low, n) == 0) return true;
    return false;
}

bool rb_profile_extension_of(const char *w, size_t len, size_t *at, size_t *n)
{
    size_t dot = len;
    while (dot > 0 && w[dot - 1] != '.') dot--;
    if (dot < 2) return false; /* no '.', or nothing before it */
    size_t k = len - dot;
    bool letter = false;
    if (k < 1 || k > 5) return false;
    for (size_t i = dot; i < len; i++) {
        if (!is_digit(w[i]) && !is_alpha(w[i])) return false;
        letter = letter || is_alpha(w[i]);
    }
    if (!letter || !is_file_suffix(w + dot, k)) return false;
    *at = dot;
    *n = k;
    return true;
}

bool rb_profile_has_extension(const char *w, size_t len)
{
    size_t at, n;
    return rb_profile_extension_of(w, len, &at, &n);
}

/* ---- fitting ------------------------------------------------------------------ */

static int pk_of(int seg_kind)
{
    switch (seg_kind) {
    case RB_SEG_PARAM:
        return RB_PK_PARAM;
    case RB_SEG_TEMPLATE:
        return RB_PK_TEMPLATE;
    case RB_SEG_GLOB:
        return RB_PK_GLOB;
    case RB_SEG_GLOBSTAR:
        return RB_PK_GLOBSTAR;
    case RB_SEG_CATCHALL:
        return RB_PK_CATCHALL;
    default:
        return RB_PK_STATIC;
    }
}

/* RB_TFORM_* of a template's text */
static int template_form(const char *t, size_t len)
{
    size_t params = 0, at, n;
    for (size_t i = 0; i < len; i++) params += t[i] == '{';
    if (params > 1) return RB_TFORM_MULTI;
    return len > 0 && t[len - 1] != '}' && t[0] == '{' &&
                   rb_profile_extension_of(t, len, &at, &n) && memchr(t, '}', len) == t + at - 2
               ? RB_TFORM_EXT
               : RB_TFORM_AFFIX;
}

/* Count the whole-segment params of pattern p by syntax. */
static void count_param_syntax(const char *p, size_t len, rb_profile *out)
{
    for (size_t i = 0; i < len;) {
        size_t e = i + 1;
        while (e < len && p[e] != '/') e++;
        const char *s = p + i + 1;
        size_t n = e - i - 1;
        if (n > 1 && s[0] == ':') out->param_syntax[RB_PSYN_COLON]++;
        if (n > 2 && s[0] == '{' && s[n - 1] == '}' && s[1] != '*' &&
            memchr(s + 1, '{', n - 1) == NULL)
            out->param_syntax[RB_PSYN_BRACE]++;
        i = e;
    }
}

enum { F_PARAM_CHILD = 1, F_STATIC_CHILD = 2, F_VERSION = 4 };

static void fit_node(const rb_shape_tree *st, uint32_t n, uint8_t *flags, rb_profile *p)
{
    const rb_st_node *x = rb_st_node_at(st, n);
    int k = pk_of(x->kind);
    if (n != RB_ST_ROOT) {
        bool version = k == RB_PK_STATIC && rb_profile_is_version(rb_st_text(st, x), x->text_len);
        flags[n] = (flags[x->parent] & F_VERSION) | (version ? F_VERSION : 0);
        flags[x->parent] |= k == RB_PK_PARAM    ? F_PARAM_CHILD
                            : k == RB_PK_STATIC ? F_STATIC_CHILD
                                                : 0;
    }
    if (x->depth > RB_PROFILE_DEPTHS) return;
    rb_profile_level *lv = &p->level[x->depth];
    if (x->nchildren) lv->fanout[rb_profile_fanout_bucket(x->nchildren)]++;
    if (n == RB_ST_ROOT) return;
    rb_profile_kind_counts *kc = &lv->kind[k];
    kc->nodes++;
    kc->interior += x->nchildren > 0;
    kc->terminal += x->routes_count > 0;
    kc->both += x->nchildren > 0 && x->routes_count > 0;
    if (x->routes_count) {
        p->paths++;
        p->methods_per_path[x->routes_count < RB_PROFILE_METHODS ? x->routes_count
                                                                 : RB_PROFILE_METHODS]++;
    }
    if (k == RB_PK_TEMPLATE) p->template_forms[template_form(rb_st_text(st, x), x->text_len)]++;
    if (k != RB_PK_STATIC) return;
    const char *w = rb_st_text(st, x);
    if (x->text_len == 0) {
        lv->empties++;
        return;
    }
    p->word_length[x->text_len < RB_PROFILE_WORD_LENGTHS ? x->text_len : RB_PROFILE_WORD_LENGTHS]++;
    lv->versions += rb_profile_is_version(w, x->text_len);
    lv->extensions += rb_profile_has_extension(w, x->text_len);
}

int rb_profile_fit(const rb_route_table *t, rb_profile *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    if (t->count == 0) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "the table has no routes");
    rb_shape_tree st;
    int rc = rb_shape_tree_build(t, &st, err);
    if (rc < 0) return rc;
    uint8_t *flags = calloc(st.nnodes, 1);
    if (!flags) {
        rb_shape_tree_free(&st);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory profiling the table");
    }
    for (uint32_t n = 0; n < st.nnodes; n++) fit_node(&st, n, flags, out);
    /* param and static siblings, counted at the parent's depth */
    for (uint32_t n = 0; n < st.nnodes; n++) {
        const rb_st_node *x = rb_st_node_at(&st, n);
        if (x->depth > RB_PROFILE_DEPTHS || !(flags[n] & F_PARAM_CHILD)) continue;
        out->level[x->depth].param_parents++;
        out->level[x->depth].param_with_static += (flags[n] & F_STATIC_CHILD) != 0;
    }
    for (size_t r = 0; r < t->count; r++) {
        if (st.dup_of[r] != RB_ST_NONE) continue;
        uint32_t n = st.route_node[r];
        const rb_st_node *x = rb_st_node_at(&st, n);
        uint32_t d = x->depth < RB_PROFILE_DEPTHS ? x->depth : RB_PROFILE_DEPTHS;
        out->routes++;
        out->depth[d]++;
        if (d > out->max_depth) out->max_depth = d;
        out->methods[t->routes[r].method]++;
        const char *w = rb_st_text(&st, x);
        out->trailing_slash += x->kind == RB_SEG_STATIC && x->text_len == 0;
        out->versioned += (flags[n] & F_VERSION) != 0;
        out->extension += (x->kind == RB_SEG_STATIC || x->kind == RB_SEG_GLOB) &&
                          rb_profile_has_extension(w, x->text_len);
        size_t at, en;
        if ((x->kind == RB_SEG_STATIC || x->kind == RB_SEG_GLOB || x->kind == RB_SEG_TEMPLATE) &&
            rb_profile_extension_of(w, x->text_len, &at, &en))
            out->ext_names[rb_profile_ext_index(w + at, en)]++;
        count_param_syntax(rb_route_pattern(t, r), t->routes[r].len, out);
        bool below_param = false, adjacent = false;
        for (uint32_t y = n; y != RB_ST_ROOT; y = rb_st_node_at(&st, y)->parent) {
            bool param = rb_st_node_at(&st, y)->kind == RB_SEG_PARAM;
            out->params += param;
            adjacent = adjacent || (param && below_param);
            below_param = param;
        }
        out->adjacent_params += adjacent;
    }
    uint32_t pre = rb_st_shared_prefix(&st, &out->prefix_routes);
    if (pre == RB_ST_ROOT || rb_st_shape(&st, pre, out->prefix, sizeof out->prefix) >=
                                 sizeof out->prefix) { /* none, or too long to keep */
        out->prefix[0] = '\0';
        out->prefix_routes = 0;
    }
    out->fingerprint = rb_route_table_fingerprint(t);
    free(flags);
    rb_shape_tree_free(&st);
    return RB_OK;
}

/* ---- validation ------------------------------------------------------------------ */

#define BAD(...) rb__error(err, RB_EINVAL, RB_NO_OFFSET, __VA_ARGS__)

uint64_t rb_profile_level_sum(const rb_profile_level *lv, int field)
{
    uint64_t s = 0;
    for (int k = 0; k < RB_PK_COUNT; k++) {
        const rb_profile_kind_counts *c = &lv->kind[k];
        s += field == RB_PF_NODES      ? c->nodes
             : field == RB_PF_INTERIOR ? c->interior
             : field == RB_PF_TERMINAL ? c->terminal
                                       : c->both;
    }
    return s;
}

static int validate_level(const rb_profile *p, uint32_t d, rb_error *err)
{
    const rb_profile_level *lv = &p->level[d];
    for (int k = 0; k < RB_PK_COUNT; k++) {
        const rb_profile_kind_counts *c = &lv->kind[k];
        if (d == 0 && c->nodes)
            return BAD("levels[0].kinds.%s: the root level has no prefixes", kind_names[k]);
        if (c->interior > c->nodes || c->terminal > c->nodes || c->both > c->interior ||
            c->both > c->terminal)
            return BAD("levels[%u].kinds.%s: interior %llu, terminal %llu and both %llu do not fit "
                       "in %llu prefixes",
                       d, kind_names[k], (unsigned long long)c->interior,
                       (unsigned long long)c->terminal, (unsigned long long)c->both,
                       (unsigned long long)c->nodes);
        if (d < RB_PROFILE_DEPTHS && c->interior + c->terminal - c->both != c->nodes)
            return BAD("levels[%u].kinds.%s: %llu prefixes have neither children nor routes", d,
                       kind_names[k],
                       (unsigned long long)(c->nodes - (c->interior + c->terminal - c->both)));
        if (k == RB_PK_CATCHALL && c->interior)
            return BAD("levels[%u].kinds.catchall: a catch-all has no children", d);
    }
    uint64_t interior = d == 0 ? (rb_profile_level_sum(&p->level[1], RB_PF_NODES) ? 1 : 0)
                               : rb_profile_level_sum(lv, RB_PF_INTERIOR);
    uint64_t fan = 0;
    for (int b = 0; b < RB_PROFILE_FANOUT_BUCKETS; b++) fan += lv->fanout[b];
    if (fan != interior)
        return BAD("levels[%u].fanout: %llu prefixes by fan-out, %llu with children", d,
                   (unsigned long long)fan, (unsigned long long)interior);
    uint64_t below =
        d < RB_PROFILE_DEPTHS ? rb_profile_level_sum(&p->level[d + 1], RB_PF_NODES) : 0;
    if (d < RB_PROFILE_DEPTHS && (below < interior || (below > 0 && interior == 0)))
        return BAD("levels[%u]: %llu prefixes with children, %llu prefixes at depth %u", d,
                   (unsigned long long)interior, (unsigned long long)below, d + 1);
    uint64_t params_below = d < RB_PROFILE_DEPTHS ? p->level[d + 1].kind[RB_PK_PARAM].nodes : 0;
    if (lv->param_parents != params_below || lv->param_with_static > lv->param_parents)
        return BAD("levels[%u]: param_parents %llu (with static %llu), %llu params at depth %u", d,
                   (unsigned long long)lv->param_parents, (unsigned long long)lv->param_with_static,
                   (unsigned long long)params_below, d + 1);
    uint64_t statics = lv->kind[RB_PK_STATIC].nodes;
    if (lv->versions > statics || lv->extensions > statics || lv->empties > statics)
        return BAD("levels[%u]: versions, extensions or empties above the %llu static prefixes", d,
                   (unsigned long long)statics);
    uint64_t terminal = rb_profile_level_sum(lv, RB_PF_TERMINAL);
    if (d > 0 && (p->depth[d] < terminal || p->depth[d] > terminal * RB_PROFILE_METHODS))
        return BAD("depth[%u]: %llu routes on %llu prefixes with routes", d,
                   (unsigned long long)p->depth[d], (unsigned long long)terminal);
    return RB_OK;
}

int rb_profile_validate(const rb_profile *p, rb_error *err)
{
    if (p->routes == 0) return BAD("routes: a profile has at least one route");
    uint64_t s = 0, deepest = 0;
    for (uint32_t d = 0; d <= RB_PROFILE_DEPTHS; d++) {
        if (d == 0 && p->depth[0]) return BAD("depth: routes have depth 1 or more");
        s += p->depth[d];
        if (p->depth[d]) deepest = d;
    }
    if (s != p->routes)
        return BAD("depth: %llu routes by depth, routes is %llu", (unsigned long long)s,
                   (unsigned long long)p->routes);
    if (p->max_depth != deepest)
        return BAD("max_depth: %u, the deepest route is at %llu", p->max_depth,
                   (unsigned long long)deepest);
    if (p->prefix_routes > p->routes || p->adjacent_params > p->routes)
        return BAD("shared_prefix.routes %llu or adjacent_params %llu above the %llu routes",
                   (unsigned long long)p->prefix_routes, (unsigned long long)p->adjacent_params,
                   (unsigned long long)p->routes);
    if (p->prefix[0] != '\0' && p->prefix[0] != '/')
        return BAD("shared_prefix.path: a prefix starts with '/'");
    s = 0;
    for (int m = 0; m < RB_PROFILE_METHODS; m++) s += p->methods[m];
    if (s != p->routes)
        return BAD("methods: %llu routes by method, routes is %llu", (unsigned long long)s,
                   (unsigned long long)p->routes);
    uint64_t paths = 0, routes = 0;
    for (int k = 1; k <= RB_PROFILE_METHODS; k++) {
        paths += p->methods_per_path[k];
        routes += (uint64_t)k * p->methods_per_path[k];
    }
    if (p->methods_per_path[0]) return BAD("methods_per_path: a path has at least one route");
    if (paths != p->paths || routes != p->routes)
        return BAD("methods_per_path: %llu paths with %llu routes, paths is %llu and routes %llu",
                   (unsigned long long)paths, (unsigned long long)routes,
                   (unsigned long long)p->paths, (unsigned long long)p->routes);
    uint64_t terminal = 0, words = 0, statics = 0;
    for (uint32_t d = 0; d <= RB_PROFILE_DEPTHS; d++) {
        int rc = validate_level(p, d, err);
        if (rc < 0) return rc;
        terminal += rb_profile_level_sum(&p->level[d], RB_PF_TERMINAL);
        statics += p->level[d].kind[RB_PK_STATIC].nodes - p->level[d].empties;
    }
    if (terminal != p->paths)
        return BAD("levels: %llu prefixes with routes, paths is %llu", (unsigned long long)terminal,
                   (unsigned long long)p->paths);
    if (p->word_length[0]) return BAD("word_length: words have 1 byte or more");
    for (int l = 1; l <= RB_PROFILE_WORD_LENGTHS; l++) words += p->word_length[l];
    if (words != statics)
        return BAD("word_length: %llu words, %llu nonempty static prefixes",
                   (unsigned long long)words, (unsigned long long)statics);
    uint64_t named = 0, templates = 0, forms = 0;
    for (int i = 0; i < RB_PROFILE_EXT_NAMES; i++) named += p->ext_names[i];
    if (named > p->routes)
        return BAD("extension_names: %llu routes, routes is %llu", (unsigned long long)named,
                   (unsigned long long)p->routes);
    for (uint32_t d = 0; d <= RB_PROFILE_DEPTHS; d++)
        templates += p->level[d].kind[RB_PK_TEMPLATE].nodes;
    for (int f = 0; f < RB_TFORM_COUNT; f++) forms += p->template_forms[f];
    if (forms != 0 && forms != templates)
        return BAD("template_forms: %llu templates by form, %llu template prefixes",
                   (unsigned long long)forms, (unsigned long long)templates);
    if (p->trailing_slash > p->routes || p->versioned > p->routes || p->extension > p->routes)
        return BAD("trailing_slash, versioned or extension: above the %llu routes",
                   (unsigned long long)p->routes);
    return RB_OK;
}

/* ---- histograms and distances ------------------------------------------------------ */

static const char *const hist_names[RB_PH_COUNT] = {
    "depth",     "kinds",          "fanout",    "methods",   "methods_per_path", "word_length",
    "conflicts", "trailing_slash", "versioned", "extension", "extension_names"};

static const char *const hist_titles[RB_PH_COUNT] = {
    "routes by depth (segments)",
    "prefixes by depth and kind",
    "prefixes with children by depth and fan-out",
    "routes by method",
    "paths by number of methods",
    "static words by length (bytes)",
    "param positions: with a static sibling, or alone",
    "routes ending in '/'",
    "routes with a version segment (v2, 2010-04-01)",
    "routes whose last segment has a file extension",
    "routes by their last segment's extension"};

/* Append a bin labelled "<number><text>" (number < 0: text only). */
static void bin(rb_profile_hist *h, uint64_t count, int number, const char *text)
{
    size_t i = h->nbins++;
    h->count[i] = count;
    h->total += count;
    if (number < 0)
        snprintf(h->label[i], sizeof h->label[i], "%s", text);
    else
        snprintf(h->label[i], sizeof h->label[i], "%d%s", number, text);
}

static void yes_no(rb_profile_hist *h, uint64_t yes, uint64_t all, const char *y, const char *n)
{
    bin(h, yes, -1, y);
    bin(h, all - yes, -1, n);
}

void rb_profile_histogram(const rb_profile *p, int id, rb_profile_hist *h)
{
    memset(h, 0, sizeof *h);
    if (id < 0 || id >= RB_PH_COUNT) return;
    h->name = hist_names[id];
    h->title = hist_titles[id];
    uint64_t pp = 0, pws = 0;
    char text[16];
    switch (id) {
    case RB_PH_DEPTH:
        for (int d = 1; d <= RB_PROFILE_DEPTHS; d++) bin(h, p->depth[d], d, "");
        break;
    case RB_PH_KINDS:
        for (int d = 1; d <= RB_PROFILE_DEPTHS; d++)
            for (int k = 0; k < RB_PK_COUNT; k++) {
                snprintf(text, sizeof text, " %s", kind_names[k]);
                bin(h, p->level[d].kind[k].nodes, d, text);
            }
        break;
    case RB_PH_FANOUT:
        for (int d = 0; d < RB_PROFILE_DEPTHS; d++)
            for (int b = 0; b < RB_PROFILE_FANOUT_BUCKETS; b++) {
                snprintf(text, sizeof text, ": %s", fanout_labels[b]);
                bin(h, p->level[d].fanout[b], d, text);
            }
        break;
    case RB_PH_METHODS:
        for (int m = 0; m < RB_PROFILE_METHODS; m++) bin(h, p->methods[m], -1, rb_method_name(m));
        break;
    case RB_PH_METHODS_PER_PATH:
        for (int k = 1; k <= RB_PROFILE_METHODS; k++) bin(h, p->methods_per_path[k], k, "");
        break;
    case RB_PH_WORD_LENGTH:
        for (int l = 1; l <= RB_PROFILE_WORD_LENGTHS; l++)
            bin(h, p->word_length[l], l, l == RB_PROFILE_WORD_LENGTHS ? "+" : "");
        break;
    case RB_PH_CONFLICTS:
        for (int d = 0; d <= RB_PROFILE_DEPTHS; d++) {
            pp += p->level[d].param_parents;
            pws += p->level[d].param_with_static;
        }
        yes_no(h, pws, pp, "with static", "alone");
        break;
    case RB_PH_TRAILING_SLASH:
        yes_no(h, p->trailing_slash, p->routes, "trailing /", "none");
        break;
    case RB_PH_VERSIONED:
        yes_no(h, p->versioned, p->routes, "versioned", "none");
        break;
    case RB_PH_EXTENSION:
        yes_no(h, p->extension, p->routes, "extension", "none");
        break;
    default: {
        uint64_t named = 0;
        for (int i = 0; i < RB_PROFILE_EXT_NAMES; i++) named += p->ext_names[i];
        bin(h, p->routes - named, -1, "none");
        for (int i = 0; i < RB_PROFILE_EXT_NAMES; i++) bin(h, p->ext_names[i], -1, ext_names[i]);
        break;
    }
    }
}

double rb_profile_tv(const rb_profile_hist *a, const rb_profile_hist *b)
{
    if (a->total == 0 && b->total == 0) return 0.0;
    if (a->total == 0 || b->total == 0) return 1.0;
    double s = 0.0;
    size_t n = a->nbins < b->nbins ? a->nbins : b->nbins;
    for (size_t i = 0; i < n; i++) {
        double x = (double)a->count[i] / (double)a->total - (double)b->count[i] / (double)b->total;
        s += x < 0 ? -x : x;
    }
    return s / 2.0;
}

void rb_profile_compare(const rb_profile *a, const rb_profile *b, rb_profile_distance *out)
{
    rb_profile_hist ha, hb; /* about 9 KB each */
    double sum = 0.0;
    for (int id = 0; id < RB_PH_COUNT; id++) {
        rb_profile_histogram(a, id, &ha);
        rb_profile_histogram(b, id, &hb);
        out->hist[id] = rb_profile_tv(&ha, &hb);
        sum += out->hist[id];
    }
    out->mean = sum / RB_PH_COUNT;
}
