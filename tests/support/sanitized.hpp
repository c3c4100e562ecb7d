// Whether this test binary runs under AddressSanitizer (clang: __has_feature; GCC: __SANITIZE_ADDRESS__). Wall-clock
// bounds do not hold there: the sanitizers slow the host several times over, and that build checks memory, not speed.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DGX_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(DGX_TEST_SANITIZED)
#define DGX_TEST_SANITIZED 1
#endif

namespace dgx::testing {

#ifdef DGX_TEST_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace dgx::testing
