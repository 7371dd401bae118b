// swift-tools-version:6.0
// The Arculus FIDO2 card emulator. No outside packages: only the toolchain and
// system libraries (libcrypto through pkg-config `openssl`).
import PackageDescription

// libpcsclite. On Linux a C target of headers and the library (Debian's libpcsclite-dev puts both
// at the default paths): asking pkg-config, as a system library target does, brings the -pthread of
// libpcsclite.pc's Cflags, which SwiftPM refuses from a package (every build of this package and
// of every package depending on it warned "prohibited flag(s): -pthread"), for nothing the build
// needs. Elsewhere (macOS with Homebrew's pcsc-lite) pkg-config gives the paths.
#if os(Linux)
let pcscLite: Target = .target(name: "CPCSCLite")
#else
let pcscLite: Target = .systemLibrary(name: "CPCSCLite", path: "Sources/CPCSCLite/pkgconfig", pkgConfig: "libpcsclite",
                                      providers: [.apt(["libpcsclite-dev"]), .brew(["pcsc-lite"])])
#endif

let package = Package(
    name: "ArculusCardEmulator",
    // What the code's APIs need on Apple's systems: Mutex (Synchronization) macOS 15 / iOS 18,
    // Duration macOS 13, async URLSession macOS 12. Only ArculusSDK and the modules below it are
    // meant for iOS, and they need a crypto seam there (README, Architecture); the rest is for
    // Linux and macOS.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // Every module a user is told to import (README); a dependent package can use only these.
        .library(name: "ArculusCard", targets: ["ArculusCard"]),
        .library(name: "ArculusSDK", targets: ["ArculusSDK"]),
        // The SDK as a drop-in for the vendor's framework: `import ArculusFidoSDKFramework`, then
        // `ArculusFido()` finds a card (a PC/SC reader's, or an in-process emulated one).
        .library(name: "ArculusFidoSDKFramework", targets: ["ArculusFidoSDKFramework"]),
        // The SDK's connectors for a PC/SC reader and the in-process card (Linux and macOS).
        .library(name: "ArculusFidoConnectors", targets: ["ArculusFidoConnectors"]),
        .library(name: "CTAPClient", targets: ["CTAPClient"]),
        .library(name: "Transcript", targets: ["Transcript"]),
        .library(name: "PCSC", targets: ["PCSC"]),
        .library(name: "VirtualReader", targets: ["VirtualReader"]),
        .library(name: "CardProbe", targets: ["CardProbe"]),
        .executable(name: "arculus-card", targets: ["arculus-card"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            // macOS: Homebrew's openssl@3 (PKG_CONFIG_PATH=$(brew --prefix openssl@3)/lib/pkgconfig).
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        pcscLite,
        .target(name: "CardCrypto", dependencies: ["COpenSSL"]),
        // The system calls made in loops (EINTR, short writes), sleeping and threads: written once.
        .target(name: "POSIXSupport"),
        // The wire vocabulary: the specs' constants and names, shared by card side and host side,
        // and the one host-side NFC framing (chaining, 61xx, 9100 polling) every host uses.
        .target(name: "FIDOWire"),
        .target(name: "PCSC", dependencies: ["CPCSCLite", "FIDOWire"]),
        .target(name: "CBOR"),
        // The project's one JSON value type (SDK documents, control-channel lines) and base64url, how
        // that JSON carries bytes.
        .target(name: "JSONSupport"),
        // The COSE_Key codec (P-256 keys both ways, every credential key out) and the one reading
        // of the authenticator data that carries one: what card side, host side and transcripts
        // share of COSE and WebAuthn's byte formats, beside the wire vocabulary (whose flags it reads).
        .target(name: "COSE", dependencies: ["CBOR", "CardCrypto", "FIDOWire"]),
        .target(name: "CTAP2", dependencies: ["CBOR", "COSE", "CardCrypto", "FIDOWire", "POSIXSupport"]),
        .target(name: "ISO7816", dependencies: ["FIDOWire"]),
        .target(name: "ArculusCard", dependencies: ["CTAP2", "ISO7816", "CBOR", "CardCrypto", "FIDOWire", "POSIXSupport"]),
        .target(name: "Transcript", dependencies: ["ArculusCard", "ISO7816", "CTAP2", "CBOR", "COSE", "CardCrypto", "FIDOWire",
                                                   "POSIXSupport"]),
        .target(name: "CTAPClient", dependencies: ["CBOR", "COSE", "CardCrypto", "FIDOWire", "POSIXSupport"]),
        .target(name: "ArculusSDK", dependencies: ["CTAPClient", "CBOR", "CardCrypto", "FIDOWire", "JSONSupport"]),
        // Where host and card may meet: the SDK's connectors for a PC/SC reader and for the
        // in-process card (and their synchronous transports, which the probe uses), and what
        // `ArculusFido()` reads from the environment. Linux and macOS only (PC/SC, the card side).
        .target(name: "ArculusFidoConnectors", dependencies: ["ArculusSDK", "ArculusCard", "CTAPClient", "PCSC", "FIDOWire"]),
        // What an app imports, named as the vendor's iOS framework: the SDK and `ArculusFido()`.
        // It builds without PC/SC or the card side; only where the connectors build does it
        // bring them (and `ArculusFido()` find a card with them).
        .target(name: "ArculusFidoSDKFramework", dependencies: [
            "ArculusSDK", "CTAPClient",
            .target(name: "ArculusFidoConnectors", condition: .when(platforms: [.linux, .macOS])),
        ]),
        // The probe: a fixed battery sent to any card, answers kept as a fingerprint; host side only.
        .target(name: "CardProbe", dependencies: ["CTAPClient", "CBOR", "COSE", "CardCrypto", "FIDOWire", "JSONSupport", "POSIXSupport"]),
        .target(name: "VirtualReader", dependencies: ["ArculusCard", "ISO7816", "CTAP2", "CBOR", "CardCrypto", "FIDOWire", "POSIXSupport",
                                                     "JSONSupport"]),
        // The card page: `serve --ui`'s web page of each served card, its loopback HTTP server, the
        // page's event stream and the trace rows it shows.
        .target(name: "CardPage", dependencies: ["VirtualReader", "Transcript", "FIDOWire", "ISO7816", "JSONSupport", "CardCrypto",
                                                 "POSIXSupport"]),
        .executableTarget(
            name: "arculus-card",
            dependencies: [
                "ArculusCard", "VirtualReader", "CardPage", "Transcript", "PCSC", "CTAPClient", "ArculusSDK", "ArculusFidoConnectors", "CardProbe",
                "CTAP2", "ISO7816", "CBOR", "CardCrypto", "FIDOWire", "POSIXSupport", "JSONSupport",
            ]
        ),
        .executableTarget(
            name: "arculus-bench",
            dependencies: ["ArculusCard", "CTAP2", "ISO7816", "CBOR", "COSE", "CardCrypto", "PCSC", "Transcript", "FIDOWire",
                           "POSIXSupport", "VirtualReader"]
        ),
        // What the test targets (and the fuzz harnesses) share: TestFailure, TemporaryDirectory, hex,
        // the repository's folders, the pcscd suites' vpcd readers, and a platform side (PIN/UV auth
        // protocols, command bytes) written from the specification apart from FIDOWire, CTAP2 and
        // CTAPClient, so that the card is checked against an independent reading.
        .target(name: "TestSupport", dependencies: ["CBOR", "CardCrypto"], path: "Tests/TestSupport"),
        // What the card's tests share beside that: the one table of the values they send (relying
        // party, user, PINs, client data hashes) and the variant profiles they build.
        .target(name: "CardTestSupport", dependencies: ["CTAP2", "CardCrypto"], path: "Tests/CardTestSupport"),
        .testTarget(name: "POSIXSupportTests", dependencies: ["POSIXSupport", "TestSupport"]),
        .testTarget(name: "CardCryptoTests", dependencies: ["CardCrypto"], exclude: ["Vectors"]),
        .testTarget(name: "CBORTests", dependencies: ["CBOR", "TestSupport"]),
        .testTarget(name: "COSETests", dependencies: ["COSE", "CBOR", "CardCrypto"]),
        .testTarget(name: "JSONSupportTests", dependencies: ["JSONSupport", "TestSupport"]),
        .testTarget(name: "CTAP2Tests", dependencies: ["CTAP2", "ArculusCard", "CBOR", "CardCrypto", "FIDOWire", "TestSupport",
                                                       "CardTestSupport"]),
        .testTarget(name: "ISO7816Tests", dependencies: ["ISO7816", "FIDOWire", "TestSupport"]),
        .testTarget(name: "CTAPClientTests", dependencies: ["CTAPClient", "ArculusCard", "CBOR", "CardCrypto", "FIDOWire", "TestSupport",
                                                           "CardTestSupport"]),
        .testTarget(name: "ArculusSDKTests", dependencies: ["ArculusSDK", "ArculusFidoSDKFramework", "ArculusFidoConnectors", "CTAPClient", "ArculusCard",
                                                            "PCSC", "VirtualReader", "CBOR", "CardCrypto", "FIDOWire", "JSONSupport",
                                                            "TestSupport", "CardTestSupport"]),
        .testTarget(name: "PCSCTests", dependencies: ["PCSC", "FIDOWire", "TestSupport"]),
        // The command line's declarations: every option in a help is parsed, every parsed one in a help.
        .testTarget(name: "CLITests", dependencies: ["arculus-card", "TestSupport"]),
        // The learning of a profile from a fingerprint lives in the command line (where card and
        // host side meet), so these tests import it too.
        .testTarget(name: "CardProbeTests", dependencies: ["CardProbe", "ArculusCard", "CTAPClient", "CBOR", "CardCrypto", "FIDOWire",
                                                          "JSONSupport", "CTAP2", "arculus-card", "ArculusFidoConnectors", "TestSupport"]),
        .testTarget(name: "TranscriptTests", dependencies: ["Transcript", "ArculusCard", "CTAP2", "CBOR", "FIDOWire", "TestSupport"]),
        .testTarget(name: "CardPageTests", dependencies: ["CardPage", "VirtualReader", "ArculusCard", "JSONSupport", "FIDOWire",
                                                          "POSIXSupport", "TestSupport"]),
        .testTarget(name: "VirtualReaderTests", dependencies: ["VirtualReader", "ISO7816", "FIDOWire", "JSONSupport", "TestSupport"]),
        .testTarget(
            name: "RobustnessTests",
            dependencies: ["ArculusCard", "VirtualReader", "Transcript", "CTAP2", "ISO7816", "CBOR", "CardCrypto", "FIDOWire",
                           "POSIXSupport", "TestSupport"]
        ),
        .testTarget(
            name: "ArculusCardTests",
            dependencies: ["ArculusCard", "VirtualReader", "CTAP2", "ISO7816", "CBOR", "CardCrypto", "FIDOWire", "JSONSupport",
                           "TestSupport"]
        ),
    ]
)
