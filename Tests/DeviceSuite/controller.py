#!/usr/bin/env python3
"""A loopback-only stand-in for the "Pico controller" of python-fido2's device tests.

python-fido2's device test suite (tests/device in the fido2 sdist) asks a person to take the
authenticator off the reader, put it back and touch it. With `--controller URL --pico-port N`
it instead calls, through `PicoController` in tests/device/__init__.py:

    GET URL/                     preflight: must answer (any 2xx) or the suite exits
    GET URL/usbN/power/off       take the authenticator away (here: off the NFC reader)
    GET URL/usbN/power/on        bring it back (here: put it back on the reader)
    GET URL/usbN/touch/on        press the button (touch)
    GET URL/usbN/touch/off       release it

This server answers exactly those paths for one card served by `arculus-card serve`, through
that card's control socket (one JSON request per line, one JSON answer per line):

    power/off  -> {"op": "remove"}   the card leaves the reader until "insert"
    power/on   -> {"op": "insert"}   the card is tapped on the reader again
    touch/*    -> nothing            a card in the NFC field counts as user presence;
                                     the request is only logged

Each request is answered only after the card acknowledged it, so the suite's own one-second
settle time after power/off and power/on starts when the card is really gone/back. Anything
else (another port N, another path, a card that refused) is answered with an HTTP error, which
makes the suite's request raise: the harness never hides a failure.

It listens on 127.0.0.1 only (never on the network). Every request is logged to --log with a
timestamp, the path, what was done and the card's answer.

    controller.py --control /tmp/x/card.sock --log ctl.log --port-file port [--port 0] [--pico-port 0]

With --port 0 (the default) the kernel picks a free port; it is written to --port-file (and
printed) once the server is listening, so a harness can wait for that file.
"""

import argparse
import datetime
import http.server
import json
import os
import re
import signal
import socket
import sys
import threading

LOOPBACK = "127.0.0.1"


def timestamp():
    return datetime.datetime.now().isoformat(timespec="milliseconds")


class Card:
    """One served card, reached through its control socket (a Unix socket, owner only)."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()  # one control request at a time

    def request(self, op):
        with self.lock, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(self.path)
            f = s.makefile("rw", encoding="utf-8")
            f.write(json.dumps({"op": op}) + "\n")
            f.flush()
            line = f.readline()
            if not line:
                raise RuntimeError("control socket closed without an answer")
            return json.loads(line)


class Log:
    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8", buffering=1) if path else sys.stderr
        self.lock = threading.Lock()

    def write(self, message):
        with self.lock:
            self.file.write(f"{timestamp()} {message}\n")
            self.file.flush()


def make_handler(card, log, pico_port):
    path_re = re.compile(r"^/usb(\d+)/(power|touch)/(on|off)$")

    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "arculus-device-suite-controller/1"

        def log_message(self, fmt, *args):  # silence the default stderr access log
            pass

        def answer(self, code, body):
            data = (body + "\n").encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path == "/":
                log.write("GET / -> preflight, ok")
                return self.answer(200, "ok")
            m = path_re.match(path)
            if not m:
                log.write(f"GET {path} -> 404 (not a controller path)")
                return self.answer(404, "unknown path")
            port, what, state = int(m.group(1)), m.group(2), m.group(3)
            if port != pico_port:
                log.write(f"GET {path} -> 404 (this controller serves usb{pico_port} only)")
                return self.answer(404, f"no card on usb{port}")
            if what == "touch":
                log.write(
                    f"GET {path} -> touch {state}: nothing to do "
                    "(a card in the NFC field counts as user presence)"
                )
                return self.answer(200, f"touch {state}: no-op for an NFC card")
            op = "remove" if state == "off" else "insert"
            try:
                reply = card.request(op)
            except Exception as e:  # the card or its socket failed: tell the suite
                log.write(f"GET {path} -> control '{op}' FAILED: {e!r}")
                return self.answer(502, f"control {op} failed: {e!r}")
            ok = reply.get("ok") is True
            log.write(f"GET {path} -> control '{op}': {json.dumps(reply, sort_keys=True)}")
            if not ok:
                return self.answer(502, f"card refused {op}: {json.dumps(reply)}")
            return self.answer(200, f"power {state}: card {'removed' if op == 'remove' else 'inserted'}")

        def do_POST(self):
            log.write(f"POST {self.path} -> 405")
            self.answer(405, "GET only")

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--control", required=True, help="the served card's control socket")
    p.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free port)")
    p.add_argument("--port-file", help="write the port here once listening")
    p.add_argument("--pico-port", type=int, default=0, help="the N of /usbN/... to answer (default 0)")
    p.add_argument("--log", help="request log (default: stderr)")
    args = p.parse_args()

    log = Log(args.log)
    card = Card(args.control)
    server = http.server.ThreadingHTTPServer((LOOPBACK, args.port), make_handler(card, log, args.pico_port))
    port = server.server_address[1]
    log.write(f"listening on http://{LOOPBACK}:{port}/ for usb{args.pico_port}, card control {args.control}")
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{port}\n")
        os.replace(tmp, args.port_file)  # appears complete or not at all
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stop cleanly (log 'stopped')
    print(f"controller listening on http://{LOOPBACK}:{port}/", flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        log.write("stopped")


if __name__ == "__main__":
    main()
