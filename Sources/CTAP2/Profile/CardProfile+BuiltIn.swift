import FIDOWire

/// The two Arculus models in the FIDO metadata, and a reference card (see README, "Card profiles", for which values are
/// published facts and which are assumptions). `Fixtures/profiles/*.json` are these same values as
/// files; a test keeps the two identical.
extension CardProfile {
    /// "Arculus FIDO 2.1 Key Card [P71]": CTAP 2.1, PIN/UV auth protocols 2 and 1, credential
    /// management, and — an assumption, see README "Card profiles" — large blobs (1 KiB, the
    /// minimum CTAP 2.1 allows) with the largeBlobKey extension.
    public static let arculusFIDO21: CardProfile = {
        var profile = CardProfile(
            name: "arculus-fido21",
            description: "Arculus FIDO 2.1 Key Card [P71] (emulated)",
            aaguid: "3f59672f-20aa-4afe-b6f4-7e5e916b6d98",
            versions: ["U2F_V2", "FIDO_2_0", "FIDO_2_1"],
            extensions: [.credProtect, .hmacSecret, .largeBlobKey],
            pinUvAuthProtocols: [2, 1],
            credentialManagement: true,
            pinUvAuthToken: true,
            makeCredUvNotRqd: true,
            maxMsgSize: 2048,
            maxCredentialCountInList: 8,
            maxCredentialIdLength: 128,
            transports: ["nfc"],
            algorithms: [-7],
            firmwareVersion: 0x0201,
            minPINLength: 4,
            residentKeyCapacity: 50,
            resetWindowSeconds: 10,
            selectResponse: "FIDO_2_0",
            atr: "3B8A8001417263756C7573456D7519",
            attestation: .packed)
        profile.largeBlobs = true
        profile.maxSerializedLargeBlobArray = 1024
        profile.signatureCounterReservation = 64
        return profile
    }()

    /// "Arculus FIDO2/U2F Key Card": CTAP 2.0 with U2F, PIN/UV auth protocol 1 only.
    public static let arculusFIDO2 = CardProfile(
        name: "arculus-fido2",
        description: "Arculus FIDO2/U2F Key Card (emulated)",
        aaguid: "9d3df6ba-282f-11ed-a261-0242ac120002",
        versions: ["U2F_V2", "FIDO_2_0"],
        extensions: [.credProtect, .hmacSecret],
        pinUvAuthProtocols: [1],
        credentialManagement: false,
        pinUvAuthToken: false,
        makeCredUvNotRqd: false,
        maxMsgSize: 1200,
        maxCredentialCountInList: 8,
        maxCredentialIdLength: 128,
        transports: ["nfc"],
        algorithms: [-7],
        firmwareVersion: 0x0105,
        minPINLength: 4,
        residentKeyCapacity: 25,
        resetWindowSeconds: 10,
        selectResponse: "FIDO_2_0",
        atr: "3B8A8001417263756C7573456D7519",
        attestation: .packed
    ).reserving(64)

    /// Not an Arculus card: an emulated reference authenticator with every CTAP 2.1 feature this
    /// build has, and the CTAP 2.2 ones clients use, for testing a client or a server against the
    /// whole specification.
    public static let reference: CardProfile = {
        // The FIDO 2.1 card's NFC front and limits, with every feature on.
        var profile = arculusFIDO21
        profile.name = "ctap-reference"
        profile.description = "CTAP 2.1 reference authenticator, every feature on (emulated, not an Arculus model)"
        profile.aaguid = "801878dc-baf3-4d48-a72c-1b23ed4be363"
        profile.versions = ["U2F_V2", "FIDO_2_0", "FIDO_2_1_PRE", "FIDO_2_1"]
        profile.extensions = [ExtensionIdentifier.credBlob, .credProtect, .hmacSecret, .hmacSecretMakeCredential, .largeBlobKey,
                              .minPinLength, .thirdPartyPayment, .uvm].map(\.rawValue)
        profile.maxCredentialIdLength = 256
        profile.algorithms = [-7, -8, -35, -36, -47, -257, -37]
        profile.firmwareVersion = 0x0100
        profile.residentKeyCapacity = 100
        profile.authenticatorConfig = true
        profile.alwaysUv = false
        profile.setMinPINLength = true
        profile.maxRPIDsForSetMinPINLength = 8
        profile.enterpriseAttestation = true
        profile.enterpriseAttestationRPIDs = ["enterprise.example"]
        profile.maxSerializedLargeBlobArray = 4096
        profile.maxCredBlobLength = 64
        profile.credentialManagementPreview = true
        profile.persistentCredentialManagement = true
        return profile
    }()

    /// The profiles compiled in, the default first.
    public static let builtIn: [CardProfile] = [arculusFIDO21, arculusFIDO2, reference]

    /// The FIDO 2.1 card.
    public static let `default` = arculusFIDO21

    /// Names accepted by `named(_:)` without a path.
    public static var builtInNames: [String] { builtIn.map(\.name) }
}

extension CardProfile {
    /// This profile with the signature counter made durable `count` ahead.
    func reserving(_ count: Int) -> CardProfile {
        var profile = self
        profile.signatureCounterReservation = count
        return profile
    }
}
