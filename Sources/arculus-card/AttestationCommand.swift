import ArculusCard
import Foundation
import POSIXSupport

/// `arculus-card attestation`: print the emulator's root certificate, or regenerate the material.
struct AttestationCommand: Subcommand {
    static let name = "attestation"
    static let summary = "Print the emulator's attestation root, or regenerate the attestation material"
    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card attestation root", "arculus-card attestation generate --fixtures DIR --swift-source FILE"],
            about: """
            'root' prints the PEM of the emulator's own root CA, the certificate a verifier (a FIDO2
            server under test) trusts to accept emulated cards. It is NOT a vendor CA.

            'generate' makes a new root CA, batch key and one batch certificate per built-in profile and
            writes them to DIR (emulator-root-ca.pem, emulator-root-ca.key.pem, emulator-batch.key.pem,
            emulator-batch-<profile>.pem) and as Swift source to FILE (normally
            Sources/CTAP2/Attestation/EmulatorAttestationMaterial.swift), which is compiled in. Only
            needed to rotate the committed material; every verifier trusting the old root must follow.
            """,
            options: [
                .valued("--fixtures", "DIR", "(generate) Where the PEM files go."),
                .valued("--swift-source", "FILE", "(generate) Where the Swift source of the material goes."),
            ])
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments)
        switch options.positionals {
        case ["root"]:
            let identity = try AttestationIdentity.emulator(for: .default)
            Console.output(identity.rootCertificate.pem)
            return ExitStatus.success
        case ["generate"]:
            guard let directory = options.value("--fixtures"), let source = options.value("--swift-source") else {
                throw UsageError("generate needs --fixtures DIR and --swift-source FILE")
            }
            let material = try AttestationIdentity.generateMaterial(for: CardProfile.builtIn, issuedAt: Date())
            let files: [(String, String)] = [
                ("emulator-root-ca.pem", material.rootCertificatePEM),
                ("emulator-root-ca.key.pem", material.rootPrivateKeyPEM),
                ("emulator-batch.key.pem", material.batchPrivateKeyPEM),
            ] + zip(CardProfile.builtIn, material.batchCertificatePEMs).map { ("emulator-batch-\($0.name).pem", $1) }
            for (name, pem) in files {
                // The private keys owner-only; the certificates are public.
                try NewFile.replace(directory + "/" + name, with: Array(pem.utf8), mode: name.hasSuffix(".key.pem") ? 0o600 : 0o644)
            }
            try NewFile.replace(source, with: Array(material.swiftSource.utf8), mode: 0o644)
            Console.output("wrote \(files.count) PEM files to \(directory) and \(source); rebuild to compile them in")
            return ExitStatus.success
        default:
            throw UsageError("expected 'root' or 'generate'")
        }
    }
}
