"""A local HTTP server that plays the Hugging Face Hub, Zenodo and plain download URLs, for offline tests.

Test support of this repository (moved out of the installed ``steb_core`` in issue 40); the obtain tests and the
neural plugin's ``steb models get`` tests use it.

steb must never reach the internet in tests, yet ``steb data get`` and ``steb models get`` talk to three
kinds of host. This module plays all three on ``127.0.0.1`` (a free port, one thread per request), so a
test points ``HF_ENDPOINT`` or ``STEB_DATA_MIRROR`` at :attr:`FakeServer.url` and exercises the real client
code (``huggingface_hub.snapshot_download``, steb's own downloader) end to end. Switches make the failure
paths testable: answer the next requests with an error status, stall a response mid-body, cut a body
short, or ignore ``Range`` headers. Every request is logged in :attr:`FakeServer.requests`.

Usage::

    from tests.support.fake_http import FakeServer

    with FakeServer() as server:
        url = server.add_file("files/corpus.zip", data)          # plain URL
        sha = server.add_hub_repo("org/name", "dataset", files={"train.jsonl": b"..."})
        server.add_zenodo_record("6411789", {"data.csv": b"..."})
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        server.fail_next(2, status=500)                          # the next two requests fail
        server.stall("files/corpus.zip", 5.0)                    # this path hangs for 5 s after its headers

Google Drive (what gdown requests, ``gdown/download.py`` 6.5.1): ``GET /uc?id=ID[&export=download]``
answers a small file with a redirect to ``https://drive.usercontent.google.com/download?id=ID&export=download``
(map that host to the server in ``STEB_DATA_MIRROR`` too), which serves the bytes with
``Content-Disposition: attachment``; a file added with ``confirm=True`` first gets Drive's virus-scan
warning page, whose one-line ``download-form`` carries ``confirm=t`` and a ``uuid``, and only a request with
both gets the file; ``quota=True`` answers Drive's "too many users" error page.

Hostile answers (issue 41): :meth:`FakeServer.endless` serves a body that never ends (optionally
announcing a huge ``Content-Length``), :meth:`FakeServer.trickle` one byte per interval, and
:meth:`FakeServer.add_zenodo_record` takes ``entries=`` overrides (a missing checksum, a ``file://`` link).

Hub endpoints played (those ``huggingface_hub`` 1.x/2.x use to download): ``/api/{datasets|models}/ID``
and ``.../revision/REV`` (repo info with ``sha`` and ``siblings``), ``/api/{kind}s/ID/tree/REV[/PATH]``
(file listing, ``recursive`` honoured), and ``HEAD``/``GET`` on ``[datasets/]ID/resolve/REV/PATH`` with the
``X-Repo-Commit``, ``ETag`` and ``Content-Length`` headers. Zenodo: ``/api/records/ID`` (files with
``checksum: "md5:..."`` and ``links.self``) and ``/api/records/ID/files/NAME/content``. Unknown paths get 404.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

__all__ = ["FakeServer", "LoggedRequest", "git_blob_sha1"]


def git_blob_sha1(data: bytes) -> str:
    """The git object id of a blob (what the hub reports as a file's ``oid``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True)
class LoggedRequest:
    """One request the server answered: method, path (without the query) and its ``Range`` header."""

    method: str
    path: str
    range: str | None
    status: int


@dataclass
class _HubRepo:
    repo_id: str
    kind: str  # "dataset" or "model"
    revision: str
    files: dict[str, bytes]
    refs: set[str] = field(default_factory=set)


class FakeServer:
    """A context manager serving files, hub repos and Zenodo records on ``http://127.0.0.1:PORT``.

    ``root`` (optional) is a folder whose files are served too, as ``/<relative path>``; files added
    with :meth:`add_file` are kept in memory. Switches (:meth:`fail_next`, :meth:`stall`, :meth:`cut`,
    :attr:`range_support`) may be changed while the server runs.
    """

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else None
        self._files: dict[str, bytes] = {}
        self._hub: dict[tuple[str, str], _HubRepo] = {}
        self._zenodo: dict[str, dict[str, bytes]] = {}
        self._zenodo_overrides: dict[str, dict[str, dict]] = {}
        self._drive: dict[str, tuple[str, bytes, bool, bool]] = {}
        self._drive_tokens: dict[str, str] = {}
        self._drive_actions: dict[str, str] = {}
        self._redirects: dict[str, str] = {}
        self._endless: dict[str, int | None] = {}
        self._trickle: dict[str, tuple[bytes, float]] = {}
        self._lock = threading.Lock()
        self._failures: list[tuple[int, str | None]] = []  # (status, path prefix or None), one entry per failure
        self._stalls: dict[str, tuple[float, int]] = {}
        self._cuts: dict[str, list[int]] = {}
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        #: answer ``Range: bytes=N-`` with 206 and the rest of the file; False: always 200 and the whole file
        self.range_support = True
        #: every request answered, in order
        self.requests: list[LoggedRequest] = []

    # -- lifecycle ---------------------------------------------------------------------------------------
    def __enter__(self) -> FakeServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Listen on a free port of 127.0.0.1 in a daemon thread."""
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="steb-fake-http", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving; stalled responses are released at once."""
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:PORT`` (no trailing slash)."""
        if self._httpd is None:
            raise RuntimeError("FakeServer is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # -- content -----------------------------------------------------------------------------------------
    def add_file(self, path: str, data: bytes) -> str:
        """Serve ``data`` at ``/path``; returns its full URL."""
        key = path.lstrip("/")
        with self._lock:
            self._files[key] = bytes(data)
        return f"{self.url}/{quote(key)}"

    def add_hub_repo(
        self,
        repo_id: str,
        kind: str = "dataset",
        revision: str | None = None,
        files: Mapping[str, bytes] | None = None,
        refs: tuple[str, ...] = ("main",),
    ) -> str:
        """A hub repository (``kind`` "dataset" or "model") at one commit; returns the commit sha.

        ``revision`` defaults to a sha derived from the content, so the same files give the same pin.
        ``refs`` (branch or tag names) resolve to that commit too.
        """
        if kind not in ("dataset", "model"):
            raise ValueError(f"hub repo kind must be 'dataset' or 'model', got '{kind}'")
        content = dict(files or {})
        if revision is None:
            digest = hashlib.sha1(repo_id.encode())
            for name in sorted(content):
                digest.update(name.encode() + b"\0" + content[name])
            revision = digest.hexdigest()
        with self._lock:
            self._hub[(kind, repo_id)] = _HubRepo(repo_id, kind, revision, content, set(refs))
        return revision

    def add_zenodo_record(
        self,
        record_id: str | int,
        files: Mapping[str, bytes],
        entries: Mapping[str, Mapping[str, object]] | None = None,
    ) -> str:
        """A Zenodo record with these files; returns the record's API URL. ``entries`` overrides fields of a
        file's entry in the API answer (``{"a.zip": {"checksum": ""}}``, ``{"links": {"self": "file:///etc/x"}}``)."""
        with self._lock:
            self._zenodo[str(record_id)] = dict(files)
            self._zenodo_overrides[str(record_id)] = {k: dict(v) for k, v in (entries or {}).items()}
        return f"{self.url}/api/records/{record_id}"

    def add_drive_file(
        self,
        file_id: str,
        name: str,
        data: bytes,
        *,
        confirm: bool = False,
        quota: bool = False,
        form_action: str | None = None,
    ) -> str:
        """A Google Drive file: served after Drive's virus-scan warning page when ``confirm``; ``quota`` answers
        Drive's download-quota error page instead. ``form_action`` replaces the warning form's action (a hostile
        page: ``file:///etc/passwd``, another host). Returns the id."""
        with self._lock:
            self._drive[file_id] = (name, bytes(data), confirm, quota)
            if form_action is not None:
                self._drive_actions[file_id] = form_action
        return file_id

    def redirect(self, path: str, location: str) -> None:
        """``GET /path`` answers ``302 Location: location`` (a redirect to another origin, or to ``file://``)."""
        with self._lock:
            self._redirects[path.lstrip("/")] = location

    def endless(self, path: str, announce: int | None = None) -> None:
        """``GET /path`` sends zero bytes forever (until the client hangs up), announcing ``announce`` bytes
        as ``Content-Length`` when given (e.g. 1 TB) and no length otherwise."""
        with self._lock:
            self._endless[path.lstrip("/")] = announce

    def trickle(self, path: str, data: bytes, interval: float) -> None:
        """``GET /path`` sends ``data`` one byte every ``interval`` seconds (never stalling long enough for a
        read timeout)."""
        with self._lock:
            self._trickle[path.lstrip("/")] = (bytes(data), interval)

    # -- switches ----------------------------------------------------------------------------------------
    def fail_next(self, n: int, status: int = 500, path: str | None = None) -> None:
        """Answer the next ``n`` requests (only those whose path starts with ``path``, when given) with ``status``."""
        prefix = "/" + path.lstrip("/") if path is not None else None
        with self._lock:
            self._failures.extend([(status, prefix)] * n)

    def stall(self, path: str, seconds: float, after_bytes: int = 0) -> None:
        """Requests for ``path`` send headers and ``after_bytes`` of the body, then hang for ``seconds``.

        ``seconds=0`` removes the stall. The hang ends early when the server closes.
        """
        key = path.lstrip("/")
        with self._lock:
            if seconds <= 0:
                self._stalls.pop(key, None)
            else:
                self._stalls[key] = (seconds, after_bytes)

    def cut(self, path: str, after_bytes: int, times: int = 1) -> None:
        """The next ``times`` responses for ``path`` close the connection after ``after_bytes`` of the body
        (a download killed midway; the client sees a short read)."""
        with self._lock:
            self._cuts.setdefault(path.lstrip("/"), []).extend([after_bytes] * times)

    def hits(self, path: str) -> list[LoggedRequest]:
        """The logged requests for ``path``."""
        want = "/" + path.lstrip("/")
        return [r for r in self.requests if r.path == want]

    # -- internals used by the handler ---------------------------------------------------------------------
    def _take_failure(self, path: str) -> int | None:
        with self._lock:
            for i, (status, prefix) in enumerate(self._failures):
                if prefix is None or path.startswith(prefix):
                    del self._failures[i]
                    return status
        return None

    def _take_cut(self, key: str) -> int | None:
        with self._lock:
            pending = self._cuts.get(key)
            return pending.pop(0) if pending else None

    def _plain_file(self, key: str) -> bytes | None:
        with self._lock:
            if key in self._files:
                return self._files[key]
        if self.root is not None:
            candidate = (self.root / key).resolve()
            if candidate.is_file() and self.root.resolve() in candidate.parents:
                return candidate.read_bytes()
        return None

    def _hub_repo(self, kind: str, rest: str) -> tuple[_HubRepo, str] | None:
        """The repo whose id starts ``rest`` (ids may hold one slash) and what follows it."""
        with self._lock:
            for (k, repo_id), repo in self._hub.items():
                if k == kind and (rest == repo_id or rest.startswith(repo_id + "/")):
                    return repo, rest[len(repo_id) + 1 :]
        return None


def _resolves(repo: _HubRepo, revision: str) -> bool:
    return revision == repo.revision or revision in repo.refs


class _Handler(BaseHTTPRequestHandler):
    owner: FakeServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass

    def do_HEAD(self) -> None:  # http.server's naming
        self._dispatch(head=True)

    def do_GET(self) -> None:
        self._dispatch(head=False)

    # -- routing -----------------------------------------------------------------------------------------
    def _dispatch(self, head: bool) -> None:
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        query = parse_qs(parts.query)
        status = self.owner._take_failure(path)
        if status is not None:
            return self._send_json({"error": f"injected failure {status}"}, status, head, path)
        key = path.lstrip("/")
        for route in (self._redirect, self._hostile, self._drive, self._zenodo, self._hub_api, self._hub_resolve):
            if route(key, query, head, path):
                return
        data = self.owner._plain_file(key)
        if data is None:
            return self._send_json({"error": f"not found: {path}"}, 404, head, path)
        self._send_bytes(data, key, head, path, {"ETag": f'"{hashlib.sha256(data).hexdigest()}"'})

    def _redirect(self, key: str, query: dict, head: bool, path: str) -> bool:
        with self.owner._lock:
            location = self.owner._redirects.get(key)
        if location is None:
            return False
        self._log(path, 302)
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def _hostile(self, key: str, query: dict, head: bool, path: str) -> bool:
        with self.owner._lock:
            endless = self.owner._endless.get(key, -1) if key in self.owner._endless else -1
            trickle = self.owner._trickle.get(key)
        if endless == -1 and trickle is None:
            return False
        self._log(path, 200)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if trickle is not None:
            self.send_header("Content-Length", str(len(trickle[0])))
        elif endless is not None:
            self.send_header("Content-Length", str(endless))
        else:
            self.close_connection = True
        self.end_headers()
        if head:
            return True
        try:
            if trickle is not None:
                for byte in trickle[0]:
                    if self.owner._stop.wait(trickle[1]):
                        break
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            else:
                zeros = b"\0" * (1 << 16)
                while not self.owner._stop.is_set():
                    self.wfile.write(zeros)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True
        return True

    def _drive(self, key: str, query: dict, head: bool, path: str) -> bool:
        if key not in ("uc", "download") or "id" not in query:
            return False
        file_id = query["id"][0]
        with self.owner._lock:
            found = self.owner._drive.get(file_id)
        if found is None:
            self._send_html(
                "<html><body><p>Sorry, the file you have requested does not exist.</p></body></html>", 404, head, path
            )
            return True
        name, data, confirm, quota = found
        if quota:
            self._send_html(
                '<html><body><p class="uc-error-caption">Sorry, you can&#39;t view or download this file at this '
                "time.</p>"
                '<p class="uc-error-subcaption">Too many users have viewed or downloaded this file recently. Please '
                "try "
                "accessing the file again later.</p></body></html>",
                200,
                head,
                path,
            )
            return True
        if key == "uc" and not confirm:  # Drive sends small files on from drive.usercontent.google.com
            self._log(path, 303)
            self.send_response(303)
            self.send_header("Location", f"https://drive.usercontent.google.com/download?id={file_id}&export=download")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        with self.owner._lock:
            token = self.owner._drive_tokens.setdefault(file_id, str(uuid.uuid4()))
            action = self.owner._drive_actions.get(file_id, "https://drive.usercontent.google.com/download")
        if confirm and not (key == "download" and query.get("confirm") == ["t"] and query.get("uuid") == [token]):
            form = (
                f'<form id="download-form" action="{action}" method="get">'
                '<input type="submit" id="uc-download-link" class="goog-inline-block jfk-button jfk-button-action" '
                f'value="Download anyway"/><input type="hidden" name="id" value="{file_id}"><input type="hidden" '
                f'name="export" value="download"><input type="hidden" name="confirm" value="t"><input type="hidden" '
                f'name="uuid" value="{token}"></form>'
            )
            self._send_html(
                "<!DOCTYPE html><html><head><title>Google Drive - Virus scan warning</title></head><body>\n"
                f'<p class="uc-warning-caption">Google Drive can&#39;t scan this file for viruses.</p>{form}\n'
                "</body></html>",
                200,
                head,
                path,
            )
            return True
        self._send_bytes(data, key, head, path, {"Content-Disposition": f'attachment; filename="{name}"'})
        return True

    def _send_html(self, html: str, status: int, head: bool, path: str) -> None:
        payload = html.encode()
        self._log(path, status)
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if not head:
            self.wfile.write(payload)

    def _zenodo(self, key: str, query: dict, head: bool, path: str) -> bool:
        segments = key.split("/")
        if segments[:2] != ["api", "records"] or len(segments) < 3:
            return False
        record_id = segments[2]
        with self.owner._lock:
            files = self.owner._zenodo.get(record_id)
            overrides = self.owner._zenodo_overrides.get(record_id, {})
        if files is None:
            self._send_json({"status": 404, "message": "PID does not exist."}, 404, head, path)
            return True
        if len(segments) == 3:
            base = f"{self.owner.url}/api/records/{record_id}"
            entries = [
                {
                    "key": name,
                    "size": len(data),
                    "checksum": "md5:" + hashlib.md5(data).hexdigest(),
                    "links": {"self": f"{base}/files/{quote(name)}/content"},
                    **overrides.get(name, {}),
                }
                for name, data in files.items()
            ]
            self._send_json(
                {"id": int(record_id) if record_id.isdigit() else record_id, "files": entries, "links": {"self": base}},
                200,
                head,
                path,
            )
            return True
        if len(segments) >= 6 and segments[3] == "files" and segments[-1] == "content":
            name = "/".join(segments[4:-1])
            if name in files:
                self._send_bytes(files[name], key, head, path, {})
            else:
                self._send_json({"status": 404, "message": f"file {name} not in record"}, 404, head, path)
            return True
        return False

    def _hub_api(self, key: str, query: dict, head: bool, path: str) -> bool:
        segments = key.split("/", 2)
        if len(segments) < 3 or segments[0] != "api" or segments[1] not in ("datasets", "models"):
            return False
        kind = segments[1][:-1]
        found = self.owner._hub_repo(kind, segments[2])
        if found is None:
            self._send_json({"error": "Repository not found"}, 404, head, path, {"X-Error-Code": "RepoNotFound"})
            return True
        repo, rest = found
        if rest == "" or rest.startswith("revision/"):
            revision = rest[len("revision/") :] if rest else "main"
            if not _resolves(repo, revision):
                self._send_json(
                    {"error": f"Invalid rev id: {revision}"}, 404, head, path, {"X-Error-Code": "RevisionNotFound"}
                )
                return True
            body = {
                "id": repo.repo_id,
                "sha": repo.revision,
                "private": False,
                "gated": False,
                "disabled": False,
                "siblings": [{"rfilename": name} for name in sorted(repo.files)],
                "tags": [],
            }
            if kind == "model":
                body["modelId"] = repo.repo_id
            self._send_json(body, 200, head, path)
            return True
        if rest.startswith("tree/"):
            revision, _, sub = rest[len("tree/") :].partition("/")
            if not _resolves(repo, revision):
                self._send_json(
                    {"error": f"Invalid rev id: {revision}"}, 404, head, path, {"X-Error-Code": "RevisionNotFound"}
                )
                return True
            recursive = query.get("recursive", ["false"])[0].lower() in ("true", "1")
            self._send_json(_tree(repo.files, sub.strip("/"), recursive), 200, head, path)
            return True
        return False

    def _hub_resolve(self, key: str, query: dict, head: bool, path: str) -> bool:
        kind, rest = ("dataset", key[len("datasets/") :]) if key.startswith("datasets/") else ("model", key)
        if "/resolve/" not in rest:
            return False
        found = self.owner._hub_repo(kind, rest)
        if found is None or not found[1].startswith("resolve/"):
            return False
        repo, tail = found
        revision, _, name = tail[len("resolve/") :].partition("/")
        if not _resolves(repo, revision):
            self._send_json(
                {"error": f"Invalid rev id: {revision}"}, 404, head, path, {"X-Error-Code": "RevisionNotFound"}
            )
            return True
        if name not in repo.files:
            self._send_json({"error": f"Entry not found: {name}"}, 404, head, path, {"X-Error-Code": "EntryNotFound"})
            return True
        data = repo.files[name]
        self._send_bytes(
            data, key, head, path, {"X-Repo-Commit": repo.revision, "ETag": f'"{hashlib.sha256(data).hexdigest()}"'}
        )
        return True

    # -- responses ---------------------------------------------------------------------------------------
    def _log(self, path: str, status: int) -> None:
        self.owner.requests.append(LoggedRequest(self.command, path, self.headers.get("Range"), status))

    def _send_json(
        self, body: object, status: int, head: bool, path: str, extra: Mapping[str, str] | None = None
    ) -> None:
        payload = json.dumps(body).encode()
        self._log(path, status)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(payload)

    def _send_bytes(self, data: bytes, key: str, head: bool, path: str, extra: Mapping[str, str]) -> None:
        start, status = 0, 200
        wanted = self.headers.get("Range")
        if wanted and self.owner.range_support and wanted.startswith("bytes=") and wanted.endswith("-"):
            try:
                start = int(wanted[len("bytes=") : -1])
            except ValueError:
                start = 0
            if start >= len(data) and len(data) > 0:
                self._log(path, 416)
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
        body = data[start:]
        self._log(path, status)
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes" if self.owner.range_support else "none")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        if head:
            return
        with self.owner._lock:
            stall = self.owner._stalls.get(key)
        cut = self.owner._take_cut(key)
        try:
            if stall is not None:
                seconds, after = stall
                self.wfile.write(body[:after])
                self.wfile.flush()
                self.owner._stop.wait(seconds)
                body = body[after:]
            if cut is not None:
                self.wfile.write(body[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a deadline): nothing to do
            self.close_connection = True


def _tree(files: Mapping[str, bytes], sub: str, recursive: bool) -> list[dict]:
    """Hub tree entries under ``sub``: files (with git oid and an lfs block) and folders."""
    entries: list[dict] = []
    folders: set[str] = set()
    prefix = sub + "/" if sub else ""
    for name in sorted(files):
        if not name.startswith(prefix):
            continue
        rel = name[len(prefix) :]
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            folder = prefix + "/".join(parts[:depth])
            if (recursive or depth == 1) and folder not in folders:
                folders.add(folder)
                entries.append(
                    {"type": "directory", "path": folder, "oid": hashlib.sha1(folder.encode()).hexdigest(), "size": 0}
                )
        if recursive or len(parts) == 1:
            data = files[name]
            entries.append(
                {
                    "type": "file",
                    "path": name,
                    "size": len(data),
                    "oid": git_blob_sha1(data),
                    "lfs": {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134},
                }
            )
    return entries
