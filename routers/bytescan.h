/*
 * bytescan.h — byte-parallel primitives of the hashed routers (internal):
 * finding the slashes in 16 path bytes, and matching a tag against 16
 * control bytes of an open-addressing table.
 *
 * Each primitive exists twice, with the same contract: an SSE2 version
 * (SSE2 is part of every x86-64 CPU, so the default build uses it there)
 * and a portable one on 64-bit words (SWAR), which every other target uses
 * and which a build with -DRB_PORTABLE=ON selects everywhere.  tests/
 * test_bytescan.c checks that the two agree on every input class, and
 * test_portable runs the router conformance suite on the portable build of
 * hashseg, so both paths are tested on the machine that builds them.
 *
 * Control bytes (the tag groups of hashseg's tables): 0 marks an empty
 * slot, a used slot holds 0x80 | seven bits of its key, so "empty" is a
 * clear top bit.  Masks have bit i for byte i of the 16.
 *
 * Nothing here reads outside the 16 bytes it is given.
 */
#ifndef RB_BYTESCAN_H
#define RB_BYTESCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(RB_PORTABLE)
#define RB__BYTESCAN_SSE2 1
#include <emmintrin.h>
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

/* 0x80 in every byte of w that is zero, 0 elsewhere (exact: no borrows). */
static inline uint64_t rb__zero_bytes(uint64_t w)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    return ~(((w & lo7) + lo7) | w | lo7);
}

/* Bit i set where byte i of w has its top bit set (a 0x80-per-byte mask
 * gathered into 8 bits). */
static inline uint32_t rb__gather_top_bits(uint64_t w)
{
    return (uint32_t)((((w >> 7) & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56);
}

/* ---- portable versions ---------------------------------------------------- */

static inline uint32_t rb__slash16_swar(const unsigned char *p)
{
    const uint64_t slash = 0x2f2f2f2f2f2f2f2full;
    return rb__gather_top_bits(rb__zero_bytes(rb__load64le(p) ^ slash)) |
           rb__gather_top_bits(rb__zero_bytes(rb__load64le(p + 8) ^ slash)) << 8;
}

static inline uint32_t rb__group_match_swar(const uint8_t *ctrl, uint8_t tag)
{
    uint64_t t = 0x0101010101010101ull * tag;
    return rb__gather_top_bits(rb__zero_bytes(rb__load64le(ctrl) ^ t)) |
           rb__gather_top_bits(rb__zero_bytes(rb__load64le(ctrl + 8) ^ t)) << 8;
}

static inline uint32_t rb__group_empty_swar(const uint8_t *ctrl)
{
    return (rb__gather_top_bits(rb__load64le(ctrl)) | rb__gather_top_bits(rb__load64le(ctrl + 8))
                                                          << 8) ^
           0xffffu;
}

static inline uint32_t rb__tag_match8_swar(const uint32_t *tags, uint32_t tag)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < 8; i++) m |= (uint32_t)(tags[i] == tag) << i;
    return m;
}

/* ---- SSE2 versions --------------------------------------------------------- */

#if defined(__SSE2__)
static inline uint32_t rb__slash16_sse2(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('/')));
}

static inline uint32_t rb__group_match_sse2(const uint8_t *ctrl, uint8_t tag)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)ctrl);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)tag)));
}

static inline uint32_t rb__group_empty_sse2(const uint8_t *ctrl)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)ctrl);
    return (uint32_t)_mm_movemask_epi8(v) ^ 0xffffu;
}

static inline uint32_t rb__tag_match8_sse2(const uint32_t *tags, uint32_t tag)
{
    __m128i t = _mm_set1_epi32((int)tag);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)tags);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(tags + 4));
    return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, t))) |
           (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(b, t))) << 4;
}
#endif

/* ---- the ones the routers call --------------------------------------------- */

/* Bit i set when p[i] == '/', i < 16. */
static inline uint32_t rb__slash16(const unsigned char *p)
{
#ifdef RB__BYTESCAN_SSE2
    return rb__slash16_sse2(p);
#else
    return rb__slash16_swar(p);
#endif
}

/* Bit i set when ctrl[i] == tag (tag has its top bit set), i < 16. */
static inline uint32_t rb__group_match(const uint8_t *ctrl, uint8_t tag)
{
#ifdef RB__BYTESCAN_SSE2
    return rb__group_match_sse2(ctrl, tag);
#else
    return rb__group_match_swar(ctrl, tag);
#endif
}

/* Bit i set when tags[i] == tag, i < 8. */
static inline uint32_t rb__tag_match8(const uint32_t *tags, uint32_t tag)
{
#ifdef RB__BYTESCAN_SSE2
    return rb__tag_match8_sse2(tags, tag);
#else
    return rb__tag_match8_swar(tags, tag);
#endif
}

/* Bit i set when ctrl[i] is an empty slot (top bit clear), i < 16. */
static inline uint32_t rb__group_empty(const uint8_t *ctrl)
{
#ifdef RB__BYTESCAN_SSE2
    return rb__group_empty_sse2(ctrl);
#else
    return rb__group_empty_swar(ctrl);
#endif
}

#endif
