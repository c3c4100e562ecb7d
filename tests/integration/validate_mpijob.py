#!/usr/bin/python3
"""Validates MPIJob manifests as a cluster would before running them.

Usage: validate_mpijob.py CRD MANIFEST...

CRD is the MPI Operator's CustomResourceDefinition (kubeflow.org_mpijobs.yaml). Each MANIFEST is checked against
the OpenAPI v3 schema of its v2beta1 version with unknown fields refused, as `kubectl apply` does by default
(--validate=strict), then against what the operator's own validation (pkg/apis/kubeflow/validation) and the API
server's pod validation would refuse later, when the pods are made. Exits 0 when every manifest is valid, else 1
with one line per error: "MANIFEST: path.to.field: what is wrong".

Needs Debian's python3-yaml and python3-jsonschema (run with /usr/bin/python3).
"""

import re
import sys

import jsonschema
import yaml

DNS_1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
DNS_1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def strict(node):
    """The schema with every object that lists its properties closed to others, unless it preserves unknown fields:
    the API server's strict field validation."""
    if isinstance(node, list):
        return [strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: strict(value) for key, value in node.items()}
    if (out.get("type") == "object" and isinstance(out.get("properties"), dict)
            and "additionalProperties" not in out and not out.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


def crd_schema(crd_path):
    with open(crd_path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    for version in crd["spec"]["versions"]:
        if version["name"] == "v2beta1":
            return strict(version["schema"]["openAPIV3Schema"])
    raise SystemExit(f"{crd_path}: no v2beta1 version in this CRD")


def schema_errors(schema, job):
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(job), key=lambda e: list(e.absolute_path))
    return [".".join(str(p) for p in e.absolute_path) + ": " + e.message for e in errors]


def pod_errors(role, pod):
    """What the API server refuses when the operator creates the pod: container names, mounts of missing volumes."""
    errors = []
    volumes = {v.get("name") for v in pod.get("volumes", [])}
    names = set()
    for i, container in enumerate(pod.get("containers", [])):
        where = f"spec.mpiReplicaSpecs.{role}.template.spec.containers.{i}"
        name = container.get("name", "")
        if not DNS_1123_LABEL.fullmatch(name) or len(name) > 63 or name in names:
            errors.append(f"{where}.name: {name!r} is not a unique DNS-1123 label")
        names.add(name)
        for mount in container.get("volumeMounts", []):
            if mount.get("name") not in volumes:
                errors.append(f"{where}.volumeMounts: {mount.get('name')!r} names no volume of the pod")
    return errors


def operator_errors(job):
    """The MPI Operator's own checks, which it applies after the API server has stored the job."""
    errors = []
    spec = job.get("spec", {})
    replicas = spec.get("mpiReplicaSpecs", {})
    workers = replicas.get("Worker", {}).get("replicas", 1)
    host = f"{job.get('metadata', {}).get('name', '')}-worker-{max(workers, 1) - 1}"
    if not DNS_1035_LABEL.fullmatch(host) or len(host) > 63:
        errors.append(f"metadata.name: the pods would be named {host!r}, which is not a DNS-1035 label")
    if replicas.get("Launcher", {}).get("replicas") != 1:
        errors.append("spec.mpiReplicaSpecs.Launcher.replicas: must be 1")
    if spec.get("slotsPerWorker", 1) < 0:
        errors.append("spec.slotsPerWorker: must not be negative")
    if spec.get("runPolicy", {}).get("cleanPodPolicy", "Running") not in ("None", "Running", "All"):
        errors.append("spec.runPolicy.cleanPodPolicy: not None, Running or All")
    for role, replica in replicas.items():
        if replica.get("restartPolicy", "Never") not in ("Never", "OnFailure"):
            errors.append(f"spec.mpiReplicaSpecs.{role}.restartPolicy: not Never or OnFailure")
        pod = replica.get("template", {}).get("spec", {})
        if not pod.get("containers"):
            errors.append(f"spec.mpiReplicaSpecs.{role}.template.spec.containers: must define one at least")
        errors += pod_errors(role, pod)
    return errors


def manifest_errors(schema, job):
    """Every reason a cluster would refuse the MPIJob `job` (parsed YAML); empty when there is none."""
    if not isinstance(job, dict) or job.get("apiVersion") != "kubeflow.org/v2beta1" or job.get("kind") != "MPIJob":
        return ["not a kubeflow.org/v2beta1 MPIJob"]
    errors = schema_errors(schema, job)
    return errors if errors else operator_errors(job)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    schema = crd_schema(argv[1])
    failed = False
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            documents = [d for d in yaml.safe_load_all(f) if d is not None]
        errors = manifest_errors(schema, documents[0]) if len(documents) == 1 else ["expected one YAML document"]
        for error in errors:
            print(f"{path}: {error}")
        failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
