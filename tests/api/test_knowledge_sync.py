"""`worldstate knowledge sync DIR --group G` (CONTRACT §14 "reviewed like code"): a folder
of Markdown files with YAML front matter becomes the group's documents; a changed file a new
version with its path and the sync as cause; a removed file a retirement; twice changes
nothing; a bad file writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.cli.main import app as cli
from tests.api.conftest import Api
from tests.api.test_groups import group_of


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def sync(root: Path, group: str) -> str:
    out = CliRunner().invoke(cli, ["knowledge", "sync", str(root), "--group", group])
    assert out.exit_code == 0, out.output
    return out.output


@pytest.fixture
def folder(tmp_path: Path, neo4j_uri: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    write(
        tmp_path,
        "billing/edge-cases.md",
        "---\nname: billing/edge-cases\ndescription: Refunds and proration\n---\n"
        "# Edge\nRefund in 30 days.\n",
    )
    write(
        tmp_path, "Onboarding Guide.md", "---\ndescription: 'First week: accounts'\n---\nHello.\n"
    )
    write(tmp_path, ".git/HEAD.md", "not a document")
    return tmp_path


def test_a_folder_becomes_the_groups_documents_and_twice_changes_nothing(
    api: Api, other: Api, folder: Path
) -> None:
    """The first sync creates both documents (the second named from its path); the same
    folder again changes nothing and records nothing; an edited file is a new version with
    its path and the sync as cause; a removed file retires its document, and a document
    written otherwise (an edit over REST) is left alone."""
    group = group_of(api, other)
    first = sync(folder, group)
    assert "2 created, 0 changed, 0 retired, 0 unchanged" in first
    names = [d["name"] for d in other.get("/v1/knowledge", params={"group": group}).json()["items"]]
    assert names == ["billing/edge-cases", "onboarding-guide"]
    doc = other.get("/v1/knowledge/billing/edge-cases", params={"group": group}).json()
    assert (doc["description"], doc["body"], doc["path"], doc["source"]) == (
        "Refunds and proration",
        "# Edge\nRefund in 30 days.",
        "billing/edge-cases.md",
        "sync",
    )
    versions_before = other.get(
        "/v1/knowledge/billing/edge-cases/versions", params={"group": group}
    )
    assert "0 created, 0 changed, 0 retired, 2 unchanged" in sync(folder, group)
    assert (
        other.get("/v1/knowledge/billing/edge-cases/versions", params={"group": group}).json()
        == versions_before.json()
    )
    api.client.put(
        f"/v1/knowledge/by-hand?group={group}", json={"body": "typed"}, headers=api.headers
    )
    write(
        folder,
        "billing/edge-cases.md",
        "---\nname: billing/edge-cases\ndescription: Refunds\n---\nNew.\n",
    )
    (folder / "Onboarding Guide.md").unlink()
    third = sync(folder, group)
    assert "changed: billing/edge-cases" in third and "retired: onboarding-guide" in third
    versions = other.get(
        "/v1/knowledge/billing/edge-cases/versions", params={"group": group}
    ).json()["items"]
    assert [v["version"] for v in versions] == [1, 2]
    assert versions[1]["reason"] == "synced from billing/edge-cases.md"
    assert (
        versions[1]["event_id"].startswith("syn_")
        and versions[1]["event_id"] != versions[0]["event_id"]
    )
    assert other.get("/v1/knowledge/onboarding-guide", params={"group": group}).status_code == 404
    assert other.get("/v1/knowledge/by-hand", params={"group": group}).status_code == 200


def test_a_bad_file_writes_nothing(api: Api, folder: Path) -> None:
    """Broken YAML, or a name out of bounds, exits 1 naming the file, and writes nothing."""
    group = group_of(api)
    write(folder, "broken.md", "---\nname: [unclosed\n---\nx\n")
    out = CliRunner().invoke(cli, ["knowledge", "sync", str(folder), "--group", group])
    assert out.exit_code == 1 and "broken.md" in out.output
    (folder / "broken.md").unlink()
    write(folder, "bad.md", "---\nname: Not A Slug\n---\nx\n")
    out = CliRunner().invoke(cli, ["knowledge", "sync", str(folder), "--group", group])
    assert out.exit_code == 1 and "name" in out.output
    assert api.get("/v1/knowledge", params={"group": group}).json()["items"] == []
    out = CliRunner().invoke(cli, ["knowledge", "sync", str(folder), "--group", "grp_nope"])
    assert out.exit_code == 1


def test_an_owners_own_folder_and_exactly_one_target(api: Api, folder: Path) -> None:
    """`--owner O` makes the owner's own documents match the folder (group null); giving
    both `--group` and `--owner`, or neither, exits 2 and writes nothing."""
    for args in (["--owner", api.owner, "--group", "grp_x"], []):
        out = CliRunner().invoke(cli, ["knowledge", "sync", str(folder), *args])
        assert out.exit_code == 2 and "exactly one" in out.output
    assert api.get("/v1/knowledge").json()["items"] == []
    out = CliRunner().invoke(cli, ["knowledge", "sync", str(folder), "--owner", api.owner])
    assert out.exit_code == 0 and "2 created" in out.output, out.output
    docs = api.get("/v1/knowledge").json()["items"]
    assert [(d["name"], d["group"], d["source"]) for d in docs] == [
        ("billing/edge-cases", None, "sync"),
        ("onboarding-guide", None, "sync"),
    ]
