// What this dgxhost binary is: version, git revision, build type. Generated at build time (core/CMakeLists.txt).
#pragma once

namespace dgx::build_info {

const char* version();       // "0.1.0"
const char* git_revision();  // "1a2b3c4d5e6f" with "-dirty" when the tree had changes, or "unknown"
const char* build_type();    // "Release", ...

}  // namespace dgx::build_info
