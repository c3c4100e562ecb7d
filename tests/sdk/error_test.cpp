// Status codes have one table of names: the ABI symbol for messages about the ABI, a description for people.
#include <doctest/doctest.h>

#include <dgx/sdk/error.hpp>

using namespace dgx::sdk;

TEST_CASE("every status has its ABI symbol and a description") {
  CHECK(status_symbol(DGX_ERR_RUNTIME) == "DGX_ERR_RUNTIME");
  CHECK(std::string(status_name(DGX_ERR_RUNTIME)) == "runtime error");
  CHECK(status_symbol(DGX_OK) == "DGX_OK");
  for (dgx_status s = DGX_OK; s <= DGX_ERR_INTERNAL; ++s) {
    CHECK(status_symbol(s).find("DGX_") == 0);
    CHECK(std::string(status_name(s)) != "unknown status");
  }
}

TEST_CASE("a status outside the ABI says so, with its number where there is room") {
  CHECK(status_symbol(77) == "unknown status 77");
  CHECK(std::string(status_name(77)) == "unknown status");
}
