/// The defects the CTAP 2.1 review listed (issue 12) and the tests that show each, one file per
/// defect. They are written at the CBOR level through `TestClient`, using only what the test
/// client had before the rewrite, so that they also compile against the code before it
/// (b12d9c1) and fail there.
///
/// 1. The pinUvAuthToken per protocol, its timers and its use: `Defect01TokenStateTests`
///    (and `TokenUseTests` for presence without a token).
/// 2. The CTAP 2.0 profile: `Defect02CTAP20ProfileTests`; its getInfo members 0x01–0x08 only:
///    `GetInfoTests.ctap21Members`.
/// 3. Profile validation: `Defect03ProfileValidationTests`.
/// 4. uv beside a pinUvAuthParam: `Defect04UVWithTokenTests`.
/// 5. enterpriseAttestation in its own step, ignored on 2.0: `Defect05EnterpriseAttestationStepTests`.
/// 6. mc/ga permissions without a permissions RP ID → MISSING_PARAMETER: `ClientPINTests.permissionErrors`.
/// 7. Credential management MACs the bytes received: `Defect07CredentialManagementBytesTests`.
/// 8. Empty user names removed: `Defect08EmptyUserNameTests`.
/// 9. U2F check-only with a credProtect-3 key handle: `Defect09U2FCheckOnlyTests`.
/// 10. hmac-secret after user presence: `Defect10HMACSecretAfterPresenceTests`.
/// 11. RP IDs as bytes: `Defect11RPIDBytesTests`.
/// 12. getPINRetries without a PIN → PIN_NOT_SET: `ClientPINTests.retries`.
enum ReviewDefects {}
