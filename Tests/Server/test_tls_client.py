"""The client's wss:// (`audiograph run --server wss://…`, the AudioGraphClient library under it)
through Debian's haproxy ending TLS in front of a real server: the server's certificate must be
trusted and name the URL's host before the app key is sent, and the key arrives as written. Certificates are made with the
openssl command: one self-signed, and a private authority's two (one for localhost, one for
another name)."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from conftest import BINARY, ROOT, Server
from test_operations import free_port

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None or shutil.which("openssl") is None,
                                reason="haproxy or openssl is not installed (Tools/install-deps installs them)")


def openssl(*args, folder):
    subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)


def certificates(folder):
    """self.pem (self-signed, localhost), ca.pem and its leaves good.pem (localhost) and
    other.pem (other.example); each .pem for haproxy holds its certificate and key."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"]
    openssl("req", "-x509", *key, "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-keyout", "self.key", "-out", "self.crt", folder=folder)
    openssl("req", "-x509", *key, "-subj", "/CN=audiograph test authority", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign", "-keyout", "ca.key", "-out", "ca.pem", folder=folder)
    for name, host in (("good", "localhost"), ("other", "other.example")):
        with open(os.path.join(folder, f"{name}.ext"), "w") as f:
            f.write(f"subjectAltName=DNS:{host}\n")
        openssl("req", *key[:-2], "-subj", f"/CN={host}", "-keyout", f"{name}.key", "-out", f"{name}.csr", folder=folder)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
                "-extfile", f"{name}.ext", "-out", f"{name}.crt", folder=folder)
    for name in ("self", "good", "other"):
        with open(os.path.join(folder, f"{name}.pem"), "w") as pem:
            pem.write(open(os.path.join(folder, f"{name}.crt")).read() + open(os.path.join(folder, f"{name}.key")).read())


@pytest.fixture(scope="module")
def fronts():
    """A server with an app key, and haproxy's TLS in front of it: {"self"|"good"|"other": port}."""
    folder = tempfile.mkdtemp(prefix="ag-tls-")
    certificates(folder)
    keys = os.path.join(folder, "apps.keys")
    with open(keys, "w") as f:
        f.write("kiosk s3cret\n")
        f.write(f"base64 {KEY}\n")
    server = Server("--keys", keys, wyoming=None)
    ports = {name: free_port() for name in ("self", "good", "other")}
    lines = ["defaults", "  mode http", "  timeout connect 2s", "  timeout client 60s", "  timeout server 60s",
             "backend ws", f"  server s 127.0.0.1:{server.http_port}"]
    for name, port in ports.items():
        lines += [f"frontend {name}", f"  bind 127.0.0.1:{port} ssl crt {folder}/{name}.pem", "  default_backend ws"]
    with open(os.path.join(folder, "haproxy.cfg"), "w") as f:
        f.write("\n".join(lines) + "\n")
    proxy = subprocess.Popen(["haproxy", "-db", "-f", os.path.join(folder, "haproxy.cfg")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            for port in ports.values():
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield folder, ports, server
    finally:
        proxy.terminate()
        proxy.wait(10)
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


# A key as `openssl rand -base64` makes them, with the query's own characters besides.
KEY = "q+7/Zx==&key=%41;"


def transcribe(path, url, *extra, env=None, app=("kiosk", "s3cret")):
    out = subprocess.run([BINARY, "run", "transcribe", "--source", path, "--server", url,
                          "--set", f"asr.app={app[0]}", "--set", f"asr.key={app[1]}", *extra],
                         capture_output=True, text=True, timeout=60, cwd=ROOT, env=dict(os.environ, **(env or {})))
    finals = [line for line in out.stdout.splitlines() if "] " in line]
    return out.returncode, finals, out.stderr


def sessions(server):
    return server.text().count("session websocket")


def test_an_untrusted_certificate_is_refused_before_the_key_is_sent(fronts, speech):
    folder, ports, server = fronts
    path = speech("find japanese restaurants nearby")
    before = sessions(server)
    code, finals, err = transcribe(path, f"wss://localhost:{ports['self']}")
    assert code == 1, err
    assert "the server's certificate is refused (self-signed certificate; checked against the system's certificate authorities)" in err, err
    assert "--server-ca FILE" in err, err
    assert err.count("\n") == 1, err  # one line
    assert finals == []
    # A private authority's certificate is no better without that authority.
    code, _, err = transcribe(path, f"wss://localhost:{ports['good']}")
    assert code == 1 and "unable to get local issuer certificate" in err, err
    time.sleep(0.3)
    assert sessions(server) == before  # no session: the key never reached the server


def test_a_trusted_certificate_serves_and_must_name_the_host(fronts, speech):
    folder, ports, server = fronts
    path = speech("find japanese restaurants nearby")
    # The server's own certificate, given as the one to trust.
    code, finals, err = transcribe(path, f"wss://localhost:{ports['self']}", "--server-ca", f"{folder}/self.crt")
    assert code == 0, err
    assert len(finals) == 1 and "japanese restaurants nearby" in finals[0], finals
    # The private authority, given on the command line or as OpenSSL's own trust (SSL_CERT_FILE,
    # what the system's authorities are read from).
    code, finals, err = transcribe(path, f"wss://localhost:{ports['good']}", "--server-ca", f"{folder}/ca.pem")
    assert code == 0 and "japanese restaurants nearby" in finals[0], err
    code, finals, err = transcribe(path, f"wss://localhost:{ports['good']}", env={"SSL_CERT_FILE": f"{folder}/ca.pem"})
    assert code == 0 and "japanese restaurants nearby" in finals[0], err
    before = sessions(server)
    # Trusted, but for another name, or reached by an address it does not name.
    code, _, err = transcribe(path, f"wss://localhost:{ports['other']}", "--server-ca", f"{folder}/ca.pem")
    assert code == 1 and "(hostname mismatch; checked against the certificates in" in err, err
    code, _, err = transcribe(path, f"wss://127.0.0.1:{ports['self']}", "--server-ca", f"{folder}/self.crt")
    assert code == 1 and "(IP address mismatch;" in err, err
    time.sleep(0.3)
    assert sessions(server) == before


def test_server_ca_mistakes_are_one_line_and_exit_2(fronts, speech):
    folder, ports, _ = fronts
    path = speech("find japanese restaurants nearby")
    for extra, said in [
        (["--server-ca", f"{folder}/missing.pem"], f'parameter "ca": {folder}/missing.pem: cannot read it'),
        (["--server-ca", f"{folder}/ca.pem", "--server", "ws://localhost:1"], 'parameter "ca": certificates are for a wss:// server'),
    ]:
        code, _, err = transcribe(path, f"wss://localhost:{ports['good']}", *extra)
        assert code == 2 and said in err and err.count("\n") == 1, err
    out = subprocess.run([BINARY, "run", "transcribe", "--source", path, "--server-ca", f"{folder}/ca.pem"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 2 and "--server-ca: the graph has nothing remote" in out.stderr, out.stderr


def test_a_key_with_the_urls_own_characters_arrives_as_written(fronts, speech):
    folder, ports, server = fronts
    path = speech("find japanese restaurants nearby")
    code, finals, err = transcribe(path, f"wss://localhost:{ports['good']}", "--server-ca", f"{folder}/ca.pem", app=("base64", KEY))
    assert code == 0 and "japanese restaurants nearby" in finals[0], err
    assert "app=base64" in server.text()
