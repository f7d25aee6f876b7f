#pragma once
#include <stdint.h>

/// Runs a rational polyphase FIR for `count` outputs.
///
/// Output k (0 <= k < count) is at input position (first + k) * down / up = i + p / up and is
/// the dot product of phase p of `coefficients` (up phases x taps, each contiguous) with
/// `history[i - taps / 2 + 1 - base ...]` (taps samples). The caller guarantees every read
/// lies inside `history`. Picks an AVX2+FMA kernel at run time where the CPU has one.
void ag_polyphase_run(const float *coefficients, int64_t taps, int64_t up, int64_t down,
                      const float *history, int64_t base, int64_t first, int64_t count, float *out);

/// The same, accumulating in double precision: float32 sums floor the stopband near
/// 140 dB; this keeps the very-high preset's 150 dB design measurable (about 2.5x the cost).
void ag_polyphase_run_precise(const float *coefficients, int64_t taps, int64_t up, int64_t down,
                              const float *history, int64_t base, int64_t first, int64_t count, float *out);

/// Name of the kernel in use ("avx2-fma" or "sse").
const char *ag_polyphase_kernel(void);

/// Converts `frames` frames of 16-bit little-endian PCM with `channels` interleaved channels
/// (1 or 2) into one float array per channel, scaled by 1/32768. Eight frames at a time with
/// SSE2 (every x86-64 has it); `src` needs no alignment.
void ag_s16_deinterleave(const int16_t *src, int64_t channels, float *left, float *right, int64_t frames);

/// The largest of 0 and `x[0..<n]` (finite values), four at a time with SSE.
float ag_peak(const float *x, int64_t n);

/// p[k] = s[k] · h[k] for k in 0..<n, complex numbers as (re, im) pairs, computed as
/// (s.re·h.re − s.im·h.im, s.re·h.im + s.im·h.re) without fused multiply-adds: the same
/// values as that expression one at a time, two at a time with SSE.
void ag_complex_multiply(const float *s, const float *h, float *p, int64_t n);

/// The same with h conjugated and the other two walked downwards: pTop[-k] = sTop[-k] ·
/// conj(h[k]) for k in 1..<n (the negative frequencies of a real filter's product spectrum).
void ag_complex_multiply_conjugate_reversed(const float *sTop, const float *h, float *pTop, int64_t n);
