import CBOR
import CTAPClient

extension AttestationResult {
    /// The registration as a WebAuthn client sends it to a relying party that asked for `none`
    /// attestation (WebAuthn L2 §5.1.3 step 20.2): the AAGUID replaced by 16 zero bytes, format
    /// `none`, an empty statement. Self attestation (zero AAGUID, packed without `x5c`) is kept.
    func withNoneAttestation() -> AttestationResult {
        let data = authenticatorData
        let zero = [UInt8](repeating: 0, count: 16)
        if data.attestedCredential?.aaguid == zero, format == "packed", statement[text: "x5c"] == nil { return self }
        var bytes = data.bytes
        // rpIdHash (32), flags (1), signCount (4), then the AAGUID.
        bytes.replaceSubrange(37..<53, with: zero)
        guard let anonymous = try? ParsedAuthenticatorData(bytes) else {
            preconditionFailure("authenticator data that parsed once parses with another AAGUID")
        }
        return AttestationResult(format: "none", authenticatorData: anonymous, statement: CBORMap())
    }
}
