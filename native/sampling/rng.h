// A seeded random number generator that gives the same numbers everywhere.
//
// std::mt19937 is specified bit for bit, but std::uniform_real_distribution
// and std::discrete_distribution are not: libstdc++ (native) and libc++
// (Emscripten) turn the same engine output into different draws. So the
// sampler uses its own engine and its own [0, 1) conversion, built only from
// 64-bit integer arithmetic and one exact int -> double conversion: the same
// seed gives the same draws natively and in wasm.
#pragma once

#include <cstdint>

namespace wasmlm {

// splitmix64 (Steele, Lea and Flood, 2014): turns one 64-bit seed into a
// stream of well-mixed words; used to fill the xoshiro state from a seed.
inline uint64_t splitmix64_next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// xoshiro256** 1.0 (Blackman and Vigna, 2018), seeded through splitmix64.
class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    uint64_t sm = seed;
    for (uint64_t& word : s_) word = splitmix64_next(sm);
  }

  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1): the top 53 bits times 2^-53, so every value is exact.
  double next_double() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform in [0, 1) with 24 bits, exact in a float.
  float next_float() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
};

}  // namespace wasmlm
