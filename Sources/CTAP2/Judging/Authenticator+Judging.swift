import CBOR
import FIDOWire

extension Authenticator {
    /// The body a command's usual reading gets, once the profile's judging switches had their
    /// say (Docs/Profiles.md, "Judging order"): unchanged on a card that judges as the emulator
    /// always did; else credentialManagementWithoutPIN, parametersAbsent, then positional judging
    /// (``PositionalJudge``, which drops what follows the map) or, judging the whole body, the
    /// checks of pinUvAuthProtocolCheck and longMemberKey once the body is found well-formed.
    func judged(_ command: CTAPCommand, body: ArraySlice<UInt8>) throws(CTAPStatus) -> ArraySlice<UInt8> {
        let behaviour = profile.behaviour
        guard behaviour.judgesAhead, let shape = RequestShape.positional(command, profile: profile) else { return body }
        if behaviour.credentialManagementWithoutPIN == .puatRequired && !state.isPINSet
            && (command == .credentialManagement || command == .credentialManagementPreview) {
            throw .puatRequired
        }
        if body.isEmpty { throw behaviour.parametersAbsent == .cborUnexpectedType ? .cborUnexpectedType : .invalidCBOR }
        if behaviour.judging == .positional {
            return try PositionalJudge(shape: shape, behaviour: behaviour, protocols: profile.pinUvAuthProtocols).judge(body).get()
        }
        // The whole body first: what is not well-formed is the usual reading's to answer.
        guard let map = (try? CBORDecoder.decode(body))?.mapValue else { return body }
        for (key, value) in map.entries {
            guard let number = key.uint64Value else { continue }
            let member = number < 64 ? shape.member(Int(number)) : nil
            if member?.isProtocol == true && behaviour.pinUvAuthProtocolCheck == .onSight
                && !PositionalJudge.isSupported(value, among: profile.pinUvAuthProtocols) {
                throw .invalidParameter
            }
            if member == nil && number >= 24 && behaviour.longMemberKey == .cborUnexpectedType { throw .cborUnexpectedType }
        }
        return body
    }
}

extension CardBehaviour {
    /// Whether any judging switch is away from the emulator's own judging (a request is then
    /// looked at before its usual reading).
    var judgesAhead: Bool {
        judging == .positional || parametersAbsent != .invalidCBOR || longMemberKey != .skip
            || pinUvAuthProtocolCheck != .whenUsed || credentialManagementWithoutPIN != .members
    }
}
