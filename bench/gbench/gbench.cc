// gbench.cc — routebench-gbench: the routebench scenarios and routers as
// google-benchmark benchmarks, for users whose tooling already reads its
// output (--benchmark_format=json, --benchmark_out=FILE, compare.py).
//
// One benchmark per (scenario, router that supports the scenario's routes),
// named "SCENARIO/ROUTER".  One iteration is one lookup: the request table is
// replayed in order, wrapping around, so "Time" is nanoseconds per lookup and
// items_per_second is lookups per second.  Every answer is folded into a
// checksum (benchmark::DoNotOptimize) so no lookup is optimised away, and the
// router is called through its ops table, as `routebench run` does.
//
// What this adapter does NOT give you, and `routebench run` does: paired
// trials in rotating order, ratios with bootstrap intervals, the bundle.
// google-benchmark runs each benchmark to completion before the next, so a
// slow spell of the machine lands on whichever router was running.  Use
// --benchmark_repetitions and --benchmark_enable_random_interleaving for some
// of that, and read `routebench pair` for a comparison you can trust.
//
// Options (besides every --benchmark_* option of google-benchmark): see
// usage() below; --help prints them first, then google-benchmark's.
#include "router_kit.h"

// bench/ and corpus/ headers are C without extern "C" guards.
extern "C" {
#include "harness.h"
#include "options.h"
#include "plugins.h"
#include "scenario.h"
#include "table.h"
}

#include <benchmark/benchmark.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace
{

struct Subject {
    std::string scenario;
    rb_router *router = nullptr;
    const rb_scenario *tables = nullptr;
    std::vector<rb_bench_query> queries;
    ~Subject()
    {
        rb_router_destroy(router);
    }
};

struct Scenario {
    rb_scenario s{};
    bool loaded = false;
    ~Scenario()
    {
        if (loaded) rb_scenario_free(&s);
    }
};

void run_lookups(benchmark::State &state, const Subject *sub)
{
    const rb_router_ops *ops = rb__router_ops(sub->router);
    const void *impl = rb__router_impl(sub->router);
    const rb_bench_query *q = sub->queries.data();
    const size_t n = sub->queries.size();
    size_t i = 0;
    uint64_t sum = 0;
    rb_match m;
    for (auto _ : state) {
        ops->lookup(impl, q[i].method, q[i].path, q[i].len, &m);
        sum += rb_bench_fold(&m);
        benchmark::DoNotOptimize(sum);
        if (++i == n) i = 0;
    }
    state.SetItemsProcessed(state.iterations());
    state.counters["routes"] = static_cast<double>(sub->tables->routes.count);
    state.counters["bytes_per_route"] = static_cast<double>(rb_router_memory(sub->router)) /
                                        static_cast<double>(sub->tables->routes.count);
    char label[96];
    std::snprintf(label, sizeof label, "routes %016" PRIx64 " requests %016" PRIx64,
                  sub->tables->routes_fp, sub->tables->requests_fp);
    state.SetLabel(label);
}

bool in_list(const char *list, const char *name)
{
    if (!list) return true;
    size_t n = std::strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = std::strchr(p, ',');
        size_t len = comma ? static_cast<size_t>(comma - p) : std::strlen(p);
        if (len == n && std::strncmp(p, name, n) == 0) return true;
        if (!comma) break;
        p = comma + 1;
    }
    return false;
}

const char *option(int *i, int argc, char **argv, const char *name)
{
    size_t n = std::strlen(name);
    if (std::strncmp(argv[*i], name, n) != 0) return nullptr;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc) return argv[++*i];
    return nullptr;
}

void usage()
{
    std::printf(
        "usage: routebench-gbench [--scenarios LIST] [--routers a,b] [--seed S]\n"
        "                         [--router-lib LIB ...] [--benchmark_* options]\n"
        "\n"
        "The routebench scenarios and routers as google-benchmark benchmarks: one per\n"
        "SCENARIO/ROUTER, one iteration is one lookup (in-process lookups, not HTTP\n"
        "requests per second).  For paired trials and ratios with intervals use\n"
        "`routebench pair`.\n"
        "\n"
        "routebench-gbench options:\n"
        "  --scenarios LIST      as routebench run --scenarios (default: the default suite)\n"
        "  --routers a,b         routers to register (default: every registered router and\n"
        "                        every --router-lib router; NAME@LIB for a plugin's)\n"
        "  --seed S              corpus generator seed, 0..2^53-1 (default 42)\n"
        "  --router-lib LIB      load a plugin library of routers (repeatable)\n"
        "  -h, --help            this help, then google-benchmark's\n"
        "\n"
        "Note: Debian's libbenchmark is built without NDEBUG, so google-benchmark prints\n"
        "\"***WARNING*** Library was built as DEBUG. Timings may be affected.\"  That is\n"
        "about google-benchmark's own library: routebench's routers and timed loop are\n"
        "compiled with this build's flags (routebench --version shows them).\n"
        "\n"
        "google-benchmark options:\n");
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
            usage();
            char help[] = "--help";
            char *args[] = {argv[0], help, nullptr};
            int n = 2;
            benchmark::Initialize(&n, args); // prints google-benchmark's options and exits
            return 0;
        }
    benchmark::Initialize(&argc, argv);
    const char *scenarios = "default", *routers = nullptr;
    uint64_t seed = RB_SCENARIO_DEFAULT_SEED;
    rb_plugins plugins;
    rb_plugins_init(&plugins);
    rb_error err;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = option(&i, argc, argv, "--scenarios")) != nullptr) {
            scenarios = v;
        } else if ((v = option(&i, argc, argv, "--routers")) != nullptr) {
            routers = v;
        } else if ((v = option(&i, argc, argv, "--seed")) != nullptr) {
            unsigned long long u;
            if (cli_parse_u64("--seed", v, 0, CLI_SEED_MAX, &u, &err) < 0) {
                std::fprintf(stderr, "routebench-gbench: %s\n", err.message);
                return 2;
            }
            seed = u;
        } else if ((v = option(&i, argc, argv, "--router-lib")) != nullptr) {
            if (rb_plugins_load(&plugins, v, &err) < 0) {
                std::fprintf(stderr, "routebench-gbench: --router-lib %s: %s\n", v, err.message);
                return 2;
            }
        } else {
            std::fprintf(stderr,
                         "routebench-gbench: unknown argument '%s' (routebench-gbench --help)\n",
                         argv[i]);
            return 2;
        }
    }
    rb_scenario_list list{};
    if (rb_scenario_list_parse(&list, scenarios, &err) < 0) {
        std::fprintf(stderr, "routebench-gbench: %s\n", err.message);
        return 2;
    }
    std::vector<std::unique_ptr<Scenario>> loaded;
    std::vector<std::unique_ptr<Subject>> subjects;
    for (size_t k = 0; k < list.n; k++) {
        auto sc = std::make_unique<Scenario>();
        std::fprintf(stderr, "routebench-gbench: loading %s\n", list.v[k].name);
        if (rb_scenario_load(&list.v[k], seed, &sc->s, &err) < 0) {
            std::fprintf(stderr, "routebench-gbench: %s: %s\n", list.v[k].name, err.message);
            rb_scenario_list_free(&list);
            return 2;
        }
        sc->loaded = true;
        size_t nbuiltin = rb_registry_count(), nall = nbuiltin + rb_plugins_count(&plugins);
        for (size_t r = 0; r < nall; r++) {
            const rb_router_ops *ops =
                r < nbuiltin ? rb_registry_at(r) : rb_plugins_ops(&plugins, r - nbuiltin);
            std::string label = rb_ops_name(ops);
            if (r >= nbuiltin) label += std::string("@") + rb_plugins_lib(&plugins, r - nbuiltin);
            if (!in_list(routers, label.c_str())) continue;
            if (sc->s.features & ~rb_ops_features(ops)) continue;
            auto sub = std::make_unique<Subject>();
            sub->scenario = list.v[k].name;
            sub->tables = &sc->s;
            if (rb_route_table_build_router(&sc->s.routes, list.v[k].name, ops, nullptr,
                                            &sub->router, &err) < 0) {
                std::fprintf(stderr, "routebench-gbench: %s/%s: %s\n", list.v[k].name,
                             label.c_str(), err.message);
                rb_scenario_list_free(&list);
                return 2;
            }
            const rb_request_table *q = &sc->s.requests;
            for (size_t i = 0; i < q->count; i++)
                sub->queries.push_back({rb_request_path(q, i), q->reqs[i].len, q->reqs[i].method});
            std::string name = sub->scenario + "/" + label;
            benchmark::RegisterBenchmark(name.c_str(), run_lookups, sub.get());
            subjects.push_back(std::move(sub));
        }
        loaded.push_back(std::move(sc));
    }
    rb_scenario_list_free(&list);
    benchmark::AddCustomContext("routebench", "in-process lookups, not HTTP requests per second");
    benchmark::AddCustomContext("routebench_seed", std::to_string(seed));
    benchmark::AddCustomContext("routebench_note",
                                "a 'Library was built as DEBUG' warning below is about Debian's "
                                "libbenchmark, not routebench's code (routebench --version)");
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    subjects.clear();
    loaded.clear();
    rb_plugins_close(&plugins);
    return 0;
}
