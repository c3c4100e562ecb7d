// The files the HTML report embeds, compiled into dgxhost (core/CMakeLists.txt, cmake/DgxEmbed.cmake): its
// stylesheet and chart driver (core/src/html/), and Chart.js from Debian's libjs-chart.js when it was found at
// build time.
#pragma once

#include <span>
#include <string_view>

namespace dgx::html {

struct EmbeddedFile {
  std::string_view path;
  std::string_view text;
};

/// report.css and report.js.
std::span<const EmbeddedFile> report_assets();

/// chart.min.js (Chart.js, MIT licence), or nothing when dgxhost was built without it.
std::span<const EmbeddedFile> chartjs_assets();

}  // namespace dgx::html
