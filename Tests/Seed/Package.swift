// swift-tools-version:6.0
// The seed's own Swift code (../shared/seeds/000_*.txt), taken out of the seed text by
// extract_seed.py at every run and compiled against the emulator's drop-in SDK, as an app would
// depend on it: by path, through the ArculusFidoSDKFramework product. Stand-in UIKit, WebKit and
// CommonCrypto modules let the samples' text compile unchanged on Linux; `seed-app` drives them
// as their web page would (Tests/Flows/test_seed_code.py runs it against a served card).
import PackageDescription

let sdk = Target.Dependency.product(name: "ArculusFidoSDKFramework", package: "ArculusCardEmulator")
// The samples are Swift 5 code, as iOS apps of their time are.
let seed: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "ArculusSeedApps",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ArculusCardEmulator", path: "../.."),
    ],
    targets: [
        .target(name: "UIKit"),
        .target(name: "WebKit", dependencies: ["UIKit"]),
        .target(name: "CommonCrypto"),
        // Sources written by extract_seed.py (git ignores them).
        .target(name: "SeedMinimalClientDirect", dependencies: [sdk], swiftSettings: seed),
        .target(name: "SeedClientDirectApp", dependencies: ["UIKit", "WebKit", sdk], swiftSettings: seed),
        .target(name: "SeedBackendProxiedApp", dependencies: ["UIKit", "WebKit", "CommonCrypto", sdk], swiftSettings: seed),
        // The README's first SDK example (README: The SDK), written here, not taken from the seed.
        .target(name: "ReadmeExample", dependencies: [sdk]),
        .executableTarget(name: "seed-app", dependencies: ["SeedMinimalClientDirect", "SeedClientDirectApp", "SeedBackendProxiedApp",
                                                           "ReadmeExample", "UIKit", "WebKit", "CommonCrypto"]),
    ]
)
