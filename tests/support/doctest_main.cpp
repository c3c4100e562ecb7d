// The one translation unit that holds doctest's runner; every test executable links it.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  // What dgxhost keeps between runs stays in the build tree, never in the user's home or the working directory:
  // plugin verdicts (DGX_CACHE_DIR, else ~/.cache/dgxhost) and measured runs' folders (DGX_RUNS_DIR, else
  // ./dgx-runs). A test that pins down the defaults sets these itself; every process a test starts inherits them.
  ::setenv("DGX_CACHE_DIR", DGX_TEST_STATE_DIR "/cache", 0);
  ::setenv("DGX_RUNS_DIR", DGX_TEST_STATE_DIR "/dgx-runs", 0);
  // A developer's DGX_STORE would record every test run: a test that records names its own store.
  ::unsetenv("DGX_STORE");
  return doctest::Context(argc, argv).run();
}
