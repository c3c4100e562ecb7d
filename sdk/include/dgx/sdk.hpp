// The C++ plugin SDK: header-only, compiled into each plugin. Include this one header.
//
//   Workload   (workload.hpp)  the class a plugin author derives from
//   MetricSpec, ChartSpec (declarations.hpp)  what a workload's rows mean: better higher or lower, identity, charts
//   Host       (host.hpp)      configuration, logging, results, ranks, cancellation
//   PluginSpec (plugin.hpp)    metadata + workloads, exported with DGX_PLUGIN(factory)
//   Communicator (comm.hpp)    collectives on the host's communicator (the comm plugin implements it on NCCL)
//   units (units.hpp)          the metric units the host accepts (docs/results-schema.md, Units)
//   text (text.hpp)            suggestions, join, number formatting: the host's own toolkit
//   Expected (expected.hpp)    errors as values: a T or an error that names what went wrong
//
// Not included here: <dgx/sdk/testing/fake_host.hpp>, the test harness for a plugin's unit tests.
#pragma once

#include <dgx/plugin.h>
#include <dgx/sdk/comm.hpp>
#include <dgx/sdk/declarations.hpp>
#include <dgx/sdk/error.hpp>
#include <dgx/sdk/expected.hpp>
#include <dgx/sdk/format.hpp>
#include <dgx/sdk/host.hpp>
#include <dgx/sdk/plugin.hpp>
#include <dgx/sdk/text.hpp>
#include <dgx/sdk/toml_literal.hpp>
#include <dgx/sdk/units.hpp>
#include <dgx/sdk/utc_time.hpp>
#include <dgx/sdk/workload.hpp>
