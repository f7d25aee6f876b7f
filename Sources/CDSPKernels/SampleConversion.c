// 16-bit PCM to float for the WAV reader: Swift's loop over interleaved stereo stays scalar
// (one conversion per sample); SSE2 splits and converts eight frames per iteration.
#include "CDSPKernels.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void ag_s16_deinterleave(const int16_t *src, int64_t channels, float *left, float *right, int64_t frames) {
    const float k = 1.0f / 32768.0f;
    int64_t i = 0;
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const __m128 scale = _mm_set1_ps(k);
    if (channels == 2) {
        for (; i + 8 <= frames; i += 8) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + 2 * i));      // frames i..i+3
            __m128i b = _mm_loadu_si128((const __m128i *)(src + 2 * i + 8));  // frames i+4..i+7
            // Each 32-bit lane holds one frame: left in its low half, right in its high half.
            __m128i la = _mm_srai_epi32(_mm_slli_epi32(a, 16), 16), lb = _mm_srai_epi32(_mm_slli_epi32(b, 16), 16);
            __m128i ra = _mm_srai_epi32(a, 16), rb = _mm_srai_epi32(b, 16);
            _mm_storeu_ps(left + i, _mm_mul_ps(_mm_cvtepi32_ps(la), scale));
            _mm_storeu_ps(left + i + 4, _mm_mul_ps(_mm_cvtepi32_ps(lb), scale));
            _mm_storeu_ps(right + i, _mm_mul_ps(_mm_cvtepi32_ps(ra), scale));
            _mm_storeu_ps(right + i + 4, _mm_mul_ps(_mm_cvtepi32_ps(rb), scale));
        }
    } else {
        for (; i + 8 <= frames; i += 8) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
            // Sign-extend by putting each sample in a lane's high half, then shifting down.
            __m128i lo = _mm_srai_epi32(_mm_unpacklo_epi16(a, a), 16), hi = _mm_srai_epi32(_mm_unpackhi_epi16(a, a), 16);
            _mm_storeu_ps(left + i, _mm_mul_ps(_mm_cvtepi32_ps(lo), scale));
            _mm_storeu_ps(left + i + 4, _mm_mul_ps(_mm_cvtepi32_ps(hi), scale));
        }
    }
#endif
    if (channels == 2) {
        for (; i < frames; i++) {
            left[i] = (float)src[2 * i] * k;
            right[i] = (float)src[2 * i + 1] * k;
        }
    } else {
        for (; i < frames; i++) left[i] = (float)src[i] * k;
    }
}
