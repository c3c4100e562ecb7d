#!/usr/bin/env python3
"""The CPU time of a dgxhost process that does almost nothing but set up: a plugin file against another.

Each variant is a copy of one plugin file (say the llm-pretrain of two builds) in a prefix of its own, beside a copy
of the same dgxhost and the same configs, so that nothing else differs and no other plugin is loaded. The variants
run interleaved, --runs times each after one untimed run (which also leaves the plugin check in the cache), and the
table gives the median CPU time (user + system, of dgxhost and its children) and wall time of each, and the ratio
to the first. CPU time, not wall time, is what a loaded machine leaves alone; quote medians measured side by side.

  bench/plugin-setup/plugin_setup.py --dgxhost build/default/bin/dgxhost \\
      before=/tmp/old/libdgx-llm-pretrain.so after=build/default/lib/dgx/plugins/libdgx-llm-pretrain.so \\
      -- --plugin llama8b --mode project --format json
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def prefix_for(root, label, dgxhost, plugin, configs):
    """bin/dgxhost, lib/dgx/plugins/<plugin> and share/dgx/configs under root/label: dgxhost finds both from its
    own location, and nothing else."""
    prefix = os.path.join(root, label)
    os.makedirs(os.path.join(prefix, "bin"))
    os.makedirs(os.path.join(prefix, "lib", "dgx", "plugins"))
    os.makedirs(os.path.join(prefix, "share", "dgx"))
    shutil.copy2(dgxhost, os.path.join(prefix, "bin", "dgxhost"))
    shutil.copy2(plugin, os.path.join(prefix, "lib", "dgx", "plugins", os.path.basename(plugin)))
    shutil.copytree(configs, os.path.join(prefix, "share", "dgx", "configs"))
    return os.path.join(prefix, "bin", "dgxhost")


def run_once(program, args, env):
    """(CPU seconds of the process and its children, wall seconds)."""
    start = time.monotonic()
    process = subprocess.Popen([program] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{program} {' '.join(args)}: exit {code}: {process.stderr.read().decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dgxhost", required=True, help="the dgxhost every variant runs")
    parser.add_argument("--configs", help="the configs folder (default: share/dgx/configs beside --dgxhost's bin/)")
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each variant (default 15)")
    parser.add_argument("variants", nargs="+", help="LABEL=PLUGIN_FILE, then -- and dgxhost's arguments")
    argv = sys.argv[1:]
    dgx_args = ["--plugin", "llama8b", "--mode", "project", "--format", "json"]
    if "--" in argv:
        dgx_args = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    options = parser.parse_args(argv)
    configs = options.configs or os.path.join(os.path.dirname(os.path.abspath(options.dgxhost)), "..", "share", "dgx",
                                              "configs")
    variants = []
    for spec in options.variants:
        label, sep, plugin = spec.partition("=")
        if not sep or not os.path.isfile(plugin):
            sys.exit(f"{spec}: expected LABEL=PLUGIN_FILE naming a plugin file")
        variants.append((label, plugin))

    with tempfile.TemporaryDirectory(prefix="dgx-plugin-setup-") as root:
        os.chmod(root, 0o755)  # dgxhost loads plugins only from folders nobody else can write
        env = dict(os.environ, DGX_CACHE_DIR=os.path.join(root, "cache"), DGX_RUNS_DIR="off")
        env.pop("DGX_PLUGIN_PATH", None)
        programs = [prefix_for(root, label, options.dgxhost, plugin, configs) for label, plugin in variants]
        for program in programs:  # untimed: the plugin check in a child, the page cache
            run_once(program, dgx_args, env)
        cpu = [[] for _ in variants]
        wall = [[] for _ in variants]
        for _ in range(options.runs):
            for i, program in enumerate(programs):
                c, w = run_once(program, dgx_args, env)
                cpu[i].append(c)
                wall[i].append(w)

    print(f"dgxhost {' '.join(dgx_args)}: median of {options.runs} interleaved runs each")
    print(f"{'variant':<12} {'CPU ms':>9} {'wall ms':>9} {'CPU ratio':>10}")
    first = statistics.median(cpu[0])
    for (label, _), c, w in zip(variants, cpu, wall):
        median_cpu = statistics.median(c)
        print(f"{label:<12} {median_cpu * 1e3:>9.1f} {statistics.median(w) * 1e3:>9.1f} {median_cpu / first:>10.2f}")


if __name__ == "__main__":
    main()
