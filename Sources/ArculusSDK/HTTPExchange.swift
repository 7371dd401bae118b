import Foundation
import JSONSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The HTTP side of one flow: JSON POSTs through `URLSession`, with the server's session
/// cookies kept between the phases by hand (no shared cookie storage, so flows never leak
/// sessions into each other).
final class HTTPExchange: Sendable {
    /// An answer: HTTP status, the body as JSON (`.null` when it is not JSON) and as text.
    struct Answer: Sendable {
        let status: Int
        let json: JSONValue
        let text: String
    }

    private let session: URLSession
    private let timeout: Double
    private let cookies = Mutex<[String: String]>([:])

    init(timeout: Double) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
        self.timeout = timeout
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
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw Self.failure(error, url: url, what: what, timeout: timeout, during: operation)
        }
        guard let http = response as? HTTPURLResponse else {
            throw ArculusFidoError(.unknown, during: operation, "\(what): \(url.absoluteString) did not answer over HTTP")
        }
        keepCookies(from: http, url: url)
        let text = String(decoding: data, as: UTF8.self)
        return Answer(status: http.statusCode, json: (try? JSONValue(parsing: data)) ?? .null, text: text)
    }

    /// The SDK error for a request that got no answer: 701 when the task was cancelled, else 601
    /// with the `URLError` kept (a time-out says how long it waited).
    static func failure(_ error: any Error, url: URL, what: String, timeout: Double,
                        during operation: ArculusFidoOperation?) -> ArculusFidoError {
        var urlError = error as? URLError
        let bridged = error as NSError
        if urlError == nil, bridged.domain == NSURLErrorDomain { urlError = URLError.Code(rawValue: bridged.code).map { URLError($0) } }
        if Task.isCancelled || urlError?.code == .cancelled {
            return ArculusFidoError(.cancelled, during: operation, "\(what): cancelled while waiting for \(url.absoluteString)")
        }
        guard let urlError else {
            return ArculusFidoError(.unknown, during: operation, "\(what): cannot reach \(url.absoluteString): \(error.localizedDescription)")
        }
        let reason = urlError.code == URLError.Code.timedOut
            ? "\(url.absoluteString) did not answer within \(timeout.formatted) s"
            : "cannot reach \(url.absoluteString): \(urlError.localizedDescription)"
        return ArculusFidoError(.unknown, during: operation, "\(what): \(reason)", urlError: urlError)
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
