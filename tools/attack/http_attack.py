"""Hostile requests against a live `memgate serve` on the embedded defaults (attack13).

Usage: python tools/attack/http_attack.py WORKDIR [PORT]
Creates keys for two tenants, starts the server on WORKDIR/data, stores a fact for each,
then sends: another tenant's path, another tenant's and another user's fact ids through
the key's own path (read, history, delete), a turn naming another tenant in the body,
bytes that are not UTF-8, a lone surrogate, JSON nested 100,000 deep, a body over 1 MiB,
an erased-user pseudonym as user id. Prints each status; exit 1 on any 5xx, any
cross-tenant 2xx, or a traceback in a response or the server log.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

MEMGATE = str(Path(sys.executable).with_name("memgate"))


def main() -> int:
    work = Path(sys.argv[1])
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 18999
    env = dict(os.environ, MEMGATE_DATA_DIR=str(work / "data"), MEMGATE_EMBEDDER="hashing")
    keys = {}
    for t in ("acme", "globex"):
        out = subprocess.run([MEMGATE, "keys", "create", "--tenant", t], env=env,
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
        keys[t] = re.search(r"mgk_[A-Za-z0-9_\-]+", out)[0]  # type: ignore[index]
    log = (work / "serve.log").open("w")
    srv = subprocess.Popen([MEMGATE, "serve", "--port", str(port)], env=env,
                           stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
    base = f"http://127.0.0.1:{port}/v1/tenants"
    bad = 0
    try:
        for _ in range(100):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/live").status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        h = {t: {"Authorization": f"Bearer {k}"} for t, k in keys.items()}
        ids = {}
        for t, u, v in (("acme", "alice", "Zanzibarquux"), ("globex", "gina", "Quuxplorer"),
                        ("acme", "bob", "Vimtastico")):  # fmt: skip
            body = {"messages": [{"role": "user", "content": f"I always prefer {v} for deploys."}]}
            r = httpx.post(f"{base}/{t}/users/{u}/memories", json=body, headers=h[t])
            got = httpx.get(f"{base}/{t}/users/{u}/memories", headers=h[t]).json()
            ids[(t, u)] = got[0]["fact_id"] if got else None
            print("seed", t, u, r.status_code, ids[(t, u)])
        g_id, b_id = ids[("globex", "gina")], ids[("acme", "bob")]
        cases = [
            ("other tenant's path", "GET", f"{base}/globex/users/gina/memories", None, "acme"),
            ("other tenant's fact", "GET", f"{base}/acme/users/gina/memories/{g_id}", None, "acme"),
            ("other user's fact", "GET", f"{base}/acme/users/alice/memories/{b_id}", None, "acme"),
            (
                "other user's history",
                "GET",
                f"{base}/acme/users/alice/memories/{b_id}/history",
                None,
                "acme",
            ),
            (
                "delete other user's fact",
                "DELETE",
                f"{base}/acme/users/alice/memories/{b_id}",
                None,
                "acme",
            ),
            (
                "delete other tenant's fact",
                "DELETE",
                f"{base}/acme/users/gina/memories/{g_id}",
                None,
                "acme",
            ),
            (
                "turn naming another tenant",
                "POST",
                f"{base}/acme/users/alice/memories",
                json.dumps(
                    {
                        "turns": [
                            {
                                "tenant_id": "globex",
                                "user_id": "gina",
                                "session_id": "s",
                                "turn_id": "x1",
                                "role": "user",
                                "content": "I use Vim.",
                                "ts": "2024-03-01T09:00:00Z",
                            }
                        ]
                    }
                ).encode(),
                "acme",
            ),
            (
                "bytes not UTF-8",
                "POST",
                f"{base}/acme/users/alice/memories",
                b'{"messages": [{"role": "user", "content": "I use \xff\xfe"}]}',
                "acme",
            ),
            (
                "lone surrogate",
                "POST",
                f"{base}/acme/users/alice/memories",
                b'{"messages": [{"role": "user", "content": "I use \\ud800 Vim"}]}',
                "acme",
            ),
            (
                "nested 100,000 deep",
                "POST",
                f"{base}/acme/users/alice/search",
                b'{"query": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                "acme",
            ),
            (
                "body over 1 MiB",
                "POST",
                f"{base}/acme/users/alice/memories",
                b'{"messages": [{"role": "user", "content": "' + b"a" * (2 << 20) + b'"}]}',
                "acme",
            ),
            (
                "erased pseudonym as user",
                "GET",
                f"{base}/acme/users/erased:63d165a0727518c4050839da/memories",
                None,
                "acme",
            ),
            ("no key", "GET", f"{base}/acme/users/alice/memories", None, None),
        ]
        for name, method, url, content, who in cases:
            hdr = {"content-type": "application/json", **(h[who] if who else {})}
            r = httpx.request(method, url, content=content, headers=hdr, timeout=60)
            text = r.text[:160].replace("\n", " ")
            crossed = "other" in name and r.status_code < 300
            bad += r.status_code >= 500 or crossed or "Traceback" in r.text
            print(f"{name:28} {r.status_code} {'CROSSED ' if crossed else ''}{text}")
        still = httpx.get(f"{base}/acme/users/bob/memories", headers=h["acme"]).json()
        print("bob's fact still there:", [f["fact_id"] for f in still] == [b_id])
        bad += [f["fact_id"] for f in still] != [b_id]
    finally:
        srv.terminate()
        srv.wait(30)
        log.close()
    server_log = (work / "serve.log").read_text()
    if "Traceback" in server_log:
        print("TRACEBACK in the server log")
        bad += 1
    print("problems:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
