// swift-tools-version:6.0
// A package that depends on the emulator as a user's package does: by path, through its library
// products only. Its executable uses each product for real and holds the documentation's Swift
// examples as written; it exits non-zero when a check fails. Beside it, one executable per Swift
// block of README.md and Docs/*.md, as written there: `extract-blocks` writes them to Blocks/
// (git ignores it), so a build compiles every block alone, imports and definitions included.
// `.ci/run` runs extract-blocks, builds this package and runs arculus-consumer.
import Foundation
import PackageDescription

let products: [Target.Dependency] = [
    "ArculusCard", "ArculusSDK", "ArculusFidoSDKFramework", "ArculusFidoConnectors", "CTAPClient", "Transcript",
    "PCSC", "VirtualReader", "CardProbe",
].map { .product(name: $0, package: "ArculusCardEmulator") }

// Blocks/<doc>-<n>/main.swift, one folder per documentation block (none before extract-blocks ran).
let blocks = ((try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/Blocks")) ?? [])
    .filter { FileManager.default.fileExists(atPath: Context.packageDirectory + "/Blocks/\($0)/main.swift") }
    .sorted()

let package = Package(
    name: "ArculusConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ArculusCardEmulator", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "arculus-consumer", dependencies: products),
    ] + blocks.map { .executableTarget(name: "block-\($0)", dependencies: products, path: "Blocks/\($0)") }
)
