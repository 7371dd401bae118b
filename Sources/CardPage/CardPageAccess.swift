import CardCrypto
import FIDOWire

/// Who may use the card page: a request must name the page's own loopback address as its
/// `Host` (no DNS rebinding: a page on another name that resolves to 127.0.0.1 is refused),
/// come from no other `Origin` than the page's own when it names one (no cross-site requests),
/// and carry the per-run secret as `t` in its query, compared in constant time. A POST must say
/// its body is JSON, which a cross-site form cannot send without the browser asking first.
public struct CardPageAccess: Sendable {
    /// The secret the page's address carries: 16 random bytes from the system's generator, as
    /// 32 lower-case hex digits (never the card's own random source, which a seed makes known).
    public let secret: String
    /// `127.0.0.1:PORT`: what `Host` must say.
    public let authority: String

    /// The access rules of a page listening at `authority`, with `secret` (a new one by default).
    public init(authority: String, secret: String = Hex.string(SecureRandom.bytes(16), uppercase: false)) {
        self.authority = authority
        self.secret = secret
    }

    /// The page's origin, `http://127.0.0.1:PORT`.
    public var origin: String { "http://\(authority)" }

    /// Why `request` is refused, as the answer to send; nil when it may go on.
    public func refusal(of request: HTTPRequest) -> HTTPResponse? {
        guard let host = request.header("host") else { return .error(403, "refused: the request names no Host") }
        guard host.lowercased() == authority else {
            return .error(403, "refused: Host must be \(authority), the address the card page listens on")
        }
        if let origin = request.header("origin"), origin.lowercased() != self.origin {
            return .error(403, "refused: requests from another origin cannot use the card page")
        }
        guard let given = request.query["t"], !given.isEmpty else {
            return .error(403, "refused: the request does not carry the page's secret (t=… in the address serve printed)")
        }
        guard ConstantTime.equals(Array(given.utf8), Array(secret.utf8)) else {
            return .error(403, "refused: wrong secret (use the address serve printed)")
        }
        return nil
    }

    /// Why a POST's body is refused before it is read as JSON: it must say it is JSON.
    public static func bodyRefusal(of request: HTTPRequest) -> HTTPResponse? {
        let type = request.header("content-type")?.split(separator: ";").first?.trimmingHTTPWhitespace.lowercased()
        guard type == "application/json" else {
            return .error(415, "an op is sent as Content-Type: application/json")
        }
        return nil
    }
}
