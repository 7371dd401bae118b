// swift-tools-version:6.0
// A package that depends on the emulator as a user's package does: by path, through its library
// products only. Its executable uses each product for real and holds the README's Swift examples
// as written; it exits non-zero when a check fails. `.ci/run` builds and runs it.
import PackageDescription

let package = Package(
    name: "ArculusConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ArculusCardEmulator", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "arculus-consumer",
            dependencies: [
                .product(name: "ArculusCard", package: "ArculusCardEmulator"),
                .product(name: "ArculusSDK", package: "ArculusCardEmulator"),
                .product(name: "ArculusFidoSDKFramework", package: "ArculusCardEmulator"),
                .product(name: "CTAPClient", package: "ArculusCardEmulator"),
                .product(name: "Transcript", package: "ArculusCardEmulator"),
                .product(name: "PCSC", package: "ArculusCardEmulator"),
                .product(name: "VirtualReader", package: "ArculusCardEmulator"),
                .product(name: "CardProbe", package: "ArculusCardEmulator"),
            ]
        ),
    ]
)
