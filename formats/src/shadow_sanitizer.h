#pragma once
// STRATA_SHADOW_SANITIZER: defined when the build runs under AddressSanitizer or
// ThreadSanitizer, which reserve terabytes of shadow address space, so that a process cannot
// run under an address-space limit (RLIMIT_AS, `ulimit -v`). The import sandbox then sets none
// (a TSan audit: its children died at startup under one), and the tests that set one are left
// out (tests/support/test_support.h).

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STRATA_SHADOW_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STRATA_SHADOW_SANITIZER 1
#endif
#endif
