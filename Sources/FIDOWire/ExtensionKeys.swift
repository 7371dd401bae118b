/// Members of the hmac-secret extension's getAssertion input (CTAP 2.1 §12.5).
public enum HMACSecretInputKey: Int, Sendable, CaseIterable {
    case keyAgreement = 0x01
    case saltEnc = 0x02
    case saltAuth = 0x03
    case pinUvAuthProtocol = 0x04
}
