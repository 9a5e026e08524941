#!/usr/bin/env python3
"""Checks that deploy/ and docker-compose.yml agree with the code (run by `make test`).

- every queue in Topology.swift has a worker Deployment, a KEDA ScaledObject and a compose service;
- every BUZZKIT_* variable the manifests and compose file set is read by Configuration.swift
  (or by the process scripts);
- probes hit /healthz and /readyz; the grace period outlasts the drain;
- one image name everywhere;
- every Kubernetes manifest validates (strictly) against the Kubernetes API schemas
  (`kubernetes-validate`, pinned in scripts/services.sh), and KEDA's ScaledObject and
  TriggerAuthentication against scripts/schemas/keda.json; both validators must also refuse a
  known-bad sample, so the check cannot pass vacuously.
Prints one line per problem and exits 1 when there is any. Runs with the tools venv's Python
(`.tools/venv/bin/python`, made by `scripts/services.sh install`).
"""
import json, pathlib, re, subprocess, sys, tempfile
import jsonschema
import yaml

KUBERNETES_VERSION = "1.30.0"

root = pathlib.Path(__file__).resolve().parent.parent
problems = []

topology = (root / "Sources/BuzzServer/Topology.swift").read_text()
queues = re.findall(r'case \w+ = "([a-z-]+)"', topology) + [q for q in re.findall(r'case (\w+)\n', topology) if q == "trigger"]
queues = sorted(set(queues))
configuration = (root / "Sources/BuzzServer/Configuration.swift").read_text()
known_vars = set(re.findall(r'"(BUZZKIT_[A-Z0-9_]+)"', configuration))

docs = []
for path in sorted((root / "deploy").glob("*.yaml")):
    for doc in yaml.safe_load_all(path.read_text()):
        if doc:
            docs.append((path.name, doc))

def kind(k):
    return [(p, d) for p, d in docs if d.get("kind") == k]

deployments = {d["metadata"]["name"]: d for _, d in kind("Deployment")}
scaled = {d["spec"]["scaleTargetRef"]["name"]: d for _, d in kind("ScaledObject")}
images = set()
for name, d in deployments.items():
    spec = d["spec"]["template"]["spec"]
    for c in spec["containers"]:
        images.add(c["image"])
        for e in c.get("env", []):
            if e["name"].startswith("BUZZKIT_") and e["name"] not in known_vars:
                problems.append(f"{name}: sets {e['name']}, which the code does not read")
    grace = spec.get("terminationGracePeriodSeconds", 30)
    drain = next((float(e["value"]) for c in spec["containers"] for e in c.get("env", []) if e["name"] == "BUZZKIT_SHUTDOWN_GRACE_SECONDS"), 20)
    if grace <= drain:
        problems.append(f"{name}: terminationGracePeriodSeconds {grace} does not outlast the {drain}s drain")

for q in queues:
    name = f"buzzkit-worker-{q}"
    if name not in deployments:
        problems.append(f"queue {q}: no Deployment {name}")
    else:
        args = deployments[name]["spec"]["template"]["spec"]["containers"][0]["args"]
        if args != ["worker", "--queues", q]:
            problems.append(f"{name}: args {args} do not consume {q}")
    if name not in scaled:
        problems.append(f"queue {q}: no ScaledObject for {name}")
    else:
        trigger = scaled[name]["spec"]["triggers"][0]
        if trigger["type"] != "rabbitmq" or trigger["metadata"].get("queueName") != q:
            problems.append(f"{name}: its ScaledObject does not watch queue {q}")
        so = scaled[name]["spec"]
        # Interactive queues always keep a consumer; bulk lanes may scale to zero between campaigns.
        least = 0 if q.endswith("-bulk") else 1
        if not (least <= so.get("minReplicaCount", 0) <= so.get("maxReplicaCount", 0) and so.get("maxReplicaCount", 0) >= 1):
            problems.append(f"{name}: replica bounds are wrong")

api = deployments.get("buzzkit-api")
if not api:
    problems.append("no buzzkit-api Deployment")
else:
    c = api["spec"]["template"]["spec"]["containers"][0]
    if c.get("readinessProbe", {}).get("httpGet", {}).get("path") != "/readyz":
        problems.append("buzzkit-api: readiness probe is not /readyz")
    if c.get("livenessProbe", {}).get("httpGet", {}).get("path") != "/healthz":
        problems.append("buzzkit-api: liveness probe is not /healthz")
if "buzzkit-scheduler" not in deployments:
    problems.append("no buzzkit-scheduler Deployment")
if not kind("Job"):
    problems.append("no migrate Job")
if not any(d["spec"]["scaleTargetRef"]["name"] == "buzzkit-api" for _, d in kind("HorizontalPodAutoscaler")):
    problems.append("no HPA for the API")

compose = yaml.safe_load((root / "docker-compose.yml").read_text())
services = compose["services"]
for q in queues:
    service = services.get(f"worker-{q}")
    if not service or service.get("command") != ["worker", "--queues", q]:
        problems.append(f"docker-compose.yml: no worker-{q} service consuming {q}")
for name, service in services.items():
    if "image" in service and service["image"].startswith("buzzkit"):
        images.add(service["image"])
    for var in (service.get("environment") or {}):
        if var.startswith("BUZZKIT_") and var not in known_vars:
            problems.append(f"docker-compose.yml {name}: sets {var}, which the code does not read")
for _, job in kind("Job"):
    for c in job["spec"]["template"]["spec"]["containers"]:
        images.add(c["image"])
if len(images) != 1:
    problems.append(f"more than one image name: {sorted(images)}")

# Kubernetes API schemas, strictly (unknown fields refused).
validator = pathlib.Path(sys.executable).parent / "kubernetes-validate"
def kube_validate(paths):
    run = subprocess.run([str(validator), "--strict", "--quiet", "--no-warn", "-k", KUBERNETES_VERSION, *map(str, paths)],
                         capture_output=True, text=True)
    return run.returncode, (run.stdout + run.stderr).strip()
manifests = [p for p in sorted((root / "deploy").glob("*.yaml")) if p.name != "kustomization.yaml"]
code, output = kube_validate(manifests)
if code != 0:
    problems += [f"kubernetes schema: {line}" for line in output.splitlines() if line.strip()] or ["kubernetes-validate failed"]
with tempfile.NamedTemporaryFile("w", suffix=".yaml") as bad:
    bad.write("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad}\nspec:\n  replicas: two\n"
              "  selector: {matchLabels: {a: b}}\n  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n")
    bad.flush()
    if kube_validate([bad.name])[0] == 0:
        problems.append("kubernetes-validate accepted a Deployment with replicas: two (the schema check is not working)")

# KEDA's custom resources against our schema of their CRDs.
keda = json.loads((root / "scripts/schemas/keda.json").read_text())
def keda_errors(doc):
    schema = dict(keda, **{"$ref": f"#/$defs/{doc.get('kind')}"})
    return [f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
keda_docs = [(p, d) for p, d in docs if d.get("apiVersion", "").startswith("keda.sh/")]
for path, doc in keda_docs:
    if doc.get("kind") not in keda["$defs"]:
        problems.append(f"{path}: KEDA kind {doc.get('kind')} has no schema in scripts/schemas/keda.json")
        continue
    problems += [f"{path} {doc['kind']}/{doc['metadata'].get('name')}: {e}" for e in keda_errors(doc)]
bad_scaler = {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "bad"},
              "spec": {"scaleTargetRef": {"name": "x"}, "minReplicaCount": "1", "coolDownPeriod": 5,
                       "triggers": [{"type": "rabbitmq", "metadata": {"queueName": "q", "mode": "QueueLength", "value": "lots"}}]}}
if len(keda_errors(bad_scaler)) < 3:
    problems.append("the KEDA schema accepted a ScaledObject with three mistakes (the schema check is not working)")

for p in problems:
    print("check-deploy:", p)
print(f"check-deploy: {len(queues)} queues, {len(deployments)} deployments, {len(scaled)} scalers, {len(services)} compose services, "
      + f"{len(manifests)} manifest files against Kubernetes {KUBERNETES_VERSION}, {len(keda_docs)} KEDA resources; "
      + ("ok" if not problems else f"{len(problems)} problem(s)"))
sys.exit(1 if problems else 0)
