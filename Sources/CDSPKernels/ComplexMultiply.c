// The FFT low-pass's product spectrum: Swift kept one complex number per instruction (its
// SIMD2 in the low half of a register, with shuffles around it), 13 % of a conversion.
#include "CDSPKernels.h"
#if defined(__SSE2__)
#include <emmintrin.h>

// (a.re, a.im, a'.re, a'.im) · (b, b'): re = a.re·b.re + (−(a.im·b.im)), im = a.re·b.im + a.im·b.re;
// a + (−c) is a − c exactly, and the sums are in the scalar expression's order.
static inline __m128 multiply2(__m128 a, __m128 b) {
    const __m128 negateReal = _mm_castsi128_ps(_mm_set_epi32(0, (int)0x80000000, 0, (int)0x80000000));
    __m128 re = _mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 2, 0, 0));
    __m128 im = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 3, 1, 1));
    __m128 swapped = _mm_shuffle_ps(b, b, _MM_SHUFFLE(2, 3, 0, 1));
    return _mm_add_ps(_mm_mul_ps(re, b), _mm_xor_ps(_mm_mul_ps(im, swapped), negateReal));
}
#endif

static inline void multiply1(const float *a, float br, float bi, float *out) {
    float re = a[0] * br - a[1] * bi, im = a[0] * bi + a[1] * br;
    out[0] = re;
    out[1] = im;
}

void ag_complex_multiply(const float *s, const float *h, float *p, int64_t n) {
    int64_t k = 0;
#if defined(__SSE2__)
    for (; k + 2 <= n; k += 2)
        _mm_storeu_ps(p + 2 * k, multiply2(_mm_loadu_ps(s + 2 * k), _mm_loadu_ps(h + 2 * k)));
#endif
    for (; k < n; k++) multiply1(s + 2 * k, h[2 * k], h[2 * k + 1], p + 2 * k);
}

void ag_complex_multiply_conjugate_reversed(const float *sTop, const float *h, float *pTop, int64_t n) {
    int64_t k = 1;
#if defined(__SSE2__)
    const __m128 conjugate = _mm_castsi128_ps(_mm_set_epi32((int)0x80000000, 0, (int)0x80000000, 0));
    for (; k + 2 <= n; k += 2) {
        // sTop[-(k+1)], sTop[-k] are adjacent upwards; h[k], h[k+1] swapped to match.
        __m128 s = _mm_loadu_ps(sTop - 2 * (k + 1));
        __m128 hk = _mm_loadu_ps(h + 2 * k);
        __m128 b = _mm_xor_ps(_mm_shuffle_ps(hk, hk, _MM_SHUFFLE(1, 0, 3, 2)), conjugate);
        _mm_storeu_ps(pTop - 2 * (k + 1), multiply2(s, b));
    }
#endif
    for (; k < n; k++) multiply1(sTop - 2 * k, h[2 * k], -h[2 * k + 1], pTop - 2 * k);
}
