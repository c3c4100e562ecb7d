/* Compiled as strict C11 (-std=c11 -pedantic -Werror): the ABI header is plain C. The sizes below are the C
 * compiler's view of the layout; abi_layout_test.cpp compares them with the C++ compiler's. */
#include <dgx/plugin.h>

size_t dgx_c11_sizeof(int which);

size_t dgx_c11_sizeof(int which) {
  switch (which) {
  case 0: return sizeof(dgx_plugin_desc);
  case 1: return sizeof(dgx_workload_desc);
  case 2: return sizeof(dgx_param_desc);
  case 3: return sizeof(dgx_host_api);
  case 4: return sizeof(dgx_result_row);
  case 5: return sizeof(dgx_metric);
  case 6: return sizeof(dgx_sample_request);
  case 7: return sizeof(dgx_sample_result);
  case 8: return sizeof(dgx_sample_stats);
  case 9: return sizeof(dgx_device_info);
  case 10: return offsetof(dgx_host_api, find_data_file);
  case 11: return offsetof(dgx_workload_desc, destroy);
  case 12: return (size_t)dgx_precision_properties(DGX_PRECISION_BF16).mantissa_bits;
  /* ABI 1.1 */
  case 13: return sizeof(dgx_metric_desc);
  case 14: return sizeof(dgx_chart_desc);
  case 15: return offsetof(dgx_workload_desc, metric_descs);
  case 16: return offsetof(dgx_workload_desc, chart_count);
  case 17: return offsetof(dgx_host_api, write_output_file);
  case 18: return offsetof(dgx_chart_desc, flags);
  case 19: return sizeof(dgx_better);
  /* ABI 1.2 */
  case 20: return sizeof(dgx_format_desc);
  case 21: return sizeof(dgx_import_request);
  case 22: return sizeof(dgx_log_reading);
  case 23: return offsetof(dgx_plugin_desc, formats);
  case 24: return offsetof(dgx_result_row, sample_times);
  default: return 0;
  }
}
