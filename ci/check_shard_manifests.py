#!/usr/bin/env python3
"""Checks the two campaign manifests and runs their commands locally.

ci/k8s/shale-campaign.yaml (a Kubernetes Indexed Job) and
ci/github/shale-matrix.yml (a GitHub Actions matrix) each split a campaign
into shards and merge the shards' reports. This script

  1. parses both and checks the fields that make them correct: indexed
     completion, completions = parallelism = SHALE_SHARD_COUNT, the shard
     each pod or job takes, where reports go, and the merge step;
  2. runs the same shell commands here, with a small seed range: every
     shard (JOB_COMPLETION_INDEX 0..N-1, or matrix.shard 1..N), then the
     merge, with `shale` (or build/shale) being the binary given and the
     shared volume or artifacts being a temporary directory;
  3. checks that each merged report equals one run over the same seeds:
     the same (scenario, seed, trace hash, verdict) for every seed.

Usage: check_shard_manifests.py SHALE_BINARY [REPO_ROOT]
Exit: 0 all good, 1 a check failed (one line says which), 2 bad usage.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

SEEDS = "1..24"  # every scenario of `all`, a few seeds each: seconds


def fail(message):
    print("check_shard_manifests: " + message)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def env_of(container):
    return {e["name"]: e["value"] for e in container.get("env", [])}


def verdicts(report_path):
    with open(report_path) as f:
        report = json.load(f)
    return sorted((e["scenario"], e["seed"], e["trace_hash"], e["verdict"])
                  for e in report["entries"])


def run_shell(command, env, cwd):
    result = subprocess.run(["/bin/sh", "-c", command], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        fail("command failed (exit %d): %s\n%s" % (result.returncode, command,
                                                   result.stdout[-2000:]))


def check_k8s(root, shale, work, expected):
    docs = list(yaml.safe_load_all(open(os.path.join(root, "ci/k8s/shale-campaign.yaml"))))
    expect(len(docs) == 2, "k8s: want two documents (the shard Job, the merge Job)")
    job, merge = docs
    expect(job["kind"] == "Job" and job["apiVersion"] == "batch/v1", "k8s: not a batch/v1 Job")
    spec = job["spec"]
    expect(spec.get("completionMode") == "Indexed", "k8s: completionMode is not Indexed")
    pod = spec["template"]["spec"]
    expect(pod.get("restartPolicy") == "Never", "k8s: restartPolicy must be Never")
    (shard,) = pod["containers"]
    env = env_of(shard)
    count = int(env["SHALE_SHARD_COUNT"])
    expect(spec["completions"] == count, "k8s: completions != SHALE_SHARD_COUNT")
    expect(spec["parallelism"] == count, "k8s: parallelism != SHALE_SHARD_COUNT")
    command = shard["args"][0]
    expect("--shard auto" in command, "k8s: the shard pod does not run --shard auto")
    expect("$JOB_COMPLETION_INDEX" in command, "k8s: each pod must write its own directory")
    jobs = re.search(r"--jobs (\d+)", command)
    expect(jobs is not None and jobs.group(1) == str(shard["resources"]["requests"]["cpu"]),
           "k8s: --jobs must equal the pod's CPU request (a container sees the node's cores)")
    mount = shard["volumeMounts"][0]["mountPath"]
    expect(mount in command, "k8s: the report is not written to the shared volume")
    (merger,) = merge["spec"]["template"]["spec"]["containers"]
    merge_command = merger["args"][0]
    expect("shale report merge" in merge_command, "k8s: the merge Job does not merge")
    (waiter,) = merge["spec"]["template"]["spec"]["initContainers"]
    expect(env_of(waiter)["SHALE_SHARD_COUNT"] == str(count),
           "k8s: the merge waits for a different shard count")

    # The pods, one after another, on a temporary "volume".
    volume = os.path.join(work, "k8s")
    os.makedirs(volume)
    base = dict(os.environ, PATH=shale_dir(shale, work) + ":" + os.environ["PATH"])
    for index in range(count):
        pod_env = dict(base, **env)
        pod_env.update(SHALE_SEEDS=SEEDS, JOB_COMPLETION_INDEX=str(index))
        run_shell(command.replace(mount, volume), pod_env, work)
    run_shell(waiter["args"][0].replace(mount, volume), dict(base, **env_of(waiter)), work)
    run_shell(merge_command.replace(mount, volume), base, work)
    merged = verdicts(os.path.join(volume, "merged.json"))
    expect(merged == expected, "k8s: the merged report differs from the single run")
    return count


def check_github(root, shale, work, expected):
    doc = yaml.safe_load(open(os.path.join(root, "ci/github/shale-matrix.yml")))
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    expect(triggers is not None, "github: no trigger")
    count = int(doc["env"]["SHALE_SHARD_COUNT"])
    shard_job = doc["jobs"]["shard"]
    shards = shard_job["strategy"]["matrix"]["shard"]
    expect(shards == list(range(1, count + 1)), "github: the matrix is not shards 1..N")
    expect(shard_job["strategy"].get("fail-fast") is False,
           "github: fail-fast would cancel shards when one finds a failure")
    run_step = next(s for s in shard_job["steps"] if s.get("name") == "run")
    run_command = run_step["run"]
    expect('--shard "${{ matrix.shard }}/$SHALE_SHARD_COUNT"' in run_command,
           "github: the run step does not take its matrix shard")
    merge_job = doc["jobs"]["merge"]
    expect(merge_job.get("needs") == "shard", "github: the merge does not wait for the shards")
    merge_command = next(s for s in merge_job["steps"] if s.get("name") == "merge")["run"]
    expect("report merge" in merge_command, "github: the merge job does not merge")

    # The matrix jobs in one checkout; artifacts land as shards/shard-K/.
    checkout = os.path.join(work, "github")
    os.makedirs(os.path.join(checkout, "build"))
    os.symlink(shale, os.path.join(checkout, "build", "shale"))
    env = dict(os.environ, SHALE_SHARD_COUNT=str(count), SHALE_SEEDS=SEEDS)
    for k in shards:
        run_shell(run_command.replace("${{ matrix.shard }}", str(k)), env, checkout)
        shutil.copytree(os.path.join(checkout, "out", "shard-%d" % k),
                        os.path.join(checkout, "shards", "shard-%d" % k))
    run_shell(merge_command, env, checkout)
    merged = verdicts(os.path.join(checkout, "merged.json"))
    expect(merged == expected, "github: the merged report differs from the single run")
    return count


def shale_dir(shale, work):
    """A directory whose `shale` is the binary under test."""
    bin_dir = os.path.join(work, "bin")
    if not os.path.isdir(bin_dir):
        os.makedirs(bin_dir)
        os.symlink(shale, os.path.join(bin_dir, "shale"))
    return bin_dir


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: check_shard_manifests.py SHALE_BINARY [REPO_ROOT]", file=sys.stderr)
        sys.exit(2)
    shale = os.path.abspath(sys.argv[1])
    root = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(__file__), "..")
    with tempfile.TemporaryDirectory() as work:
        single = os.path.join(work, "single")
        run_shell("'%s' run --scenario all --seeds %s --out '%s'; test $? -le 1" %
                  (shale, SEEDS, single), dict(os.environ), work)
        expected = verdicts(os.path.join(single, "report.json"))
        expect(len(expected) > 0, "the single run reported no seeds")
        k8s = check_k8s(root, shale, work, expected)
        github = check_github(root, shale, work, expected)
    print("check_shard_manifests: OK (k8s %d shards, github %d shards, %d seed runs each equal "
          "to one run)" % (k8s, github, len(expected)))


if __name__ == "__main__":
    main()
