"""prefix_proxy.py PORT_FILE UPSTREAM_PORT PREFIX: a reverse proxy on 127.0.0.1 that serves
http://127.0.0.1:UPSTREAM_PORT/X at PREFIX/X, as Jupyter's proxy (/proxy/PORT/) does, so the live
page is tested behind a path it does not know (tests/cli/test_page.sh). Writes its port to PORT_FILE."""
import http.server
import sys
import urllib.error
import urllib.request

port_file, upstream, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3].rstrip("/") + "/"
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Proxy(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if not self.path.startswith(prefix):
            self.send_error(404, "outside the proxy's prefix")
            return
        try:
            r = opener.open("http://127.0.0.1:%d/%s" % (upstream, self.path[len(prefix):]), timeout=10)
            status, body, ctype = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, body, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
with open(port_file, "w") as f:
    f.write(str(httpd.server_address[1]))
httpd.serve_forever()
