/// What WebAuthn accepts as a relying party ID, and whether an RP ID fits an origin.
///
/// An RP ID is a *valid domain string* (WebAuthn §5.4.2 `rp.id`, §5.1.3 step 8): a domain name,
/// given as browsers give it — lowercase ASCII, internationalised labels in their A-label
/// (punycode, `xn--`) form (RFC 5890), no trailing dot, no scheme, port or path. IP addresses are
/// not domains: browsers refuse them as RP IDs, and refuse WebAuthn on an origin whose host is
/// one. `localhost` is a domain and browsers accept it on `http://localhost` origins.
enum RelyingPartyID {
    /// Why `id` is not an RP ID, with what to give instead; nil when it is one.
    static func problem(_ id: String) -> String? {
        let example = "e.g. example.com"
        if id.isEmpty { return "is empty; give the relying party's domain, \(example)" }
        if id.allSatisfy(\.isWhitespace) { return "is blank; give the relying party's domain, \(example)" }
        if id.contains("://") {
            let host = WebOrigin.parse(id).origin?.host ?? WebOrigin.hostOfURL(id)
            return "is a URL; give the relying party's domain, e.g. \(host.flatMap { DomainName.problem($0) == nil ? $0 : nil } ?? "example.com")"
        }
        if id.contains(where: \.isWhitespace) { return "contains whitespace; an RP ID is a bare domain name, \(example)" }
        if let cut = id.firstIndex(where: { "/?#".contains($0) }) {
            return "has a path; give the domain alone: \(id[..<cut])"
        }
        if DomainName.isIPAddress(id) {
            return "is an IP address; WebAuthn RP IDs are domain names (browsers refuse IP addresses), e.g. localhost for a local test server"
        }
        if let colon = id.lastIndex(of: ":") {
            return "has a port; an RP ID is the domain alone: \(id[..<colon])"
        }
        if id != id.lowercased(), id.allSatisfy(\.isASCII) {
            return "has capital letters; RP IDs are lowercase: \(id.lowercased())"
        }
        if id.hasSuffix("."), id.count > 1 {
            return "ends in a dot; give it without: \(id.dropLast())"
        }
        return DomainName.problem(id)
    }

    /// How an RP ID fails to fit an origin (WebAuthn §5.1.3 steps 7–8, §13.4.9).
    enum Misfit: Equatable {
        /// The origin's host is an IP address: it has no domain an RP ID could be.
        case ipAddressOrigin
        /// The RP ID is a suffix of the host, but a single label: a public suffix (`com`), which
        /// no site can claim. The host's last two labels are the likely registrable domain.
        case publicSuffix(likely: String)
        /// Neither the host nor a suffix of it.
        case unrelated
    }

    /// Why an RP ID does not fit an origin (`origin` names it): a phrase after the quoted RP ID.
    /// Not for ``Misfit/ipAddressOrigin``, which is the origin's fault (``ipAddressReason(_:)``).
    static func reason(_ misfit: Misfit, origin: ArculusFidoMessage) -> ArculusFidoMessage {
        switch misfit {
        case .publicSuffix(let likely):
            "is a single label, a public suffix of the host of \(origin), which no site may claim; give the registrable domain, e.g. \(likely)"
        case .unrelated, .ipAddressOrigin:
            "is neither the host of \(origin) nor a registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3)"
        }
    }

    /// Why an origin whose host is an IP address has no RP ID: a phrase after the quoted origin.
    static func ipAddressReason(_ origin: WebOrigin) -> String {
        "has an IP address for its host, and WebAuthn wants a domain there (§5.1.3), so no RP ID fits it; use http://localhost"
            + (origin.port.map { ":\($0)" } ?? "")
    }

    /// How to sign anyway, at the end of a misfit's message.
    static func anyway(_ operation: ArculusFidoOperation?) -> ArculusFidoMessage {
        " (with \(.allowRPIDMismatch, of: operation) it is signed anyway, for a test that wants the mismatch)"
    }

    /// Why `id` may not be used on `origin`, or nil when it may: the RP ID must be the origin's
    /// host or a registrable domain suffix of it. Without the Public Suffix List only
    /// single-label suffixes are known to be public; a multi-label public suffix (`co.uk`) is
    /// taken for registrable.
    static func misfit(_ id: String, origin: WebOrigin) -> Misfit? {
        if origin.isIPAddress { return .ipAddressOrigin }
        if id == origin.host { return nil }
        guard origin.host.hasSuffix("." + id) else { return .unrelated }
        guard id.contains(".") else { return .publicSuffix(likely: origin.host.split(separator: ".").suffix(2).joined(separator: ".")) }
        return nil
    }
}

/// Domain names in the form browsers serialise them (RFC 1035 §2.3.1 labels, RFC 5890 A-labels).
enum DomainName {
    /// Why `name` is not a lowercase ASCII domain name, as a phrase after the name ("has an empty
    /// label"); nil when it is one.
    static func problem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.unicodeScalars.contains(where: { !$0.isASCII }) {
            return "is not ASCII; give its A-label (punycode, xn--...) form, as browsers do"
        }
        if name != name.lowercased() { return "has capital letters; give it in lowercase: \(name.lowercased())" }
        if name.hasSuffix(".") { return "ends in a dot; give it without: \(name.dropLast())" }
        guard name.utf8.count <= 253 else { return "is \(name.utf8.count) characters long; a domain name has at most 253" }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            if label.isEmpty { return "has an empty label (two dots in a row, or a leading dot)" }
            if label.utf8.count > 63 { return "has a label of \(label.utf8.count) characters; at most 63 fit" }
            if let odd = label.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")) }) {
                return "has '\(odd)', which no domain name has (letters, digits and '-' only)"
            }
            if label.hasPrefix("-") || label.hasSuffix("-") { return "has a label that starts or ends with '-'" }
            if label.count >= 4, label.dropFirst(2).hasPrefix("--"), !label.hasPrefix("xn--") {
                return "has the label '\(label)', whose '--' in third and fourth place only A-labels (xn--) may have"
            }
        }
        if labels.last?.allSatisfy(\.isNumber) == true { return "ends in a numeric label, which no domain name does" }
        return nil
    }

    /// Whether `host` is an IPv4 address (dotted decimal) or an IPv6 address (bare or in brackets).
    static func isIPAddress(_ host: String) -> Bool {
        if host.hasPrefix("[") || host.filter({ $0 == ":" }).count >= 2 { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }
}
