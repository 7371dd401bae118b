#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation
internal import COpenSSL

extension X509Certificate {
    /// The start of the validity period (whole seconds); the Unix epoch if it cannot be read.
    public var notBefore: Date { Self.date(X509_get0_notBefore(object.pointer)) }

    /// The end of the validity period (whole seconds); the Unix epoch if it cannot be read.
    public var notAfter: Date { Self.date(X509_get0_notAfter(object.pointer)) }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
