/*
 * test_bytescan.c — the byte scans of bytescan.h: the SSE2 and the portable
 * (SWAR) versions of rb__slash16 give the answer of a byte-by-byte loop on
 * every input class that could trip either (every placement of slashes,
 * every byte value next to a slash, the bytes one off '/', random blocks),
 * and the one the routers call is one of them; rb__equal16x4's two
 * versions agree with memcmp.  The hashseg suite runs on a
 * portable build too (test_hashseg_portable).
 */
#include "bytescan.h"
#include "rng.h"

#include <criterion/criterion.h>
#include <string.h>

static uint32_t slash16_naive(const unsigned char *p)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < 16; i++) m |= (uint32_t)(p[i] == '/') << i;
    return m;
}

static void expect_all_agree(const unsigned char *p)
{
    uint32_t want = slash16_naive(p);
    cr_assert_eq(rb__slash16_swar(p), want, "swar on %.16s", (const char *)p);
#if defined(__SSE2__)
    cr_assert_eq(rb__slash16_sse2(p), want, "sse2 on %.16s", (const char *)p);
#endif
    cr_assert_eq(rb__slash16(p), want);
}

Test(bytescan, every_placement_of_slashes)
{
    unsigned char b[16];
    for (uint32_t bits = 0; bits < 0x10000u; bits++) {
        for (unsigned i = 0; i < 16; i++) b[i] = (bits >> i) & 1u ? '/' : (i & 1u ? '.' : '0');
        expect_all_agree(b);
    }
}

/* Bytes one off '/' ('.' and '0'), and '/' with its top bit set, next to
 * slashes: the cases a borrowing SWAR test gets wrong. */
Test(bytescan, every_byte_next_to_a_slash)
{
    unsigned char b[16];
    for (unsigned v = 0; v < 256; v++) {
        for (unsigned at = 0; at < 16; at++) {
            for (unsigned fill = 0; fill < 4; fill++) {
                static const unsigned char fills[] = {'/', '.', 0x00, 0xaf};
                memset(b, fills[fill], sizeof b);
                b[at] = (unsigned char)v;
                expect_all_agree(b);
                if (at + 1 < 16) b[at + 1] = '/';
                expect_all_agree(b);
            }
        }
    }
}

Test(bytescan, random_blocks)
{
    uint64_t s = 0x5eedu;
    unsigned char b[16];
    for (int n = 0; n < 200000; n++) {
        for (unsigned i = 0; i < 16; i++) {
            uint64_t x = rb_splitmix64(&s);
            /* half the bytes from a small alphabet around '/' */
            b[i] = (unsigned char)(x & 1u ? 0x2d + (x >> 8) % 4 : x >> 16);
        }
        expect_all_agree(b);
    }
}

/* rb__equal16x4, both versions, against memcmp: every length a whole
 * path takes it for (16 to 64, the blocks placed as hashseg's path_equal
 * places them), equal and with one byte changed at every position, so a
 * byte no block covers would be found. */
static void expect_equal16x4(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t m = n >= 32 ? 16 : 0;
    const size_t at[4] = {0, m, n - 16 - m, n - 16};
    int want = memcmp(a, b, n) == 0;
    cr_assert_eq(rb__equal16x4_swar(a, b, at), want, "swar, length %zu", n);
#if defined(__SSE2__)
    cr_assert_eq(rb__equal16x4_sse2(a, b, at), want, "sse2, length %zu", n);
#endif
    cr_assert_eq(rb__equal16x4(a, b, at), want);
}

Test(bytescan, equal16x4_finds_a_change_at_every_byte)
{
    uint64_t s = 0xb10c5u;
    unsigned char a[64], b[64];
    for (size_t n = 16; n <= 64; n++) {
        for (size_t i = 0; i < n; i++) a[i] = (unsigned char)rb_splitmix64(&s);
        memcpy(b, a, n);
        expect_equal16x4(a, b, n);
        for (size_t i = 0; i < n; i++) {
            b[i] ^= (unsigned char)(1u << (i % 8));
            expect_equal16x4(a, b, n);
            b[i] = a[i];
        }
    }
}

/* Regression 111: with RB_PORTABLE defined (-DRB_PORTABLE=ON) on an SSE2
 * machine, bytescan.h compiled the SSE2 scan without its header, so every
 * file that includes it failed to build (this test's portable copy,
 * test_bytescan_portable, is that build).  The portable build must also
 * call the portable scan. */
Test(bytescan, regression_111_a_portable_build_compiles_and_calls_the_portable_scan)
{
#if defined(RB_PORTABLE) && defined(RB__BYTESCAN_SSE2)
    cr_assert_fail("RB_PORTABLE build selected the SSE2 scan");
#endif
    unsigned char b[16];
    memcpy(b, "/a//b/c.d/e/f/g/", 16);
    cr_expect_eq(rb__slash16(b), slash16_naive(b));
}
