// Text from plugins and file names is made printable once, at the boundary.
#include <doctest/doctest.h>

#include "dgx/core/support/printable.hpp"

using dgx::printable;

TEST_CASE("printable UTF-8 passes unchanged") {
  CHECK(printable("plain ascii") == "plain ascii");
  CHECK(printable("γ/β, 70B → 8×H100, 🚀") == "γ/β, 70B → 8×H100, 🚀");
}

TEST_CASE("control characters are escaped, newlines kept only when asked") {
  CHECK(printable("a\nb\tc\x1b[31m\x7f") == "a\\x0ab\\x09c\\x1b[31m\\x7f");
  CHECK(printable("a\nb\tc\x1b", true) == "a\nb\tc\\x1b");
  CHECK(printable("\xc2\x9b"
                  "31m") == "\\x9b31m");  // the C1 control CSI, an escape on some terminals
  CHECK(printable(static_cast<const char*>(nullptr)).empty());
}

TEST_CASE("invalid UTF-8 becomes U+FFFD, byte by byte") {
  CHECK(printable("\xff") == "\xef\xbf\xbd");
  CHECK(printable("a\xc3") == "a\xef\xbf\xbd");                                // truncated sequence
  CHECK(printable("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");                  // overlong '/'
  CHECK(printable("\xed\xa0\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a UTF-16 surrogate
  CHECK(printable("\xf4\x90\x80\x80").find("\xef\xbf\xbd") == 0);              // above U+10FFFF
}

TEST_CASE("every line break is escaped: NEL as a C1 control, the line and paragraph separators by name") {
  CHECK(printable("a\xc2\x85"
                  "b") == "a\\x85b");
  CHECK(printable("a\xe2\x80\xa8"
                  "b\xe2\x80\xa9"
                  "c") == "a\\u2028b\\u2029c");
  CHECK(printable("a\xe2\x80\xa8"
                  "b",
                  true) == "a\\u2028b");               // not a newline a note may keep
  CHECK(printable("\xe2\x80\x94") == "\xe2\x80\x94");  // an em dash, the same lead bytes, stays
}
