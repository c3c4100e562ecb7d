#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>

#include <dgx/plugin.h>

extern "C" size_t dgx_c11_sizeof(int which);

TEST_CASE("the ABI structs have the same layout in C11 and C++") {
  CHECK(dgx_c11_sizeof(0) == sizeof(dgx_plugin_desc));
  CHECK(dgx_c11_sizeof(1) == sizeof(dgx_workload_desc));
  CHECK(dgx_c11_sizeof(2) == sizeof(dgx_param_desc));
  CHECK(dgx_c11_sizeof(3) == sizeof(dgx_host_api));
  CHECK(dgx_c11_sizeof(4) == sizeof(dgx_result_row));
  CHECK(dgx_c11_sizeof(5) == sizeof(dgx_metric));
  CHECK(dgx_c11_sizeof(6) == sizeof(dgx_sample_request));
  CHECK(dgx_c11_sizeof(7) == sizeof(dgx_sample_result));
  CHECK(dgx_c11_sizeof(8) == sizeof(dgx_sample_stats));
  CHECK(dgx_c11_sizeof(9) == sizeof(dgx_device_info));
  CHECK(dgx_c11_sizeof(10) == offsetof(dgx_host_api, find_data_file));
  CHECK(dgx_c11_sizeof(11) == offsetof(dgx_workload_desc, destroy));
  CHECK(dgx_c11_sizeof(12) == 7);
  CHECK(dgx_c11_sizeof(13) == sizeof(dgx_metric_desc));
  CHECK(dgx_c11_sizeof(14) == sizeof(dgx_chart_desc));
  CHECK(dgx_c11_sizeof(15) == offsetof(dgx_workload_desc, metric_descs));
  CHECK(dgx_c11_sizeof(16) == offsetof(dgx_workload_desc, chart_count));
  CHECK(dgx_c11_sizeof(17) == offsetof(dgx_host_api, write_output_file));
  CHECK(dgx_c11_sizeof(18) == offsetof(dgx_chart_desc, flags));
  CHECK(dgx_c11_sizeof(19) == 4);
  CHECK(dgx_c11_sizeof(20) == sizeof(dgx_format_desc));
  CHECK(dgx_c11_sizeof(21) == sizeof(dgx_import_request));
  CHECK(dgx_c11_sizeof(22) == sizeof(dgx_log_reading));
  CHECK(dgx_c11_sizeof(23) == offsetof(dgx_plugin_desc, formats));
  CHECK(dgx_c11_sizeof(24) == offsetof(dgx_result_row, sample_times));
}

TEST_CASE("ABI 1.3 only appends: a 1.2 import request ends where next_line begins") {
  CHECK(offsetof(dgx_import_request, next_line) >= offsetof(dgx_import_request, file_time) + sizeof(std::int64_t));
  CHECK(offsetof(dgx_import_request, text_complete) > offsetof(dgx_import_request, lines_ctx));
  CHECK(DGX_ABI_VERSION == DGX_ABI_V1_3);
}

TEST_CASE("ABI 1.2 only appends: a 1.1 plugin descriptor ends where the formats begin, a 1.1 row at sample_times") {
  CHECK(offsetof(dgx_plugin_desc, formats) >= offsetof(dgx_plugin_desc, probe) + sizeof(void (*)()));
  CHECK(sizeof(dgx_plugin_desc) >= offsetof(dgx_plugin_desc, format_count) + sizeof(std::uint32_t));
  CHECK(offsetof(dgx_result_row, sample_times) >= offsetof(dgx_result_row, field_count) + sizeof(std::uint32_t));
  CHECK(offsetof(dgx_format_desc, struct_size) == 0);
  CHECK(offsetof(dgx_import_request, struct_size) == 0);
  CHECK(offsetof(dgx_log_reading, struct_size) == 0);
  CHECK(offsetof(dgx_import_sink, struct_size) == 0);
}

TEST_CASE("ABI 1.1 only appends: a 1.0 workload descriptor ends where the declarations begin, a 1.0 host table at "
          "config_dir") {
  // What a 1.0 plugin's descriptor holds is a prefix of 1.1's: every 1.0 field keeps its offset, the new ones follow.
  CHECK(offsetof(dgx_workload_desc, metric_descs) > offsetof(dgx_workload_desc, destroy));
  CHECK(offsetof(dgx_workload_desc, metric_descs) >= offsetof(dgx_workload_desc, destroy) + sizeof(void (*)()));
  CHECK(offsetof(dgx_workload_desc, identity_keys) > offsetof(dgx_workload_desc, metric_desc_count));
  CHECK(offsetof(dgx_workload_desc, charts) > offsetof(dgx_workload_desc, identity_key_count));
  CHECK(sizeof(dgx_workload_desc) >= offsetof(dgx_workload_desc, chart_count) + sizeof(std::uint32_t));
  CHECK(offsetof(dgx_host_api, write_output_file) > offsetof(dgx_host_api, config_dir));
  CHECK(offsetof(dgx_metric_desc, struct_size) == 0);
  CHECK(offsetof(dgx_chart_desc, struct_size) == 0);
}

TEST_CASE("every ABI struct starts with its size and the enums are 32 bits") {
  CHECK(offsetof(dgx_plugin_desc, struct_size) == 0);
  CHECK(offsetof(dgx_workload_desc, struct_size) == 0);
  CHECK(offsetof(dgx_host_api, struct_size) == 0);
  CHECK(offsetof(dgx_result_row, struct_size) == 0);
  CHECK(offsetof(dgx_error, struct_size) == 0);
  CHECK(offsetof(dgx_host_offer, struct_size) == 0);
  CHECK(sizeof(dgx_status) == 4);
  CHECK(sizeof(dgx_precision) == 4);
  CHECK(sizeof(dgx_mode) == 4);
  // The version sits at the same offset in every ABI so that a host can read it from any plugin.
  CHECK(offsetof(dgx_plugin_desc, abi_version) == 4);
}

TEST_CASE("ABI versions pack major and minor") {
  CHECK(DGX_ABI_VERSION_MAJOR(DGX_ABI_MAKE_VERSION(2, 7)) == 2);
  CHECK(DGX_ABI_VERSION_MINOR(DGX_ABI_MAKE_VERSION(2, 7)) == 7);
  CHECK(DGX_ABI_MAKE_VERSION(1, 1) > DGX_ABI_V1_0);
  CHECK(DGX_ABI_MAKE_VERSION(2, 0) > DGX_ABI_MAKE_VERSION(1, 65535));
}
