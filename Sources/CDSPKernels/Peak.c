// The vad's pitch-lag search: the largest autocorrelation value over a few hundred lags.
// Swift's SIMD8 pointwiseMax was a call per eight lags (not inlined), 6 % of the vad's time.
#include "CDSPKernels.h"
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

float ag_peak(const float *x, int64_t n) {
    float peak = 0;
    int64_t i = 0;
#if defined(__SSE__)
    __m128 a = _mm_setzero_ps(), b = _mm_setzero_ps();
    for (; i + 8 <= n; i += 8) {
        a = _mm_max_ps(a, _mm_loadu_ps(x + i));
        b = _mm_max_ps(b, _mm_loadu_ps(x + i + 4));
    }
    a = _mm_max_ps(a, b);
    a = _mm_max_ps(a, _mm_movehl_ps(a, a));
    a = _mm_max_ss(a, _mm_shuffle_ps(a, a, 1));
    peak = _mm_cvtss_f32(a);
#endif
    for (; i < n; i++) peak = x[i] > peak ? x[i] : peak;
    return peak;
}
