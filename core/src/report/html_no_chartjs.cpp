// Built when Chart.js (Debian's libjs-chart.js) was not found: the HTML report has no charts to draw.
#include "html_assets.hpp"

namespace dgx::html {

std::span<const EmbeddedFile> chartjs_assets() { return {}; }

}  // namespace dgx::html
