import FIDOWire
import ArculusCard
import CBOR
import Foundation
import ISO7816

/// A transcript that answers as the card: the host under test talks to a real ``CardFront``
/// (so SELECT, command chaining, `61xx` + GET RESPONSE and NFCCTAP behave like the card's for
/// whatever chunk sizes and Le the host uses), and behind it each expected CTAP2 or U2F
/// request, in transcript order, is answered with the recorded response.
///
/// The SELECT answer is the recorded one (else the profile's), the ATR the `@atr` header
/// (else the profile's), the card front's switches the `@front` header. Events in the transcript
/// are skipped: the host's side drives power. A transcript of several recording sessions
/// (``Transcript/sessions``) is one list of expected requests: the host reconnects between them.
/// What the card front answers by itself in the recording (errors for malformed APDUs, a
/// too-long message, U2F_VERSION) it answers by itself here too, so those are not expected.
///
/// **Matching rule.** A request matches the next expected one when it is the same command
/// (CTAP command byte, or U2F instruction and P1) and, compared as CBOR, has the same map
/// keys with values of the same types, and equal values — except the fields a host draws at
/// random, which only need the same type and length:
/// - clientDataHash (makeCredential 0x01, getAssertion 0x02);
/// - pinUvAuthParam (makeCredential 0x08, getAssertion 0x06, clientPIN 0x04,
///   credentialManagement 0x04; also bioEnrollment 0x05, largeBlobs 0x05, config 0x04);
/// - clientPIN keyAgreement 0x03: any valid COSE P-256 key; newPinEnc 0x05, pinHashEnc 0x06;
/// - the hmac-secret extension's inputs: keyAgreement (any valid COSE key), saltEnc, saltAuth;
/// - the U2F challenge parameter (the first 32 bytes of REGISTER / AUTHENTICATE data).
///
/// Credential IDs the stand-in handed out (in recorded responses) come back as recorded, so
/// they are compared as equal values. A request that does not match, or any request after
/// the transcript's last, is a ``StandInMismatch``: it is added to ``mismatches``, passed to
/// ``onMismatch``, and answered CTAP1_ERR_OTHER (`7F`) for CTAP2 or `6F00` for U2F. The
/// stand-in then still waits for the same expected request.
///
/// Because responses are replayed, what a host derives from them with its own random values
/// does not verify: a PIN token decrypted with the host's fresh shared secret is not the
/// token the recorded card issued, hmac-secret outputs do not decrypt. The stand-in checks the
/// requests' form, not their cryptography.
public final class TranscriptStandIn: TranscriptCard {
    /// The card front the host talks to.
    public private(set) var front: CardFront
    /// The ATR to present.
    public let atr: [UInt8]
    private let applet: StandInApplet

    /// A stand-in for `transcript`, whose file is in `baseDirectory` (for a profile path).
    ///
    /// - Throws: ``TranscriptError`` when the transcript cannot stand in for a card: it has
    ///   no exchange, or a response is cut short (``Transcript/validate()``).
    public init(transcript: Transcript, baseDirectory: String? = nil) throws(TranscriptError) {
        try transcript.validate()
        let profile = Self.profile(of: transcript, baseDirectory: baseDirectory)
        let messages = TranscriptMessages.messages(of: transcript)
        let selectAnswer = messages.first { message in
            if case .select(let aid) = message.kind { return aid == NFCBinding.fidoAID && message.statusWord == .success && !message.response.isEmpty }
            return false
        }?.response
        applet = StandInApplet(messages: messages, profile: profile)
        front = CardFront(configuration: .init(
            selectResponse: selectAnswer ?? Array(profile.selectResponse.utf8), supportsCTAP2: profile.supportsCTAP2,
            supportsU2F: profile.supportsU2F, maxMessageSize: profile.maxMsgSize, options: transcript.frontOptions,
            behaviour: CardFront.Behaviour(profile: profile)))
        atr = transcript.atr ?? (try? profile.atrBytes) ?? []
    }

    /// A stand-in for the transcript file at `path` (read with ``Transcript/load(path:validation:)``,
    /// so its errors name the file).
    public convenience init(fileAt path: String) throws {
        let transcript = try Transcript.load(path: path)
        try self.init(transcript: transcript, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    // MARK: - The card's interface

    /// The card entered the field.
    public func powerOn() { front.powerCycle() }
    /// The card left the field.
    public func powerOff() { front.powerCycle() }
    /// Off then on.
    public func reset() { front.powerCycle() }
    /// One command APDU in, the response out.
    public func transmit(_ apdu: [UInt8]) -> [UInt8] {
        let applet = applet
        return front.transmit(apdu) { applet.answer($0) }.bytes
    }

    // MARK: - Progress

    /// Requests that did not match, in order.
    public var mismatches: [StandInMismatch] { applet.mismatches }
    /// Called for each mismatch as it happens (e.g. to print it).
    public var onMismatch: ((StandInMismatch) -> Void)? {
        get { applet.onMismatch }
        set { applet.onMismatch = newValue }
    }
    /// How many expected requests were answered.
    public var answeredCount: Int { applet.cursor }
    /// How many requests the transcript expects.
    public var expectedCount: Int { applet.expectations.count }
    /// Whether every expected request was answered.
    public var isFinished: Bool { applet.cursor == applet.expectations.count }

    /// One line: progress and mismatches.
    public var summary: String {
        let progress = "stand-in: \(answeredCount) of \(expectedCount) expected requests answered"
        let verdict = mismatches.isEmpty ? "no mismatches" : "\(mismatches.count) mismatch\(mismatches.count == 1 ? "" : "es")"
        let next = applet.expectations.indices.contains(applet.cursor)
            ? "; next expected: \(applet.expectations[applet.cursor].name) (line \(applet.expectations[applet.cursor].line))" : ""
        return "\(progress), \(verdict)\(next)"
    }

    private static func profile(of transcript: Transcript, baseDirectory: String?) -> CardProfile {
        guard let reference = transcript.header(KnownHeader.profile.rawValue) else { return .default }
        if let builtIn = CardProfile.builtIn.first(where: { $0.name == reference }) { return builtIn }
        return (try? CardProfile.load(path: Transcript.resolve(reference, relativeTo: baseDirectory))) ?? .default
    }
}
