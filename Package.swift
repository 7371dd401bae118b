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
        .target(name: "VirtualReader", dependencies: ["ArculusCard", "ISO7816", "CTAP2", "CBOR"]),
        .executableTarget(
            name: "arculus-card",
            dependencies: ["ArculusCard", "VirtualReader", "Transcript", "PCSC", "CTAP2", "ISO7816", "CBOR", "CardCrypto"]
        ),
        .testTarget(name: "CardCryptoTests", dependencies: ["CardCrypto"]),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "CTAP2Tests", dependencies: ["CTAP2", "CBOR", "CardCrypto"]),
        .testTarget(name: "ISO7816Tests", dependencies: ["ISO7816"]),
        .testTarget(name: "PCSCTests", dependencies: ["PCSC"]),
        .testTarget(name: "TranscriptTests", dependencies: ["Transcript", "ArculusCard"]),
        .testTarget(name: "VirtualReaderTests", dependencies: ["VirtualReader", "ISO7816"]),
        .testTarget(
            name: "ArculusCardTests",
            dependencies: ["ArculusCard", "VirtualReader", "CTAP2", "ISO7816", "CBOR", "CardCrypto"]
        ),
    ]
)
