"""compose.cluster.yaml: three Neo4j Enterprise primaries, two API replicas behind a proxy,
two curator workers, and the licence acceptance required (README "Deployment").

No Docker engine runs here, so the file is checked two ways: its shape, read as YAML by
these tests; and the Compose Specification itself, by compose-go (the loader
`docker compose config` is built on, deploy/composecheck) when Go is on PATH, or by
`docker compose config` when the compose plugin answers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = ROOT / "compose.cluster.yaml"
PRIMARIES = ("neo4j1", "neo4j2", "neo4j3")
ENV = {"NEO4J_ACCEPT_LICENSE_AGREEMENT": "eval", "NEO4J_PASSWORD": "worldstate-test"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return yaml.safe_load(CLUSTER.read_text())  # type: ignore[no-any-return]


def test_three_enterprise_primaries_form_one_cluster(spec: dict[str, Any]) -> None:
    """Three primaries of Neo4j Enterprise, each discovering all three, hosting the
    default database on all three, each under its own advertised name and volume."""
    services = spec["services"]
    for name in PRIMARIES:
        primary = services[name]
        env = primary["environment"]
        assert primary["image"].startswith("neo4j:5.26") and "enterprise" in primary["image"]
        assert env["NEO4J_initial_server_mode__constraint"] == "PRIMARY"
        assert env["NEO4J_initial_dbms_default__primaries__count"] == "3"
        assert env["NEO4J_dbms_cluster_minimum__initial__system__primaries__count"] == "3"
        endpoints = env["NEO4J_dbms_cluster_discovery_v2_endpoints"].split(",")
        assert sorted(e.split(":")[0] for e in endpoints) == list(PRIMARIES)
        assert env["NEO4J_server_default__advertised__address"] == name
        assert primary["volumes"] == [f"{name}-data:/data"]
        assert "neo4j" in primary["networks"]["cluster"]["aliases"]


def test_the_licence_must_be_accepted_explicitly(spec: dict[str, Any]) -> None:
    """The acceptance variable has no default: the file is refused until it is set."""
    for name in PRIMARIES:
        value = spec["services"][name]["environment"]["NEO4J_ACCEPT_LICENSE_AGREEMENT"]
        assert value.startswith("${NEO4J_ACCEPT_LICENSE_AGREEMENT:?")


def test_api_replicas_behind_a_proxy_and_curator_workers(spec: dict[str, Any]) -> None:
    """Two API processes (the curator not in process) and two curator workers, all on a
    routing `neo4j://` URI; the proxy is the one published port."""
    services = spec["services"]
    api, curator, proxy = services["api"], services["curator"], services["proxy"]
    assert api["deploy"]["replicas"] == 2 and curator["deploy"]["replicas"] == 2
    assert api["environment"]["WORLDSTATE_CURATOR_IN_PROCESS"] == "false"
    assert curator["command"] == ["worldstate", "curator"]
    for service in (api, curator):
        assert service["environment"]["NEO4J_URI"].startswith("neo4j://")
        assert "ports" not in service
    assert "api" in proxy["depends_on"]
    assert "server api:8000 resolve;" in spec["configs"]["proxy-conf"]["content"]
    published = [name for name, s in services.items() if s.get("ports")]
    assert published == ["proxy"]


def _compose_config(env: dict[str, str]) -> subprocess.CompletedProcess[str] | None:
    """Run the Compose Specification's loader on the file with the variables `env` (and
    none of `ENV` from this process): compose-go through Go, else `docker compose
    config`; None when neither is available."""
    full = {k: v for k, v in os.environ.items() if k not in ENV} | env
    if shutil.which("go"):
        command = ["go", "-C", "deploy/composecheck", "run", ".", str(CLUSTER)]
    elif shutil.which("docker") and _docker_compose_answers():
        command = ["docker", "compose", "-f", str(CLUSTER), "config"]
    else:
        return None
    return subprocess.run(
        command, cwd=ROOT, env=full, capture_output=True, text=True, timeout=600, check=False
    )


def _docker_compose_answers() -> bool:
    done = subprocess.run(
        ["docker", "compose", "version"], capture_output=True, text=True, check=False
    )
    return done.returncode == 0


@pytest.mark.slow
def test_the_compose_specification_accepts_it() -> None:
    """The loader `docker compose config` uses resolves the file (schema, variables,
    merges) when the licence and password are set, and refuses it naming the licence
    variable when that is not."""
    accepted = _compose_config(ENV)
    if accepted is None:
        pytest.skip("neither Go nor the docker compose plugin is installed")
    assert accepted.returncode == 0, accepted.stderr
    resolved = yaml.safe_load(accepted.stdout)
    assert set(resolved["services"]) == {*PRIMARIES, "api", "proxy", "curator"}
    refused = _compose_config({"NEO4J_PASSWORD": "worldstate-test"})
    assert refused is not None and refused.returncode != 0
    assert "NEO4J_ACCEPT_LICENSE_AGREEMENT" in refused.stderr
