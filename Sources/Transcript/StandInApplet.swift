import CBOR
import CTAP2
import ISO7816
import FIDOWire

/// The stand-in's card behind the front: the expected requests and how far the host got.
final class StandInApplet {
    let expectations: [TranscriptMessage]
    private(set) var cursor = 0
    private(set) var mismatches: [StandInMismatch] = []
    var onMismatch: ((StandInMismatch) -> Void)?

    init(messages: [TranscriptMessage], profile: CardProfile) {
        let limit = profile.maxMsgSize
        expectations = messages.filter { message in
            // A response left in 61xx was still produced by the applet; one left in 9100 never was.
            guard message.isComplete || message.statusWord?.isBytesRemaining == true else { return false }
            switch message.kind {
            case .ctap2(let request, _):
                // What the front answers itself: errors in the status word, too-long messages,
                // a request the host cancelled with NFCCTAP_GETRESPONSE P1 11.
                let cancelled = message.exchanges.contains { $0.command.starts(with: Self.cancelHeader) }
                return message.statusWord == .success && !request.isEmpty && request.count <= limit && !cancelled
            case .u2f(let instruction, _, _, let data):
                switch instruction {
                case .u2fRegister: return data.count == 64
                case .u2fAuthenticate: return U2FMessageView.AuthenticateRequest(data) != nil
                default: return false
                }
            case .select, .apdu, .event:
                return false
            }
        }
    }

    /// The answer to a whole command from the front: the recorded one, or an error and a report.
    func answer(_ command: CardFront.Command) -> CardFront.Result {
        switch command {
        case .select: .run
        case .ctap(let request, _), .ctapPoll(let request): .ctap(processCTAP2(request))
        case .u2fRegister(let challenge, let application): .u2f(u2fRegister(challenge: challenge, application: application))
        case .u2fAuthenticate(let control, let challenge, let application, let keyHandle):
            .u2f(u2fAuthenticate(control: control, challenge: challenge, application: application, keyHandle: keyHandle))
        }
    }

    func processCTAP2(_ request: [UInt8]) -> [UInt8] {
        let received = CTAPNames.commandName(request)
        let rendered = Self.render(request: request)
        guard let expected = next() else {
            return refuse(nil, received: received, difference: nil, request: rendered)
        }
        guard case .ctap2(let recorded, _) = expected.kind else {
            return refuse(expected, received: received, difference: nil, request: rendered)
        }
        if let difference = StandInMatcher.compare(ctap: request, recorded: recorded) {
            return refuse(expected, received: received, difference: difference, request: rendered)
        }
        cursor += 1
        return expected.response
    }

    /// The answer to a CTAP2 request the transcript did not expect, once reported: CTAP1_ERR_OTHER.
    private func refuse(_ expected: TranscriptMessage?, received: String, difference: FieldDifference?, request: String) -> [UInt8] {
        let status = CTAPStatus.other
        report(expected, received: received, difference: difference, request: request, answer: status.description)
        return [status.rawValue]
    }

    func u2fRegister(challenge: [UInt8], application: [UInt8]) -> U2FOutcome {
        u2f(.u2fRegister, p1: nil, data: challenge + application)
    }

    func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> U2FOutcome {
        u2f(.u2fAuthenticate, p1: control, data: challenge + application + [UInt8(keyHandle.count)] + keyHandle)
    }

    private func u2f(_ instruction: FIDOInstruction, p1: UInt8?, data: [UInt8]) -> U2FOutcome {
        let received = p1.flatMap { CTAPNames.u2fControlName($0).map { "\(instruction.name) (\($0))" } } ?? instruction.name
        let rendered = data.hexString.uppercased()
        guard let expected = next() else {
            report(nil, received: received, difference: nil, request: rendered, answer: "6F00")
            return .failure(.noPreciseDiagnosis)
        }
        guard case .u2f(let recordedInstruction, let recordedP1, _, let recordedData) = expected.kind, recordedInstruction == instruction else {
            report(expected, received: received, difference: nil, request: rendered, answer: "6F00")
            return .failure(.noPreciseDiagnosis)
        }
        if let difference = StandInMatcher.compare(u2f: instruction, p1: p1, data: data, recordedP1: recordedP1, recorded: recordedData) {
            report(expected, received: received, difference: difference, request: rendered, answer: "6F00")
            return .failure(.noPreciseDiagnosis)
        }
        cursor += 1
        guard let word = expected.statusWord, word == .success else {
            return .failure(expected.statusWord ?? .noPreciseDiagnosis)
        }
        return .success(expected.response)
    }

    /// The start of an NFCCTAP_GETRESPONSE that cancels the pending request: CLA, INS, P1.
    private static let cancelHeader = [FIDOInstruction.nfcctapGetResponse.commandClass, FIDOInstruction.nfcctapGetResponse.rawValue,
                                       NFCBinding.getResponseCancel]

    private func next() -> TranscriptMessage? {
        expectations.indices.contains(cursor) ? expectations[cursor] : nil
    }

    private func report(_ expected: TranscriptMessage?, received: String, difference: FieldDifference?, request: String, answer: String) {
        let mismatch = StandInMismatch(expectedLine: expected?.line, expected: expected?.name, received: received,
                                       difference: difference, receivedRequest: request, answer: answer)
        mismatches.append(mismatch)
        onMismatch?(mismatch)
    }

    private static func render(request: [UInt8]) -> String {
        guard request.count > 1, let body = try? CBORDecoder.decode(request.dropFirst()) else {
            return request.hexString.uppercased()
        }
        return "\(CTAPNames.commandName(request)) \(CBORRendering.render(body))"
    }
}
