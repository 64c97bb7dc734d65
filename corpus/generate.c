/*
 * generate.c — the corpus generator (see generate.h for the design).
 *
 * One recursive walk, depth-first: place(node, budget) emits the node's own
 * routes, then chooses its children and splits the rest of the budget among
 * them.  The pattern of the current node lives in one buffer that grows and
 * shrinks with the walk.
 */
#include "generate.h"

#include "rng.h"
#include "base_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- vocabulary -------------------------------------------------------------- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const ns_words[] = {
    "v1",     "v2",      "v3",     "api",  "admin",   "internal", "public", "beta",
    "legacy", "partner", "mobile", "web",  "ext",     "sandbox",  "edge",   "v4",
    "rest",   "ops",     "hooks",  "labs", "preview", "private",  "core",   "platform",
};

static const char *const coll_words[] = {
    "users",       "orgs",          "teams",        "projects",    "repos",         "issues",
    "comments",    "posts",         "orders",       "items",       "products",      "invoices",
    "payments",    "customers",     "accounts",     "sessions",    "tokens",        "files",
    "folders",     "images",        "videos",       "events",      "webhooks",      "messages",
    "channels",    "guilds",        "roles",        "members",     "invites",       "tags",
    "labels",      "milestones",    "releases",     "assets",      "builds",        "jobs",
    "pipelines",   "deployments",   "environments", "secrets",     "keys",          "notes",
    "tasks",       "boards",        "columns",      "cards",       "reviews",       "ratings",
    "carts",       "coupons",       "shipments",    "addresses",   "subscriptions", "plans",
    "prices",      "refunds",       "disputes",     "reports",     "metrics",       "alerts",
    "logs",        "audits",        "groups",       "permissions", "policies",      "clusters",
    "nodes",       "pods",          "services",     "volumes",     "snapshots",     "backups",
    "regions",     "zones",         "domains",      "records",     "certificates",  "buckets",
    "objects",     "tables",        "rows",         "queries",     "datasets",      "models",
    "experiments", "runs",          "artifacts",    "branches",    "commits",       "pulls",
    "forks",       "stars",         "watchers",     "gists",       "followers",     "notifications",
    "threads",     "reactions",     "attachments",  "emojis",      "stickers",      "playlists",
    "tracks",      "albums",        "artists",      "episodes",    "podcasts",      "courses",
    "lessons",     "quizzes",       "students",     "teachers",    "schools",       "classes",
    "grades",      "tickets",       "agents",       "macros",      "views",         "triggers",
    "schedules",   "calendars",     "bookings",     "rooms",       "hotels",        "flights",
    "seats",       "vehicles",      "drivers",      "stops",       "trips",         "devices",
    "sensors",     "readings",      "campaigns",    "segments",    "contacts",      "leads",
    "deals",       "opportunities", "quotes",       "contracts",   "vendors",       "suppliers",
    "warehouses",  "stocks",        "batches",      "lots",        "recipes",       "ingredients",
    "menus",       "restaurants",   "reservations", "patients",    "doctors",       "visits",
    "claims",      "coverages",     "benefits",     "employees",   "departments",   "positions",
    "candidates",  "interviews",    "offers",       "surveys",     "responses",     "questions",
    "answers",     "forums",        "topics",       "badges",      "achievements",  "levels",
    "games",       "matches",       "players",      "scores",      "tournaments",   "leagues",
};

static const char *const single_words[] = {
    "profile",     "settings",  "avatar",     "status",   "config",    "stats",    "summary",
    "preferences", "billing",   "usage",      "quota",    "owner",     "license",  "readme",
    "schedule",    "policy",    "metadata",   "branding", "security",  "layout",   "theme",
    "state",       "health",    "progress",   "balance",  "limits",    "location", "address",
    "contact",     "signature", "thumbnail",  "preview",  "content",   "manifest", "schema",
    "snapshot",    "timeline",  "overview",   "history",  "analytics", "insights", "audit",
    "visibility",  "ownership", "membership", "rating",   "cover",     "banner",   "permissions",
};

static const char *const action_words[] = {
    "activate",  "deactivate", "archive",  "unarchive", "restore", "publish",  "unpublish",
    "approve",   "reject",     "cancel",   "refund",    "merge",   "close",    "reopen",
    "lock",      "unlock",     "sync",     "retry",     "export",  "import",   "verify",
    "transfer",  "invite",     "star",     "follow",    "mute",    "pin",      "unpin",
    "resend",    "rotate",     "revoke",   "renew",     "suspend", "resume",   "start",
    "stop",      "restart",    "rollback", "promote",   "assign",  "unassign", "clone",
    "duplicate", "submit",     "confirm",  "capture",   "void",    "ack",      "escalate",
};

static const char *const view_words[] = {
    "me",     "search",      "count",        "recent",  "popular",  "batch",   "bulk",
    "export", "defaults",    "trending",     "pending", "archived", "latest",  "random",
    "lookup", "suggestions", "autocomplete", "feed",    "mine",     "shared",  "starred",
    "drafts", "featured",    "summary",      "deleted", "upcoming", "overdue", "favorites",
};

/* none of them is a collection word (see R_GSTAR's rule) */
static const char *const gleaf_words[] = {
    "list", "latest", "raw", "meta", "info", "download", "upload", "digest", "size", "stat",
};

static const char *const root_param_names[] = {
    "owner", "tenant", "slug", "username", "org", "workspace", "locale", "site",
};

static const char *const catch_names[] = {"path", "filepath", "rest", "key", "subpath", "object"};

static const char *const glob_prefixes[] = {
    "img", "thumb", "report", "backup", "export", "log",  "data",  "page", "icon",  "avatar",
    "doc", "file",  "chunk",  "part",   "shard",  "snap", "build", "dump", "trace", "frame",
};

static const char *const glob_exts[] = {
    "png", "jpg", "gif", "css",  "js",   "json", "xml", "csv",  "txt", "pdf", "svg", "webp",
    "zip", "map", "md",  "html", "yaml", "toml", "log", "wasm", "mp4", "mp3", "ico", "ttf",
};

static const char *const glob_sets[] = {"[a-f]", "[0-9]", "[a-z]", "[!_]", "[abc]", "[x-z]"};

/* ---- roles ------------------------------------------------------------------- */

typedef enum role_kind {
    R_ROOT,
    R_NS,
    R_COLL,
    R_ITEM,
    R_SINGLE,
    R_VIEW,
    R_ACTION,
    R_CATCH,
    R_GLOB,
    R_GSTAR,
    R_GTAIL, /* a static child of '**' (/v2/ ** /manifests) */
    R_GLEAF, /* a static leaf below it (/v2/ ** /tags/list) */
    R_GITEM, /* a param leaf below it (/v2/ ** /manifests/:ref) */
    R_COUNT
} role_kind;

#define STATIC_ROLES                                                                               \
    ((1u << R_NS) | (1u << R_COLL) | (1u << R_SINGLE) | (1u << R_VIEW) | (1u << R_ACTION) |        \
     (1u << R_GTAIL) | (1u << R_GLEAF))

static bool is_param_role(int r)
{
    return r == R_ITEM || r == R_GITEM;
}

/* Own methods of a role, most common first (GET dominant). */
static const int own_methods[R_COUNT][4] = {
    [R_ROOT] = {-1},
    [R_NS] = {RB_GET, -1},
    [R_COLL] = {RB_GET, RB_POST, -1},
    [R_ITEM] = {RB_GET, RB_PATCH, RB_DELETE, RB_PUT},
    [R_SINGLE] = {RB_GET, RB_PUT, RB_PATCH, RB_DELETE},
    [R_VIEW] = {RB_GET, RB_POST, -1},
    [R_ACTION] = {RB_POST, RB_DELETE, -1},
    [R_CATCH] = {RB_GET, RB_PUT, RB_DELETE, -1},
    [R_GLOB] = {RB_GET, RB_HEAD, -1},
    [R_GSTAR] = {RB_GET, -1},
    [R_GTAIL] = {RB_GET, RB_POST, -1},
    [R_GLEAF] = {RB_GET, RB_HEAD, -1},
    [R_GITEM] = {RB_GET, RB_PUT, RB_DELETE, RB_HEAD},
};

/* What children a role may have, for one configuration. */
typedef struct child_rule {
    unsigned statics; /* bit per static role */
    unsigned weight[R_COUNT];
    bool param, catchall, glob, gstar;
    int param_role; /* R_ITEM, or R_GITEM below '**' */
    uint32_t fanout;
} child_rule;

struct kid;

typedef struct gen {
    const rb_gen_config *cfg;
    bool v2;        /* generator v2 (generate.h) */
    uint32_t widen; /* v2: how many times the growing roles' fan-outs are widened */
    uint32_t max_depth;
    struct kid *kid_pool; /* the children being planned, max_kids per depth */
    size_t max_kids;
    rb_rng rng;
    rb_rng trng; /* the templates shape's choices, apart from rng (generate.h) */
    rb_route_table *out;
    int rc;
    char path[1024];
    size_t path_len;
    char names[RB_GEN_MAX_DEPTH + 1][48]; /* capture names on the current path */
    uint32_t nnames;
    uint64_t cap[RB_GEN_MAX_DEPTH + 1][R_COUNT][RB_GEN_MAX_DEPTH + 2]
                [2]; /* [limit][role][depth][hp] */
    child_rule rules[R_COUNT];
} gen;

#define CAP_MAX (UINT64_C(1) << 40)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b > CAP_MAX ? CAP_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0) return 0;
    return a > CAP_MAX / b ? CAP_MAX : a * b;
}

static uint32_t own_max(const gen *g, int r, int hp)
{
    if (g->cfg->shape == RB_GEN_PARAMS && !hp) return 0;
    uint32_t n = 0;
    while (n < 4 && own_methods[r][n] >= 0) n++;
    return n;
}

/* A role's fan-out: the one given, else the role's default; v2 widens the
 * roles that grow in real tables (grows) by g->widen. */
static uint32_t fanout(const gen *g, uint32_t role_default, bool grows)
{
    if (g->cfg->fanout) return g->cfg->fanout;
    return g->v2 && grows ? role_default * g->widen : role_default;
}

static void set_rules(gen *g)
{
    int shape = g->cfg->shape;
    bool nc = g->cfg->no_conflicts;
    bool params = shape != RB_GEN_STATIC;
    bool catchall = shape == RB_GEN_CATCHALL;
    bool glob = shape == RB_GEN_GLOB;
    child_rule *r = g->rules;
    memset(r, 0, sizeof g->rules);

    r[R_ROOT] = (child_rule){.statics = 1u << R_NS | 1u << R_COLL,
                             .param = params && !nc,
                             .fanout = fanout(g, 32, true)};
    r[R_ROOT].weight[R_NS] = 1;
    r[R_ROOT].weight[R_COLL] = 5;

    r[R_NS] = (child_rule){.statics = 1u << R_NS | 1u << R_COLL | 1u << R_SINGLE,
                           .catchall = catchall,
                           .glob = glob,
                           .gstar = glob,
                           .fanout = fanout(g, 24, true)};
    r[R_NS].weight[R_NS] = 1;
    r[R_NS].weight[R_COLL] = 8;
    r[R_NS].weight[R_SINGLE] = 1;

    if (params) {
        r[R_COLL] = (child_rule){
            .statics = nc ? 0u : 1u << R_VIEW, .param = true, .fanout = fanout(g, 4, false)};
        r[R_COLL].weight[R_VIEW] = 1;
    } else {
        r[R_COLL] =
            (child_rule){.statics = 1u << R_VIEW | 1u << R_SINGLE | 1u << R_ACTION | 1u << R_COLL,
                         .fanout = fanout(g, 12, true)};
        r[R_COLL].weight[R_VIEW] = 3;
        r[R_COLL].weight[R_SINGLE] = 2;
        r[R_COLL].weight[R_ACTION] = 2;
        r[R_COLL].weight[R_COLL] = 2;
    }

    r[R_ITEM] = (child_rule){.statics = 1u << R_COLL | 1u << R_SINGLE | 1u << R_ACTION,
                             .catchall = catchall,
                             .glob = glob,
                             .gstar = glob,
                             .fanout = fanout(g, 24, true)};
    r[R_ITEM].weight[R_COLL] = 5;
    r[R_ITEM].weight[R_SINGLE] = 2;
    r[R_ITEM].weight[R_ACTION] = 3;

    r[R_SINGLE] = (child_rule){.statics = 1u << R_SINGLE | 1u << R_ACTION | 1u << R_COLL,
                               .catchall = catchall,
                               .glob = glob,
                               .gstar = glob,
                               .fanout = fanout(g, 12, true)};
    r[R_SINGLE].weight[R_SINGLE] = 2;
    r[R_SINGLE].weight[R_ACTION] = 3;
    r[R_SINGLE].weight[R_COLL] = 2;

    r[R_VIEW] = (child_rule){.statics = 1u << R_COLL | 1u << R_SINGLE | 1u << R_ACTION,
                             .fanout = fanout(g, 4, true)};
    r[R_VIEW].weight[R_COLL] = 2;
    r[R_VIEW].weight[R_SINGLE] = 1;
    r[R_VIEW].weight[R_ACTION] = 2;

    /* Below '**' the tree is two levels deep at most, and leaf words differ
     * from the words right below the '**': P/ ** /w would otherwise take
     * every path of a longer P/ ** /x/w (its key is a proper prefix). */
    r[R_GSTAR] = (child_rule){.statics = 1u << R_GTAIL, .fanout = fanout(g, 6, false)};
    r[R_GSTAR].weight[R_GTAIL] = 1;
    r[R_GTAIL] = (child_rule){.statics = 1u << R_GLEAF,
                              .param = params,
                              .param_role = R_GITEM,
                              .fanout = fanout(g, 4, false)};
    r[R_GTAIL].weight[R_GLEAF] = 1;
    for (int k = 0; k < R_COUNT; k++)
        if (!r[k].param_role) r[k].param_role = R_ITEM;
}

/* cap[limit][role][depth][hp]: the most routes a subtree can hold when it
 * may not grow below depth `limit`.  Only static
 * children and the param child count: catch-alls, globs and '**' are
 * optional extras taken from the fan-out only when the budget allows. */
static void compute_caps(gen *g, uint32_t limit)
{
    uint64_t(*cap)[RB_GEN_MAX_DEPTH + 2][2] = g->cap[limit];
    for (int d = (int)g->max_depth; d >= 0; d--) {
        for (int hp = 0; hp < 2; hp++) {
            for (int r = 0; r < R_COUNT; r++) {
                uint64_t own = r == R_ROOT ? 0 : own_max(g, r, hp);
                const child_rule *cr = &g->rules[r];
                if ((uint32_t)d >= limit || cr->fanout == 0) {
                    cap[r][d][hp] = own;
                    continue;
                }
                uint64_t best_static = 0;
                for (int s = 0; s < R_COUNT; s++)
                    if (cr->statics & (1u << s) && cap[s][d + 1][hp] > best_static)
                        best_static = cap[s][d + 1][hp];
                uint64_t pcap = cr->param ? cap[cr->param_role][d + 1][1] : 0;
                uint64_t kids;
                if (g->cfg->no_conflicts) {
                    /* one kind of children: one param, or statics */
                    uint64_t st = sat_mul(best_static, cr->fanout);
                    kids = pcap > st ? pcap : st;
                } else {
                    kids = sat_add(pcap, sat_mul(best_static, cr->fanout - (cr->param ? 1u : 0u)));
                }
                /* a '**' node with children has no routes of its own: its
                 * priority key is a proper prefix of theirs, so a route on it
                 * would take every path they match */
                cap[r][d][hp] = r == R_GSTAR ? (own > kids ? own : kids) : sat_add(own, kids);
            }
        }
    }
}

static uint32_t isqrt(uint64_t x);

static int init(gen *g, const rb_gen_config *cfg, rb_error *err)
{
    memset(g, 0, sizeof *g);
    g->cfg = cfg;
    if (cfg->shape < 0 || cfg->shape >= RB_GEN_SHAPE_COUNT)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "unknown shape %d", cfg->shape);
    uint32_t version = rb_gen_generator(cfg);
    if (version == 0)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "unknown generator v%u (v1 or v2)",
                         cfg->generator);
    g->v2 = version == RB_GEN_V2;
    /* v2: sqrt(N / 1,000), 1 .. 32 */
    uint32_t w = isqrt(cfg->routes / 1000);
    g->widen = w < 1 ? 1 : w > 32 ? 32 : w;
    g->max_depth = cfg->max_depth ? cfg->max_depth : RB_GEN_MAX_DEPTH;
    if (g->max_depth > RB_GEN_MAX_DEPTH)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "depth %u is above the maximum %u",
                         g->max_depth, RB_GEN_MAX_DEPTH);
    if (cfg->fanout && (cfg->fanout < 2 || cfg->fanout > 64))
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "fan-out %u is outside 2..64", cfg->fanout);
    set_rules(g);
    for (uint32_t limit = 1; limit <= g->max_depth; limit++) compute_caps(g, limit);
    return RB_OK;
}

uint64_t rb_gen_capacity(const rb_gen_config *cfg)
{
    gen g;
    if (init(&g, cfg, NULL) < 0) return 0;
    return g.cap[g.max_depth][R_ROOT][0][0];
}

/* ---- small helpers ------------------------------------------------------------ */

static uint32_t below(gen *g, uint32_t n)
{
    return (uint32_t)rb_rng_below(&g->rng, n);
}

static uint32_t isqrt(uint64_t x)
{
    uint64_t r = 0;
    while ((r + 1) * (r + 1) <= x) r++;
    return (uint32_t)r;
}

static bool path_push(gen *g, const char *seg, size_t len)
{
    bool ok = rb__path_push(g->path, sizeof g->path, &g->path_len, seg, len);
    if (!ok) g->rc = RB_ELIMIT;
    return ok;
}

static void emit(gen *g, int method)
{
    if (g->rc < 0) return;
    g->rc = rb_route_table_append(g->out, method, g->path, g->path_len, 0);
}

/* ---- children ------------------------------------------------------------------- */

#define MAX_KIDS 72 /* v1; v2 sizes the pool by its fan-outs */

typedef struct kid {
    int role;
    uint32_t limit; /* its subtree is planned within this depth */
    char word[64];  /* static word or glob text */
    uint64_t cap;
    uint64_t weight;
    uint64_t budget;
} kid;

static bool word_taken(const kid *kids, size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kids[i].word, w) == 0) return true;
    return false;
}

static const char *const *role_words(int r, size_t *n)
{
    switch (r) {
    case R_NS:
        *n = COUNT(ns_words);
        return ns_words;
    case R_COLL:
        *n = COUNT(coll_words);
        return coll_words;
    case R_SINGLE:
        *n = COUNT(single_words);
        return single_words;
    case R_VIEW:
        *n = COUNT(view_words);
        return view_words;
    case R_GTAIL:
        *n = COUNT(coll_words);
        return coll_words;
    case R_GLEAF:
        *n = COUNT(gleaf_words);
        return gleaf_words;
    default:
        *n = COUNT(action_words);
        return action_words;
    }
}

/* A word for a static child, distinct from its siblings: a vocabulary word,
 * or after a few collisions a compound of two ("audit-logs"). */
static void pick_word(gen *g, int r, const kid *kids, size_t n, char *out, size_t cap)
{
    size_t nw;
    const char *const *w = role_words(r, &nw);
    for (int tries = 0; tries < 6; tries++) {
        const char *c = w[below(g, (uint32_t)nw)];
        if (!word_taken(kids, n, c)) {
            snprintf(out, cap, "%s", c);
            return;
        }
    }
    for (;;) {
        size_t nc;
        const char *const *cw = role_words(R_COLL, &nc);
        char c[64]; /* out may be one of kids[]: build the word aside */
        snprintf(c, sizeof c, "%s-%s", w[below(g, (uint32_t)nw)], cw[below(g, (uint32_t)nc)]);
        if (!word_taken(kids, n, c)) {
            snprintf(out, cap, "%s", c);
            return;
        }
    }
}

/* A glob text whose extension no sibling glob uses, so sibling globs match
 * disjoint sets.  Forms: *.ext, prefix-*.ext, prefix-??.ext, [set]*.ext and
 * (at most once per node) prefix-* without extension. */
static void pick_glob(gen *g, const kid *kids, size_t n, char *out, size_t cap)
{
    bool bare_used = false;
    for (size_t i = 0; i < n; i++)
        if (kids[i].role == R_GLOB && !strchr(kids[i].word, '.')) bare_used = true;
    const char *pre = glob_prefixes[below(g, COUNT(glob_prefixes))];
    for (;;) {
        const char *ext = glob_exts[below(g, COUNT(glob_exts))];
        bool ext_used = false;
        char dot[16];
        snprintf(dot, sizeof dot, ".%s", ext);
        for (size_t i = 0; i < n; i++) {
            const char *e = kids[i].role == R_GLOB ? strchr(kids[i].word, '.') : NULL;
            if (e && strcmp(e, dot) == 0) ext_used = true;
        }
        uint32_t form = below(g, bare_used ? 4 : 5);
        if (form != 4 && ext_used) continue;
        switch (form) {
        case 0:
            snprintf(out, cap, "*.%s", ext);
            break;
        case 1:
            snprintf(out, cap, "%s-*.%s", pre, ext);
            break;
        case 2:
            snprintf(out, cap, "%s-??.%s", pre, ext);
            break;
        case 3:
            snprintf(out, cap, "%s*.%s", glob_sets[below(g, COUNT(glob_sets))], ext);
            break;
        default:
            snprintf(out, cap, "%s-*", pre);
            break;
        }
        return;
    }
}

/* The name of a capture, distinct from the captures above it. */
static void capture_name(gen *g, const char *base, char *out, size_t cap)
{
    snprintf(out, cap, "%s", base);
    for (uint32_t k = 2;; k++) {
        bool clash = false;
        for (uint32_t i = 0; i < g->nnames; i++)
            if (strcmp(g->names[i], out) == 0) clash = true;
        if (!clash) return;
        snprintf(out, cap, "%s%u", base, k);
    }
}

/* "users" -> "user_id", "categories" -> "category_id", "audit-logs" ->
 * "audit_log_id". */
static void item_name(const char *coll, char *out, size_t cap)
{
    char s[64];
    snprintf(s, sizeof s, "%s", coll);
    size_t n = strlen(s);
    if (n > 3 && strcmp(s + n - 3, "ies") == 0)
        snprintf(s + n - 3, sizeof s - (n - 3), "y");
    else if (n > 4 && (strcmp(s + n - 4, "ches") == 0 || strcmp(s + n - 4, "shes") == 0 ||
                       strcmp(s + n - 3, "xes") == 0 || strcmp(s + n - 3, "sses") == 0))
        s[n - 2] = '\0';
    else if (n > 1 && s[n - 1] == 's')
        s[n - 1] = '\0';
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) *p = '_';
    snprintf(out, cap, "%s_id", s);
}

/* ---- the walk --------------------------------------------------------------------- */

static void place(gen *g, int r, uint32_t d, int hp, uint32_t limit, uint64_t budget,
                  const char *word);

static uint64_t capacity(const gen *g, uint32_t limit, int r, uint32_t d, int hp)
{
    return g->cap[limit][r][d][is_param_role(r) ? 1 : hp];
}

/* The depth limit a new child at depth cd is planned within: usually one
 * to three levels below it, sometimes more, so leaves end at varied depths
 * (cover() raises it when the child's budget needs more room). */
static uint32_t pick_limit(gen *g, uint32_t cd)
{
    uint32_t limit = cd + below(g, 3);
    if (g->v2) {
        /* v2: one level in eight is planned deeper, by one level */
        if (below(g, 8) == 0) limit++;
    } else if (below(g, 4) == 0) {
        limit += below(g, 4);
    }
    return limit < g->max_depth ? limit : g->max_depth;
}

/* A weight in 2..513, skewed so that a few children take most of the
 * budget. */
static uint64_t skewed(gen *g)
{
    uint64_t x = below(g, g->v2 ? 5 : 8) + 1; /* v2: 2..26, a thinner deep tail */
    return 1 + x * x;
}

/* A static child's role, by the parent's weights.  A child expected to
 * hold many routes (share) is more often a namespace, which widens the tree
 * instead of deepening it, as large APIs do (/v2, /admin, /billing). */
static int pick_static_role(gen *g, const child_rule *cr, uint32_t d, int hp, uint64_t share)
{
    uint32_t w[R_COUNT], total = 0;
    for (int s = 0; s < R_COUNT; s++) {
        w[s] = cr->statics & (1u << s) && capacity(g, g->max_depth, s, d, hp) ? cr->weight[s] : 0;
        if (s == R_NS && w[s] && share > 150)
            w[s] *= 2 + (uint32_t)(share / 150 < 8 ? share / 150 : 8);
        total += w[s];
    }
    if (total == 0) return -1;
    uint32_t x = below(g, total);
    for (int s = 0; s < R_COUNT; s++) {
        if (x < w[s]) return s;
        x -= w[s];
    }
    return -1;
}

static int best_static_role(const gen *g, const child_rule *cr, uint32_t limit, uint32_t d, int hp)
{
    int best = -1;
    for (int s = 0; s < R_COUNT; s++)
        if (cr->statics & (1u << s) &&
            (best < 0 || capacity(g, limit, s, d, hp) > capacity(g, limit, best, d, hp)))
            best = s;
    return best;
}

/* Split budget among kids[0..n): each gets 1..cap, the sum is budget.
 * The caller guarantees n <= budget <= sum of caps. */
static void split(gen *g, kid *kids, size_t n, uint64_t budget)
{
    uint64_t wsum = 0;
    for (size_t i = 0; i < n; i++) wsum += kids[i].weight;
    uint64_t spare = budget - n, given = 0;
    for (size_t i = 0; i < n; i++) {
        kids[i].budget = 1 + spare * kids[i].weight / wsum;
        if (kids[i].budget > kids[i].cap) kids[i].budget = kids[i].cap;
        given += kids[i].budget;
    }
    if (g->v2) {
        /* v2: what is left goes by weight to the children with room, so no
         * child takes a large share only because it came next */
        bool added = true;
        while (given < budget && added) {
            uint64_t w = 0, want = budget - given;
            for (size_t i = 0; i < n; i++)
                if (kids[i].budget < kids[i].cap) w += kids[i].weight;
            added = false;
            for (size_t i = 0; i < n && w; i++) {
                kid *k = &kids[i];
                if (k->budget >= k->cap) continue;
                uint64_t add = want * k->weight / w, room = k->cap - k->budget;
                if (add > room) add = room;
                if (add > budget - given) add = budget - given;
                k->budget += add;
                given += add;
                added = added || add > 0;
            }
        }
    }
    /* hand out what is left (rounding, clamping) from a random start */
    size_t at = below(g, (uint32_t)n);
    while (given < budget) {
        kid *k = &kids[at];
        if (k->budget < k->cap) {
            uint64_t room = k->cap - k->budget, want = budget - given;
            uint64_t add = room < want ? room : want;
            /* spread: at most a quarter of what is missing per visit */
            if (add > 4 && want > 4) add = add < want / 4 + 1 ? add : want / 4 + 1;
            k->budget += add;
            given += add;
        }
        at = (at + 1) % n;
    }
}

static kid *new_kid(kid *kids, size_t *n, int role, uint32_t limit)
{
    kid *k = &kids[(*n)++];
    memset(k, 0, sizeof *k);
    k->role = role;
    k->limit = limit;
    k->weight = 1;
    return k;
}

/* Optional extras (never beside a param): a catch-all, 1-3 globs, a '**'.
 * Without conflicts they are the node's only children, so they are kept
 * only when they can hold the whole budget. */
static void add_extras(gen *g, const child_rule *cr, uint32_t cd, int hp, uint64_t budget,
                       kid *kids, size_t *n)
{
    bool nc = g->cfg->no_conflicts;
    size_t n0 = *n;
    uint32_t catch_cap = own_max(g, R_CATCH, hp), glob_cap = own_max(g, R_GLOB, hp);
    if (cr->catchall && catch_cap && below(g, 8) == 0) {
        new_kid(kids, n, R_CATCH, cd)->cap = catch_cap;
        if (nc) goto done;
    }
    if (cr->glob && glob_cap && below(g, 6) == 0) {
        uint64_t ng = 1 + below(g, 3);
        if (nc && (budget + glob_cap - 1) / glob_cap > ng) ng = (budget + glob_cap - 1) / glob_cap;
        if (ng > cr->fanout || ng > 16) ng = 0; /* too many would be needed */
        for (uint64_t i = 0; i < ng; i++) {
            kid *k = new_kid(kids, n, R_GLOB, cd);
            pick_glob(g, kids, *n - 1, k->word, sizeof k->word);
            k->cap = glob_cap;
        }
        if (nc && ng) goto done;
    }
    bool has_catch = *n > n0 && kids[n0].role == R_CATCH;
    if (cr->gstar && !has_catch && cd < g->max_depth &&
        capacity(g, g->max_depth, R_GSTAR, cd, hp) && below(g, 10) == 0) {
        kid *k = new_kid(kids, n, R_GSTAR, g->max_depth);
        k->cap = capacity(g, k->limit, R_GSTAR, cd, hp);
        k->weight = skewed(g);
    }
done:
    if (*n > budget) *n = (size_t)budget; /* each child takes 1+ routes */
    if (nc) {
        uint64_t have = 0;
        for (size_t i = n0; i < *n; i++) have += kids[i].cap;
        if (have < budget) *n = n0;
    }
}

static uint64_t sum_caps(const kid *kids, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s = sat_add(s, kids[i].cap);
    return s;
}

/* Raise capacities until they cover the budget: first let children grow
 * one level deeper at a time, then turn the smallest static children into
 * the role that holds most.  Returns false when even that is not enough. */
static bool cover(gen *g, const child_rule *cr, uint32_t cd, int hp, uint64_t budget, kid *kids,
                  size_t n)
{
    bool raised = true;
    while (raised && sum_caps(kids, n) < budget) {
        raised = false;
        for (size_t i = 0; i < n && sum_caps(kids, n) < budget; i++) {
            kid *k = &kids[i];
            if (k->limit >= g->max_depth || k->role == R_CATCH || k->role == R_GLOB) continue;
            k->limit++;
            k->cap = capacity(g, k->limit, k->role, cd, hp);
            raised = true;
        }
    }
    int best = best_static_role(g, cr, g->max_depth, cd, hp);
    while (best >= 0 && sum_caps(kids, n) < budget) {
        uint64_t best_cap = capacity(g, g->max_depth, best, cd, hp);
        size_t small = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            if ((1u << kids[i].role) & STATIC_ROLES && kids[i].cap < best_cap &&
                (small == SIZE_MAX || kids[i].cap < kids[small].cap))
                small = i;
        if (small == SIZE_MAX) break;
        kids[small].role = best;
        kids[small].cap = best_cap;
        kids[small].word[0] = '\0'; /* the word must stay distinct among siblings */
        pick_word(g, best, kids, n, kids[small].word, sizeof kids[small].word);
    }
    return sum_caps(kids, n) >= budget;
}

static void place_children(gen *g, int r, uint32_t d, int hp, uint64_t budget,
                           const char *parent_word)
{
    const child_rule *cr = &g->rules[r];
    uint32_t cd = d + 1;
    kid *kids = g->kid_pool + (size_t)cd * g->max_kids;
    size_t n = 0;
    bool nc = g->cfg->no_conflicts;
    /* children start shallow (cover() lets them grow deep when the budget
     * needs it), so the tree grows wide before it grows deep */
    uint32_t typical = pick_limit(g, cd);
    int best = best_static_role(g, cr, typical, cd, hp);
    uint64_t best_cap = best >= 0 ? capacity(g, typical, best, cd, hp) : 0;
    if (best_cap == 0) {
        best = best_static_role(g, cr, g->max_depth, cd, hp);
        best_cap = best >= 0 ? capacity(g, g->max_depth, best, cd, hp) : 0;
    }

    /* the param child: always below a collection, sometimes at the root */
    bool use_param = cr->param && capacity(g, g->max_depth, cr->param_role, cd, 1) > 0;
    if (use_param && r == R_ROOT)
        use_param = budget >= 8 && below(g, 3) == 0 &&
                    sat_mul(capacity(g, g->max_depth, best, cd, hp), cr->fanout - 1) >= budget;
    if (use_param && r == R_GTAIL) {
        /* half of them; without conflicts the param must hold it all */
        uint64_t pcap = capacity(g, g->max_depth, R_GITEM, cd, 1);
        uint64_t scap = sat_mul(capacity(g, g->max_depth, best, cd, hp), cr->fanout);
        use_param = scap < budget || (below(g, 2) == 0 && (!nc || pcap >= budget));
    }
    if (use_param) {
        kid *k = new_kid(kids, &n, cr->param_role, pick_limit(g, cd));
        if (r == R_ROOT)
            snprintf(k->word, sizeof k->word, "%s",
                     root_param_names[below(g, COUNT(root_param_names))]);
        else
            item_name(parent_word ? parent_word : "item", k->word, sizeof k->word);
        k->cap = capacity(g, k->limit, cr->param_role, cd, 1);
        k->weight = skewed(g) * (r == R_COLL ? 12 : 2);
    }
    size_t nparam = n;
    if (!use_param) add_extras(g, cr, cd, hp, budget, kids, &n);

    if (best_cap > 0 && !(nc && n > 0)) {
        /* static children: as many as the budget needs, a few more for variety */
        uint64_t have = sum_caps(kids, n);
        uint64_t need = have >= budget ? 0 : (budget - have + best_cap - 1) / best_cap;
        uint64_t room = cr->fanout > n ? cr->fanout - n : 0;
        if (room > budget - n) room = budget - n; /* each child takes 1+ routes */
        if (need > room && n > nparam) {
            n = nparam; /* the extras leave too little room: drop them */
            have = sum_caps(kids, n);
            need = have >= budget ? 0 : (budget - have + best_cap - 1) / best_cap;
            room = cr->fanout > n ? cr->fanout - n : 0;
            if (room > budget - n) room = budget - n;
        }
        if (need > room) need = room; /* cover() deepens them instead */
        uint64_t soft = 2 + isqrt(budget) + below(g, 3);
        uint64_t hi = soft < room ? soft : room;
        if (hi < need) hi = need;
        uint64_t lo = need ? need : (n == 0 ? 1 : 0);
        if (g->v2 && lo < hi / 2) lo = hi / 2; /* v2: no few children with huge budgets */
        if (lo > hi) lo = hi;
        uint64_t count = lo + below(g, (uint32_t)(hi - lo + 1));
        for (uint64_t i = 0; i < count && n < g->max_kids; i++) {
            int role = pick_static_role(g, cr, cd, hp, budget / (count + nparam));
            if (role < 0) break;
            kid *k = new_kid(kids, &n, role, pick_limit(g, cd));
            pick_word(g, role, kids, n - 1, k->word, sizeof k->word);
            k->cap = capacity(g, k->limit, role, cd, hp);
            k->weight = skewed(g) * (role == R_COLL || role == R_NS ? 3 : 1);
        }
    }
    if (n == 0 || n > budget || !cover(g, cr, cd, hp, budget, kids, n)) {
        g->rc = RB_ELIMIT; /* the capacity table promised more: a bug */
        return;
    }
    split(g, kids, n, budget);
    for (size_t i = 0; i < n && g->rc == RB_OK; i++)
        place(g, kids[i].role, cd, is_param_role(kids[i].role) ? 1 : hp, kids[i].limit,
              kids[i].budget, kids[i].word);
}

/* The templates shape (generate.h): route `method` of the node at g->path
 * (role r) with its last segment written as a template of form `form`
 * (0-3 for an item, any for a word). */
static void emit_template(gen *g, int r, int method, uint32_t form)
{
    if (g->rc < 0) return;
    size_t start = g->path_len;
    while (g->path[start - 1] != '/') start--;
    const char *seg = g->path + start;
    size_t seglen = g->path_len - start;
    char p[sizeof g->path + 64], extra[48];
    int n;
    if (is_param_role(r)) { /* ":name" */
        const char *name = seg + 1;
        int nl = (int)seglen - 1;
        capture_name(g, form == 1 ? "format" : "rev", extra, sizeof extra);
        switch (form) {
        case 0:
            n = snprintf(p, sizeof p, "%.*s{%.*s}.json", (int)start, g->path, nl, name);
            break;
        case 1:
            n = snprintf(p, sizeof p, "%.*s{%.*s}.{%s}", (int)start, g->path, nl, name, extra);
            break;
        case 2:
            n = snprintf(p, sizeof p, "%.*s%.2s_{%.*s}", (int)start, g->path, name, nl, name);
            break;
        default:
            n = snprintf(p, sizeof p, "%.*s{%.*s}-{%s}", (int)start, g->path, nl, name, extra);
            break;
        }
    } else {
        capture_name(g, "format", extra, sizeof extra);
        n = snprintf(p, sizeof p, "%.*s.{%s}", (int)g->path_len, g->path, extra);
    }
    if (n < 0 || (size_t)n >= sizeof p) {
        g->rc = RB_ELIMIT;
        return;
    }
    g->rc = rb_route_table_append(g->out, method, p, (size_t)n, 0);
}

/* Which of a node's k routes the templates shape writes as templates, and
 * in which form: bit i of the mask for route i; forms[i].  Without
 * conflicts only a childless item, all its routes in one form. */
static uint32_t template_choice(gen *g, int r, uint32_t k, bool leaf, uint32_t *forms)
{
    if (g->cfg->shape != RB_GEN_TEMPLATES) return 0;
    bool word = (1u << r) & STATIC_ROLES;
    if (!word && !is_param_role(r)) return 0;
    uint32_t mask = 0;
    if (g->cfg->no_conflicts) {
        if (!is_param_role(r) || !leaf || rb_rng_below(&g->trng, 2)) return 0;
        uint32_t form = (uint32_t)rb_rng_below(&g->trng, 4);
        for (uint32_t i = 0; i < k; i++) forms[i] = form;
        return (1u << k) - 1u;
    }
    for (uint32_t i = 0; i < k; i++) {
        if (rb_rng_below(&g->trng, 2)) continue;
        mask |= 1u << i;
        forms[i] = (uint32_t)rb_rng_below(&g->trng, 4);
    }
    return mask;
}

/* Methods of a node: the first k of its role's list (GET first); a catch-all
 * node sometimes answers every method ('*') instead.  leaf: the node gets
 * no children. */
static void place_own(gen *g, int r, uint32_t k, bool leaf)
{
    if (r == R_CATCH && k == 1 && below(g, 4) == 0) {
        emit(g, RB_ANY);
        return;
    }
    uint32_t forms[4];
    uint32_t templated = template_choice(g, r, k, leaf, forms);
    for (uint32_t i = 0; i < k; i++) {
        if (templated & (1u << i))
            emit_template(g, r, own_methods[r][i], forms[i]);
        else
            emit(g, own_methods[r][i]);
    }
}

static void place(gen *g, int r, uint32_t d, int hp, uint32_t limit, uint64_t budget,
                  const char *word)
{
    if (g->rc < 0) return;
    size_t saved_len = g->path_len;
    uint32_t saved_names = g->nnames;
    char seg[80];
    switch (r) {
    case R_ROOT:
        break;
    case R_ITEM:
    case R_GITEM:
        capture_name(g, word, g->names[g->nnames], sizeof g->names[0]);
        snprintf(seg, sizeof seg, ":%s", g->names[g->nnames++]);
        if (!path_push(g, seg, strlen(seg))) return;
        break;
    case R_CATCH:
        capture_name(g, catch_names[below(g, COUNT(catch_names))], g->names[g->nnames],
                     sizeof g->names[0]);
        snprintf(seg, sizeof seg, "*%s", g->names[g->nnames++]);
        if (!path_push(g, seg, strlen(seg))) return;
        break;
    case R_GSTAR:
        if (!path_push(g, "**", 2)) return;
        break;
    default:
        if (!path_push(g, word, strlen(word))) return;
        break;
    }

    uint32_t om = r == R_ROOT ? 0 : own_max(g, r, hp);
    uint64_t kids_cap = capacity(g, limit, r, d, hp) - (r == R_GSTAR ? 0 : om);
    uint32_t k_hi = om < budget ? om : (uint32_t)budget;
    uint32_t k_lo = budget > kids_cap ? (uint32_t)(budget - kids_cap) : 0;
    uint32_t k;
    if (r == R_GSTAR)
        k = budget <= om ? (uint32_t)budget : 0; /* a leaf, or no routes (see compute_caps) */
    else if (budget <= om && (kids_cap == 0 || below(g, 5) < 3))
        k = (uint32_t)budget; /* a leaf */
    else if (k_hi == 0)
        k = 0;
    else if (r == R_NS)
        k = below(g, 2); /* an index route, or none */
    else
        k = 1 + below(g, k_hi); /* GET, and maybe more */
    if (k > k_hi) k = k_hi;
    if (k < k_lo) k = k_lo;
    place_own(g, r, k, budget <= k);
    if (budget > k && g->rc == RB_OK) place_children(g, r, d, hp, budget - k, word);

    g->path_len = saved_len;
    g->nnames = saved_names;
}

/* ---- public ------------------------------------------------------------------------ */

static const char *const shape_names[RB_GEN_SHAPE_COUNT] = {"static",   "params", "mixed",
                                                            "catchall", "glob",   "templates"};

int rb_gen_shape_parse(const char *name)
{
    for (int i = 0; i < RB_GEN_SHAPE_COUNT; i++)
        if (strcmp(name, shape_names[i]) == 0) return i;
    return -1;
}

const char *rb_gen_shape_name(int shape)
{
    return shape >= 0 && shape < RB_GEN_SHAPE_COUNT ? shape_names[shape] : "?";
}

uint32_t rb_gen_generator_parse(const char *name)
{
    if (strcmp(name, "v1") == 0) return RB_GEN_V1;
    if (strcmp(name, "v2") == 0) return RB_GEN_V2;
    return 0;
}

uint32_t rb_gen_generator(const rb_gen_config *cfg)
{
    if (cfg->generator == 0) return RB_GEN_DEFAULT;
    return cfg->generator == RB_GEN_V1 || cfg->generator == RB_GEN_V2 ? cfg->generator : 0;
}

int rb_corpus_generate(const rb_gen_config *cfg, rb_route_table *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    gen *g = malloc(sizeof *g);
    if (!g) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    int rc = init(g, cfg, err);
    if (rc == RB_OK && (cfg->routes < 1 || cfg->routes > RB_GEN_MAX_ROUTES))
        rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--routes must be from 1 to %u, got %zu",
                       RB_GEN_MAX_ROUTES, cfg->routes);
    if (rc == RB_OK && g->cap[g->max_depth][R_ROOT][0][0] < cfg->routes)
        rc = rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                       "cannot generate %zu unique routes of shape %s%s: depth %u and fan-out "
                       "%s hold at most %llu",
                       cfg->routes, rb_gen_shape_name(cfg->shape),
                       cfg->no_conflicts ? " without conflicts" : "", g->max_depth,
                       cfg->fanout ? "as given" : "defaults",
                       (unsigned long long)g->cap[g->max_depth][R_ROOT][0][0]);
    if (rc == RB_OK) {
        uint32_t most = 0;
        for (int r = 0; r < R_COUNT; r++)
            if (g->rules[r].fanout > most) most = g->rules[r].fanout;
        g->max_kids = g->v2 ? (size_t)most + 24 : MAX_KIDS; /* + extras (add_extras) */
        g->kid_pool = malloc((g->max_depth + 2) * g->max_kids * sizeof *g->kid_pool);
        if (!g->kid_pool) rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    if (rc == RB_OK) {
        g->out = out;
        rb_rng_seed(&g->rng, cfg->seed);
        rb_rng_seed(&g->trng, cfg->seed ^ UINT64_C(0x74656d706c617465)); /* "template" */
        place(g, R_ROOT, 0, 0, g->max_depth, cfg->routes, NULL);
        rc = g->rc;
        if (rc == RB_ENOMEM)
            rb__error(err, rc, RB_NO_OFFSET, "out of memory generating %zu routes", cfg->routes);
        else if (rc < 0 || out->count != cfg->routes)
            rc = rb__error(err, RB_ELIMIT, RB_NO_OFFSET,
                           "internal error: generated %zu of %zu routes", out->count, cfg->routes);
    }
    free(g->kid_pool);
    free(g);
    if (rc < 0) rb_route_table_free(out);
    return rc;
}
