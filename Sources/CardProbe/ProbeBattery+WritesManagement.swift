import CBOR
import CardCrypto
import FIDOWire
import JSONSupport

extension ProbeBattery {
    /// Credential management with a cm token (CTAP 2.1 §6.8): metadata, RPs, credentials,
    /// updating the user, deleting.
    static var writesManagement: [ProbeEntry] {
        let cm = Int(PINUVAuthPermissions.credentialManagement.rawValue)
        func manage(_ session: ProbeSession, _ subcommand: CredentialManagementSubcommand,
                    _ parameters: CBORMap? = nil) throws(ProbeInterruption) -> ProbeRecord {
            let (tokenRecord, token) = try session.token(pin: session.carried.pin, version: 2, permissions: cm)
            guard let token else { return ProbeRecord(request: tokenRecord.request, answer: ["token refused": tokenRecord.answer]) }
            var request: CBORMap = [.int(CredentialManagementKey.subCommand.rawValue): .int(subcommand.rawValue)]
            var signed = [UInt8(subcommand.rawValue)]
            if let parameters {
                request[int: CredentialManagementKey.subCommandParams.rawValue] = .map(parameters)
                signed += CBOREncoder.encode(.map(parameters))
            }
            request[int: CredentialManagementKey.pinUvAuthProtocol.rawValue] = 2
            request[int: CredentialManagementKey.pinUvAuthParam.rawValue] = .bytes(token.authenticate(signed))
            return try session.kept(.credentialManagement, request).0
        }
        let rpIDHash: CBORMap = [.int(CredentialManagementParameterKey.rpIDHash.rawValue): .bytes(SHA256.hash(Array(ProbeValues.rpID.utf8)))]
        func credential(_ session: ProbeSession) -> CBORMap {
            [.int(CredentialManagementParameterKey.credentialID.rawValue): ProbeValues.descriptor(session.carried.discoverable ?? ProbeValues.unknownCredentialID)]
        }
        return [
            write("credentialManagement.metadata", "credentialManagement getCredsMetadata") { session throws(ProbeInterruption) in
                try manage(session, .getCredsMetadata)
            },
            write("credentialManagement.rps", "credentialManagement enumerateRPsBegin") { session throws(ProbeInterruption) in
                try manage(session, .enumerateRPsBegin)
            },
            write("credentialManagement.credentials", "credentialManagement enumerateCredentialsBegin for the probe RP") { session throws(ProbeInterruption) in
                try manage(session, .enumerateCredentialsBegin, rpIDHash)
            },
            write("credentialManagement.update-user", "credentialManagement updateUserInformation") { session throws(ProbeInterruption) in
                var parameters = credential(session)
                parameters[int: CredentialManagementParameterKey.user.rawValue] = .map(["id": .bytes(ProbeValues.userID), "name": "probe two"])
                return try manage(session, .updateUserInformation, parameters)
            },
            write("credentialManagement.delete", "credentialManagement deleteCredential") { session throws(ProbeInterruption) in
                try manage(session, .deleteCredential, credential(session))
            },
            write("credentialManagement.delete-again", "credentialManagement deleteCredential of the deleted credential") {
                session throws(ProbeInterruption) in
                try manage(session, .deleteCredential, credential(session))
            },
            write("credentialManagement.metadata-after-delete", "credentialManagement getCredsMetadata after deleting") {
                session throws(ProbeInterruption) in
                try manage(session, .getCredsMetadata)
            },
        ]
    }

    /// U2F REGISTER and AUTHENTICATE (FIDO U2F Raw Message Formats §4, §5).
    static var writesU2F: [ProbeEntry] {
        [
            write("u2f.register", "U2F_REGISTER", start: .selected) { session throws(ProbeInterruption) in
                let apdu = U2FValues.register(U2FValues.challenge + U2FValues.application)
                let answer = try session.link.following(apdu)
                let shape = U2FShape.register(answer, context: session.shape.context)
                session.carried.u2fKeyHandle = shape.keyHandle
                return ProbeRecord(request: ["apdu": .string(Hex.string(apdu))], answer: shape.json)
            },
            write("u2f.check-only", "U2F_AUTHENTICATE check-only with the registered key handle") { session throws(ProbeInterruption) in
                var record = try session.apdu(U2FValues.authenticate(U2FControl.checkOnly.rawValue, keyHandle: keyHandle(session)))
                record.request = ["apdu": "U2F_AUTHENTICATE 07 with the registered key handle"]
                return record
            },
            write("u2f.authenticate", "U2F_AUTHENTICATE with the registered key handle") { session throws(ProbeInterruption) in
                let answer = try session.link.timed(TimingKind.u2fAuthenticate) { () throws(ProbeInterruption) in
                    try session.link.following(U2FValues.authenticate(U2FControl.enforceUserPresenceAndSign.rawValue, keyHandle: keyHandle(session)))
                }
                return ProbeRecord(request: ["apdu": "U2F_AUTHENTICATE 03 with the registered key handle"],
                                   answer: U2FShape.authenticate(answer, context: session.shape.context))
            },
        ]
    }

    private static func keyHandle(_ session: ProbeSession) -> [UInt8] {
        session.carried.u2fKeyHandle ?? [UInt8](repeating: 0xA5, count: 64)
    }
}
