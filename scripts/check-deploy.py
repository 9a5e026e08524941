#!/usr/bin/env python3
"""Checks that deploy/ and docker-compose.yml agree with the code (run by `make test`).

- every queue in Topology.swift has a worker Deployment, a KEDA ScaledObject and a compose service;
- every BUZZKIT_* variable the manifests and compose file set is read by Configuration.swift
  (or by the process scripts);
- probes hit /healthz and /readyz; the grace period outlasts the drain;
- one image name everywhere.
Prints one line per problem and exits 1 when there is any.
"""
import pathlib, re, sys
import yaml

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
        if not (1 <= so.get("minReplicaCount", 0) <= so.get("maxReplicaCount", 0)):
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

for p in problems:
    print("check-deploy:", p)
print(f"check-deploy: {len(queues)} queues, {len(deployments)} deployments, {len(scaled)} scalers, {len(services)} compose services; "
      + ("ok" if not problems else f"{len(problems)} problem(s)"))
sys.exit(1 if problems else 0)
