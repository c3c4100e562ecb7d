// Declaring a plugin in C++: fill a PluginSpec in a function and export it with DGX_PLUGIN(function).
//
//   dgx::sdk::PluginSpec make_plugin() {
//     dgx::sdk::PluginSpec spec{.name = "hello", .version = "1.0.0", .vendor = "Example", .description = "..."};
//     spec.add_workload<HelloWorkload>({.name = "hello", .kind = dgx::sdk::Kind::micro, .summary = "...",
//                                        .params = {dgx::sdk::Param::integer("hello.n", 1024, "elements")}});
//     return spec;
//   }
//   DGX_PLUGIN(make_plugin)
//
// The macro defines the entry symbol. Everything below turns the spec into the C descriptors of <dgx/plugin.h>
// once, and wraps every call from the host so that no exception crosses the boundary: an exception becomes a
// status code and a message in the host's error buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#endif

#include <dgx/plugin.h>
#include <dgx/sdk/error.hpp>
#include <dgx/sdk/format.hpp>
#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

namespace dgx::sdk {

/// A device as reported by a probe, for the context block of results.
struct DeviceInfo {
  int index = 0;
  std::string name, uuid, pci_bus_id;
  int cc_major = 0, cc_minor = 0, multiprocessors = 0;
  std::uint64_t memory_bytes = 0, l2_cache_bytes = 0;
  int clock_khz = 0, memory_clock_khz = 0, memory_bus_bits = 0;
};

class ProbeSink {
public:
  explicit ProbeSink(const dgx_probe_sink* sink) : sink_(sink) {}
  void add_device(const DeviceInfo& d) const {
    const dgx_device_info info{sizeof(dgx_device_info), d.index,          d.name.c_str(), d.uuid.c_str(),
                               d.pci_bus_id.c_str(),    d.cc_major,       d.cc_minor,     d.multiprocessors,
                               d.memory_bytes,          d.l2_cache_bytes, d.clock_khz,    d.memory_clock_khz,
                               d.memory_bus_bits};
    sink_->add_device(sink_->ctx, &info);
  }
  void add_software(const std::string& component, const std::string& version) const {
    sink_->add_software(sink_->ctx, component.c_str(), version.c_str());
  }
  void set_status(const std::string& status) const { sink_->set_status(sink_->ctx, status.c_str()); }

private:
  const dgx_probe_sink* sink_;
};

struct PresetSpec {
  std::string name{};
  std::string workload{};
  std::string summary{};
  std::string config_toml{};
};

struct PluginSpec {
  std::string name{};
  std::string version{};
  std::string vendor{};
  std::string description{};
  std::vector<WorkloadSpec> workloads{};
  std::vector<PresetSpec> presets{};
  std::vector<FormatSpec> formats{};               // other tools' output it reads (format.hpp)
  std::function<void(Host&)> init{};               // optional
  std::function<void()> shutdown{};                // optional
  std::function<void(Host&, ProbeSink&)> probe{};  // optional

  /// Registers workload type W, constructed as W(Host&).
  template <typename W> PluginSpec& add_workload(WorkloadSpec workload) {
    workload.factory = [](Host& host) -> std::unique_ptr<Workload> { return std::make_unique<W>(host); };
    workloads.push_back(std::move(workload));
    return *this;
  }
};

namespace detail {

inline void write_error(dgx_error* error, const std::string& message) noexcept {
  if (error == nullptr || error->message == nullptr || error->capacity == 0) {
    return;
  }
  const std::size_t n = std::min<std::size_t>(message.size(), error->capacity - 1);
  std::memcpy(error->message, message.data(), n);
  error->message[n] = '\0';
}

inline std::string type_name(const std::type_info& type) {
#if __has_include(<cxxabi.h>)
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                   std::free);
  if (status == 0 && demangled) {
    return demangled.get();
  }
#endif
  return type.name();
}

/// Runs `body`, turning any exception into a status and a message: the one place where exceptions stop.
template <typename Body> dgx_status guarded(dgx_error* error, Body&& body) noexcept {
  try {
    body();
    return DGX_OK;
  } catch (const Error& e) {
    write_error(error, e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    write_error(error, "out of host memory (std::bad_alloc)");
    return DGX_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    write_error(error, "unexpected exception " + type_name(typeid(e)) + ": " + e.what());
    return DGX_ERR_INTERNAL;
  } catch (...) {
    write_error(error, "unexpected exception of unknown type");
    return DGX_ERR_INTERNAL;
  }
}

/// What the host's opaque dgx_instance points to.
struct Instance {
  explicit Instance(const dgx_host_api* api) : host(api) {}
  Host host;
  std::unique_ptr<Workload> workload;
  Case current_case;
  std::vector<dgx_config_entry> case_entries;
};

inline Instance& as_instance(dgx_instance* instance) { return *reinterpret_cast<Instance*>(instance); }
inline const WorkloadSpec& spec_of(const dgx_workload_desc* self) {
  return *static_cast<const WorkloadSpec*>(self->user_data);
}

// Trampolines: the C function pointers of dgx_workload_desc. ------------------------------------------------

inline dgx_status can_measure(const dgx_workload_desc* self, const dgx_host_api* api, dgx_error* error) {
  return guarded(error, [&] {
    Host host(api);
    spec_of(self).can_measure(host);
  });
}

inline dgx_status create(const dgx_workload_desc* self, const dgx_host_api* api, dgx_instance** out, dgx_error* error) {
  return guarded(error, [&] {
    auto instance = std::make_unique<Instance>(api);
    instance->workload = spec_of(self).factory(instance->host);
    *out = reinterpret_cast<dgx_instance*>(instance.release());
  });
}

inline dgx_status setup(dgx_instance* instance, dgx_error* error) {
  return guarded(error, [&] { as_instance(instance).workload->setup(); });
}

inline dgx_status case_count(dgx_instance* instance, std::uint32_t* out, dgx_error* error) {
  return guarded(error, [&] { *out = static_cast<std::uint32_t>(as_instance(instance).workload->case_count()); });
}

inline dgx_status begin_case(dgx_instance* instance, std::uint32_t index, dgx_case_desc* out, dgx_error* error) {
  return guarded(error, [&] {
    Instance& self = as_instance(instance);
    self.current_case = self.workload->begin_case(index);
    self.case_entries.clear();
    for (const auto& [key, value] : self.current_case.config) {
      self.case_entries.push_back({sizeof(dgx_config_entry), key.c_str(), value.c_str(), 0});
    }
    out->label = self.current_case.label.empty() ? nullptr : self.current_case.label.c_str();
    out->config = self.case_entries.data();
    out->config_count = static_cast<std::uint32_t>(self.case_entries.size());
    out->flags = self.current_case.flags;
  });
}

inline dgx_status run(dgx_instance* instance, const dgx_sample_request* request, dgx_sample_result* result,
                      dgx_error* error) {
  return guarded(error, [&] {
    const SampleRequest req{request->case_index, request->sample_index, request->iterations, request->warmup != 0,
                            request->flush_cache != 0};
    SampleResult res;
    as_instance(instance).workload->run(req, res);
    result->timing = static_cast<dgx_timing>(res.timing);
    result->seconds = res.seconds;
    result->cache_state = static_cast<std::int32_t>(res.cache);
  });
}

inline dgx_status end_case(dgx_instance* instance, std::uint32_t index, const dgx_sample_stats* stats,
                           dgx_error* error) {
  return guarded(error, [&] {
    const Stats s{stats->samples, stats->median, stats->mean, stats->min, stats->max, stats->stdev, stats->cv};
    as_instance(instance).workload->end_case(index, s);
  });
}

inline dgx_status finalize(dgx_instance* instance, dgx_error* error) {
  return guarded(error, [&] { as_instance(instance).workload->finalize(); });
}

inline dgx_status project(dgx_instance* instance, dgx_mode mode, dgx_error* error) {
  return guarded(error, [&] { as_instance(instance).workload->project(static_cast<Mode>(mode)); });
}

inline void destroy(dgx_instance* instance) { delete &as_instance(instance); }

inline dgx_status read_format(const dgx_format_desc* self, const dgx_host_api* api, const dgx_import_request* request,
                              const dgx_import_sink* sink, dgx_error* error) {
  return guarded(error, [&] {
    Host host(api);
    ImportSink import_sink(sink);
    format_of(self).read(host, to_request(*request), import_sink);
  });
}

/// The C descriptors built from a PluginSpec; owns every string and array they point to.
class PluginAdapter {
public:
  /// The descriptor's init, shutdown and probe, which take no context: functions of the plugin's own home
  /// (PluginHome below) that find this adapter. Left null (`{}`), the descriptor has none of them.
  struct Hooks {
    dgx_status (*init)(const dgx_host_api*, dgx_error*);
    void (*shutdown)();
    dgx_status (*probe)(const dgx_host_api*, const dgx_probe_sink*, dgx_error*);
  };

  explicit PluginAdapter(PluginSpec spec, Hooks hooks = {}) : spec_(std::move(spec)) {
    // Sized once, before any descriptor points into them: the inner vectors never move.
    params_.resize(spec_.workloads.size());
    declared_.resize(spec_.workloads.size());
    for (std::size_t i = 0; i < spec_.workloads.size(); ++i) {
      WorkloadSpec& w = spec_.workloads[i];
      for (const Param& p : w.params) {
        params_[i].push_back(to_c(p));
      }
      declared_[i] = declarations_of(w);
      workloads_.push_back(to_c(w, params_[i], declared_[i]));
    }
    for (FormatSpec& f : spec_.formats) {
      formats_.push_back({sizeof(dgx_format_desc), f.name.c_str(), f.summary.c_str(), &f, &detail::probe_format,
                          &detail::read_format});
    }
    for (const PresetSpec& p : spec_.presets) {
      presets_.push_back(
          {sizeof(dgx_preset_desc), p.name.c_str(), p.workload.c_str(), p.summary.c_str(), p.config_toml.c_str()});
    }
    desc_ = {};
    desc_.struct_size = sizeof desc_;
    desc_.abi_version = DGX_ABI_VERSION;
    desc_.name = spec_.name.c_str();
    desc_.version = spec_.version.c_str();
    desc_.vendor = spec_.vendor.c_str();
    desc_.description = spec_.description.c_str();
    desc_.workloads = workloads_.data();
    desc_.workload_count = static_cast<std::uint32_t>(workloads_.size());
    desc_.presets = presets_.data();
    desc_.preset_count = static_cast<std::uint32_t>(presets_.size());
    desc_.formats = formats_.empty() ? nullptr : formats_.data();
    desc_.format_count = static_cast<std::uint32_t>(formats_.size());
    if (spec_.init) {
      desc_.init = hooks.init;
    }
    if (spec_.shutdown) {
      desc_.shutdown = hooks.shutdown;
    }
    if (spec_.probe) {
      desc_.probe = hooks.probe;
    }
  }
  PluginAdapter(const PluginAdapter&) = delete;
  PluginAdapter& operator=(const PluginAdapter&) = delete;

  [[nodiscard]] const dgx_plugin_desc* descriptor() const { return &desc_; }
  /// The version negotiated with the host (plugin_entry).
  void set_abi_version(std::uint32_t version) { desc_.abi_version = version; }
  [[nodiscard]] const PluginSpec& spec() const { return spec_; }

  /// What the descriptor's hooks do, for PluginHome.
  dgx_status init(const dgx_host_api* api, dgx_error* error) {
    return guarded(error, [&] {
      Host host(api);
      spec_.init(host);
    });
  }
  void shutdown() noexcept {
    try {
      spec_.shutdown();
    } catch (...) {  // nothing can be reported at exit; never let it escape
    }
  }
  dgx_status probe(const dgx_host_api* api, const dgx_probe_sink* sink, dgx_error* error) {
    return guarded(error, [&] {
      Host host(api);
      ProbeSink probe_sink(sink);
      spec_.probe(host, probe_sink);
    });
  }

private:
  static const char* c_str_or_null(const std::string& s) { return s.empty() ? nullptr : s.c_str(); }

  static dgx_param_desc to_c(const Param& p) {
    return {sizeof(dgx_param_desc),   p.key.c_str(),         p.type,  c_str_or_null(p.default_value), p.help.c_str(),
            c_str_or_null(p.choices), c_str_or_null(p.unit), p.flags, c_str_or_null(p.alias)};
  }

  /// A workload's declarations of its rows (ABI 1.1) as the C arrays its descriptor points to.
  struct Declared {
    std::vector<dgx_metric_desc> metrics;
    std::vector<const char*> identity_keys;
    std::vector<dgx_chart_desc> charts;
  };

  static Declared declarations_of(const WorkloadSpec& w) {
    Declared d;
    for (const MetricSpec& m : w.metrics) {
      d.metrics.push_back({sizeof(dgx_metric_desc), m.name.c_str(), m.unit.c_str(), static_cast<dgx_better>(m.better),
                           c_str_or_null(m.label), c_str_or_null(m.help)});
    }
    for (const std::string& key : w.identity_keys) {
      d.identity_keys.push_back(key.c_str());
    }
    for (const ChartSpec& c : w.charts) {
      d.charts.push_back({sizeof(dgx_chart_desc), c.title.c_str(), c.kind, c.x.c_str(), c.y.c_str(),
                          c_str_or_null(c.series), c_str_or_null(c.caption), c.mode, c_str_or_null(c.table),
                          c_str_or_null(c.unit), c_str_or_null(c.peak_metric), c_str_or_null(c.peak_label), c.flags});
    }
    return d;
  }

  static dgx_workload_desc to_c(WorkloadSpec& w, const std::vector<dgx_param_desc>& params, const Declared& declared) {
    dgx_workload_desc d{};
    d.struct_size = sizeof d;
    d.name = w.name.c_str();
    d.kind = static_cast<dgx_workload_kind>(w.kind);
    d.summary = w.summary.c_str();
    d.precisions = w.precisions.data();
    d.precision_count = static_cast<std::uint32_t>(w.precisions.size());
    d.params = params.data();
    d.param_count = static_cast<std::uint32_t>(params.size());
    for (const Mode mode : w.modes) {
      d.modes |= DGX_MODE_BIT(static_cast<dgx_mode>(mode));
    }
    d.user_data = &w;
    d.can_measure = w.can_measure ? &detail::can_measure : nullptr;
    d.create = &detail::create;
    d.setup = &detail::setup;
    d.case_count = &detail::case_count;
    d.begin_case = &detail::begin_case;
    d.run = &detail::run;
    d.end_case = &detail::end_case;
    d.finalize = &detail::finalize;
    d.project = &detail::project;
    d.destroy = &detail::destroy;
    d.metric_descs = declared.metrics.empty() ? nullptr : declared.metrics.data();
    d.metric_desc_count = static_cast<std::uint32_t>(declared.metrics.size());
    d.identity_keys = declared.identity_keys.empty() ? nullptr : declared.identity_keys.data();
    d.identity_key_count = static_cast<std::uint32_t>(declared.identity_keys.size());
    d.charts = declared.charts.empty() ? nullptr : declared.charts.data();
    d.chart_count = static_cast<std::uint32_t>(declared.charts.size());
    return d;
  }

  PluginSpec spec_;
  std::vector<std::vector<dgx_param_desc>> params_;
  std::vector<Declared> declared_;
  std::vector<dgx_workload_desc> workloads_;
  std::vector<dgx_preset_desc> presets_;
  std::vector<dgx_format_desc> formats_;
  dgx_plugin_desc desc_{};
};

/// The plugin's one adapter and the hooks that find it. `Home` is a type of the plugin's own unnamed namespace
/// (DGX_PLUGIN declares one), so every member of PluginHome<Home>, the statics included, has internal linkage: one
/// home per plugin whatever its visibility settings. A static of an ordinary inline function would be one object
/// in the whole process (GCC makes it a GNU unique symbol) in plugins built without hidden visibility: the second
/// such plugin loaded would find the first's adapter and run the first's code.
template <typename Home> class PluginHome {
public:
  /// Built on the first call from `factory`.
  static PluginAdapter& get(PluginSpec (*factory)()) {
    static PluginAdapter adapter(factory(), {&init, &shutdown, &probe});
    current() = &adapter;
    return adapter;
  }

private:
  static PluginAdapter*& current() {
    static PluginAdapter* adapter = nullptr;
    return adapter;
  }
  static dgx_status init(const dgx_host_api* api, dgx_error* error) { return current()->init(api, error); }
  static void shutdown() { current()->shutdown(); }
  static dgx_status probe(const dgx_host_api* api, const dgx_probe_sink* sink, dgx_error* error) {
    return current()->probe(api, sink, error);
  }
};

/// Body of the entry symbol: negotiates the version and hands out the descriptor of the plugin whose home is
/// `Home`.
template <typename Home>
dgx_status plugin_entry(const dgx_host_offer* offer, const dgx_plugin_desc** out, PluginSpec (*factory)()) noexcept {
  try {
    PluginAdapter& adapter = PluginHome<Home>::get(factory);
    // The newest version both speak: a host of an older minor version of the same major reads the descriptor's
    // fields up to its own (struct_size), and the SDK asks the host only for services its table holds.
    std::uint32_t version = DGX_ABI_VERSION;
    if (offer != nullptr && DGX_ABI_VERSION_MAJOR(offer->max_abi_version) == DGX_ABI_VERSION_MAJOR(DGX_ABI_VERSION) &&
        offer->max_abi_version < version) {
      version = offer->max_abi_version;
    }
    adapter.set_abi_version(version);
    *out = adapter.descriptor();
    const bool in_range = offer != nullptr && version >= offer->min_abi_version && version <= offer->max_abi_version;
    return in_range ? DGX_OK : DGX_ERR_VERSION;
  } catch (...) {  // the spec factory threw: the host reports the status, naming the file
    *out = nullptr;
    return DGX_ERR_INTERNAL;
  }
}

}  // namespace detail
}  // namespace dgx::sdk

/// Defines the plugin's entry symbol from a function `dgx::sdk::PluginSpec factory()`, and the plugin's home in this
/// file's unnamed namespace (PluginHome): use it once per plugin.
#define DGX_PLUGIN(factory)                                                                                            \
  namespace {                                                                                                          \
  struct DgxPluginHome {};                                                                                             \
  }                                                                                                                    \
  extern "C" DGX_EXPORT dgx_status dgx_plugin_entry(const dgx_host_offer* offer, const dgx_plugin_desc** out) {        \
    return ::dgx::sdk::detail::plugin_entry<DgxPluginHome>(offer, out, &(factory));                                    \
  }
