import ArculusCard

/// The help of `arculus-card sdk`; its OPERATIONS section is written from ``SDKOperation/all``.
extension SDKCommand {
    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card sdk <operation> (--card-image FILE [--profile NAME|FILE] | --reader NAME) [options]"],
            about: """
            Runs one operation of the Arculus FIDO SDK, as its sample apps call it, through a host-side
            CTAP2 client (SELECT, NFCCTAP_MSG with chaining, PIN/UV auth protocol 2 or 1), and prints
            the result as JSON on stdout. The card is either an in-process emulated card whose memory
            is a card image file (the same file 'arculus-card serve --card FILE' uses), or whatever
            card sits on a PC/SC reader (e.g. 'Virtual PCD 00 01' with 'arculus-card serve --slot 1',
            or a real Arculus card on an NFC reader).
            """,
            actionsTitle: "OPERATIONS (SDK name in brackets)",
            actions: SDKOperation.all.map { operation in
                CommandDeclaration.Action(title: operation.name, help: operationLines(operation),
                                          accepts: cardOptions.flatMap { $0.names.map(\.name) } + operation.options.map(\.name))
            },
            optionsTitle: "THE CARD (one of)",
            options: cardOptions,
            moreOptions: [.init(title: "OPTIONS (each value is checked before the card is touched; otherwise exit 65)",
                                options: operationOptions)],
            sections: [
                .init(title: "OUTPUT AND EXIT STATUS", body: """
                  0   the result as JSON on stdout.
                  1   an SDK error: {"error": {"code": 608, "name": "Get PIN Token Failed", "message": ...,
                      "ctapStatus": "CTAP2_ERR_PIN_INVALID", "pinRetries": 7}} on stdout, the message on
                      stderr. Codes are the vendor SDK's: 600 Tag Lost, 601 Unknown, 602 No Credentials,
                      603 User Not Found, 604 Signature Failed, 605 Device Reset Failed, 606 Keystore
                      Full, 607 Transmit Failed, 608 Get PIN Token Failed, 609 PIN Verification Failed;
                      this SDK's own: 701 Cancelled (the operation was stopped), 702 Relying Party
                      Mismatch (--strict-rp, and the server named another RP ID). A flow's result
                      names the RP ID the card signed for ("rpId").
                  64  a bad command line (unknown option, missing value).
                  65  a value the SDK refuses (see above), before the card is touched: {"error":
                      {"code": 700, "name": "Invalid Input", "kind": "invalidRPID", "parameter":
                      "--rp-id", "message": "sdk register-card-only: --rp-id \\\"https://example.com\\\" is
                      a URL; give the relying party's domain, e.g. example.com"}}; the message on stderr.
                """),
                .init(title: "EXAMPLES", body: """
                  arculus-card sdk set-pin --card-image card.img --pin 123456
                  arculus-card sdk register-card-only --card-image card.img --pin 123456 \\
                      --username alice@example.com --display-name Alice --rp-id example.com \\
                      --challenge q83vEjRWeJCrze8SNFZ4kA --origin https://example.com
                  arculus-card sdk register-user --reader 'Virtual PCD 00 01' --server http://localhost:8080 \\
                      --pin 123456 --username alice --rp-id localhost
                """),
            ],
            column: 28)
    }

    /// Where the card is: an image (with its profile and fault knob) or a reader.
    static let cardOptions: [CommandDeclaration.Option] = [
        .valued("--card-image", "FILE", "An in-process emulated card whose memory is FILE (created from",
                "--profile if missing; locked while in use, so not while",
                "'arculus-card serve' has it). Each operation is one tap."),
        .valued("--profile", "NAME|FILE", "The profile of a new image (\(SharedOptions.profileChoices), or a",
                "profile JSON file). Default: \(CardProfile.default.name)."),
        .valued("--remove-card-after", "N", "Fault injection for --card-image: the card leaves the field",
                "instead of answering APDU number N+1 (counted over the run)."),
        .valued("--reader", "NAME", "The card on this PC/SC reader (pcscd), e.g. 'Virtual PCD 00 01'."),
        .valued("--wait-for-card", "SECONDS", "With --reader: wait up to SECONDS for a card. Default 0."),
    ]

    /// The options the operations take (``SDKOperation/all`` names which each takes).
    static let operationOptions: [CommandDeclaration.Option] = [
        .together([.valued("--pin", "PIN"), .valued("--old-pin", "PIN"), .valued("--new-pin", "PIN")],
                  "4 or more characters (the vendor asks for 6+ digits), at most",
                  "63 bytes of UTF-8, no NUL; a new PIN also the card's own",
                  "minimum (getInfo minPINLength)."),
        .valued("--username", "NAME", "Not empty or blank. It and --display-name are cut to",
                "64 bytes on the card (CTAP 2.1 lets cards truncate there)."),
        .valued("--display-name", "NAME", "The account's display name. Default: --username."),
        .valued("--rp-id", "ID", "A domain as browsers give it: lowercase ASCII, A-labels",
                "(xn--) for international names, no scheme, port, path or",
                "trailing dot; not an IP address ('localhost' is fine). With",
                "an origin, its host or a registrable suffix of it (a single",
                "label such as 'com' is refused; without the Public Suffix",
                "List, 'co.uk'-style suffixes are not). In the flows the",
                "server (or backend) decides the RP, as in the vendor's apps:",
                "--rp-id is only the fallback for one that names none."),
        .flag("--strict-rp", "In the flows: sign for --rp-id only (then required); a server",
              "or backend naming another RP ID is refused with 702 Relying",
              "Party Mismatch before the card is touched."),
        .valued("--origin", "URL", "https://host[:port] exactly as clientDataJSON carries it:",
                "lowercase, no default port, nothing after the port (no '/').",
                "http only for localhost, *.localhost, 127.x.x.x and [::1].",
                "The same holds for the origin of --server."),
        .valued("--challenge", "B64URL", "base64url (A-Z a-z 0-9 - _), or standard base64 (+ /) as",
                "base64EncodedString() writes it; '=' padding accepted and",
                "dropped; at least 16 bytes. clientDataJSON gets base64url."),
        .valued("--user-id", "B64URL", "The same encodings, 1 to 64 bytes (a server's user.id)."),
        .together([.valued("--credential-id", "ID"), .valued("--allow-credentials", "ID,ID")],
                  "The same encodings, 16 to 1023 bytes (comma-separated for",
                  "the list)."),
        .flag("--allow-rp-id-mismatch", "Sign even when --rp-id (or the server's RP ID) is neither the",
              "origin's host nor a registrable suffix of it, for a test that",
              "wants what a browser would refuse."),
        .valued("--server", "URL", "The FIDO2 server: a host name (https) or http(s)://host:port."),
        .valued("--begin-endpoint", "PATH", "Default fidoapi/certify/attestation/options (register-user),",
                "fidoapi/certify/assertion/options (authenticate-user)."),
        .valued("--complete-endpoint", "PATH", "Default fidoapi/certify/attestation/result,",
                "fidoapi/certify/assertion/result."),
        .flag("--reset-device", "Erase the card and set --pin before registering."),
        .valued("--registration-info", "TEXT", "Sent with the registration result (the seed's registrationInfo)."),
        .valued("--backend", "URL", "The backend following the sample servlet's JSON contract."),
        .valued("--backend-path", "PATH", "Default /fido/register (register-via-backend),",
                "/fido/authenticate (authenticate-via-backend)."),
        .valued("--timeout", "SECONDS", "The longest an HTTP call may take, answer included (above 0,",
                "at most 3600). Default 30. No redirect is followed; an answer",
                "is at most 1 MiB."),
    ]

    /// An operation's help lines: its options' usage (wrapped), its SDK name at the right of the
    /// first line, then its help.
    private static func operationLines(_ operation: SDKOperation) -> [String] {
        var usage: [String] = []
        for option in operation.options.map(\.usage) {
            if let last = usage.last, last.count + 1 + option.count <= 48 {
                usage[usage.count - 1] = last + " " + option
            } else {
                usage.append(option)
            }
        }
        var body = usage + operation.about
        if body.isEmpty { body = [""] }
        if let label = operation.label { body[0] = body[0].padding(49) + label }
        return body
    }
}
