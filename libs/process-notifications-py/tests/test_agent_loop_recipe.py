"""docs/agent-loop.md's Python loop, exactly as a user copies it: the wheel built with Debian's
Python and setuptools, installed into a fresh virtual environment outside this repository, the
recipe checked with ``mypy --strict`` against the installed package and run there, against the
real server and the real supervisor (``npx pn-supervise``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from process_notifications import Client

from support import ADMIN_TOKEN, REPO, ServerProcess, node

PACKAGE = REPO / "libs" / "process-notifications-py"
SUPERVISOR = REPO / "libs" / "pn-supervise"


def recipe() -> str:
    page = (REPO / "docs" / "agent-loop.md").read_text()
    match = re.search(r"<!-- agent-loop-example-python -->\n```python\n(.*?)```", page, re.S)
    assert match, "docs/agent-loop.md has no <!-- agent-loop-example-python --> block"
    return match.group(1)


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_recipe_launches_a_command_waits_reads_exit_code_3_and_consumes(server: ServerProcess, tmp_path: Path) -> None:
    # The user's side, outside the repository: no PYTHONPATH, nothing of the repository's sources.
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_NO_INDEX"] = "1"  # nothing comes from a package index

    # The wheel, built as docs/python.md says, from a copy (the build leaves build/ and *.egg-info behind).
    source = tmp_path / "source"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "build", "dist", "*.egg-info", "__pycache__", ".*"))
    run(["/usr/bin/python3", "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", "dist", "."], source, env)
    [wheel] = (source / "dist").glob("process_notifications-*-py3-none-any.whl")

    # The project: a fresh virtual environment that sees Debian's httpx, with the wheel installed.
    project = tmp_path / "my-agent"
    project.mkdir()
    run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", ".venv"], project, env)
    python = project / ".venv" / "bin" / "python"
    run([str(project / ".venv" / "bin" / "pip"), "install", "--no-index", "--no-deps", str(wheel)], project, env)
    where = run([str(python), "-c", "import process_notifications; print(process_notifications.__file__)"], project, env)
    assert where.strip().startswith(str(project / ".venv")), where

    # The supervisor in the project's node_modules, linked to this repository's build as an
    # install of its tarball would place it, so that `npx pn-supervise` finds it.
    (project / "node_modules" / ".bin").mkdir(parents=True)
    (project / "node_modules" / "pn-supervise").symlink_to(SUPERVISOR)
    (project / "node_modules" / "process-notifications-client").symlink_to(REPO / "libs" / "process-notifications-client")
    bin_path = json.loads((SUPERVISOR / "package.json").read_text())["bin"]["pn-supervise"]
    shim = project / "node_modules" / ".bin" / "pn-supervise"
    shim.write_text(f'#!/bin/sh\nexec "{node()}" "{project / "node_modules" / "pn-supervise" / bin_path}" "$@"\n')
    shim.chmod(0o755)

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
