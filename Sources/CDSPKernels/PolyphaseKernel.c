// The resampler's inner loop, with an AVX2+FMA version chosen at run time: Swift cannot
// target a CPU feature per function, and the generic x86-64 baseline (SSE2, no FMA) runs
// this loop at about a third of the speed.
#include "CDSPKernels.h"
#include <immintrin.h>

typedef void (*kernel_fn)(const float *, int64_t, int64_t, int64_t, const float *, int64_t, int64_t, int64_t, float *);

// Output k reads input i = (first + k) * down / up with phase p, the remainder; both are
// stepped, not divided for, per output (a 64-bit division costs as much as a short dot).
#define POLYPHASE_LOOP(DOT)                                                   \
    {                                                                         \
        int64_t i = first * down / up;                                        \
        int64_t p = first * down - i * up;                                    \
        for (int64_t k = 0; k < count; k++) {                                 \
            const float *c = coefficients + p * taps;                         \
            const float *x = history + (i - taps / 2 + 1 - base);             \
            out[k] = DOT(c, x, taps);                                         \
            p += down;                                                        \
            while (p >= up) { p -= up; i++; }                                 \
        }                                                                     \
    }

__attribute__((target("avx2,fma")))
__attribute__((always_inline)) static inline float dot_avx2(const float *a, const float *b, int64_t n) {
    // Four independent accumulators hide the FMA latency (4 cycles, 2 per cycle issued).
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 32 <= n; k += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(b + k), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 8), _mm256_loadu_ps(b + k + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 16), _mm256_loadu_ps(b + k + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k + 24), _mm256_loadu_ps(b + k + 24), s3);
    }
    for (; k + 8 <= n; k += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(b + k), s0);
    s0 = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

static inline float hsum256(__m256 v) __attribute__((target("avx2,fma")));
static inline float hsum256(__m256 v) {
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

// Integer decimation (up == 1): every output uses the same coefficients, so eight outputs
// share each coefficient load and keep eight independent FMA chains in flight.
__attribute__((target("avx2,fma")))
static int64_t run_avx2_decimate8(const float *c, int64_t taps, int64_t down, const float *x0, int64_t count,
                                  float *out) {
    int64_t k = 0;
    for (; k + 8 <= count; k += 8) {
        const float *x = x0 + k * down;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
        __m256 a4 = _mm256_setzero_ps(), a5 = _mm256_setzero_ps(), a6 = _mm256_setzero_ps(), a7 = _mm256_setzero_ps();
        for (int64_t t = 0; t < taps; t += 8) {
            __m256 w = _mm256_loadu_ps(c + t);
            a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + t), a0);
            a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + down + t), a1);
            a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + 2 * down + t), a2);
            a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + 3 * down + t), a3);
            a4 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + 4 * down + t), a4);
            a5 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + 5 * down + t), a5);
            a6 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + 6 * down + t), a6);
            a7 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + 7 * down + t), a7);
        }
        out[k] = hsum256(a0); out[k + 1] = hsum256(a1); out[k + 2] = hsum256(a2); out[k + 3] = hsum256(a3);
        out[k + 4] = hsum256(a4); out[k + 5] = hsum256(a5); out[k + 6] = hsum256(a6); out[k + 7] = hsum256(a7);
    }
    return k;
}

// One output with the same summation order as run_avx2_decimate8 (one 8-lane accumulator,
// then hsum256), so an output's value does not depend on whether it was computed in a
// group of eight or alone: the resampler's output is bit-identical whatever the blocks.
__attribute__((target("avx2,fma")))
__attribute__((always_inline)) static inline float dot1_avx2(const float *a, const float *b, int64_t n) {
    __m256 s = _mm256_setzero_ps();
    for (int64_t k = 0; k < n; k += 8) s = _mm256_fmadd_ps(_mm256_loadu_ps(a + k), _mm256_loadu_ps(b + k), s);
    return hsum256(s);
}

__attribute__((target("avx2,fma")))
static void run_avx2(const float *coefficients, int64_t taps, int64_t up, int64_t down, const float *history,
                     int64_t base, int64_t first, int64_t count, float *out) {
    if (up == 1) {
        const float *x0 = history + (first * down - taps / 2 + 1 - base);
        int64_t done = run_avx2_decimate8(coefficients, taps, down, x0, count, out);
        first += done;
        count -= done;
        out += done;
        POLYPHASE_LOOP(dot1_avx2)
        return;
    }
    POLYPHASE_LOOP(dot_avx2)
}

static inline float dot_sse(const float *a, const float *b, int64_t n) {
    __m128 s0 = _mm_setzero_ps(), s1 = _mm_setzero_ps();
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
        s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + k), _mm_loadu_ps(b + k)));
        s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(a + k + 4), _mm_loadu_ps(b + k + 4)));
    }
    s0 = _mm_add_ps(s0, s1);
    s0 = _mm_add_ps(s0, _mm_movehl_ps(s0, s0));
    s0 = _mm_add_ss(s0, _mm_shuffle_ps(s0, s0, 1));
    return _mm_cvtss_f32(s0);
}

static void run_sse(const float *coefficients, int64_t taps, int64_t up, int64_t down, const float *history,
                    int64_t base, int64_t first, int64_t count, float *out) {
    POLYPHASE_LOOP(dot_sse)
}

__attribute__((target("avx2,fma")))
__attribute__((always_inline)) static inline float dot_precise_avx2(const float *a, const float *b, int64_t n) {
    // Four double accumulators, 16 taps a step: the FMA latency is hidden without relying
    // on the compiler's unrolling (the package builds at SwiftPM's -O2, no unsafe flags).
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(), s2 = _mm256_setzero_pd(), s3 = _mm256_setzero_pd();
    int64_t k = 0;
    for (; k + 16 <= n; k += 16) {
        __m256 w = _mm256_loadu_ps(a + k), v = _mm256_loadu_ps(b + k);
        __m256 w2 = _mm256_loadu_ps(a + k + 8), v2 = _mm256_loadu_ps(b + k + 8);
        s0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(w)), _mm256_cvtps_pd(_mm256_castps256_ps128(v)), s0);
        s1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(w, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), s1);
        s2 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(w2)), _mm256_cvtps_pd(_mm256_castps256_ps128(v2)), s2);
        s3 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(w2, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(v2, 1)), s3);
    }
    for (; k < n; k += 8) {
        __m256 w = _mm256_loadu_ps(a + k), v = _mm256_loadu_ps(b + k);
        s0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(w)), _mm256_cvtps_pd(_mm256_castps256_ps128(v)), s0);
        s1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(w, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), s1);
    }
    s0 = _mm256_add_pd(_mm256_add_pd(s0, s2), _mm256_add_pd(s1, s3));
    __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s0), _mm256_extractf128_pd(s0, 1));
    h = _mm_add_sd(h, _mm_unpackhi_pd(h, h));
    return (float)_mm_cvtsd_f64(h);
}

__attribute__((target("avx2,fma")))
static void run_precise_avx2(const float *coefficients, int64_t taps, int64_t up, int64_t down, const float *history,
                             int64_t base, int64_t first, int64_t count, float *out) {
    POLYPHASE_LOOP(dot_precise_avx2)
}

static inline float dot_precise(const float *a, const float *b, int64_t n) {
    double s = 0;
    for (int64_t k = 0; k < n; k++) s += (double)a[k] * (double)b[k];
    return (float)s;
}

static void run_precise(const float *coefficients, int64_t taps, int64_t up, int64_t down, const float *history,
                        int64_t base, int64_t first, int64_t count, float *out) {
    POLYPHASE_LOOP(dot_precise)
}

static int has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

void ag_polyphase_run(const float *coefficients, int64_t taps, int64_t up, int64_t down, const float *history,
                      int64_t base, int64_t first, int64_t count, float *out) {
    static kernel_fn kernel;  // chosen once; a benign race writes the same value
    if (!kernel) kernel = has_avx2() ? run_avx2 : run_sse;
    kernel(coefficients, taps, up, down, history, base, first, count, out);
}

void ag_polyphase_run_precise(const float *coefficients, int64_t taps, int64_t up, int64_t down,
                              const float *history, int64_t base, int64_t first, int64_t count, float *out) {
    static kernel_fn kernel;
    if (!kernel) kernel = has_avx2() ? run_precise_avx2 : run_precise;
    kernel(coefficients, taps, up, down, history, base, first, count, out);
}

const char *ag_polyphase_kernel(void) { return has_avx2() ? "avx2-fma" : "sse"; }
