import ArculusCard
import CardCrypto
import Testing
import FIDOWire

/// Every piece of volatile state, one row each: the card is driven into a state where that piece
/// is not as after power-up (the inventory says so), a copy of the card is kept as the control,
/// and the card is power-cycled through the model's one power-off. Then the inventory is initial
/// again and the piece's observable effect is gone — while on the control, which kept its power,
/// the same input still shows it. So each row proves its own check can fail.
@Suite("Power cycle clears every piece of volatile state")
struct PowerCycleTests {
    static let pin = "4321"
    /// A serialized large-blob array of 40 bytes: a CBOR array of one 22-byte string, and its
    /// LEFT(SHA-256, 16) (CTAP 2.1 §6.10.3).
    static let largeBlobArray: [UInt8] = {
        let array: [UInt8] = [0x81, 0x56] + [UInt8](repeating: 0x41, count: 22)
        return array + SHA256.hash(array).prefix(16)
    }()

    /// What a row drives the card into and what it observes afterwards.
    enum Piece: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case appletSelection, commandChain, pendingResponse, pendingCTAPRequest
        case pinUvAuthToken, consecutivePINFailures, pendingAssertions, rpEnumeration, credentialEnumeration
        case credentialCache, simulatedWork, largeBlobWrite, presenceWait
        /// Not in the inventory: the session's key-agreement key, drawn anew at power-up.
        case keyAgreementKey
        /// Not in the inventory: when the card was powered, from which the reset window counts.
        case poweredOnAt

        var testDescription: String { rawValue }

        /// The inventory's name for the piece; nil for the two it does not list.
        var inventoryName: String? {
            switch self {
            case .keyAgreementKey, .poweredOnAt: nil
            default: rawValue
            }
        }
    }

    /// The card, what the row needs to remember from before the cycle, and how to observe the piece.
    struct Row {
        var card: ModelDriver
        var platform: FixedKeyPlatform
        /// What the row learnt while driving (a token, a key).
        var evidence: [UInt8] = []
    }

    @Test("the table has a row for every piece the inventory names")
    func tableCoversInventory() throws {
        let card = try ModelDriver()
        let names = Set(card.model.volatileInventory.map(\.name))
        #expect(names == Set(Piece.allCases.compactMap(\.inventoryName)))
        #expect(card.changedVolatileState.isEmpty, "a new card is as after power-up")
    }

    @Test("driven, power-cycled, cleared", arguments: Piece.allCases)
    func powerCycleClears(_ piece: Piece) throws {
        var row = try Self.drive(piece)
        if let name = piece.inventoryName {
            #expect(row.card.isInitial(name) == false, "driving the card must leave \(name) changed")
        }
        var control = row.card
        row.card.powerCycle()
        #expect(row.card.changedVolatileState.isEmpty, "left after the power cycle: \(row.card.changedVolatileState)")
        try Self.observe(piece, cycled: &row, control: &control)
    }

    /// Puts a fresh card into a state where `piece` is not as after power-up.
    static func drive(_ piece: Piece) throws -> Row {
        // A front that answers 9100 first and the result at the first poll.
        let options = piece == .pendingCTAPRequest ? CardFront.Options(busyFirst: true, busyPolls: 0) : CardFront.Options()
        var row = Row(card: try ModelDriver(frontOptions: options), platform: try FixedKeyPlatform())
        try row.card.select()
        switch piece {
        case .appletSelection, .keyAgreementKey, .poweredOnAt:
            break
        case .commandChain:
            // The first piece of a chained NFCCTAP_MSG: an unknown command byte.
            #expect(row.card.exchange([0x90, 0x10, 0x00, 0x00, 0x01, 0x42]).sw == 0x9000)
        case .pendingResponse:
            // getInfo with Le 16: the rest waits for GET RESPONSE.
            #expect(row.card.transmit(TestAPDU.nfcctapMessage([CTAPCommand.getInfo.rawValue], le: 0x10)).suffix(2).first == 0x61)
        case .pendingCTAPRequest:
            #expect(row.card.exchange(TestAPDU.nfcctapMessage([CTAPCommand.getInfo.rawValue], p1: 0x80)).sw == 0x9100)
        case .simulatedWork:
            row.card.model.timing = .realistic
            let message = TestAPDU.nfcctapMessage([CTAPCommand.reset.rawValue], p1: 0x80)
            #expect(row.card.exchange(message).sw == 0x9100, "the card works on the reset for 250 ms")
        case .presenceWait:
            row.card.asksPresence = true
            let reset = row.card.exchange(TestAPDU.nfcctapMessage([CTAPCommand.reset.rawValue], p1: 0x80))
            #expect(reset.sw == 0x9100 && reset.data == [NFCBinding.keepaliveUserPresenceNeeded], "the reset waits for the person")
        case .pinUvAuthToken:
            try row.card.setPIN(pin, platform: row.platform)
            row.evidence = try row.card.grantedToken(pin, platform: row.platform)
        case .consecutivePINFailures:
            try row.card.setPIN(pin, platform: row.platform)
            for expected in [CTAPStatus.pinInvalid, .pinInvalid, .pinAuthBlocked] {
                #expect(try row.card.pinToken("0000", platform: row.platform).status == expected)
            }
            #expect(try row.card.pinToken(pin, platform: row.platform).status == .pinAuthBlocked,
                    "three wrong PINs in a row block even the right one until the card leaves the field")
        case .pendingAssertions:
            for user in [[UInt8(1)], [2]] { #expect(try row.card.makeCredential(userId: user).status == .ok) }
            let first = try row.card.getAssertion()
            #expect(first.status == .ok)
            #expect(first.body[GetAssertionResponseKey.numberOfCredentials] == 2)
        case .rpEnumeration, .credentialEnumeration:
            try row.card.setPIN(pin, platform: row.platform)
            // A token's mc permission is used up by one makeCredential, and a new token ends the last.
            for (rp, user) in [("example.com", [UInt8(1)]), ("example.com", [2]), ("example.org", [3])] {
                let mc = try row.card.grantedToken(pin, permissions: .makeCredential, rpId: rp, platform: row.platform)
                #expect(try row.card.makeCredential(rpId: rp, userId: user, token: mc).status == .ok)
            }
            let token = try row.card.grantedToken(pin, permissions: .credentialManagement, platform: row.platform)
            let begin: CTAPStatus
            if piece == .rpEnumeration {
                begin = try row.card.credentialManagement(.enumerateRPsBegin, token: token).status
            } else {
                let rpIDHash = SHA256.hash(Array("example.com".utf8))
                begin = try row.card.credentialManagement(.enumerateCredentialsBegin,
                                                          CBORMap([CredentialManagementParameterKey.rpIDHash: .bytes(rpIDHash)]),
                                                          token: token).status
            }
            #expect(begin == .ok)
        case .credentialCache:
            #expect(try row.card.makeCredential(userId: [1]).status == .ok)
            #expect(try row.card.getAssertion().status == .ok)
        case .largeBlobWrite:
            // The first fragment of a 40-byte array (the arculus-fido21 card has large blobs).
            try row.card.setPIN(pin, platform: row.platform)
            row.evidence = try row.card.grantedToken(pin, permissions: .largeBlobWrite, platform: row.platform)
            #expect(try row.card.largeBlobsSet(Self.largeBlobArray.prefix(20).map { $0 }, offset: 0, length: 40,
                                               token: row.evidence).status == .ok)
        }
        if piece == .keyAgreementKey {
            let key = try row.card.cardKeyAgreementKey()
            #expect(try row.card.cardKeyAgreementKey() == key, "the key stays the same while the card is powered")
            row.evidence = CBOREncoder.encode(.map(key))
        }
        if piece == .poweredOnAt {
            row.card.now = row.card.now.advanced(by: .seconds(11))
        }
        return row
    }

    /// The piece's effect is gone from the cycled card and still there on the control.
    static func observe(_ piece: Piece, cycled row: inout Row, control: inout ModelDriver) throws {
        let getInfo = TestAPDU.nfcctapMessage([CTAPCommand.getInfo.rawValue])
        switch piece {
        case .appletSelection:
            #expect(row.card.exchange(getInfo).sw == 0x6985, "NFCCTAP_MSG before SELECT")
            #expect(control.exchange(getInfo).sw == 0x9000)
        case .commandChain:
            // The chain's last piece, alone after a new SELECT, is a getInfo of its own; on the
            // control, SELECT breaks the chain (6883) and the piece would have finished it.
            try row.card.select()
            let alone = row.card.exchange(getInfo)
            #expect(alone.sw == 0x9000 && alone.data.first == CTAPStatus.ok.rawValue)
            var joined = control
            #expect(control.exchange(NFCBinding.selectFIDOApplet).sw == 0x6883)
            #expect(joined.exchange(getInfo).data == [CTAPStatus.invalidCommand.rawValue], "0x42 0x04 is no command")
        case .pendingResponse:
            #expect(row.card.exchange(TestAPDU.getResponse()).sw == 0x6985, "nothing to GET RESPONSE")
            #expect(control.exchange(TestAPDU.getResponse()).sw == 0x9000)
        case .pendingCTAPRequest, .simulatedWork:
            #expect(row.card.exchange(TestAPDU.nfcctapGetResponse).sw == 0x6985, "nothing to poll for")
            let poll = control.exchange(TestAPDU.nfcctapGetResponse)
            if piece == .simulatedWork {
                #expect(poll.sw == 0x9100, "the control is still working on it")
            } else {
                #expect(poll.sw == 0x9000 && poll.data.first == CTAPStatus.ok.rawValue, "the control answers the getInfo")
            }
        case .presenceWait:
            #expect(row.card.exchange(TestAPDU.nfcctapGetResponse).sw == 0x6985, "no prompt to poll for")
            #expect(row.card.model.presenceWait == nil)
            control.model.answerPresence(approved: true)
            let reset = control.exchange(TestAPDU.nfcctapGetResponse)
            #expect(reset.sw == 0x9000 && reset.data == [CTAPStatus.ok.rawValue], "the control resets once the person agrees")
        case .pinUvAuthToken:
            try row.card.select()
            #expect(try row.card.makeCredential(userId: [9], token: row.evidence).status == .pinAuthInvalid)
            #expect(try control.makeCredential(userId: [9], token: row.evidence).status == .ok)
        case .consecutivePINFailures:
            try row.card.select()
            let retries = try row.card.ok(.clientPIN, CBORMap([ClientPINKey.pinUvAuthProtocol: 1,
                                                                 .subCommand: .int(ClientPINSubcommand.getPINRetries.rawValue)]))
            #expect(retries[ClientPINResponseKey.powerCycleState] == false)
            #expect(try row.card.pinToken(pin, platform: row.platform).status == .ok)
            #expect(try control.pinToken(pin, platform: row.platform).status == .pinAuthBlocked)
        case .pendingAssertions:
            try row.card.select()
            #expect(try row.card.send(.getNextAssertion).status == .notAllowed)
            #expect(try control.send(.getNextAssertion).status == .ok)
        case .rpEnumeration, .credentialEnumeration:
            let next: CredentialManagementSubcommand =
                piece == .rpEnumeration ? .enumerateRPsGetNextRP : .enumerateCredentialsGetNextCredential
            try row.card.select()
            #expect(try row.card.credentialManagement(next).status == .notAllowed)
            #expect(try control.credentialManagement(next).status == .ok)
        case .largeBlobWrite:
            // The second fragment continues a write only where the first one is still pending.
            try row.card.select()
            let rest = Array(Self.largeBlobArray.suffix(20))
            #expect(try row.card.largeBlobsSet(rest, offset: 20, token: row.evidence).status == .invalidSequence)
            #expect(try control.largeBlobsSet(rest, offset: 20, token: row.evidence).status == .ok)
        case .credentialCache:
            // The cache is only a cache: the key is imported again and the assertion made.
            try row.card.select()
            #expect(row.card.isInitial("credentialCache") == true)
            #expect(try row.card.getAssertion().status == .ok)
            #expect(row.card.isInitial("credentialCache") == false)
        case .keyAgreementKey:
            try row.card.select()
            #expect(CBOREncoder.encode(.map(try row.card.cardKeyAgreementKey())) != row.evidence, "a new key at power-up")
            #expect(CBOREncoder.encode(.map(try control.cardKeyAgreementKey())) == row.evidence)
        case .poweredOnAt:
            // 11 s after power-up the reset window (10 s) is closed; a power cycle opens it again.
            #expect(try control.send(.reset).status == .notAllowed)
            try row.card.select()
            row.card.now = row.card.now.advanced(by: .seconds(1))
            #expect(try row.card.send(.reset).status == .ok)
        }
    }
}
