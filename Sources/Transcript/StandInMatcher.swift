import CBOR
import ISO7816
import FIDOWire

/// The stand-in's matching rule (see ``TranscriptStandIn``): a host's request against the
/// recorded one, equal except for the fields a host draws at random.
enum StandInMatcher {
    /// The first difference between a CTAP2 request and the recorded one, nil when they match.
    static func compare(ctap request: [UInt8], recorded: [UInt8]) -> FieldDifference? {
        guard let command = request.first, let recordedCommand = recorded.first else {
            return request == recorded ? nil : FieldDifference(path: FieldPath("request"), expected: hex(recorded), actual: hex(request),
                                                               reason: "different value")
        }
        guard command == recordedCommand else {
            return FieldDifference(path: FieldPath("request.command"), expected: CTAPNames.commandName(recorded),
                                   actual: CTAPNames.commandName(request), reason: "different command")
        }
        guard recorded.count > 1 || request.count > 1 else { return nil }
        guard let expected = try? CBORDecoder.decode(recorded.dropFirst()) else {
            // The recorded request was not CBOR: only the same bytes match.
            return request == recorded ? nil : FieldDifference(path: FieldPath("request"), expected: hex(recorded), actual: hex(request),
                                                               reason: "different value")
        }
        guard request.count > 1 else {
            return FieldDifference(path: FieldPath("request"), expected: CBORRendering.render(expected), actual: "no parameters", reason: "missing")
        }
        guard let actual = try? CBORDecoder.decode(request.dropFirst()) else {
            return FieldDifference(path: FieldPath("request"), expected: CBORRendering.render(expected), actual: hex(Array(request.dropFirst())),
                                   reason: "not CBOR")
        }
        let named = CTAPCommand(rawValue: command)
        var comparison = CBORComparison(rule: ComparisonRules.standInRequest(command: named))
        comparison.fieldNames = ComparisonRules.fieldNames(command: named, isRequest: true)
        return comparison.firstDifference(expected, actual, at: FieldPath("request"))
    }

    /// The first difference between a U2F request and the recorded one: same control byte
    /// (AUTHENTICATE), any 32-byte challenge, the same application and key handle.
    static func compare(u2f instruction: FIDOInstruction, p1: UInt8?, data: [UInt8], recordedP1: UInt8,
                        recorded: [UInt8]) -> FieldDifference? {
        if let p1, p1 != recordedP1 {
            return FieldDifference(path: FieldPath("request.control"), expected: CTAPNames.u2fControlName(recordedP1) ?? hex([recordedP1]),
                                   actual: CTAPNames.u2fControlName(p1) ?? hex([p1]), reason: "different control byte")
        }
        guard data.count >= 32, recorded.count >= 32 else {
            return data == recorded ? nil : FieldDifference(path: FieldPath("request"), expected: hex(recorded), actual: hex(data), reason: "different value")
        }
        let application = (Array(recorded[32..<min(64, recorded.count)]), Array(data[32..<min(64, data.count)]))
        if application.0 != application.1 {
            return FieldDifference(path: FieldPath("request.application"), expected: hex(application.0), actual: hex(application.1),
                                   reason: "different value")
        }
        if recorded.count != data.count || recorded[64...] != data[64...] {
            return FieldDifference(path: FieldPath("request.keyHandle"), expected: hex(Array(recorded.dropFirst(65))),
                                   actual: hex(Array(data.dropFirst(65))), reason: "different value")
        }
        return nil
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        CBORRendering.render(.bytes(bytes))
    }
}
