import ArculusCard
import CBOR
import Testing
import FIDOWire
import TestSupport

/// A copy of the default profile (arculus-fido21) with `edit` applied, validated.
func switched(_ base: CardProfile = .default, _ edit: (inout CardProfile) -> Void) throws -> CardProfile {
    var profile = base
    edit(&profile)
    try profile.validate()
    return profile
}

/// A powered card of `profile` with the FIDO applet selected.
func selectedCard(_ profile: CardProfile) throws -> VirtualCard {
    let card = try VirtualCard(profile: profile)
    #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
    return card
}

/// The ISO 7816 switches, each shown as a rule: the requests here are not the probe battery's
/// (other instructions, classes, parameters and shapes), and each is sent to a default card too,
/// which answers as before.
@Suite("Profile switches: the ISO 7816 front")
struct ProfileSwitchFrontTests {
    /// (default card's status word, switched card's) for `apdu`, both selected first when `select`.
    func words(_ profile: CardProfile, _ apdus: [[UInt8]], select: Bool = true) throws -> (UInt16, UInt16) {
        let plain = select ? try selectedCard(.default) : try VirtualCard(profile: .default)
        let card = select ? try selectedCard(profile) : try VirtualCard(profile: profile)
        var answers: (UInt16, UInt16) = (0, 0)
        for apdu in apdus {
            answers = (plain.exchangeWhole(apdu).sw, card.exchangeWhole(apdu).sw)
        }
        return answers
    }

    @Test("a profile with every switch at its default gives the front its own choices, and a switch set away from it reaches the front")
    func defaultsAreTheFrontsOwn() throws {
        var profile = CardProfile.default
        profile.behaviour = CardBehaviour()
        profile.departures = CardDepartures()
        #expect(CardFront.Behaviour(profile: profile) == CardFront.Behaviour())
        profile.behaviour.malformedAPDU = .claNotSupported
        #expect(CardFront.Behaviour(profile: profile) != CardFront.Behaviour())
    }

    @Test("unknownInstructionClass00 / 80 choose the word per class: 00 77 and U2F-less 00 02 get 6E00, 80 55 keeps 6D00")
    func unknownInstructionPerClass() throws {
        let profile = try switched { $0.behaviour.unknownInstructionClass00 = .claNotSupported }
        #expect(try words(profile, [[0x00, 0x77, 0x00, 0x00, 0x02, 0xAA, 0xBB]]) == (0x6D00, 0x6E00))
        #expect(try words(profile, [[0x80, 0x55, 0x00, 0x00]]) == (0x6D00, 0x6D00))
        let eighty = try switched { $0.behaviour.unknownInstructionClass80 = StatusWord(rawValue: 0x6A81) }
        #expect(try words(eighty, [[0x80, 0x55, 0x00, 0x00]]) == (0x6D00, 0x6A81))
        // NFCCTAP_GETRESPONSE on a card without it is an unknown class-80 instruction.
        let noPoll = try switched { $0.behaviour.nfcctapGetResponse = false; $0.behaviour.unknownInstructionClass80 = StatusWord(rawValue: 0x6A81) }
        #expect(try words(noPoll, [[0x80, 0x11, 0x11, 0x00]]) == (0x6985, 0x6A81))
        // U2F on a card without U2F: the class-00 word.
        var noU2F = CardProfile.default
        noU2F.versions.removeAll { $0 == "U2F_V2" }
        noU2F.behaviour.unknownInstructionClass00 = .claNotSupported
        let card = try selectedCard(noU2F)
        #expect(card.exchangeWhole([0x00, 0x02, 0x07, 0x00, 0x01, 0x00]).sw == 0x6E00)
    }

    @Test("unknownClass, malformedAPDU and incorrectP1P2 answer their words to CLA A0, a cut-short Lc, GET RESPONSE P1 01 and U2F control 09")
    func wordsForRefusals() throws {
        let profile = try switched {
            $0.behaviour.unknownClass = .insNotSupported
            $0.behaviour.malformedAPDU = StatusWord(rawValue: 0x6F00)
            $0.behaviour.incorrectP1P2 = StatusWord(rawValue: 0x6B00)
        }
        #expect(try words(profile, [[0xA0, 0x10, 0x00, 0x00]]) == (0x6E00, 0x6D00))
        #expect(try words(profile, [[0x80, 0x10, 0x00, 0x00, 0x05, 0x04]]) == (0x6700, 0x6F00))
        #expect(try words(profile, [[0x00, 0xC0, 0x01, 0x00, 0x00]]) == (0x6A86, 0x6B00))
        #expect(try words(profile, [[0x00, 0x02, 0x09, 0x00, 0x01, 0x00]]) == (0x6A86, 0x6B00))
        // SELECT's own word is selectOtherP1P2, unchanged here.
        #expect(try words(profile, [[0x00, 0xA4, 0x08, 0x00, 0x02, 0x3F, 0x00]]) == (0x6A86, 0x6A86))
    }

    @Test("emptyMessage, getResponseIdle and nfcctapGetResponseIdle: NFCCTAP_MSG P1 80 without data, GET RESPONSE class 80 Le 05, a cancel with nothing pending")
    func idleAndEmpty() throws {
        let profile = try switched {
            $0.behaviour.emptyMessage = StatusWord(rawValue: 0x6984)
            $0.behaviour.getResponseIdle = .success
            $0.behaviour.nfcctapGetResponseIdle = StatusWord(rawValue: 0x6A88)
        }
        #expect(try words(profile, [[0x80, 0x10, 0x80, 0x00, 0x00]]) == (0x6700, 0x6984))
        let card = try selectedCard(profile)
        let idle = card.exchangeWhole([0x80, 0xC0, 0x00, 0x00, 0x05])
        #expect(idle.sw == 0x9000 && idle.data.isEmpty)
        #expect(try words(profile, [[0x80, 0x11, 0x11, 0x00]]) == (0x6985, 0x6A88))
    }

    @Test("nfcctapGetResponse false: an NFCCTAP_MSG with P1 80 on a busy-first card is answered at once, not 9100")
    func noNFCCTAPGetResponse() throws {
        let getInfo = ControlAPDU.ctap([CTAPCommand.getInfo.rawValue], p1: 0x80)
        let busy = try VirtualCard(profile: .default, frontOptions: .init(busyFirst: true))
        #expect(busy.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(busy.exchangeWhole(getInfo).sw == 0x9100)
        let profile = try switched { $0.behaviour.nfcctapGetResponse = false }
        let card = try VirtualCard(profile: profile, frontOptions: .init(busyFirst: true))
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let reply = card.exchangeWhole(getInfo)
        #expect(reply.sw == 0x9000 && reply.data.first == 0x00)
    }

    @Test("responseChunk cuts getKeyAgreement's answer into 40-byte parts; exceedsLe sends 40 to Le 10 while GET RESPONSE honours its Le")
    func chunks() throws {
        let keyAgreement = ControlAPDU.ctap(ControlAPDU.request(.clientPIN, [.int(1): 2, .int(2): 2]))
        let whole = try selectedCard(.default).exchangeWhole(keyAgreement)
        #expect(whole.sw == 0x9000 && whole.data.count >= 80)
        let profile = try switched { $0.behaviour.responseChunk = 40 }
        let card = try selectedCard(profile)
        let first = card.transmit(keyAgreement)
        #expect(first.count == 42 && first[40] == 0x61 && Int(first[41]) == whole.data.count - 40)
        let reassembled = card.exchangeWhole(keyAgreement)
        #expect(reassembled.sw == 0x9000 && reassembled.data.count == whole.data.count)
        // Le 10 on the default card: 16 bytes; on the departing card: the chunk.
        let shortLe = Array(keyAgreement.dropLast()) + [0x10]
        #expect(try selectedCard(.default).transmit(shortLe).count == 18)
        #expect(card.transmit(shortLe).count == 18, "without the departure Le is honoured")
        let exceeding = try selectedCard(try switched { $0.behaviour.responseChunk = 40; $0.departures.exceedsLe = true })
        let part = exceeding.transmit(shortLe)
        #expect(part.count == 42 && part[40] == 0x61)
        #expect(exceeding.transmit([0x00, 0xC0, 0x00, 0x00, 0x08]).count == 10, "GET RESPONSE Le 08: 8 bytes")
    }

    @Test("selectInChain and getResponseInChain: a chained makeCredential interrupted by SELECT P2 0C, or by GET RESPONSE class 80")
    func chainInterruptions() throws {
        let request = ControlAPDU.request(.makeCredential, makeCredentialParameters(userId: [1, 2, 3], rk: false))
        let firstPiece: [UInt8] = [0x90, 0x10, 0x00, 0x00, 0x20] + request.prefix(32)
        let rest = Array(request.dropFirst(32))
        let lastPiece: [UInt8] = [0x80, 0x10, 0x00, 0x00, UInt8(rest.count)] + rest + [0x00]
        let selectNoData: [UInt8] = [0x00, 0xA4, 0x04, 0x0C, 0x08] + NFCBinding.fidoAID
        let getResponse: [UInt8] = [0x80, 0xC0, 0x00, 0x00, 0x00]

        let plain = try selectedCard(.default)
        #expect(plain.exchangeWhole(firstPiece).sw == 0x9000)
        #expect(plain.exchangeWhole(selectNoData).sw == 0x6883)
        let profile = try switched { $0.behaviour.selectInChain = .process; $0.behaviour.getResponseInChain = .process }
        let card = try selectedCard(profile)
        #expect(card.exchangeWhole(firstPiece).sw == 0x9000)
        #expect(card.exchangeWhole(selectNoData).sw == 0x9000, "the SELECT runs")
        // The chain ended with the SELECT: the last piece alone is a whole (garbled) request.
        let alone = card.exchangeWhole(lastPiece)
        #expect(alone.sw == 0x9000 && alone.data.first != 0x00)
        // GET RESPONSE keeps the chain: the whole request still arrives.
        #expect(card.exchangeWhole(firstPiece).sw == 0x9000)
        #expect(card.exchangeWhole(getResponse).sw == 0x6985, "answered as with no chain: nothing pending")
        let made = card.exchangeWhole(lastPiece)
        #expect(made.sw == 0x9000 && made.data.first == 0x00, "makeCredential ran: \(made.data.prefix(1))")
        #expect(plain.exchangeWhole(firstPiece).sw == 0x9000)
        #expect(plain.exchangeWhole(getResponse).sw == 0x6883)
    }

    @Test("notSelected: NFCCTAP_GETRESPONSE and U2F_AUTHENTICATE before any SELECT get the card's word")
    func notSelected() throws {
        let profile = try switched { $0.behaviour.notSelected = StatusWord(rawValue: 0x6986) }
        #expect(try words(profile, [[0x80, 0x11, 0x00, 0x00]], select: false) == (0x6985, 0x6986))
        let authenticate: [UInt8] = [0x00, 0x02, 0x07, 0x00, 0x41] + [UInt8](repeating: 0, count: 64) + [0x00]
        #expect(try words(profile, [authenticate], select: false) == (0x6985, 0x6986))
    }

    @Test("SELECT switches: by path, P2 0C without Le, no AID, a 7-byte prefix, a longer AID (departure), a failed SELECT keeping the applet")
    func selectVariants() throws {
        let byPath: [UInt8] = [0x00, 0xA4, 0x08, 0x00, 0x02, 0x3F, 0x00]
        let other = try switched { $0.behaviour.selectOtherP1P2 = StatusWord(rawValue: 0x6A81) }
        #expect(try words(other, [byPath]) == (0x6A86, 0x6A81))
        #expect(try words(other, [[0x00, 0xC0, 0x02, 0x00, 0x00]]) == (0x6A86, 0x6A86), "not GET RESPONSE's")

        let noData = try selectedCard(try switched { $0.behaviour.selectNoDataP2 = .answer })
        let answered = noData.exchangeWhole([0x00, 0xA4, 0x04, 0x0C, 0x08] + NFCBinding.fidoAID)
        #expect(answered.sw == 0x9000 && answered.data == Array("FIDO_2_0".utf8))
        #expect(try selectedCard(.default).exchangeWhole([0x00, 0xA4, 0x04, 0x0C, 0x08] + NFCBinding.fidoAID).data.isEmpty)

        let withoutAID = try switched { $0.behaviour.selectWithoutAID = .selects }
        #expect(try words(withoutAID, [[0x00, 0xA4, 0x04, 0x00], ControlAPDU.ctap([0x04])], select: false) == (0x6985, 0x9000))
        let refused = try switched { $0.behaviour.selectWithoutAID = .status(StatusWord(rawValue: 0x6A82)) }
        #expect(try words(refused, [[0x00, 0xA4, 0x04, 0x00, 0x00]], select: false) == (0x6700, 0x6A82))

        let prefix: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07] + NFCBinding.fidoAID.prefix(7)
        let partial = try switched { $0.behaviour.selectPartialAID = .select }
        #expect(try words(partial, [prefix, ControlAPDU.ctap([0x04])], select: false) == (0x6985, 0x9000))
        let notPrefix: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x05, 0xA0, 0x00, 0x00, 0x03, 0x08]
        #expect(try words(partial, [notPrefix]) == (0x6A82, 0x6A82))

        let longer: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x0B] + NFCBinding.fidoAID + [0x01, 0x02, 0x03]
        let departing = try switched { $0.departures.longerAIDSelects = true }
        #expect(try words(departing, [longer, ControlAPDU.ctap([0x04])], select: false) == (0x6985, 0x9000))
        let otherLonger: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x09, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x02, 0x01]
        #expect(try words(departing, [otherLonger]) == (0x6A82, 0x6A82))

        let keeps = try switched { $0.behaviour.failedSelectDeselects = false }
        let keyAgreement = ControlAPDU.ctap(ControlAPDU.request(.clientPIN, [.int(1): 1, .int(2): 2]))
        #expect(try words(keeps, [prefix, keyAgreement]) == (0x6985, 0x9000))
    }

    @Test("afterReset: after authenticatorReset through the front every FIDO command answers the card's word until SELECT")
    func afterReset() throws {
        var base = CardProfile.default
        base.resetWindowSeconds = nil
        let profile = try switched(base) { $0.behaviour.afterReset = .deselected(.insNotSupported) }
        let keyAgreement = ControlAPDU.ctap(ControlAPDU.request(.clientPIN, [.int(1): 2, .int(2): 2]))
        for (candidate, expected) in [(base, UInt16(0x9000)), (profile, 0x6D00)] {
            let card = try VirtualCard(profile: candidate)
            #expect(try card.ctapThroughFront(.reset).status == .ok)
            #expect(card.exchangeWhole(keyAgreement).sw == expected)
            #expect(card.exchangeWhole([0x00, 0x03, 0x00, 0x00, 0x00]).sw == expected, "U2F_VERSION too")
            #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
            #expect(card.exchangeWhole(keyAgreement).sw == 0x9000)
        }
    }
}
