/// A web origin as clientDataJSON carries it (WebAuthn §5.8.1 `origin`): the ASCII
/// serialisation of a tuple origin (HTML §7.1.1): `scheme://host[:port]`, lowercase, without the
/// scheme's default port and with nothing after the authority — not even a `/`.
///
/// The SDK puts the origin into clientDataJSON as given and the server compares it as text, so
/// anything else (`https://example.com/`, `https://Example.com`, `https://example.com:443`) is
/// refused with the serialised form to give instead, rather than silently rewritten.
///
/// The scheme is `https`, or `http` for a host a browser treats as a secure context without TLS
/// (W3C Secure Contexts §3.1, "potentially trustworthy"): `localhost`, names under
/// `.localhost`, the IPv4 loopback 127.0.0.0/8 and `[::1]`.
struct WebOrigin: Equatable {
    let scheme: String
    /// The host: a domain name, an IPv4 address, or an IPv6 address in brackets.
    let host: String
    /// Nil for the scheme's default port.
    let port: Int?

    var isIPAddress: Bool { DomainName.isIPAddress(host) }

    /// `scheme://host[:port]`.
    var serialised: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }

    /// The origin `text` is, or why it is none (a phrase after the quoted text).
    static func parse(_ text: String) -> (origin: WebOrigin?, problem: String?) {
        let example = "e.g. https://example.com"
        if text.isEmpty { return (nil, "is empty; give the origin the relying party's server expects, \(example)") }
        if text.contains(where: \.isWhitespace) { return (nil, "contains whitespace; an origin is scheme://host[:port], \(example)") }
        guard let separator = text.range(of: "://") else {
            let guess = DomainName.problem(text.lowercased()) == nil ? "https://\(text.lowercased())" : "https://example.com"
            return (nil, "is not an origin: it has no scheme; give scheme and host, e.g. \(guess)")
        }
        let scheme = String(text[..<separator.lowerBound])
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let trailer = rest[authorityEnd...]
        guard scheme.lowercased() == "https" || scheme.lowercased() == "http" else {
            return (nil, "has the scheme '\(scheme)'; WebAuthn origins are https (http only on localhost), \(example)")
        }
        if authority.contains("@") {
            return (nil, "has user information before '@'; an origin is scheme://host[:port] only")
        }
        let (hostText, portText) = split(authority)
        if hostText.isEmpty { return (nil, "has no host; give one, \(example)") }
        var port: Int?
        if let portText {
            guard let number = Int(portText), portText.allSatisfy(\.isNumber), (1...65535).contains(number), !portText.hasPrefix("0") else {
                return (nil, "has the port '\(portText)', which is not a number from 1 to 65535")
            }
            port = number
        }
        let lowered = WebOrigin(scheme: scheme.lowercased(), host: hostText.lowercased(), port: port)
        let defaultPort = lowered.scheme == "https" ? 443 : 80
        let serialisedForm = WebOrigin(scheme: lowered.scheme, host: lowered.host, port: port == defaultPort ? nil : port).serialised
        if !trailer.isEmpty {
            let what = trailer == "/" ? "ends in '/'" : "has a path, query or fragment ('\(trailer)')"
            return (nil, "\(what); an origin ends after the host and port: \(serialisedForm)")
        }
        if port == defaultPort { return (nil, "names the default port \(defaultPort); browsers leave it out: \(serialisedForm)") }
        if text != text.lowercased(), text.allSatisfy(\.isASCII) {
            return (nil, "has capital letters; origins are lowercase: \(serialisedForm)")
        }
        if !lowered.isIPAddress, let problem = DomainName.problem(lowered.host) {
            return (nil, "is not an origin: its host \(problem)")
        }
        if lowered.scheme == "http" && !lowered.isPotentiallyTrustworthy {
            return (nil, "is http; WebAuthn needs a secure origin, https (http only for localhost and loopback addresses): https://\(lowered.host)"
                + (port.map { ":\($0)" } ?? ""))
        }
        return (lowered, nil)
    }

    /// Whether a browser treats the host as a secure context over plain http.
    private var isPotentiallyTrustworthy: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "[::1]" { return true }
        return isIPAddress && host.hasPrefix("127.")
    }

    /// Host and port of an authority; an IPv6 host keeps its brackets.
    private static func split(_ authority: Substring) -> (host: String, port: String?) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let after = authority[authority.index(after: close)...]
            return (String(authority[...close]), after.hasPrefix(":") ? String(after.dropFirst()) : (after.isEmpty ? nil : String(after)))
        }
        guard let colon = authority.lastIndex(of: ":") else { return (String(authority), nil) }
        return (String(authority[..<colon]), String(authority[authority.index(after: colon)...]))
    }

    /// The host of a URL that is more than an origin (`https://example.com/login`), lowercase, for
    /// a suggestion; nil when there is none.
    static func hostOfURL(_ text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        let rest = text[separator.upperBound...]
        let authority = rest[..<(rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex)]
        let withoutUser = authority.split(separator: "@").last.map(String.init) ?? ""
        let host = split(Substring(withoutUser)).host.lowercased()
        return host.isEmpty ? nil : host
    }
}
