#!/usr/bin/env python3
"""Checks that deploy/ and docker-compose.yml agree with the code (run by `make test`).

- every queue in Topology.swift has a worker Deployment, a KEDA ScaledObject and a compose service;
- every BUZZKIT_* variable the manifests and compose file set is read by Configuration.swift
  (or by the process scripts);
- probes hit /healthz and /readyz; the grace period outlasts the drain;
- one image name everywhere;
- every Kubernetes manifest validates (strictly) against the Kubernetes API schemas
  (`kubernetes-validate`, pinned in scripts/services.sh), and the operators' custom resources
  against pinned copies of their CRD schemas in scripts/schemas/ (KEDA's ScaledObject and
  TriggerAuthentication, the RabbitMQ Cluster Operator's RabbitmqCluster, CloudNativePG's
  Cluster); every validator must also refuse a known-bad sample, so the check cannot pass
  vacuously;
- the Deployments and the Job take their URLs from the Secrets of the declared clusters (every
  RabbitMQ node listed; PostgreSQL's owner URI), which replicate: 3 RabbitMQ nodes, a
  synchronous PostgreSQL standby.
Prints one line per problem and exits 1 when there is any. Runs with the tools venv's Python
(`.tools/venv/bin/python`, made by `scripts/services.sh install`).
"""
import json, pathlib, re, subprocess, sys, tempfile
import jsonschema
import yaml

KUBERNETES_VERSION = "1.30.0"

root = pathlib.Path(__file__).resolve().parent.parent
problems = []

topology = (root / "Sources/BuzzServerCore/Topology.swift").read_text()
queues = re.findall(r'case \w+ = "([a-z-]+)"', topology) + [q for q in re.findall(r'case (\w+)\n', topology) if q == "trigger"]
queues = sorted(set(queues))
# The configuration and the settings it reads (rate limits, lanes, retention, completion).
settings = [root / "Sources/BuzzServer/Configuration.swift"] + sorted((root / "Sources").glob("Buzz*/*Settings.swift")) \
    + [root / "Sources/BuzzServerCore/RateLimits.swift"]
known_vars = set(v for path in settings for v in re.findall(r'"(BUZZKIT_[A-Z0-9_]+)"', path.read_text()))

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

# Custom resources against pinned copies of their operators' CRD schemas (scripts/schemas/):
# KEDA's scalers, the RabbitMQ Cluster Operator's RabbitmqCluster, CloudNativePG's Cluster.
crd_schemas = {"keda.sh/": "keda.json", "rabbitmq.com/": "rabbitmq-cluster.json", "postgresql.cnpg.io/": "cnpg-cluster.json"}
loaded = {prefix: json.loads((root / "scripts/schemas" / name).read_text()) for prefix, name in crd_schemas.items()}
def schema_for(doc):
    return next(((prefix, loaded[prefix]) for prefix in loaded if doc.get("apiVersion", "").startswith(prefix)), (None, None))
def crd_errors(doc):
    prefix, schema = schema_for(doc)
    schema = dict(schema, **{"$ref": f"#/$defs/{doc.get('kind')}"})
    return [f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}"
            for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]
custom_docs = [(p, d) for p, d in docs if schema_for(d)[0]]
for path, doc in custom_docs:
    prefix, schema = schema_for(doc)
    if doc.get("kind") not in schema["$defs"]:
        problems.append(f"{path}: kind {doc.get('kind')} has no schema in scripts/schemas/{crd_schemas[prefix]}")
        continue
    problems += [f"{path} {doc['kind']}/{doc['metadata'].get('name')}: {e}" for e in crd_errors(doc)]
keda_docs = [d for _, d in custom_docs if d["apiVersion"].startswith("keda.sh/")]
# Each schema must refuse a sample with known mistakes, so the check cannot pass vacuously.
bad_samples = [
    ({"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "bad"},
      "spec": {"scaleTargetRef": {"name": "x"}, "minReplicaCount": "1", "coolDownPeriod": 5,
               "triggers": [{"type": "rabbitmq", "metadata": {"queueName": "q", "mode": "QueueLength", "value": "lots"}}]}}, 3),
    ({"apiVersion": "rabbitmq.com/v1beta1", "kind": "RabbitmqCluster", "metadata": {"name": "bad"},
      "spec": {"replicas": "three", "replicaz": 3, "persistence": {"storage": "lots"}}}, 3),
    ({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster", "metadata": {"name": "bad"},
      "spec": {"instances": "two", "storage": {"sise": "1Gi"}, "postgresql": {"parameters": {"max_connections": 200}}}}, 3),
]
for sample, least in bad_samples:
    if len(crd_errors(sample)) < least:
        problems.append(f"the {sample['kind']} schema accepted a sample with {least} mistakes (the schema check is not working)")

# The Deployments use the clusters the manifests declare, through their operators' Secrets.
rabbit = [d for _, d in kind("RabbitmqCluster")]
postgres = [d for _, d in kind("Cluster") if d["apiVersion"].startswith("postgresql.cnpg.io/")]
if len(rabbit) != 1 or rabbit[0]["spec"].get("replicas", 1) < 3:
    problems.append("deploy/ needs one RabbitmqCluster of at least 3 replicas (quorum queues survive one node's loss)")
if len(postgres) != 1 or postgres[0]["spec"].get("instances", 3) < 2:
    problems.append("deploy/ needs one CloudNativePG Cluster with a standby (instances >= 2)")
elif postgres[0]["spec"].get("postgresql", {}).get("synchronous", {}).get("number", 0) < 1:
    problems.append("the CloudNativePG Cluster does not replicate synchronously (a failover could lose commits)")
if rabbit and postgres:
    rabbit_name, pg_name = rabbit[0]["metadata"]["name"], postgres[0]["metadata"]["name"]
    replicas = rabbit[0]["spec"].get("replicas", 1)
    workloads = list(deployments.items()) + [(d["metadata"]["name"], d) for _, d in kind("Job")]
    for name, d in workloads:
        for c in d["spec"]["template"]["spec"]["containers"]:
            env = {e["name"]: e for e in c.get("env", [])}
            db = env.get("BUZZKIT_DATABASE_URL", {}).get("valueFrom", {}).get("secretKeyRef", {})
            if (db.get("name"), db.get("key")) != (f"{pg_name}-app", "uri"):
                problems.append(f"{name}: BUZZKIT_DATABASE_URL does not come from the {pg_name}-app Secret's uri")
            amqp = env.get("BUZZKIT_AMQP_URL", {}).get("value", "")
            nodes = [u for u in amqp.split(",") if u]
            wanted = [f"{rabbit_name}-server-{i}.{rabbit_name}-nodes" for i in range(replicas)]
            if [any(f"@{w}:" in u for u in nodes) for w in wanted] != [True] * replicas or len(nodes) != replicas:
                problems.append(f"{name}: BUZZKIT_AMQP_URL does not list each of the {replicas} {rabbit_name} nodes once")
            for var in ("RABBITMQ_USER", "RABBITMQ_PASSWORD"):
                ref = env.get(var, {}).get("valueFrom", {}).get("secretKeyRef", {})
                if ref.get("name") != f"{rabbit_name}-default-user":
                    problems.append(f"{name}: {var} does not come from the {rabbit_name}-default-user Secret")

for p in problems:
    print("check-deploy:", p)
print(f"check-deploy: {len(queues)} queues, {len(deployments)} deployments, {len(scaled)} scalers, {len(services)} compose services, "
      + f"{len(manifests)} manifest files against Kubernetes {KUBERNETES_VERSION}, {len(keda_docs)} KEDA resources, "
      + f"{len(rabbit)} RabbitmqCluster and {len(postgres)} CloudNativePG Cluster against their CRDs; "
      + ("ok" if not problems else f"{len(problems)} problem(s)"))
sys.exit(1 if problems else 0)
