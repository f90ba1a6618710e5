"""One address for two llama.cpp servers, as one Ollama host serves a chat
model and an embedding model: `/v1/embeddings` goes to the embedding
server, everything else to the chat server, each with the request's own
path (both servers serve `/v1/…`). Responses are passed on as they come (a
streamed answer stays streamed). quality.py's --embed-url."""

import http.client
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


def start(chat_base, embed_base):
    """Starts the proxy on a free loopback port; returns its base URL (with
    the chat base's path, e.g. `/v1`), a function that stops it, and the
    count of requests each server answered ({"chat": n, "embed": n})."""
    chat = urllib.parse.urlsplit(chat_base)
    embed = urllib.parse.urlsplit(embed_base)
    counts = {"chat": 0, "embed": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the response ends when the connection closes

        def log_message(self, *args):
            pass

        def forward(self):
            embedding = self.path.rstrip("/").endswith("/embeddings")
            target = embed if embedding else chat
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
            # Longer than any wait of Hearth's own on a first byte.
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=1200)
            sent = False
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                if resp.status == 200:
                    with lock:
                        counts["embed" if embedding else "chat"] += 1
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in HOP:
                        self.send_header(k, v)
                self.send_header("Connection", "close")
                self.end_headers()
                sent = True
                while True:
                    chunk = resp.read1(65536)
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except (OSError, http.client.HTTPException) as e:
                # Before the answer began: a clear 502; after: the answer is
                # cut, which the client sees as the closed connection.
                if not sent:
                    try:
                        self.send_error(502, f"upstream: {e}")
                    except OSError:
                        pass
            finally:
                conn.close()

        do_GET = do_POST = do_DELETE = forward

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}{chat.path}"
    return base, server.shutdown, counts
