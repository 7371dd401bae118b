import Foundation
import JSONSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The HTTP side of one flow: JSON POSTs through `URLSession`, with the server's session
/// cookies kept between the phases by hand (no shared cookie storage, so flows never leak
/// sessions into each other).
///
/// What a server can make the SDK do is bounded (``HTTPAnswerReceiver``): no redirect is
/// followed (a `3xx` is refused, naming where it pointed), an answer is at most
/// ``answerLimit`` bytes, and each call ends within its timeout however slowly the server sends.
final class HTTPExchange: Sendable {
    /// An answer: HTTP status, the body as JSON (`.null` when it is not JSON) and as text.
    struct Answer: Sendable {
        let status: Int
        let json: JSONValue
        let text: String
    }

    /// The longest answer read (1 MiB): a FIDO2 server's options or result are a few kilobytes.
    static let answerLimit = 1 << 20
    /// The timeouts a caller may give, in seconds: above 0, at most an hour (what the command
    /// line allows for its waits).
    static let timeouts = 0.001...3600.0

    private let session: URLSession
    private let receiver: HTTPAnswerReceiver
    private let timeout: Double
    /// The server's address as the caller gave it (`fido.example.com`, `http://127.0.0.1:8080`),
    /// for the advice after a failed TLS handshake.
    private let address: String
    private let cookies = Mutex<[String: String]>([:])

    /// An exchange whose every call ends within `timeout` seconds (kept within ``timeouts``;
    /// callers check it first, ``InputCheck/timeout(_:_:)``).
    init(timeout: Double, address: String) {
        let bounded = timeout.isNaN ? 30 : min(max(timeout, Self.timeouts.lowerBound), Self.timeouts.upperBound)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.timeoutIntervalForRequest = bounded
        configuration.timeoutIntervalForResource = bounded
        receiver = HTTPAnswerReceiver(limit: Self.answerLimit)
        session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: nil)
        self.timeout = bounded
        self.address = address
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The cookies to send back, `name=value; name=value` (nil when none).
    var cookieHeader: String? {
        cookies.withLock { jar in
            jar.isEmpty ? nil : jar.keys.sorted().map { "\($0)=\(jar[$0] ?? "")" }.joined(separator: "; ")
        }
    }

    /// POSTs `body` as JSON to `url` with the kept cookies (or `cookieHeader` when given); keeps
    /// any new ones. `what` names the exchange in errors of `operation`.
    func post(_ url: URL, _ body: JSONValue, during operation: ArculusFidoOperation?, what: String,
              cookieHeader given: String? = nil) async throws(ArculusFidoError) -> Answer {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let cookies = given ?? cookieHeader { request.setValue(cookies, forHTTPHeaderField: "Cookie") }
        request.httpBody = Data(body.text.utf8)
        try ArculusFidoError.throwIfCancelled(during: operation)
        let task = session.dataTask(with: request)
        let outcome = await receiver.outcome(of: task, deadline: .milliseconds(Int64((timeout * 1000).rounded())))
        receiver.forget(task)
        let place = url.absoluteString
        switch outcome {
        case .cancelled:
            throw ArculusFidoError(.cancelled, during: operation, "\(what): cancelled while waiting for \(place)")
        case .deadline:
            throw ArculusFidoError(.unknown, during: operation, "\(what): \(place) did not answer within \(timeout.formatted) s",
                                   urlError: URLError(.timedOut))
        case .tooLarge(let declared):
            let size = declared.map { "of \($0) bytes" } ?? "longer than that"
            throw ArculusFidoError(.unknown, during: operation,
                                   "\(what): \(place) sent an answer \(size); the SDK reads at most \(Self.answerLimit) bytes (1 MiB) from a server",
                                   urlError: URLError(.dataLengthExceedsMaximum))
        case .failed(let urlError, let text):
            throw failure(urlError, text, url: url, what: what, during: operation)
        case .answered(let http, let data):
            if (300..<400).contains(http.statusCode) {
                let target = http.value(forHTTPHeaderField: "Location").map { " to \($0)" } ?? ""
                throw ArculusFidoError(.unknown, during: operation,
                                       "\(what): \(place) answered HTTP \(http.statusCode), a redirect\(target); the SDK follows no redirect (the session cookie and the card's response would go with it): give the server's own address",
                                       httpStatus: http.statusCode)
            }
            keepCookies(from: http, url: url)
            let text = String(decoding: data, as: UTF8.self)
            return Answer(status: http.statusCode, json: (try? JSONValue(parsing: data)) ?? .null, text: text)
        }
    }

    /// The SDK error for a request that got no answer: 601 with the `URLError` kept (a time-out
    /// says how long it waited; a failed TLS handshake says how to reach a server without TLS).
    private func failure(_ urlError: URLError?, _ text: String, url: URL, what: String,
                         during operation: ArculusFidoOperation?) -> ArculusFidoError {
        let place = url.absoluteString
        if Task.isCancelled {
            return ArculusFidoError(.cancelled, during: operation, "\(what): cancelled while waiting for \(place)")
        }
        if urlError?.code == .timedOut {
            return ArculusFidoError(.unknown, during: operation, "\(what): \(place) did not answer within \(timeout.formatted) s",
                                    urlError: urlError)
        }
        var reason = "cannot reach \(place): \(text)"
        if url.scheme == "https", Self.isTLSFailure(urlError, text) {
            let host = url.port.map { "\(url.host ?? ""):\($0)" } ?? (url.host ?? "")
            let plain = "http://\(host)"
            reason += address.contains("://")
                ? "; the TLS handshake with \(host) failed: if the server there speaks plain HTTP, give \(plain)"
                : "; '\(address)' has no scheme, so the SDK spoke https to it and the TLS handshake failed: for a server without TLS give \(plain), with TLS https://\(address)"
        }
        return ArculusFidoError(.unknown, during: operation, "\(what): \(reason)", urlError: urlError)
    }

    /// Whether a failure is the TLS handshake's (Linux's Foundation reports OpenSSL's refusal
    /// with code -1 and OpenSSL's words).
    private static func isTLSFailure(_ urlError: URLError?, _ text: String) -> Bool {
        let tlsCodes: Set<URLError.Code> = [.secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                                            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot]
        if let code = urlError?.code, tlsCodes.contains(code) { return true }
        return ["SSL", "TLS"].contains { text.contains($0) }
    }

    private func keepCookies(from response: HTTPURLResponse, url: URL) {
        var fields: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { fields[key] = value }
        }
        let received = HTTPCookie.cookies(withResponseHeaderFields: fields, for: url)
        guard !received.isEmpty else { return }
        cookies.withLock { jar in
            for cookie in received { jar[cookie.name] = cookie.value }
        }
    }
}

private extension Double {
    /// `30`, `0.5`: seconds as a person writes them.
    var formatted: String { self == rounded() ? String(Int(self)) : String(self) }
}
