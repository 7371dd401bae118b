// swift-tools-version:6.0
// The Arculus FIDO2 card emulator. No outside packages: only the toolchain and
// system libraries (libcrypto through pkg-config `openssl`).
import PackageDescription

let package = Package(
    name: "ArculusCardEmulator",
    products: [
        .library(name: "ArculusCard", targets: ["ArculusCard"]),
        .executable(name: "arculus-card", targets: ["arculus-card"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CPCSCLite",
            pkgConfig: "libpcsclite",
            providers: [.apt(["libpcsclite-dev"])]
        ),
        .target(name: "CardCrypto", dependencies: ["COpenSSL"]),
        .target(name: "PCSC", dependencies: ["CPCSCLite"]),
        .target(name: "CBOR"),
        .target(name: "CTAP2", dependencies: ["CBOR", "CardCrypto"]),
        .target(name: "ISO7816"),
        .target(name: "ArculusCard", dependencies: ["CTAP2", "ISO7816", "CBOR", "CardCrypto"]),
        .target(name: "Transcript", dependencies: ["ArculusCard", "ISO7816", "CTAP2", "CBOR", "CardCrypto"]),
        .target(name: "CTAPClient", dependencies: ["CBOR", "CardCrypto"]),
        .target(name: "ArculusSDK", dependencies: ["CTAPClient", "CBOR", "CardCrypto"]),
        .target(name: "VirtualReader", dependencies: ["ArculusCard", "ISO7816", "CTAP2", "CBOR"]),
        .executableTarget(
            name: "arculus-card",
            dependencies: [
                "ArculusCard", "VirtualReader", "Transcript", "PCSC", "CTAPClient", "ArculusSDK",
                "CTAP2", "ISO7816", "CBOR", "CardCrypto",
            ]
        ),
        .executableTarget(
            name: "arculus-bench",
            dependencies: ["ArculusCard", "CTAP2", "ISO7816", "CBOR", "CardCrypto", "PCSC", "Transcript"]
        ),
        .testTarget(name: "CardCryptoTests", dependencies: ["CardCrypto"]),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "CTAP2Tests", dependencies: ["CTAP2", "CBOR", "CardCrypto"]),
        .testTarget(name: "ISO7816Tests", dependencies: ["ISO7816"]),
        .testTarget(name: "CTAPClientTests", dependencies: ["CTAPClient", "ArculusCard", "CBOR", "CardCrypto"]),
        .testTarget(name: "ArculusSDKTests", dependencies: ["ArculusSDK", "CTAPClient", "ArculusCard", "PCSC", "CBOR", "CardCrypto"]),
        .testTarget(name: "PCSCTests", dependencies: ["PCSC"]),
        .testTarget(name: "TranscriptTests", dependencies: ["Transcript", "ArculusCard"]),
        .testTarget(name: "VirtualReaderTests", dependencies: ["VirtualReader", "ISO7816"]),
        .testTarget(
            name: "RobustnessTests",
            dependencies: ["ArculusCard", "VirtualReader", "Transcript", "CTAP2", "ISO7816", "CBOR", "CardCrypto"]
        ),
        .testTarget(
            name: "ArculusCardTests",
            dependencies: ["ArculusCard", "VirtualReader", "CTAP2", "ISO7816", "CBOR", "CardCrypto"]
        ),
    ]
)
