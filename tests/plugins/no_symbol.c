/*
 * no_symbol.c — a shared library that is not a routebench plugin (it does
 * not export RB_PLUGIN_SYMBOL): loading it must fail with RB_EABI and a
 * message naming the symbol (tests/test_plugins.c).
 */
__attribute__((visibility("default"))) int not_a_router_plugin(void);

int not_a_router_plugin(void)
{
    return 42;
}
