internal import CPCSCLite

/// The transmission protocol of a connection (`dwActiveProtocol`).
public enum PCSCProtocol: Equatable, Sendable, CustomStringConvertible {
    /// Character-oriented T=0 (contact cards).
    case t0
    /// Block-oriented T=1; what PC/SC readers report for contactless (ISO 14443-4) cards.
    case t1
    /// Raw (`SCARD_PROTOCOL_RAW`).
    case raw
    /// Any other value pcscd reported.
    case other(UInt32)

    init(_ value: DWORD) {
        switch Int32(truncatingIfNeeded: value) {
        case SCARD_PROTOCOL_T0: self = .t0
        case SCARD_PROTOCOL_T1: self = .t1
        case SCARD_PROTOCOL_RAW: self = .raw
        default: self = .other(UInt32(truncatingIfNeeded: value))
        }
    }

    var dword: DWORD {
        switch self {
        case .t0: DWORD(SCARD_PROTOCOL_T0)
        case .t1: DWORD(SCARD_PROTOCOL_T1)
        case .raw: DWORD(SCARD_PROTOCOL_RAW)
        case .other(let value): DWORD(value)
        }
    }

    /// `T=0`, `T=1`, `RAW` or `protocol 0x…`.
    public var description: String {
        switch self {
        case .t0: "T=0"
        case .t1: "T=1"
        case .raw: "RAW"
        case .other(let value): "protocol 0x\(String(value, radix: 16))"
        }
    }
}
