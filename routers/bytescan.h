/*
 * bytescan.h — the byte-parallel primitive of the hashed routers
 * (internal): where the slashes are in 16 bytes of a path, and whether
 * two paths hold the same bytes in four 16-byte blocks.
 *
 * It exists twice, with one contract: an SSE2 version (SSE2 is part of
 * every x86-64 CPU, so the default build uses it there) and a portable one
 * on 64-bit words (SWAR), which every other target uses and which a build
 * with -DRB_PORTABLE=ON (CMake option RB_PORTABLE) selects everywhere.
 * tests/test_bytescan.c checks that the two agree on every input class, and
 * runs the hashseg conformance suite on a copy of hashseg compiled with the
 * portable version, so both paths are tested by every build on x86-64.
 *
 * Nothing here reads outside the 16-byte blocks it is given.
 */
#ifndef RB_BYTESCAN_H
#define RB_BYTESCAN_H

#include <stdint.h>
#include <string.h>

/* The SSE2 version is compiled wherever SSE2 exists (test_bytescan checks
 * it in either build); RB_PORTABLE only changes which one rb__slash16 is. */
#if defined(__SSE2__)
#include <emmintrin.h>
#if !defined(RB_PORTABLE)
#define RB__BYTESCAN_SSE2 1
#endif
#endif

static inline uint64_t rb__load64le(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                                    \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* 0x80 in every byte of w that is zero, 0 elsewhere (exact: no borrow
 * crosses a byte). */
static inline uint64_t rb__zero_bytes(uint64_t w)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    return ~(((w & lo7) + lo7) | w | lo7);
}

/* Bit i set where byte i of w is 0x80 (w holds only 0x80 or 0 bytes). */
static inline uint32_t rb__gather_top_bits(uint64_t w)
{
    return (uint32_t)(((w >> 7) * 0x0102040810204080ull) >> 56);
}

/* Bit i set when p[i] == '/', i < 16: the portable version. */
static inline uint32_t rb__slash16_swar(const unsigned char *p)
{
    const uint64_t slash = 0x2f2f2f2f2f2f2f2full;
    return rb__gather_top_bits(rb__zero_bytes(rb__load64le(p) ^ slash)) |
           rb__gather_top_bits(rb__zero_bytes(rb__load64le(p + 8) ^ slash)) << 8;
}

#if defined(__SSE2__)
/* The same with SSE2: one compare, one movemask. */
static inline uint32_t rb__slash16_sse2(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
}
#endif

/* Bit i set when p[i] == '/', i < 16: the one the routers call. */
static inline uint32_t rb__slash16(const unsigned char *p)
{
#ifdef RB__BYTESCAN_SSE2
    return rb__slash16_sse2(p);
#else
    return rb__slash16_swar(p);
#endif
}

/* 1 when a and b hold the same 16 bytes at each of the four offsets at[]
 * (blocks may overlap), else 0: the portable version. */
static inline int rb__equal16x4_swar(const unsigned char *a, const unsigned char *b,
                                     const size_t at[4])
{
    uint64_t d = 0;
    for (unsigned k = 0; k < 4; k++)
        d |= (rb__load64le(a + at[k]) ^ rb__load64le(b + at[k])) |
             (rb__load64le(a + at[k] + 8) ^ rb__load64le(b + at[k] + 8));
    return d == 0;
}

#if defined(__SSE2__)
/* The same with SSE2: a compare a block, one movemask. */
static inline int rb__equal16x4_sse2(const unsigned char *a, const unsigned char *b,
                                     const size_t at[4])
{
    __m128i eq = _mm_set1_epi8(-1);
    for (unsigned k = 0; k < 4; k++)
        eq = _mm_and_si128(
            eq, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + at[k])),
                               _mm_loadu_si128((const __m128i *)(const void *)(b + at[k]))));
    return _mm_movemask_epi8(eq) == 0xffff;
}
#endif

/* The one the routers call. */
static inline int rb__equal16x4(const unsigned char *a, const unsigned char *b, const size_t at[4])
{
#ifdef RB__BYTESCAN_SSE2
    return rb__equal16x4_sse2(a, b, at);
#else
    return rb__equal16x4_swar(a, b, at);
#endif
}

#endif
