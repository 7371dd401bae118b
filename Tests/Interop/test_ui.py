"""The card page (`serve --ui`) in a real browser: Debian's chromium, headless, driven by Selenium
through chromium-driver, while python-fido2 talks to the same card over PC/SC (pcscd + vpcd).

The page must follow the card live (no reload), act on it only through the control operations,
refuse every request that lacks the secret or comes from another Host or Origin, and never show
a PIN, key or token: the last test searches everything the page and its event stream carried for
the values the test itself used. Each browser test saves a screenshot in .build/ui-screenshots/
(CI keeps that folder as an artefact)."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives import serialization
from fido2.client import DefaultClientDataCollector, Fido2Client
from fido2.ctap import CtapError
from fido2.ctap2 import ClientPin, Ctap2
from fido2.ctap2.extensions import HmacSecretExtension
from fido2.utils import websafe_decode

import interop_support as support
from conftest import REPO, _binary, _serve, _unavailable

SCREENSHOTS = REPO / ".build" / "ui-screenshots"
# Nothing else on the page can spell it by chance (as digits could be in a time or hex).
PIN = "Quokka#2718"
WAIT = 15


# -- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def ui_card(request, pcsc_reader, tmp_path):
    """A card served with `--ui` and a control socket; `.page` is its page's address."""
    control = tmp_path / "ctl.sock"
    generator = _serve(request, pcsc_reader, tmp_path, ["--ui", "--control", str(control)])
    served = next(generator)
    request.addfinalizer(lambda: next(generator, None))
    deadline = time.monotonic() + 10
    while served.ui_address is None:
        assert time.monotonic() < deadline, f"serve --ui printed no 'ui on' line:\n{served.stderr()}"
        time.sleep(0.05)
    served.page = served.ui_address
    served.control = control
    return served


@pytest.fixture
def browser(request, tmp_path):
    """Headless chromium under chromium-driver; the test's screenshot is saved as it ends."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        _unavailable("no chromium / chromedriver (apt-get install chromium chromium-driver, or ./setup.sh --tests)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _unavailable("no selenium (./setup.sh --tests)")
    options = Options()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--disable-extensions", "--disable-background-networking", "--window-size=1440,1180",
                     f"--user-data-dir={tmp_path / 'chromium'}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SCREENSHOTS / f"{request.node.name}.png"))
        driver.quit()


# -- helpers -------------------------------------------------------------------------------------


def wait(driver, condition, what: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: condition(d), f"the page never showed {what}")


def text(driver, element_id: str) -> str:
    """The element's text now (read in the page: the page re-renders as the card changes)."""
    return driver.execute_script("const e = document.getElementById(arguments[0]); return e ? e.innerText : ''", element_id)


def field(driver, selector: str, name: str) -> str:
    """The text of field `name` in the first element matching `selector`."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); const f = e && e.querySelector('[data-field=\"' + arguments[1] + '\"]');"
        " return f ? f.innerText : ''", selector, name)


def css(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def open_page(driver, served):
    driver.get(served.page)
    driver.execute_script("window.loadedOnce = 'yes'")
    wait(driver, lambda d: text(d, "connection") == "live" and text(d, "profile") != "", "the card (live)")


def still_the_same_page(driver) -> bool:
    return driver.execute_script("return window.loadedOnce") == "yes"


def address(served):
    parts = urlsplit(served.page)
    return parts.hostname, parts.port, dict(pair.split("=", 1) for pair in parts.query.split("&"))["t"]


def fetch(served, method: str, path: str, body: bytes | None = None, headers: dict | None = None, host: str | None = None):
    """One request to the page's server with exactly these headers; (status, body bytes)."""
    hostname, port, _ = address(served)
    connection = http.client.HTTPConnection(hostname, port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host or f"{hostname}:{port}")
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def op(served, request: dict, **kwargs):
    """POSTs a control op as the page does; (status, answer)."""
    _, _, secret = address(served)
    headers = {"Content-Type": "application/json", **kwargs.pop("headers", {})}
    status, body = fetch(served, "POST", f"/op?t={kwargs.pop('secret', secret)}", json.dumps(request).encode(), headers, **kwargs)
    return status, json.loads(body)


def details(served) -> dict:
    status, answer = op(served, {"op": "details"})
    assert status == 200 and answer["ok"], answer
    return answer


def control(served, request: dict) -> dict:
    """One request on the control socket (as `ctl` sends it)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(str(served.control))
        connection.sendall((json.dumps(request) + "\n").encode())
        stream = connection.makefile("r")
        return json.loads(stream.readline())


class EventStream(threading.Thread):
    """Reads the page's event stream (as the page's EventSource does) and keeps every byte."""

    def __init__(self, served):
        super().__init__(daemon=True)
        hostname, port, secret = address(served)
        self.socket = socket.create_connection((hostname, port), timeout=30)
        self.socket.sendall(f"GET /events?t={secret} HTTP/1.1\r\nHost: {hostname}:{port}\r\n\r\n".encode())
        self.received = bytearray()
        self.start()

    def run(self):
        try:
            while chunk := self.socket.recv(65536):
                self.received += chunk
        except OSError:
            pass

    def close(self) -> bytes:
        time.sleep(0.5)
        self.socket.close()
        self.join(timeout=5)
        return bytes(self.received)


def register_and_authenticate(device, pin: str | None = None):
    """A discoverable credential for example.com, then an assertion; the assertion's sign count."""
    rp = support.server()
    client = support.client(device, pin)
    options, state = rp.register_begin(support.user(), resident_key_requirement="required", user_verification="preferred")
    credential = rp.register_complete(state, client.make_credential(options["publicKey"])).credential_data
    request, state = rp.authenticate_begin([credential], user_verification="preferred")
    assertion = client.get_assertion(request["publicKey"]).get_response(0)
    rp.authenticate_complete(state, [credential], assertion)
    return assertion.response.authenticator_data.counter


# -- in the browser ------------------------------------------------------------------------------


def test_the_page_follows_the_card_live(ui_card, browser):
    """A blank card; a PIN set from the page; a credential registered and used by python-fido2
    over PC/SC, its sign count and both trace rows appearing without a reload."""
    open_page(browser, ui_card)
    assert text(browser, "credential-count") == "0"
    assert text(browser, "pin-set") == "no"
    assert css(browser, "#credentials .empty")[0].text == "No discoverable credentials."
    assert text(browser, "aaguid") == details(ui_card)["info"]["aaguid"]

    browser.find_element("id", "pin-new").send_keys(PIN)
    browser.find_element("id", "pin-set-button").click()
    wait(browser, lambda d: text(d, "pin-set") == "yes", "the PIN set")
    assert text(browser, "pin-retries") == "8"

    device = ui_card.device()
    try:
        sign_count = register_and_authenticate(device, PIN)
    finally:
        device.close()
    wait(browser, lambda d: css(d, '#credentials .credential[data-rp="example.com"]'), "the new credential")
    row = '#credentials .credential[data-rp="example.com"]'
    assert field(browser, row, "user").startswith("alice")
    assert field(browser, row, "algorithm") == "ES256"
    wait(browser, lambda d: field(d, row, "signCount") == str(sign_count), f"sign count {sign_count}")
    assert text(browser, "counter") == str(sign_count)
    assert text(browser, "credential-count") == "1"
    for command in ("authenticatorMakeCredential", "authenticatorGetAssertion"):
        wait(browser, lambda d: css(d, f'#trace .row[data-command="{command}"][data-status="CTAP2_OK"]'), f"a {command} row")
    # Newest first: the assertion above the registration.
    commands = [node.get_attribute("data-command") for node in css(browser, "#trace .row")]
    assert commands.index("authenticatorGetAssertion") < commands.index("authenticatorMakeCredential")
    # A row opens on a click: its request and APDUs, masked as serve --verbose masks them.
    css(browser, '#trace .row[data-command="authenticatorMakeCredential"]')[0].click()
    opened = css(browser, '#trace .row.open[data-command="authenticatorMakeCredential"]')[0]
    assert "NFCCTAP_MSG" in opened.find_element("css selector", ".apdus").text
    assert still_the_same_page(browser), "the page was reloaded"
    # The whole page in the screenshot (the README's picture of it), without the last toast.
    browser.execute_script("document.getElementById('toast').hidden = true; window.scrollTo(0, 0)")
    browser.set_window_size(1440, browser.execute_script("return document.documentElement.scrollHeight") + 140)


def test_tap_from_the_page_ends_the_clients_session(ui_card, browser):
    open_page(browser, ui_card)
    device = ui_card.device()
    try:
        Ctap2(device).get_info()
        browser.find_element("id", "tap").click()
        deadline = time.monotonic() + 5
        while True:
            try:
                Ctap2(device).get_info()
            except Exception as error:  # the reader says the card is gone
                ended = error
                break
            assert time.monotonic() < deadline, "the client's session survived a tap from the page"
            time.sleep(0.05)
        assert ended is not None
    finally:
        device.close()
    wait(browser, lambda d: css(d, '#trace .row[data-command="card off the reader"]'), "the card leaving the reader")
    ui_card.wait_present(2)
    wait(browser, lambda d: css(d, '#trace .row[data-command="card on the reader"]'), "the card back on the reader")
    assert still_the_same_page(browser)


def test_a_fault_armed_from_the_page_acts(ui_card, browser):
    from selenium.webdriver.support.ui import Select

    open_page(browser, ui_card)
    browser.find_element("id", "fault-command").send_keys("makeCredential")
    Select(browser.find_element("id", "fault-effect")).select_by_value("ctap-error")
    browser.find_element("id", "fault-parameter").send_keys("OPERATION_DENIED")
    browser.find_element("id", "fault-arm").click()
    wait(browser, lambda d: css(d, "#faults li.fault"), "the armed fault")
    assert details(ui_card)["faults"][0]["effect"] == "ctap-error"

    device = ui_card.device()
    try:
        with pytest.raises(CtapError) as denied:
            Ctap2(device).make_credential(hashlib.sha256(b"x").digest(), {"id": "example.com"},
                                          {"id": b"user", "name": "alice"}, [{"type": "public-key", "alg": -7}])
        assert denied.value.code == CtapError.ERR.OPERATION_DENIED
    finally:
        device.close()
    wait(browser, lambda d: css(d, '#trace .row[data-command="authenticatorMakeCredential"][data-status="CTAP2_ERR_OPERATION_DENIED"]'),
         "the denied makeCredential")
    wait(browser, lambda d: "OPERATION_DENIED" in text(d, "fault-log"), "the fault's log entry")
    wait(browser, lambda d: css(d, "#faults li.empty"), "the once-only fault gone")


def choose_presence(driver, served, mode: str):
    """Picks `mode` in the page's presence selector; the card (ctl status) is in it."""
    css(driver, f'input[name=presence][value="{mode}"]')[0].click()
    wait(driver, lambda d: d.execute_script(
        f"return document.querySelector('input[name=presence][value=\"{mode}\"]').checked"), f"presence mode {mode} chosen")
    deadline = time.monotonic() + 5
    while control(served, {"op": "status"})["presence"]["mode"] != mode:
        assert time.monotonic() < deadline, f"the card never took presence mode {mode}"
        time.sleep(0.05)


def prompt_shown(driver) -> bool:
    return driver.execute_script("return !document.getElementById('presence-prompt').hidden")


def in_background(work):
    """Runs `work` on a thread; (thread, outcome: {"result": …} or {"error": …})."""
    outcome: dict = {}

    def run():
        try:
            outcome["result"] = work()
        except Exception as error:  # noqa: BLE001 - a CtapError, or the card going away (PC/SC)
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def wait_for_prompt(driver, served, thread) -> dict:
    """The card's pending prompt once ctl sees it, and the page shows it within a second after."""
    deadline = time.monotonic() + 10
    while (pending := control(served, {"op": "presence"})["presence"]["pending"]) is None:
        assert thread.is_alive(), "the request ended without waiting for presence"
        assert time.monotonic() < deadline, f"no presence prompt came:\n{served.stderr()}"
        time.sleep(0.02)
    seen = time.monotonic()
    while not prompt_shown(driver):
        assert time.monotonic() - seen < 1.0, "the waiting request's prompt did not reach the page within a second"
        time.sleep(0.02)
    return pending


def denied_make_credential(device):
    with pytest.raises(CtapError) as denied:
        Ctap2(device).make_credential(hashlib.sha256(b"presence").digest(), {"id": "example.com"},
                                      {"id": b"user", "name": "alice"}, [{"type": "public-key", "alg": -7}])
    return denied.value.code


def test_presence_declined_from_the_page_denies_the_request(ui_card, browser):
    open_page(browser, ui_card)
    assert control(ui_card, {"op": "status"})["presence"]["mode"] == "approve"
    assert browser.execute_script("return document.querySelector('input[name=presence][value=approve]').checked")
    choose_presence(browser, ui_card, "decline")
    assert "CTAP2_ERR_OPERATION_DENIED" in text(browser, "presence-note")
    device = ui_card.device()
    try:
        assert denied_make_credential(device) == CtapError.ERR.OPERATION_DENIED
    finally:
        device.close()
    wait(browser, lambda d: css(d, '#trace .row[data-command="authenticatorMakeCredential"][data-status="CTAP2_ERR_OPERATION_DENIED"]'),
         "the denied makeCredential")
    assert not prompt_shown(browser), "decline answers at once: no prompt"
    assert control(ui_card, {"op": "credentials.list"})["credentials"] == []
    assert still_the_same_page(browser)


def test_a_request_waits_for_approve_on_the_page(ui_card, browser):
    """In ask mode a python-fido2 registration waits on the card; its prompt appears on the page
    without a reload, Approve lets it finish, and the prompt goes."""
    open_page(browser, ui_card)
    choose_presence(browser, ui_card, "ask")
    rp = support.server()
    device = ui_card.device()
    try:
        def register():
            options, state = rp.register_begin(support.user(), resident_key_requirement="required", user_verification="discouraged")
            return rp.register_complete(state, support.client(device).make_credential(options["publicKey"]))

        thread, outcome = in_background(register)
        pending = wait_for_prompt(browser, ui_card, thread)
        assert pending["command"] == "makeCredential" and pending["rpId"] == "example.com"
        assert text(browser, "presence-question") == "makeCredential for example.com is waiting for you"
        assert browser.find_element("id", "presence-prompt").get_attribute("data-id") == str(pending["id"])
        wait(browser, lambda d: text(d, "presence-waiting") == "waiting 1 s", "the seconds it has waited counting up")
        assert thread.is_alive(), "python-fido2 waits while nobody answers"
        assert control(ui_card, {"op": "credentials.list"})["credentials"] == []
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENSHOTS / "test_a_request_waits_for_approve_on_the_page-prompt.png"))
        browser.find_element("id", "presence-approve").click()
        thread.join(timeout=10)
        assert "result" in outcome, outcome
        registered = outcome["result"].credential_data
    finally:
        device.close()
    wait(browser, lambda d: not prompt_shown(d), "the prompt gone once answered")
    assert control(ui_card, {"op": "presence"})["presence"] == {"mode": "ask", "pending": None}
    listed = control(ui_card, {"op": "credentials.list"})["credentials"]
    assert [c["idHex"] for c in listed] == [registered.credential_id.hex()]
    wait(browser, lambda d: css(d, '#credentials .credential[data-rp="example.com"]'), "the new credential")
    assert still_the_same_page(browser)


def test_decline_on_the_prompt_denies_the_request(ui_card, browser):
    open_page(browser, ui_card)
    choose_presence(browser, ui_card, "ask")
    device = ui_card.device()
    try:
        thread, outcome = in_background(lambda: denied_make_credential(device))
        pending = wait_for_prompt(browser, ui_card, thread)
        assert text(browser, "presence-question") == "makeCredential for example.com is waiting for you"
        browser.find_element("id", "presence-decline").click()
        thread.join(timeout=10)
        assert outcome.get("result") == CtapError.ERR.OPERATION_DENIED, outcome
    finally:
        device.close()
    wait(browser, lambda d: not prompt_shown(d), "the prompt gone once answered")
    wait(browser, lambda d: css(d, '#trace .row[data-command="authenticatorMakeCredential"][data-status="CTAP2_ERR_OPERATION_DENIED"]'),
         "the declined makeCredential")
    # The answered prompt is no longer there to answer: the control socket refuses it too.
    assert control(ui_card, {"op": "presence.answer", "id": pending["id"], "approve": True}) == {
        "ok": False, "error": f"no presence prompt {pending['id']} is pending"}
    assert control(ui_card, {"op": "credentials.list"})["credentials"] == []
    assert still_the_same_page(browser)


def test_the_pin_cleared_from_the_page(ui_card, browser):
    open_page(browser, ui_card)
    assert not browser.find_element("id", "pin-clear").is_enabled(), "nothing to clear on a blank card"
    browser.find_element("id", "pin-new").send_keys(PIN)
    browser.find_element("id", "pin-set-button").click()
    wait(browser, lambda d: text(d, "pin-set") == "yes", "the PIN set")
    device = ui_card.device()
    try:
        # A wrong PIN spends a retry, so that the clear is seen to put the retries back.
        with pytest.raises(CtapError) as wrong:
            ClientPin(Ctap2(device)).get_pin_token("000000")
        assert wrong.value.code == CtapError.ERR.PIN_INVALID
    finally:
        device.close()
    wait(browser, lambda d: text(d, "pin-retries") == "7", "a retry spent")
    assert control(ui_card, {"op": "status"})["pin"]["isSet"] is True
    browser.find_element("id", "pin-clear").click()
    wait(browser, lambda d: text(d, "pin-set") == "no", "no PIN")
    assert text(browser, "pin-retries") == "8"
    assert not browser.find_element("id", "pin-clear").is_enabled()
    pin = control(ui_card, {"op": "status"})["pin"]
    assert pin["isSet"] is False and pin["retries"] == 8
    device = ui_card.device()
    try:
        assert Ctap2(device).get_info().options["clientPin"] is False
    finally:
        device.close()
    assert still_the_same_page(browser)


# -- from Python: refusals and the traffic -------------------------------------------------------


def test_requests_without_the_secret_or_from_elsewhere_are_refused(ui_card):
    hostname, port, secret = address(ui_card)
    pin = {"op": "pin", "set": "111111"}
    refusals = [
        (op(ui_card, pin, secret=""), "refused: the request does not carry the page's secret (t=… in the address serve printed)"),
        (op(ui_card, pin, secret="0" * 32), "refused: wrong secret (use the address serve printed)"),
        (op(ui_card, pin, host=f"evil.example:{port}"),
         f"refused: Host must be {hostname}:{port}, the address the card page listens on"),
        (op(ui_card, pin, host=f"localhost:{port}"), f"refused: Host must be {hostname}:{port}, the address the card page listens on"),
        (op(ui_card, pin, headers={"Origin": "http://evil.example"}), "refused: requests from another origin cannot use the card page"),
    ]
    for (status, answer), message in refusals:
        assert status == 403 and answer == {"ok": False, "error": message}
    status, body = fetch(ui_card, "GET", "/")
    assert status == 403
    status, body = fetch(ui_card, "GET", f"/events?t={secret}", host=f"rebound.example:{port}")
    assert status == 403
    status, answer = op(ui_card, pin, headers={"Content-Type": "text/plain"})
    assert status == 415
    status, answer = op(ui_card, {"op": "no-such-op"})
    assert status == 400 and answer["error"].startswith("bad request: unknown op 'no-such-op'")
    status, body = fetch(ui_card, "POST", f"/op?t={secret}", b'{"op": "pin", "set":', {"Content-Type": "application/json"})
    assert status == 400 and json.loads(body)["error"].startswith("malformed JSON")
    status, body = fetch(ui_card, "POST", f"/op?t={secret}", b"{" + b" " * 20000 + b"}", {"Content-Type": "application/json"})
    assert status == 413
    # None of it changed the card.
    assert details(ui_card)["status"]["pin"]["isSet"] is False
    assert control(ui_card, {"op": "status"})["pin"]["isSet"] is False


def forms(secret: bytes) -> list[str]:
    """How a secret could appear in text: hex (either case, spaced as APDU dumps are), base64."""
    hexed = secret.hex()
    spaced = " ".join(hexed[i:i + 2] for i in range(0, len(hexed), 2))
    return [hexed, hexed.upper(), spaced, spaced.upper(), base64.b64encode(secret).decode().rstrip("="),
            base64.urlsafe_b64encode(secret).decode().rstrip("=")]


def test_no_pin_key_or_token_reaches_the_page(ui_card, browser, tmp_path):
    open_page(browser, ui_card)
    stream = EventStream(ui_card)
    # The PIN is set from the page.
    browser.find_element("id", "pin-new").send_keys(PIN)
    browser.find_element("id", "pin-set-button").click()
    wait(browser, lambda d: text(d, "pin-set") == "yes", "the PIN set")

    device = ui_card.device()
    try:
        # A pinUvAuthToken, a discoverable credential with a largeBlobKey (CTAP directly)…
        ctap2 = Ctap2(device)
        client_pin = ClientPin(ctap2)
        token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL | ClientPin.PERMISSION.GET_ASSERTION, "example.com")
        client_data_hash = hashlib.sha256(b"the page test").digest()
        made = ctap2.make_credential(
            client_data_hash, {"id": "example.com", "name": "Example RP"}, {"id": b"user-blob", "name": "blob"},
            [{"type": "public-key", "alg": -7}], options={"rk": True}, extensions={"largeBlobKey": True},
            pin_uv_param=client_pin.protocol.authenticate(token, client_data_hash), pin_uv_protocol=client_pin.protocol.VERSION)
        large_blob_key = made.large_blob_key
        assert large_blob_key and len(large_blob_key) == 32
        # …and hmac-secret outputs, through the WebAuthn client.
        client = Fido2Client(device, DefaultClientDataCollector(support.ORIGIN), user_interaction=support.PinInteraction(PIN),
                             extensions=[HmacSecretExtension(allow_hmac_secret=True)])
        rp = support.server()
        options, state = rp.register_begin(support.user("hmac", b"user-hmac"), resident_key_requirement="required",
                                           user_verification="required", extensions={"hmacCreateSecret": True})
        credential = rp.register_complete(state, client.make_credential(options["publicKey"])).credential_data
        request, state = rp.authenticate_begin([credential], user_verification="required")
        request = dict(request["publicKey"])
        request["extensions"] = {"hmacGetSecret": {"salt1": os.urandom(32)}}
        result = client.get_assertion(request).get_response(0)
        hmac_output = websafe_decode(result.client_extension_results["hmacGetSecret"]["output1"])
    finally:
        device.close()
    # The credentials' private keys, as the control socket (not the page) gives them.
    listed = control(ui_card, {"op": "credentials.list"})["credentials"]
    private_keys = [base64.urlsafe_b64decode(c["privateKey"] + "==") for c in listed]
    assert len(private_keys) == 2

    wait(browser, lambda d: text(d, "credential-count") == "2", "both credentials")
    wait(browser, lambda d: css(d, '#trace .row[data-command="authenticatorGetAssertion"]'), "the assertion row")
    for row in css(browser, "#trace .row"):
        row.click()  # every row's details and APDUs into the DOM's text
    _, _, secret = address(ui_card)
    traffic = {
        "page": fetch(ui_card, "GET", f"/?t={secret}")[1].decode(),
        "DOM": browser.page_source + browser.find_element("tag name", "body").text,
        "event stream": stream.close().decode(errors="replace"),
        "op details": json.dumps(details(ui_card)),
        "op credentials.list": json.dumps(op(ui_card, {"op": "credentials.list"})[1]),
        "op status": json.dumps(op(ui_card, {"op": "status"})[1]),
    }
    assert "event: trace" in traffic["event stream"]
    assert "authenticatorMakeCredential" in traffic["event stream"]
    searched = {"PIN": [PIN], "pinUvAuthToken": forms(token), "largeBlobKey": forms(large_blob_key),
                "hmac-secret output": forms(hmac_output), "PIN hash": forms(hashlib.sha256(PIN.encode()).digest()[:16])}
    for index, key in enumerate(private_keys):
        scalar = serialization.load_der_private_key(key, password=None).private_numbers().private_value.to_bytes(32, "big")
        searched[f"private key {index + 1}"] = forms(key) + forms(scalar)
    for where, content in traffic.items():
        assert "privateKey" not in content, f"{where} names a private key"
        for what, spellings in searched.items():
            for spelling in spellings:
                assert spelling not in content, f"the {what} appears in the {where}"
    # The transcript download carries the session's APDUs (encrypted PIN material, as on the
    # wire) but never the PIN or the token themselves.
    status, transcript = fetch(ui_card, "GET", f"/transcript?t={secret}")
    assert status == 200 and transcript.startswith(b"@format 1")
    # It is a transcript as `serve --record` writes one: `transcript check` reads every message.
    downloaded = tmp_path / "session.transcript"
    downloaded.write_bytes(transcript)
    checked = subprocess.run([str(_binary()), "transcript", "check", str(downloaded)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert b"authenticatorMakeCredential" in transcript
    for what in ("PIN", "pinUvAuthToken", "hmac-secret output"):
        for spelling in searched[what]:
            assert spelling.encode() not in transcript, f"the {what} appears in the transcript"
