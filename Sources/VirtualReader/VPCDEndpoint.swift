/// Where the vpcd driver listens: a host and a TCP port.
///
/// The Debian build of vsmartcard-vpcd has two slots: reader `Virtual PCD 00 00` on port
/// 35963 and `Virtual PCD 00 01` on 35964; `setup.sh --readers N` adds pairs on the ports after
/// (their names: ``VPCDReaderConfiguration``). The driver binds every interface, but a card
/// process should reach it over loopback, hence the default host.
public struct VPCDEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The driver's port for slot 0.
    public static let basePort: UInt16 = 35963

    /// Host name or numeric address (IPv4 or IPv6).
    public var host: String
    /// TCP port.
    public var port: UInt16

    /// An endpoint at `host`:`port`.
    public init(host: String = "127.0.0.1", port: UInt16 = VPCDEndpoint.basePort) {
        self.host = host
        self.port = port
    }

    /// The default endpoint: 127.0.0.1:35963 (slot 0).
    public static let `default` = VPCDEndpoint()

    /// Parses `HOST:PORT`, `[IPv6]:PORT` or `HOST` (port 35963); `nil` when malformed.
    public init?(parsing text: String) {
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = host.lastIndex(of: ":") {
            // More than one colon without brackets is a bare IPv6 address.
            if host.firstIndex(of: ":") == colon {
                portText = host[host.index(after: colon)...]
                host = host[..<colon]
            }
        }
        guard !host.isEmpty else { return nil }
        var port = VPCDEndpoint.basePort
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { return nil }
            port = parsed
        }
        self.init(host: String(host), port: port)
    }

    /// The endpoint of slot `slot` on the same host: port 35963 + `slot`; `nil` when that
    /// is not a port.
    public func slot(_ slot: Int) -> VPCDEndpoint? {
        guard slot >= 0, slot <= Int(UInt16.max) - Int(Self.basePort) else { return nil }
        return VPCDEndpoint(host: host, port: Self.basePort + UInt16(slot))
    }

    /// `host:port`, with brackets around an IPv6 address.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
