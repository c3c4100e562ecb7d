// The JSON reporter: the dgx.results/1 document (docs/results-schema.md) as Report::to_json() makes it.
#include "dgx/core/report/reporters.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

std::string render_json(const Report& report) { return json::write(report.to_json()) + "\n"; }

}  // namespace dgx
