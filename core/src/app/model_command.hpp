// Private to the host: `dgxhost model show PATH|NAME`, what the catalog understands of a model (a catalog entry or a
// Hugging Face config.json), as text or as the catalog file that reads back to it.
#pragma once

namespace dgx {

/// `dgxhost model show ...` (argv[0] is "model"); returns the exit code: 0, or 2 for a bad command line, an unknown
/// model or a config.json that cannot be read.
int run_model(int argc, const char* const* argv);

}  // namespace dgx
