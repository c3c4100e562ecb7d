#!/usr/bin/python3
"""The MPIJobs `dgxhost launch --scheduler kubernetes --dry-run` prints are valid against the MPI Operator's CRD.

Usage: mpijob_schema_test.py DGXHOST CRD

Generates manifests with the options users combine (plain, RDMA, gang scheduling, a results PVC, CPU-only ranks,
arguments YAML could misread), validates each with validate_mpijob.py, and checks that the YAML reads back exactly
what dgxhost meant (every rank argument in the launcher's script). Then breaks a valid manifest in the ways a
cluster refuses, one at a time, and requires the validator to refuse each: a validator that accepts everything
would pass the first half. Exits 77 (skipped) without Debian's python3-yaml and python3-jsonschema.
"""

import copy
import os
import shlex
import subprocess
import sys
import tempfile

try:
    import yaml
    import validate_mpijob
except ImportError as e:  # python3-yaml or python3-jsonschema missing: scripts/install-deps.sh installs them
    print(f"SKIPPED: {e}")
    sys.exit(77)

IMAGE = ["--container", "nvcr.io/nvidia/pytorch:24.05-py3"]
# Words YAML could read as something else, and words a shell would: another dgxhost (--dgxhost) takes them as they
# are, as this one would not check them.
TRICKY = ["yes", "1.0", "null", "~", "a: b #c", "-x", "é → 8×H100", "it's", '"dq"', "$HOME `id`", "back\\slash",
          "{x: [1]}", "\u00a0no-break\u00a0space"]

CASES = {
    "plain": ["--nodes", "2", "--plugin", "all_reduce"],
    "rdma": ["--nodes", "4", "--rdma-resource", "nvidia.com/hostdev", "--rdma-count", "8", "--env",
             "NCCL_IB_HCA=mlx5", "--env", "NCCL_DEBUG=INFO", "--plugin", "all_reduce"],
    "gang": ["--nodes", "8", "--scheduler-name", "volcano", "--queue", "training", "--priority-class", "high",
             "--min-available", "9", "--time", "1-00:00:00", "--namespace", "ml", "--plugin", "all_gather"],
    "pvc": ["--nodes", "2", "--results-pvc", "dgx-results", "--image-pull-secret", "ngc", "--service-account",
            "mpi", "--job-name", "nightly-check", "--plugin", "all_reduce"],
    "cpu": ["--nodes", "2", "--gpus-per-node", "0", "--tasks-per-node", "4", "--rdma-resource", "rdma/ib",
            "--plugin", "all_reduce"],
    "tricky": ["--nodes", "1", "--dgxhost", "/opt/dgx/bin/dgxhost", "--env", "NOTE=a: b", "--plugin", "all_reduce"]
              + TRICKY,
}


def dry_run(dgxhost, args):
    command = [dgxhost, "launch", "--scheduler", "kubernetes", "--dry-run"] + IMAGE + args
    ran = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, DGX_RUNS_DIR="off"))
    if ran.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {ran.returncode}: {ran.stderr}")
    return ran.stdout


def check_round_trip(name, job, args):
    """The launcher's script gives the ranks exactly the words dgxhost was given, after YAML and the shell."""
    script = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"][2]
    line = next(line for line in script.split("\n") if line.strip().endswith('--output "$results"'))
    words = shlex.split(line)
    plugin_at = args.index("--plugin")
    if words[1:] != args[plugin_at:] + ["--output", "$results"]:
        raise SystemExit(f"{name}: the ranks would run {words}, not the arguments {args[plugin_at:]}")


# Each breaks a valid manifest as a cluster would refuse it, with the error the validator must give.
def set_slots_text(job):
    job["spec"]["slotsPerWorker"] = "8"


def misspell_field(job):
    job["spec"]["slotPerWorker"] = job["spec"].pop("slotsPerWorker")


def unknown_mpi(job):
    job["spec"]["mpiImplementation"] = "OpenMPl"


def bad_quantity(job):
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    worker["resources"]["limits"]["nvidia.com/gpu"] = "eight"


def missing_volume(job):
    job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["volumes"].pop(0)


def two_launchers(job):
    job["spec"]["mpiReplicaSpecs"]["Launcher"]["replicas"] = 2


def long_name(job):
    job["metadata"]["name"] = "x" * 60


BREAKS = [
    (set_slots_text, "spec.slotsPerWorker: '8' is not of type 'integer'"),
    (misspell_field, "spec: Additional properties are not allowed ('slotPerWorker' was unexpected)"),
    (unknown_mpi, "spec.mpiImplementation: 'OpenMPl' is not one of"),
    (bad_quantity, "limits.nvidia.com/gpu: 'eight' does not match"),
    (missing_volume, "volumeMounts: 'dshm' names no volume of the pod"),
    (two_launchers, "spec.mpiReplicaSpecs.Launcher.replicas: must be 1"),
    (long_name, "which is not a DNS-1035 label"),
]


def main(dgxhost, crd):
    schema = validate_mpijob.crd_schema(crd)
    jobs = {}
    for name, args in CASES.items():
        job = yaml.safe_load(dry_run(dgxhost, args))
        errors = validate_mpijob.manifest_errors(schema, job)
        if errors:
            raise SystemExit(f"{name}: the manifest is invalid:\n" + "\n".join(errors))
        check_round_trip(name, job, args)
        jobs[name] = job
        print(f"valid: {name}")
    for breaking, expected in BREAKS:
        job = copy.deepcopy(jobs["plain"])
        breaking(job)
        errors = validate_mpijob.manifest_errors(schema, job)
        if not any(expected in e for e in errors):
            raise SystemExit(f"{breaking.__name__}: expected an error with {expected!r}, got {errors}")
        print(f"refused as it should be: {breaking.__name__}")
    # The command line too: a broken file makes it exit 1 naming the file and the field.
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        job = copy.deepcopy(jobs["plain"])
        set_slots_text(job)
        yaml.safe_dump(job, f)
    here = os.path.dirname(os.path.abspath(__file__))
    ran = subprocess.run([sys.executable, os.path.join(here, "validate_mpijob.py"), crd, f.name],
                         capture_output=True, text=True)
    os.unlink(f.name)
    if ran.returncode != 1 or f"{f.name}: spec.slotsPerWorker" not in ran.stdout:
        raise SystemExit(f"validate_mpijob.py on a broken manifest: exit {ran.returncode}, {ran.stdout}{ran.stderr}")
    # A line break YAML 1.1 reads as one (NEL, the line and paragraph separators) is refused wherever it is given,
    # and what does reach a manifest's comments is printed escaped: each manifest is one YAML document.
    for breaker in ["\u0085", "\u2028", "\u2029"]:
        for args in (["--nodes", "1", "--plugin", "spin", f"x{breaker}---{breaker}kind: Pod"],
                     ["--nodes", "1", "--dgxhost", f"/opt/y{breaker}---{breaker}kind: Pod", "--plugin", "spin"]):
            command = [dgxhost, "launch", "--scheduler", "kubernetes", "--dry-run"] + IMAGE + args
            ran = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, DGX_RUNS_DIR="off"))
            if ran.returncode != 2:
                raise SystemExit(f"{args}: expected exit 2 for the line break U+{ord(breaker):04X}, got "
                                 f"{ran.returncode}: {ran.stdout}")
    for name, args in CASES.items():
        if len(list(yaml.safe_load_all(dry_run(dgxhost, args)))) != 1:
            raise SystemExit(f"{name}: the manifest is more than one YAML document")
    print("mpijob manifests: all valid, all breaks refused")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
