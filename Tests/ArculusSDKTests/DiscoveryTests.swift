import ArculusCard
@testable import ArculusFidoConnectors
import ArculusFidoSDKFramework
import CTAPClient
import Foundation
import Testing

/// What `ArculusFido()` finds from the environment (the PC/SC default is exercised against a
/// served card in Tests/Flows and Tests/Seed).
@Suite("ArculusFido(): the card from the environment", .timeLimit(.minutes(1)))
struct DiscoveryTests {
    static func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("arculus-discovery-\(getpid())-\(name)").path
    }

    @Test("nothing set: the first FIDO card on a PC/SC reader; a reader named: that reader")
    func readers() {
        #expect(CardDiscovery(environment: [:]).connector is FirstFIDOReaderConnector)
        let named = CardDiscovery(environment: ["ARCULUS_FIDO_READER": "Virtual PCD 00 01"]).connector as? PCSCCardConnector
        #expect(named?.reader == "Virtual PCD 00 01" && named?.waitsForCard == true)
        #expect(CardDiscovery(environment: [:]).timeouts == CardTimeouts())
        #expect(CardDiscovery(environment: ["ARCULUS_FIDO_TAP_TIMEOUT": "2.5"]).timeouts.tap == .milliseconds(2500))
        #expect(CardDiscovery(environment: ["ARCULUS_FIDO_TAP_TIMEOUT": "3600"]).timeouts.tap == .seconds(3600), "the longest the command line allows")
    }

    @Test("ArculusFido() takes its card and waits from the process's environment")
    func fromTheEnvironment() {
        let environment = ProcessInfo.processInfo.environment
        let expected = CardDiscovery(environment: environment)
        let sdk = ArculusFido()
        #expect(type(of: sdk.card) == type(of: expected.connector) && sdk.timeouts == expected.timeouts)
        if environment.keys.allSatisfy({ !$0.hasPrefix("ARCULUS_FIDO_") }) {
            #expect(sdk.card is FirstFIDOReaderConnector, "nothing set: the first FIDO card on a PC/SC reader")
        }
    }

    @Test("a card image: an in-process card every ArculusFido() of the process shares, made with the profile named")
    func image() async throws {
        let path = Self.scratch("shared.img")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let environment = ["ARCULUS_FIDO_CARD_IMAGE": path, "ARCULUS_FIDO_PROFILE": "arculus-fido2"]
        let first = ArculusFido(card: CardDiscovery(environment: environment).connector)
        let second = ArculusFido(card: CardDiscovery(environment: environment).connector)
        #expect(await first.setPin(pin: "123456") == "PIN set")
        #expect(await second.setPin(pin: "123456")
            == "601 Unknown: setPin: the card already has a PIN; change it with changePin(oldPin:newPin:), or erase the card with resetDevice(pin:)",
                "the second SDK sees the first one's card")
        let card = try #require(CardDiscovery(environment: environment).connector as? VirtualCardConnector)
        #expect(card.card.profile.name == "arculus-fido2")
        #expect(card.card.pinState.isSet)
    }

    @Test("settings that cannot work are named by the first operation", arguments: [
        (["ARCULUS_FIDO_READER": "Virtual PCD 00 00", "ARCULUS_FIDO_CARD_IMAGE": "card.img"],
         "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_READER and ARCULUS_FIDO_CARD_IMAGE are both set; set one (a PC/SC reader, or an in-process card image)"),
        (["ARCULUS_FIDO_TAP_TIMEOUT": "soon"],
         "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_TAP_TIMEOUT=soon is not a number of seconds above 0 and at most 3600"),
        (["ARCULUS_FIDO_TAP_TIMEOUT": "1e300"],
         "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_TAP_TIMEOUT=1e300 is not a number of seconds above 0 and at most 3600"),
        (["ARCULUS_FIDO_TAP_TIMEOUT": "3600.5"],
         "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_TAP_TIMEOUT=3600.5 is not a number of seconds above 0 and at most 3600"),
        (["ARCULUS_FIDO_TAP_TIMEOUT": "nan"],
         "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_TAP_TIMEOUT=nan is not a number of seconds above 0 and at most 3600"),
        (["ARCULUS_FIDO_CARD_IMAGE": "/dev/zero"],
         "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_CARD_IMAGE=/dev/zero is a character device, not a card image file; give a file (it is created when missing)"),
        (["ARCULUS_FIDO_CARD_IMAGE": "/tmp"],
         "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_CARD_IMAGE=/tmp is a directory, not a card image file; give a file (it is created when missing)"),
        (["ARCULUS_FIDO_CARD_IMAGE": "/nonexistent-dir/card.img"], nil),
        (["ARCULUS_FIDO_CARD_IMAGE": "new.img", "ARCULUS_FIDO_PROFILE": "no-such-profile"], nil),
    ])
    func misconfigured(environment: [String: String], expected: String?) async {
        var environment = environment
        if environment["ARCULUS_FIDO_PROFILE"] != nil { environment["ARCULUS_FIDO_CARD_IMAGE"] = Self.scratch("new.img") }
        let sdk = ArculusFido(card: CardDiscovery(environment: environment).connector)
        let text = await sdk.setPin(pin: "123456")
        if let expected {
            #expect(text == expected)
        } else {
            let variable = environment["ARCULUS_FIDO_PROFILE"] != nil ? "ARCULUS_FIDO_CARD_IMAGE=\(Self.scratch("new.img")): " : "ARCULUS_FIDO_CARD_IMAGE=/nonexistent-dir/card.img: "
            #expect(text.hasPrefix("607 Transmit Failed: setPin: the card cannot be reached: " + variable), "\(text)")
        }
    }

    @Test("a profile that is a device or over 1 MiB is refused without being read, and no image is created for it")
    func profileFiles() async throws {
        let image = Self.scratch("profile-files.img")
        let big = Self.scratch("big-profile.json")
        defer { try? FileManager.default.removeItem(atPath: big) }
        try #require(FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x20, count: (1 << 20) + 1)))
        for (profile, reason) in [("/dev/zero", "is a character device, not a profile JSON file"),
                                  (big, "is \((1 << 20) + 1) bytes; a profile JSON file is at most 1048576 (1 MiB)")] {
            let sdk = ArculusFido(card: CardDiscovery(environment: ["ARCULUS_FIDO_CARD_IMAGE": image, "ARCULUS_FIDO_PROFILE": profile]).connector)
            #expect(await sdk.setPin(pin: "123456") == "607 Transmit Failed: setPin: the card cannot be reached: ARCULUS_FIDO_PROFILE=\(profile) \(reason)")
            #expect(!FileManager.default.fileExists(atPath: image))
            #expect(!FileManager.default.fileExists(atPath: image + ".lock"))
        }
        #expect(CardFileCheck.profileProblem("arculus-fido2") == nil && CardFileCheck.imageProblem("") != nil)
        #expect(throws: CardImageError.self) { try VirtualCardConnector(imageAt: "/dev/null") }
    }
}
