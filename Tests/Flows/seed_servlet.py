"""The seed's backend, line by line: `FidoServlet` of ../shared/seeds/000_*.txt ("Backend
Implementation (Java Servlet)") in Python, in front of a FIDO2 server.

What is the servlet's own is kept as the seed writes it, defects included:

- routing by the body's `operation` alone (any path), `username` required (a missing one is a
  NullPointerException in the servlet: here, as in a servlet container, an HTML 500 page),
  `displayName` defaulting to the username and `rpId` to "example.com";
- phase detection by the presence of `cardResponseData`;
- failure detection with `fidoJson.has("error")`, and failures written as
  `{"status": "failed", "error": message}` (the seed's app reads `message` / `errorMessage`);
- registration phase 3 forwards `username`, `type`, `id`, `rawId` (or `id`) and `response`
  as the card gave it; authentication phase 3 forwards `username`, `type`, `id` and `response`,
  without `rawId`;
- `fido2ServerOrigin` from FIDO2_SERVER_URL, `sessionId` from the first allowed credential,
  cookies cleaned of a "Cookie:" prefix;
- an HTTP 401 from the FIDO2 server in authentication phase 3 is "session expired".

What the seed does not show is the vendor's Java server client (`co.arculus.fido.ArculusFidoServer`):
`JavaFidoServerClient` stands in for it, speaking the conformance API's members
(`{username, displayName}` to begin a registration, `{username}` to begin an authentication),
returning the body and the `name=value` pairs of the Set-Cookie headers, and raising
`ArculusFidoException` (message: the server's `errorMessage`, else `HTTP <code>`; the
underlying HTTP code) for an answer other than 2xx, as the servlet's 401 handling implies it does.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from http_app import App


class ArculusFidoException(Exception):
    def __init__(self, message: str | None, code: int = 0):
        super().__init__(message)
        self.message = message
        self.code = code

    def getMessage(self):  # noqa: N802 - the Java name
        return self.message

    def getUnderlyingServerResponseCode(self):  # noqa: N802
        return self.code


class ArculusFidoServerResponse:
    def __init__(self, body: str, cookies: str | None):
        self.body = body
        self.cookies = cookies

    def getResponseBody(self):  # noqa: N802
        return self.body

    def getCookies(self):  # noqa: N802
        return self.cookies


class JavaFidoServerClient:
    """The stand-in for the vendor's Java `ArculusFidoServer` (see the module's text)."""

    def __init__(self, url: str):
        self.url = url
        self.paths: dict[str, str] = {}
        self.timeout = 30.0

    def setBeginAuthenticatePath(self, path, _extra):  # noqa: N802
        self.paths["beginAuthenticate"] = path

    def setCompleteAuthenticatePath(self, path, _extra):  # noqa: N802
        self.paths["completeAuthenticate"] = path

    def setBeginRegistrationPath(self, path, _extra):  # noqa: N802
        self.paths["beginRegistration"] = path

    def setCompleteRegistrationPath(self, path, _extra):  # noqa: N802
        self.paths["completeRegistration"] = path

    def setHttpTimeout(self, milliseconds):  # noqa: N802
        self.timeout = milliseconds / 1000

    def getCompleteAuthenticateEndpoint(self):  # noqa: N802
        return self.paths["completeAuthenticate"]

    def callRegisterBegin(self, username, display_name, _extra):  # noqa: N802
        return self.makeHttpCall(self.paths["beginRegistration"], json.dumps({"username": username, "displayName": display_name}), None)

    def callRegisterComplete(self, body, cookies):  # noqa: N802
        return self.makeHttpCall(self.paths["completeRegistration"], body, cookies)

    def callAuthenticateBegin(self, username, _display_name, _extra):  # noqa: N802
        return self.makeHttpCall(self.paths["beginAuthenticate"], json.dumps({"username": username}), None)

    def makeHttpCall(self, endpoint, body, cookies):  # noqa: N802
        headers = {"Content-Type": "application/json"}
        if cookies:
            headers["Cookie"] = cookies
        request = urllib.request.Request(self.url + endpoint, data=body.encode(), method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                data, set_cookies = response.read(), response.headers.get_all("Set-Cookie") or []
        except urllib.error.HTTPError as error:
            data = error.read()
            try:
                message = json.loads(data).get("errorMessage") or f"HTTP {error.code}"
            except ValueError:
                message = f"HTTP {error.code}"
            raise ArculusFidoException(message, error.code) from None
        except OSError as error:
            raise ArculusFidoException(f"cannot reach {self.url}: {error}") from None
        cookie = "; ".join(c.split(";", 1)[0].strip() for c in set_cookies) or None
        return ArculusFidoServerResponse(data.decode(), cookie)


class JsonObject(dict):
    """Enough of gson's JsonObject for the servlet's lines."""

    def has(self, name):
        return name in self

    def getAsString(self, name):  # noqa: N802
        value = self[name]  # a missing member: the servlet's NullPointerException
        if not isinstance(value, str):
            raise TypeError(f"{name} is not a string")
        return value


def parse(text: str) -> JsonObject:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return JsonObject(value)


class ServletCrash(Exception):
    """What a servlet container answers when the servlet throws: an HTML 500 page."""


class SeedServlet(App):
    """`FidoServlet`, in front of the FIDO2 server at `fido_url`."""

    HTTP_TIMEOUT = 30000

    def __init__(self, fido_url: str, port: int = 0):
        super().__init__(port=port)
        self.FIDO2_SERVER_URL = fido_url
        self.fidoServer = JavaFidoServerClient(fido_url)
        self.fidoServer.setBeginAuthenticatePath("/fidoapi/authenticate/begin", None)
        self.fidoServer.setCompleteAuthenticatePath("/fidoapi/authenticate/complete", None)
        self.fidoServer.setBeginRegistrationPath("/fidoapi/register/begin", None)
        self.fidoServer.setCompleteRegistrationPath("/fidoapi/register/complete", None)
        self.fidoServer.setHttpTimeout(self.HTTP_TIMEOUT)
        #: {operation + phase ("register-begin", "register-complete", "authenticate-begin",
        #: "authenticate-complete"): (HTTP status, body bytes, seconds to wait first)}: the next
        #: such request gets this raw answer instead.
        self.misbehave: dict[str, tuple[int, bytes, float]] = {}

    def answer(self, path, body, cookies, raw):
        phase = None
        if isinstance(body, dict):
            phase = f"{str(body.get('operation', '')).lower()}-{'complete' if 'cardResponseData' in body else 'begin'}"
        if phase in self.misbehave:
            status, data, delay = self.misbehave.pop(phase)
            time.sleep(delay)
            return status, data, None
        out = _Response()
        try:
            self.doPost(raw.decode(), out)
        except Exception as crash:  # noqa: BLE001 - what the container does with anything thrown
            return 500, (f"<html><head><title>HTTP Status 500 - Internal Server Error</title></head>"
                         f"<body><h1>HTTP Status 500</h1><p>{type(crash).__name__}</p></body></html>").encode(), None
        return out.status, out.body, None

    # -- the servlet's methods

    def doPost(self, request_body, response):  # noqa: N802
        requestJson = parse(request_body)  # noqa: N806
        operation = requestJson.getAsString("operation") if requestJson.has("operation") else None
        if operation is None:
            self.sendErrorResponse(response, "Missing operation parameter", 400)
            return
        match operation.lower():
            case "register":
                self.handleRegister(requestJson, response)
            case "authenticate":
                self.handleAuthenticate(requestJson, response)
            case _:
                self.sendErrorResponse(response, "Unknown operation: " + operation, 400)

    def handleRegister(self, request, response):  # noqa: N802
        username = request.getAsString("username")
        displayName = request.getAsString("displayName") if request.has("displayName") else username  # noqa: N806
        rpId = request.getAsString("rpId") if request.has("rpId") else "example.com"  # noqa: N806
        if not request.has("cardResponseData"):
            self.handleRegisterBegin(username, displayName, rpId, response)
        else:
            cardResponseData = JsonObject(request["cardResponseData"])  # noqa: N806
            cookies = request.getAsString("cookies") if request.has("cookies") else None
            self.handleRegisterComplete(username, cardResponseData, cookies, response)

    def handleRegisterBegin(self, username, displayName, rpId, response):  # noqa: N802, N803
        try:
            fidoResponse = self.fidoServer.callRegisterBegin(username, displayName, None)  # noqa: N806
            fidoJson = parse(fidoResponse.getResponseBody())  # noqa: N806
            if fidoJson.has("error"):
                self.sendErrorResponse(response, "FIDO2 server error: " + fidoJson.getAsString("error"), 500)
                return
            fido2ServerOrigin = self.extractFido2ServerOrigin()  # noqa: N806
            responseJson = {"status": "success", "operation": "register", "rpId": rpId, "username": username,  # noqa: N806
                            "fidoServerResponse": fidoJson}
            if fido2ServerOrigin is not None:
                responseJson["fido2ServerOrigin"] = fido2ServerOrigin
            if fidoResponse.getCookies() is not None:
                responseJson["cookies"] = fidoResponse.getCookies()
            response.write(responseJson)
        except ArculusFidoException as e:
            self.sendErrorResponse(response, "Registration begin failed: "
                                   + (e.getMessage() if e.getMessage() is not None else "FIDO2 server communication failed"), 500)
        except Exception as e:  # noqa: BLE001
            self.sendErrorResponse(response, "Registration begin failed: " + (str(e) if str(e) else "Unknown error"), 500)

    def extractFido2ServerOrigin(self):  # noqa: N802
        url = urlsplit(self.FIDO2_SERVER_URL)
        default = {"http": 80, "https": 443}.get(url.scheme)
        origin = f"{url.scheme}://{url.hostname}"
        if url.port is not None and url.port != default:
            origin += f":{url.port}"
        return origin

    def handleRegisterComplete(self, username, cardResponseData, cookies, response):  # noqa: N802, N803
        try:
            cleanedCookies = self.cleanCookieString(cookies)  # noqa: N806
            fidoRequest = {"username": username}  # noqa: N806
            fidoRequest["type"] = cardResponseData.getAsString("type") if cardResponseData.has("type") else "public-key"
            if cardResponseData.has("id"):
                fidoRequest["id"] = cardResponseData.getAsString("id")
            if cardResponseData.has("rawId"):
                fidoRequest["rawId"] = cardResponseData.getAsString("rawId")
            elif cardResponseData.has("id"):
                fidoRequest["rawId"] = cardResponseData.getAsString("id")
            fidoRequest["response"] = cardResponseData["response"] if cardResponseData.has("response") else dict(cardResponseData)
            requestBody = json.dumps(fidoRequest)  # noqa: N806
            fidoResponse = self.fidoServer.callRegisterComplete(requestBody, cleanedCookies)  # noqa: N806
            fidoJson = parse(fidoResponse.getResponseBody())  # noqa: N806
            if fidoJson.has("error"):
                self.sendErrorResponse(response, "FIDO2 registration failed: " + fidoJson.getAsString("error"), 400)
                return
            response.write({"status": "success", "operation": "register", "message": "Registration completed successfully"})
        except ArculusFidoException as e:
            self.sendErrorResponse(response, "Registration complete failed: "
                                   + (e.getMessage() if e.getMessage() is not None else "FIDO2 server communication failed"), 500)
        except Exception as e:  # noqa: BLE001
            self.sendErrorResponse(response, "Registration complete failed: " + (str(e) if str(e) else "Unknown error"), 500)

    @staticmethod
    def cleanCookieString(cookies):  # noqa: N802
        if cookies is None or not cookies.strip():
            return None
        cleaned = cookies
        if cleaned[:7].lower() == "cookie:":
            cleaned = cleaned[7:].lstrip()
        cleaned = cleaned.strip()
        return None if not cleaned else cleaned

    def handleAuthenticate(self, request, response):  # noqa: N802
        username = request.getAsString("username")
        rpId = request.getAsString("rpId") if request.has("rpId") else "example.com"  # noqa: N806
        if not request.has("cardResponseData"):
            self.handleAuthenticateBegin(username, rpId, response)
        else:
            cardResponseData = JsonObject(request["cardResponseData"])  # noqa: N806
            cookies = request.getAsString("cookies") if request.has("cookies") else None
            self.handleAuthenticateComplete(username, cardResponseData, cookies, response)

    def handleAuthenticateBegin(self, username, rpId, response):  # noqa: N802, N803
        try:
            fidoResponse = self.fidoServer.callAuthenticateBegin(username, username, None)  # noqa: N806
            fidoJson = parse(fidoResponse.getResponseBody())  # noqa: N806
            if fidoJson.has("error"):
                self.sendErrorResponse(response, "FIDO2 server error: " + fidoJson.getAsString("error"), 500)
                return
            sessionId = None  # noqa: N806
            if fidoJson.has("allowCredentials"):
                allowCredentials = fidoJson["allowCredentials"]  # noqa: N806
                if len(allowCredentials) > 0:
                    credential = JsonObject(allowCredentials[0])
                    if credential.has("id"):
                        sessionId = credential.getAsString("id")  # noqa: N806
            responseJson = {"status": "success", "operation": "authenticate", "rpId": rpId, "username": username,  # noqa: N806
                            "fidoServerResponse": fidoJson}
            if sessionId is not None:
                responseJson["sessionId"] = sessionId
            responseJson["fido2ServerOrigin"] = self.extractFido2ServerOrigin()
            if fidoResponse.getCookies() is not None:
                responseJson["cookies"] = fidoResponse.getCookies()
            response.write(responseJson)
        except ArculusFidoException as e:
            self.sendErrorResponse(response, "Authentication begin failed: "
                                   + (e.getMessage() if e.getMessage() is not None else "FIDO2 server communication failed"), 500)
        except Exception as e:  # noqa: BLE001
            self.sendErrorResponse(response, "Authentication begin failed: " + (str(e) if str(e) else "Unknown error"), 500)

    def handleAuthenticateComplete(self, username, cardResponseData, cookies, response):  # noqa: N802, N803
        try:
            cleanedCookies = self.cleanCookieString(cookies)  # noqa: N806
            type_ = cardResponseData.getAsString("type") if cardResponseData.has("type") else "public-key"
            id_ = cardResponseData.getAsString("id") if cardResponseData.has("id") else None
            responseData = cardResponseData["response"] if cardResponseData.has("response") else {}  # noqa: N806
            fidoRequest = {"username": username, "type": type_}  # noqa: N806
            if id_ is not None:
                fidoRequest["id"] = id_
            fidoRequest["response"] = responseData
            requestBody = json.dumps(fidoRequest)  # noqa: N806
            endpoint = self.fidoServer.getCompleteAuthenticateEndpoint()
            try:
                fidoResponse = self.fidoServer.makeHttpCall(endpoint, requestBody, cleanedCookies)  # noqa: N806
            except ArculusFidoException as e:
                serverResponseCode = e.getUnderlyingServerResponseCode()  # noqa: N806
                if serverResponseCode == 401:
                    self.sendErrorResponse(response, "FIDO2 server session expired. Please retry authentication from the beginning.", 401)
                    return
                self.sendErrorResponse(response, "FIDO2 server communication failed (HTTP " + str(serverResponseCode) + "): "
                                       + (e.getMessage() if e.getMessage() is not None else "Unknown error"), 500)
                return
            fidoJson = parse(fidoResponse.getResponseBody())  # noqa: N806
            if fidoJson.has("error"):
                self.sendErrorResponse(response, "FIDO2 authentication failed: " + fidoJson.getAsString("error"), 400)
                return
            response.write({"status": "success", "operation": "authenticate", "message": "Authentication completed successfully"})
        except ArculusFidoException as e:
            self.sendErrorResponse(response, "Authentication complete failed: "
                                   + (e.getMessage() if e.getMessage() is not None else "FIDO2 server communication failed"), 500)
        except Exception as e:  # noqa: BLE001
            self.sendErrorResponse(response, "Authentication complete failed: " + (str(e) if str(e) else "Unknown error"), 500)

    @staticmethod
    def sendErrorResponse(response, message, statusCode):  # noqa: N802, N803
        response.status = statusCode
        response.write({"status": "failed", "error": message})


class _Response:
    """The servlet's HttpServletResponse: a status and what was written."""

    def __init__(self):
        self.status = 200
        self.body = {}

    def write(self, document: dict):
        self.body = document
