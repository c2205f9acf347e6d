"""docs/agent-loop.md's Python loop, exactly as a user copies it: the page's install block run
as written with ``sh -c`` (the wheel built with Debian's Python in this repository, installed
into a fresh virtual environment outside it, and the supervisor installed there from its packed
tarball), the recipe checked with ``mypy --strict`` against the installed package and run there,
against the real server and the real supervisor (``npx pn-supervise``); and the page's loop
workers (threads and asyncio), checked and run there the same way."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from process_notifications import Client

from support import ADMIN_TOKEN, REPO, ServerProcess, completed_record, notification

# As test/support/doc-commands.ts tells npm: the cache first, no audit or fund requests, and no
# install scripts (the libraries are built before the tests run; their prepack would build again).
NPM_ENV = {
    "npm_config_prefer_offline": "true",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_update_notifier": "false",
    "npm_config_loglevel": "error",
    "npm_config_ignore_scripts": "true",
}


def recipe(marker: str = "agent-loop-example-python") -> str:
    page = (REPO / "docs" / "agent-loop.md").read_text()
    match = re.search(rf"<!-- {marker} -->\n```python\n(.*?)```", page, re.S)
    assert match, f"docs/agent-loop.md has no <!-- {marker} --> block"
    return match.group(1)


def install_steps() -> tuple[list[str], list[str]]:
    """The commands of the page's Python install block (as test/support/doc-commands.ts reads a
    block), split where it says "In your project"; `npm run build` is left out: the test run has
    built already, and building again takes a minute."""
    page = (REPO / "docs" / "agent-loop.md").read_text()
    match = re.search(r"<!-- agent-loop-install-python -->\n```sh\n(.*?)```", page, re.S)
    assert match, "docs/agent-loop.md has no <!-- agent-loop-install-python --> sh block"
    lines = match.group(1).split("\n")
    [split] = [i for i, line in enumerate(lines) if line.startswith("# In your project")]
    return commands("\n".join(lines[:split])), commands("\n".join(lines[split:]))


def source_tree_state() -> str:
    """What git sees of the Python package's tree, ignored files included (but for the caches
    the tests themselves write)."""
    return run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "--", "libs/process-notifications-py", ":!*cache*"],
        REPO,
    )


def commands(block: str) -> list[str]:
    lines = (re.sub(r"(^|\s)#.*$", "", line).strip() for line in block.replace("\\\n", " ").split("\n"))
    return [line for line in lines if line and line != "npm run build"]


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@dataclass(frozen=True)
class Project:
    """The user's project outside the repository, installed as the page says."""

    directory: Path
    python: Path
    env: dict[str, str]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """docs/agent-loop.md's Python install block, run once for this module's tests (before their
    watchdog starts: building and installing takes minutes on a loaded machine)."""
    tmp_path = tmp_path_factory.mktemp("agent-loop")
    # The user's side, outside the repository: no PYTHONPATH, nothing of the repository's sources.
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_NO_INDEX"] = "1"  # nothing comes from a package index
    # PATH as it is: the page names the interpreter it needs, whatever `python3` comes first.
    env.update(NPM_ENV)

    # docs/agent-loop.md's install block as written, the repository's part in the repository and
    # the project's in the project, each command with `sh -c`: its `PN_PACKAGES=$(mktemp -d)` is
    # given as the environment instead (a variable would not outlive its shell).
    scratch = tmp_path / "packages"
    scratch.mkdir()
    env["PN_PACKAGES"] = str(scratch)
    project = tmp_path / "my-agent"
    project.mkdir()
    in_repository, in_project = install_steps()
    assert in_repository[0] == "PN_PACKAGES=$(mktemp -d)", in_repository
    package_tree = source_tree_state()
    for command in in_repository[1:]:
        run(["sh", "-c", command], REPO, env)
    # Building the wheel left the package's source tree as it was (no egg-info, no build/).
    assert source_tree_state() == package_tree
    for command in in_project:
        run(["sh", "-c", command], project, env)
    python = project / ".venv" / "bin" / "python"
    where = run([str(python), "-c", "import process_notifications; print(process_notifications.__file__)"], project, env)
    assert where.strip().startswith(str(project / ".venv")), where
    # The supervisor installed from its tarball, not linked to this repository.
    installed = project / "node_modules" / "pn-supervise"
    assert installed.is_dir() and not installed.is_symlink(), installed
    assert (project / "node_modules" / ".bin" / "pn-supervise").exists()

    return Project(project, python, env)


def test_the_recipe_launches_a_command_waits_reads_exit_code_3_and_consumes(server: ServerProcess, installed: Project) -> None:
    project, python, env = installed.directory, installed.python, installed.env
    script = project / "agent_loop.py"
    script.write_text(recipe())
    # Typed as written: mypy --strict finds the installed package's py.typed in the environment.
    run([sys.executable, "-m", "mypy", "--strict", "--python-executable", str(python), str(script)], project, env)

    with Client(server.url, ADMIN_TOKEN) as admin:
        session = admin.create_session()
        loop = admin.open_loop(session.session_id)
    output = run(
        [str(python), str(script)],
        project,
        {
            **env,
            "PN_SERVER_URL": server.url,
            "PN_TOKEN": session.token,
            "PN_SESSION_ID": session.session_id,
            "PN_LOOP_ID": loop.loop_id,
            "PN_SUPERVISOR_STATE_DIR": str(project / ".pn-supervisor"),
        },
    )
    result = json.loads(output.strip().splitlines()[-1])
    assert (result["exit_code"], result["consumed"], result["supervisor_status"]) == (3, True, 3)

    # What the server holds: the completed record names the command, and nothing is left pending.
    with Client(server.url, session.token) as client:
        records = client.journal(session.session_id).records
        assert [r.payload and r.payload.get("command_id") for r in records if r.kind == "completed"] == [result["command_id"]]
        assert client.pending_notifications(session.session_id, loop.loop_id) == []


@pytest.mark.parametrize("marker", ["agent-loop-worker-python", "agent-loop-worker-python-async"])
def test_the_page_s_worker_is_given_each_completion_with_its_exit_code_and_consumes_it(
    server: ServerProcess, installed: Project, marker: str
) -> None:
    """The workers of "Following every completion of a loop" (threads and asyncio), as written:
    saves the page's worker, checks it with mypy --strict against the installed package, runs
    it on a fresh loop while two completions are delivered (one with its outcome record first,
    one with none), waits until both are consumed, and stops it with SIGTERM: it exits 0 once the
    work in flight is done, having printed each with its exit code (None for the one without)."""
    project, python, env = installed.directory, installed.python, installed.env
    script = project / f"{marker}.py"
    script.write_text(recipe(marker))
    run([sys.executable, "-m", "mypy", "--strict", "--python-executable", str(python), str(script)], project, env)
    with Client(server.url, ADMIN_TOKEN) as admin:
        session = admin.create_session()
        loop = admin.open_loop(session.session_id)
    where = {"PN_SERVER_URL": server.url, "PN_TOKEN": session.token, "PN_SESSION_ID": session.session_id, "PN_LOOP_ID": loop.loop_id}
    worker = subprocess.Popen([str(python), str(script)], cwd=project, env={**env, **where}, stdout=subprocess.PIPE, text=True)
    try:
        with Client(server.url, session.token) as client:
            first = notification(session.session_id, loop.loop_id)
            second = notification(session.session_id, loop.loop_id)
            client.publish_lifecycle(completed_record(first, 0))
            client.deliver_completion(first)
            client.deliver_completion(second)  # from a supervisor that sends no lifecycle record
            until = time.monotonic() + 120
            while client.pending_notifications(session.session_id, loop.loop_id):
                assert worker.poll() is None, f"{marker} exited {worker.returncode}"
                assert time.monotonic() < until, f"{marker} consumed nothing in time"
                time.sleep(0.05)
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, output
    printed = [json.loads(line) for line in output.splitlines() if line.strip()]
    assert sorted(printed, key=lambda p: str(p["exit_code"])) == [
        {"command_id": first["command_id"], "exit_code": 0},
        {"command_id": second["command_id"], "exit_code": None},
    ]
