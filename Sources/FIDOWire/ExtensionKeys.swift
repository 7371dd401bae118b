/// Members of the hmac-secret extension's getAssertion input (CTAP 2.1 §12.5).
public enum HMACSecretInputKey: Int, Sendable, CaseIterable {
    case keyAgreement = 0x01, saltEnc = 0x02, saltAuth = 0x03, pinUvAuthProtocol = 0x04
}
