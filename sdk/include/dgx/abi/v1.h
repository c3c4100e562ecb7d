/*
 * dgx plugin ABI, major version 1.
 *
 * This header is the whole contract between the dgxhost host and a workload plugin. It is plain C11 (and
 * valid C++) so that plugins can be written in any language with a C FFI and built with any compiler.
 *
 * Rules that keep the ABI stable:
 *  - Only fixed-width integers, 32-bit enumerations (declared as int32_t), `double`, `const char*` (UTF-8,
 *    NUL-terminated) and function-pointer tables cross the boundary. No C++ types, no exceptions, no `bool`.
 *  - Every struct begins with `uint32_t struct_size`, set by whoever fills the struct to `sizeof` of its own
 *    definition. A minor version only appends fields; a reader never touches a field beyond struct_size.
 *    Arrays of structs are strided by the struct_size of their elements (all elements of one array share it).
 *  - One exported entry symbol, `dgx_plugin_entry`, whose signature never changes. The host offers the range of
 *    ABI versions it speaks; the plugin answers with the one it implements. A major bump freezes this header
 *    (abi/v1.h) and the host keeps an adapter for it.
 *  - Errors are status codes plus a message the plugin writes into a host-owned buffer (dgx_error).
 *  - Pointers the plugin hands to the host (descriptors, strings) stay valid for the life of the loaded library
 *    unless a function says otherwise. Pointers the host hands to the plugin are valid for the call, unless a
 *    function says otherwise.
 */
#ifndef DGX_ABI_V1_H
#define DGX_ABI_V1_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------ */
/* Versions and export                                                                                     */

#define DGX_ABI_MAKE_VERSION(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | ((uint32_t)(minor)&0xffffu)))
#define DGX_ABI_VERSION_MAJOR(version) ((uint32_t)(version) >> 16)
#define DGX_ABI_VERSION_MINOR(version) ((uint32_t)(version)&0xffffu)

/* The versions this header describes: 1.0, and 1.1, which appended (fields marked "ABI 1.1"):
 *  - to dgx_workload_desc: what the workload's rows mean (metric_descs, identity_keys, charts), so that a host that
 *    knows no workload can compare, chart and keep a history of them;
 *  - to dgx_host_api: config_dir (the folders the host searches for data files, so a plugin reads a user's catalog
 *    entries in the host's order) and write_output_file (the files a plugin hands the user, written safely by the
 *    host).
 * and 1.2, which appended (fields marked "ABI 1.2"):
 *  - to dgx_plugin_desc: formats, the other tools' logs and result files the plugin reads (dgxhost import, verdict,
 *    store add): a probe that scores a text and a reader that turns it into rows (dgx_format_desc);
 *  - to dgx_result_row: sample_times, the per-iteration times a measured row summarises (an imported log's steps).
 * and 1.3, which appended (fields marked "ABI 1.3"):
 *  - to dgx_import_request: next_line, the file's lines one at a time, so that a reader keeps what it needs of a
 *    100 MB log instead of the log (the host then hands `text` as the file's first lines only).
 * A reader never touches a field beyond struct_size, so a 1.0 plugin runs on a 1.1 host and the other way round: a
 * workload descriptor of ABI 1.0 ends at metric_descs (its struct_size is offsetof(dgx_workload_desc, metric_descs)),
 * a host table of ABI 1.0 at config_dir, a plugin descriptor of ABI 1.1 at formats. */
#define DGX_ABI_V1_0 DGX_ABI_MAKE_VERSION(1, 0)
#define DGX_ABI_V1_1 DGX_ABI_MAKE_VERSION(1, 1)
#define DGX_ABI_V1_2 DGX_ABI_MAKE_VERSION(1, 2)
#define DGX_ABI_V1_3 DGX_ABI_MAKE_VERSION(1, 3)

/* Name of the one symbol a plugin exports. */
#define DGX_PLUGIN_ENTRY_SYMBOL "dgx_plugin_entry"

#if defined(_WIN32)
#define DGX_EXPORT __declspec(dllexport)
#else
#define DGX_EXPORT __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------------------------------------------ */
/* Status codes and errors                                                                                 */

typedef int32_t dgx_status;
enum {
  DGX_OK = 0,
  DGX_ERR_INVALID_ARGUMENT = 1, /* bad configuration or input: the user can fix it */
  DGX_ERR_UNSUPPORTED = 2,      /* the operation or mode is not implemented by this workload */
  DGX_ERR_NO_DEVICE = 3,        /* a device the operation needs is not present (no GPU, no driver) */
  DGX_ERR_OUT_OF_MEMORY = 4,
  DGX_ERR_RUNTIME = 5,      /* the operation failed while running (library error, I/O, ...) */
  DGX_ERR_CHECK_FAILED = 6, /* a correctness check of the results failed */
  DGX_ERR_CANCELLED = 7,    /* the host asked to stop */
  DGX_ERR_VERSION = 8,      /* no common ABI version */
  DGX_ERR_NOT_FOUND = 9,    /* a config key has no value, or a named thing does not exist */
  DGX_ERR_INTERNAL = 10     /* a bug, including an exception caught at the boundary */
};

/* Host-owned message buffer. The callee writes a NUL-terminated, human-readable message of at most
 * capacity-1 bytes when it returns a status other than DGX_OK. */
typedef struct dgx_error {
  uint32_t struct_size;
  uint32_t capacity;
  char* message;
} dgx_error;

/* ------------------------------------------------------------------------------------------------------ */
/* Enumerations                                                                                            */

typedef int32_t dgx_workload_kind;
enum { DGX_KIND_PRETRAIN = 1, DGX_KIND_FINETUNE = 2, DGX_KIND_INFERENCE = 3, DGX_KIND_COMM = 4, DGX_KIND_MICRO = 5 };

/* Numeric formats. Values are stable; new formats take new values. */
typedef int32_t dgx_precision;
enum {
  DGX_PRECISION_FP32 = 1,
  DGX_PRECISION_TF32 = 2,
  DGX_PRECISION_FP16 = 3,
  DGX_PRECISION_BF16 = 4,
  DGX_PRECISION_FP8_E4M3 = 5,
  DGX_PRECISION_FP8_E5M2 = 6,
  DGX_PRECISION_MXFP8 = 7, /* OCP microscaling: E4M3 elements, one E8M0 scale per 32 */
  DGX_PRECISION_NVFP4 = 8  /* E2M1 elements, one E4M3 scale per 16, plus a per-tensor FP32 scale */
};

/* Run modes. A workload declares the modes it supports as a bit set of DGX_MODE_BIT(mode). */
typedef int32_t dgx_mode;
enum { DGX_MODE_MEASURE = 1, DGX_MODE_PROJECT = 2, DGX_MODE_EXPLORE = 3 };
#define DGX_MODE_BIT(mode) (1u << (uint32_t)(mode))

/* Where a result row's numbers come from. */
typedef int32_t dgx_result_mode;
enum { DGX_RESULT_MEASURED = 1, DGX_RESULT_PROJECTED = 2, DGX_RESULT_REFERENCE = 3 };

typedef int32_t dgx_log_level;
enum { DGX_LOG_DEBUG = 0, DGX_LOG_INFO = 1, DGX_LOG_WARNING = 2, DGX_LOG_ERROR = 3 };

/* How a sample's time was taken. */
typedef int32_t dgx_timing;
enum {
  DGX_TIMING_HOST_WALL = 0,     /* the host's monotonic clock around run(); run() must be synchronous */
  DGX_TIMING_DEVICE_EVENTS = 1, /* device events recorded around the enqueued work (e.g. cudaEventElapsedTime) */
  DGX_TIMING_PLUGIN_WALL = 2    /* the plugin's own wall-clock region inside run() (excludes untimed work) */
};

typedef int32_t dgx_reduce_op;
enum { DGX_REDUCE_SUM = 1, DGX_REDUCE_MIN = 2, DGX_REDUCE_MAX = 3 };

/* ------------------------------------------------------------------------------------------------------ */
/* Workload description                                                                                    */

typedef int32_t dgx_param_type;
enum {
  DGX_PARAM_BOOL = 1,
  DGX_PARAM_INT = 2,
  DGX_PARAM_FLOAT = 3,
  DGX_PARAM_STRING = 4,
  DGX_PARAM_INT_LIST = 5,
  DGX_PARAM_FLOAT_LIST = 6,
  DGX_PARAM_STRING_LIST = 7
};

/* Parameter flags. */
#define DGX_PARAM_REQUIRED 0x1u /* the run fails with a config error when no layer sets it */

/* One configuration parameter of a workload. */
typedef struct dgx_param_desc {
  uint32_t struct_size;
  const char* key; /* dotted config key, e.g. "spin.us" or "parallel.tp" */
  dgx_param_type type;
  const char* default_value; /* a TOML value literal: "2000", "\"bf16\"", "[8, 16]", "true"; NULL: unset */
  const char* help;          /* one line */
  const char* choices;       /* STRING and STRING_LIST: allowed values separated by '|'; NULL: any */
  const char* unit;          /* optional unit of a number, e.g. "us", "B". Integers (and integer lists) in "B"
                              * accept a size suffix from users: 64K, 1M, 2G, 1T (powers of 1024); no other
                              * unit does (Param::bytes in the C++ SDK declares such a key) */
  uint32_t flags;            /* DGX_PARAM_* flags */
  const char* alias;         /* optional one-letter command-line alias: "b" makes `-b 8` mean --set key=8 */
} dgx_param_desc;

/* A named configuration a plugin ships with (e.g. "llama70b"); files in configs/workloads/ override it. */
typedef struct dgx_preset_desc {
  uint32_t struct_size;
  const char* name;
  const char* workload; /* name of a workload of the same plugin */
  const char* summary;
  const char* config_toml; /* a TOML document of config keys (dotted or tables) */
} dgx_preset_desc;

/* A key and a TOML value literal, e.g. {"gpus", "64"} or {"precision", "\"fp8\""}. */
#define DGX_CONFIG_HIDDEN 0x1u /* in results rows: JSON/CSV only, not a terminal table column */
typedef struct dgx_config_entry {
  uint32_t struct_size;
  const char* key;
  const char* value;
  uint32_t flags; /* DGX_CONFIG_* flags */
} dgx_config_entry;

/* A measured-mode case: one point of the workload's own sweep (e.g. one message size). */
#define DGX_CASE_TIMING_IN_JSON_ONLY                                                                                   \
  0x1u /* the workload reports its own time metric: keep the host's time.* and                                         \
          samples out of the terminal table (they stay in JSON) */
typedef struct dgx_case_desc {
  uint32_t struct_size;
  const char* label;              /* short, e.g. "1 MiB in-place"; may be NULL */
  const dgx_config_entry* config; /* what distinguishes this case; plugin-owned, valid until end_case */
  uint32_t config_count;
  uint32_t flags; /* DGX_CASE_* flags */
} dgx_case_desc;

/* What the host asks of one call to run(). */
typedef struct dgx_sample_request {
  uint32_t struct_size;
  uint32_t case_index;
  uint64_t sample_index; /* counts warm-up and timed samples separately, from 0 */
  uint32_t iterations;   /* enqueue this many iterations back to back and time them together (runner.batch).
                          * The host divides the time by this count: a run() that does one iteration whatever
                          * it is asked would report times this many times too small. When it is above 1, the
                          * host times samples of 1 and of several iterations during the first warm-up and
                          * fails the run (exit code 1), naming the plugin, if the time does not grow. */
  int32_t warmup;        /* non-zero: a warm-up sample, its time is discarded */
  int32_t flush_cache;   /* non-zero: flush caches (e.g. GPU L2) before the timed region, outside it */
} dgx_sample_request;

/* What run() reports. The host fills the defaults (HOST_WALL, seconds -1, cache_state 0) before the call. */
typedef struct dgx_sample_result {
  uint32_t struct_size;
  dgx_timing timing;
  double seconds;      /* total time of all iterations when timing != HOST_WALL */
  int32_t cache_state; /* 0: not applicable, 1: hot, 2: cold (flushed before the timed region) */
} dgx_sample_result;

/* Statistics of one case's timed samples, in seconds per iteration. */
typedef struct dgx_sample_stats {
  uint32_t struct_size;
  uint64_t samples;
  double median;
  double mean;
  double min;
  double max;
  double stdev; /* sample standard deviation (n - 1) */
  double cv;    /* stdev / mean */
} dgx_sample_stats;

/* ABI 1.1: which way a metric is better, for comparisons (dgxhost compare, --baseline) and regression detection
 * (dgxhost history --detect). */
typedef int32_t dgx_better;
enum {
  DGX_BETTER_NONE = 0,   /* not judged: a count, a size, a configuration echoed as a metric */
  DGX_BETTER_HIGHER = 1, /* a rate, a bandwidth, a utilisation */
  DGX_BETTER_LOWER = 2   /* a time, a cost, a spread */
};

/* ABI 1.1: one metric a workload's rows carry, declared once (google/benchmark's counters, nvbench's summaries).
 * `name` is the metric as the rows emit it ("step_time"), or a family ending in ".*" ("ttft.*": ttft.mean,
 * ttft.p99, ...); an exact name wins over a family. `unit` is one of <dgx/sdk/units.hpp> and the unit the rows use.
 * The host refuses the plugin (naming the workload and the field) for a name that is not a dotted lower-case metric
 * name, a unit outside the list, a `better` outside the enumeration, or a name declared twice. */
typedef struct dgx_metric_desc {
  uint32_t struct_size;
  const char* name;
  const char* unit;
  dgx_better better;
  const char* label; /* optional short column title ("tok/s/GPU"); NULL: the name. A row's own label wins */
  const char* help;  /* optional, one line: what it is and how it is computed (Prometheus' # HELP, JUnit) */
} dgx_metric_desc;

/* ABI 1.1: a chart the HTML report draws from a workload's rows, the host knowing nothing of the workload.
 *
 * Which rows: the workload's, of `mode` (0: any) and of `table` (NULL: any), that carry both `x` and `y`. A name in
 * `x`, `series` and `peak_metric` is looked up in a row as a metric, then a config key, then a field (`info`), then
 * as the row's own `workload`, `table`, `mode` or `label`. A chart with no such row, with every y zero, or a LINES
 * chart of fewer than two points, is left out: a plugin may declare charts its runs do not always fill.
 *
 * The host checks at load time (and refuses the plugin, naming the workload, the chart and the field): a title, a
 * known kind and mode, `y` and `peak_metric` among metric_descs, `x` a metric of metric_descs or a parameter of the
 * schema (or, for a workload with measure mode, a key its cases set, which the host takes on trust), `unit` one of
 * <dgx/sdk/units.hpp> in the quantity of y, and flags it knows. */
typedef int32_t dgx_chart_kind;
enum {
  DGX_CHART_LINES = 1, /* numeric x against y: one line per series, its points sorted by x */
  DGX_CHART_BARS = 2   /* one bar per row, its category the text of `x` (a config key, field or metric); several
                        * series are bars side by side */
};
#define DGX_CHART_LOG_X 0x1u /* a logarithmic x axis (LINES) */
#define DGX_CHART_LOG_Y 0x2u /* a logarithmic y axis */
#define DGX_CHART_PARETO                                                                                               \
  0x4u /* LINES: each series as points, no line; the rows whose field "pareto" is "*" joined as a front ("Pareto       \
          front"), and the rows whose field "recommended" starts with "yes" marked with a star ("recommended") */
#define DGX_CHART_PEAK_LINE                                                                                            \
  0x8u /* a horizontal line at the peak, from the first row (of each series, for BARS) that has `peak_metric`: its     \
          value when its unit is y's quantity, or, in "%", y's value as that percent of the peak (y x 100 / value) */
#define DGX_CHART_ALTERNATIVE                                                                                          \
  0x10u /* drawn only when the chart before it in the array was left out: another view of the same rows                \
           (algorithm bandwidth where every bus bandwidth is zero, as with one rank) */
typedef struct dgx_chart_desc {
  uint32_t struct_size;
  const char* title;
  dgx_chart_kind kind;
  const char* x;           /* what the rows are spread over ("gpus", "size", "op") */
  const char* y;           /* a metric of metric_descs ("days_to_train", "busbw") */
  const char* series;      /* optional: what names each series: names joined by ',' (their values joined by a
                            * space), each a list of alternatives joined by '|' (the first the row has):
                            * "series|precision", "comm.collective|workload,comm.placement". NULL: one series.
                            * A row with none of them belongs to the series named by its workload */
  const char* caption;     /* optional, one or two sentences under the chart: what it shows and how it was made */
  dgx_result_mode mode;    /* only rows of this mode; 0: any */
  const char* table;       /* optional: only rows of this table; NULL: any of the workload's */
  const char* unit;        /* optional: the unit y is drawn in ("ms"); NULL: the unit of the first row's y */
  const char* peak_metric; /* with DGX_CHART_PEAK_LINE: the metric that gives the peak (see the flag) */
  const char* peak_label;  /* optional: what the peak line says before its value ("link peak"); NULL: "peak" */
  uint32_t flags;          /* DGX_CHART_* */
} dgx_chart_desc;

typedef struct dgx_host_api dgx_host_api;
typedef struct dgx_workload_desc dgx_workload_desc;
typedef struct dgx_instance dgx_instance; /* opaque, owned by the plugin */

/* A workload: its metadata, its parameter schema and its lifecycle.
 *
 * Lifecycle in measure mode (the host owns the timing loop):
 *   create -> setup (untimed) -> for each case: begin_case (untimed) -> run x warm-up -> run x samples
 *   -> end_case(stats) -> finalize -> destroy
 * In project and explore modes: create -> project(mode) -> destroy.
 * Results are emitted through the host services (emit_row, add_metric) during any of these calls. */
struct dgx_workload_desc {
  uint32_t struct_size;
  const char* name;
  dgx_workload_kind kind;
  const char* summary;
  const dgx_precision* precisions; /* the formats it can run or project */
  uint32_t precision_count;
  const dgx_param_desc* params;
  uint32_t param_count;
  uint32_t modes;  /* DGX_MODE_BIT(DGX_MODE_MEASURE) | ... */
  void* user_data; /* for the plugin; the host never reads it */

  /* Optional (NULL: always). Can measure mode run on this machine with this configuration? Returns DGX_OK, or
   * DGX_ERR_NO_DEVICE / DGX_ERR_UNSUPPORTED with the reason. Called before create; `host` has the config. */
  dgx_status (*can_measure)(const dgx_workload_desc* self, const dgx_host_api* host, dgx_error* error);
  /* Required. Reads and validates the configuration; no expensive work. `host` stays valid until destroy. */
  dgx_status (*create)(const dgx_workload_desc* self, const dgx_host_api* host, dgx_instance** out, dgx_error* error);
  /* Optional. Untimed preparation for measure mode (allocate, initialise inputs). */
  dgx_status (*setup)(dgx_instance* instance, dgx_error* error);
  /* Optional (NULL: one case). Number of cases of measure mode. */
  dgx_status (*case_count)(dgx_instance* instance, uint32_t* out, dgx_error* error);
  /* Optional. Untimed preparation of one case; fills `out` (host-initialised, struct_size set). */
  dgx_status (*begin_case)(dgx_instance* instance, uint32_t case_index, dgx_case_desc* out, dgx_error* error);
  /* Required for measure mode. Runs request->iterations iterations. */
  dgx_status (*run)(dgx_instance* instance, const dgx_sample_request* request, dgx_sample_result* result,
                    dgx_error* error);
  /* Optional. After a case's timed samples: correctness checks, derived metrics (add_metric). */
  dgx_status (*end_case)(dgx_instance* instance, uint32_t case_index, const dgx_sample_stats* stats, dgx_error* error);
  /* Optional. After all cases. */
  dgx_status (*finalize)(dgx_instance* instance, dgx_error* error);
  /* Required for project and explore modes. Emits result rows through the host. */
  dgx_status (*project)(dgx_instance* instance, dgx_mode mode, dgx_error* error);
  /* Required. Never fails. */
  void (*destroy)(dgx_instance* instance);

  /* ABI 1.1. What the rows mean, so that dgxhost compares, charts and keeps a history of them without knowing the
   * workload; the host records these declarations in every results document (docs/results-schema.md, "workloads"),
   * so that compare, history, --baseline and the store know them from the file. All optional: a metric without a
   * declaration is judged by its unit alone (a time lower, a rate higher, ...). Arrays are strided by the
   * struct_size of their elements; the strings live as long as the library. */
  const dgx_metric_desc* metric_descs;
  uint32_t metric_desc_count;
  /* ABI 1.1. The keys that identify a run of this workload for comparisons and history: a series is one value of
   * each (model, system, layout, precision, message size, ...); a key not listed (a framework release, a price, a
   * sweep's range) is context, and a change in it is named, not a new series. A key is a parameter of the schema, a
   * family "prefix.*" of them ("parallel.*"), a metric of metric_descs that names the case (a message size), or, for
   * a workload with measure mode, a key its cases set ("world_size"), taken on trust. runner.* and verdict.* are the
   * host's, refused. NULL with count 0: every config key but system, gpus and framework (as for ABI 1.0 plugins). */
  const char* const* identity_keys;
  uint32_t identity_key_count;
  /* ABI 1.1. The charts of the HTML report (dgx_chart_desc), in the order they are drawn. */
  const dgx_chart_desc* charts;
  uint32_t chart_count;
};

/* ------------------------------------------------------------------------------------------------------ */
/* Results                                                                                                 */

#define DGX_METRIC_HIDDEN 0x1u /* in JSON/CSV only, not in the terminal table */
#define DGX_FIELD_HIDDEN 0x1u

typedef struct dgx_metric {
  uint32_t struct_size;
  const char* name; /* dotted, lower case, e.g. "time.median", "busbw", "mfu" */
  double value;
  const char* unit; /* one of <dgx/sdk/units.hpp> (docs/results-schema.md, Units): "s", "B", "B/s", "FLOP/s",
                     * "tokens/s", "USD", "%", "1", "count", "days", "GPU-h", ... and prefixed forms such as
                     * "ms", "GB/s", "GiB", "TFLOP/s". The host refuses any other unit: the call returns
                     * DGX_ERR_INVALID_ARGUMENT and the run fails naming the plugin, the metric and the unit. */
  uint32_t flags;
  const char* label; /* optional short column title for the terminal table, e.g. "tok/s/GPU"; NULL: the name */
} dgx_metric;

/* A string attribute of a row: provenance ("source", "timing", "system") or a label ("layout", "pareto"). */
typedef struct dgx_field {
  uint32_t struct_size;
  const char* key;
  const char* value;
  uint32_t flags;
} dgx_field;

typedef struct dgx_result_row {
  uint32_t struct_size;
  const char* workload; /* NULL: the running workload */
  dgx_result_mode mode;
  const char* table;              /* groups rows into one terminal table; NULL: the workload's name */
  const dgx_config_entry* config; /* the configuration this row describes */
  uint32_t config_count;
  const dgx_metric* metrics;
  uint32_t metric_count;
  const dgx_field* fields;
  uint32_t field_count;
  /* ABI 1.2. Measured rows: the seconds of each iteration the row's metrics summarise, in order (an imported log's
   * steady-state steps), for the statistics of compare and history; NULL with count 0: none. */
  const double* sample_times;
  uint64_t sample_count;
} dgx_result_row;

/* Where a note goes in the terminal report. */
typedef int32_t dgx_note_placement;
enum { DGX_NOTE_BEFORE = 0, DGX_NOTE_AFTER = 1 };

/* ------------------------------------------------------------------------------------------------------ */
/* Ranks                                                                                                    */

typedef struct dgx_rank_info {
  uint32_t struct_size;
  int32_t rank;
  int32_t world_size;
  int32_t local_rank; /* rank among the processes of this node: picks the GPU */
  int32_t local_size;
  const char* launcher; /* "none", "slurm", "openmpi", "pmix", "env" */
} dgx_rank_info;

/* ------------------------------------------------------------------------------------------------------ */
/* Collective communication                                                                                */

/* Element types of communication buffers (NCCL's set). */
typedef int32_t dgx_dtype;
enum {
  DGX_DTYPE_INT8 = 1,
  DGX_DTYPE_UINT8 = 2,
  DGX_DTYPE_INT32 = 3,
  DGX_DTYPE_UINT32 = 4,
  DGX_DTYPE_INT64 = 5,
  DGX_DTYPE_UINT64 = 6,
  DGX_DTYPE_FP16 = 7,
  DGX_DTYPE_BF16 = 8,
  DGX_DTYPE_FP32 = 9,
  DGX_DTYPE_FP64 = 10,
  DGX_DTYPE_FP8_E4M3 = 11,
  DGX_DTYPE_FP8_E5M2 = 12
};

/* Reductions of collectives. AVG is the sum divided by the number of ranks (integer division for integers). */
typedef int32_t dgx_op;
enum { DGX_OP_SUM = 1, DGX_OP_PROD = 2, DGX_OP_MAX = 3, DGX_OP_MIN = 4, DGX_OP_AVG = 5 };

/* A communicator over all ranks on host memory, provided by the host (MPI when launched with several ranks;
 * a world of one otherwise). Semantics follow NCCL: counts are elements; in place means send == recv for
 * all_reduce, broadcast and reduce, send == recv + rank * send_count for all_gather, and recv == send + rank *
 * recv_count for reduce_scatter. Every call is blocking. `error` may be NULL. */
typedef struct dgx_comm_api {
  uint32_t struct_size;
  void* ctx;
  const char* name; /* "mpi" or "local" */
  int32_t rank;
  int32_t size;
  dgx_status (*all_reduce)(void* ctx, const void* send, void* recv, uint64_t count, dgx_dtype dtype, dgx_op op,
                           dgx_error* error);
  dgx_status (*all_gather)(void* ctx, const void* send, void* recv, uint64_t send_count, dgx_dtype dtype,
                           dgx_error* error);
  dgx_status (*reduce_scatter)(void* ctx, const void* send, void* recv, uint64_t recv_count, dgx_dtype dtype, dgx_op op,
                               dgx_error* error);
  /* Each rank sends count elements to every rank (send and recv hold size * count elements). */
  dgx_status (*alltoall)(void* ctx, const void* send, void* recv, uint64_t count, dgx_dtype dtype, dgx_error* error);
  dgx_status (*broadcast)(void* ctx, const void* send, void* recv, uint64_t count, dgx_dtype dtype, int32_t root,
                          dgx_error* error);
  dgx_status (*reduce)(void* ctx, const void* send, void* recv, uint64_t count, dgx_dtype dtype, dgx_op op,
                       int32_t root, dgx_error* error);
  /* Sends count elements to rank `to` while receiving count elements from rank `from`. */
  dgx_status (*sendrecv)(void* ctx, const void* send, int32_t to, void* recv, int32_t from, uint64_t count,
                         dgx_dtype dtype, dgx_error* error);
  dgx_status (*barrier)(void* ctx, dgx_error* error);
} dgx_comm_api;

/* ------------------------------------------------------------------------------------------------------ */
/* Host services                                                                                            */

/* Every function takes `ctx` first: pass host->ctx. Config getters return DGX_ERR_NOT_FOUND for a key that is
 * not in the workload's schema or has no value, DGX_ERR_INVALID_ARGUMENT for a type mismatch. */
struct dgx_host_api {
  uint32_t struct_size;
  uint32_t abi_version; /* the negotiated version */
  void* ctx;
  const char* host_version;

  void (*log)(void* ctx, dgx_log_level level, const char* message);

  dgx_status (*config_get_bool)(void* ctx, const char* key, int32_t* out);
  dgx_status (*config_get_int)(void* ctx, const char* key, int64_t* out);
  dgx_status (*config_get_float)(void* ctx, const char* key, double* out);
  /* The string stays valid until the instance is destroyed. */
  dgx_status (*config_get_string)(void* ctx, const char* key, const char** out);
  /* List getters: *count receives the list's length; up to `capacity` elements are written. */
  dgx_status (*config_get_int_list)(void* ctx, const char* key, int64_t* out, uint64_t capacity, uint64_t* count);
  dgx_status (*config_get_float_list)(void* ctx, const char* key, double* out, uint64_t capacity, uint64_t* count);
  dgx_status (*config_get_string_list)(void* ctx, const char* key, const char** out, uint64_t capacity,
                                       uint64_t* count);
  /* 1 when a preset, a config file or --set gave the key a value; 0 when it holds its default or nothing. */
  int32_t (*config_is_set)(void* ctx, const char* key);

  /* Monotonic clock, seconds. */
  double (*clock_now)(void* ctx);

  /* Emit a complete result row. Strings are copied. */
  dgx_status (*emit_row)(void* ctx, const dgx_result_row* row);
  /* Add a metric or a field to the measured row of the current case (valid in begin_case..end_case). */
  dgx_status (*add_metric)(void* ctx, const dgx_metric* metric);
  dgx_status (*add_field)(void* ctx, const dgx_field* field);
  /* A titled paragraph for the report (assumptions, recommendations). */
  dgx_status (*emit_note)(void* ctx, dgx_note_placement placement, const char* title, const char* text);

  dgx_status (*rank_info)(void* ctx, dgx_rank_info* out);
  dgx_status (*barrier)(void* ctx);
  /* Copies `bytes` bytes of `data` from rank `root` to every rank. */
  dgx_status (*broadcast)(void* ctx, void* data, uint64_t bytes, int32_t root);
  /* Element-wise reduction of `count` doubles over all ranks, in place. */
  dgx_status (*all_reduce_f64)(void* ctx, double* values, uint64_t count, dgx_reduce_op op);

  /* Progress of a long operation, fraction in [0, 1]. */
  void (*progress)(void* ctx, double fraction, const char* what);
  /* Non-zero once the user asked to stop (e.g. Ctrl-C) or the host's time limit on the call in progress has
   * passed (runner.max_time for a sample): return DGX_ERR_CANCELLED soon; a sample ended so is not counted. */
  int32_t (*cancel_requested)(void* ctx);

  /* Finds a data file by path relative to the config directories (e.g. "models/llama3.1-8b.toml") and writes
   * its absolute path to `out`. DGX_ERR_NOT_FOUND when no config directory has it. */
  dgx_status (*find_data_file)(void* ctx, const char* relative_path, char* out, uint64_t capacity);

  /* The host's communicator over all ranks, on host buffers; valid until the instance is destroyed. */
  dgx_status (*host_comm)(void* ctx, const dgx_comm_api** out);

  /* ABI 1.1. The index-th folder the host searches for data files (catalog entries: models/, systems/, ...),
   * highest priority first (--config-dir, DGX_CONFIG_PATH, the install's configs): its path and who named it
   * ("--config-dir"), both valid until shutdown. DGX_ERR_NOT_FOUND past the last. Callable from init on. */
  dgx_status (*config_dir)(void* ctx, uint32_t index, const char** path, const char** origin);

  /* ABI 1.1. Writes a file the user asked the workload for (a launch script, a manifest) into the folder the user
   * named (dgxhost --emit DIR): `name` is a plain file name (no '/', not "." or "..", no control character), `data`
   * its `size` bytes, `mode` its permission bits (0644, 0755; the umask applies). The host creates a temporary file
   * anew in the folder, writes and syncs it, and renames it over `name`; it refuses a symbolic link, a file with
   * other hard links, and anything that is not a regular file at `name`, and never writes outside the folder.
   * Returns DGX_OK; DGX_ERR_UNSUPPORTED when the user named no folder; DGX_ERR_INVALID_ARGUMENT for a name or mode it
   * refuses; DGX_ERR_RUNTIME when the write fails. Every error comes with the reason in `error` (may be NULL).
   * Called with `name` NULL it writes nothing and answers whether the user named a folder: DGX_OK or
   * DGX_ERR_UNSUPPORTED. Callable from create to destroy, on rank 0 (other ranks get DGX_ERR_UNSUPPORTED). */
  dgx_status (*write_output_file)(void* ctx, const char* name, const char* data, uint64_t size, uint32_t mode,
                                  dgx_error* error);
};

/* ------------------------------------------------------------------------------------------------------ */
/* Device probing (for the context block of results)                                                       */

typedef struct dgx_device_info {
  uint32_t struct_size;
  int32_t index;
  const char* name;
  const char* uuid;       /* may be NULL */
  const char* pci_bus_id; /* may be NULL */
  int32_t compute_capability_major;
  int32_t compute_capability_minor;
  int32_t multiprocessors;
  uint64_t memory_bytes;
  uint64_t l2_cache_bytes;
  int32_t clock_khz;        /* maximum SM clock */
  int32_t memory_clock_khz; /* maximum memory clock */
  int32_t memory_bus_bits;
} dgx_device_info;

typedef struct dgx_probe_sink {
  uint32_t struct_size;
  void* ctx;
  void (*add_device)(void* ctx, const dgx_device_info* device);
  /* A software component and its version, e.g. {"cuda_driver", "13.0"}, {"cublas", "13.0.0"}. */
  void (*add_software)(void* ctx, const char* component, const char* version);
  /* Why no device was found, e.g. "CUDA driver not found (cudaErrorInsufficientDriver)". */
  void (*set_status)(void* ctx, const char* status);
} dgx_probe_sink;

/* ------------------------------------------------------------------------------------------------------ */
/* Reading other tools' output (ABI 1.2)                                                                   */

/* What a log says by itself, before any --set (dgxhost import --inspect). Strings are UTF-8; NULL: not said. */
typedef struct dgx_log_reading {
  uint32_t struct_size;
  const char* tool;         /* the format's name, "nccl-tests" */
  const char* version;      /* the tool's version as printed */
  const char* kind;         /* "training", "collective", "serving", ...: what the rows describe */
  const char* workload;     /* the workload whose rows the import makes ("llm-pretrain", "all_reduce") */
  const char* timing;       /* how the tool timed what it printed */
  const char* lines;        /* "FIRST-LAST": the lines read */
  const char* steady_state; /* a series: "median of 9 steps, 1 warm-up step dropped" */
  const dgx_metric* values; /* the headline numbers a careful reader computes from the file alone, the most telling
                             * first (a training log's step_time): the host compares ranks by it */
  uint32_t value_count;
  const dgx_field* printed; /* the configuration the file prints: {"parallel.tp", "8 (line 4)"} */
  uint32_t printed_count;
  const char* const* notes;
  uint32_t note_count;
} dgx_log_reading;

/* One file to read. The host has opened it as a bounded regular file, refused what is no text (empty, binary:
 * NUL bytes or invalid UTF-8), taken off what launchers add to each line (mpirun --tag-output, srun -l, torchrun's
 * [rankN]:, timestamps, ANSI colours) and kept one rank's lines: `text` has one line per line of the file (another
 * rank's line left empty), so a line number in a message names the user's line.
 * A plugin of ABI 1.3 is handed the file as a stream (next_line) and `text` as its first lines, at most
 * DGX_IMPORT_HEAD_BYTES of whole lines (what the probe saw; text_complete says when that is all of it); an older
 * plugin gets the whole file in `text`. */
typedef struct dgx_import_request {
  uint32_t struct_size;
  const char* text; /* `size` bytes, not NUL-terminated: a view into the host's copy of the file */
  uint64_t size;
  const char* origin; /* the file as the user named it: messages say "ORIGIN:LINE: ...", rows' file field */
  /* The user's --set, typed by the command line's rules: {"system", "\"h100-sxm\""}. Keys the file prints must
   * agree with it; import.* keys are options of the import (import.warmup=N, import.run=N, run.time=ISO). */
  const dgx_config_entry* sets;
  uint32_t set_count;
  int32_t inspect;    /* non-zero: say what the file says by itself through sink->reading, emit no rows, ignore
                       * keys the file does not print */
  int32_t world_size; /* what the launcher's prefixes show (rank-15/16): 16; 0: not shown */
  int32_t world_size_line;
  int32_t has_file_time;
  int64_t file_time; /* the file's modification time, UTC seconds: dates a run whose log prints no time */
  /* ABI 1.3. The kept lines of the file from its first, one per call: `*line` (`*size` bytes, its line break
   * included when the file has one; valid until the next call) and its 1-based number in the file (lines of
   * other ranks are skipped, so numbers may jump). DGX_OK with *line NULL past the last; an error status (the
   * file could not be read further) ends the read: return it, the host names the cause. NULL: read `text`. */
  dgx_status (*next_line)(void* lines_ctx, const char** line, uint64_t* size, int32_t* number);
  void* lines_ctx;
  int32_t text_complete; /* ABI 1.3: non-zero when `text` is the whole file */
} dgx_import_request;

/* At most this much of a streamed file is handed in dgx_import_request.text and asked of the probes. */
#define DGX_IMPORT_HEAD_BYTES ((uint64_t)4 << 20)

typedef struct dgx_import_sink {
  uint32_t struct_size;
  void* ctx;
  /* In inspect mode, once: what the file says. */
  dgx_status (*reading)(void* ctx, const dgx_log_reading* reading);
} dgx_import_sink;

/* A format a plugin reads, FFmpeg-demuxer style: the host asks every loaded format's probe and hands the text to the
 * highest score. */
typedef struct dgx_format_desc dgx_format_desc;
struct dgx_format_desc {
  uint32_t struct_size;
  const char* name;    /* what users see and --format names: lower case, digits, '-' ("nccl-tests"); unique among
                        * the loaded plugins' formats */
  const char* summary; /* one line: the tool and which of its outputs ("nccl-tests' stdout: *_perf -b -e -f ...") */
  void* user_data;     /* for the plugin; the host never reads it */
  /* Required. How surely `text` (`size` bytes: the file's first DGX_IMPORT_HEAD_BYTES at most, as in
   * dgx_import_request) is this format: 0 not at all, 100 only
   * this format prints it; a format that shares lines with another (a fork, an inherited table) answers less than
   * the more specific one. Also asked of single lines, to tell which rank's lines carry the data (non-zero: a
   * data line). Pure and fast: no I/O, no state. Never fails. */
  int32_t (*probe)(const dgx_format_desc* self, const char* text, uint64_t size);
  /* Required. Reads the file (request->next_line where set, else request->text): rows through host->emit_row (mode
   * DGX_RESULT_MEASURED, `workload` named, the configuration in that workload's keys, so that verdict projects exactly
   * it), or in inspect mode the reading through sink->reading. DGX_ERR_INVALID_ARGUMENT with a message naming the line
   * (and every key still missing, with what the file printed instead) when the file cannot give rows. `host` has no
   * configuration; its log, config_dir and find_data_file work (the catalog). */
  dgx_status (*read)(const dgx_format_desc* self, const dgx_host_api* host, const dgx_import_request* request,
                     const dgx_import_sink* sink, dgx_error* error);
};

/* ------------------------------------------------------------------------------------------------------ */
/* The plugin                                                                                               */

typedef struct dgx_plugin_desc {
  uint32_t struct_size;
  uint32_t abi_version; /* the version this plugin implements; must lie in the host's offered range */
  const char* name;     /* unique among loaded plugins: lower case, digits, '-' */
  const char* version;
  const char* vendor;
  const char* description;
  const dgx_workload_desc* workloads;
  uint32_t workload_count;
  const dgx_preset_desc* presets;
  uint32_t preset_count;
  /* Optional. Called once after loading; `host` (without config or results) stays valid until shutdown. */
  dgx_status (*init)(const dgx_host_api* host, dgx_error* error);
  /* Optional. Called once before exit. */
  void (*shutdown)(void);
  /* Optional. Reports the devices and software versions this plugin can see, for the results' context. */
  dgx_status (*probe)(const dgx_host_api* host, const dgx_probe_sink* sink, dgx_error* error);
  /* ABI 1.2. The formats of other tools' output this plugin reads (dgx_format_desc), strided by their struct_size. */
  const dgx_format_desc* formats;
  uint32_t format_count;
} dgx_plugin_desc;

/* What the host offers when it calls the entry symbol. */
typedef struct dgx_host_offer {
  uint32_t struct_size;
  uint32_t min_abi_version;
  uint32_t max_abi_version;
  const char* host_name;
  const char* host_version;
} dgx_host_offer;

/* The entry symbol. Writes the plugin's descriptor to *out and returns DGX_OK, or returns DGX_ERR_VERSION when
 * the plugin implements no version in the offered range (then *out may still describe the plugin, so the host
 * can name the version it implements). Called once per load; must not fail otherwise. */
typedef dgx_status (*dgx_plugin_entry_fn)(const dgx_host_offer* offer, const dgx_plugin_desc** out);
DGX_EXPORT dgx_status dgx_plugin_entry(const dgx_host_offer* offer, const dgx_plugin_desc** out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DGX_ABI_V1_H */
