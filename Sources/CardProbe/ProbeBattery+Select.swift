import CBOR
import CTAPClient
import FIDOWire

/// Fixed APDUs of the ISO 7816 entries.
enum ISOValues {
    static let select = FIDOInstruction.select.rawValue
    static let message = FIDOInstruction.nfcctapMessage.rawValue
    static let getInfo = CTAPCommand.getInfo.rawValue
    /// An instruction no FIDO card has, class 00, case 1.
    static let unknownInstruction: [UInt8] = [0x00, 0x99, 0x00, 0x00]
    /// A CTAP message of at most 255 bytes in one short NFCCTAP_MSG (P1 80), Le 00.
    static func shortMessage(_ bytes: [UInt8]) -> [UInt8] {
        [0x80, message, NFCBinding.messageSupportsGetResponse, 0x00, UInt8(bytes.count)] + bytes + [0x00]
    }
    /// getInfo in one short NFCCTAP_MSG with Le `n`.
    static func getInfo(le: UInt8 = 0x00, p1: UInt8 = NFCBinding.messageSupportsGetResponse) -> [UInt8] {
        [0x80, message, p1, 0x00, 0x01, getInfo, le]
    }
}

extension ProbeBattery {
    /// SELECT (ISO/IEC 7816-4 §11.2.2, CTAP 2.1 §11.3.3) in the ways readers and clients send it.
    static var select: [ProbeEntry] {
        let aid = NFCBinding.fidoAID
        let ins = ISOValues.select
        return [
            raw("select.fido", "SELECT of the FIDO applet (with Le, as clients send it)", NFCBinding.selectFIDOApplet,
                kind: TimingKind.select),
            raw("select.no-le", "SELECT of the FIDO applet without Le (case 3)", [0x00, ins, 0x04, 0x00, 0x08] + aid),
            raw("select.no-answer-data", "SELECT of the FIDO applet asking for no answer data (P2 0C)",
                [0x00, ins, 0x04, 0x0C, 0x08] + aid + [0x00]),
            raw("select.next-occurrence", "SELECT of the FIDO applet, next occurrence (P2 02)", [0x00, ins, 0x04, 0x02, 0x08] + aid + [0x00]),
            raw("select.partial-aid", "SELECT by the first 6 bytes of the FIDO AID", [0x00, ins, 0x04, 0x00, 0x06] + aid.prefix(6) + [0x00]),
            raw("select.longer-aid", "SELECT by the FIDO AID with a byte more", [0x00, ins, 0x04, 0x00, 0x09] + aid + [0x01, 0x00]),
            raw("select.other-aid", "SELECT of an applet the card has not (a payment AID)",
                [0x00, ins, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10, 0x00]),
            raw("select.extended", "SELECT of the FIDO applet as an extended-length APDU",
                [0x00, ins, 0x04, 0x00, 0x00, 0x00, 0x08] + aid + [0x00, 0x00]),
            raw("select.by-file-id", "SELECT by file identifier 3F00 (P1 00)", [0x00, ins, 0x00, 0x00, 0x02, 0x3F, 0x00, 0x00]),
            raw("select.class-80", "SELECT of the FIDO applet with class 80", [0x80, ins, 0x04, 0x00, 0x08] + aid + [0x00]),
            sequence("select.twice", "SELECT of the FIDO applet twice in a row", [NFCBinding.selectFIDOApplet, NFCBinding.selectFIDOApplet]),
            raw("select.ctap-before-select", "getInfo before any SELECT", ISOValues.getInfo(), start: .unselected),
            raw("select.u2f-before-select", "U2F_VERSION before any SELECT", U2FValues.version, start: .unselected),
            sequence("select.without-aid", "SELECT by DF name without an AID (case 1), then getInfo",
                     [[0x00, ins, 0x04, 0x00], ISOValues.getInfo()], start: .unselected),
            raw("select.without-aid-le", "SELECT by DF name without an AID, with Le (case 2)", [0x00, ins, 0x04, 0x00, 0x00],
                start: .unselected),
            sequence("select.other-then-ctap", "getInfo after SELECT of another applet",
                     [[0x00, ins, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x04, 0x10, 0x10, 0x00], ISOValues.getInfo()]),
        ]
    }

    /// ISO 7816-4 errors: class, instruction, P1-P2, Lc and Le, the APDU cases, extended length,
    /// GET RESPONSE and NFCCTAP_GETRESPONSE with nothing pending.
    static var iso: [ProbeEntry] {
        let msg = ISOValues.message
        let getResponse = FIDOInstruction.getResponse.rawValue
        return [
            raw("iso.unknown-instruction", "an instruction no FIDO card has (00 99, case 1)", ISOValues.unknownInstruction,
                kind: TimingKind.apduError),
            raw("iso.unknown-instruction-80", "an unknown instruction in class 80 (80 99)", [0x80, 0x99, 0x00, 0x00, 0x00]),
            raw("iso.unknown-class", "NFCCTAP_MSG getInfo with an unknown class (CLA A0)", [0xA0, msg, 0x80, 0x00, 0x01, ISOValues.getInfo, 0x00]),
            raw("iso.message-class-00", "NFCCTAP_MSG getInfo with class 00", [0x00, msg, 0x80, 0x00, 0x01, ISOValues.getInfo, 0x00]),
            raw("iso.u2f-class-80", "U2F_VERSION with class 80", [0x80, 0x03, 0x00, 0x00, 0x00]),
            raw("iso.message-p1-01", "NFCCTAP_MSG getInfo with P1 01", ISOValues.getInfo(p1: 0x01)),
            raw("iso.message-p2-01", "NFCCTAP_MSG getInfo with P2 01", [0x80, msg, 0x80, 0x01, 0x01, ISOValues.getInfo, 0x00]),
            raw("iso.lc-longer-than-data", "NFCCTAP_MSG whose Lc (5) is longer than its data (1 byte)", [0x80, msg, 0x80, 0x00, 0x05, ISOValues.getInfo]),
            raw("iso.lc-shorter-than-data", "NFCCTAP_MSG whose Lc (1) is shorter than its data (2 bytes) and Le",
                [0x80, msg, 0x80, 0x00, 0x01, ISOValues.getInfo, 0xA0, 0x00]),
            raw("iso.message-case-1", "NFCCTAP_MSG without data or Le (case 1)", [0x80, msg, 0x80, 0x00]),
            raw("iso.message-case-2", "NFCCTAP_MSG with Le only, no CTAP message (case 2)", [0x80, msg, 0x80, 0x00, 0x00]),
            raw("iso.getinfo-case-3", "getInfo without Le (case 3)", [0x80, msg, 0x80, 0x00, 0x01, ISOValues.getInfo]),
            raw("iso.getinfo-le-32", "getInfo asking for 32 bytes (Le 20): the first part of the answer", ISOValues.getInfo(le: 0x20)),
            sequence("iso.get-response-le-16", "getInfo with Le 20, then GET RESPONSE for 16 bytes",
                     [ISOValues.getInfo(le: 0x20), [0x00, getResponse, 0x00, 0x00, 0x10]]),
            ProbeEntry("iso.get-response-class-80", "getInfo with Le 20, the rest by GET RESPONSE with class 80 (as libfido2)",
                       start: .fresh) { session throws(ProbeInterruption) in
                let answer = try session.link.following(ISOValues.getInfo(le: 0x20), getResponseClass: 0x80)
                let whole = MessageAnswer(answer: answer)
                return session.getInfoAgain(ProbeRecord(request: ["apdu": .string(Hex.string(ISOValues.getInfo(le: 0x20))), "getResponseClass": "80"],
                                                        answer: AnswerShape.message(whole, command: .getInfo, shape: session.shape)))
            },
            raw("iso.get-response-idle", "GET RESPONSE with nothing pending", [0x00, getResponse, 0x00, 0x00, 0x00]),
            raw("iso.getinfo-extended", "getInfo as an extended-length APDU", [0x80, msg, 0x80, 0x00, 0x00, 0x00, 0x01, ISOValues.getInfo, 0x00, 0x00]),
            ProbeEntry("iso.getinfo-p1-00", "getInfo with P1 00 (a client that cannot poll NFCCTAP_GETRESPONSE)", start: .fresh) {
                session throws(ProbeInterruption) in
                session.getInfoAgain(try session.message([ISOValues.getInfo], p1: 0x00))
            },
            raw("iso.get-response-p1-01", "GET RESPONSE with P1 01", [0x00, getResponse, 0x01, 0x00, 0x00]),
            raw("iso.poll-p2-01", "NFCCTAP_GETRESPONSE with P2 01", [0x80, FIDOInstruction.nfcctapGetResponse.rawValue, 0x00, 0x01, 0x00]),
            raw("iso.lc-zero-extended-mismatch", "an extended-length Lc of 2 with 1 byte of data", [0x80, msg, 0x80, 0x00, 0x00, 0x00, 0x02, ISOValues.getInfo]),
            raw("iso.poll-idle", "NFCCTAP_GETRESPONSE with nothing pending", NFCHostFraming.pollAPDU),
            raw("iso.cancel-idle", "NFCCTAP_GETRESPONSE cancel (P1 11) with nothing pending", NFCHostFraming.cancelAPDU),
        ]
    }

    /// Command chaining (ISO/IEC 7816-4 §5.1.1.1): a message in small pieces, a chain broken by
    /// another command, a message larger than maxMsgSize.
    static var chaining: [ProbeEntry] {
        let request = CTAPMessage.bytes(.getAssertion, ProbeValues.getAssertion())
        let pieces = NFCHostFraming.messageAPDUs(request, pieceSize: 16)
        let longList = CBORValue.array((0..<40).map { _ in ProbeValues.descriptor(ProbeValues.unknownCredentialID) })
        let tooLarge = CTAPMessage.bytes(.getAssertion, ProbeValues.getAssertion(replacing: [.allowList: longList]))
        return [
            message("chain.small-pieces", "getAssertion chained in pieces of 16 bytes", request, start: .fresh, pieceSize: 16),
            sequence("chain.broken-by-select", "the first piece of a chained getAssertion, then SELECT",
                     [pieces[0], NFCBinding.selectFIDOApplet]),
            sequence("chain.broken-by-getinfo", "the first piece of a chained getAssertion, then a whole getInfo",
                     [pieces[0], ISOValues.getInfo()]),
            sequence("chain.broken-by-get-response", "the first piece of a chained getAssertion, then GET RESPONSE",
                     [pieces[0], [0x00, FIDOInstruction.getResponse.rawValue, 0x00, 0x00, 0x00]]),
            sequence("chain.last-piece-alone", "the last piece of a chain without its first", [pieces[pieces.count - 1]]),
            message("chain.larger-than-maxMsgSize", "getAssertion of \(tooLarge.count) bytes (an allowList of 40), chained",
                    tooLarge, start: .fresh),
        ]
    }
}
